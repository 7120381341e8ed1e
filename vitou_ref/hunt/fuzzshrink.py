"""Shrinking a fuzz divergence further with what the rules guarantee, once hypothesis has shrunk its draw."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from ..engine.actions import Malformed, action_from_json
from ..engine.tables import Tables
from ..protocol.server import match_from_setup
from ..rules.errors import IllegalAction
from .fuzzcases import Case, Divergence

Diverges = Callable[[Case], "Divergence | None"]  # whether a case still diverges (the same kind), and how


def earliest(d: Divergence, diverges: Diverges, t: Tables) -> Divergence:
    """Shrink further with what the rules guarantee, as long as the case still diverges.

    A hand starts from its dealer, the score and its deal alone, so a case
    can begin at the hand where it diverges; a rejected action changes
    nothing, and any action may turn out not to matter; and nothing after
    the first differing step is needed.
    """
    if d.where == "fault":
        return d
    best = d
    for candidate in _from_hand_starts(t, best.case):
        again = diverges(candidate)
        if again is not None:
            best = again
            break
    best = _cut_after_difference(best, diverges)
    # Blocks of actions, halving in size down to single ones: a whole trick
    # or a bid and its answer may go where no single action can.
    before = -1
    while len(best.case.actions) != before:
        before = len(best.case.actions)
        size = max(1, before // 2)
        while size >= 1:
            j = len(best.case.actions) - size
            while j >= 0:
                acts = best.case.actions
                again = diverges(Case(best.case.setup, acts[:j] + acts[j + size :]))
                if again is not None:
                    best = _cut_after_difference(again, diverges)
                j = min(j - 1, len(best.case.actions) - size)
            size //= 2
    # Deals the case never reaches go; so does the next hand's deal when the case stops before it
    # is played (a refusal ends a hand, and the reference deals the next at once).
    for keep in range(1, len(best.case.setup["deals"])):
        trimmed = Case({**best.case.setup, "deals": best.case.setup["deals"][:keep]}, best.case.actions)
        again = diverges(trimmed)
        if again is not None:
            best = again
            break
    return best


def _cut_after_difference(d: Divergence, diverges: Diverges) -> Divergence:
    if d.where.startswith("step "):
        n = int(d.where.split()[1])
        if n < len(d.case.actions):
            again = diverges(Case(d.case.setup, d.case.actions[:n]))
            if again is not None:
                return again
    return d


def _from_hand_starts(t: Tables, case: Case) -> list[Case]:
    """The case started afresh at each hand it plays, latest hand first."""
    m = match_from_setup(t, case.setup)
    starts: list[Case] = []
    hand = m.hand_number
    for i, raw in enumerate(case.actions):
        if m.hand_number != hand and m.deals_used() >= 1 and m.phase_name not in ("match_over", "no_deal"):
            hand = m.hand_number
            deals = case.setup["deals"][m.deals_used() - 1 :]
            starts.append(Case({"dealer": m.dealer, "score": m.score, "deals": deals}, case.actions[i:]))
        with contextlib.suppress(Malformed, IllegalAction):
            m.apply(action_from_json(raw))
    return list(reversed(starts))
