"""A player of rules of thumb, read against the ruleset's data: cheap wins, strong hands bid, weak ones refuse.

The rules of thumb (every figure comes from the observation: the rank order, the ladder, the table):

- Strength: each card counts by its place in the rank order, 0 for the lowest rank and 1 for the
  highest. A hand's estimate starts at 0.5, moves by 0.5 x (best card - 0.5) and 0.25 x (second
  best - 0.5), and by 0.25 for every trick of the hand its side has won (minus 0.25 for every trick
  the opponents won); it is kept within 0 and 1. At twenty the partners' shown cards count as the
  seat's own.
- Cards, always face up: leading, play the highest card. Following (a card played face down counts for nothing), when a partner alone holds the best card of the
  trick, throw the lowest; otherwise play the lowest card that beats the table; when none does,
  tie with the lowest equal card if the side has already won a trick (a later tie keeps that win),
  else throw the lowest, keeping the highest for later.
- Bids: open or raise (the lowest rung offered) when the estimate is 0.7 or more; out of turn too.
- Answers: refuse a bid when the estimate is under 0.35, accept otherwise: by playing, or with the
  act accept where a raise is answered before any card (Le Truc), where a raise again is a raise.
- At twenty: play the hand when the estimate is 0.5 or more, else decline. At 20-20: say play
  at 0.6 or more, else pass.
- Signals: once a hand, when it has a partner and the rules allow signals now, the seat signals
  the gesture whose meaning is the rank of its best card, if there is one; it reads no signal.
- Out of turn, with nothing above to do, it waits.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from ..engine.actions import Accept, Action, CallPlay, DeclineHand, Pass, Play, PlayHand, Raise, Refuse, Signal
from ..engine.observation import Observation
from ..rules.cards import Card

RAISE_AT = 0.7
REFUSE_BELOW = 0.35
PLAY_TWENTY_AT = 0.5
CALL_AT = 0.6


class HeuristicPlayer:
    """Rules of thumb against the ruleset's data (see the module's docstring); deterministic."""

    kind = "heuristic"

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)  # unused: the rules of thumb break ties by the order of obs.legal

    def choose(self, obs: Observation) -> Action | None:
        return decide(obs)


def decide(obs: Observation, *, signals: bool = True) -> Action | None:
    """The rules of thumb's action for ``obs``; None to wait."""
    if signals:
        sig = signal_for(obs)
        if sig is not None:
            return sig
    legal = obs.legal
    if not legal:
        return None
    est = estimate(obs)
    kinds = {type(a) for a in legal}
    if PlayHand in kinds:
        want = PlayHand if est >= PLAY_TWENTY_AT else DeclineHand
        return next(a for a in legal if type(a) is want)
    if CallPlay in kinds:
        want_call = CallPlay if est >= CALL_AT else Pass
        return next(a for a in legal if type(a) is want_call)
    if Refuse in kinds and est < REFUSE_BELOW:
        return next(a for a in legal if type(a) is Refuse)
    raises = [a for a in legal if isinstance(a, Raise)]
    if raises and est >= RAISE_AT:
        ladder = [bid for bid, _ in obs.ladder]
        return min(raises, key=lambda a: ladder.index(a.to))
    if Accept in kinds:  # a raise waits for this seat's answer before any card: no card is legal now
        return next(a for a in legal if type(a) is Accept)
    # Face up only: a card face down never wins, and these thumbs have no use for hiding one.
    plays = [a for a in legal if isinstance(a, Play) and not a.down]
    if not obs.must_act or not plays:
        return None if not obs.must_act else legal[0]
    return _card(obs, plays)


def _card(obs: Observation, plays: list[Play]) -> Play:
    power = obs.strength
    plays = sorted(plays, key=lambda a: power(a.card))  # stable: equal ranks keep obs.legal's order
    if not obs.trick:
        return plays[-1]
    # A card played face down counts 0 (obs.trick_powers): it never wins, whichever card it was.
    powers = obs.trick_powers
    best = max(powers)
    holders = [s for (s, _), p in zip(obs.trick, powers) if p == best]
    if len(holders) == 1 and holders[0] in obs.partners:
        return plays[0]
    beating = [a for a in plays if power(a.card) > best]
    if beating:
        return beating[0]
    if _side_won_a_trick(obs):
        equal = [a for a in plays if power(a.card) == best]
        if equal:
            return equal[0]
    return plays[0]


def _side_won_a_trick(obs: Observation) -> bool:
    return any(w is not None and w in obs.partners for w in obs.trick_winners)


def estimate(obs: Observation) -> float:
    """The hand's chance as the rules of thumb see it, from 0 (lost) to 1 (won)."""
    cards: list[Card] = list(obs.hand)
    for _, shown in obs.shown:
        cards += shown
    won = [w in obs.partners for w in obs.trick_winners if w is not None]
    return estimate_of([obs.strength(c) for c in cards], len(obs.ranks), won)


def estimate_of(strengths: Sequence[int], ranks: int, won: Iterable[bool]) -> float:
    """:func:`estimate` from the cards' strengths (1 to ``ranks``), and for each trick not tied, whether the side won it."""
    top = max(ranks - 1, 1)
    xs = sorted(((s - 1) / top for s in strengths), reverse=True)
    est = 0.5
    if xs:
        est += 0.5 * (xs[0] - 0.5)
    if len(xs) > 1:
        est += 0.25 * (xs[1] - 0.5)
    for w in won:
        est += 0.25 if w else -0.25
    return min(1.0, max(0.0, est))


def signal_for(obs: Observation) -> Signal | None:
    """The once-a-hand gesture for the seat's best rank, where a partner can see it; None otherwise."""
    if not obs.gestures or len(obs.partners) < 2 or not obs.hand or not obs.legal:
        return None
    if any(s.seat == obs.seat for s in obs.signals):
        return None
    best = max(obs.hand, key=obs.strength)
    for gid, means in obs.meanings:
        if means == best.rank.value and gid in obs.gestures:
            return Signal(obs.seat, gid)
    return None
