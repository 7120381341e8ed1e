"""A newcomer's first day: certify -q, the shipped suites and disputes by name, and errors where they belong."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vitou_ref.cli import main

ROOT = Path(__file__).resolve().parent.parent
DISPUTES = ROOT / "conformance" / "disputes"


# ------------------------------------------------------------------ certify -q


def test_certify_quiet_prints_one_line_per_verdict_and_nothing_else(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "--only", "VT-000*,VE-000*"]) == 0
    whole = capsys.readouterr().out.splitlines()
    assert main(["certify", "-q", "--only", "VT-000*,VE-000*"]) == 0
    quiet = capsys.readouterr()
    lines = quiet.out.splitlines()
    # The bundled suite under the latest vitou: one verdict for its rules, one for the protocol envelope.
    assert len(lines) == 2 and lines == whole[-2:], quiet.out
    assert lines[0].startswith("CONFORMANT vitou/") and lines[1].startswith("CONFORMANT envelope"), lines
    assert quiet.err == ""


def test_certify_quiet_is_the_text_s_short_form(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "--quiet", "--format", "json"]) == 2
    assert "--quiet" in capsys.readouterr().err


def test_certify_help_names_quiet(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "--help"]) == 0
    assert "-q, --quiet" in capsys.readouterr().out


# ------------------------------------------------------------------ the shipped suites and disputes, by name


def test_the_shipped_suites_are_named_wherever_vitou_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no checkout here: a path into one would not resolve
    assert main(["fixtures", "export", "--suite", "settings"]) == 0
    by_name = json.loads(capsys.readouterr().out)
    assert main(["fixtures", "export", "--suite", str(ROOT / "conformance" / "settings")]) == 0
    assert json.loads(capsys.readouterr().out) == by_name
    assert main(["fixtures", "export", "--suite", "bundled"]) == 0
    bundled = json.loads(capsys.readouterr().out)
    assert main(["fixtures", "export"]) == 0
    assert json.loads(capsys.readouterr().out) == bundled != by_name


def test_a_suite_name_is_never_a_path_and_a_path_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "settings").mkdir()
    shutil.copy(ROOT / "tests" / "data" / "small_suite.yaml", tmp_path / "settings" / "mine.yaml")
    assert main(["fixtures", "export", "--suite", "settings"]) == 0  # the shipped one, whatever is here
    shipped = json.loads(capsys.readouterr().out)
    assert main(["fixtures", "export", "--suite", "./settings"]) == 0  # the directory here, written as a path
    here = json.loads(capsys.readouterr().out)
    assert shipped != here
    assert main(["fixtures", "check", "--suite", "setings"]) == 2
    assert "the shipped suites, by name: bundled, settings" in capsys.readouterr().out


def test_a_shipped_dispute_is_audited_by_its_number_or_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(DISPUTES / "03-raise-from-last.yaml"), "--format", "json"]) == 1
    by_file = json.loads(capsys.readouterr().out)
    for ref in ("03", "3", "03-raise-from-last"):
        assert main(["audit", "--dispute", ref, "--format", "json"]) == 1, ref
        assert json.loads(capsys.readouterr().out)["rulings"] == by_file["rulings"]
    assert main(["audit", "--dispute", "99"]) == 2
    assert "no shipped dispute '99'; shipped: 01-section-05-refusal" in capsys.readouterr().err
    assert main(["audit"]) == 2 and "--dispute" in capsys.readouterr().err
    assert main(["audit", "x.yaml", "--dispute", "03"]) == 2


def test_a_shipped_dispute_is_named_as_in_a_checkout_not_by_where_it_is_installed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Fails before: the heading named the installed file's absolute path, a path of one machine.
    assert main(["audit", "--dispute", "03"]) == 1
    assert capsys.readouterr().out.splitlines()[0] == "Audit of conformance/disputes/03-raise-from-last.yaml"
    assert main(["audit", "--dispute", "03", "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["record"] == "conformance/disputes/03-raise-from-last.yaml"


def test_the_shipped_disputes_are_listed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--list-disputes"]) == 0
    lines = capsys.readouterr().out.splitlines()
    stems = sorted(p.stem for p in DISPUTES.glob("*.yaml") if p.name != "expected.yaml")
    assert [line.split()[0] for line in lines] == stems
    assert lines[2].startswith("03-raise-from-last  West, last to the first trick")


# ------------------------------------------------------------------ errors where they belong


def test_spec_check_says_a_missing_file_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nowhere.yaml"
    assert main(["spec", "check", str(missing)]) == 2
    got = capsys.readouterr()
    assert got.out == "" and f"{missing}: FILE_UNREADABLE" in got.err


def test_spec_check_on_a_record_points_at_the_top_not_into_the_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "game.yaml"
    shutil.copy(DISPUTES / "03-raise-from-last.yaml", record)
    assert main(["spec", "check", "--format", "json", str(record)]) == 1
    problems = json.loads(capsys.readouterr().out)[0]["problems"]
    extra = [p for p in problems if "Additional properties" in p["message"]]
    # actions, claims, deals and header are all unexpected at the top level: the pointer is the document's.
    assert len(extra) == 1 and extra[0]["path"] == "", extra
    assert "'header' were unexpected" in extra[0]["message"]


def test_a_nested_unexpected_key_is_still_shown_at_the_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = tmp_path / "r.yaml"
    text = (ROOT / "spec" / "vitou-1.0.0.yaml").read_text(encoding="utf-8")
    rules.write_text(text.replace("\nruleset:\n", "\nruleset:\n  colour: blue\n", 1), encoding="utf-8")
    assert main(["spec", "check", "--format", "json", str(rules)]) == 1
    problems = json.loads(capsys.readouterr().out)[0]["problems"]
    assert any(p["path"] == "/ruleset/colour" for p in problems), problems


def test_fixtures_check_of_an_unknown_ruleset_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fixtures", "check", "--ruleset", "vitu"]) == 2
    err = capsys.readouterr().err
    assert "unknown ruleset 'vitu'; known: " in err and "vitou/1.1.0" in err


def test_the_speed_yardstick_has_a_usage() -> None:
    tool = [sys.executable, str(ROOT / "tools" / "handwritten_engine.py")]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([*tool, "--help"], capture_output=True, text=True, timeout=60, check=False, env=env)
    assert done.returncode == 0 and done.stdout.startswith("usage:") and done.stderr == "", done.stderr
    bad = subprocess.run([*tool, "soon"], capture_output=True, text=True, timeout=60, check=False, env=env)
    assert bad.returncode == 2 and "invalid float value" in bad.stderr and "Traceback" not in bad.stderr
