"""An implementation right on the game whose errored answers break the bounds of their message, one way per mode.

Usage: python wordy_errors.py MODE
It answers like the reference, except that every errored answer's message is replaced as MODE says. The
protocol holds a message to a string of at most 1,000 characters with its control characters escaped
(docs/reference/strictness.md, Answers; docs/reference/protocol.md, Answers); tests/test_answer_bounds.py checks
that the harness names the bound and what it saw, and that no mode makes it fail itself.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from vitou_ref.adapter import build_server

MODES: dict[str, Callable[[str], Any]] = {
    "good": lambda message: message,  # no mistake: the reference through this loop
    "long": lambda message: (message + " " + "-" * 3000)[:3000],  # 3,000 characters, the request's words first
    "control": lambda message: message + "\x07",  # a raw BEL at the end, sent as JSON's \u0007
    "newline": lambda message: "refused:\n" + message,  # a raw newline, sent as JSON's \n
    "huge": lambda message: "x" * 4_000_000,  # 4 million characters: the line stays under the 8 MiB an answer may be
    "number": lambda message: 3000,  # not a string
    "deep": lambda message: _nested(60),  # not a string, and 61 levels with the answer: within the 64 allowed
    "none": lambda message: None,
}
LEFT_OUT = "missing"  # the one mode that sends no message at all


def _nested(depth: int) -> Any:
    value: Any = "m"
    for _ in range(depth):
        value = [value]
    return value


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode not in MODES and mode != LEFT_OUT:
        print(f"modes: {', '.join([*MODES, LEFT_OUT])}", file=sys.stderr)
        return 2
    server = build_server()
    plain = server.handle

    def handle(line: bytes | str) -> dict[str, Any] | None:
        out = plain(line)
        if isinstance(out, dict) and out.get("errored") is True:
            message = str(out.pop("message", ""))
            if mode != LEFT_OUT:
                out["message"] = MODES[mode](message)
        return out

    server.handle = handle  # type: ignore[method-assign]
    return server.serve(sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    sys.exit(main())
