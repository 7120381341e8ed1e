"""Comparing an implementation's answer to a case's expectation: the first differing step, and every one after it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..present import escape
from ..protocol.client import PROTOCOL_MINOR, as_spoken
from ..protocol.wire import canonical, same
from ..rules.plurals import counted
from .answerbounds import ENVELOPE, message_breach
from .fixtures import REFERENCE, Case, Expectation, StepExpect, in_order


@dataclass(frozen=True, slots=True)
class Difference:
    """A place where an answer differs from the expectation: before the first action, at a step, or at the end."""

    where: str  # "legal", "step 4", "final"
    what: str  # "error", "events", "legal", "final", "steps"
    expected: Any
    actual: Any
    action: Any = None  # the action of that step, if any

    def describe(self) -> str:
        act = f" ({_action_text(self.action)})" if self.action is not None else ""
        return f"{self.where}{act}: {self.what}: expected {_j(self.expected)}, got {_j(self.actual)}"

    def to_json(self) -> dict[str, Any]:
        return {
            "where": self.where,
            "what": self.what,
            "expected": self.expected,
            "actual": self.actual,
            "action": self.action,
        }


def _j(value: Any) -> str:
    # What an implementation sent is shown escaped and cut: it may hold anything.
    return escape.text(json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True), 600)


def _action_text(a: Any) -> str:
    if isinstance(a, dict):
        who = a.get("seat", a.get("side", "?"))
        rest = " ".join(f"{k}={v}" for k, v in a.items() if k not in ("seat", "side", "act"))
        return f"{who} {a.get('act', '?')}{(' ' + rest) if rest else ''}"
    return json.dumps(a)


# The fields protocol v1 names in each object of an answer that is compared (docs/reference/protocol.md,
# Messages). Messages are open (clarification 27): a receiver ignores any other field, so only
# these are compared, and a field named here that is missing or of another type still differs.
# Actions are closed: a legal set is compared whole, action by action.
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "trick": ("event", "trick", "winner"),
    "hand": ("event", "winner", "points", "reason", "score"),
    "match": ("event", "winner"),
}
FINAL_FIELDS = ("score", "dealer", "winner")


def sides_of(final: Any) -> tuple[str, ...]:
    """The sides a score names: those of the expected final score, which names every side of the ruleset."""
    score = final.get("score") if isinstance(final, dict) else None
    return tuple(score) if isinstance(score, dict) else ()


def _score(score: Any, sides: tuple[str, ...]) -> Any:
    return {k: score[k] for k in sides if k in score} if isinstance(score, dict) else score


def named_event(event: Any, sides: tuple[str, ...]) -> Any:
    """An event reduced to the fields the protocol names for its kind; an event of no known kind stays whole."""
    kind = event.get("event") if isinstance(event, dict) else None
    fields = EVENT_FIELDS.get(kind) if isinstance(kind, str) else None
    if fields is None:
        return event  # not an event the protocol names: it can only differ, and is shown as it came
    out = {k: event[k] for k in fields if k in event}
    if "score" in out:
        out["score"] = _score(out["score"], sides)
    return out


def named_events(events: Any, sides: tuple[str, ...]) -> Any:
    """A step's events, each reduced to its named fields; a list's length and order still count."""
    return [named_event(e, sides) for e in events] if isinstance(events, list) else events


def named_final(final: Any, sides: tuple[str, ...]) -> Any:
    """``final`` reduced to score, dealer and winner, its score to the sides."""
    if not isinstance(final, dict):
        return final
    out = {k: final[k] for k in FINAL_FIELDS if k in final}
    if "score" in out:
        out["score"] = _score(out["score"], sides)
    return out


def same_events(want: Any, got: Any, sides: tuple[str, ...]) -> bool:
    # The exact match first: it is the usual case, and the fast one.
    return same(want, got) or same(want, named_events(got, sides))


def same_final(want: Any, got: Any, sides: tuple[str, ...]) -> bool:
    return same(want, got) or same(want, named_final(got, sides))


def _as_set(actions: Any) -> list[Any] | None:
    if not isinstance(actions, list):
        return None
    return sorted(actions, key=canonical)


def _same_set(actions: Any, want: StepExpect | Expectation) -> bool:
    """Whether ``actions`` is the legal set ``want`` states, as a set; the same order, the usual case, is the fast one."""
    if not isinstance(actions, list):
        return False
    # Canonical texts tell types apart, so a set with true for 1 is not the same set.
    return in_order(actions) == want.legal_text or sorted(canonical(a) for a in actions) == want.legal_canon


def shape_problem(response: Any, n_actions: int, errored_expected: bool = False) -> str | None:
    """Why a run response cannot be compared at all (the case is then errored), or None."""
    if not isinstance(response, dict):
        return "the response is not a JSON object"
    if errored_expected:
        return None
    if response.get("errored") is True:
        return f"the implementation reported an error: {escape.text(response.get('message'), 300)}"
    for key in ("legal", "steps", "final"):
        if key not in response:
            return f"the response has no '{key}'"
    if not isinstance(response["legal"], list):
        return "'legal' is not a list"
    if not isinstance(response["final"], dict):
        return "'final' is not an object"
    steps = response["steps"]
    if not isinstance(steps, list):
        return "'steps' is not a list"
    if len(steps) != n_actions:
        return f"wrong number of steps: {len(steps)} for {counted(n_actions, 'action', 'actions')}"
    for i, s in enumerate(steps, 1):
        if not isinstance(s, dict) or not isinstance(s.get("ok"), bool):
            return f"step {i} is not a step object (an object whose 'ok' is true or false)"
    return None


def whose(legal_from: str) -> str:
    """Who gives a compared legal set, as a difference names it: the case states it, or it is the reference's."""
    return "the reference's" if legal_from == REFERENCE else "the case's"


CODE, OUTCOME = "code", "outcome"  # the levels of certification (docs/reference/protocol.md, Levels)
LEVELS = (CODE, OUTCOME)


def compare(
    case: Case,
    expect: Expectation,
    response: dict[str, Any],
    minor: int = PROTOCOL_MINOR,
    level: str = CODE,
    legal: bool = True,
) -> Difference | None:
    """The first difference between ``response`` and ``expect``, or None when they agree.

    ``minor`` is the peer's protocol 1.minor: the expected events are compared as that version words them.
    At the ``outcome`` level a rejected step agrees with any refusal, whatever its error says; all else is
    compared as at the code level. Without ``legal`` no legal set is compared: only the path the answer takes.
    """
    return next(_differences(case, expect, response, minor, level, legal), None)


def differences(
    case: Case, expect: Expectation, response: dict[str, Any], minor: int = PROTOCOL_MINOR, level: str = CODE
) -> list[Difference]:
    """Every place ``response`` differs from ``expect``, in order, one at most for each: the legal set before the
    first action, each step, the final state. The first is ``compare``'s; the rest name the bugs a first one
    would hide (an engine whose state went astray differs at every step after, and says so)."""
    return list(_differences(case, expect, response, minor, level, True))


def _differences(
    case: Case, expect: Expectation, response: dict[str, Any], minor: int, level: str, legal: bool
) -> Iterator[Difference]:
    if expect.errored:
        if response.get("errored") is True:
            breach = message_breach(response)  # an errored answer's own bounds: its envelope, not the game
            if breach is not None:
                yield Difference("answer", ENVELOPE, breach.bound, breach.seen)
            return
        yield Difference("request", "errored", {"errored": True}, {k: response.get(k) for k in ("legal", "final")})
        return
    actions = case.plain_actions
    want_final = expect.plain_final
    sides = sides_of(want_final)
    if legal and expect.legal is not None and not _same_set(response["legal"], expect):
        got = _as_set(response["legal"])
        yield Difference(
            "legal",
            f"legal set before the first action ({whose(expect.legal_from)})",
            expect.plain_legal_set,
            got if got is not None else response["legal"],
        )
    for i, (exp, got) in enumerate(zip(expect.steps, response["steps"]), 1):
        found = _step(exp, got, actions[i - 1], f"step {i}", sides, minor, level, legal)
        if found is not None:
            yield found
    if not same_final(want_final, response["final"], sides):
        yield Difference("final", "final state", want_final, named_final(response["final"], sides))


def _step(
    exp: StepExpect, got: Any, action: Any, where: str, sides: tuple[str, ...], minor: int, level: str, legal: bool
) -> Difference | None:
    """How one step's answer differs from its expectation, or None: its result, then its events, then its legal set."""
    if exp.error is not None:
        refused = got.get("ok") is False
        if not refused or (level == CODE and got.get("error") != exp.error):
            actual = {"error": got.get("error")} if refused else {"ok": True, "events": got.get("events")}
            return Difference(where, "result", {"error": exp.error}, actual, action)
        return None
    if got.get("ok") is not True:
        return Difference(where, "result", {"ok": True}, {"error": got.get("error")}, action)
    want_events = as_spoken(exp.plain_events, minor)
    if not same_events(want_events, got.get("events"), sides):
        return Difference(where, "events", want_events, named_events(got.get("events"), sides), action)
    if legal and exp.legal is not None and not _same_set(got.get("legal"), exp):
        have = _as_set(got.get("legal"))
        what = f"legal set after it ({whose(exp.legal_from)})"
        return Difference(where, what, exp.plain_legal_set, have if have is not None else got.get("legal"), action)
    return None


def more_text(more: tuple[Difference, ...] | list[Difference]) -> str:
    """The line that follows a failing case's first difference when more places differ after it."""
    places = ", ".join(f"{d.where} ({d.what})" for d in more[:8]) + (", ..." if len(more) > 8 else "")
    return f"and {counted(len(more), 'more place differs', 'more places differ')} after it: {places}"
