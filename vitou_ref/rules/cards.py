"""Cards of the French 52-card pack: ranks and suits as enums whose values are the written form."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Rank(enum.Enum):
    """A rank of the French pack, the card alphabet of protocol v1; its value is the written form.

    A ruleset's pack is any of these ranks in any order (its deck and rank_order clauses). The
    members' order only numbers the cards: Vitou's eight come first, as they always did, so that
    their card ids, and the deals a seed makes, are the same as before the pack was data.
    """

    TEN = "10"
    NINE = "9"
    ACE = "A"
    KING = "K"
    QUEEN = "Q"
    JACK = "J"
    EIGHT = "8"
    SEVEN = "7"
    SIX = "6"
    FIVE = "5"
    FOUR = "4"
    THREE = "3"
    TWO = "2"


class Suit(enum.Enum):
    """A suit of the card alphabet; its value is the written letter."""

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"


_RANKS = tuple(Rank)
_SUITS = tuple(Suit)
_RANK_POS = {r: i for i, r in enumerate(_RANKS)}
_SUIT_POS = {s: i for i, s in enumerate(_SUITS)}


@dataclass(frozen=True, slots=True)
class Card:
    """A card, written rank then suit: ``Card.parse("10S")``."""

    rank: Rank
    suit: Suit
    # A dense number for table lookups; identical cards always share it.
    id: int = field(init=False, compare=False, repr=False)
    text: str = field(init=False, compare=False, repr=False)  # the written form, made once

    def __post_init__(self) -> None:
        object.__setattr__(self, "id", _RANK_POS[self.rank] * len(_SUITS) + _SUIT_POS[self.suit])
        object.__setattr__(self, "text", self.rank.value + self.suit.value)

    def __str__(self) -> str:
        return self.text

    @staticmethod
    def parse(text: str) -> Card:
        """The card written as ``text``; raises ValueError when it is not one."""
        card = _BY_TEXT.get(text) if isinstance(text, str) else None
        if card is None:
            raise ValueError(f"{text!r} is not a card: expected a rank (2 to 10, J Q K A) then a suit (S H D C)")
        return card


ALL_CARDS: tuple[Card, ...] = tuple(Card(r, s) for r in _RANKS for s in _SUITS)
_BY_TEXT = {str(c): c for c in ALL_CARDS}
assert all(c.id == i for i, c in enumerate(ALL_CARDS))
