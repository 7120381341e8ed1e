"""The reference pages written at build time hold every command, option and schema there is."""

from __future__ import annotations

import argparse
import re
import sys

from helpers import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import docs_reference  # a repository script, beside the Sphinx configuration that loads it

from vitou_ref.cli.main import build_parser


def _every_parser(parser: argparse.ArgumentParser, path: str) -> list[tuple[str, argparse.ArgumentParser]]:
    found = [(path, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found += _every_parser(child, f"{path} {name}")
    return found


def _sections(page: str) -> dict[str, str]:
    """Each command's options on the page: the rows between its heading and the next heading of any level."""
    parts = re.split(r"^#{2,4} `(vitou[^`]*)`$", page, flags=re.M)
    # The rows of its table of options only: the usage line above it names every option too, but explains none.
    rows = ["\n".join(line for line in body.splitlines() if line.startswith("| `")) for body in parts[2::2]]
    return dict(zip(parts[1::2], rows))


def test_every_command_and_option_is_on_the_cli_page() -> None:
    sections = _sections(docs_reference.cli_page().split("## The pytest plugin", 1)[0])
    missing = []
    for path, parser in _every_parser(build_parser(), "vitou")[1:]:
        if path not in sections:
            missing.append(path)
            continue
        for action in parser._actions:
            shown = action.help != argparse.SUPPRESS
            missing += [
                f"{path} {o}"
                for o in action.option_strings
                if shown and not re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", sections[path])
            ]
    assert not missing, missing


def test_every_plugin_option_is_on_the_cli_page() -> None:
    from vitou_ref.pytest_plugin import pytest_addoption

    page = docs_reference.cli_page().split("## The pytest plugin", 1)[1]
    options = docs_reference._Options()
    pytest_addoption(options)  # type: ignore[arg-type]  # it asks only getgroup and addoption of pytest's parser
    assert len(options.rows) >= 10
    assert not [name for name, _ in options.rows if f"| `{name}" not in page]


def test_every_schema_is_on_the_schemas_page() -> None:
    page = docs_reference.schemas_page()
    for path in sorted((ROOT / "schema").rglob("*.schema.json")):
        assert f"## `{path.relative_to(ROOT).as_posix()}`" in page, path
