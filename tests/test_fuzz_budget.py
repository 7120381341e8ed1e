"""vitou fuzz: a restart budget, a bound on the whole run, a fault that needs its session told from a flaky one,
and saved fixtures that reload."""

from __future__ import annotations

import re
import shlex
import sys
import time
from pathlib import Path

import pytest

from vitou_ref.cli import main
from vitou_ref.hunt.mutation import mutant_command
from vitou_ref.kit.suite import load_suite

FAKE = Path(__file__).parent / "fakes" / "fake_impl.py"
ID = re.compile(r"^[A-Z]{2,4}-[0-9]{4}$")  # schema/fixture.schema.json, a case's id


def _fake(mode: str, at: int) -> str:
    return f"{sys.executable} {FAKE} {mode} {at}"


def _rerun(out: str) -> list[str]:
    """The last rerun command the output printed, as arguments of vitou."""
    line = [ln for ln in out.splitlines() if ln.startswith("rerun: vitou ")][-1]
    return shlex.split(line.removeprefix("rerun: vitou "))


def test_two_finds_in_one_folder_reload_as_one_suite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Fails before: the second find was FZ-0011-2, which the fixture schema refuses (SCHEMA, exit 2).
    impl = shlex.join(mutant_command("rank-9-above-10"))
    for _ in range(2):
        assert main(["fuzz", "--impl", impl, "--examples", "3000", "--seed", "11", "--save", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    names = sorted(p.name for p in tmp_path.iterdir())  # each run's finds (a fixture a kind) after the last
    assert names == [f"FZ-{n:04}.yaml" for n in range(1, len(names) + 1)] and len(names) >= 2
    cases = load_suite(tmp_path).cases  # the folder loads as one suite: every id valid, none twice
    assert sorted(c.id for c in cases) == [n.removesuffix(".yaml") for n in names]
    assert main(_rerun(out)) == 1  # the second find's
    text = capsys.readouterr().out
    assert "SCHEMA" not in text and "NOT CONFORMANT" in text


def test_a_fault_that_needs_the_earlier_requests_is_told_apart_and_its_session_reloads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Each process crashes at its 5th request: a case alone on a fresh start passes, after the four
    # before it fails. Fails before: the fault was put on the batch's first case, called flaky, and
    # the session was saved as FZ-0001-0001..., which the schema refuses.
    impl = _fake("crash", 5)
    argv = ["fuzz", "--impl", impl, "--examples", "40", "--seed", "1", "--timeout", "5", "--max-restarts", "0"]
    assert main([*argv, "--save", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "it needs the earlier requests of the session" in out and "after the 4 earlier match(es)" in out
    assert "flaky" not in out
    (saved,) = tmp_path.glob("*.yaml")
    cases = load_suite(saved).cases
    assert len(cases) == 5 and all(ID.match(c.id) for c in cases)
    assert main(_rerun(out)) == 1  # the printed command reproduces it: the 5th case crashes
    text = capsys.readouterr().out
    assert "SCHEMA" not in text and "CRASH" in text and "4/5 cases" in text
    assert main(["certify", "--suite", str(saved)]) == 0  # the expectations are the reference's answers


FLAKY = """
import os, sys
from vitou_ref.adapter import build_server
flag, server, runs = sys.argv[1], build_server(), 0
for line in sys.stdin:
    answer = server.handle(line)
    if answer is None:
        break
    if '"cmd":"run"' in line.replace(" ", ""):
        runs += 1
        if runs == 2 and not os.path.exists(flag):
            open(flag, "w").close()  # once on this machine, never again
            answer["final"]["dealer"] = "nobody"
    print(__import__("json").dumps(answer), flush=True)
"""


def test_a_fault_that_never_shows_again_is_called_flaky(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "once.py"
    script.write_text(FLAKY, encoding="utf-8")
    impl = shlex.join([sys.executable, str(script), str(tmp_path / "flag")])
    assert main(["fuzz", "--impl", impl, "--examples", "20", "--seed", "1", "--save", str(tmp_path / "out")]) == 1
    out = capsys.readouterr().out
    assert "did not show again on a fresh start of the implementation, alone or after the 1 earlier match" in out
    assert "(flaky?)" in out and "needs the earlier requests" not in out
    (saved,) = (tmp_path / "out").glob("*.yaml")
    assert len(load_suite(saved).cases) == 2  # saved with its session all the same, and it reloads


def _stated_bound(t: float, s: float, r: int) -> float:
    # docs/explanation/verdict.md and vitou fuzz --help: faults cost at most (R + 1 + 2K) x (S + T) + 1 s for K kinds
    # found; these engines fail one way, so one kind: (R + 3) x (S + T) + 1 s.
    return (r + 3) * (s + t) + 1


def test_the_restart_budget_bounds_a_run_that_hangs_at_every_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Each process hangs at its first request. Fails before: no --max-restarts, and each shrinking
    # try restarted it and waited out its deadline again, far past any bound.
    t, s, r = 1.0, 10.0, 1
    argv = ["fuzz", "--impl", _fake("hang", 1), "--examples", "40", "--seed", "1", "--save", str(tmp_path)]
    started = time.monotonic()
    assert main([*argv, "--timeout", str(t), "--start-timeout", str(s), "--max-restarts", str(r)]) == 1
    took = time.monotonic() - started
    out = capsys.readouterr().out
    assert "stopped early: the implementation was restarted 1 time(s), --max-restarts 1" in out
    assert "DIVERGENCE at fault" in out
    assert "it shows again on a fresh start of the implementation, with this case alone" in out
    # Every start here is quick, so the hangs alone are the cost: 1 + R + 2 of them at most.
    assert took < (1 + r + 2) * t + 15
    assert took < _stated_bound(t, s, r)


def test_max_seconds_bounds_the_whole_run_the_check_included(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Fails before: the check on a fresh start ignored --max-seconds (and restarts had no budget).
    t, m = 3.0, 2.0
    argv = ["fuzz", "--impl", _fake("hang", 1), "--examples", "40", "--seed", "1", "--save", str(tmp_path)]
    started = time.monotonic()
    assert main([*argv, "--timeout", str(t), "--max-seconds", str(m), "--max-restarts", "50"]) == 1
    took = time.monotonic() - started
    out = capsys.readouterr().out
    assert "not checked on a fresh start: --max-seconds was reached first" in out
    assert took < m + t + 10  # M + max(S, T) + 1 s, the starts here being quick, and the interpreter's slack
    (saved,) = tmp_path.glob("*.yaml")
    assert load_suite(saved).cases


def test_fuzz_help_states_the_bound(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "1000")
    assert main(["fuzz", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "R (--max-restarts)" in text and "(R + 3) x (S + T) + 1 s" in text and "M + max(S, T) + 1 s" in text
