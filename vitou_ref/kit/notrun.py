"""Why a certification run left cases of its suite out: other rulesets, --only, the smoke test, rulesets not offered."""

from __future__ import annotations

from ..rules.plurals import counted
from .certify import ENVELOPE, SKIPPED, Run
from .envelope import EnvelopeCase
from .fixtures import Case


def not_run(run: Run) -> str:
    """The suite's cases the run did not send, counted by reason, or "" when it sent them all."""
    names = run.options.rulesets
    seen = {r.case.id for r in run.results}
    other = left = 0
    every: list[Case | EnvelopeCase] = [*run.suite.cases, *run.suite.envelope]
    for case in every:
        if case.id in seen:
            continue
        if any(case.applies_to(n) for n in names):
            left += 1
        else:
            other += 1
    parts = []
    if other:
        only = ", ".join(names)
        parts.append(f"{counted(other, 'case', 'cases')} of other rulesets than {only} (--ruleset all runs them all)")
    if left:
        by = "outside the smoke test" if run.options.smoke else "left out by --only"
        parts.append(f"{counted(left, 'case', 'cases')} {by}")
    skipped: dict[str, int] = {}
    for r in run.results:
        if r.outcome == SKIPPED:
            key = f"the envelope cases under {r.ruleset}" if r.section == ENVELOPE else r.ruleset
            skipped[key] = skipped.get(key, 0) + 1
    if skipped:
        shown = ", ".join(f"{n} of {key}" for key, n in skipped.items())
        parts.append(f"{shown}, not offered by the implementation")
    return "; ".join(parts)
