"""What certify says: a mistyped ruleset, a smoke run, who is certified, and the adapter's own words when it fails.

The expected words come from docs/explanation/verdict.md and docs/reference/protocol.md:
a ruleset the kit does not know is a usage error (exit 2) naming the known
ones, as every command says it (``unknown ruleset 'x'; known: ...``); a smoke
run and a run that is not conformant certify nothing; an implementation that
never answers start is shown what it printed and the end of its stderr.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

from vitou_ref.cli import main
from vitou_ref.rules.registry import shipped_names

FAKE = Path(__file__).parent / "fakes" / "fake_impl.py"
SMALL = str(Path(__file__).parent / "data" / "small_suite.yaml")  # VT-0001..VT-0004, for vitou/^1.0.0
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # what must never reach a terminal from the implementation


def fake(mode: str, at: int = 2) -> str:
    return shlex.join([sys.executable, str(FAKE), mode, str(at)])


def python(code: str) -> str:
    return shlex.join([sys.executable, "-c", code])


def _env() -> dict[str, str]:
    """This checkout's vitou_ref first, and nothing of the pytest run that starts the process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return {**env, "PYTHONPATH": str(ROOT)}


def vitou(*argv: str, cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``vitou ARGV`` in a process of its own: what a user sees on stdout and stderr, and the exit status."""
    return subprocess.run(
        [sys.executable, "-m", "vitou_ref", *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=_env(),
        check=False,
    )


def plugin(tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """The pytest plugin in an empty directory of its own, certifying with ``options``."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    env = {**_env(), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "vitou_ref.pytest_plugin", "-p", "no:cacheprovider", *options],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=tmp_path,
        env=env,
        check=False,
    )


# ---------------------------------------------------------------- a ruleset the kit does not know


@pytest.mark.parametrize("asked", ["vitou/1.2.0", "vitu"])
def test_an_unknown_ruleset_is_a_usage_error_naming_the_known_ones(tmp_path: Path, asked: str) -> None:
    started = tmp_path / "started"
    impl = python(f"open({str(started)!r}, 'w')")  # leaves a trace if it is ever started
    got = vitou("certify", "--impl", impl, "--ruleset", asked)
    assert got.returncode == 2, got.stdout + got.stderr
    assert got.stdout == ""  # no verdict: the engine was not judged
    assert f"unknown ruleset '{asked}'; known: " + ", ".join(shipped_names()) in got.stderr
    assert "CONFORMANT" not in got.stderr and "no case of the suite applies" not in got.stderr
    assert not started.exists(), "the implementation was started for a ruleset nobody knows"


def test_certify_words_an_unknown_ruleset_as_every_other_command() -> None:
    certify, match = vitou("certify", "--ruleset", "vitu"), vitou("match", "--ruleset", "vitu")
    assert match.returncode == certify.returncode == 2
    said = re.search(r"unknown ruleset 'vitu'; known: .*", match.stderr)
    assert said is not None and said.group() in certify.stderr


def test_a_ruleset_only_the_suite_names_is_known_by_its_bare_id() -> None:
    got = vitou("certify", "--suite", str(ROOT / "conformance" / "settings"), "--ruleset", "setting-jumps")
    assert got.returncode == 0, got.stderr
    assert got.stdout.splitlines()[-1].startswith("CONFORMANT setting-jumps/1.0.0: ")


@pytest.mark.parametrize("asked", ["vitou/1.2.0", "vitu"])
def test_the_plugin_refuses_an_unknown_ruleset_as_a_usage_error(tmp_path: Path, asked: str) -> None:
    got = plugin(tmp_path, "--vitou-impl", fake("good"), "--vitou-ruleset", asked, "--vitou-suite", SMALL)
    assert got.returncode == 4, got.stdout + got.stderr  # pytest's usage error
    assert f"unknown ruleset '{asked}'; known: " + ", ".join(shipped_names()) in got.stdout + got.stderr
    assert "INTERNALERROR" not in got.stdout + got.stderr


def test_an_implementation_offering_none_of_the_rulesets_asked_is_told_so_alike_everywhere(tmp_path: Path) -> None:
    plain = "the implementation offers none of the rulesets asked: asked vitou/1.1.0; its answer to start offers none"
    certify = vitou("certify", "--impl", fake("noruleset"), "--suite", SMALL)
    assert certify.returncode == 2, certify.stdout + certify.stderr
    assert plain in certify.stderr and "CONFORMANT" not in certify.stdout
    fuzz = vitou("fuzz", "--impl", fake("noruleset"), "--examples", "5", "--save", str(tmp_path / "ff"))
    assert fuzz.returncode == 2, fuzz.stdout + fuzz.stderr
    assert plain in fuzz.stderr
    pytest_run = plugin(tmp_path, "--vitou-impl", fake("noruleset"), "--vitou-suite", SMALL)
    assert pytest_run.returncode == 4, pytest_run.stdout + pytest_run.stderr
    assert plain in pytest_run.stdout + pytest_run.stderr


# ---------------------------------------------------------------- certified, tested, smoke


def test_a_smoke_run_does_not_read_as_a_certification(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "--smoke"]) == 0
    out = capsys.readouterr().out
    last = out.splitlines()[-1]
    assert last.startswith("SMOKE OK vitou/1.1.0: 3/3 cases")
    assert "not a certification" in last and "; tested: vitou-ref " in last
    assert "CONFORMANT" not in out and "certified" not in out
    assert main(["certify", "--smoke", "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert "CONFORMANT" not in md and "Certification" not in md and "**SMOKE OK vitou/1.1.0" in md
    assert main(["certify", "--smoke", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["smoke"] is True
    assert [(v["certified"], v["line"].split(":")[0]) for v in doc["verdicts"]] == [(False, "SMOKE OK vitou/1.1.0")]


def test_a_smoke_report_file_does_not_say_conformant(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report, junit = tmp_path / "r.jsonl", tmp_path / "r.xml"
    assert main(["certify", "--smoke", "--report", str(report), "--junit", str(junit)]) == 0
    footer = json.loads(report.read_text(encoding="utf-8").splitlines()[-1])
    assert [v["line"].split(":")[0] for v in footer["verdicts"]] == ["SMOKE OK vitou/1.1.0"]
    assert "CONFORMANT" not in report.read_text(encoding="utf-8") and "certified" not in junit.read_text("utf-8")


@pytest.mark.parametrize(("mode", "head"), [("wrong", "NOT CONFORMANT vitou/1.1.0: 2/4 cases")])
def test_only_a_conformant_verdict_says_certified(mode: str, head: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "--suite", SMALL, "--impl", fake(mode)]) == 1
    out = capsys.readouterr().out
    last = out.splitlines()[-1]
    assert last.startswith(head) and f"; tested: vitou-ref 1.0.0 ({fake(mode)})" in last
    assert "certified" not in out
    # One case of the conformance suite passes, but one case is not the suite: tested, not certified.
    assert main(["certify", "--only", "VT-0001"]) == 0
    assert "; tested: vitou-ref 1.0.0 (" in capsys.readouterr().out.splitlines()[-1]


def test_known_failures_only_is_tested_not_certified(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expect = tmp_path / "known.yaml"
    expect.write_text("VT-0002: scores off by one\nVT-0003: scores off by one\n", encoding="utf-8")
    assert main(["certify", "--suite", SMALL, "--impl", fake("wrong"), "--expect", str(expect)]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert "every failure is a listed known failure; " in last and "; tested: " in last and "certified" not in last


# ---------------------------------------------------------------- the adapter's own words


def _both(impl: str, tmp_path: Path, *extra: str) -> list[str]:
    """What certify, fuzz and the plugin print about ``impl`` on stderr (stdout too, for pytest), each exit 2 or 4."""
    out = []
    certify = vitou("certify", "--impl", impl, "--suite", SMALL, *extra)
    assert certify.returncode == 2, certify.stdout + certify.stderr
    out.append(certify.stderr)
    fuzz = vitou("fuzz", "--impl", impl, "--examples", "3", "--save", str(tmp_path / "ff"), *extra)
    assert fuzz.returncode == 2, fuzz.stdout + fuzz.stderr
    out.append(fuzz.stderr)
    run = plugin(tmp_path, "--vitou-impl", impl, "--vitou-suite", SMALL)
    assert run.returncode == 4, run.stdout + run.stderr
    out.append(run.stdout + run.stderr)
    return out


TYPO = python("import my_engine_typo")
# A launcher that closes the engine's input at once, the error coming a moment later: the harness finds the
# input closed before the words come, and must still wait for them.
LAUNCHER = shlex.join(["/bin/sh", "-c", f"exec <&-; sleep 0.3; exec {TYPO}"])


@pytest.mark.parametrize("impl", [TYPO, LAUNCHER], ids=["python", "launcher"])
def test_an_import_error_at_start_is_shown(tmp_path: Path, impl: str) -> None:
    for said in _both(impl, tmp_path):
        assert "never answered start" in said
        assert "ModuleNotFoundError: No module named 'my_engine_typo'" in said, said
        assert not re.search(r"(?m)^Traceback", said)  # quoted, indented: never a line that reads as vitou's own


def test_what_the_implementation_printed_instead_of_a_handshake_is_shown(tmp_path: Path) -> None:
    for said in _both(python("print(1)"), tmp_path):
        assert re.search(r"it printed on stdout.*:\n +1\n", said), said


def test_a_banner_before_the_handshake_is_shown_with_what_stdout_is_for(tmp_path: Path) -> None:
    impl = python("print('MyEngine 0.1 ready, type help'); import time; time.sleep(30)")
    for said in _both(impl, tmp_path, "--start-timeout", "5"):
        assert "MyEngine 0.1 ready, type help" in said and "only protocol lines" in said, said


def test_a_traceback_then_a_hang_is_shown_at_the_start_timeout(tmp_path: Path) -> None:
    code = "import sys, time; sys.stderr.write('Traceback\\nRuntimeError: no licence \\x1b[2J\\n'); time.sleep(60)"
    got = vitou("certify", "--impl", python(code), "--suite", SMALL, "--start-timeout", "2")
    assert got.returncode == 2
    assert "no answer within the time limit" in got.stderr
    assert "RuntimeError: no licence \\x1b[2J" in got.stderr  # escaped, never drawn on the terminal
    assert not CONTROL.search(got.stderr.replace("\n", "").replace("\t", ""))


def test_the_counts_by_section_say_a_case_counts_in_each_section_it_touches(capsys: pytest.CaptureFixture[str]) -> None:
    # VT-00* declares clauses of several sections: the sections' cases add up to more than the cases run, and
    # the heading says so before a reader adds them.
    assert main(["certify", "--only", "VT-00*"]) == 0
    out = capsys.readouterr().out
    ran = int(re.search(r"CONFORMANT vitou/1\.1\.0: (\d+)/\1 cases", out).group(1))
    counted = sum(int(b) for b in re.findall(r"^  §\S+ .*: \d+/(\d+) cases$", out, flags=re.M))
    assert counted > ran
    assert "by rules-text section (a case counts in each section its clauses touch" in out
    assert main(["certify", "--only", "VT-00*", "--format", "markdown"]) == 0
    assert "A case counts in each section its clauses touch" in capsys.readouterr().out
