"""``vitou spec check``: validate rules and profile files, with located problems."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import InputError
from .model import Ruleset
from .problems import Problem
from .registry import load_rules_file


@dataclass(frozen=True)
class CheckResult:
    path: str
    ruleset: Ruleset | None
    problems: tuple[Problem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def check_file(path: str) -> CheckResult:
    try:
        rules = load_rules_file(path)
    except InputError as exc:
        return CheckResult(path, None, exc.problems)
    return CheckResult(path, rules, ())
