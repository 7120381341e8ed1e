"""One identity per run: the first answer to start binds the level, the name, the version, the minor and the offer.

An engine that answers start one way and, after a restart it provokes (a crash)
or at the start after a stop case, another way, is at fault: certify, fuzz and
the pytest plugin say which field changed, and such a run is never certified
(tests/fakes/identity_flip.py; docs/reference/protocol.md, Starts and restarts).
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

# pytester puts sys.modules back after each in-process run; PyYAML's C loader must stay (test_pytest_plugin.py).
import yaml  # noqa: F401

from vitou_ref import shipped_names
from vitou_ref.cli import main
from vitou_ref.results.check import problems
from vitou_ref.results.read import read_report

pytest_plugins = ["pytester"]

HERE = Path(__file__).resolve().parent
FLIP = HERE / "fakes" / "identity_flip.py"
SMALL = HERE / "data" / "small_suite.yaml"  # VT-0001..VT-0004

# After the four rules cases: a line any engine answers (the crash's target), then two stop cases. Stop cases run
# last, each on the process it ends, so the second one's process is the start after a stop.
ENVELOPE = """\
format: 1
title: "Around a stop"
envelope:
  - id: VE-9001
    title: "null gets one errored answer"
    topic: not_object
    rulesets: [vitou/^1.0.0]
    send:
      - {text: "null", answer: {"errored": true, "seq": null}}
  - id: VE-9002
    title: "stop, and the process exits with status 0"
    topic: stop
    rulesets: [vitou/^1.0.0]
    send:
      - {json: {"cmd": "stop"}, answer: {"exit": 0}}
  - id: VE-9003
    title: "stop again, on the process started after the first stop"
    topic: stop
    rulesets: [vitou/^1.0.0]
    send:
      - {json: {"cmd": "stop"}, answer: {"exit": 0}}
"""

_TRUC = "le-truc/1.0.0"
_OFFER = sorted(shipped_names())  # what the reference offers, in the order its answer to start writes it

# The fake's FIELD -> the words that must name the change: the field, then what it was, then what it is now.
CHANGES = {
    "error_codes": "'error_codes' was false, now true",
    "codes_dropped": "'error_codes' was true, now false",
    "name": '\'implementation.name\' was "Flipper", now "Other"',
    "version": '\'implementation.version\' was "1.0", now "2.0"',
    "version_number": "'implementation.version' was \"1\", now 1",
    "protocol_minor": "'protocol_minor' was 1, now 0",
    "rulesets": f"'rulesets' was {json.dumps(sorted(_OFFER), separators=(',', ':'))}, now "
    f"{json.dumps(sorted(set(_OFFER) - {_TRUC}), separators=(',', ':'))}",
}
# Restarts that keep the identity: an offer is a set, only name and version of the implementation bind, and a
# protocol_minor left out is 0.
SAME = ("none", "rulesets_order", "extra_field", "minor_default")
CRASH = ("--crash", "5")  # the first process dies at VE-9001's line, after the four rules cases


def _suite(where: Path) -> Path:
    where.mkdir(exist_ok=True)
    (where / SMALL.name).write_text(SMALL.read_text(encoding="utf-8"), encoding="utf-8")
    (where / "zz_envelope.yaml").write_text(ENVELOPE, encoding="utf-8")
    return where


def _flip(tmp: Path, field: str, *extra: str) -> str:
    return shlex.join([sys.executable, str(FLIP), field, str(tmp / "starts"), *extra])


def _starts(tmp: Path) -> int:
    return len((tmp / "starts").read_text(encoding="utf-8").splitlines())


def _certify(tmp: Path, capsys: pytest.CaptureFixture[str], impl: str, *args: str) -> tuple[int, dict[str, Any], Path]:
    report = tmp / "r.jsonl"
    argv = ["certify", "--impl", impl, "--suite", str(_suite(tmp / "suite")), "--timeout", "5"]
    status = main([*argv, "--report", str(report), "--format", "json", "--force", *args])
    return status, json.loads(capsys.readouterr().out), report


def _reread(report: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    """The report as vitou report reads it: no problem found, and the summary's rows (with the report's change)."""
    assert problems(read_report(str(report))) == []
    assert main(["report", "--format", "json", str(report)]) == 0
    out = capsys.readouterr()
    assert "REPORT_" not in out.err
    doc = json.loads(out.out)
    (said,) = doc["reports"]
    rows: list[dict[str, Any]] = doc["summary"]
    return [{**row, "identity_changed": said["identity_changed"]} for row in rows]


def _case(doc: dict[str, Any], case_id: str) -> dict[str, Any]:
    (case,) = [c for c in doc["cases"] if c["id"] == case_id]
    return case


def _refused(doc: dict[str, Any], rows: list[dict[str, Any]], changed: str, at: str) -> None:
    """A run whose identity changed at case ``at``: that case names the change, nothing is certified, anywhere."""
    case = _case(doc, at)
    assert case["outcome"] == "errored" and case["fault"] == "identity"
    assert changed in case["reason"]
    assert doc["implementation"]["name"] == "Flipper"  # the first handshake's, never a later one's
    for v in doc["verdicts"]:
        assert v["certified"] is False and v["status"] == "not conformant", v["line"]
        assert set(v["levels"].values()) == {"not conformant"}
        assert "certified:" not in v["line"]
    for row in rows:
        assert changed in row["identity_changed"]
        assert row["verdict"] == "not conformant"
        assert set(row["levels"].values()) == {"not conformant"}
        assert row["envelope"]["verdict"] == "not conformant"


# ------------------------------------------------------------------ the identity itself


@pytest.mark.parametrize(
    ("was", "now", "said"),
    [
        # Left out is the default: error_codes true, protocol_minor 0 (1.0).
        ({}, {"error_codes": True, "protocol_minor": 0}, []),
        # An offer is a set; of the implementation, only name and version bind.
        ({"rulesets": ["a", "b"]}, {"rulesets": ["b", "a", "b"]}, []),
        ({"implementation": {"name": "x", "language": "c"}}, {"implementation": {"name": "x", "build": 2}}, []),
        # Types count, and a field left out is not null.
        (
            {"implementation": {"version": 1}},
            {"implementation": {"version": 1.0}},
            ["'implementation.version' was 1, now 1.0"],
        ),
        ({"implementation": {}}, {"implementation": {"name": None}}, ["'implementation.name' was not sent, now null"]),
        # What the peer wrote is shown escaped (an escape sequence, a right-to-left override).
        (
            {"implementation": {"name": "x\x1b[2J\u202e"}},
            {"implementation": {"name": "y"}},
            ['\'implementation.name\' was "x\\u001b[2J\\u202e", now "y"'],
        ),
        # Every field that changed is named, in one order.
        (
            {"error_codes": False, "protocol_minor": 1, "rulesets": ["a"]},
            {"protocol_minor": 0, "rulesets": ["c"]},
            ["'error_codes' was false, now true", "'protocol_minor' was 1, now 0", '\'rulesets\' was ["a"], now ["c"]'],
        ),
    ],
)
def test_what_binds_and_how_a_change_is_said(was: dict[str, Any], now: dict[str, Any], said: list[str]) -> None:
    from vitou_ref.protocol.client import Hello, identity_changes

    def hello(fields: dict[str, Any]) -> Hello:
        answer = {"protocol": 1, "implementation": {}, "rulesets": [], **fields}
        codes, minor = answer.get("error_codes", True), answer.get("protocol_minor", 0)
        return Hello(answer["implementation"], tuple(answer["rulesets"]), minor, codes)

    assert identity_changes(hello(was).identity, hello(now).identity) == said


# ------------------------------------------------------------------ certify


@pytest.mark.parametrize("field", sorted(CHANGES))
def test_certify_a_changed_identity_at_the_start_after_a_stop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str
) -> None:
    # Before: every case passed, and the run was certified (under the second name, or at the code level).
    status, doc, report = _certify(tmp_path, capsys, _flip(tmp_path, field))
    assert status == 1
    assert _starts(tmp_path) == 2
    rows = _reread(report, capsys)
    _refused(doc, rows, CHANGES[field], "VE-9003")
    assert "the start after stop" in _case(doc, "VE-9003")["reason"]
    assert doc["level"] == ("outcome" if field == "error_codes" else "code")  # the first handshake's


@pytest.mark.parametrize("field", sorted(CHANGES))
def test_certify_a_changed_identity_at_a_restart_after_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str
) -> None:
    # Before: the rules verdict was certified although the restart answered otherwise (and, for error_codes,
    # at another level than its header's: vitou report then refused the report, REPORT_VERDICT_DISAGREE).
    status, doc, report = _certify(tmp_path, capsys, _flip(tmp_path, field, *CRASH))
    assert status == 1
    assert _case(doc, "VE-9001")["fault"] == "crash"
    rows = _reread(report, capsys)
    _refused(doc, rows, CHANGES[field], "VE-9002")
    assert "restart 1" in _case(doc, "VE-9002")["reason"]
    assert _case(doc, "VE-9003")["outcome"] == "errored"  # not run: nothing after a changed identity is
    assert doc["level"] == ("outcome" if field == "error_codes" else "code")


def test_certify_a_change_at_the_third_restart_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Every process before the fourth dies at its first request; the fourth start answers under another name.
    impl = _flip(tmp_path, "name", "--flip", "4", "--crash", "1")
    status, doc, report = _certify(tmp_path, capsys, impl, "--max-restarts", "3")
    assert status == 1
    assert [_case(doc, i)["fault"] for i in ("VT-0001", "VT-0002", "VT-0003")] == ["crash"] * 3
    assert "restart 3" in _case(doc, "VT-0004")["reason"]
    _refused(doc, _reread(report, capsys), CHANGES["name"], "VT-0004")


def test_a_changed_identity_is_not_forgiven_as_a_known_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # VT-0002 crashes, and VT-0003's restart answers another version: both are listed as known failures.
    expect = tmp_path / "expect.yaml"
    expect.write_text("VT-0002: a crash\nVT-0003: after the crash\n", encoding="utf-8")
    impl = _flip(tmp_path, "version", "--crash", "2")
    status, doc, report = _certify(tmp_path, capsys, impl, "--expect", str(expect))
    assert status == 1
    assert _case(doc, "VT-0002")["outcome"] == "xfail"
    _refused(doc, _reread(report, capsys), CHANGES["version"], "VT-0003")
    assert "known_failure" not in _case(doc, "VT-0003")


def test_the_text_verdict_names_the_change(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["certify", "--impl", _flip(tmp_path, "error_codes"), "--suite", str(_suite(tmp_path / "suite"))]
    assert main([*argv, "--timeout", "5"]) == 1
    out = capsys.readouterr().out
    assert "certified:" not in out
    assert "CONFORMANT at the code level" not in out
    verdict_lines = [line for line in out.splitlines() if "CONFORMANT" in line]
    assert verdict_lines and all(line.startswith("NOT CONFORMANT") for line in verdict_lines)
    assert all(CHANGES["error_codes"] in line for line in verdict_lines)


@pytest.mark.parametrize("field", SAME)
def test_a_restart_with_the_same_identity_is_no_fault(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str
) -> None:
    status, doc, report = _certify(tmp_path, capsys, _flip(tmp_path, field))
    assert status == 0, doc["verdicts"]
    assert _starts(tmp_path) == 2
    assert all(v["status"] == "conformant" for v in doc["verdicts"])
    assert all(r["verdict"] == "conformant" and r["identity_changed"] is None for r in _reread(report, capsys))


@pytest.mark.parametrize("field", SAME)
def test_a_restart_after_a_crash_with_the_same_identity_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str
) -> None:
    status, doc, report = _certify(tmp_path, capsys, _flip(tmp_path, field, *CRASH))
    assert status == 1  # the crash itself
    assert doc["restarts"] == 1 and doc["fatal"] is None
    assert [c["id"] for c in doc["cases"] if c["outcome"] != "passed"] == ["VE-9001"]
    (rules,) = [v for v in doc["verdicts"] if v["kind"] == "rules"]
    assert rules["status"] == "conformant"
    _reread(report, capsys)


def test_an_implementation_that_is_no_object_at_restart_is_unusable_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, doc, report = _certify(tmp_path, capsys, _flip(tmp_path, "implementation_string"))
    assert status == 1
    case = _case(doc, "VE-9003")
    assert case["outcome"] == "errored" and "'implementation' is" in case["reason"]
    assert not any(v["certified"] for v in doc["verdicts"] if v["kind"] == "envelope")
    _reread(report, capsys)


def test_the_honest_outcome_level_engine_is_unaffected(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "error_codes": false at every start, the start after the stop included.
    status, doc, report = _certify(tmp_path, capsys, _flip(tmp_path, "outcome"))
    assert status == 0
    assert _starts(tmp_path) == 2
    assert doc["level"] == "outcome"
    assert all(v["status"] == "conformant" for v in doc["verdicts"])
    assert all(r["verdict"] == "conformant" for r in _reread(report, capsys))


# ------------------------------------------------------------------ fuzz


def _fuzz(tmp: Path, capsys: pytest.CaptureFixture[str], impl: str) -> tuple[int, str]:
    argv = ["fuzz", "--impl", impl, "--examples", "40", "--seed", "1", "--timeout", "5"]
    status = main([*argv, "--max-seconds", "60", "--save", str(tmp / "found")])
    out = capsys.readouterr()
    return status, out.out + out.err


@pytest.mark.parametrize("field", sorted(CHANGES))
def test_fuzz_names_a_changed_identity_as_a_fault_of_the_implementation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str
) -> None:
    # Before: the crash that provoked the restart was "flaky?", or a divergence in codes alone under a headline
    # at another level than the first start's.
    status, out = _fuzz(tmp_path, capsys, _flip(tmp_path, field, "--crash", "3"))
    assert status == 1
    assert "flaky?" not in out
    assert "FAULT" in out and "changed its identity" in out and CHANGES[field] in out
    headline = out.splitlines()[0]
    assert headline.startswith("fuzz vitou/1.1.0 against")
    assert ("at the outcome level" in headline) == (field == "error_codes")  # the level the first start bound


def test_fuzz_a_change_at_the_check_on_a_fresh_start(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # No crash: at the code level its uncoded refusals diverge at once, and the start that checks the divergence
    # answers "error_codes": true. Before: "it shows again on a fresh start", a fixture saved, no fault said.
    impl = _flip(tmp_path, "error_codes")
    argv = ["fuzz", "--impl", impl, "--level", "code", "--examples", "40", "--seed", "1", "--timeout", "5"]
    assert main([*argv, "--save", str(tmp_path / "found")]) == 1
    out = capsys.readouterr().out
    assert (
        f"FAULT of the implementation: at restart 1, the implementation changed its identity: {CHANGES['error_codes']}"
        in out
    )
    assert "fresh start" not in out and not (tmp_path / "found").exists()


def test_fuzz_with_the_same_identity_at_restarts_finds_no_fault(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = _fuzz(tmp_path, capsys, _flip(tmp_path, "rulesets_order", "--crash", "3"))
    assert "changed its identity" not in out
    assert status == 1 and "DIVERGENCE at fault" in out  # the crash itself, checked on fresh starts as before
    assert _starts(tmp_path) >= 2


# ------------------------------------------------------------------ the pytest plugin


@pytest.mark.parametrize("provoked", ["stop", "crash"])
@pytest.mark.parametrize("field", sorted(CHANGES))
def test_the_plugin_session_fails_naming_the_field(
    pytester: pytest.Pytester, tmp_path: Path, field: str, provoked: str
) -> None:
    suite = _suite(tmp_path / "suite")
    impl = _flip(tmp_path, field, *(CRASH if provoked == "crash" else ()))
    result = pytester.runpytest(
        "-p", "vitou_ref.pytest_plugin", "--vitou-impl", impl, "--vitou-suite", str(suite), "--vitou-timeout", "5"
    )
    assert result.ret == 1
    at = "VE-9003" if provoked == "stop" else "VE-9002"
    text = result.stdout.str()
    assert f"{at}" in text and CHANGES[field] in text
    # The session's summary says why the cases after the change failed (no fnmatch: the offer has brackets).
    assert any(line.startswith("vitou: stopped early") and CHANGES[field] in line for line in text.splitlines())
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] == (6 if provoked == "stop" else 4)  # every case before the change, none after


def test_the_plugin_goes_on_after_a_restart_with_the_same_identity(pytester: pytest.Pytester, tmp_path: Path) -> None:
    suite = _suite(tmp_path / "suite")
    result = pytester.runpytest(
        "-p", "vitou_ref.pytest_plugin", "--vitou-impl", _flip(tmp_path, "extra_field"), "--vitou-suite", str(suite)
    )
    result.assert_outcomes(passed=7)
