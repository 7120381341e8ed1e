"""The decisions of a match as frozen records, and their protocol form."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

from ..rules.cards import Card
from ..rules.plurals import counted

Bid = int | str


@dataclass(frozen=True, slots=True)
class Play:
    """A seat plays a card (accepting any bid it is answering), face up unless ``down`` (the face_down rule)."""

    seat: str
    card: Card
    down: bool = False
    act: ClassVar[str] = "play"

    def to_json(self) -> dict[str, Any]:
        if self.down:
            return {"seat": self.seat, "act": "play", "card": self.card.text, "face_down": True}
        return {"seat": self.seat, "act": "play", "card": self.card.text}

    def __str__(self) -> str:
        return f"{self.seat} plays {self.card}{' face down' if self.down else ''}"


@dataclass(frozen=True, slots=True)
class Raise:
    """A seat bids, before its card: opens at the first level or raises one level."""

    seat: str
    to: Bid
    act: ClassVar[str] = "raise"

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "act": "raise", "to": self.to}

    def __str__(self) -> str:
        return f"{self.seat} bids {self.to}"


@dataclass(frozen=True, slots=True)
class Accept:
    """The player a raise waits on accepts it, before any card (where bid_answer accepts explicitly)."""

    seat: str
    act: ClassVar[str] = "accept"

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "act": "accept"}

    def __str__(self) -> str:
        return f"{self.seat} accepts"


@dataclass(frozen=True, slots=True)
class Refuse:
    """The immediate follower of a bid refuses it and concedes the hand (in Le Truc: folds)."""

    seat: str
    act: ClassVar[str] = "refuse"

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "act": "refuse"}

    def __str__(self) -> str:
        return f"{self.seat} refuses"


@dataclass(frozen=True, slots=True)
class PlayHand:
    """The side at exactly 20 decides to play the hand."""

    side: str
    act: ClassVar[str] = "decide_play"

    def to_json(self) -> dict[str, Any]:
        return {"side": self.side, "act": "play_hand"}

    def __str__(self) -> str:
        return f"{self.side} play the hand"


@dataclass(frozen=True, slots=True)
class DeclineHand:
    """The side at exactly 20 declines the hand."""

    side: str
    act: ClassVar[str] = "decide_decline"

    def to_json(self) -> dict[str, Any]:
        return {"side": self.side, "act": "decline_hand"}

    def __str__(self) -> str:
        return f"{self.side} decline the hand"


@dataclass(frozen=True, slots=True)
class Pass:
    """At 20-20, the seat asked passes."""

    seat: str
    act: ClassVar[str] = "call_pass"

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "act": "pass"}

    def __str__(self) -> str:
        return f"{self.seat} passes"


@dataclass(frozen=True, slots=True)
class CallPlay:
    """At 20-20, the seat asked says play."""

    seat: str
    act: ClassVar[str] = "call_play"

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "act": "play_hand"}

    def __str__(self) -> str:
        return f"{self.seat} says play"


@dataclass(frozen=True, slots=True)
class Signal:
    """A seat makes one of the conventional gestures."""

    seat: str
    signal: str
    act: ClassVar[str] = "signal"

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "act": "signal", "signal": self.signal}

    def __str__(self) -> str:
        return f"{self.seat} signals {self.signal}"


@dataclass(frozen=True, slots=True)
class Concede:
    """The seat due to act gives up the hand (the concede rule): the other side scores what the position gives."""

    seat: str
    act: ClassVar[str] = "concede"

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "act": "concede"}

    def __str__(self) -> str:
        return f"{self.seat} concedes the hand"


Action = Play | Raise | Accept | Refuse | PlayHand | DeclineHand | Pass | CallPlay | Signal | Concede


class Malformed(Exception):
    """An action's JSON cannot be read; ``code`` is the structural error code."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


_SEAT_ACTS: dict[str, tuple[str, ...]] = {
    "play": ("card",),
    "raise": ("to",),
    "accept": (),
    "refuse": (),
    "pass": (),
    "play_hand": (),
    "signal": ("signal",),
    "concede": (),
}
# Fields an act may take besides those it needs: a card played face down says so (only where the rules allow it).
_OPTIONAL: dict[str, tuple[str, ...]] = {"play": ("face_down",)}
_SIDE_ACTS: dict[str, tuple[str, ...]] = {"play_hand": (), "decline_hand": ()}


def action_from_json(obj: Any) -> Action:
    """Read an action of protocol v1; raise Malformed with ACTION_MALFORMED or CARD_MALFORMED.

    Whether the seat, side, bid or gesture exists is for the match to say: it
    depends on the ruleset.
    """
    if not isinstance(obj, dict):
        raise Malformed("ACTION_MALFORMED", f"an action is a JSON object, not {type(obj).__name__}")
    act = obj.get("act")
    if not isinstance(act, str):
        raise Malformed("ACTION_MALFORMED", "the action has no 'act' string")
    if "side" in obj and "seat" not in obj:
        fields = _SIDE_ACTS.get(act)
        if fields is None:
            raise Malformed(
                "ACTION_MALFORMED", f"no act {act!r} is made by a side (side acts: play_hand, decline_hand)"
            )
        side = obj["side"]
        if not isinstance(side, str):
            raise Malformed("ACTION_MALFORMED", "'side' must be a string")
        _no_extra(obj, {"side", "act"})
        return PlayHand(side) if act == "play_hand" else DeclineHand(side)
    fields = _SEAT_ACTS.get(act)
    if fields is None:
        raise Malformed(
            "ACTION_MALFORMED",
            f"unknown act {act!r} (acts: play, raise, accept, refuse, pass, play_hand, decline_hand, signal, concede)",
        )
    if "seat" not in obj:
        raise Malformed("ACTION_MALFORMED", f"the {act!r} action names no seat")
    seat = obj["seat"]
    if not isinstance(seat, str):
        raise Malformed("ACTION_MALFORMED", "'seat' must be a string")
    _no_extra(obj, {"seat", "act", *fields, *_OPTIONAL.get(act, ())})
    for f in fields:
        if f not in obj:
            raise Malformed("ACTION_MALFORMED", f"the {act!r} action needs '{f}'")
    if act == "play":
        # One spelling per play: a card face up has no face_down field, one face down has face_down: true.
        down = "face_down" in obj
        if down and obj["face_down"] is not True:
            given = json.dumps(obj["face_down"], ensure_ascii=False)[:40]  # as the action wrote it, cut short
            raise Malformed(
                "ACTION_MALFORMED", f"'face_down' must be true, or left out for a card played face up, not {given}"
            )
        try:
            return Play(seat, Card.parse(obj["card"]), down)
        except ValueError as exc:
            raise Malformed("CARD_MALFORMED", str(exc)) from None
    if act == "raise":
        to = obj["to"]
        if isinstance(to, bool) or not isinstance(to, (int, str)):
            raise Malformed("ACTION_MALFORMED", "'to' must be a bid level: a number or a name such as \"baraque\"")
        return Raise(seat, to)
    if act == "accept":  # whether this game has the act is for the match to say (Checks._check)
        return Accept(seat)
    if act == "refuse":
        return Refuse(seat)
    if act == "pass":
        return Pass(seat)
    if act == "concede":  # whether this game has the act is for the match to say (Checks._check)
        return Concede(seat)
    if act == "play_hand":
        return CallPlay(seat)
    sig = obj["signal"]
    if not isinstance(sig, str):
        raise Malformed("ACTION_MALFORMED", "'signal' must be a string")
    return Signal(seat, sig)


def _no_extra(obj: dict[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(obj) - allowed)
    if extra:
        fields = counted(len(extra), "unexpected field", "unexpected fields")
        raise Malformed("ACTION_MALFORMED", f"{fields}: {', '.join(map(repr, extra))}")
