"""The command starts cheap: --help, --version and building the parser load no rules, YAML, schemas or engine."""

from __future__ import annotations

import subprocess
import sys

import pytest

from vitou_ref import __version__
from vitou_ref.cli import main
from vitou_ref.cli.main import shipped_by_file
from vitou_ref.protocol import client, server
from vitou_ref.rules.registry import load_ruleset, shipped_names

# What a command imports when it runs, and building the parser must not.
HEAVY = ("jsonschema", "yaml", "hypothesis", "vitou_ref.engine", "vitou_ref.rules.model")


def _imported(*argv: str) -> set[str]:
    """Every module ``python -X importtime ARGV`` imports."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *argv], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


def test_building_the_parser_imports_nothing_heavy() -> None:
    # Fails before: the group modules imported certify's kit, the protocol server and the registry at their top.
    code = "from vitou_ref.cli.main import build_parser; build_parser()"
    assert _heavy(_imported("-c", code)) == []


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_import_nothing_heavy(flag: str) -> None:
    assert _heavy(_imported("-m", "vitou_ref", flag)) == []


def test_the_check_sees_a_heavy_import() -> None:
    heavy = _heavy(_imported("-c", "import yaml, jsonschema, vitou_ref.engine.match"))
    assert {"jsonschema", "yaml", "vitou_ref.engine", "vitou_ref.engine.match", "vitou_ref.rules.model"} <= set(heavy)


def test_version_names_the_package_the_shipped_rules_and_the_protocol(capsys: pytest.CaptureFixture[str]) -> None:
    # Fails before: --version printed "vitou 1.0.0" alone.
    assert main(["--version"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"vitou {__version__}"
    rules, profiles = shipped_by_file()
    assert lines[1] == f"spec: {', '.join(rules)} (+ profiles: {', '.join(profiles)})"
    assert "vitou/1.0.0" in lines[1] and "vitou/1.1.0" in lines[1] and "vitou-2p/1.0.0" in lines[1]
    assert lines[2] == f"protocol: {server.PROTOCOL}.{server.PROTOCOL_MINOR}"
    assert (client.PROTOCOL, client.PROTOCOL_MINOR) == (server.PROTOCOL, server.PROTOCOL_MINOR)


def test_the_names_from_the_file_names_are_the_registry_s() -> None:
    # --version reads names from file names, not YAML headers: the two must agree.
    rules, profiles = shipped_by_file()
    assert rules + profiles == shipped_names()
    assert all(load_ruleset(n).extends is None for n in rules)
    assert all(load_ruleset(n).extends is not None for n in profiles)


def test_importing_main_runs_nothing() -> None:
    # Fails before: vitou_ref/__main__.py ran the command on import (here: usage error, exit 2).
    code = "import vitou_ref.__main__; print('imported')"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "imported\n", "")
