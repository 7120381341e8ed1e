"""Bids and their answers: a mixin, since raising and refusing move the match's own fields along the ladder."""

from __future__ import annotations

from .actions import Action
from .events import Event
from .hands import Hands
from .state import NO_EVENTS
from .transitions import ANSWER, AWAIT, CARD, PENDING, PLAY


class Bids(Hands):
    """Who may bid the next rung of the ladder, a bid made, and a bid refused (which ends the hand)."""

    __slots__ = ()

    def _may_bid(self, s: int) -> bool:
        # Whether seat s may bid the next level now, in PLAY or ANSWER with bids
        # open. The callers ask only of a seat whose timing is right: the seat in
        # turn, or (bid_timing any_seat) any seat in PLAY; the checks judge the rest.
        # Match.legal_actions inlines this test for the seat in turn: keep the two in step.
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

    def _add_bids_out_of_turn(self, turn: int, acts: list[Action]) -> None:
        # The bids of the seats not in turn, where any seat may bid (any_seat), in PLAY.
        t = self._t
        if not self._bids_open:
            return
        for x in range(t.n):
            if x != turn and self._may_bid(x):
                if t.jumps:
                    acts.extend(t.raise_actions[x][self.level + 1 :])  # type: ignore[arg-type]
                else:
                    acts.append(t.raise_actions[x][self.level + 1])  # type: ignore[arg-type]

    def _do_raise(self, s: int, level: int) -> tuple[Event, ...]:
        # A bid by the seat in turn: made before its card, which it now owes; or, where a raise is
        # answered before any card, one that its next opponent must answer now.
        t = self._t
        self.level = level
        self._bidder = s
        self._bside = t.side_of[s]
        if t.answer_first:
            self._resume = s
            self._turn = self._next_opponent(s)
            self.phase = PENDING
        else:
            self.phase = CARD
        return NO_EVENTS

    def _next_opponent(self, s: int) -> int:
        # The seat that answers a raise made before any card: the raiser's next opponent in the order of play.
        t = self._t
        x = t.next_seat[s]
        while t.side_of[x] == t.side_of[s]:
            x = t.next_seat[x]
        return x

    def _do_raise_again(self, s: int, level: int) -> tuple[Event, ...]:
        # A raise given as the answer, before any card: the waiting level becomes the stake (it is the
        # level a fold would pay below), and the next one waits for the first raiser's answer.
        first = self._bidder
        self.level = level
        self._bidder = s
        self._bside = self._t.side_of[s]
        self._turn = first
        return NO_EVENTS

    def _do_accept(self) -> tuple[Event, ...]:
        # The waiting level is the stake now, and the seat whose turn the raises interrupted plays.
        self._turn = self._resume
        self._resume = -1
        self.phase = PLAY
        return NO_EVENTS

    def _do_bid_out_of_turn(self, s: int, level: int) -> tuple[Event, ...]:
        # A bid by a seat not in turn (bid_timing any_seat): it owes no card, and the
        # answer belongs to the first seat of the other side to play from now on.
        t = self._t
        self.level = level
        self._bidder = s
        side = self._bside = t.side_of[s]
        self.phase = ANSWER if t.side_of[self._turn] != side else AWAIT
        return NO_EVENTS

    def _do_refuse(self, s: int) -> tuple[Event, ...]:
        t = self._t
        pts = t.refused[self.level]
        assert pts is not None
        side = t.side_of[s] if t.refusal_pays_refusers else self._bside
        return self._finish(side, pts, pts, "refusal", False, None, t.bid_tokens[self.level], t.side_ids[self._bside])
