"""A hand that stopped inside a trick: when and why, and the answer to a bid the stop cut short."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..engine.events import Event, HandEvent, TrickEvent
from ..engine.reasons import Ref
from ..engine.tables import Tables
from ..rules.model import Ruleset

Say = Callable[..., str]  # Words.say: (section, key, **params) -> text


@dataclass(frozen=True)
class Stop:
    """A card after which the hand ended with its trick unfinished (hand_stop: as_soon_as_determined)."""

    trick: int
    seat: str
    card: str
    winner: str | None  # the side the hand went to, None when nobody won it
    clause: str  # the clause binding hand_stop
    answer_of: str | None = None  # the seat whose answer to the latest bid the stop cut short
    bid: int | str | None = None  # that bid

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"trick": self.trick, "seat": self.seat, "card": self.card, "winner": self.winner}
        out["clause"] = self.clause
        if self.answer_of is not None:
            out["answer_cut_short"] = {"seat": self.answer_of, "bid": self.bid}
        return out


def mid_trick_stop(rules: Ruleset, t: Tables, before: Any, action: Any, events: list[Event]) -> Stop | None:
    """The stop a legal action caused, if it is a card on which the hand ended with no trick completed."""
    if not isinstance(action, dict) or action.get("act") != "play" or "hand_stop" not in rules.bindings:
        return None
    hands = [e for e in events if isinstance(e, HandEvent)]
    if not hands or any(isinstance(e, TrickEvent) for e in events) or hands[0].reason not in ("tricks", "tied"):
        return None
    answer_of = None
    # A bid awaits its answer after the bidder's own card, or after a card of the bidder's side while it waits:
    # the answer belongs to the first seat of the other side to play next (who answers is fixed: bid.answer).
    if before.phase in ("bid_card", "awaiting_answer") and before.bidder_side is not None:
        bidder_side = t.side_ids.index(before.bidder_side)
        s = t.next_seat[t.seat_index[action["seat"]]]
        while t.side_of[s] == bidder_side:
            s = t.next_seat[s]
        answer_of = t.seat_ids[s]
    return Stop(
        before.trick,
        str(action["seat"]),
        str(action["card"]),
        hands[0].winner,
        rules.bindings["hand_stop"],
        answer_of,
        before.bid if answer_of is not None else None,
    )


def stop_lines(say: Say, stop: Stop) -> list[str]:
    """What a ruling on the stopping card says of the stop: when and why, and an answer cut short."""
    if stop.winner is None:
        lines = [say("audit", "stop_inside_nobody", trick=stop.trick, clause=stop.clause)]
    else:
        lines = [say("audit", "stop_inside", trick=stop.trick, side=Ref("side", stop.winner), clause=stop.clause)]
    if stop.answer_of is not None:
        lines.append(say("audit", "stop_cut_short", seat=Ref("seat", stop.answer_of), bid=stop.bid))
    return lines


def after_stop_line(say: Say, at: int, stop: Stop) -> str:
    """What a ruling on a later action of the seat whose answer was cut short says of the stop."""
    return say("audit", "after_stop", seat=Ref("seat", stop.answer_of), n=at, trick=stop.trick, clause=stop.clause)


__all__ = ["Stop", "after_stop_line", "mid_trick_stop", "stop_lines"]
