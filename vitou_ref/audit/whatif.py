"""What the rules would have given: each legal action open instead of an illegal one, with the hand's solved value."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..engine.actions import Malformed, Play, action_from_json
from ..engine.events import Event, HandEvent, MatchEvent
from ..engine.observation import RecordedMatch
from ..engine.tables import Tables, tables_for
from ..engine.transitions import CALL, DECISION, PLAY
from ..players.solved import position_of as solver_position
from ..rules.errors import IllegalAction
from ..rules.model import Ruleset
from ..solve.solver import Budget, OverBudget, Solver
from .audit import Ruling
from .grounds import allowing_clause
from .record import Record

# The positions one request may search, every alternative's together. Measured over 2,000 random fresh hands
# (every alternative of the first action, a new solver each): Vitou's 4 seats x 3 cards need 1,436 at most
# (under 4 ms), Le Truc's 2 x 3 114 (under 4 ms), four cards each 19,650; the solver searches 200,000 to
# 800,000 a second of one core, so the bound keeps a request under a second whatever rules file is uploaded.
MAX_POSITIONS = 200_000
# The positions each table of the solver keeps, as `vitou analyze` keeps them (solve/analyze.py).
TABLE_POSITIONS = 250_000
# The what-ifs one request computes at most: a referee reads a few, and a record may hold thousands of illegal
# actions, each a replay's worth of work.
MOST_WHAT_IFS = 20
UNKNOWN = "?"  # a card the record does not know, in a deal or a play
# Why a value is not given, each a key of the catalogues' whatif section (whatif.unsolved.<why>).
UNSOLVED = ("card_unknown", "bid", "decision", "call", "over_bound", "no_action")


@dataclass(frozen=True)
class Outcome:
    """The hand's value after an action: who wins it, what they score, and whether that ends the match.

    ``ended``: the action itself ended the hand (a refusal, a decline, the deciding card), so the engine
    scored it and nothing was solved; otherwise the card play was solved as `vitou analyze` solves it,
    every seat seeing every card and playing to win the hand, held at the value in force.
    """

    winner: str | None  # a side id; None: nobody wins the hand
    points: int | str  # what the winners score: a number, or the bid that wins the match; 0 when nobody wins
    match_winner: str | None  # the side that wins the match with this hand; None: the match goes on
    ended: bool


@dataclass(frozen=True)
class Unsolved:
    """Why no value is given: one of ``UNSOLVED``, with the seats or the phase it concerns."""

    why: str
    detail: tuple[str, ...] = ()


@dataclass(frozen=True)
class Alternative:
    """One legal action of the position, the clause that allows it, and its outcome or why there is none."""

    action: dict[str, Any]
    clause: str | None
    outcome: Outcome | None
    unsolved: Unsolved | None


@dataclass(frozen=True)
class WhatIf:
    """The legal actions before action ``at`` and what each gives; ``unsolved``: why none could be looked at."""

    at: int
    hand: int
    alternatives: tuple[Alternative, ...]
    unsolved: Unsolved | None
    positions: int  # searched by the solver
    bound: int

    def to_json(self) -> dict[str, Any]:
        def why(u: Unsolved | None) -> Any:
            return None if u is None else {"why": u.why, "detail": list(u.detail)}

        return {
            "at": self.at,
            "hand": self.hand,
            "unsolved": why(self.unsolved),
            "positions": self.positions,
            "bound": self.bound,
            "alternatives": [
                {
                    "action": a.action,
                    "clause": a.clause,
                    "outcome": None if a.outcome is None else vars(a.outcome),
                    "unsolved": why(a.unsolved),
                }
                for a in self.alternatives
            ],
        }


def what_if(record: Record, rules: Ruleset, at: int | Ruling, *, max_positions: int = MAX_POSITIONS) -> WhatIf:
    """Each legal action before action ``at`` (1-based, or an illegal ruling of the audit of ``record``), valued.

    Illegal actions before it change nothing, as in the audit. ``max_positions`` bounds the solver's
    work over every alternative together; past it an alternative says so (``over_bound``).
    """
    return what_ifs(record, rules, [at], max_positions=max_positions, most=1)[_index(record, at)]


def what_ifs(
    record: Record,
    rules: Ruleset,
    at: Iterable[int | Ruling],
    *,
    max_positions: int = MAX_POSITIONS,
    most: int = MOST_WHAT_IFS,
) -> dict[int, WhatIf]:
    """:func:`what_if` at several actions (the first ``most`` of them), by action, the record replayed once.

    A page showing every illegal ruling of a long record asks for many: one replay keeps that linear in
    the record, and ``max_positions`` bounds the solver's work over all of them together.
    """
    wanted = {_index(record, x): x for x in at}
    targets = sorted(wanted)[:most]
    dealt = _unrecorded(record, 1, None)
    if dealt is not None:  # the engine deals only known cards: no position of the record can be replayed
        return {n: WhatIf(n, 0, (), Unsolved("card_unknown", dealt), 0, max_positions) for n in targets}
    t = tables_for(rules)
    m = _match(t, record.setup())
    budget = Budget(max_positions)
    out: dict[int, WhatIf] = {}
    done = 1
    for n in targets:
        for ra in record.actions[done - 1 : n - 1]:
            with contextlib.suppress(Malformed, IllegalAction):  # not made, as the audit has it
                m.apply(action_from_json(ra.action))
        done = n
        out[n] = _here(record, rules, m, n, wanted[n], budget)
    return out


def _here(record: Record, rules: Ruleset, m: RecordedMatch, n: int, at: int | Ruling, budget: Budget) -> WhatIf:
    """The what-if in the position ``m`` holds, before action ``n``."""
    unknown = _unrecorded(record, n, at)
    if unknown is not None:
        return WhatIf(n, m.hand_number, (), Unsolved("card_unknown", unknown), 0, budget.most)
    legal = [(a, allowing_clause(rules, m, a)) for a in (x.to_json() for x in m.legal_actions())]
    if isinstance(at, Ruling) and at.position is not None and at.position.legal != legal:
        raise ValueError(f"ruling {n} is not a ruling of this record under {rules.name}")
    if not legal:
        return WhatIf(n, m.hand_number, (), Unsolved("no_action", (m.phase_name,)), 0, budget.most)
    t = m.tables
    used = min(budget.used, budget.most)
    solver = Solver(t, t.seat_index[m.dealer], budget=budget, max_memo=TABLE_POSITIONS)
    alternatives = tuple(_alternative(m, solver, action, clause) for action, clause in legal)
    return WhatIf(n, m.hand_number, alternatives, None, min(budget.used, budget.most) - used, budget.most)


def _match(t: Tables, setup: dict[str, Any]) -> RecordedMatch:
    """The record's match, as the audit starts it (the loader has checked its setup); recorded, as the solver
    player's position reads one."""
    return RecordedMatch(
        t, dealer=setup.get("dealer"), draw=setup.get("draw"), deals=setup["deals"], score=setup.get("score")
    )


def _index(record: Record, at: int | Ruling) -> int:
    if isinstance(at, Ruling):
        if at.legal:
            raise ValueError(f"action {at.n} was ruled legal: a what-if is for an illegal action")
        at = at.n
    if not 1 <= at <= len(record.actions) + 1:
        raise ValueError(f"the record has {len(record.actions)} actions: there is no position before action {at}")
    return at


def _unrecorded(record: Record, n: int, at: int | Ruling | None) -> tuple[str, ...] | None:
    """The seats whose cards the record leaves unknown ("?") up to action ``n``, or None when every card is known.

    The engine plays only known cards, and a position reached through an unknown one is not known: any "?"
    in the deals or in the plays before ``n`` leaves the hand unsolved, never guessed.
    """
    seats = {str(s) for d in record.deals if isinstance(d, dict) for s, cards in d.items() if _marked(cards)}
    for ra in record.actions[: n - 1]:
        a = ra.action
        if isinstance(a, dict) and a.get("act") == "play" and _marked(a.get("card")):
            seats.add(str(a.get("seat")))
    if isinstance(at, Ruling) and (getattr(at, "open", None) is not None or getattr(at.position, "blind", None)):
        seats.add(str(at.action.get("seat", "?")) if isinstance(at.action, dict) else UNKNOWN)
    return tuple(sorted(seats)) if seats else None


def _marked(cards: Any) -> bool:
    if isinstance(cards, str):
        return UNKNOWN in cards
    return isinstance(cards, list) and any(_marked(c) for c in cards)


def _alternative(m: RecordedMatch, solver: Solver, action: dict[str, Any], clause: str | None) -> Alternative:
    child = m.clone()
    events = child.apply(action_from_json(action))
    if _hand_event(events) is not None:
        return Alternative(action, clause, _outcome(events, ended=True), None)
    if child.phase != PLAY:
        why = "decision" if child.phase == DECISION else "call" if child.phase == CALL else "bid"
        return Alternative(action, clause, None, Unsolved(why, (child.phase_name,)))
    try:
        return Alternative(action, clause, _solved(child, solver), None)
    except OverBudget as exc:
        return Alternative(action, clause, None, Unsolved("over_bound", (str(exc.most),)))


def _solved(m: RecordedMatch, solver: Solver) -> Outcome:
    """The hand played out by the engine, every seat playing the lowest card that keeps the solver's value.

    The value is the solver's, as `vitou analyze` finds it; playing its line through the engine gives the
    score the rules attach to that winner (the bid in force, the ending at twenty, the match).
    """
    t = m.tables
    value = solver.value(solver_position(solver, m))
    while True:
        keep = solver.keeping(solver_position(solver, m))
        seat = str(m.turn)
        # The hand's strengths (a turn-up's manilhas); the solver plays its cards face up.
        card = next(c for c in m.hand(seat) if m.strength_of(c) == keep)
        events = m.apply(Play(seat, card))
        if _hand_event(events) is not None:
            break
    out = _outcome(events, ended=False)
    expected = None if value == 0 else t.side_ids[0 if value > 0 else 1]
    if out.winner != expected:  # pragma: no cover - the solver's line keeps its value by construction
        raise AssertionError(f"the solved line gives the hand to {out.winner}, the solver's value to {expected}")
    return out


def _hand_event(events: tuple[Event, ...]) -> HandEvent | None:
    return next((e for e in events if isinstance(e, HandEvent)), None)


def _outcome(events: tuple[Event, ...], *, ended: bool) -> Outcome:
    hand = _hand_event(events)
    assert hand is not None
    won = next((e.winner for e in events if isinstance(e, MatchEvent)), None)
    return Outcome(hand.winner, hand.points if hand.winner is not None else 0, won, ended)


__all__ = [
    "MAX_POSITIONS",
    "MOST_WHAT_IFS",
    "UNSOLVED",
    "Alternative",
    "Outcome",
    "Unsolved",
    "WhatIf",
    "what_if",
    "what_ifs",
]
