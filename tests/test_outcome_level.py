"""The outcome level: engines that refuse illegal actions without the ruleset's error codes (docs/reference/protocol.md, Levels)."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from vitou_ref.cli import main
from vitou_ref.protocol.client import handshake_problem
from vitou_ref.results.check import problems
from vitou_ref.results.read import read_report

FAKE = Path(__file__).parent / "fakes" / "fake_impl.py"
SMALL = str(Path(__file__).parent / "data" / "small_suite.yaml")  # VT-0001..VT-0004, one with a rejected step


def fake(mode: str, at: int = 1) -> str:
    return f"{sys.executable} {FAKE} {mode} {at}"


def certify(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    status = main(["certify", "--suite", SMALL, "--timeout", "5", "--format", "json", *args])
    return status, json.loads(capsys.readouterr().out)


def rules_verdict(doc: dict) -> dict:
    (v,) = [v for v in doc["verdicts"] if v["kind"] == "rules"]
    return v


def test_no_codes_fails_at_the_code_level_and_its_verdict_names_both_levels(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, doc = certify(capsys, "--impl", fake("nocodes"))
    v = rules_verdict(doc)
    assert status == 1
    assert doc["level"] == "code" and v["level"] == "code"
    assert v["levels"] == {"code": "not conformant", "outcome": "conformant"}
    assert v["line"].startswith("NOT CONFORMANT at the code level ")
    assert "CONFORMANT at the outcome level" in v["line"]
    (case,) = [c for c in doc["cases"] if c["outcome"] == "failed"]
    assert case["codes_only"] is True


@pytest.mark.parametrize("args", [("nocodes", "--level", "outcome"), ("nocodes-hello",), ("nocodes-bare",)])
def test_no_codes_is_conformant_at_the_outcome_level(capsys: pytest.CaptureFixture[str], args: tuple[str, ...]) -> None:
    status, doc = certify(capsys, "--impl", fake(args[0]), *args[1:])
    v = rules_verdict(doc)
    assert status == 0
    assert doc["level"] == "outcome"
    assert v["status"] == "conformant"
    assert v["levels"] == {"outcome": "conformant"}
    assert v["line"].startswith("CONFORMANT at the outcome level ")


def test_the_users_level_wins_over_the_handshake(capsys: pytest.CaptureFixture[str]) -> None:
    status, doc = certify(capsys, "--impl", fake("nocodes-hello"), "--level", "code")
    assert status == 1
    assert rules_verdict(doc)["levels"] == {"code": "not conformant", "outcome": "conformant"}


@pytest.mark.parametrize("level", ["code", "outcome"])
def test_accepting_an_illegal_action_fails_at_both_levels(capsys: pytest.CaptureFixture[str], level: str) -> None:
    status, doc = certify(capsys, "--impl", fake("nocodes-accept"), "--level", level)
    v = rules_verdict(doc)
    assert status == 1
    assert set(v["levels"].values()) == {"not conformant"}
    assert v["line"].startswith("NOT CONFORMANT")
    assert not any(c.get("codes_only") for c in doc["cases"])


def test_the_reference_passes_at_both_levels_and_every_report_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report, junit = tmp_path / "r.jsonl", tmp_path / "r.xml"
    status, doc = certify(capsys, "--report", str(report), "--junit", str(junit))
    v = rules_verdict(doc)
    assert status == 0
    assert v["levels"] == {"code": "conformant", "outcome": "conformant"}
    assert v["line"].startswith("CONFORMANT vitou/")  # the code level's line, as before levels
    lines = [json.loads(x) for x in report.read_text().splitlines()]
    assert lines[0]["level"] == "code"
    assert [f["levels"] for f in lines[-1]["verdicts"]] == [v["levels"]]
    props = {p.get("name"): p.get("value") for p in ET.parse(junit).getroot().iter("property")}
    assert props == {"level": "code", "level.code": "conformant", "level.outcome": "conformant"}


def _report(tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: str) -> Path:
    path = tmp_path / f"{mode}.jsonl"
    certify(capsys, "--impl", fake(mode), "--report", str(path))
    return path


def test_a_report_is_checked_level_by_level(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _report(tmp_path, capsys, "nocodes")
    assert problems(read_report(str(path))) == []
    lines = path.read_text().splitlines()
    footer = json.loads(lines[-1])
    footer["verdicts"][0]["levels"]["outcome"] = "not conformant"
    path.write_text("\n".join([*lines[:-1], json.dumps(footer)]) + "\n")
    assert [p.code for p in problems(read_report(str(path)))] == ["REPORT_VERDICT_DISAGREE"]


def test_a_report_whose_verdict_and_header_disagree_on_the_level(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _report(tmp_path, capsys, "nocodes-hello")
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    header["level"] = "code"
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    assert "REPORT_VERDICT_DISAGREE" in [p.code for p in problems(read_report(str(path)))]


def test_a_report_written_before_levels_is_at_the_code_level(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _report(tmp_path, capsys, "good")
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    del lines[0]["level"]
    for v in lines[-1]["verdicts"]:
        del v["level"], v["levels"]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    report = read_report(str(path))
    assert report.level == "code" and problems(report) == []


def test_a_badge_names_the_outcome_level(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _report(tmp_path, capsys, "nocodes-hello")
    assert main(["report", str(path), "--badge", str(tmp_path / "b")]) == 0
    (badge,) = (tmp_path / "b").iterdir()
    assert json.loads(badge.read_text())["message"].endswith("(outcome level)")


@pytest.mark.parametrize("value", ["no", 0, None, []])
def test_error_codes_in_the_handshake_is_a_boolean(value: object) -> None:
    hello = {"protocol": 1, "implementation": {}, "rulesets": [], "error_codes": value}
    assert handshake_problem(hello) is not None
    assert handshake_problem({**hello, "error_codes": False}) is None


def test_le_truc_engine_without_codes_is_certified_at_the_outcome_level_only(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # An engine of Le Truc as engines in the wild are: the reference's answers with every error code removed.
    def run(*args: str) -> tuple[int, dict]:
        status = main(["certify", "--ruleset", "le-truc", "--timeout", "5", "--format", "json", *args])
        return status, json.loads(capsys.readouterr().out)

    status, doc = run("--impl", fake("nocodes"))
    v = rules_verdict(doc)
    assert status == 1 and v["levels"] == {"code": "not conformant", "outcome": "conformant"}
    assert v["line"].startswith("NOT CONFORMANT at the code level le-truc/1.1.0: ")
    status, doc = run("--impl", fake("nocodes"), "--level", "outcome")
    assert status == 0 and rules_verdict(doc)["line"].startswith("CONFORMANT at the outcome level le-truc/1.1.0: ")
    # One that plays an action it should refuse fails at both levels.
    for level in ("code", "outcome"):
        status, doc = run("--impl", fake("nocodes-accept"), "--level", level)
        assert status == 1 and set(rules_verdict(doc)["levels"].values()) == {"not conformant"}
