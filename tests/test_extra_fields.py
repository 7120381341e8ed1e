"""A receiver ignores the fields the protocol does not name (clarification 27), and nothing else, in every runner."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from vitou_ref import load_ruleset
from vitou_ref.engine.tables import tables_for
from vitou_ref.hunt.fuzzcases import Case as FuzzCase
from vitou_ref.hunt.fuzzcases import compare as fuzz_compare
from vitou_ref.hunt.fuzzcases import reference_answer
from vitou_ref.protocol.server import run_case
from vitou_ref.rules.model import thaw
from vitou_ref.testing import assert_conforms, conformance_cases

RULESET = "vitou/1.1.0"
NESTED = {"nested": [1, {"deeper": [None, True]}], "empty": {}}

# What docs/reference/protocol.md (Messages) names in each object of an answer that is compared; anything
# else is a field a receiver ignores.
NAMED_EVENT = {
    "trick": {"event", "trick", "winner"},
    "hand": {"event", "winner", "points", "reason", "score"},
    "match": {"event", "winner"},
}
NAMED_FINAL = {"score", "dealer", "winner"}


def _answers() -> list[tuple[Any, dict[str, Any]]]:
    t = tables_for(load_ruleset(RULESET))
    out = []
    for case in conformance_cases(RULESET):
        if not case.expectation(RULESET).errored:
            out.append((case, run_case(t, thaw(case.setup), case.plain_actions, 1)))
    return out


ANSWERS = _answers()


def _events(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for s in answer["steps"] if s.get("ok") for e in s["events"]]


def _scores(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return [answer["final"]["score"], *(e["score"] for e in _events(answer) if "score" in e)]


def _everywhere(a: dict[str, Any]) -> None:
    a["x_top"] = NESTED
    for s in a["steps"]:
        s["x_step"] = NESTED
        # A name the protocol gives a field of another object means nothing here.
        s.update({"error": "NOT_YOUR_TURN"} if s["ok"] else {"events": [], "legal": []})
    for e in _events(a):
        e["x_ms"] = 1
        e["x_debug"] = NESTED
        e.update(points=99, reason="void") if e["event"] == "trick" else e.update(trick=7, dealer="X")
    a["final"].update(x_debug=NESTED, events=[], points=3)
    for score in _scores(a):
        score["x_tiebreak"] = 7  # a score's values are whole numbers (the score schema)


def test_the_cases_hold_every_kind_of_event() -> None:
    kinds = {e["event"] for _, a in ANSWERS for e in _events(a)}
    assert kinds == set(NAMED_EVENT)
    assert all(set(e) == NAMED_EVENT[e["event"]] for _, a in ANSWERS for e in _events(a))
    assert all(set(a["final"]) == NAMED_FINAL for _, a in ANSWERS)


def test_extra_fields_in_every_object_pass_every_case_of_certify_and_the_plugin() -> None:
    # assert_conforms and certify's judge share kit/judge.py; fails before: 32 of 298 cases passed.
    for case, answer in ANSWERS:
        decorated = copy.deepcopy(answer)
        _everywhere(decorated)
        assert_conforms(case, RULESET, decorated)


def test_extra_fields_in_every_object_pass_the_fuzz_comparison() -> None:
    t = tables_for(load_ruleset(RULESET))
    for case, answer in ANSWERS:
        fcase = FuzzCase(thaw(case.setup), case.plain_actions)
        ref = reference_answer(t, fcase)
        decorated = copy.deepcopy(answer)
        _everywhere(decorated)
        assert fuzz_compare(fcase, ref, decorated) is None, case.id


def _first_event(kind: str) -> Callable[[dict[str, Any]], dict[str, Any] | None]:
    return lambda a: next((e for e in _events(a) if e["event"] == kind), None)


def _spoil(kind: str, key: str, value: Any) -> Callable[[dict[str, Any]], bool]:
    """Set (or with ``...`` remove) a named field of the first event of ``kind``; False when there is none."""

    def f(a: dict[str, Any]) -> bool:
        target = a["final"] if kind == "final" else _first_event(kind)(a)
        if target is None:
            return False
        if value is ...:
            del target[key]
        else:
            target[key] = value
        target["x_ms"] = 1  # an extra field beside it hides nothing
        return True

    return f


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(_spoil("trick", "winner", ["N"]), id="trick-winner-a-list"),
        pytest.param(_spoil("trick", "winner", ...), id="trick-winner-missing"),
        pytest.param(_spoil("trick", "trick", 1.0), id="trick-number-a-float"),
        pytest.param(_spoil("hand", "points", ...), id="hand-points-missing"),
        pytest.param(_spoil("hand", "reason", ...), id="hand-reason-missing"),
        pytest.param(_spoil("hand", "score", {"NS": "0", "EW": "3"}), id="hand-score-text"),
        pytest.param(_spoil("match", "winner", ...), id="match-winner-missing"),
        pytest.param(_spoil("final", "dealer", ...), id="final-dealer-missing"),
        pytest.param(_spoil("final", "winner", False), id="final-winner-false"),
    ],
)
def test_a_named_field_missing_or_of_another_type_still_fails(spoil: Callable[[dict[str, Any]], bool]) -> None:
    t = tables_for(load_ruleset(RULESET))
    tried = 0
    for case, answer in ANSWERS:
        bad = copy.deepcopy(answer)
        if not spoil(bad):
            continue
        tried += 1
        with pytest.raises(AssertionError):
            assert_conforms(case, RULESET, bad)
        fcase = FuzzCase(thaw(case.setup), case.plain_actions)
        assert fuzz_compare(fcase, reference_answer(t, fcase), bad) is not None, case.id
    assert tried > 0


def test_a_score_missing_a_side_fails() -> None:
    case, answer = next((c, a) for c, a in ANSWERS if a["final"]["score"])
    bad = copy.deepcopy(answer)
    bad["final"]["score"].pop(next(iter(bad["final"]["score"])))
    bad["final"]["score"]["x_other"] = 0
    with pytest.raises(AssertionError):
        assert_conforms(case, RULESET, bad)


def test_an_action_gains_no_field_even_in_a_legal_set() -> None:
    case, answer = next((c, a) for c, a in ANSWERS if a["legal"])
    bad = copy.deepcopy(answer)
    bad["legal"][0]["x_hint"] = True
    with pytest.raises(AssertionError, match="legal"):
        assert_conforms(case, RULESET, bad)


def test_the_difference_shows_the_fields_compared() -> None:
    # The ignored field is left out of what the difference shows: it is not what differs.
    case, answer = next((c, a) for c, a in ANSWERS if _first_event("trick")(a))
    bad = copy.deepcopy(answer)
    assert _spoil("trick", "winner", ["N"])(bad)
    with pytest.raises(AssertionError) as info:
        assert_conforms(case, RULESET, bad)
    assert '"winner":["N"]' in str(info.value) and "x_ms" not in str(info.value)
    assert json.dumps(answer)  # the reference's own answer is left untouched
