"""An implementation that answers from recorded answers, doing almost nothing: it measures the harness alone.

``python -m vitou_ref.hunt.replay FILE``: FILE holds one JSON object per line,
{"key": ..., "answer": ...}; ``key`` is the request line after its seq, as the
harness writes it, and ``answer`` the answer with its seq left out.
"""

from __future__ import annotations

import json
import sys


def key_of(line: bytes) -> bytes:
    """The part of a run request line after its seq."""
    at = line.find(b'"seq":')
    return line[line.find(b",", at) :].rstrip(b"\n")


def main(argv: list[str]) -> int:
    answers: dict[bytes, bytes] = {}
    start = b""
    with open(argv[0], encoding="utf-8") as fh:
        for text in fh:
            item = json.loads(text)
            body = json.dumps(item["answer"], separators=(",", ":")).encode()
            if item["key"] == "start":
                start = body + b"\n"
            else:
                answers[item["key"].encode()] = b"," + body[1:] + b"\n"
    inp = sys.stdin.buffer
    out = sys.stdout.buffer
    for line in inp:
        if line.startswith(b'{"cmd":"run"'):
            at = line.find(b'"seq":') + 6
            seq = line[at : line.find(b",", at)]
            recorded = answers.get(key_of(line))
            if recorded is None:
                out.write(b'{"seq":' + seq + b',"errored":true,"message":"no recorded answer"}\n')
            else:
                out.write(b'{"seq":' + seq + recorded)
        elif b'"stop"' in line:
            return 0
        else:
            out.write(start)
        out.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
