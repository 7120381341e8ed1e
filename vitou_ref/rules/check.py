"""``vitou spec check``: validate rules and profile files, with located problems and warnings."""

from __future__ import annotations

import os
from dataclasses import dataclass

from .errors import InputError
from .model import Ruleset
from .problems import Problem
from .registry import MAX_RULES_BYTES, ruleset_from_document
from .wording import profile_warnings
from .yamlsafe import load_path, load_text


@dataclass(frozen=True)
class CheckResult:
    """A file's verdict: problems make it fail; warnings (a valid profile saying what it does not do) never do."""

    path: str
    ruleset: Ruleset | None
    problems: tuple[Problem, ...]
    warnings: tuple[Problem, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems


def check_file(path: str) -> CheckResult:
    try:
        doc = load_path(os.fspath(path), max_bytes=MAX_RULES_BYTES)
        rules = ruleset_from_document(doc)
    except InputError as exc:
        return CheckResult(path, None, exc.problems)
    return CheckResult(path, rules, (), tuple(profile_warnings(doc, rules)))


def check_text(text: str | bytes, source: str) -> CheckResult:
    """What ``spec check`` says of a rules file given as its content (an upload), its version's problems included.

    A valid file that reuses a published name with other rules (VERSION_REUSED)
    or understates its changes (VERSION_UNDERSTATED) fails, as it fails there.
    """
    from .versioning import version_problems

    try:
        doc = load_text(text, source, max_bytes=MAX_RULES_BYTES)
        rules = ruleset_from_document(doc)
    except InputError as exc:
        return CheckResult(source, None, exc.problems)
    problems = version_problems(source, rules, doc)
    return CheckResult(source, None if problems else rules, problems, tuple(profile_warnings(doc, rules)))


def warning_line(p: Problem) -> str:
    """A warning as ``spec check`` prints it: like a problem, marked ``warning``."""
    path = f" at {p.path}" if p.path else ""
    return f"{p.location()}: warning: {p.code}{path}: {p.message}"
