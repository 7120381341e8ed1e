"""What the table's signals say about the cards a seat has not seen, read by the players' own convention.

Every player of this kit signals by one convention (:func:`.heuristic.signal_for`): once a hand,
at the first moment it is asked and may signal, a seat with a partner makes the gesture whose
meaning is the rank of its best unplayed card, if a gesture means that rank, and no gesture
otherwise. So each public act says something of the hand the seat held when it made it:

- a signal whose meaning is a rank: the seat's best card then was of that rank;
- any other act by a seat with a partner that had not signalled yet this hand, at a moment when
  the rules allowed signals: its best card then had a rank no gesture means. The searching player
  reads that silence only from a seat it has seen signal earlier in the match.

A seat holds at a moment its unseen cards and the cards it played after that moment, which are
seen; so each reading is a condition on the unseen cards: the best of them and of those later
cards has a strength among a known set. The rules say a gesture need not be true (clause
signals.gestures); these readings assume the table keeps to the convention, which every kind here
does. A seat of another convention makes them wrong, never illegal: the worlds stay consistent
with the public history, which the sampler still checks by replaying it.
"""

from __future__ import annotations

import random
from collections.abc import Container, Sequence
from dataclasses import dataclass

from ..engine.actions import Play, Signal
from ..engine.observation import Mode, Observation

TRIES = 40  # draws of one seat's unseen cards before the whole deal is drawn again


@dataclass(frozen=True, slots=True)
class Reading:
    """The best strength of a seat's unseen cards and of ``later`` (cards it played afterwards) is in ``best``."""

    later: tuple[int, ...]
    best: frozenset[int]

    def holds(self, strengths: Sequence[int]) -> bool:
        return max((*strengths, *self.later), default=0) in self.best


def readings(obs: Observation, signallers: Container[str] | None = None) -> dict[str, list[Reading]]:
    """What the hand's public acts say, by the convention, of each other seat's cards; empty where nothing.

    With ``signallers``, only their silences are read: a seat seen to signal earlier in the match
    keeps to a convention, where a seat that never signals (the random player) says nothing by
    its silence. A signal is read whoever makes it.
    """
    t = obs.tables
    strengths = frozenset(s for s in t.strength if s > 0)
    meant: dict[str, int] = {}
    by_rank = {r: len(obs.ranks) - i for i, r in enumerate(obs.ranks)}
    for gid, means in obs.meanings:
        if means in by_rank:
            meant[gid] = by_rank[means]
    if not meant or len(obs.partners) < 2:
        return {}
    # A 20-20 hand may forbid signals, and then silence says nothing; the moment never changes within a hand.
    allowed = t.signals_allowed and not (obs.mode is Mode.TWENTY_TWENTY and t.tt_signals_forbidden)
    unmeant = strengths - frozenset(meant.values())
    played: dict[str, list[int]] = {s: [] for s in obs.seats}  # each seat's cards, in the order it played them
    for s in obs.acts:
        if type(s.action) is Play:
            played[s.action.seat].append(t.strength[s.action.card.id])
    out: dict[str, list[Reading]] = {}
    count: dict[str, int] = {s: 0 for s in obs.seats}  # cards each seat had played at the act
    done: set[str] = {obs.seat}  # the seat's own cards are seen: nothing to read
    for s in obs.acts:
        a = s.action
        seat = getattr(a, "seat", None)
        if seat is None or seat in done:
            continue
        later = tuple(played[seat][count[seat] :])
        if type(a) is Signal:
            done.add(seat)
            if a.signal in meant:
                out.setdefault(seat, []).append(Reading(later, frozenset({meant[a.signal]})))
        elif allowed and (signallers is None or seat in signallers):
            done.add(seat)  # a silent seat's later silences say no more than its first one
            out.setdefault(seat, []).append(Reading(later, unmeant))
        if type(a) is Play:
            count[seat] += 1
    return out


def deal_unseen(
    unseen: list[int],
    hidden: Sequence[tuple[str, int]],
    reads: dict[str, list[Reading]],
    strength: Sequence[int],
    rng: random.Random,
) -> dict[str, list[int]] | None:
    """The unseen cards dealt to the ``hidden`` seats (seat, count), each seat's readings holding; None if not found.

    The seats with readings draw first, each from what is left, again until its readings hold
    (at most :data:`TRIES` times); the others share the rest at random. Each seat's draw is uniform
    given the draws before it, so the deal is close to, not exactly, uniform over the deals where
    every reading holds.
    """
    pool = list(unseen)
    out: dict[str, list[int]] = {}
    order = sorted(hidden, key=lambda sn: sn[0] not in reads)  # the read seats first, stably
    for seat, n in order:
        conds = reads.get(seat)
        if not conds:
            rng.shuffle(pool)
            out[seat], pool = pool[:n], pool[n:]
            continue
        for _ in range(TRIES):
            cards = rng.sample(pool, n)
            got = [strength[c] for c in cards]
            if all(r.holds(got) for r in conds):
                break
        else:
            return None
        out[seat] = cards
        taken = set(cards)
        pool = [c for c in pool if c not in taken]
    return out
