"""Determinised search that reads the table's signals and solves each sampled deal exactly.

The player samples ``budget`` deals of the unseen cards as :mod:`.search` does, and keeps only
deals that agree with what the signals and silences of the hand say by the players' convention
(:mod:`.reading`): reading them is what makes it stronger than ``search``; solving the card play
makes it faster. For every
candidate action and every world, the rest of the hand is played with every seat seeing every
card and no further bid made (the hand is held at the level in force): once nothing is owed, the
hand goes to the winner of its perfect-information value (:mod:`vitou_ref.solve.solver`), scored
by the engine. An answer or a decision the game waits for (a refusal, an acceptance, the twenty
questions) is given by the rules of thumb, as today's search gives it; a card played before then
(the bidder's own, or an acceptance by playing) is the solver's, the lowest of those that keep the
hand's value for the side that plays it, but for the seat's own card after its own bid, which is
judged with the bid: the bid is worth its best card, the same card in every world. A candidate is worth
what :mod:`.search` counts: the points its side gains minus the other side's in that hand, or the
target's worth when the hand decides the match. The best average wins; ties go to the rules of
thumb's choice when it is among them, else to the earliest in ``obs.legal``. Deterministic for a seed.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine.actions import Action, Play, Raise
from ..engine.events import Event
from ..engine.observation import Observation, RecordedMatch, asking_order, observe
from ..engine.tables import Tables
from ..engine.transitions import CARD, PLAY
from ..solve.solver import Position, Solver
from .heuristic import decide
from .search import DEFAULT_BUDGET, SearchPlayer, _hand_over, _worth


class SolverPlayer(SearchPlayer):
    """Determinised search over ``budget`` sampled deals, each deal's card play solved (see the module's docstring)."""

    kind = "solver"
    reads_signals = True

    def __init__(self, seed: int, budget: int = DEFAULT_BUDGET) -> None:
        super().__init__(seed, budget)
        self._solvers: dict[tuple[int, int], Solver] = {}  # by tables and dealer: the eldest hand matters

    def _best(self, obs: Observation, legal: Sequence[Action], worlds: list[RecordedMatch]) -> Action:
        solver = self._solver(obs.tables, obs.tables.seat_index[obs.dealer])
        totals = [
            max(
                sum(_value(obs, solver, world.clone(), action, card) for world in worlds)
                for card in _cards_after(obs, worlds[0], action)
            )
            for action in legal
        ]
        top = max(totals)
        best = [a for a, v in zip(legal, totals) if v == top]
        # Ties are common (a hand every world gives to one side): the rules of thumb, which keep high
        # cards for the bids to come that the solved worlds leave out, break them; then the earliest.
        thumb = decide(obs, signals=False) if len(best) > 1 else None
        return thumb if thumb in best else best[0]

    def _solver(self, t: Tables, dealer: int) -> Solver:
        key = (id(t), dealer)
        found = self._solvers.get(key)
        if found is None:
            found = self._solvers[key] = Solver(t, dealer)
        return found


def _cards_after(obs: Observation, world: RecordedMatch, action: Action) -> list[Play | None]:
    """The cards the seat may play right after ``action``, when it must (a bid before its card), else [None].

    A bid and the card after it are judged together, the same card in every world: were the card
    the solver's in each world, it would be chosen knowing the cards unseen, and bids would look
    better than they are.
    """
    if type(action) is not Raise:
        return [None]
    m = world.clone()
    m.apply(action)
    if m.phase != CARD or m.turn != obs.seat:
        return [None]
    return [a for a in m.legal_actions() if type(a) is Play]


def _value(obs: Observation, solver: Solver, m: RecordedMatch, action: Action, card: Play | None = None) -> float:
    """What ``action`` (then ``card``) is worth to ``obs.side`` in world ``m``, the rest of the card play solved."""
    events: tuple[Event, ...] = m.apply(action)
    if card is not None and not _hand_over(events):
        events = m.apply(card)
    while not _hand_over(events):
        if m.phase == PLAY:  # nothing owed: only cards are left, and their value is the solver's
            v = solver.value(position_of(solver, m))
            if v == 0:
                return 0.0  # nobody wins the hand: nobody scores
            # The hand's end as the engine scores it for that winner (level, twenty, the match).
            return _worth(obs, m._end_hand_on_tricks(0 if v > 0 else 1, None))
        order = asking_order(m)
        if not order:  # pragma: no cover - a hand always ends with a HandEvent
            return 0.0
        for seat in order[:-1]:  # out of turn: only the rules of thumb's chances (a refusal), no bid
            choice = decide(observe(m, seat), signals=False)
            if choice is not None and type(choice) is not Raise:
                events = m.apply(choice)
                break
        else:
            events = m.apply(_move(solver, m, order[-1]))
    return _worth(obs, events)


def _move(solver: Solver, m: RecordedMatch, seat: str) -> Action:
    """The mover's action: the solved card, or the rules of thumb's answer where one is owed."""
    legal = m.legal_actions()
    if any(type(a) is not Play and type(a) is not Raise for a in legal):
        choice = decide(observe(m, seat), signals=False)
        if type(choice) is not Play:
            assert choice is not None  # the mover always has an action
            return choice
    plays = [a for a in legal if type(a) is Play]
    return _solved_card(solver, m, plays)


def _solved_card(solver: Solver, m: RecordedMatch, plays: list[Play]) -> Play:
    """Of the cards ``plays`` offers, the lowest that keeps the hand's value for the side that plays it."""
    t = m.tables
    st = t.strength
    pos = position_of(solver, m)
    sign = 1 if t.side_of[solver.to_play(pos)] == 0 else -1
    target = solver.value(pos) * sign
    chosen = min(plays, key=lambda a: st[a.card.id])
    for s in solver.moves(pos):
        child = solver.after(pos, s)
        v = child if isinstance(child, int) else solver.value(child)
        if v * sign == target:
            chosen = next(a for a in plays if st[a.card.id] == s)
            break
    return chosen


def position_of(solver: Solver, m: RecordedMatch) -> Position:
    """The card play's position in a match: what each seat holds, the trick's leader and the trick so far."""
    st = m.tables.strength
    hands = tuple(tuple(sorted(st[c] for c in h)) for h in m.hands)
    # The leader, the trie node and the trick so far are the match's own fields: no public view holds them.
    return Position(hands, m._leader, m._node, tuple(st[c] for c in m.tcards))
