"""Trick play: a mixin, since the full trick is settled on the match's own fields in the hot loop of play."""

from __future__ import annotations

from .events import Event
from .hands import Hands
from .tables import TIED
from .transitions import ANSWER, PLAY


class Tricks(Hands):
    """A completed trick: its winner, the resolution table's next node, and the next lead or the hand's end."""

    __slots__ = ()

    # The card itself is played inline in Match.apply, the hot path; only a
    # trick's last card comes here.
    def _end_trick(self, answer_due: bool) -> tuple[Event, ...]:
        t = self._t
        strength = t.strength
        cards = self.tcards
        powers = [strength[c] for c in cards]
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
        # A bid made from last position (only where the rules allow it) is
        # answered by the first player of the next trick.
        self.phase = ANSWER if answer_due else PLAY
        return (ev,)
