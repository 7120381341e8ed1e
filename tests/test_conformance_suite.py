"""The conformance suite: valid, complete, passing on the reference; and the checker's own rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vitou_ref.cli import main
from vitou_ref.kit.suite import load_suite
from vitou_ref.kit.suitecheck import check_suite

CASE = """
  - id: {id}
    title: a case
    clauses: {clauses}
    rulesets: [vitou/1.0.0]
    setup:
      dealer: W
      deals:
        - {{N: [AS, 7H, 8C], E: [9C, KD, JH], S: [10H, QS, 8D], W: [7C, AD, 9S]}}
    actions: {actions}
    expect:
      steps: {steps}
      final: {{score: {{NS: 0, EW: 0}}, dealer: W, winner: null}}
"""


def suite(tmp_path: Path, *cases: str, retired: str = "retired: []\n") -> Path:
    d = tmp_path / "cases"
    d.mkdir()
    (d / "a.yaml").write_text("format: 1\ntitle: t\ncases:\n" + "".join(cases), encoding="utf-8")
    (tmp_path / "retired.yaml").write_text(retired, encoding="utf-8")
    return d


def case(id: str = "VT-9001", clauses: str = "[play.turn_order]", actions: str = "[]", steps: str = "[]") -> str:
    return CASE.format(id=id, clauses=clauses, actions=actions, steps=steps)


def codes(path: Path) -> set[str]:
    report = check_suite(str(path), coverage=False)
    return {p.code for p in report.problems} | ({"FAILS"} if report.failures else set())


def test_the_bundled_suite_is_complete_and_passes_on_the_reference() -> None:
    report = check_suite()
    assert report.suite is not None
    assert not report.failures, [f.describe() for f in report.failures]
    assert not report.problems, [str(p) for p in report.problems]
    assert len(report.suite.cases) >= 150


def test_the_section_05_example_is_in_the_suite_as_written() -> None:
    c = load_suite().by_id("VT-0001")
    assert c.plain_actions == [
        {"seat": "N", "act": "raise", "to": 3},
        {"seat": "N", "act": "play", "card": "AS"},
        {"seat": "E", "act": "raise", "to": 6},
        {"seat": "E", "act": "play", "card": "9C"},
        {"seat": "S", "act": "refuse"},
    ]
    exp = c.expectation("vitou/1.0.0")
    assert exp.steps[-1].plain_events == [
        {"event": "hand", "winner": "EW", "points": 3, "reason": "refusal", "score": {"NS": 0, "EW": 3}}
    ]


def test_a_good_small_suite_passes(tmp_path: Path) -> None:
    ok = case(actions="[{seat: N, act: play, card: AS}]", steps="[ok]")
    assert codes(suite(tmp_path, ok)) == set()


def test_a_wrong_expectation_fails(tmp_path: Path) -> None:
    wrong = case(
        actions="[{seat: N, act: play, card: AS}]", steps="[{error: NOT_YOUR_TURN}]", clauses="[play.turn_order]"
    )
    assert "FAILS" in codes(suite(tmp_path, wrong))


def test_a_negative_case_must_continue_with_a_legal_action(tmp_path: Path) -> None:
    neg = case(actions="[{seat: E, act: play, card: 9C}]", steps="[{error: NOT_YOUR_TURN}]")
    assert "FIXTURE_NEGATIVE_UNFOLLOWED" in codes(suite(tmp_path, neg))


def test_a_negative_case_must_declare_the_clause_it_pins(tmp_path: Path) -> None:
    neg = case(
        clauses="[deck.cards]",
        actions="[{seat: E, act: play, card: 9C}, {seat: N, act: play, card: AS}]",
        steps="[{error: NOT_YOUR_TURN}, ok]",
    )
    assert "FIXTURE_CLAUSE_UNDECLARED" in codes(suite(tmp_path, neg))


def test_unknown_clauses_and_codes_are_refused(tmp_path: Path) -> None:
    bad = case(
        clauses="[play.turn_order, no.such_clause]",
        actions="[{seat: E, act: play, card: 9C}, {seat: N, act: play, card: AS}]",
        steps="[{error: NO_SUCH_CODE}, ok]",
    )
    assert {"FIXTURE_CLAUSE_UNKNOWN", "FIXTURE_CODE_UNKNOWN"} <= codes(suite(tmp_path, bad))


def test_ids_are_unique_and_never_reused(tmp_path: Path) -> None:
    with pytest.raises(Exception) as info:
        load_suite(suite(tmp_path, case("VT-9001"), case("VT-9001")))
    assert "CASE_DUPLICATE_ID" in str(info.value)
    other = tmp_path / "other"
    other.mkdir()
    with pytest.raises(Exception) as info:
        load_suite(suite(other, case("VT-9002"), retired="retired:\n  - {id: VT-9002, reason: wrong deal}\n"))
    assert "CASE_RETIRED_ID" in str(info.value)


def test_steps_must_match_actions(tmp_path: Path) -> None:
    with pytest.raises(Exception) as info:
        load_suite(suite(tmp_path, case(actions="[{seat: N, act: play, card: AS}]", steps="[]")))
    assert "FIXTURE_STEPS" in str(info.value)


def test_schema_problems_are_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = suite(tmp_path, case().replace("title: a case", "titel: a case"))
    assert main(["fixtures", "check", "--suite", str(path), "--no-coverage"]) == 1
    out = capsys.readouterr().out
    assert "a.yaml:6:" in out and "titel" in out and "SCHEMA" in out  # the line of the unexpected key


def test_coverage_gaps_are_reported(tmp_path: Path) -> None:
    report = check_suite(str(suite(tmp_path, case(actions="[{seat: N, act: play, card: AS}]", steps="[ok]"))))
    gaps = [p.message for p in report.problems if p.code == "COVERAGE_GAP"]
    assert any("resolution row TTT" in g for g in gaps)
    assert any("a refused bid of baraque" in g for g in gaps)
    assert any("clause bid.no_jumps" in g for g in gaps)


def test_export_is_one_json_document_with_every_case(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fixtures", "export", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["format"] == 1 and doc["protocol"] == 1
    assert len(doc["cases"]) == len(load_suite().cases)
    assert doc["rulesets"]["vitou/1.0.0"]["hash"].startswith("sha256:")
    first = doc["cases"][0]
    assert {"id", "title", "clauses", "rulesets", "setup", "actions"} <= set(first)


def test_check_command_on_the_bundled_suite(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fixtures", "check"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("OK")
    assert "coverage: clauses 45/45" in out
