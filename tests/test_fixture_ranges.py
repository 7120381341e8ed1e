"""Cases select rulesets by range (vitou/^1.0.0): what they apply to, which expectation wins, what the loader refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vitou_ref import InputError
from vitou_ref.cli import main
from vitou_ref.kit import fixtures
from vitou_ref.kit.fixtures import load_cases_file
from vitou_ref.kit.suite import load_suite

# A shipped 1.1.0 beside 1.0.0, whatever spec/ holds while the tests run.
SHIPPED = ["vitou/1.0.0", "vitou/1.1.0", "vitou-2p/1.0.0", "vitou-partners-tie/1.0.0"]

DEAL = "{N: [AS, 7H, 8C], E: [9C, KD, JH], S: [10H, QS, 8D], W: [7C, AD, 9S]}"
EXPECT = "{steps: [ok], final: {score: {NS: 0, EW: 0}, dealer: W, winner: null}}"
OTHER = "{steps: [ok], final: {score: {NS: 0, EW: 0}, dealer: W, winner: NS}}"


def case(rulesets: str, expect: str | None = EXPECT, expect_for: str | None = None, id: str = "VT-9001") -> str:
    text = f"""
  - id: {id}
    title: a case
    clauses: [play.turn_order]
    rulesets: {rulesets}
    setup: {{dealer: W, deals: [{DEAL}]}}
    actions: [{{seat: N, act: play, card: AS}}]
"""
    if expect is not None:
        text += f"    expect: {expect}\n"
    if expect_for is not None:
        text += f"    expect_for: {expect_for}\n"
    return text


def write(tmp_path: Path, *cases: str) -> Path:
    path = tmp_path / "a.yaml"
    path.write_text("format: 1\ntitle: t\ncases:\n" + "".join(cases), encoding="utf-8")
    return path


def problems(path: Path) -> list[tuple[str, int | None, str, str]]:
    with pytest.raises(InputError) as info:
        load_cases_file(path, "a.yaml")
    return [(p.code, p.line, p.path, p.message) for p in info.value.problems]


@pytest.fixture(autouse=True)
def shipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fixtures, "shipped_names", lambda: list(SHIPPED))


def test_a_caret_case_applies_to_every_minor_version_and_stops_at_the_next_major(tmp_path: Path) -> None:
    # The reason for ranges: a new vitou/1.1.0 runs the 1.0.0 cases without
    # an edit to any case, and vitou/2.0.0 (whose rules may differ) does not.
    (c,) = load_cases_file(write(tmp_path, case("[vitou/^1.0.0]")))
    assert c.applies_to("vitou/1.0.0") and c.applies_to("vitou/1.1.0") and c.applies_to("vitou/1.10.3")
    assert not c.applies_to("vitou/2.0.0") and not c.applies_to("vitou-2p/1.0.0")
    assert c.expectation("vitou/1.1.0") is c.expect
    assert c.rulesets == ("vitou/^1.0.0",)  # as written: the export and to_json keep the reference


def test_exact_names_still_select_one_version(tmp_path: Path) -> None:
    # Saved fuzz fixtures and user profiles (club-nice/1.0.0) name one
    # version; that version only, even when a later one ships.
    (c,) = load_cases_file(write(tmp_path, case("[vitou/1.0.0, club-nice/1.0.0]")))
    assert c.applies_to("vitou/1.0.0") and c.applies_to("club-nice/1.0.0")
    assert not c.applies_to("vitou/1.1.0")
    assert c.concrete_rulesets() == ["vitou/1.0.0", "club-nice/1.0.0"]


def test_the_suite_lists_concrete_rulesets_in_shipped_order(tmp_path: Path) -> None:
    # certify "all", fixtures check and export iterate over this list: a
    # range in it would be sent to an implementation as a ruleset name.
    d = tmp_path / "cases"
    d.mkdir()
    write(d, case("[vitou-2p/^1.0.0]", id="VT-9001"), case("[vitou/^1.0.0, club-nice/1.0.0]", id="VT-9002"))
    assert load_suite(d).rulesets() == ["vitou/1.0.0", "vitou/1.1.0", "vitou-2p/1.0.0", "club-nice/1.0.0"]


def test_the_first_expect_for_key_that_selects_a_ruleset_wins(tmp_path: Path) -> None:
    # One answer for 1.0.0, another from 1.1.0 on, and expect for the rest:
    # each concrete ruleset must get exactly one, predictably.
    rulesets = "[vitou/^1.0.0, vitou-partners-tie/^1.0.0]"
    (c,) = load_cases_file(
        write(tmp_path, case(rulesets, expect_for=f"{{'vitou/>=1.1.0 <2.0.0': {OTHER}, vitou/^1.0.0: {OTHER}}}"))
    )
    assert c.expectation("vitou/1.1.0") is c.expect_for["vitou/>=1.1.0 <2.0.0"]
    assert c.expectation("vitou/1.0.0") is c.expect_for["vitou/^1.0.0"]
    assert c.expectation("vitou-partners-tie/1.0.0") is c.expect


def test_a_bad_range_is_a_located_fixture_ruleset_problem(tmp_path: Path) -> None:
    # The schema lets these through (digits, operators); the loader must
    # still refuse them, at the line of the reference, saying why.
    path = write(tmp_path, case("[vitou/^1.0.0, vitou/>=2.0.0 <1.0.0]"), case("[vitou/01.0.0]", id="VT-9002"))
    found = problems(path)
    assert [(code, line, at) for code, line, at, _ in found] == [
        ("FIXTURE_RULESET", 8, "/cases/0/rulesets/1"),
        ("FIXTURE_RULESET", 16, "/cases/1/rulesets/0"),
    ]
    assert "admits no version" in found[0][3] and "leading zeros" in found[1][3]
    key = write(tmp_path, case("[vitou/^1.0.0]", expect_for=f"{{'vitou/>=2.0.0 <1.0.0': {OTHER}}}"))
    assert [(p[0], p[2]) for p in problems(key)] == [("FIXTURE_RULESET", "/cases/0/expect_for/vitou~1>=2.0.0 <1.0.0")]


@pytest.mark.parametrize("ref", ["vitou/latest", "Vitou/1.0.0", "vitou/~1.0.0", "vitou/1.0.0 || 2.0.0", "vitou/*"])
def test_garbage_references_are_refused_by_the_schema(tmp_path: Path, ref: str) -> None:
    # The schema is what other languages' harnesses validate with: it must
    # refuse what is plainly not a reference, in rulesets and expect_for.
    assert {p[0] for p in problems(write(tmp_path, case(f"['{ref}']")))} == {"SCHEMA"}
    keyed = write(tmp_path, case("[vitou/^1.0.0]", expect_for=f"{{'{ref}': {OTHER}}}"))
    assert {p[0] for p in problems(keyed)} == {"SCHEMA"}


def test_an_expect_for_range_must_select_only_rulesets_the_case_applies_to(tmp_path: Path) -> None:
    # An expectation for a ruleset the case never runs on is a mistake in
    # the case: silently never checked.
    narrow = case("['vitou/>=1.0.0 <1.1.0']", expect_for=f"{{vitou/^1.0.0: {OTHER}}}")
    other_id = case("[vitou/^1.0.0]", expect_for=f"{{vitou-2p/^1.0.0: {OTHER}}}", id="VT-9002")
    exact = case("[vitou/^1.0.0]", expect_for=f"{{vitou/2.0.0: {OTHER}}}", id="VT-9003")
    nothing = case("[vitou/>=1.0.0]", expect_for=f"{{vitou/>=3.0.0: {OTHER}}}", id="VT-9004")
    found = problems(write(tmp_path, narrow, other_id, exact, nothing))
    assert [(p[0], p[2]) for p in found] == [
        ("FIXTURE_RULESET", "/cases/0/expect_for/vitou~1^1.0.0"),
        ("FIXTURE_RULESET", "/cases/1/expect_for/vitou-2p~1^1.0.0"),
        ("FIXTURE_RULESET", "/cases/2/expect_for/vitou~12.0.0"),
        ("FIXTURE_RULESET", "/cases/3/expect_for/vitou~1>=3.0.0"),
    ]
    assert "selects vitou/1.1.0, which the case does not apply to" in found[0][3]
    assert "names vitou/2.0.0, which the case does not apply to" in found[2][3]
    assert "selects no shipped ruleset" in found[3][3]


def test_an_expect_for_key_that_can_never_win_is_refused(tmp_path: Path) -> None:
    # With "first key wins", a key below a broader one is dead text that
    # looks like an expectation.
    dead = case("[vitou/^1.0.0]", expect_for=f"{{vitou/^1.0.0: {OTHER}, vitou/1.1.0: {OTHER}}}")
    assert [(p[0], p[2]) for p in problems(write(tmp_path, dead))] == [
        ("FIXTURE_RULESET", "/cases/0/expect_for/vitou~11.1.0")
    ]


def test_with_no_expect_every_ruleset_a_range_selects_needs_an_expectation(tmp_path: Path) -> None:
    # Without this, vitou/1.1.0 shipping would make a case with only
    # expect_for keyed by vitou/1.0.0 crash certify with a KeyError.
    partial = case("[vitou/^1.0.0]", expect=None, expect_for=f"{{vitou/1.0.0: {OTHER}}}")
    found = problems(write(tmp_path, partial))
    assert [(p[0], p[3]) for p in found] == [("FIXTURE_RULESET", "VT-9001: no expectation for vitou/1.1.0")]
    whole = case("[vitou/^1.0.0]", expect=None, expect_for=f"{{vitou/1.0.0: {OTHER}, vitou/^1.1.0: {EXPECT}}}")
    (c,) = load_cases_file(write(tmp_path, whole))
    assert c.expectation("vitou/1.1.0") is c.expect_for["vitou/^1.1.0"]


def test_the_export_resolves_ranges_for_harnesses_in_other_languages(capsys: pytest.CaptureFixture[str]) -> None:
    # A harness that reads the export cannot be asked to implement ranges:
    # each ruleset lists its cases, and the expect_for key each one uses.
    assert main(["fixtures", "export", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    suite = load_suite()
    for name, entry in doc["rulesets"].items():
        if entry is None:
            continue
        assert entry["cases"] == [c.id for c in suite.applicable(name)]
        for case_id, key in entry["expect_for"].items():
            c = suite.by_id(case_id)
            assert c.expectation(name) is c.expect_for[key]
    assert doc["rulesets"]["vitou-partners-tie/1.0.0"]["expect_for"]  # the bundled suite has such cases
