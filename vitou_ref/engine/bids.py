"""Bids and their answers: a mixin, since raising and refusing move the match's own fields along the ladder."""

from __future__ import annotations

from .events import Event
from .hands import Hands
from .state import NO_EVENTS
from .transitions import ANSWER, CARD


class Bids(Hands):
    """Who may bid the next rung of the ladder, a bid made, and a bid refused (which ends the hand)."""

    __slots__ = ()

    def _may_bid(self, s: int) -> bool:
        # Whether seat s, in turn in PLAY or ANSWER, may bid the next level now.
        # Match.legal_actions inlines this test: keep the two in step.
        t = self._t
        level = self.level
        if level == t.top:
            return False
        if not t.last_bids and len(self.tcards) == t.n - 1:
            return False
        if level == 0:
            return t.opening_tricks is None or self.trick_number in t.opening_tricks
        if not t.raise_any_side and t.side_of[s] == self._bside:
            return False
        return t.later_raise or self.phase == ANSWER

    def _do_raise(self, s: int, level: int) -> tuple[Event, ...]:
        self.level = level
        self._bidder = s
        self._bside = self._t.side_of[s]
        self.phase = CARD
        return NO_EVENTS

    def _do_refuse(self, s: int) -> tuple[Event, ...]:
        t = self._t
        pts = t.refused[self.level]
        assert pts is not None
        side = t.side_of[s] if t.refusal_pays_refusers else self._bside
        return self._finish(side, pts, pts, "refusal", False, None, t.bid_tokens[self.level], t.side_ids[self._bside])
