"""A hand's card play under perfect information: who wins it with both sides playing to win, from the tables.

Only the card play is solved: no bids, refusals or twenty decisions (the hand is held at its value),
and every seat sees every card. The value is for side 0: +1 when side 0 wins the hand, -1 when side 1
does, 0 when nobody does. Cards are reduced to their strengths (``Tables.strength``, or the hand's table
after its turn-up, ``Tables.power_after``): a trick compares strengths and seats only, so two cards of one
strength are the same move, and any order-keeping renumbering of the strengths gives the same values. A card
played face down (``face_down``) is strength 0, below every face-up card (their strengths start at 1). A
hand that may stop in the middle of a trick (``stop_mid_trick``) stops only when every way the trick can end
decides it alike, so the stop changes when play ends, never the value: the solver plays every trick to its
end.

The search is a pair of boolean AND/OR searches ("can side 0 get at least 1?", "at least 0?"), each
a minimax with cut-offs, over a transposition table keyed at the start of each trick by the seats'
hands as strength multisets, the leader, the resolution trie's node and the threshold.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.tables import ELDEST, TIED, Tables

Hands = tuple[tuple[int, ...], ...]  # each seat's strengths, ascending
MAX_MEMO = 2_000_000  # entries kept before the table is emptied (the values never depend on it)


class OverBudget(Exception):
    """The search was stopped: it had searched as many positions as its budget allows."""

    def __init__(self, most: int) -> None:
        super().__init__(f"more than {most:,} positions searched")
        self.most = most


class Budget:
    """The positions a search may visit, shared by every solver of one run; OverBudget past ``most``."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.used = 0

    def spend(self, n: int = 1) -> None:
        self.used += n
        if self.used > self.most:
            raise OverBudget(self.most)


@dataclass(frozen=True)
class Position:
    """A moment of a hand's card play: what each seat holds, the trick's leader, the trie node, the trick so far."""

    hands: Hands
    leader: int
    node: int = 0
    played: tuple[int, ...] = ()


class Solver:
    """Perfect-information values of one ruleset's card play, for hands dealt by ``dealer`` (a seat index).

    ``partners_win`` overrides the ruleset's reading of matching highest cards from one side
    (``Tables.tie_partners_win``), to measure what that reading is worth.
    """

    def __init__(
        self,
        t: Tables,
        dealer: int,
        *,
        partners_win: bool | None = None,
        budget: Budget | None = None,
        max_memo: int = MAX_MEMO,
        face_down: bool = False,
    ) -> None:
        self.t = t
        self.budget = budget  # None: no bound (a player's search, whose positions are few)
        self.max_memo = max_memo  # entries each table keeps before it is emptied
        self.n = t.n
        self.side_of = t.side_of
        self.trie_next = t.trie_next
        self.eldest_seat = t.first_leader[dealer]
        eldest_side = t.side_of[self.eldest_seat]
        depth = [0] * len(t.trie_next)  # the tricks completed at each node of the trie
        for i, row in enumerate(t.trie_next):
            for child in row:
                if child >= 0:
                    depth[child] = depth[i] + 1
        self.depth = tuple(depth)
        self.term_value = tuple(None if d is None else _value_of(d[0], eldest_side) for d in t.trie_term)
        # face_down: a card may also be played face down from trick t.face_down_from on. Opt-in: the solver
        # player and the what-if map each move back to a card played face up, which a face-down move is not.
        down_from = t.face_down_from if face_down else 0
        self.down_at = tuple(0 < down_from <= d + 1 for d in depth)  # by trie node: its trick allows face down
        self.down_weakest = t.n == 2 and t.cards_each == t.tricks and self._last_trick_monotone()
        self.partners_win = t.tie_partners_win if partners_win is None else partners_win
        self.eldest_leads = t.tie_eldest_leads
        order = []
        for lead in range(t.n):
            seats = [lead]
            while len(seats) < t.n:
                seats.append(t.next_seat[seats[-1]])
            order.append(tuple(seats))
        self.order = tuple(order)
        self._memo: dict[tuple[Hands, int, int, int], bool] = {}
        # A hand's moves (face down too, or not): each as (move, strength shown in the trick, the hand left).
        self._moves: dict[tuple[tuple[int, ...], bool], tuple[tuple[int, int, tuple[int, ...]], ...]] = {}
        self._inside: dict[tuple[Hands, int, int, int, tuple[int, ...]], bool] = {}  # at_least() inside a trick
        self._keep: dict[tuple[Hands, int, int, tuple[int, ...]], int] = {}  # keeping()'s answers

    def clear(self) -> None:
        """Empty the transposition table (values never depend on it; memory and timings do)."""
        self._memo.clear()
        self._inside.clear()
        self._keep.clear()
        self._moves.clear()

    def position(self, hands: list[list[int]] | Hands, leader: int, power: tuple[int, ...] | None = None) -> Position:
        """The position at a hand's start from each seat's cards (card ids) and the first leader.

        ``power``: each card's strength in this hand (``Tables.power_after[turn-up]``); the pack's by default.
        """
        st = self.t.strength if power is None else power
        return Position(tuple(tuple(sorted(st[c] for c in h)) for h in hands), leader)

    def value(self, pos: Position) -> int:
        """The position's value for side 0: +1, 0 or -1."""
        if self.at_least(pos, 1):
            return 1
        return 0 if self.at_least(pos, 0) else -1

    def at_least(self, pos: Position, thr: int) -> bool:
        """Whether side 0 can make the hand worth at least ``thr`` to it, whatever side 1 plays."""
        if not pos.played:
            return self._trick_start(pos.hands, pos.leader, pos.node, thr)
        # A position inside a trick is asked again and again by a search that plays the same deal many ways.
        key = (pos.hands, pos.leader, pos.node, thr, pos.played)
        found = self._inside.get(key)
        if found is None:
            if len(self._inside) >= self.max_memo:
                self._inside.clear()
            found = self._inside[key] = self._in_trick(pos.hands, pos.leader, pos.node, thr, pos.played)
        return found

    def keeping(self, pos: Position) -> int:
        """The lowest strength the seat to play may play that keeps the position's value for its side."""
        key = (pos.hands, pos.leader, pos.node, pos.played)
        found = self._keep.get(key)
        if found is not None:
            return found
        if len(self._keep) >= self.max_memo:
            self._keep.clear()
        v = self.value(pos)
        maxing = self.side_of[self.to_play(pos)] == 0
        moves = self.moves(pos)
        found = moves[0]
        # A side already at its worst keeps it with any card; else the children are ``v`` or worse for it, so
        # one threshold each tells them apart: at least ``v`` for side 0, at most ``v`` for side 1.
        if v != (-1 if maxing else 1):
            for s in moves:
                child = self.after(pos, s)
                if isinstance(child, int):
                    keeps = child >= v if maxing else child <= v
                else:
                    keeps = self.at_least(child, v) if maxing else not self.at_least(child, v + 1)
                if keeps:
                    found = s
                    break
        self._keep[key] = found
        return found

    def moves(self, pos: Position) -> tuple[int, ...]:
        """The distinct moves of the seat to play in the order lines try them: each strength face up, ascending,
        then each card face down (as minus its strength: ``shown`` gives a move's strength in the trick), the
        weakest first. Face down comes last so that a line plays a card face down only where no card face up
        keeps its value: tried first, two face-down cards would tie tricks that no play needs to tie."""
        found = self._moves_of(pos.hands[self.to_play(pos)], self.down_at[pos.node])
        return tuple(m for m, _, _ in found if m > 0) + tuple(m for m, _, _ in found if m < 0)

    @staticmethod
    def shown(move: int) -> int:
        """A move's strength in the trick: its card's face up, 0 face down."""
        return move if move > 0 else 0

    def to_play(self, pos: Position) -> int:
        return self.order[pos.leader][len(pos.played)]

    def after(self, pos: Position, s: int) -> Position | int:
        """The position after the seat to play makes move ``s`` (moves()), or the hand's value if that decides it."""
        seat = self.to_play(pos)
        shown, rest = next((x, r) for m, x, r in self._moves_of(pos.hands[seat], self.down_at[pos.node]) if m == s)
        hands = pos.hands[:seat] + (rest,) + pos.hands[seat + 1 :]
        played = pos.played + (shown,)
        if len(played) < self.n:
            return Position(hands, pos.leader, pos.node, played)
        result, nl = self._trick(pos.leader, played)
        node = self.trie_next[pos.node][result]
        v = self.term_value[node]
        if v is not None:
            return v
        return Position(hands, nl, node)

    def outcome(self, leader: int, played: tuple[int, ...]) -> int:
        """A full trick's result from its leader and strengths: a side index, or TIED."""
        return self._trick(leader, played)[0]

    def _moves_of(self, hand: tuple[int, ...], down: bool) -> tuple[tuple[int, int, tuple[int, ...]], ...]:
        found = self._moves.get((hand, down))
        if found is None:
            if len(self._moves) >= self.max_memo:
                self._moves.clear()
            up = [(s, s, hand[:i] + hand[i + 1 :]) for i, s in enumerate(hand) if i == 0 or hand[i - 1] != s]
            # Face down, every card shows 0 and only the hand left differs. With two cards, two seats and a
            # last trick that is better won than tied and tied than lost for each side (down_weakest), giving
            # away the weaker card is never worse: the trick and who leads next are the same either way, and
            # in the last trick the stronger card kept has the same two plays (face down: the same trick; face
            # up: the same trick or one better for its side), so it is worth as much at least, whatever the
            # other seat plays. Otherwise every distinct card face down is a move of its own.
            downs = up[:1] if self.down_weakest and len(hand) <= 2 else up
            found = tuple((-s, 0, rest) for s, _, rest in downs) + tuple(up) if down else tuple(up)
            self._moves[hand, down] = found
        return found

    def _last_trick_monotone(self) -> bool:
        """Whether, before every last trick, side 0's value is highest when it wins it, then tied, then lost."""
        last = self.t.tricks - 1
        for node, row in enumerate(self.trie_next):
            if self.depth[node] != last or self.term_value[node] is not None:
                continue
            won, tied, lost = (self.term_value[row[r]] if row[r] >= 0 else None for r in (0, TIED, 1))
            if won is None or tied is None or lost is None or not won >= tied >= lost:
                return False
        return True

    def _trick(self, leader: int, played: tuple[int, ...]) -> tuple[int, int]:
        """The trick's result (a side index or TIED) and the next leader, as the engine's _end_trick settles them."""
        seats = self.order[leader]
        best = max(played)
        if played.count(best) == 1:
            win = seats[played.index(best)]
            return self.side_of[win], win
        tops = [seats[i] for i, p in enumerate(played) if p == best]
        side = self.side_of[tops[0]]
        if self.partners_win and all(self.side_of[x] == side for x in tops):
            return side, tops[0]
        return TIED, (self.eldest_seat if self.eldest_leads else leader)

    def _trick_start(self, hands: Hands, leader: int, node: int, thr: int) -> bool:
        key = (hands, leader, node, thr)
        found = self._memo.get(key)
        if found is None:
            found = self._in_trick(hands, leader, node, thr, ())
            if len(self._memo) >= self.max_memo:  # checked as it grows: one search of a long hand fills it
                self._memo.clear()
            self._memo[key] = found
        return found

    def _in_trick(self, hands: Hands, leader: int, node: int, thr: int, played: tuple[int, ...]) -> bool:
        if self.budget is not None:
            self.budget.spend()
        seat = self.order[leader][len(played)]
        maxing = self.side_of[seat] == 0
        last = len(played) + 1 == self.n
        # Highest first: the card most likely to take the trick settles most lines soonest.
        for _, s, rest in reversed(self._moves_of(hands[seat], self.down_at[node])):
            h2 = hands[:seat] + (rest,) + hands[seat + 1 :]
            p2 = played + (s,)
            if not last:
                ok = self._in_trick(h2, leader, node, thr, p2)
            else:
                result, nl = self._trick(leader, p2)
                node2 = self.trie_next[node][result]
                v = self.term_value[node2]
                ok = v >= thr if v is not None else self._trick_start(h2, nl, node2, thr)
            if ok == maxing:
                return ok
        return not maxing


def _value_of(decided: int, eldest_side: int) -> int:
    """A decided trie node's value for side 0: its winner side, the eldest's side, or nobody (0)."""
    side = eldest_side if decided == ELDEST else decided
    if side == 0:
        return 1
    if side == 1:
        return -1
    return 0  # -1 (every trick tied) or VOID: nobody wins the hand
