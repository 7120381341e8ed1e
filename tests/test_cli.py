"""The vitou command: exit statuses, clear errors, never a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

from vitou_ref.cli import main


def test_match_prints_a_readable_account(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "--seed", "11"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("vitou/1.1.0, seed 11")
    assert "deals first" in out and "hand 1: dealer" in out and "final score:" in out
    # The same seed tells the same story.
    assert main(["match", "--seed", "11"]) == 0
    assert capsys.readouterr().out == out


def test_an_unknown_ruleset_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "--seed", "1", "--ruleset", "nope"]) == 2
    err = capsys.readouterr().err
    assert "unknown ruleset 'nope'" in err and "vitou/1.0.0" in err


def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "--seed", "x"]) == 2
    assert main(["no-such-command"]) == 2
    assert main(["bench", "engine", "--seconds", "0"]) == 2


def test_rulesets_lists_the_shipped_rulesets(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rulesets"]) == 0
    assert "vitou/1.0.0" in capsys.readouterr().out


def test_the_console_script_runs_without_a_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "vitou_ref", "spec", "check", "/nonexistent.yaml"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 2  # a file that cannot be read gets no verdict: unusable input, as everywhere
    assert "FILE_UNREADABLE" in proc.stderr and proc.stdout == ""  # what went wrong is no finding: stderr
    assert "Traceback" not in proc.stderr + proc.stdout
