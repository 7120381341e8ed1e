"""Cards a record leaves unknown ("?"): the stand-ins the engine plays with in their place, chosen once per deal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..engine.setup import TURN_UP
from ..engine.tables import Tables

UNKNOWN = "?"  # a card of a deal, or a card played, that the record does not know


@dataclass(frozen=True)
class Filled:
    """A record's setup with every unknown card stood in for, and which cards of each deal are stand-ins.

    A stand-in is a card of the pack that no seat of its deal is known to hold and, where the pack allows, that
    no action of the record names: the engine needs whole hands, and which card stands in changes no ruling,
    since the replay judges every step that could depend on it across all the cards it could be
    (:mod:`vitou_ref.audit.replay`).
    """

    setup: dict[str, Any]
    standins: tuple[dict[str, tuple[str, ...]], ...]  # per deal: seat -> its stand-in codes

    @property
    def any(self) -> bool:
        return any(self.standins)


def is_unknown_play(action: Any) -> bool:
    return isinstance(action, dict) and action.get("act") == "play" and action.get("card") == UNKNOWN


def named_cards(actions: list[Any]) -> set[str]:
    """The cards the record's plays name: kept out of the stand-ins where the pack leaves others."""
    return {
        a["card"] for a in actions if isinstance(a, dict) and a.get("act") == "play" and isinstance(a.get("card"), str)
    }


def fill(setup: dict[str, Any], t: Tables, named: set[str]) -> Filled:
    """``setup`` with each deal's "?" replaced by a stand-in; anything malformed is left for the engine to refuse."""
    deals = setup.get("deals")
    if not isinstance(deals, list) or not any(_has_unknown(d) for d in deals):
        return Filled(setup, tuple({} for _ in deals) if isinstance(deals, list) else ())
    pack = [t.card(c).text for c in reversed(t.deck)]  # the weakest-numbered last: any order would do
    out_deals: list[Any] = []
    standins: list[dict[str, tuple[str, ...]]] = []
    for deal in deals:
        if not _has_unknown(deal):
            out_deals.append(deal)
            standins.append({})
            continue
        known = {c for cards in deal.values() if isinstance(cards, list) for c in cards if isinstance(c, str)}
        up = deal.get(TURN_UP)
        if isinstance(up, str):  # the card turned up is no seat's: never a stand-in
            known.add(up)
        pool = [c for c in pack if c not in known and c not in named] + [
            c for c in pack if c not in known and c in named
        ]
        filled: dict[Any, Any] = {}
        stood: dict[str, tuple[str, ...]] = {}
        for seat, cards in deal.items():
            if not isinstance(cards, list):
                filled[seat] = cards
                continue
            # A deal with more cards than the pack leaves a "?" as it is: the engine says the card is unreadable.
            hand = [pool.pop(0) if c == UNKNOWN and pool else c for c in cards]
            filled[seat] = hand
            mine = tuple(h for h, c in zip(hand, cards) if c == UNKNOWN and h != UNKNOWN)
            if mine and isinstance(seat, str):
                stood[seat] = mine
        out_deals.append(filled)
        standins.append(stood)
    return Filled({**setup, "deals": out_deals}, tuple(standins))


def _has_unknown(deal: Any) -> bool:
    return isinstance(deal, dict) and any(isinstance(cs, list) and UNKNOWN in cs for cs in deal.values())


__all__ = ["UNKNOWN", "Filled", "fill", "is_unknown_play", "named_cards"]
