"""The envelope is the protocol's: every envelope case runs under every ruleset certified; each verdict counts all."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from test_envelope import CATCHES

from vitou_ref.kit.caseresult import PASSED, SKIPPED
from vitou_ref.kit.certify import Certifier, Options, Run
from vitou_ref.kit.envelope import EnvelopeCase, Line, envelope_cases, judge_answer
from vitou_ref.kit.placeholders import BY_NAME, VOCABULARY, values_for
from vitou_ref.kit.suite import load_suite
from vitou_ref.rules.errors import InputError
from vitou_ref.rules.model import freeze
from vitou_ref.rules.registry import load_rules_text, shipped_names
from vitou_ref.rules.yamlsafe import load_text

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SLOPPY = HERE / "fakes" / "sloppy_envelope.py"
TRUC = "le-truc/1.1.0"
ENVELOPE = load_suite(None).envelope


def _certify(mode: str, under: str = TRUC) -> Run:
    """The sloppy engine, serving and offering ``under`` alone, on the envelope cases its mode is to fail."""
    cases = [(c, under) for c in ENVELOPE if c.id in CATCHES[mode]]
    options = Options(argv=[sys.executable, str(SLOPPY), mode, under], label=mode, rulesets=[under], timeout=5.0)
    return Certifier(load_suite(None), {}, options, envelope=cases).run()


@pytest.fixture(scope="module")
def truc_runs() -> dict[str, Run]:
    with ThreadPoolExecutor(4) as pool:
        return dict(zip(CATCHES, pool.map(_certify, CATCHES), strict=True))


@pytest.mark.parametrize("mode", sorted(CATCHES))
def test_each_sloppy_le_truc_engine_is_caught_by_the_same_cases_as_under_vitou(
    truc_runs: dict[str, Run], mode: str
) -> None:
    # The cases written to catch a mistake catch it under Le Truc too: their seats, cards and names are Le Truc's.
    run = truc_runs[mode]
    assert {r.ruleset for r in run.results} == {TRUC}
    missed = CATCHES[mode] - {r.case.id for r in run.results if r.outcome != PASSED}
    assert not missed, f"{mode}: {sorted(missed)} passed under {TRUC} on an engine that {mode} breaks"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vitou_ref", "certify", *args], capture_output=True, text=True, check=False, cwd=ROOT
    )


def _impl(mode: str, *offered: str) -> str:
    return f"{sys.executable} {SLOPPY} {mode} {' '.join(offered)}"


def test_a_le_truc_engine_sloppy_on_the_envelope_is_not_conformant_on_it() -> None:
    got = _cli("--impl", _impl("answer_blank", TRUC), "--ruleset", "le-truc", "-q")
    assert got.returncode == 1, got.stderr
    rules, envelope = got.stdout.splitlines()
    assert rules.startswith(f"CONFORMANT {TRUC}: ")  # right on the game
    n = len(ENVELOPE)
    # A blank line answered: VE-0007's blank lines, and VE-0032's byte-order mark before blanks.
    assert envelope.startswith(f"NOT CONFORMANT envelope (protocol lines, under {TRUC}): {n - 2}/{n} cases (2 failed)")


def test_the_envelope_verdict_under_le_truc_rests_on_every_envelope_case() -> None:
    got = _cli("--ruleset", "le-truc", "-q")
    assert got.returncode == 0, got.stderr
    n = len(ENVELOPE)
    assert n >= 34
    assert got.stdout.splitlines()[1].startswith(f"CONFORMANT envelope (protocol lines, under {TRUC}): {n}/{n} cases;")


def test_under_every_ruleset_each_gets_its_own_envelope_verdict_in_every_report(tmp_path: Path) -> None:
    # An engine of Le Truc alone, certified under every ruleset: its two Le Truc envelopes pass every case, and the
    # envelope under a ruleset it does not offer is not offered, as that ruleset's rules are.
    report, junit = tmp_path / "r.jsonl", tmp_path / "r.xml"
    args = [
        "--impl",
        _impl("good", "le-truc/1.0.0", TRUC),
        "--ruleset",
        "all",
        "--only",
        "VE-*,LT-0001",
        "--format",
        "json",
    ]
    got = _cli(*args, "--report", str(report), "--junit", str(junit))
    doc = json.loads(got.stdout)
    envelope = {v["ruleset"]: v for v in doc["verdicts"] if v["kind"] == "envelope"}
    assert list(envelope) == [v["ruleset"] for v in doc["verdicts"] if v["kind"] == "rules"]  # one per ruleset run
    n = len(ENVELOPE)
    assert all(v["total"] == n for v in envelope.values())
    assert {name for name, v in envelope.items() if v["status"] != "not offered"} == {"le-truc/1.0.0", TRUC}
    assert envelope[TRUC]["counts"] == {"passed": n} and envelope[TRUC]["status"] == "conformant"
    header = json.loads(report.read_text(encoding="utf-8").splitlines()[0])
    assert header["planned"]["envelope"] == {name: [c.id for c in ENVELOPE] for name in envelope}
    xml = junit.read_text(encoding="utf-8")
    assert xml.count('<testsuite name="envelope under ') == len(envelope)
    assert f'<testsuite name="envelope under {TRUC}" tests="{n}" failures="0" errors="0" skipped="0"' in xml
    # vitou report reads the report back and agrees: each ruleset's row has its own envelope.
    rows = envelope_rows(report)
    assert rows[TRUC]["passed"] == n and rows[TRUC]["verdict"] == "conformant"
    assert rows["vitou/1.1.0"]["verdict"] == "not offered"


def envelope_rows(report: Path) -> dict[str, dict[str, object]]:
    """Each ruleset's envelope row as vitou report reads the report back, in its own process."""
    out = subprocess.run(
        [sys.executable, "-m", "vitou_ref", "report", str(report), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    return {row["ruleset"]: row["envelope"] for row in json.loads(out.stdout)["summary"]}


WHOLE = (ROOT / "tests" / "data" / "vitou-forty-1.0.0.yaml").read_text(encoding="utf-8")
RANKS = '["3", "2", "A", "K", "Q", "J", "7", "6", "5", "4"]'
WHOLE = WHOLE.replace("vitou-forty", "vitou-whole").replace(
    RANKS, '["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"]'
)


def test_a_case_that_cannot_apply_says_why_and_still_counts(tmp_path: Path) -> None:
    # A pack of all 52 cards has no card of the French pack outside it: VE-0026 cannot apply, and says so.
    rules = load_rules_text(WHOLE, "vitou-whole.yaml")
    (off_pack,) = [c for c in ENVELOPE if c.id == "VE-0026"]
    why = off_pack.under(rules.name, rules)
    assert isinstance(why, str) and why == f"it cannot apply under {rules.name}: {off_pack.cannot_apply}"
    assert all(isinstance(c.under(rules.name, rules), EnvelopeCase) for c in ENVELOPE if c.id != "VE-0026")
    path = tmp_path / "vitou-whole-1.0.0.yaml"
    path.write_text(WHOLE, encoding="utf-8")
    got = _cli("--rules", str(path), "--ruleset", rules.name, "--only", "VE-*", "--format", "json")
    doc = json.loads(got.stdout)
    (envelope,) = [v for v in doc["verdicts"] if v["kind"] == "envelope"]
    n = len(ENVELOPE)
    assert (envelope["total"], envelope["counts"], envelope["status"]) == (
        n,
        {"passed": n - 1, "skipped": 1},
        "conformant",
    )
    (skipped,) = [c for c in doc["cases"] if c["outcome"] == SKIPPED]
    assert skipped["id"] == "VE-0026" and "whole French pack" in skipped["reason"]


def test_every_shipped_ruleset_fills_every_placeholder() -> None:
    for name in shipped_names():
        values = values_for(name, None)
        assert not [k for k, v in values.items() if isinstance(v, Exception)], name
        seats = values["$setup"]["deals"][0]
        assert values["$leader"] in seats and values["$lead_card"] in seats[values["$leader"]]
        assert values["$not_a_seat"] not in seats and values["$dealer.other_case"] not in seats


def test_every_shipped_case_applies_under_every_shipped_ruleset() -> None:
    for name in shipped_names():
        assert [c.id for c in ENVELOPE if not isinstance(c.under(name), EnvelopeCase)] == [], name


def test_the_readme_lists_every_placeholder() -> None:
    readme = (ROOT / "conformance" / "README.md").read_text(encoding="utf-8")
    assert [p.name for p in VOCABULARY if f"`{p.name}`" not in readme] == []


HEAD = "format: 1\ntitle: t\nenvelope:\n  - id: VE-9000\n    title: t\n    topic: x\n"


def _problems(text: str) -> list[str]:
    with pytest.raises(InputError) as info:
        envelope_cases(load_text(HEAD + text, "e.yaml"), "e.yaml")
    return [f"{p.code}: {p.message}" for p in info.value.problems]


def test_a_placeholder_is_one_of_the_list_and_stands_where_its_value_can() -> None:
    (problem,) = _problems('    send:\n      - {text: "$deals", answer: none}\n')
    assert problem.startswith("ENVELOPE_PLACEHOLDER: $deals is no placeholder")
    (problem,) = _problems('    send:\n      - {json: {"$deal": 1}, answer: none}\n')
    assert "$deal stands for a value that is not a name" in problem


def test_a_case_whose_placeholder_some_ruleset_lacks_says_why_and_no_other_does() -> None:
    assert BY_NAME["$deal.off_pack"].partial
    (problem,) = _problems('    send:\n      - {json: ["$deal.off_pack"], answer: none}\n')
    assert "so the case says why in cannot_apply" in problem
    (problem,) = _problems('    cannot_apply: "why"\n    send:\n      - {json: ["$deal"], answer: none}\n')
    assert "every ruleset fills these" in problem


def _jsonl(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_report_of_a_run_that_ran_the_envelope_once_is_still_read(tmp_path: Path) -> None:
    # Before, the envelope ran once a run, each case under the first ruleset it applied to, with one verdict naming
    # them all and a plan that listed its ids alone. Such a report is read as it was written, and believed.
    new = tmp_path / "new.jsonl"
    args = ["--ruleset", "vitou/1.0.0", "--ruleset", TRUC, "--only", "VE-0001,VE-0002"]
    assert _cli(*args, "--report", str(new), "-q").returncode == 0
    header, *cases, footer = _jsonl(new)
    once = {"VE-0001": "vitou/1.0.0", "VE-0002": TRUC}
    header["planned"] = {"rules": {}, "envelope": list(once)}
    del header["suite"]["hash"]  # another suite than the bundled one, as an old report's
    cases = [c for c in cases if once[str(c["id"])] == c["ruleset"]]
    (first, *_) = [v for v in footer["verdicts"] if v["kind"] == "envelope"]
    merged = {**first, "ruleset": f"vitou/1.0.0, {TRUC}", "counts": {"passed": 2}, "total": 2}
    footer["verdicts"] = [v for v in footer["verdicts"] if v["kind"] == "rules"] + [merged]
    old = tmp_path / "old.jsonl"
    old.write_text("".join(json.dumps(x) + "\n" for x in [header, *cases, footer]), encoding="utf-8")
    rows = envelope_rows(old)
    assert {name: (row["passed"], row["total"]) for name, row in rows.items()} == {"vitou/1.0.0": (1, 1), TRUC: (1, 1)}


def test_a_case_failing_under_two_rulesets_is_saved_once(tmp_path: Path) -> None:
    saved = tmp_path / "failed"
    asked = ["--ruleset", "vitou/1.0.0", "--ruleset", TRUC, "--only", "VE-0007"]
    got = _cli("--impl", _impl("answer_blank"), *asked, "--save-failed", str(saved), "-q")
    assert got.returncode == 1, got.stderr  # not conformant, and every file written: not 2
    assert sorted(p.name for p in saved.iterdir()) == ["VE-0007.yaml"]
    assert "--ruleset vitou/1.0.0 --suite" in (saved / "VE-0007.yaml").read_text(encoding="utf-8")


def test_at_the_outcome_level_an_envelope_case_s_refusal_passes_in_any_words() -> None:
    # protocol.md, Levels: at the outcome level a rejected step passes whatever its error, in the envelope's runs too.
    line = Line("text", "x", freeze({"seq": 5, "steps": ["ACTION_MALFORMED", "ok"]}))
    worded = b'{"seq":5,"legal":[],"steps":[{"ok":false,"error":"no such move"},{"ok":true,"events":[]}],"final":{}}'
    assert "step 1: expected ACTION_MALFORMED" in (judge_answer(line, worded, 0) or "")
    assert judge_answer(line, worded, 0, codes=False) is None
    accepted = worded.replace(b'{"ok":false,"error":"no such move"}', b'{"ok":true,"events":[]}')
    assert "step 1" in (judge_answer(line, accepted, 0, codes=False) or "")  # an illegal action taken fails both
    got = _cli("--impl", f"{sys.executable} {HERE / 'fakes' / 'fake_impl.py'} nocodes 1", "--ruleset", "le-truc")
    assert got.returncode == 1  # at the code level, its refusals in its own words fail VE-0019 and VE-0020
    got = _cli(
        "--impl",
        f"{sys.executable} {HERE / 'fakes' / 'fake_impl.py'} nocodes 1",
        "--ruleset",
        "le-truc",
        "--level",
        "outcome",
        "-q",
    )
    assert (
        got.returncode == 0 and f"(protocol lines, under {TRUC}): {len(ENVELOPE)}/{len(ENVELOPE)} cases" in got.stdout
    )
