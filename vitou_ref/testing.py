"""Helpers for implementers who run the conformance suite inside their own tests."""

from __future__ import annotations

from typing import Any

from .kit.fixtures import Case
from .kit.judge import compare, shape_problem
from .kit.legalsets import judged
from .kit.suite import load_suite
from .protocol.client import PROTOCOL_MINOR
from .rules.model import thaw
from .rules.registry import resolve_name

__all__ = ["Case", "assert_conforms", "conformance_cases"]


def conformance_cases(ruleset: str = "vitou", suite: str | None = None) -> list[Case]:
    """The cases of the bundled suite (or of ``suite``) that apply to ``ruleset``, in order."""
    name = resolve_name(ruleset) if "/" not in ruleset else ruleset
    return load_suite(suite).applicable(name)


def assert_conforms(case: Case, ruleset: str, response: Any, *, protocol_minor: int = PROTOCOL_MINOR) -> None:
    """Raise AssertionError naming the first difference when ``response`` is not what ``case`` expects.

    ``response`` is the protocol v1 answer to ``case.request(seq, ruleset)``, from an
    implementation of protocol 1.``protocol_minor`` (1.0 reports a void hand as tied).
    """
    name = resolve_name(ruleset) if "/" not in ruleset else ruleset
    expect = judged(case, name)  # the reference's legal set stands for any the case leaves unstated
    problem = shape_problem(response, len(thaw(case.actions)), expect.errored)
    if problem is not None:
        raise AssertionError(f"{case.id}: {problem}")
    diff = compare(case, expect, response, protocol_minor)
    if diff is not None:
        raise AssertionError(f"{case.id} {case.title}\n  {diff.describe()}\n  case: {case.source}:{case.line}")
