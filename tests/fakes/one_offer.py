"""An engine of one game: the reference, offering only the rulesets named on its command line.

Usage: python one_offer.py RULESET [RULESET ...]
It reads its input as the reference does, bytes split at LF, blank lines skipped: right on the envelope, which
is judged under every ruleset it offers.
"""

from __future__ import annotations

import sys

from vitou_ref.adapter import build_server
from vitou_ref.protocol.server import encode, is_blank


def main() -> int:
    offered = sys.argv[1:]
    server = build_server()
    for line in sys.stdin.buffer:
        if is_blank(line):
            continue
        answer = server.handle(line)
        if answer is None:
            return 0  # stop: exit with status 0, as the protocol asks
        if answer.get("protocol") == 1 and "rulesets" in answer:
            answer["rulesets"] = offered
        sys.stdout.buffer.write(encode(answer))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
