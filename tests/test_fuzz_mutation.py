"""Differential fuzzing finds and shrinks real divergences; the suite's mutation score holds its bar."""

from __future__ import annotations

import hashlib
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vitou_ref import load_ruleset
from vitou_ref.cli import main
from vitou_ref.hunt.mutants import MUTANTS, build_mutant
from vitou_ref.hunt.mutation import mutant_command, run_mutation
from vitou_ref.kit.suite import load_suite

ROOT = Path(__file__).resolve().parent.parent
FAKE = Path(__file__).parent / "fakes" / "fake_impl.py"
BASE = "vitou/1.0.0"


def impl(name: str) -> str:
    return shlex.join(mutant_command(name))


def fuzz(tmp_path: Path, *args: str) -> int:
    return main(["fuzz", "--save", str(tmp_path), "--seed", "11", *args])


# ------------------------------------------------------------------ mutants


@pytest.mark.parametrize("base_name", ["vitou/1.0.0", "vitou/1.1.0"])
def test_there_are_at_least_thirty_distinct_mutants_and_the_shipped_rules_stay_untouched(base_name: str) -> None:
    spec = ROOT / "spec" / f"vitou-{base_name.partition('/')[2]}.yaml"
    before = hashlib.sha256(spec.read_bytes()).hexdigest()
    base = load_ruleset(base_name)
    hashes = {base.content_hash}
    made = [m for m in MUTANTS if m.applies_to(base.version)]
    for m in made:
        rules = build_mutant(base, m.name)
        assert rules.name == base_name  # served under the base's name, so the suite applies unchanged
        hashes.add(rules.content_hash)
    assert len(made) >= 30
    assert len(hashes) == len(made) + 1  # every mutant changes the rules, and no two alike
    assert hashlib.sha256(spec.read_bytes()).hexdigest() == before
    assert load_ruleset(base_name).content_hash == base.content_hash


def test_error_table_mistakes_are_made_only_where_the_error_table_is_stated() -> None:
    # 1.0.0 left each code's acts and the finer order to its cases; 1.1.0 states them, so its mutants include them.
    base = load_ruleset("vitou/1.0.0")
    assert build_mutant(base, "turn-covers-bids") is base
    assert build_mutant(load_ruleset("vitou/1.1.0"), "turn-covers-bids").content_hash != base.content_hash


@pytest.mark.slow
@pytest.mark.parametrize("base_name", ["vitou/1.0.0", "vitou/1.1.0"])
def test_the_suite_kills_every_mutant_that_is_not_shown_equivalent(base_name: str) -> None:
    table = run_mutation(base_name)
    assert table.anomalies == []
    assert len(table.rows) >= 30
    for row in table.rows:
        if not row.killed:
            assert row.mutant.equivalent, f"{row.mutant.name} survives and is not shown equivalent"
    assert table.score == 100.0


def test_the_mutation_command_reports_a_table_and_fails_below_the_bar(capsys: pytest.CaptureFixture[str]) -> None:
    # Two mutants, one the suite kills and one equivalent: the score counts only the first.
    assert main(["mutants", "--only", "raise-partner", "--only", "deal-from-the-right", "--format", "json"]) == 0
    table = json.loads(capsys.readouterr().out)
    rows = {r["mutant"]: r for r in table["rows"]}
    assert rows["raise-partner"]["status"] == "killed" and rows["raise-partner"]["killed_by"]
    assert rows["deal-from-the-right"]["status"] == "equivalent"
    assert table["score"] == 100.0 and table["equivalent"] == 1
    assert main(["mutants", "--only", "nothing-like-this"]) == 2
    assert "no mutant nothing-like-this" in capsys.readouterr().err


def test_an_unknown_mutant_is_refused_by_the_adapter() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "vitou_ref.adapter", "--mutant", "nope"],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "no mutant 'nope'" in proc.stderr


# ------------------------------------------------------------------ fuzzing


@pytest.mark.parametrize(
    "mutant",
    ["rank-9-above-10", "refusal-pays-refuser", "raise-partner", "tt-all-pass-same-dealer", "abt-second-winner"],
)
def test_fuzz_finds_and_shrinks_a_divergence_into_a_fixture_that_tells_the_mutant_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mutant: str
) -> None:
    assert fuzz(tmp_path, "--impl", impl(mutant), "--examples", "3000") == 1
    out = capsys.readouterr().out
    assert "DIVERGENCE at " in out and "expected " in out and ", got " in out
    every = sorted(tmp_path.glob("*.yaml"))  # one fixture for each kind of divergence the mutant shows
    assert every
    for saved in every:
        (case,) = load_suite(saved).cases  # the fixture is valid in the suite's own format
        assert case.clauses
        # Shrunk: one hand's worth of actions at most, ending on the first differing step.
        assert len(case.actions) <= 16
        n = len(case.expectation(BASE).steps)
        assert n == len(case.actions)
        capsys.readouterr()
        assert main(["certify", "--suite", str(saved), "--impl", impl(mutant)]) == 1
        assert "NOT CONFORMANT" in capsys.readouterr().out
        assert main(["certify", "--suite", str(saved)]) == 0


def test_the_shrunk_case_ends_at_the_first_difference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 9 above 10: the smallest case is one trick where the 9 meets the 10, 4 plays, differing at the 4th.
    assert fuzz(tmp_path, "--impl", impl("rank-9-above-10"), "--examples", "3000") == 1
    out = capsys.readouterr().out
    assert "DIVERGENCE at step 4 " in out
    cases = [c for saved in sorted(tmp_path.glob("*.yaml")) for c in load_suite(saved).cases]
    tricks = [c for c in cases if len(c.actions) == 4 and all(a.get("act") == "play" for a in c.actions)]
    assert tricks, [c.actions for c in cases]  # the find of the trick's winner: one trick, where 9 meets 10
    assert {"9", "10"} <= {a["card"][:-1] for a in tricks[0].actions}


def test_fuzz_finds_nothing_against_the_reference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert fuzz(tmp_path, "--examples", "1500") == 0
    out = capsys.readouterr().out
    assert "1500 matches" in out and out.rstrip().endswith("no divergence")
    assert list(tmp_path.iterdir()) == []


def test_fuzz_is_reproducible_with_a_seed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert fuzz(a, "--impl", impl("refusal-pays-refused"), "--examples", "2000") == 1
    assert fuzz(b, "--impl", impl("refusal-pays-refused"), "--examples", "2000") == 1
    ((fa,), (fb,)) = (list(a.glob("*.yaml")), list(b.glob("*.yaml")))
    # The same case, byte for byte, below the rerun comment that names the file's own path.
    assert fa.read_text().split("\n", 1)[1] == fb.read_text().split("\n", 1)[1]


def test_fuzz_reports_a_broken_implementation_as_a_divergence_in_bounded_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    assert fuzz(tmp_path, "--impl", f"{sys.executable} {FAKE} crash 3", "--examples", "200") == 1
    assert time.monotonic() - started < 60
    assert "DIVERGENCE at fault" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--impl", "no-such-program-anywhere"], "cannot start"),
        (["--ruleset", "no-such-ruleset"], "unknown ruleset"),
        (["--impl", "'unbalanced"], "--impl"),
    ],
)
def test_fuzz_bad_input_exits_2_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert fuzz(tmp_path, *args, "--examples", "10") == 2
    assert message in capsys.readouterr().err
