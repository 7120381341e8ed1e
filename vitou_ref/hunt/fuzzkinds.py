"""The kind of a fuzz divergence: what its first differing step shows, whatever match it was found in.

Two divergences are the same bug, as fuzz groups them, when their first differing steps show the same thing:
the act of the step and what differs there (its result, the kinds and fields of its events, the acts its legal
set has or lacks), or, before any step or after the last, the part of the answer that differs. A kind is one line
of text: fuzz prints it, writes it into the fixture it saves (``# kind: ...``), and ``--expect FILE`` reads it back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..present import escape

KIND_LINE = "# kind: "  # how a saved fixture states the kind of its divergence
MAX_KIND = 300  # characters: a kind is a short line, whatever an engine answered


def kind_of(where: str, expected: Any, actual: Any, action: Any = None) -> str:
    """The kind of a divergence at ``where`` ("step N", "legal", "final", ...), from what differs there.

    Every word taken from an answer is escaped (no control character, no line break), and the whole is cut to
    MAX_KIND characters: a kind can be printed, and written into a file, as it is.
    """
    return _kind(where, expected, actual, action)[:MAX_KIND]


def _kind(where: str, expected: Any, actual: Any, action: Any) -> str:
    if where.startswith("step "):
        act = action.get("act") if isinstance(action, Mapping) else None
        head = f"{_word(act)}:"
        if isinstance(expected, Mapping) and "ok" in expected:
            return f"{head} {_result(expected, actual)}"
        if isinstance(expected, Mapping) and "events" in expected:
            got = actual.get("events") if isinstance(actual, Mapping) else None
            return f"{head} events {_events(expected['events'], got)}"
        if isinstance(expected, Mapping) and "legal" in expected:
            got = actual.get("legal") if isinstance(actual, Mapping) else None
            return f"{head} legal set {_acts(expected['legal'], got)}"
        return f"{head} answer"
    if where == "legal":
        return f"legal set before any action {_acts(expected, actual)}"
    if where == "final":
        return f"final {_fields(expected, actual)}"
    return _word(where)  # fault, errored, steps, answer, the envelope's bounds: the place says it all


def _word(value: Any) -> str:
    return escape.text(value, 40) if isinstance(value, str) else "(none)"


def _result(expected: Mapping[str, Any], actual: Any) -> str:
    ok = expected.get("ok") is True
    got_ok = actual.get("ok") if isinstance(actual, Mapping) else None
    if got_ok is not ok:
        return "refused where the rules accept" if ok else "accepted where the rules refuse"
    return "another error code"


def _events(want: Any, got: Any) -> str:
    """The first event that differs: its kind, and the fields that differ (or + / - for one only on one side)."""
    want = want if isinstance(want, list) else []
    got = got if isinstance(got, list) else []
    for i in range(max(len(want), len(got))):
        w = want[i] if i < len(want) else None
        g = got[i] if i < len(got) else None
        if w == g:
            continue
        if w is None or g is None or not isinstance(w, Mapping) or not isinstance(g, Mapping):
            kind = (w if isinstance(w, Mapping) else g if isinstance(g, Mapping) else {}).get("event")
            return f"{'+' if w is None else '-'}{_word(kind)}"
        if w.get("event") != g.get("event"):
            return f"{_word(w.get('event'))} where {_word(g.get('event'))}"
        return f"{_word(w.get('event'))}.{_fields(w, g)}"
    return "(same)"


def _fields(want: Any, got: Any) -> str:
    if not isinstance(want, Mapping) or not isinstance(got, Mapping):
        return "(not an object)"
    keys = sorted(k for k in {*want, *got} if isinstance(k, str) and want.get(k) != got.get(k))
    return ",".join(_word(k) for k in keys[:6]) or "(same)"


def _acts(want: Any, got: Any) -> str:
    """How two legal sets differ: the acts one has and the other lacks (+ the engine's extra, - what it lacks);
    with the same acts, whether another seat acts; else which of their fields (cards, raise levels) differ."""
    a, b = _field(want, "act"), _field(got, "act")
    if a != b:
        return " ".join([*(f"+{x}" for x in sorted(b - a)), *(f"-{x}" for x in sorted(a - b))])
    if _field(want, "seat") != _field(got, "seat"):
        return "another seat acts"
    return "other " + "/".join(k for k in ("card", "to", "side", "signal") if _field(want, k) != _field(got, k))


def _field(actions: Any, key: str) -> set[str]:
    items: Iterable[Any] = actions if isinstance(actions, list) else []
    return {_word(x.get(key)) if key != "to" else _word(str(x.get(key))) for x in items if isinstance(x, Mapping)}


def read_kinds(text: str) -> set[str]:
    """The kinds a --expect file lists: one a line, or a saved fixture's ``# kind:`` lines; # starts a comment."""
    lines = [raw.strip() for raw in text.splitlines()]
    head = KIND_LINE.strip()
    stated = [x[len(head) :].strip() for x in lines if x.startswith(head)]
    # A saved fixture says its kind in a comment, and the rest of it is the case: its kind lines alone count.
    found = stated if stated else [x for x in lines if not x.startswith("#")]
    return {x[:MAX_KIND] for x in found if x}


__all__ = ["KIND_LINE", "MAX_KIND", "kind_of", "read_kinds"]
