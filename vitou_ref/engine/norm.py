"""An action's fields resolved against a ruleset, as every check reads them."""

from __future__ import annotations

from ..rules.cards import Card
from .actions import Action
from .reasons import Ref
from .state import MatchState
from .tables import Tables


class Norm:
    """An action's fields resolved against the ruleset (None where unknown or absent)."""

    __slots__ = ("act", "seat", "side", "card", "level", "signal", "has_seat", "has_side", "down")

    def __init__(self, t: Tables, a: Action) -> None:
        self.act = a.act
        seat = getattr(a, "seat", None)
        side = getattr(a, "side", None)
        self.has_seat = seat is not None
        self.has_side = side is not None
        self.seat = t.seat_index.get(seat) if seat is not None else None
        self.side = t.side_index.get(side) if side is not None else None
        card = getattr(a, "card", None)
        self.card = card.id if isinstance(card, Card) and t.strength[card.id] >= 0 else None
        to = getattr(a, "to", None)
        self.level = t.bid_level.get(to) if to is not None and not isinstance(to, bool) else None
        self.signal = getattr(a, "signal", None)
        self.down = getattr(a, "down", False)


def seat_ref(m: MatchState, s: int | None) -> Ref:
    return Ref("seat", m._t.seat_ids[s if s is not None else 0])
