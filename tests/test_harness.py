"""vitou certify against the reference and against deliberately broken implementations."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from vitou_ref.cli import main

FAKE = Path(__file__).parent / "fakes" / "fake_impl.py"
SMALL = str(Path(__file__).parent / "data" / "small_suite.yaml")  # VT-0001..VT-0004


def fake(mode: str, at: int = 2) -> str:
    return f"{sys.executable} {FAKE} {mode} {at}"


def certify(*args: str) -> int:
    return main(["certify", "--suite", SMALL, "--timeout", "3", *args])


def test_the_reference_is_conformant_on_the_whole_suite(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify"]) == 0
    out = capsys.readouterr().out
    rules, envelope = out.splitlines()[-2:]
    assert rules.startswith("CONFORMANT vitou/1.1.0: ")
    assert envelope.startswith("CONFORMANT envelope (protocol lines, under vitou/1.1.0): ")


@pytest.mark.parametrize(
    ("mode", "case", "reason"),
    [
        ("crash", "VT-0002", "exited before answering"),
        ("hang", "VT-0002", "no answer within the time limit"),
        ("garbage", "VT-0002", "invalid JSON"),
        ("huge", "VT-0002", "over"),
        ("seq", "VT-0002", "wrong seq"),
        ("steps", "VT-0002", "wrong number of steps"),
        ("extra", "VT-0003", "extra line"),
    ],
)
def test_a_broken_implementation_gets_an_accurate_complete_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: str, case: str, reason: str
) -> None:
    report = tmp_path / "r.jsonl"
    started = time.monotonic()
    assert certify("--impl", fake(mode), "--report", str(report), "--format", "json") == 1
    assert time.monotonic() - started < 30
    result = json.loads(capsys.readouterr().out)
    outcomes = {c["id"]: c for c in result["cases"]}
    assert set(outcomes) == {"VT-0001", "VT-0002", "VT-0003", "VT-0004"}  # every case is reported
    assert outcomes["VT-0001"]["outcome"] == "passed"  # results obtained before the fault are kept
    assert outcomes[case]["outcome"] == "errored"
    assert reason in outcomes[case]["reason"]
    lines = [json.loads(x) for x in report.read_text().splitlines()]
    assert lines[0]["type"] == "header" and lines[-1]["type"] == "footer"
    assert [x["id"] for x in lines[1:-1]] == ["VT-0001", "VT-0002", "VT-0003", "VT-0004"]


def test_wrong_answers_are_failures_with_the_first_difference(capsys: pytest.CaptureFixture[str]) -> None:
    assert certify("--impl", fake("wrong")) == 1
    out = capsys.readouterr().out
    assert "FAILED VT-0002" in out and "final: final state: expected" in out
    assert out.splitlines()[-1].startswith(
        "NOT CONFORMANT vitou/1.1.0: 2/4 cases"
    )  # VT-0004 expects an errored request


def test_restarts_are_bounded(capsys: pytest.CaptureFixture[str]) -> None:
    assert certify("--impl", fake("crashall", 1), "--max-restarts", "1", "--format", "json") == 1
    result = json.loads(capsys.readouterr().out)
    assert result["restarts"] == 1
    reasons = [c["reason"] for c in result["cases"]]
    assert all(c["outcome"] == "errored" for c in result["cases"])
    assert any("not run" in r for r in reasons)


@pytest.mark.parametrize("mode", ["nostart", "badstart"])
def test_an_implementation_that_never_answers_start_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: str
) -> None:
    report = tmp_path / "r.jsonl"
    assert certify("--impl", fake(mode), "--report", str(report)) == 2
    assert "start" in capsys.readouterr().err
    assert json.loads(report.read_text().splitlines()[-1])["type"] == "footer"


def test_a_missing_program_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert certify("--impl", "no-such-program-anywhere --flag") == 2
    assert "cannot start" in capsys.readouterr().err


def test_stderr_without_end_does_not_disturb_certification(capsys: pytest.CaptureFixture[str]) -> None:
    assert certify("--impl", fake("stderr")) == 0


def test_a_ruleset_not_offered_is_skipped(capsys: pytest.CaptureFixture[str]) -> None:
    asked = ("--ruleset", "vitou/1.0.0", "--ruleset", "vitou/1.1.0")
    assert certify("--impl", fake("only100"), *asked, "--format", "json") == 1
    result = json.loads(capsys.readouterr().out)
    outcomes = {(c["ruleset"], c["outcome"]) for c in result["cases"]}
    assert outcomes == {("vitou/1.0.0", "passed"), ("vitou/1.1.0", "skipped")}
    assert [v["status"] for v in result["verdicts"]] == ["conformant", "not offered"]


def test_an_implementation_offering_none_of_the_rulesets_asked_cannot_be_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert certify("--impl", fake("noruleset")) == 2  # not a verdict on its rules: nothing could be asked of it
    captured = capsys.readouterr()
    assert captured.out == "" and "offers none of the rulesets asked" in captured.err


def test_known_failures_are_strict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expect = tmp_path / "known.yaml"
    expect.write_text("VT-0002: scores off by one\nVT-0003: scores off by one\nVT-0004: errored requests\n")
    # VT-0004 is listed but passes: reported, and the run is not conformant.
    assert certify("--impl", fake("wrong"), "--expect", str(expect)) == 1
    out = capsys.readouterr().out
    assert "XPASS VT-0004" in out and "remove it from the list" in out
    expect.write_text("VT-0002: scores off by one\nVT-0003: scores off by one\n")
    assert certify("--impl", fake("wrong"), "--expect", str(expect)) == 0
    assert "every failure is a listed known failure" in capsys.readouterr().out
    expect.write_text("VT-9999: no such case\n")
    assert certify("--impl", fake("wrong"), "--expect", str(expect)) == 2


def test_junit_and_saved_failures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junit = tmp_path / "r.xml"
    saved = tmp_path / "failed"
    assert certify("--impl", fake("wrong"), "--junit", str(junit), "--save-failed", str(saved)) == 1
    root = ET.parse(junit).getroot()
    suite = root.find("testsuite")
    assert suite is not None and suite.get("tests") == "4" and suite.get("failures") == "2"
    files = sorted(p.name for p in saved.iterdir())
    assert files == ["VT-0002.yaml", "VT-0003.yaml"]
    text = (saved / "VT-0002.yaml").read_text()
    assert "# rerun: vitou certify --impl" in text
    capsys.readouterr()
    # A saved case is a suite of its own: it fails the broken implementation and passes the reference.
    assert main(["certify", "--suite", str(saved / "VT-0002.yaml"), "--impl", fake("wrong", 1)]) == 1
    assert main(["certify", "--suite", str(saved / "VT-0002.yaml")]) == 0


def test_only_smoke_and_formats(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "--suite", SMALL, "--only", "VT-000[12]", "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert "**CONFORMANT vitou/1.1.0: 2/2 cases" in md
    assert main(["certify", "--smoke", "--validate-protocol"]) == 0
    assert "3/3 cases" in capsys.readouterr().out
    assert main(["certify", "--suite", SMALL, "--only", "NOPE-*"]) == 2


def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert certify("--impl", "'unterminated") == 2
    assert certify("--ruleset", "house/9.9.9") == 2
    assert main(["certify", "--suite", "/no/such/dir"]) == 2


def test_protocol_validation_catches_a_malformed_answer(capsys: pytest.CaptureFixture[str]) -> None:
    # The 'steps' fault drops a step: without validation it is an errored shape; with it, a schema check runs first.
    assert certify("--impl", fake("steps"), "--validate-protocol") == 1


def test_the_harness_memory_stays_bounded_whatever_the_implementation_prints() -> None:
    # The fake streams a 200 MB line; the harness reads no further than its line limit (8 MB) and
    # errors the case. Its own peak memory is measured in a process of its own.
    code = (
        "import contextlib, io, json, sys\n"
        "from vitou_ref.cli import main\n"
        "buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf):\n"
        "    rc = main(['certify', '--suite', sys.argv[1], '--timeout', '20', '--format', 'json', '--impl', sys.argv[2]])\n"
        # VmHWM is this process's own peak; ru_maxrss would also count the parent's pages copied by fork.
        "peak = next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:'))\n"
        "print(json.dumps({'rc': rc, 'peak_kb': peak, 'report': json.loads(buf.getvalue())}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, SMALL, fake("flood")], check=False, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    assert result["rc"] == 1
    outcomes = {c["id"]: c for c in result["report"]["cases"]}
    assert outcomes["VT-0001"]["outcome"] == "passed"
    assert outcomes["VT-0002"]["outcome"] == "errored" and "over" in outcomes["VT-0002"]["reason"]
    assert result["peak_kb"] < 120 * 1024  # far below the 200 MB the implementation printed


def test_impl_is_split_like_a_shell_line_but_never_run_through_one(tmp_path: Path) -> None:
    marker = tmp_path / "touched"
    # Quotes group words as a shell would; ';', '$(...)' and '>' reach the program as plain arguments.
    command = f"{fake('good')} ';' touch {marker} '$(touch {marker})' '>' {marker}"
    assert certify("--impl", command) == 0
    assert not marker.exists()
