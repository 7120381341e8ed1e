"""Broken copies of the shipped rules files, each with the problem ``vitou spec check`` must report (or none).

The list lives in tests/data/broken_rules.yaml (tests/test_spec_check.py checks each entry's code and line on
the reference); tools/code_mutants.py writes the copies and compares spec check's verdicts on them, so that a
mutant of the rules-to-settings checks is caught when it lets a broken file through or blames the wrong line.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
BROKEN_FILE = ROOT / "tests" / "data" / "broken_rules.yaml"


def broken_rules(path: Path = BROKEN_FILE) -> list[dict[str, Any]]:
    """The entries: name, file (from the repository's root), replace, with, code and anchor (a text or null)."""
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    keys = {"name", "file", "replace", "with", "code", "anchor"}
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or set(e) != keys:
            raise ValueError(f"{path.name}: entry {i} must have exactly the keys {sorted(keys)}")
    return list(entries)


def broken_text(entry: dict[str, Any]) -> str:
    """The file of the entry with its first occurrence of ``replace`` replaced; ValueError when it has none."""
    text = (ROOT / entry["file"]).read_text(encoding="utf-8")
    if entry["replace"] not in text:
        raise ValueError(f"broken rules {entry['name']!r}: {entry['file']} no longer holds the text to replace")
    return text.replace(entry["replace"], entry["with"], 1)


def rule_missing_copies(file: str = "spec/vitou-1.1.0.yaml") -> list[tuple[str, str]]:
    """For each rule the file binds: the rule, and the file with that clause's ``rule`` and ``data`` taken out."""
    text = (ROOT / file).read_text(encoding="utf-8")
    out = []
    for m in re.finditer(r"^    rule: (\w+)\n    data:\n(?: {6}.*\n)*", text, re.MULTILINE):
        out.append((m.group(1), text[: m.start()] + text[m.end() :]))
    return out


def write_broken_rules(where: Path) -> list[Path]:
    """Each copy written into ``where``: the listed entries, then one without each rule's clause data."""
    paths = []
    for i, entry in enumerate(broken_rules()):
        path = where / f"broken-{i:02d}-{entry['name'].replace(' ', '-')}.yaml"
        path.write_text(broken_text(entry), encoding="utf-8")
        paths.append(path)
    for rule, text in rule_missing_copies():
        path = where / f"broken-no-{rule}.yaml"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths
