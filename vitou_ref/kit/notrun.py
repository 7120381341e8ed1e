"""Why a certification run left cases of its suite out: other rulesets, --only, the smoke test, rulesets not offered."""

from __future__ import annotations

from ..rules.plurals import counted
from .caseresult import ENVELOPE, SKIPPED
from .certify import Run
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
    cannot: dict[str, int] = {}
    for r in run.results:
        if r.outcome != SKIPPED:
            continue
        if r.ruleset not in run.offered:
            key = f"the envelope cases under {r.ruleset}" if r.section == ENVELOPE else r.ruleset
            skipped[key] = skipped.get(key, 0) + 1
        elif r.section == ENVELOPE:  # offered, and still not sent: the case says why it cannot apply there
            cannot[r.ruleset] = cannot.get(r.ruleset, 0) + 1
    if skipped:
        shown = ", ".join(f"{n} of {key}" for key, n in skipped.items())
        parts.append(f"{shown}, not offered by the implementation")
    if cannot:
        shown = ", ".join(f"{counted(n, 'envelope case', 'envelope cases')} under {name}" for name, n in cannot.items())
        parts.append(f"{shown} that cannot apply there (each says why)")
    return "; ".join(parts)
