"""JSON on the wire: strict parsing with bounded depth, type-exact equality, and text safe to show."""

from __future__ import annotations

import itertools
import json
import math
import re
from typing import Any

from ..present import escape

MAX_DEPTH = 64  # far deeper than any protocol message (an event's score sits at depth 5)
MAX_DIGITS = 4300  # digits of one JSON integer; counted here, not left to the interpreter's own setting
_BOM = "\ufeff"
_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')  # a JSON string, escapes included: brackets in it do not nest
_BRACKETS = re.compile(r"[\[\]{}]")


class WireError(ValueError):
    """A line that is not usable JSON; ``code`` is a stable word: encoding, json, depth, number."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _constant(name: str) -> Any:
    # NaN, Infinity and -Infinity are not JSON, whatever Python's json module accepts.
    raise WireError("number", f"{name} is not a JSON number")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise WireError("number", f"the number {text[:40]} is out of range")
    return value


def _int(text: str) -> int:
    # The scanner's integers: the bound holds whatever limit Python was started with (PYTHONINTMAXSTRDIGITS).
    digits = len(text) - text.startswith("-")
    if digits > MAX_DIGITS:
        raise WireError("number", f"an integer of {digits} digits, over {MAX_DIGITS}")
    return int(text)


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise WireError("json", f"the key {escape.text(twice, 40)!r} appears twice in one object")
    return obj


_DECODER = json.JSONDecoder(parse_constant=_constant, parse_float=_float, parse_int=_int)
_STRICT = json.JSONDecoder(parse_constant=_constant, parse_float=_float, parse_int=_int, object_pairs_hook=_unique)


def loads(data: bytes | str, *, max_depth: int = MAX_DEPTH, strict: bool = False) -> Any:
    """One JSON value from one line; WireError for anything else, never another exception.

    The text must be UTF-8; integers of more digits than Python converts,
    non-finite numbers and nesting deeper than ``max_depth`` are refused as
    data, not left to crash a caller. A leading byte-order mark is ignored,
    as protocol.md allows on requests; ``strict`` (what the harness asks of
    an implementation's answers) refuses it, and refuses an object that
    names a key twice, since which value counts would be a guess.
    """
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise WireError("encoding", f"not UTF-8 at byte {exc.start}") from None
    else:
        text = data
    if text.startswith(_BOM):
        if strict:
            raise WireError("json", "the line starts with a byte-order mark")
        text = text[1:]
    try:
        value = (_STRICT if strict else _DECODER).decode(text)
    except WireError:
        raise
    except RecursionError:
        raise WireError("depth", f"nested {depth_of(text)} levels deep, deeper than {max_depth}") from None
    except ValueError as exc:  # JSONDecodeError, and integers past a lower limit Python was started with
        raise WireError("json", f"not JSON: {exc}") from None
    if not depth_within(value, max_depth):
        raise WireError("depth", f"nested {depth_of(text)} levels deep, deeper than {max_depth}")
    return value


def depth_within(value: Any, max_depth: int = MAX_DEPTH) -> bool:
    """Whether ``value`` nests no deeper than ``max_depth`` containers (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    containers = (dict, list)
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            return False
        children = node.values() if type(node) is dict else node if type(node) is list else ()
        stack.extend((c, depth + 1) for c in children if type(c) in containers)
    return True


def depth_of(text: str) -> int:
    """How deep the arrays and objects of JSON text nest, its strings left out: for a message, when it is too deep."""
    brackets = _BRACKETS.findall(_STRINGS.sub("", text))
    return max(itertools.accumulate(1 if b in "[{" else -1 for b in brackets), default=0)


def dumps(value: Any) -> str:
    """Compact JSON, keys in order; the form every request line and saved answer takes."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def canonical(value: Any) -> str:
    """A text that two JSON values share exactly when they are the same JSON, types included."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=True)


def same(a: Any, b: Any) -> bool:
    """JSON equality that tells types apart: ``true`` is not ``1`` and ``1.0`` is not ``1``.

    Python's ``==`` says ``True == 1 == 1.0``; a peer must not pass by
    sending a boolean or a float where the protocol says an integer.
    """
    if a is b:
        return True
    if a != b:
        return False
    return canonical(a) == canonical(b)


def is_int(value: Any) -> bool:
    """A JSON integer: a Python int that is not a bool (``1.0`` and ``true`` are not integers)."""
    return type(value) is int
