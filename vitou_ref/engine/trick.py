"""Trick play: a mixin, since the full trick is settled on the match's own fields in the hot loop of play."""

from __future__ import annotations

import itertools

from .events import Event
from .hands import Hands
from .state import NO_EVENTS
from .tables import ELDEST, TIED, Tables
from .transitions import ANSWER, AWAIT, PLAY


class Tricks(Hands):
    """A completed trick: its winner, the resolution table's next node, and the next lead or the hand's end."""

    __slots__ = ()

    # The card itself is played inline in Match.apply, the hot path; only a
    # trick's last card comes here (every card, where a hand may stop mid-trick).
    def _end_trick(self, answer_due: bool) -> tuple[Event, ...]:
        t = self._t
        if len(self.tcards) < t.n:  # met only where a hand may stop mid-trick (t.card_check_from)
            return self._card_mid_trick(answer_due)
        power = self._power
        cards = self.tcards
        if self.tdown:  # a card played face down has strength 0: it never wins, and ties another face down
            down = self.tdown
            powers = [0 if down >> i & 1 else power[c] for i, c in enumerate(cards)]
        else:
            powers = [power[c] for c in cards]
        best = max(powers)
        leader = self._leader
        if powers.count(best) == 1:
            win = self.tseats[powers.index(best)]
            result = t.side_of[win]
        else:
            tops = [self.tseats[i] for i, p in enumerate(powers) if p == best]
            side = t.side_of[tops[0]]
            if t.tie_partners_win and all(t.side_of[x] == side for x in tops):
                win, result = tops[0], side
            else:
                win, result = -1, TIED
        node = self._node = t.trie_next[self._node][result]
        ev = t.trick_events[self.trick_number][win]
        decided = t.trie_term[node]
        if decided is not None:
            return (ev,) + self._end_hand_on_tricks(decided[0], decided[1])
        if win >= 0:
            self._leader = win
        elif t.tie_eldest_leads:
            self._leader = t.first_leader[self._dealer]
        else:
            self._leader = leader
        self._turn = self._leader
        self.trick_number += 1
        self.tseats = []
        self.tcards = []
        self.tdown = 0
        # A bid still awaiting its answer (one made from last position, where
        # the rules allow it) is answered by the first seat of the side opposite
        # the bidder to play: the new leader if it is on that side; otherwise the
        # leader plays on and the answer waits (AWAIT).
        if answer_due:
            self.phase = ANSWER if t.side_of[self._leader] != self._bside else AWAIT
        else:
            self.phase = PLAY
        return (ev,)

    # hand_stop: as_soon_as_determined (the mid-trick profile's clause mt.stop and clarification 301).
    def _card_mid_trick(self, answer_due: bool) -> tuple[Event, ...]:
        """A card that leaves its trick unfinished: the turn passes on, then the hand ends if it is determined."""
        t = self._t
        # The turn passes as in Match.apply's quick branch, which this card did not take.
        nxt = self._turn = t.next_seat[self._turn]
        if not answer_due:
            self.phase = PLAY
        else:
            self.phase = ANSWER if t.side_of[nxt] != self._bside else AWAIT
        if t.trie_may_stop[self._node] and not (answer_due and t.stop_waits_answer):
            decided = self._determined()
            if decided is not None:
                # No trick event: the trick never completes. A bid still awaiting its answer
                # stands accepted, and the hand is worth its level.
                return self._end_hand_on_tricks(*decided)
        return NO_EVENTS

    def _determined(self) -> tuple[int, str | None] | None:
        """The hand's result if every way the trick in play can still end decides it alike, else None.

        The seats still to play may play any card they hold; each way the trick
        can end is looked up in the resolution table from the tricks so far.
        The result is a side index (or a negative code for a hand nobody wins)
        and the row that decides it, None when the ways to end disagree on it.
        """
        t = self._t
        strength = self._power  # as _end_trick judges; the face_down rule never meets a hand that stops mid-trick
        to_come: list[int] = []
        s = self._turn
        for _ in range(t.n - len(self.tcards)):
            to_come.append(s)
            s = t.next_seat[s]
        seats = [*self.tseats, *to_come]
        played = [strength[c] for c in self.tcards]
        ranks = [sorted({strength[c] for c in self.hands[x]}) for x in to_come]  # only ranks matter
        children = t.trie_next[self._node]
        eldest = t.side_of[t.first_leader[self._dealer]]
        found: tuple[int, str | None] | None = None
        for rest in itertools.product(*ranks):
            decided = t.trie_term[children[_outcome(t, seats, [*played, *rest])]]
            if decided is None:
                return None  # this way the hand goes on to another trick
            side = eldest if decided[0] == ELDEST else decided[0]
            if found is None:
                found = (side, decided[1])
            elif side != found[0]:
                return None
            elif decided[1] != found[1]:
                found = (side, None)
        return found


def _outcome(t: Tables, seats: list[int], powers: list[int]) -> int:
    """A trick's result (a side index, or TIED) from its seats and card strengths, as _end_trick judges it."""
    best = max(powers)
    if powers.count(best) == 1:
        return t.side_of[seats[powers.index(best)]]
    tops = [seats[i] for i, p in enumerate(powers) if p == best]
    side = t.side_of[tops[0]]
    if t.tie_partners_win and all(t.side_of[x] == side for x in tops):
        return side
    return TIED
