"""Deals counted by ranks only: every deal of a pack as rank multisets with the number of card deals each stands for."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator
from math import comb, prod

from ..engine.tables import Tables

RankDeal = tuple[tuple[int, ...], ...]  # each seat's strengths, ascending, seat by seat


def pack_counts(t: Tables) -> dict[int, int]:
    """How many cards of the pack have each strength (suits never count, so each rank is a count)."""
    return dict(sorted(Counter(t.strength[c] for c in t.deck).items()))


def rank_deals(counts: dict[int, int], seats: int, each: int) -> Iterator[tuple[RankDeal, int]]:
    """Every deal of ``each`` cards to each of ``seats`` seats, as strengths, with its number of card deals.

    A seat's hand takes k_r of the c_r cards of rank r left in C(c_r, k_r) ways, so the weights sum
    to the number of card deals: C(N, each) C(N - each, each) ... for a pack of N cards.
    """
    yield from _deal_from(dict(counts), seats, each)


def _deal_from(left: dict[int, int], seats: int, each: int) -> Iterator[tuple[RankDeal, int]]:
    if seats == 0:
        yield (), 1
        return
    for hand in itertools.combinations_with_replacement(sorted(left), each):
        taken = Counter(hand)
        if any(k > left[r] for r, k in taken.items()):
            continue
        ways = prod(comb(left[r], k) for r, k in taken.items())
        rest = {r: c - taken.get(r, 0) for r, c in left.items()}
        for others, w in _deal_from(rest, seats - 1, each):
            yield (hand, *others), ways * w


def card_deals(pack: int, seats: int, each: int) -> int:
    """The number of card deals of ``each`` cards to each of ``seats`` seats from a pack of ``pack`` cards."""
    return prod(comb(pack - i * each, each) for i in range(seats))
