"""What happens in a match, as frozen records: trick, hand and match events."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class TrickEvent:
    """A trick is complete; ``winner`` is the seat that won it, None if tied."""

    trick: int
    winner: str | None

    def to_json(self) -> dict[str, Any]:
        return {"event": "trick", "trick": self.trick, "winner": self.winner}


@dataclass(frozen=True, slots=True)
class HandEvent:
    """A hand is over. ``points`` is what the winners scored, or the bid name for a match-winning bid."""

    winner: str | None
    points: int | str
    reason: str  # tricks | refusal | decline | tied | void | passed (void: protocol 1.1)
    score: tuple[tuple[str, int], ...]
    # Not part of the protocol: how the result came about, for coverage and rulings.
    row: str | None = field(default=None, compare=False)
    level: int | str | None = field(default=None, compare=False)  # the bid in force (None: no bid)
    bidder: str | None = field(default=None, compare=False)  # the side of the latest bid
    mode: str | None = field(default=None, compare=False)  # normal, twenty or twenty_twenty

    def to_json(self) -> dict[str, Any]:
        return {
            "event": "hand",
            "winner": self.winner,
            "points": self.points,
            "reason": self.reason,
            "score": dict(self.score),
        }


@dataclass(frozen=True, slots=True)
class MatchEvent:
    """The match is won."""

    winner: str

    def to_json(self) -> dict[str, Any]:
        return {"event": "match", "winner": self.winner}


Event = TrickEvent | HandEvent | MatchEvent


_new = object.__new__
_hand_setters = tuple(
    HandEvent.__dict__[f].__set__ for f in ("winner", "points", "reason", "score", "row", "level", "bidder", "mode")
)


def hand_event(
    winner: str | None,
    points: int | str,
    reason: str,
    score: tuple[tuple[str, int], ...],
    row: str | None,
    level: int | str | None,
    bidder: str | None,
    mode: str,
) -> HandEvent:
    """A HandEvent built without the dataclass __init__, which costs three times as much; the engine makes one per hand."""
    ev = _new(HandEvent)
    s_winner, s_points, s_reason, s_score, s_row, s_level, s_bidder, s_mode = _hand_setters
    s_winner(ev, winner)
    s_points(ev, points)
    s_reason(ev, reason)
    s_score(ev, score)
    s_row(ev, row)
    s_level(ev, level)
    s_bidder(ev, bidder)
    s_mode(ev, mode)
    return ev
