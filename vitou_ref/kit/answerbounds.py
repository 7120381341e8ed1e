"""The bounds the protocol sets on an errored answer's message, judged on every errored answer an engine sends."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..protocol.client import json_kind

# docs/reference/strictness.md, Answers: "a message that is a string of at most 1,000 characters"; and
# docs/reference/protocol.md, Answers: "keep control characters ... escaped". The wire bounds of every answer
# (8 MiB a line, 64 levels, 4,300 digits, strict JSON) are protocol/wire.py's and protocol/connection.py's.
MAX_MESSAGE = 1000
# Control characters (Unicode's Cc: C0, DEL and C1). JSON carries them only as \u escapes, so a line can be strict
# JSON and still give a message holding one raw: escaped for people means shown as text (\x07), as the reference does.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
ENVELOPE = "envelope, an errored answer's message"  # the field a Difference names: the answer's frame, not the game


@dataclass(frozen=True)
class Breach:
    """A bound an errored answer's message breaks: the bound, what was seen, and the two in one sentence."""

    bound: str  # "at most 1000 characters"
    seen: str  # "3000 characters"
    sentence: str  # "an errored answer's message is at most 1000 characters; got 3000"


def message_breach(answer: Any) -> Breach | None:
    """How the message of ``answer``, an errored answer, breaks a bound of the protocol, or None (or not errored).

    Its type first, then its length, then a raw control character: the first bound broken is the one named.
    Never raises, whatever the answer holds; nothing of the message is shown but its length and a code point.
    """
    if not isinstance(answer, dict) or answer.get("errored") is not True:
        return None
    if "message" not in answer:
        return Breach("a string", "none", "an errored answer's message is a string; it has none")
    message = answer["message"]
    if not isinstance(message, str):
        kind = json_kind(message)
        return Breach("a string", kind, f"an errored answer's message is a string; got {kind}")
    if len(message) > MAX_MESSAGE:
        return Breach(
            f"at most {MAX_MESSAGE} characters",
            f"{len(message)} characters",
            f"an errored answer's message is at most {MAX_MESSAGE} characters; got {len(message)}",
        )
    raw = _CONTROL.search(message)
    if raw is not None:
        seen = f"a raw U+{ord(raw.group()):04X} at character {raw.start() + 1} of {len(message)}"
        return Breach(
            "control characters kept escaped (none raw)",
            seen,
            f"an errored answer's message keeps control characters escaped (docs/reference/protocol.md, Answers); "
            f"got {seen}",
        )
    return None


__all__ = ["ENVELOPE", "MAX_MESSAGE", "Breach", "message_breach"]
