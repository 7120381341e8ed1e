"""Every command's help: a description for each command, a help for each option with its default."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Iterator

import pytest

from vitou_ref.cli.main import build_parser


def _parsers(parser: argparse.ArgumentParser, path: str = "vitou") -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _parsers(child, f"{path} {name}")


def _shown_default(action: argparse.Action, text: str) -> bool:
    """Whether the help names the default: a number as it is written (10, not 10.0), after the word default."""
    default = action.default
    forms = {str(default)}
    if isinstance(default, float) and default.is_integer():
        forms.add(str(int(default)))
    after = text.partition("default")[2]
    return any(re.search(rf"(?<![\w.]){re.escape(f)}(?![\w.])", after) for f in forms)


def _missing_help() -> list[str]:
    out = []
    for path, parser in _parsers(build_parser()):
        if not parser.description:
            out.append(f"{path}: no description")
        formatter = parser._get_formatter()
        for action in parser._actions:
            name = "/".join(action.option_strings) or action.metavar or action.dest
            if isinstance(action, argparse._SubParsersAction):
                out += [f"{path} {a.dest}: no help" for a in action._choices_actions if not a.help]
                continue
            if not action.help or action.help == argparse.SUPPRESS:
                out.append(f"{path} {name}: no help")
                continue
            if action.default in (None, False, argparse.SUPPRESS):
                continue
            if not _shown_default(action, formatter._expand_help(action)):
                out.append(f"{path} {name}: the help does not show the default {action.default!r}")
    return out


def test_every_command_option_and_argument_has_help_with_its_default() -> None:
    assert _missing_help() == []


def test_the_walk_sees_every_level() -> None:
    paths = [p for p, _ in _parsers(build_parser())]
    assert "vitou spec check" in paths and "vitou bench engine" in paths and "vitou adapter" in paths


@pytest.mark.parametrize(("given", "shown"), [(10.0, "per request (default 10)"), ("text", "(default: text)")])
def test_a_default_counts_as_shown_only_after_the_word_default(given: object, shown: str) -> None:
    action = argparse.Action(["--x"], "x", default=given, help=shown)
    assert _shown_default(action, shown)
    assert not _shown_default(action, shown.replace("default", "usually"))


def _help(*argv: str) -> str:
    env = {**os.environ, "COLUMNS": "100"}
    proc = subprocess.run(
        [sys.executable, *argv, "--help"], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split("\n\n", 1)[1]  # after the usage, which names the program


def test_vitou_adapter_and_python_m_vitou_ref_adapter_are_one_parser() -> None:
    # Fails before: python -m vitou_ref.adapter had its own parser, with other helps and no default shown.
    vitou = _help("-m", "vitou_ref", "adapter")
    assert vitou == _help("-m", "vitou_ref.adapter")
    assert "--mutant NAME" in vitou and "--rules FILE" in vitou and "protocol v1" in vitou
