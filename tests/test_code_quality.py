"""The package passes ruff (lint and format) and mypy --strict, and the generated rules schema is up to date."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False, timeout=600
    )


def test_ruff_finds_nothing() -> None:
    proc = _run("ruff", "check", "vitou_ref", "tools", "tests", "hatch_build.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format_changes_nothing() -> None:
    proc = _run("ruff", "format", "--check", "vitou_ref", "tools", "tests", "hatch_build.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_strict_finds_nothing() -> None:
    proc = _run("mypy")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_rules_schema_matches_its_generator() -> None:
    proc = subprocess.run(
        [sys.executable, "tools/gen_rules_schema.py", "--check"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
