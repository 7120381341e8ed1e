"""What a suite covers, per ruleset: clauses, error codes, resolution rows, ladder levels, endings."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..engine.events import Event, HandEvent, MatchEvent
from ..rules.model import MATCH, Ruleset, thaw
from .fixtures import Case


@dataclass
class Coverage:
    ruleset: str
    clauses: dict[str, list[str]] = field(default_factory=dict)  # clause id -> case ids
    codes: dict[str, list[str]] = field(default_factory=dict)
    rows: dict[str, list[str]] = field(default_factory=dict)
    accepted: dict[str, list[str]] = field(default_factory=dict)  # bid level -> case ids
    refused: dict[str, list[str]] = field(default_factory=dict)
    endings: dict[str, list[str]] = field(default_factory=dict)

    def gaps(self) -> dict[str, list[str]]:
        """Everything with no case, by kind."""
        out: dict[str, list[str]] = {}
        for kind in ("clauses", "codes", "rows", "accepted", "refused", "endings"):
            missing = [k for k, v in getattr(self, kind).items() if not v]
            if missing:
                out[kind] = missing
        return out

    def summary(self) -> dict[str, tuple[int, int]]:
        return {
            kind: (sum(1 for v in getattr(self, kind).values() if v), len(getattr(self, kind)))
            for kind in ("clauses", "codes", "rows", "accepted", "refused", "endings")
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "summary": {k: {"covered": a, "total": b} for k, (a, b) in self.summary().items()},
            "gaps": self.gaps(),
            "detail": {
                kind: getattr(self, kind) for kind in ("clauses", "codes", "rows", "accepted", "refused", "endings")
            },
        }


# The endings the rules text names; every one must be reached by some case.
ENDINGS = (
    "hand won on tricks",
    "hand won by refusal",
    "all tricks tied",
    "match won at the target",
    "match won by an accepted baraque",
    "declined at twenty",
    "won at twenty",
    "lost at twenty",
    "all passed at 20-20",
    "all tricks tied at 20-20",
    "match won at 20-20",
    "hand conceded",
)


def new_coverage(rules: Ruleset) -> Coverage:
    p = rules.params
    bids = [str(level.bid) for level in p.ladder[1:]]
    return Coverage(
        ruleset=rules.name,
        clauses={c.id: [] for c in rules.clauses},
        codes={e.code: [] for e in rules.errors},
        rows={r.id: [] for r in p.resolution},
        accepted={b: [] for b in bids},
        refused={b: [] for b in bids},
        endings={e: [] for e in game_endings(rules)},
    )


def game_endings(rules: Ruleset) -> tuple[str, ...]:
    """The ENDINGS this ruleset has: a game with no level worth the match, no twenty or no 20-20 (Le Truc) lacks
    theirs, which no case could reach."""
    p = rules.params
    nobody = any(row.winner == "none" for row in p.resolution)  # where every hand has a winner, none is all tied
    has = {
        "all tricks tied": nobody,
        "hand conceded": p.concede,
        "match won by an accepted baraque": any(level.value == MATCH for level in p.ladder),
        "declined at twenty": p.twenty_enabled,
        "won at twenty": p.twenty_enabled,
        "lost at twenty": p.twenty_enabled,
        "all passed at 20-20": p.tt_enabled and p.tt_question,
        "all tricks tied at 20-20": p.tt_enabled and nobody,
        "match won at 20-20": p.tt_enabled,
    }
    return tuple(e for e in ENDINGS if has.get(e, True))


def record(cov: Coverage, rules: Ruleset, case: Case, trace: list[Event]) -> None:
    """Count what one case (already passing on the reference) covers, from its declaration and its trace."""
    for declared in case.clauses:
        clause = rules.current_clause(declared)  # a replaced clause counts as its replacement
        if clause in cov.clauses and case.id not in cov.clauses[clause]:
            cov.clauses[clause].append(case.id)
    for step in case.expectation(rules.name).steps:
        if step.error is not None and step.error in cov.codes and case.id not in cov.codes[step.error]:
            cov.codes[step.error].append(case.id)
    hands = [e for e in trace if isinstance(e, HandEvent)]
    matches = [e for e in trace if isinstance(e, MatchEvent)]

    def mark(kind: dict[str, list[str]], key: str) -> None:
        if key in kind and case.id not in kind[key]:
            kind[key].append(case.id)

    # Each hand's starting score, from the setup's and the hands before it: whether its winner was at twenty (a
    # score that stops at the target cannot be worked back from the points).
    score = case.setup.get("score") if isinstance(case.setup, Mapping) else None
    before = dict(score) if isinstance(score, Mapping) else {}
    for h in hands:
        was, before = before.get(h.winner or "", 0), dict(h.score)
        mode = h.mode
        if h.reason == "conceded":
            mark(cov.endings, "hand conceded")
        if h.row is not None:
            mark(cov.rows, h.row)
        if h.level is not None and mode == "normal":
            if h.reason == "refusal":
                mark(cov.refused, str(h.level))
            elif h.reason in ("tricks", "tied", "void"):
                mark(cov.accepted, str(h.level))
        if mode == "normal":
            mark(
                cov.endings,
                {"tricks": "hand won on tricks", "refusal": "hand won by refusal", "tied": "all tricks tied"}.get(
                    h.reason, ""
                ),
            )
        elif mode == "twenty":
            if h.reason == "decline":
                mark(cov.endings, "declined at twenty")
            elif h.reason == "tricks":
                mark(cov.endings, "won at twenty" if was == rules.params.twenty_at else "lost at twenty")
        elif mode == "twenty_twenty":
            if h.reason == "passed":
                mark(cov.endings, "all passed at 20-20")
            elif h.reason == "tied":
                mark(cov.endings, "all tricks tied at 20-20")
            elif h.reason == "tricks":
                mark(cov.endings, "match won at 20-20")
    for h in hands:
        if _won_match(h, matches):
            if isinstance(h.points, str):
                mark(cov.endings, "match won by an accepted baraque")
            elif any(v >= rules.params.target for v in dict(h.score).values()):
                mark(cov.endings, "match won at the target")


def _won_match(h: HandEvent, matches: list[MatchEvent]) -> bool:
    return bool(matches) and matches[-1].winner == h.winner


def cases_by_clause(cases: list[Case]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for c in cases:
        for clause in c.clauses:
            out[clause].append(c.id)
    return dict(out)


def expected_errors(case: Case, ruleset: str) -> list[str]:
    return [s.error for s in case.expectation(ruleset).steps if s.error is not None]


def declared(case: Case) -> dict[str, Any]:
    return thaw(case.raw)  # type: ignore[no-any-return]
