"""Determinised Monte Carlo: deal the unseen cards many ways, play each choice to the end of the hand, keep the best.

At a decision the game waits for, with more than one choice, the player samples ``budget`` deals
of the cards it has not seen, consistent with what it saw: its own cards, its partners' cards
shown at twenty, every card played (each seat keeps the cards it played, in their tricks), and
the number of cards each seat was dealt. Each sampled deal is replayed through the hand's public
history from its first action; a deal under which that history would not have happened (an act
refused, or the hand over sooner: a hand that stops as soon as it is determined depends on the
cards still held) is drawn again. For every candidate action and every world (the same worlds for
every candidate), the rest of the hand only, not the match, is played with the rules of thumb
(:mod:`.heuristic`) at every seat; the candidate is worth the points its side gains minus the
points the other side gains in that hand, and the target's worth (plus or minus) when the hand
decides the match. The best average wins; ties go to the earliest in ``obs.legal``. Out-of-turn
chances and signals are left to the rules of thumb. Deterministic for a seed.
"""

from __future__ import annotations

import random
from collections.abc import Container, Mapping, Sequence
from typing import Any

from ..engine.actions import Action, Play, Signal
from ..engine.events import Event, HandEvent, MatchEvent
from ..engine.observation import FaceDown, Observation, RecordedMatch, asking_order, observe
from ..engine.setup import TURN_UP
from ..engine.tables import Tables
from ..rules.cards import Card
from ..rules.errors import IllegalAction
from .heuristic import decide, signal_for
from .reading import deal_unseen, readings

DEFAULT_BUDGET = 16
MAX_BUDGET = 10_000  # deals sampled at one decision, each a match kept in memory while it is made
MAX_DRAWS = 8  # draws per wanted world before giving up on consistency (then fewer worlds are used)


class SearchPlayer:
    """Determinised Monte Carlo over ``budget`` sampled deals per decision (see the module's docstring)."""

    kind = "search"

    def __init__(self, seed: int, budget: int = DEFAULT_BUDGET) -> None:
        if not 1 <= budget <= MAX_BUDGET:
            raise ValueError(
                f"a search budget is a number of sampled deals, 1 or more and at most {MAX_BUDGET:,}, not {budget}"
            )
        self.budget = budget
        self._rng = random.Random(seed)

    def choose(self, obs: Observation) -> Action | None:
        if not obs.must_act:
            return decide(obs)
        sig = signal_for(obs)
        if sig is not None:
            return sig
        legal = obs.legal
        if len(legal) <= 1:
            return legal[0] if legal else None
        worlds = self._worlds(obs)
        if not worlds:  # pragma: no cover - the true deal is always consistent; only bad luck gets here
            return decide(obs, signals=False)
        return self._best(obs, legal, worlds)

    def _worlds(self, obs: Observation) -> list[RecordedMatch]:
        # Today's search deals the unseen cards without reading the signals; a subclass may read them.
        return sample_worlds(obs, self.budget, self._rng)

    def _best(self, obs: Observation, legal: Sequence[Action], worlds: list[RecordedMatch]) -> Action:
        # The action whose sampled worlds are worth most; a subclass judges the worlds its own way.
        best, best_value = legal[0], float("-inf")
        for action in legal:
            total = 0.0
            for world in worlds:
                total += _value(obs, world.clone(), action)
            if total > best_value:
                best, best_value = action, total
        return best


def sample_worlds(
    obs: Observation, count: int, rng: random.Random, *, read: bool = False, signallers: Container[str] | None = None
) -> list[RecordedMatch]:
    """Up to ``count`` matches at this moment of the hand, each from a deal of the unseen cards consistent with ``obs``.

    With ``read``, the deals also agree with what the table's signals say (:mod:`.reading`; the
    silences of ``signallers`` only, when given); when no such deal is found in the draws allowed,
    the deals are drawn without the readings.
    """
    t = obs.tables
    seen: dict[str, list[int]] = {s: [] for s in obs.seats}
    for _, seat, card in obs.played:
        seen[seat].append(card.id)
    seen[obs.seat] += [c.id for c in obs.hand]
    for seat, cards in obs.shown:
        seen[seat] += [c.id for c in cards]
    known = {c for cards in seen.values() for c in cards}
    if obs.turn_up is not None:  # the turn-up is public, and in nobody's hand
        known.add(obs.turn_up.id)
    unseen = [c for c in t.deck if c not in known]
    # A card another seat played face down is one of its unseen cards: dealt with them, played by the replay.
    hidden = [(s, t.cards_each - len(cards)) for s, cards in seen.items() if len(cards) < t.cards_each]
    history = [s.action for s in obs.acts if type(s.action) is not Signal]
    counted = {s: len(cards) for s, cards in seen.items()}
    score = dict(obs.score)
    reads = readings(obs, signallers) if read else {}
    worlds: list[RecordedMatch] = []
    for _ in range(count * MAX_DRAWS):
        deal = {s: list(cards) for s, cards in seen.items()}
        if reads:
            drawn = deal_unseen(unseen, hidden, reads, t.strength, rng)
            if drawn is None:
                continue
            for seat, ids in drawn.items():
                deal[seat] += ids
        else:
            rng.shuffle(unseen)
            k = 0
            for seat, n in hidden:
                deal[seat] += unseen[k : k + n]
                k += n
        world = _replay(t, obs.dealer, deal, score, history, obs.turn_up, counted)
        if world is not None:
            worlds.append(world)
            if len(worlds) == count:
                break
    if reads and not worlds:  # the table keeps to another convention: read nothing
        return sample_worlds(obs, count, rng)
    return worlds


def _replay(
    t: Tables,
    dealer: str,
    deal: dict[str, list[int]],
    score: dict[str, int],
    history: Sequence[Action | FaceDown],
    turn_up: Card | None = None,
    seen: Mapping[str, int] | None = None,
) -> RecordedMatch | None:
    """The hand's public history replayed on ``deal``; None where it would not have happened.

    A card another seat played face down, which the observer did not see, is one of the cards drawn for that seat in
    this world (past the first ``seen[seat]`` of its deal, the cards the observer saw), the last one still held.
    """
    cards: dict[str, Any] = {s: [t.card(c) for c in cs] for s, cs in deal.items()}
    if turn_up is not None:
        cards[TURN_UP] = turn_up
    m = RecordedMatch(t, dealer=dealer, deals=[cards], score=score)
    for act in history:
        if type(act) is FaceDown:
            held = m.hands[t.seat_index[act.seat]]
            drawn = [c for c in deal[act.seat][(seen or {}).get(act.seat, 0) :] if c in held]
            if not drawn:
                return None
            action: Action = Play(act.seat, t.card(drawn[-1]), True)
        else:
            action = act  # type: ignore[assignment]
        try:
            events = m.apply(action)
        except IllegalAction:
            return None
        if events and any(type(e) is HandEvent for e in events):
            return None
    return m


def _value(obs: Observation, m: RecordedMatch, action: Action) -> float:
    """What ``action`` is worth to ``obs.side`` in world ``m``, the hand played out by the rules of thumb."""
    events = m.apply(action)
    while not _hand_over(events):
        order = asking_order(m)
        if not order:  # pragma: no cover - a hand always ends with a HandEvent
            return 0.0
        for seat in order:
            choice = decide(observe(m, seat), signals=False)
            if choice is not None:
                events = m.apply(choice)
                break
        else:  # pragma: no cover - the mover always has an action
            return 0.0
    return _worth(obs, events)


def _hand_over(events: tuple[Event, ...]) -> bool:
    return any(type(e) is HandEvent for e in events)


def _worth(obs: Observation, events: tuple[Event, ...]) -> float:
    for e in events:
        if type(e) is MatchEvent:
            return float(obs.target if e.winner == obs.side else -obs.target)
    hand = next(e for e in events if type(e) is HandEvent)
    before = dict(obs.score)
    gained = {side: pts - before[side] for side, pts in hand.score}
    mine = gained.pop(obs.side)
    return float(mine - sum(gained.values()))
