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


def turn_up_packs(t: Tables) -> list[tuple[dict[int, int], int]]:
    """Each distinct pack a turn-up leaves, with how many turn-up cards leave it.

    A pack left is the strength counts of the other cards by the turn-up's table (``Tables.power_after``),
    its strengths renumbered 1, 2, ... in their order: values compare strengths only, so two turn-ups whose
    packs left count alike in that order have the same deals and the same values (the four turn-ups of a rank
    do, since every suit of the rank takes one card from the same strength; the packs are compared, not the
    suits assumed alike).
    """
    found: dict[tuple[int, ...], int] = {}
    for up in t.deck:
        power = t.power_after[up]
        counts = Counter(power[c] for c in t.deck if c != up)
        shape = tuple(counts[s] for s in sorted(counts))  # the count of each strength, weakest first
        found[shape] = found.get(shape, 0) + 1
    return [({i + 1: k for i, k in enumerate(shape)}, ups) for shape, ups in found.items()]


def every_deal(t: Tables, seats: int, each: int) -> Iterator[tuple[RankDeal, int]]:
    """Every deal as strengths, with its number of card deals: the hands, and the turn-up where there is one.

    With a turn-up, a deal stands for the card deals of every turn-up card that leaves a pack with that deal
    (strengths renumbered in order, turn_up_packs()): so a deal is solved once, and the weights sum to
    card_deals(N, seats, each, turn_up=True) for a pack of N cards. Without one, rank_deals().
    """
    if not t.turn_up:
        yield from rank_deals(pack_counts(t), seats, each)
        return
    weights: dict[RankDeal, int] = {}
    for counts, ups in turn_up_packs(t):
        for deal, w in rank_deals(counts, seats, each):
            weights[deal] = weights.get(deal, 0) + ups * w
    yield from sorted(weights.items())  # rank_deals()' order, where neighbouring deals share the most positions


def card_deals(pack: int, seats: int, each: int, turn_up: bool = False) -> int:
    """The number of card deals of ``each`` cards to each of ``seats`` seats from a pack of ``pack`` cards, each
    with the card turned up after the hands (any of the ``pack - seats * each`` left) where ``turn_up``."""
    hands = prod(comb(pack - i * each, each) for i in range(seats))
    return hands * (pack - seats * each) if turn_up else hands
