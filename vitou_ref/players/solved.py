"""Determinised search that reads the table's signals and solves each sampled deal's card play exactly.

The player samples ``budget`` deals of the unseen cards as :mod:`.search` does, and keeps only
deals that agree with what the signals and silences of the hand say by the players' convention
(:mod:`.reading`). For every candidate action and every world, the rest of the hand is played out
with every seat seeing every card: each card is the solver's (:mod:`vitou_ref.solve.solver`), the
lowest that keeps the hand's perfect-information value for the side that plays it; each bid and
answer (a raise, a refusal, an acceptance, the twenty questions) is the rules of thumb's, asked as
the arena asks, out of turn first. Once nothing can be bid or answered any more, the hand goes to
the winner of its value, scored by the engine. The seat's own card right after its own bid is
judged with the bid: the bid is worth its best card, the same card in every world. A candidate is
worth what :mod:`.search` counts: the points its side gains minus the other side's in that hand, or
the target's worth when the hand decides the match. The best average wins; ties go to the rules of
thumb's choice when it is among them, else to the earliest in ``obs.legal``. Deterministic for a seed.

Why bids stay in the worlds: a solved world held at the level in force leaves out the raise the
other side answers with, and judged that way bids and acceptances look safer than they are (in the
two-player game such a player lost to ``search``; measured in docs/explanation/statistics.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine.actions import Accept, Action, Play, Raise, Refuse
from ..engine.events import Event
from ..engine.observation import Observation, RecordedMatch, asking_order, observe
from ..engine.state import TWENTY
from ..engine.tables import Tables
from ..engine.transitions import CALL, CARD, DECISION, PLAY
from ..solve.solver import Position, Solver
from .heuristic import RAISE_AT, REFUSE_BELOW, decide, estimate_of
from .search import DEFAULT_BUDGET, SearchPlayer, _hand_over, _worth, sample_worlds


class SolverPlayer(SearchPlayer):
    """Determinised search over ``budget`` sampled deals, each deal's card play solved (see the module's docstring)."""

    kind = "solver"

    def __init__(self, seed: int, budget: int = DEFAULT_BUDGET) -> None:
        super().__init__(seed, budget)
        self._solvers: dict[tuple[int, int], Solver] = {}  # by tables and dealer: the eldest hand matters
        self._signallers: set[str] = set()  # the seats seen to signal in this match: they keep to a convention

    def choose(self, obs: Observation) -> Action | None:
        self._signallers.update(s.seat for s in obs.signals)  # every observation shown, its own turns or not
        return super().choose(obs)

    def _worlds(self, obs: Observation) -> list[RecordedMatch]:
        return sample_worlds(obs, self.budget, self._rng, read=True, signallers=self._signallers)

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
        # Ties are common (a hand every world gives to one side, whatever is played now): the rules of
        # thumb break them, then the earliest; the solver's lowest card would throw away what they keep.
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
    """What ``action`` (then ``card``) is worth to ``obs.side`` in world ``m``: bids and answers by the rules of
    thumb, cards by the solver."""
    events: tuple[Event, ...] = m.apply(action)
    if card is not None and not _hand_over(events):
        events = m.apply(card)
    t = m.tables
    while not _hand_over(events):
        if m.phase == PLAY and (not m._bids_open or m.level >= t.top):
            # Nothing can be bid or answered any more: only cards are left, and their value is the solver's.
            v = solver.value(position_of(solver, m))
            if v == 0:
                return 0.0  # nobody wins the hand: nobody scores
            # The hand's end as the engine scores it for that winner (level, twenty, the match).
            return _worth(obs, m._end_hand_on_tricks(0 if v > 0 else 1, None))
        events = m.apply(_step(solver, m))
    return _worth(obs, events)


def _step(solver: Solver, m: RecordedMatch) -> Action:
    """The world's next action, asked as the arena asks: out of turn first, then the mover, who may not wait."""
    legal = m.legal_actions()
    order = asking_order(m, legal)
    for seat in order[:-1]:
        choice = _thumb(m, seat, legal)
        if choice is not None:
            return choice
    mover = order[-1]
    choice = _thumb(m, mover, legal)
    if choice is not None:
        return choice
    plays = [a for a in legal if type(a) is Play and a.seat == mover]
    if not plays:  # pragma: no cover - a mover with no card has an answer, which the rules of thumb give
        choice = decide(observe(m, mover), signals=False)
        assert choice is not None
        return choice
    return _solved_card(solver, m, plays)


def _thumb(m: RecordedMatch, seat: str, legal: Sequence[Action]) -> Action | None:
    """The rules of thumb's bid or answer for ``seat`` (:func:`.heuristic.decide`), None for a card or to wait.

    It is read from the match, not from an Observation, which would be built at every step of every
    world; a test holds it to ``decide``. The rarer moments (twenty, 20-20) ask ``decide`` itself.
    """
    t = m.tables
    if m.phase == DECISION or m.phase == CALL:
        choice = decide(observe(m, seat), signals=False)
        return None if type(choice) is Play else choice
    mine = [a for a in legal if type(a) is not Play and getattr(a, "seat", None) == seat]
    if not mine:
        return None
    s = t.seat_index[seat]
    side = t.side_of[s]
    cards = list(m.hands[s])
    if m.mode == TWENTY and m.twenty_side == side:  # the side at twenty has seen its partners' cards
        cards += [c for x in range(t.n) if x != s and t.side_of[x] == side for c in m.hands[x]]
    won = [t.side_of[t.seat_index[w]] == side for w in m._tricks if w is not None]
    est = estimate_of([m._power[c] for c in cards], len(t.rules.params.rank_order), won)
    if est < REFUSE_BELOW:
        refuse = next((a for a in mine if type(a) is Refuse), None)
        if refuse is not None:
            return refuse
    raises = [a for a in mine if type(a) is Raise]
    if raises and est >= RAISE_AT:
        return min(raises, key=lambda a: t.bid_tokens.index(a.to))
    return next((a for a in mine if type(a) is Accept), None)


def _solved_card(solver: Solver, m: RecordedMatch, plays: list[Play]) -> Play:
    """Of the cards ``plays`` offers, the lowest that keeps the hand's value for the side that plays it.

    Face up: the solver of a world plays no card face down (its moves are the cards face up, ``face_down`` off).
    """
    st = m._power  # the hand's strengths: the turn-up's, where the rules turn one up
    plays = [a for a in plays if not a.down]
    if all(st[a.card.id] == st[plays[0].card.id] for a in plays):  # one rank to play: nothing to solve
        return plays[0]
    keep = solver.keeping(position_of(solver, m))
    return next(a for a in plays if st[a.card.id] == keep)


def position_of(solver: Solver, m: RecordedMatch) -> Position:
    """The card play's position in a match: what each seat holds, the trick's leader and the trick so far.

    Strengths are the hand's (the turn-up's manilhas above all, where the rules turn one up), and a card of the trick
    played face down counts 0, as the engine judges it.
    """
    st = m._power
    hands = tuple(tuple(sorted(st[c] for c in h)) for h in m.hands)
    down = m.tdown
    played = tuple(0 if down >> i & 1 else st[c] for i, c in enumerate(m.tcards))
    # The leader, the trie node and the trick so far are the match's own fields: no public view holds them.
    return Position(hands, m._leader, m._node, played)
