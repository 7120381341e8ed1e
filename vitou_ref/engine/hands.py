"""A hand from its deal to its score: a mixin, since tricks, bids and the twenty questions all end a hand here."""

from __future__ import annotations

from .events import Event, MatchEvent, hand_event
from .state import MODE_NAMES, NO_EVENTS, NORMAL, TWENTY, TWENTY_TWENTY, MatchState
from .tables import ELDEST, VOID
from .transitions import CALL, DECISION, NO_DEAL, OVER, PENDING, PLAY


class Hands(MatchState):
    """Dealing a hand and opening it (play, the twenty decision or the 20-20 question), and scoring its end."""

    __slots__ = ()

    def _start_hand(self) -> None:
        t = self._t
        deal = self._deals.next(self._dealer)
        if deal is not None:
            self.dealt = deal
            self.hands = [list(h) for h in deal]
            self.hand_number += 1
            if t.turn_up:
                self._power = t.power_after[self._deals.turn_up]
            at = t.twenty_at
            sc = self._score
            if sc[0] != at and sc[1] != at:  # the usual hand, first
                self._bids_open = True
                self.mode = NORMAL
                self.twenty_side = -1
                self._begin_play(t.first_leader[self._dealer])
                return
        # A hand that starts with a decision or a question, or no hand at all.
        self.level = 0
        self._bidder = -1
        self._bside = -1
        self._resume = -1
        self._leader = -1
        self.trick_number = 0
        self._node = 0
        self.tseats = []
        self.tcards = []
        self.tdown = 0
        if deal is None:
            self.phase = NO_DEAL
            self._turn = -1
            self.hands = [[] for _ in range(t.n)]
            return
        a, b = self._score[0] == at, self._score[1] == at
        if a and b and t.tt:
            self._bids_open = not t.tt_bids_closed
            self.mode = TWENTY_TWENTY
            self.twenty_side = -1
            self._asked = 0
            if t.tt_question:
                self._turn = t.tt_first[self._dealer]
                self.phase = CALL
            else:  # no question (twenty_twenty's question: none): the hand is played at once, led as any hand
                self._begin_play(t.first_leader[self._dealer])
        elif a != b and t.twenty:
            self._bids_open = not t.twenty_bids_closed
            self.mode = TWENTY
            self.twenty_side = 0 if a else 1
            self._turn = -1
            self.phase = DECISION
        else:
            self._bids_open = True
            self.mode = NORMAL
            self.twenty_side = -1
            self._begin_play(t.first_leader[self._dealer])

    def _begin_play(self, leader: int) -> None:
        self.tseats = []
        self.tcards = []
        self.tdown = 0
        self.trick_number = 1
        self._node = 0
        self.level = 0
        self._bidder = -1
        self._bside = -1
        self._resume = -1
        self._leader = leader
        self._turn = leader
        self.phase = PLAY

    def _do_decide(self, play: bool) -> tuple[Event, ...]:
        t = self._t
        if play:
            self._begin_play(t.first_leader[self._dealer])
            return NO_EVENTS
        opp = 1 - self.twenty_side
        return self._finish(opp, t.twenty_decline, t.twenty_decline, "decline", False, None, None, None)

    def _do_call(self, play: bool) -> tuple[Event, ...]:
        t = self._t
        if play:
            caller = self._turn
            # tt.play's own leader: next to the dealer whoever leads an ordinary hand (first_lead may name the dealer).
            self._begin_play(caller if t.tt_leader_is_caller else t.next_seat[self._dealer])
            return NO_EVENTS
        self._asked += 1
        if self._asked == t.n:
            return self._finish(-1, 0, 0, "passed", False, None, None, None)
        self._turn = t.next_seat[self._turn]
        return NO_EVENTS

    def _do_concede(self, s: int) -> tuple[Event, ...]:
        # The other side scores what the position gives: at a decision, what declining gives; while a raise waits
        # on the conceding seat, the fold's points; otherwise what winning the hand would give it now.
        t = self._t
        if self.phase == DECISION:
            opp = 1 - self.twenty_side
            return self._finish(opp, t.twenty_decline, t.twenty_decline, "conceded", False, None, None, None)
        if self.phase == PENDING:
            pts = t.refused[self.level]
            assert pts is not None
            tok = t.bid_tokens[self.level]
            return self._finish(self._bside, pts, pts, "conceded", False, None, tok, t.side_ids[self._bside])
        return self._end_hand_on_tricks(1 - t.side_of[s], None, "conceded")

    def _end_hand_on_tricks(self, side: int, row: str | None, reason: str = "tricks") -> tuple[Event, ...]:
        # row: the resolution row that decided the hand; None for a hand stopped mid-trick (no row matched) or
        # conceded (reason: conceded, the points those tricks would have given the other side).
        t = self._t
        if side == ELDEST:
            side = t.side_of[t.first_leader[self._dealer]]
        tok = t.bid_tokens[self.level]
        bside = t.side_ids[self._bside] if self._bside >= 0 else None
        if side < 0:  # nobody wins: every trick tied, or a row with no winner (protocol 1.1: "void")
            return self._finish(-1, 0, 0, "void" if side == VOID else "tied", False, row, tok, bside)
        if self.mode == NORMAL:
            if t.value_is_match[self.level]:
                return self._finish(side, tok, 0, reason, True, row, tok, bside)  # type: ignore[arg-type]
            pts = t.values[self.level]
            return self._finish(side, pts, pts, reason, False, row, tok, bside)  # type: ignore[arg-type]
        if self.mode == TWENTY:
            if side == self.twenty_side:
                return self._finish(side, t.twenty_win, t.twenty_win, reason, t.twenty_win_match, row, None, None)
            return self._finish(side, t.twenty_lose, t.twenty_lose, reason, False, row, None, None)
        return self._finish(side, t.tt_win, t.tt_win, reason, True, row, None, None)

    def _finish(
        self,
        side: int,
        points: int | str,
        gained: int,
        reason: str,
        takes_match: bool,
        row: str | None,
        level: int | str | None,
        bidder: str | None,
    ) -> tuple[Event, ...]:
        t = self._t
        if side >= 0:
            self._score[side] += gained
            if t.scores_stop and self._score[side] > t.target:  # points beyond the target are not counted
                self._score[side] = t.target
        sides = t.side_ids
        sc = self._score
        score = ((sides[0], sc[0]), (sides[1], sc[1]))  # always two sides (checked at load)
        hand = hand_event(
            t.side_ids[side] if side >= 0 else None, points, reason, score, row, level, bidder, MODE_NAMES[self.mode]
        )
        rotate = True
        if self.mode == TWENTY_TWENTY:
            if reason == "passed":
                rotate = t.tt_all_pass_rotates
            elif reason == "tied":
                rotate = t.tt_all_tied_rotates
        if rotate:
            self._dealer = t.dealer_after[self._dealer]
        if side >= 0 and (takes_match or self._score[side] >= t.target):
            self._winner = side
            self.phase = OVER
            self._turn = -1
            self.tseats = []
            self.tcards = []
            return (hand, MatchEvent(t.side_ids[side]))
        self._start_hand()
        return (hand,)
