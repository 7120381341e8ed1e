"""How a match starts: the first dealer (given or drawn), the score, and where deals come from."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..rules.cards import Card
from ..rules.errors import SetupError
from .tables import Tables

TURN_UP = "turn_up"  # the key of a deal that names its turn-up card, where the rules turn one up


def card_id(t: Tables, value: Any, path: str) -> int:
    if isinstance(value, Card):
        card = value
    else:
        try:
            card = Card.parse(value)
        except ValueError as exc:
            raise SetupError(str(exc), path) from None
    if t.strength[card.id] < 0:
        raise SetupError(f"{card} is not a card of the {t.name} pack", path)
    return card.id


def read_deal(t: Tables, deal: Any, path: str) -> list[list[int]]:
    """One deal, seat -> cards, as card ids per seat index; every problem is a SetupError."""
    if not isinstance(deal, Mapping):
        raise SetupError("a deal maps each seat to its cards", path)
    for seat in deal:
        if seat == TURN_UP and t.turn_up:
            continue
        if seat not in t.seat_index:
            raise SetupError(f"{seat!r} is not a seat of {t.name} (seats: {' '.join(t.seat_ids)})", f"{path}/{seat}")
    hands: list[list[int]] = []
    seen: dict[int, str] = {}
    for seat in t.seat_ids:
        cards = deal.get(seat)
        where = f"{path}/{seat}"
        if cards is None:
            raise SetupError(f"the deal gives no cards to {seat}", where)
        if isinstance(cards, (str, bytes)) or not isinstance(cards, Sequence):
            raise SetupError("a hand is a list of cards", where)
        if len(cards) != t.cards_each:
            raise SetupError(f"{seat} is dealt {len(cards)} cards; a hand is {t.cards_each}", where)
        hand = []
        for k, value in enumerate(cards):
            cid = card_id(t, value, f"{where}/{k}")
            if cid in seen:
                raise SetupError(f"{t.card(cid)} is dealt twice (also to {seen[cid]})", f"{where}/{k}")
            seen[cid] = seat
            hand.append(cid)
        hands.append(hand)
    if t.turn_up:
        # The turn-up rides with the hands it belongs to, one list after the seats' (DealSource.next splits it).
        where = f"{path}/{TURN_UP}"
        if TURN_UP not in deal:
            raise SetupError(f"the deal turns up no card ({TURN_UP!r}: the card turned up for the hand)", where)
        cid = card_id(t, deal[TURN_UP], where)
        if cid in seen:
            raise SetupError(f"{t.card(cid)} is dealt twice (also to {seen[cid]})", where)
        hands.append([cid])
    return hands


def read_score(t: Tables, score: Any, path: str = "score") -> list[int]:
    if score is None:
        return [0] * len(t.side_ids)
    if not isinstance(score, Mapping):
        raise SetupError("the score maps each side to its points", path)
    out = []
    for side in score:
        if side not in t.side_index:
            raise SetupError(f"{side!r} is not a side of {t.name} (sides: {' '.join(t.side_ids)})", f"{path}/{side}")
    for side in t.side_ids:
        pts = score.get(side, 0)
        if isinstance(pts, bool) or not isinstance(pts, int) or pts < 0:
            raise SetupError("a score is a whole number of points, 0 or more", f"{path}/{side}")
        if pts >= t.target:
            raise SetupError(
                f"{side} already has {pts}, the target is {t.target}: the match would be over", f"{path}/{side}"
            )
        out.append(pts)
    return out


def draw_key(t: Tables, cid: int) -> int:
    """Smaller keys deal: by the rank order, lowest or highest per the rules."""
    s = t.strength[cid]
    return s if t.draw_lowest else -s


def settle_draw(t: Tables, rounds: Any, path: str = "draw") -> int:
    """The dealer a sequence of draw rounds gives; SetupError if the rounds are not a proper draw."""
    if isinstance(rounds, (str, bytes)) or not isinstance(rounds, Sequence) or not rounds:
        raise SetupError("a draw is a list of rounds, each mapping seats to the card drawn", path)
    drawing = list(t.seat_ids)
    for r, rnd in enumerate(rounds):
        where = f"{path}/{r}"
        if not drawing:
            raise SetupError("the dealer was already settled; this round is one too many", where)
        if not isinstance(rnd, Mapping):
            raise SetupError("a round maps each drawing seat to its card", where)
        if sorted(rnd) != sorted(drawing):
            raise SetupError(
                f"this round must hold exactly the seats {' '.join(drawing)}, not {' '.join(map(str, rnd)) or 'none'}",
                where,
            )
        keys: dict[str, int] = {}
        seen: set[int] = set()
        for seat in drawing:
            cid = card_id(t, rnd[seat], f"{where}/{seat}")
            if cid in seen:
                raise SetupError(
                    f"{t.card(cid)} is drawn twice in one round (each round is drawn from one pack)", f"{where}/{seat}"
                )
            seen.add(cid)
            keys[seat] = draw_key(t, cid)
        low = min(keys.values())
        tied = [s for s in drawing if keys[s] == low]
        if len(tied) == 1:
            drawing = []
            dealer = t.seat_index[tied[0]]
        else:
            drawing = list(t.seat_ids) if t.redraw_all else tied
    if drawing:
        raise SetupError(f"the draw ends with {' '.join(drawing)} still tied; another round is needed", path)
    return dealer


def random_draw(t: Tables, rng: random.Random) -> tuple[int, list[dict[str, int]]]:
    """Draw for dealer with ``rng``: the dealer and the rounds drawn (card ids)."""
    drawing = list(range(t.n))
    rounds: list[dict[str, int]] = []
    while True:
        cards = shuffled(t.deck, len(drawing), rng)
        rounds.append({t.seat_ids[s]: c for s, c in zip(drawing, cards)})
        keys = [draw_key(t, c) for c in cards]
        low = min(keys)
        tied = [s for s, k in zip(drawing, keys) if k == low]
        if len(tied) == 1:
            return tied[0], rounds
        drawing = list(range(t.n)) if t.redraw_all else tied


def shuffled(deck: Sequence[int], count: int, rng: random.Random) -> list[int]:
    """``count`` cards drawn from ``deck`` in random order (a partial Fisher-Yates shuffle)."""
    cards = list(deck)
    size = len(cards)
    rnd = rng.random
    for i in range(count):
        j = i + int(rnd() * (size - i))
        cards[i], cards[j] = cards[j], cards[i]
    return cards[:count]


class DealSource:
    """Where each hand's cards come from: a list given in advance, or a seeded shuffle."""

    __slots__ = ("_t", "_given", "_pos", "_rng", "turn_up")

    def __init__(self, t: Tables, given: list[tuple[tuple[int, ...], ...]] | None, rng: random.Random | None) -> None:
        self._t = t
        self._given = given
        self._pos = 0
        self._rng = rng
        self.turn_up = -1  # the card turned up for the last hand dealt; -1 where the rules turn up none

    def next(self, dealer: int) -> Sequence[tuple[int, ...]] | None:
        self._pos += 1
        t = self._t
        if self._given is not None:
            if self._pos > len(self._given):
                return None
            deal = self._given[self._pos - 1]
            if t.turn_up:
                self.turn_up = deal[t.n][0]
                return deal[: t.n]
            return deal
        assert self._rng is not None
        k = t.cards_each
        # The turn-up is drawn after the hands, so that a game without one shuffles exactly as it always has.
        cards = shuffled(t.deck, k * t.n + t.turn_up, self._rng)
        hands: list[tuple[int, ...]] = [()] * t.n
        seat = t.deal_after[dealer]
        for i in range(t.n):  # one packet each, starting next to the dealer
            hands[seat] = tuple(cards[i * k : (i + 1) * k])
            seat = t.deal_after[seat]
        if t.turn_up:
            self.turn_up = cards[k * t.n]
        return hands

    @property
    def position(self) -> int:
        return self._pos

    def clone(self) -> DealSource:
        other = DealSource(self._t, self._given, None)
        other._pos = self._pos
        other.turn_up = self.turn_up
        if self._rng is not None:
            other._rng = random.Random()
            other._rng.setstate(self._rng.getstate())
        return other


def read_deals(t: Tables, deals: Iterable[Any] | None, path: str = "deals") -> list[tuple[tuple[int, ...], ...]]:
    if deals is None:
        return []
    if isinstance(deals, (str, bytes, Mapping)) or not isinstance(deals, Iterable):
        raise SetupError("deals is a list of deals, one per hand", path)
    return [tuple(tuple(h) for h in read_deal(t, d, f"{path}/{i}")) for i, d in enumerate(deals)]
