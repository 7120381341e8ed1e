"""Fuzz and the pytest plugin at the outcome level: a level option each, and the handshake's error_codes followed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from vitou_ref.cli import main

FAKE = Path(__file__).parent / "fakes" / "fake_impl.py"
SMALL = str(Path(__file__).parent / "data" / "small_suite.yaml")  # VT-0003 has a rejected step

pytest_plugins = ["pytester"]


def fake(mode: str, at: int = 1) -> str:
    return f"{sys.executable} {FAKE} {mode} {at}"


# ---------------------------------------------------------------- fuzz


def fuzz(tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: str, *args: str) -> tuple[int, str]:
    capsys.readouterr()
    argv = ["fuzz", "--impl", fake(mode), "--examples", "40", "--seed", "7", "--illegal", "40"]
    status = main([*argv, "--timeout", "10", "--save", str(tmp_path / "saved"), *args])
    return status, capsys.readouterr().out


def test_fuzz_holds_an_engine_without_codes_to_the_codes_at_the_code_level(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = fuzz(tmp_path, capsys, "nocodes")
    assert status == 1
    assert "DIVERGENCE at step" in out and "at the outcome level" not in out


@pytest.mark.parametrize(
    ("mode", "args"), [("nocodes", ("--level", "outcome")), ("nocodes-hello", ()), ("nocodes-bare", ())]
)
def test_fuzz_at_the_outcome_level_takes_any_refusal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: str, args: tuple[str, ...]
) -> None:
    status, out = fuzz(tmp_path, capsys, mode, *args)
    assert status == 0, out
    assert ", seed 7 at the outcome level: 40 matches" in out and out.rstrip().endswith("no divergence")


def test_fuzz_follows_the_users_level_over_the_handshake(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = fuzz(tmp_path, capsys, "nocodes-hello", "--level", "code")
    assert status == 1 and "DIVERGENCE" in out
    assert "--level code" in out.split("rerun: ", 1)[1]  # certify, rerun on the saved case, judges alike
    (saved,) = (tmp_path / "saved").iterdir()
    assert "--level code" in saved.read_text().splitlines()[0]


@pytest.mark.parametrize("level", ["code", "outcome"])
def test_fuzz_finds_an_accepted_illegal_action_at_both_levels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], level: str
) -> None:
    status, out = fuzz(tmp_path, capsys, "nocodes-accept", "--level", level)
    assert status == 1 and "DIVERGENCE at step" in out


def test_fuzz_refuses_an_unknown_level(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--level", "codes", "--save", str(tmp_path)]) == 2
    assert "--level" in capsys.readouterr().err


# ------------------------------------------------------ the pytest plugin


def plugin(pytester: pytest.Pytester, mode: str, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(
        "-p", "vitou_ref.pytest_plugin", "--vitou-impl", fake(mode), "--vitou-suite", SMALL, "-rA", *args
    )


def test_the_plugin_holds_an_engine_without_codes_to_the_codes_at_the_code_level(pytester: pytest.Pytester) -> None:
    result = plugin(pytester, "nocodes")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["vitou: certifying vitou/* at the code level", "FAILED*VT-0003*"])


@pytest.mark.parametrize(("mode", "args"), [("nocodes", ("--vitou-level", "outcome")), ("nocodes-hello", ())])
def test_the_plugin_at_the_outcome_level_takes_any_refusal(
    pytester: pytest.Pytester, mode: str, args: tuple[str, ...]
) -> None:
    result = plugin(pytester, mode, *args)
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["vitou: certifying vitou/* at the outcome level"])


def test_the_plugin_follows_the_users_level_over_the_handshake(pytester: pytest.Pytester) -> None:
    result = plugin(pytester, "nocodes-hello", "--vitou-level", "code")
    result.assert_outcomes(passed=3, failed=1)


@pytest.mark.parametrize("level", ["code", "outcome"])
def test_the_plugin_fails_an_accepted_illegal_action_at_both_levels(pytester: pytest.Pytester, level: str) -> None:
    result = plugin(pytester, "nocodes-accept", "--vitou-level", level)
    result.assert_outcomes(passed=3, failed=1)


def test_the_plugin_refuses_an_unknown_level(pytester: pytest.Pytester) -> None:
    result = plugin(pytester, "nocodes", "--vitou-level", "codes")
    assert result.ret == 4
