"""The position before an action, as the audit and the desk show it: whose decision, the bid, the legal actions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..engine.match import Match
from ..engine.reasons import Reason
from ..engine.state import TWENTY, TWENTY_TWENTY
from ..engine.tables import Tables, tables_for
from ..engine.transitions import NO_DEAL, OVER, PENDING
from ..rules.model import Ruleset
from .grounds import allowing_clause


@dataclass
class Position:
    """The position before an action: whose decision, the bid in force, and every legal action with its clause."""

    hand: int
    dealer: str
    phase: str
    mode: str
    turn: str | None
    deciding: str | None
    trick: int
    leader: str | None
    played: list[tuple[str, str]]
    value: int | str
    bid: int | str | None
    bidder: str | None
    bidder_side: str | None
    score: dict[str, int]
    legal: list[tuple[dict[str, Any], str | None]]  # (action, clause that allows it)
    may_bid: list[str]
    may_refuse: list[str]
    blind: Reason | None = None  # set when the position depends on a card the record does not know
    down: list[bool] = field(default_factory=list)  # for each card of ``played``, whether it was played face down
    turn_up: str | None = None  # the card turned up for the hand, where the rules turn one up

    def to_json(self) -> dict[str, Any]:
        # A card played face down is shown as face down, not the card (Truco Paulista, clarification 7).
        played = [
            {"seat": s, "card": None, "face_down": True}
            if i < len(self.down) and self.down[i]
            else {"seat": s, "card": c}
            for i, (s, c) in enumerate(self.played)
        ]
        return {
            "hand": self.hand,
            "dealer": self.dealer,
            "phase": self.phase,
            "mode": self.mode,
            "turn": self.turn,
            "deciding_side": self.deciding,
            "trick": self.trick,
            "leader": self.leader,
            "played": played,
            **({"turn_up": self.turn_up} if self.turn_up is not None else {}),
            "value": self.value,
            "bid": self.bid,
            "bidder": self.bidder,
            "bidder_side": self.bidder_side,
            "score": self.score,
            "legal": [{"action": a, "clause": c} for a, c in self.legal],
            "may_bid": self.may_bid,
            "may_refuse": self.may_refuse,
            **({"blind": self.blind.to_json()} if self.blind is not None else {}),
        }


def position_of(rules: Ruleset, m: Match) -> Position:
    t = tables_for(rules)
    legal = [a.to_json() for a in m.legal_actions()]
    may_bid = sorted({a["seat"] for a in legal if a.get("act") == "raise"})
    may_refuse = sorted({a["seat"] for a in legal if a.get("act") == "refuse"})
    bid_token = t.bid_tokens[m.level] if m.phase <= PENDING else None  # the play of the tricks
    bidder_side = None
    if m.latest_bidder is not None:
        bidder_side = t.side_ids[t.side_of[t.seat_index[m.latest_bidder]]]
    return Position(
        hand=m.hand_number,
        dealer=m.dealer,
        phase=m.phase_name,
        mode=m.mode_name,
        turn=m.turn,
        deciding=m.deciding_side,
        trick=m.trick_number,
        leader=m.leader if m.phase <= PENDING else None,
        played=[(s, str(c)) for s, c in m.trick()],
        value=_worth(t, m),
        bid=bid_token,
        bidder=m.latest_bidder,
        bidder_side=bidder_side,
        score=m.score,
        legal=[(a, allowing_clause(rules, m, a)) for a in legal],
        may_bid=may_bid,
        may_refuse=may_refuse,
        down=list(m.face_down()),
        turn_up=str(m.turn_up) if m.turn_up is not None and m.phase not in (OVER, NO_DEAL) else None,
    )


def _worth(t: Tables, m: Match) -> int | str:
    """What the hand is worth now: the bid in force; a hand at the special score played for a fixed worth to whoever
    wins it (Truco Paulista's hand of eleven and 11-11, 3 points) is worth that."""
    if m.mode == TWENTY and t.twenty_win == t.twenty_lose and not t.twenty_win_match:
        return t.twenty_win
    if m.mode == TWENTY_TWENTY and t.tt_win != t.values[0]:
        return t.tt_win
    return m.value


__all__ = ["Position", "position_of"]
