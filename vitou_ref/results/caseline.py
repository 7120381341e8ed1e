"""A case's line of a report: what it holds, and the reading of it, every field checked."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..kit.caseresult import ENVELOPE, ERRORED, FAILED, PASSED, SKIPPED, XFAIL, XPASS
from ..kit.envelope import envelope_under
from ..rules.errors import InputError
from ..rules.problems import Problem, pointer

OUTCOMES = (PASSED, FAILED, ERRORED, SKIPPED, XFAIL, XPASS)


@dataclass(frozen=True)
class CaseLine:
    """One case's result as its report line has it."""

    id: str
    title: str
    ruleset: str  # for an envelope case, the ruleset its lines named
    outcome: str
    clauses: tuple[str, ...]
    envelope: bool
    line: int
    reason: str | None = None
    difference: Mapping[str, Any] | None = None  # the first place the answer differed
    more: tuple[Mapping[str, Any], ...] = ()  # every place after it (absent in older reports)
    fault: str | None = None
    known: str | None = None
    codes_only: bool = False  # it differs at the code level only in its error codes (absent in older reports)

    @property
    def key(self) -> tuple[str, str]:
        """What a case is compared by across reports: its ruleset (an envelope case's, the envelope under it) and id."""
        return (envelope_under(self.ruleset) if self.envelope else self.ruleset, self.id)

    @property
    def behaviour(self) -> str:
        """What the implementation did, known-failure lists aside: passed, failed, errored or skipped."""
        if self.outcome == XPASS:
            return PASSED
        if self.outcome == XFAIL:
            return ERRORED if self.fault else FAILED
        return self.outcome

    @property
    def passed(self) -> bool:
        return self.behaviour == PASSED

    @property
    def label(self) -> str:
        """The outcome as certify prints it: in capitals when it is bad, CRASH and TIMEOUT told apart."""
        if self.outcome == ERRORED and self.fault in ("crash", "timeout"):
            return self.fault.upper()
        return self.outcome if self.outcome in (PASSED, SKIPPED) else self.outcome.upper()


def case_line(value: Mapping[str, Any], path: str, number: int) -> CaseLine:
    """A case's line of a report, every field checked; InputError naming the field otherwise."""

    def bad(key: str, what: str) -> InputError:
        return InputError(
            [Problem("REPORT_MALFORMED", f"the case's '{key}' {what}", path, number, path=pointer([key]))]
        )

    for key in ("id", "title", "ruleset"):
        if not isinstance(value.get(key), str):
            raise bad(key, "is not a string")
    if value.get("outcome") not in OUTCOMES:
        raise bad("outcome", f"is not one of {', '.join(OUTCOMES)}")
    clauses = value.get("clauses")
    if not isinstance(clauses, list) or not all(isinstance(c, str) for c in clauses):
        raise bad("clauses", "is not a list of clause ids")
    for key in ("reason", "fault", "known_failure"):
        if not isinstance(value.get(key, ""), str):
            raise bad(key, "is not a string")
    if not isinstance(value.get("difference", {}), dict):
        raise bad("difference", "is not an object")
    more = value.get("more_differences", [])
    if not isinstance(more, list) or not all(isinstance(d, dict) for d in more):
        raise bad("more_differences", "is not a list of objects")
    if not isinstance(value.get("codes_only", False), bool):
        raise bad("codes_only", "is not true or false")
    if value.get("section", ENVELOPE) != ENVELOPE:
        raise bad("section", f"is not '{ENVELOPE}'")
    return CaseLine(
        id=value["id"],
        title=value["title"],
        ruleset=value["ruleset"],
        outcome=value["outcome"],
        clauses=tuple(clauses),
        envelope=value.get("section") == ENVELOPE,
        line=number,
        reason=value.get("reason"),
        difference=value.get("difference"),
        more=tuple(more),
        fault=value.get("fault"),
        known=value.get("known_failure"),
        codes_only=value.get("codes_only", False),
    )
