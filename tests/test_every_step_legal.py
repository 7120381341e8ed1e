"""Every step of every rules case checks a legal set: the case's own, else the reference's, else the case says why."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from vitou_ref.engine.tables import tables_for
from vitou_ref.hunt.mutants import build_mutant
from vitou_ref.hunt.mutation import mutant_command
from vitou_ref.kit.caseresult import FAILED, PASSED
from vitou_ref.kit.certify import Certifier, Options
from vitou_ref.kit.fixtures import REFERENCE, STATED, load_cases_file
from vitou_ref.kit.judge import compare
from vitou_ref.kit.legalsets import judged, unchecked_places
from vitou_ref.kit.suite import load_suite
from vitou_ref.protocol.server import run_case
from vitou_ref.rules.errors import InputError
from vitou_ref.rules.model import Ruleset, thaw
from vitou_ref.rules.registry import load_rules_file, load_ruleset
from vitou_ref.testing import assert_conforms

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"
# The documentation's own suites, each with the rules file it is certified with (--rules).
EXAMPLE_SUITES = [("club-cases.yaml", "club-nice.yaml"), ("club-twelve-cases.yaml", "club-twelve.yaml")]


def _places(cases: Any, rules: dict[str, Ruleset]) -> list[str]:
    out = []
    for case in cases:
        for name in case.concrete_rulesets() or list(rules):
            if not case.applies_to(name):
                continue
            for place in unchecked_places(case, name, rules.get(name)):
                out.append(f"{case.id} [{name}] {case.source}:{case.line}: {place}")
    return out


@pytest.mark.parametrize("suite", ["bundled", "settings"])
def test_every_step_of_every_shipped_case_checks_a_legal_set(suite: str) -> None:
    # A step whose answer holds a legal set is checked there: stated by the case, or else the reference's own
    # legal set under the ruleset run; a case that leaves one unchecked says why (legal_unchecked).
    loaded = load_suite(suite)
    places = _places(loaded.cases, {})
    assert not places, "legal sets neither stated, nor the reference's, nor excused:\n" + "\n".join(places)


@pytest.mark.parametrize(("cases", "rules"), EXAMPLE_SUITES)
def test_every_step_of_the_documentations_cases_checks_a_legal_set(cases: str, rules: str) -> None:
    own = load_rules_file(EXAMPLES / rules)
    places = _places(load_cases_file(EXAMPLES / cases), {own.name: own})
    assert not places, "legal sets neither stated, nor the reference's, nor excused:\n" + "\n".join(places)


def test_the_reference_lends_only_what_a_case_leaves_unstated() -> None:
    case = load_suite().by_id("VT-0002")
    written, full = case.expectation("vitou/1.1.0"), judged(case, "vitou/1.1.0")
    for mine, theirs in zip(written.steps, full.steps):
        if mine.legal is not None:
            assert theirs is mine and theirs.legal_from == STATED  # a stated set stays the case's, untouched
        elif mine.error is None:
            assert theirs.legal is not None and theirs.legal_from == REFERENCE
    # Made once per case and ruleset: asked again, the same object.
    assert judged(case, "vitou/1.1.0") is full
    # What the case writes is unchanged: its export and its saved form hold only what it states.
    assert full.to_json() == written.to_json() == case.to_json()["expect"]


def _mutant_answer(case_id: str, mutant: str, base: str) -> tuple[Any, dict[str, Any]]:
    case = load_suite().by_id(case_id)
    rules = build_mutant(load_ruleset(base), mutant)
    return case, run_case(tables_for(rules), thaw(case.setup), case.plain_actions, 1)


def test_a_mutant_whose_bug_shows_only_in_an_unstated_legal_set_is_caught() -> None:
    # raise-from-last lets the last player of a trick bid. VT-0002 (the rules text's example of a 9 beating an
    # ace) walks through the very position: W, last to play to trick 1, is to play. The case states no legal
    # set there, so before the reference's sets were compared the mutant passed it; now it fails, and says
    # whose legal set it missed.
    case, answer = _mutant_answer("VT-0002", "raise-from-last", "vitou/1.1.0")
    assert compare(case, case.expectation("vitou/1.1.0"), answer) is None  # the case's own sets: passed
    diff = compare(case, judged(case, "vitou/1.1.0"), answer)
    assert diff is not None and diff.where == "step 3"
    assert diff.what == "legal set after it (the reference's)"
    assert {"seat": "W", "act": "raise", "to": 3} in diff.actual
    assert {"seat": "W", "act": "raise", "to": 3} not in diff.expected
    assert diff.describe().startswith("step 3 (S play card=7S): legal set after it (the reference's): expected [")
    assert diff.to_json()["what"] == "legal set after it (the reference's)"  # what the JSON and JUnit reports carry
    with pytest.raises(AssertionError, match=r"legal set after it \(the reference's\)"):
        assert_conforms(case, "vitou/1.1.0", answer)  # the pytest plugin's vitou_check, and vitou_ref.testing


def test_certify_fails_the_mutant_on_that_case() -> None:
    # Through the protocol, as vitou mutants and vitou certify run it: no rules given, the shipped ruleset's.
    suite = load_suite()
    case = suite.by_id("VT-0002")
    options = Options(argv=mutant_command("raise-from-last"), label="raise-from-last", rulesets=["vitou/1.1.0"])
    run = Certifier(suite, {"vitou/1.1.0": [case]}, options).run()
    assert [r.outcome for r in run.results] == [FAILED]
    assert "legal set after it (the reference's)" in (run.results[0].reason or "")
    reference = Options(argv=[sys.executable, "-m", "vitou_ref.adapter"], label="ref", rulesets=["vitou/1.1.0"])
    assert [r.outcome for r in Certifier(suite, {"vitou/1.1.0": [case]}, reference).run().results] == [PASSED]


def test_a_legal_set_the_case_states_is_named_as_the_cases() -> None:
    case = load_suite().by_id("VT-0002")
    answer = run_case(tables_for(load_ruleset("vitou/1.1.0")), thaw(case.setup), case.plain_actions, 1)
    expect = case.expectation("vitou/1.1.0")
    stated = next(i for i, s in enumerate(expect.steps) if s.legal is not None)
    answer["steps"][stated]["legal"] = answer["steps"][stated]["legal"][1:]
    diff = compare(case, judged(case, "vitou/1.1.0"), answer)
    assert diff is not None and diff.what == "legal set after it (the case's)"
    answer["legal"] = []
    diff = compare(case, judged(case, "vitou/1.1.0"), answer)
    assert diff is not None and diff.where == "legal"
    whose = "the case's" if expect.legal is not None else "the reference's"
    assert diff.what == f"legal set before the first action ({whose})"


CASE = """
format: 1
title: legal sets left unchecked
cases:
  - id: XX-0001
    title: a refused lead out of turn, then the lead
    clauses: [play.turn_order]
    rulesets: [vitou/^1.1.0]
    setup: {dealer: W, deals: [{N: [AS, 7H, 8C], E: [9C, KD, JH], S: [10H, QS, 8D], W: [7C, AD, 9S]}]}
    actions: [{seat: E, act: play, card: 9C}, {seat: N, act: play, card: AS}, {seat: E, act: play, card: 9C}]
    expect:
      steps:
        - error: NOT_YOUR_TURN
        - ok
        - {ok: true, legal_unchecked: "not what the case is about"}
      final: {score: {NS: 0, EW: 0}, dealer: W, winner: null}
"""


def _case(tmp_path: Path, text: str) -> Any:
    path = tmp_path / "cases.yaml"
    path.write_text(text)
    return load_cases_file(path)[0]


def test_a_rejected_step_holds_no_legal_set_and_an_excused_step_is_left_unchecked(tmp_path: Path) -> None:
    case = _case(tmp_path, CASE)
    full = judged(case, "vitou/1.1.0")
    refused, lead, excused = full.steps
    # A rejected step's answer holds no legal set (protocol: {"ok":false,"error":CODE}): none is compared there.
    assert refused.error == "NOT_YOUR_TURN" and refused.legal is None
    # The position did not move: before the first action and after the lead, the reference's sets are compared.
    assert full.legal_from == REFERENCE and {"seat": "N", "act": "play", "card": "AS"} in thaw(full.legal)
    assert lead.legal_from == REFERENCE and {"seat": "E", "act": "play", "card": "9C"} in thaw(lead.legal)
    assert excused.legal is None and excused.unchecked == "not what the case is about"
    assert list(unchecked_places(case, "vitou/1.1.0")) == []
    assert case.to_json()["expect"]["steps"][2] == {
        "ok": True,
        "events": [],
        "legal_unchecked": "not what the case is about",
    }
    # Without its reason, the step is derived like any other.
    plain = _case(tmp_path, CASE.replace(', legal_unchecked: "not what the case is about"', ""))
    assert judged(plain, "vitou/1.1.0").steps[2].legal_from == REFERENCE


def test_a_case_may_leave_every_unstated_legal_set_unchecked(tmp_path: Path) -> None:
    text = CASE.replace(
        "    clauses: [play.turn_order]\n", "    clauses: [play.turn_order]\n    legal_unchecked: a reason\n"
    )
    case = _case(tmp_path, text)
    full = judged(case, "vitou/1.1.0")
    assert full.legal is None and all(s.legal is None for s in full.steps)
    assert list(unchecked_places(case, "vitou/1.1.0")) == []
    assert case.to_json()["legal_unchecked"] == "a reason"


def test_a_case_the_reference_does_not_answer_lends_no_legal_set(tmp_path: Path) -> None:
    # The reference's legal sets stand for the case's only where it walks the case's path.
    case = _case(tmp_path, CASE.replace("error: NOT_YOUR_TURN", "error: CARD_NOT_HELD"))
    assert judged(case, "vitou/1.1.0") is case.expectation("vitou/1.1.0")
    assert list(unchecked_places(case, "vitou/1.1.0")) == ["the legal set before the first action", "step 2"]


@pytest.mark.parametrize(
    "step",
    [
        '{ok: true, legal: [], legal_unchecked: "both"}',  # a set stated and said unchecked
        '{error: NOT_YOUR_TURN, legal_unchecked: "a rejected step has no legal set"}',
        '{ok: true, legal_unchecked: ""}',  # a reason says something
    ],
)
def test_the_case_format_refuses_a_reason_where_it_means_nothing(tmp_path: Path, step: str) -> None:
    with pytest.raises(InputError):
        _case(tmp_path, CASE.replace('{ok: true, legal_unchecked: "not what the case is about"}', step))
