"""The match's fields and how to read them: a base class, so that every stage's mixin shares one slotted layout."""

from __future__ import annotations

from collections.abc import Sequence

from ..rules.cards import Card
from ..rules.model import Ruleset
from .events import Event
from .setup import DealSource
from .tables import Tables
from .transitions import ANSWER, AWAIT, CALL, CARD, DECISION, NO_DEAL, OVER, PENDING, PHASE_NAMES, PLAY

NORMAL, TWENTY, TWENTY_TWENTY = 0, 1, 2
MODE_NAMES = ("normal", "twenty", "twenty_twenty")
NO_EVENTS: tuple[Event, ...] = ()


class MatchState:
    """Every field of a match, and the read-only views of them; the stages of play are mixins over it."""

    # The only class of the hierarchy with slots of its own: the mixins and
    # Match declare none, so a match stays a fixed set of slots, as fast to read
    # as before the split, and clone() copies exactly these.
    __slots__ = (
        "_t",
        "_deals",
        "phase",
        "mode",
        "twenty_side",
        "_dealer",
        "_score",
        "_winner",
        "hands",
        "dealt",
        "hand_number",
        "trick_number",
        "_leader",
        "_turn",
        "tseats",
        "tcards",
        "tdown",
        "_power",
        "_node",
        "level",
        "_bidder",
        "_bside",
        "_resume",
        "_asked",
        "_bids_open",
        "first_dealer",
        "draw_rounds",
    )

    _t: Tables
    _deals: DealSource
    phase: int
    mode: int  # NORMAL, TWENTY or TWENTY_TWENTY
    twenty_side: int  # the side at exactly twenty, -1 if none
    _dealer: int
    _score: list[int]
    _winner: int  # -1 until the match is won
    hands: list[list[int]]  # card ids held, by seat index
    dealt: Sequence[tuple[int, ...]]  # the current hand as dealt
    hand_number: int
    trick_number: int
    _leader: int
    _turn: int
    tseats: list[int]  # the seats that played to the current trick, in order
    tcards: list[int]  # and their cards
    tdown: int  # which of them were played face down, one bit per card in playing order (the face_down rule)
    _power: tuple[int, ...]  # each card's strength in this hand: the pack's, or the turn-up's (the turn_up rule)
    _node: int  # where the hand is in the resolution trie
    level: int  # the bid in force, as a rung of the ladder (0: none)
    _bidder: int
    _bside: int
    _resume: int  # in PENDING, the seat whose turn to play the raises interrupted (it plays once one is accepted)
    _asked: int  # seats that passed at 20-20
    _bids_open: bool
    first_dealer: int
    draw_rounds: list[dict[str, int]]

    @property
    def rules(self) -> Ruleset:
        return self._t.rules

    @property
    def tables(self) -> Tables:
        return self._t

    @property
    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]

    @property
    def mode_name(self) -> str:
        return MODE_NAMES[self.mode]

    @property
    def dealer(self) -> str:
        """The dealer of the current hand, or of the next one once a hand has ended."""
        return self._t.seat_ids[self._dealer]

    @property
    def score(self) -> dict[str, int]:
        return dict(zip(self._t.side_ids, self._score))

    @property
    def winner(self) -> str | None:
        return self._t.side_ids[self._winner] if self._winner >= 0 else None

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def turn(self) -> str | None:
        """The seat due to act: to play, to answer a bid, or to answer the 20-20 question."""
        if self.phase <= PENDING or self.phase == CALL:
            return self._t.seat_ids[self._turn]
        return None

    @property
    def deciding_side(self) -> str | None:
        return self._t.side_ids[self.twenty_side] if self.phase == DECISION else None

    @property
    def leader(self) -> str | None:
        return self._t.seat_ids[self._leader] if self._leader >= 0 else None

    @property
    def value(self) -> int | str:
        """The bid in force in this hand (the ladder's base value when nobody has bid)."""
        tok = self._t.bid_tokens[self.level]
        return self._t.values[0] if tok is None else tok

    @property
    def latest_bidder(self) -> str | None:
        return self._t.seat_ids[self._bidder] if self._bidder >= 0 else None

    def hand(self, seat: str) -> tuple[Card, ...]:
        return tuple(self._t.card(c) for c in self.hands[self._t.seat_index[seat]])

    def trick(self) -> tuple[tuple[str, Card], ...]:
        t = self._t
        return tuple((t.seat_ids[s], t.card(c)) for s, c in zip(self.tseats, self.tcards))

    @property
    def turn_up(self) -> Card | None:
        """The card turned up for the hand in play, where the rules turn one up."""
        up = self._deals.turn_up
        return self._t.card(up) if up >= 0 and self.hand_number else None

    def face_down(self) -> tuple[bool, ...]:
        """For each card of the trick in play, whether it was played face down."""
        return tuple(bool(self.tdown >> i & 1) for i in range(len(self.tcards)))

    def strength_of(self, card: Card) -> int:
        """A card's strength in the hand in play (the turn-up's manilhas above all where the rules turn one up)."""
        return self._power[card.id]

    def deals_used(self) -> int:
        return self._deals.position

    def state_key(self) -> tuple[object, ...]:
        """Every part of the match's state, for comparing two positions."""
        return (
            self.phase,
            self.mode,
            self.twenty_side,
            self._dealer,
            tuple(self._score),
            self._winner,
            tuple(tuple(h) for h in self.hands),
            self.hand_number,
            self.trick_number,
            self._leader,
            self._turn,
            tuple(self.tseats),
            tuple(self.tcards),
            self.tdown,
            self._deals.turn_up,
            self._node,
            self.level,
            self._bidder,
            self._bside,
            self._resume,
            self._asked,
            self._deals.position,
        )

    def describe(self) -> str:
        """The position in a line, for messages."""
        t = self._t
        score = ", ".join(f"{side} {pts}" for side, pts in zip(t.side_ids, self._score))
        if self.phase == OVER:
            return f"the match is over, won by {t.side_ids[self._winner]} (score {score})"
        if self.phase == NO_DEAL:
            return f"hand {self.hand_number + 1} has no deal (score {score})"
        head = f"hand {self.hand_number}, dealer {t.seat_ids[self._dealer]}, score {score}"
        if t.turn_up:
            head += f", turn-up {t.card(self._deals.turn_up)}"
        if self.mode == TWENTY:
            head += f", {t.side_ids[self.twenty_side]} at {t.twenty_at}"
        elif self.mode == TWENTY_TWENTY:
            head += f", {t.twenty_at}-{t.twenty_at}"
        if self.phase == DECISION:
            return f"{head}; {t.side_ids[self.twenty_side]} to decide whether to play"
        if self.phase == CALL:
            return f"{head}; {t.seat_ids[self._turn]} asked to pass or play ({self._asked} passed)"
        down = self.face_down()
        played = (
            " ".join(
                f"{t.seat_ids[s]}:{t.card(c)}{' face down' if d else ''}"
                for s, c, d in zip(self.tseats, self.tcards, down)
            )
            or "none"
        )
        bid = ""
        if self.level:
            bid = f"; bid {t.bid_tokens[self.level]} by {t.seat_ids[self._bidder]} ({t.side_ids[self._bside]})"
        waiting = {
            PLAY: "to play",
            CARD: "to play the card of its bid",
            ANSWER: "to answer the bid",
            AWAIT: "to play; the bid awaits its answer from the other side",
            PENDING: "to answer the raise: accept, raise again or refuse",
        }[self.phase]
        return (
            f"{head}; trick {self.trick_number}, led by {t.seat_ids[self._leader]}, "
            f"cards played {played}{bid}; {t.seat_ids[self._turn]} {waiting}"
        )
