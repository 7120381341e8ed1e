"""One case's result in a certification: its outcome, why, and every place its answer differed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..present import escape
from .envelope import EnvelopeCase
from .fixtures import Case
from .judge import Difference, more_text

PASSED, FAILED, ERRORED, SKIPPED, XFAIL, XPASS = "passed", "failed", "errored", "skipped", "xfail", "xpass"


def fault_class(kind: str) -> str:
    """The report's class of a connection fault: a crash, a timeout, or a breach of the protocol."""
    if kind in ("exited", "spawn"):
        return "crash"
    if kind == "timeout":
        return "timeout"
    return "protocol"  # bad JSON, a line too long, a wrong seq, an extra line


ENVELOPE = "envelope"  # the section of envelope results, judged apart from the rules


def outcome_level(outcome: str, codes_only: bool) -> str:
    """A case's outcome at the outcome level, from its outcome at the code level.

    Only a failure on error codes alone is forgiven there: it passes (or, listed as known, unexpectedly passes).
    """
    if not codes_only:
        return outcome
    return {FAILED: PASSED, XFAIL: XPASS}.get(outcome, outcome)


@dataclass
class CaseResult:
    case: Case | EnvelopeCase
    ruleset: str
    outcome: str
    reason: str | None = None
    difference: Difference | None = None  # the first place the answer differs
    more: tuple[Difference, ...] = ()  # every place after the first, so that one run names every bug a case can see
    seconds: float = 0.0
    known: str | None = None  # the reason given in --expect, if listed
    fault: str | None = None  # how an errored case's peer failed: crash, timeout, protocol, shape, schema, identity
    codes_only: bool = False  # it differs at the code level and agrees at the outcome level: only its codes differ

    @property
    def section(self) -> str:
        """``envelope`` for an envelope case, else ``rules``: a report judges the two apart."""
        return ENVELOPE if isinstance(self.case, EnvelopeCase) else "rules"

    @property
    def label(self) -> str:
        """The outcome as reports print it; a crash and a timeout are told apart from other errors, as wpt does."""
        if self.outcome == ERRORED and self.fault in ("crash", "timeout"):
            return self.fault.upper()
        return self.outcome.upper()

    @property
    def bad(self) -> bool:
        return self.outcome in (FAILED, ERRORED, XPASS)

    def text_lines(self) -> list[str]:
        """The case as certify's text output shows it when it did not pass: the first difference, and how many more."""
        head = f"{self.label} {escape.text(self.case.id, 80)} [{self.ruleset}] {escape.text(self.case.title, 200)}"
        lines = [head, f"    {escape.text(self.reason or '', 2000)}"]
        if self.more:
            lines.append(f"    {escape.text(more_text(self.more), 2000)}")
        return [*lines, f"    {self.case.source}:{self.case.line}"]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "case",
            "id": self.case.id,
            "title": self.case.title,
            "ruleset": self.ruleset,
            "outcome": self.outcome,
            "clauses": list(self.case.clauses),
            "group": self.case.group,
            "seconds": round(self.seconds, 6),
        }
        if self.section == ENVELOPE:
            out["section"] = ENVELOPE
        if self.reason:
            out["reason"] = self.reason
        if self.difference is not None:
            out["difference"] = self.difference.to_json()
        if self.more:
            out["more_differences"] = [d.to_json() for d in self.more]
        if self.known:
            out["known_failure"] = self.known
        if self.fault:
            out["fault"] = self.fault
        if self.codes_only:
            out["codes_only"] = True
        return out
