"""What one seat may see of a match: its own cards and the hand's public history, never another seat's hidden cards."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from ..rules.cards import Card
from .actions import Action, Bid, DeclineHand, Play, PlayHand, Raise, Signal
from .events import Event, HandEvent, TrickEvent
from .match import Match
from .state import TWENTY
from .tables import Tables
from .transitions import CALL, DECISION, NO_DEAL, OVER

# What the rules text lets each seat see (rules text §03, §04, §06, clarifications 8, 10, 24):
# - its own cards, once they are dealt to it. At 20-20 the cards are dealt one seat at a time as the
#   question goes round (§04 "Deal 3 to the player on the left ... After a pass, deal to the next
#   player"): a seat not yet asked holds no card it could look at.
# - its partners' cards while its side is at exactly twenty: "that side may privately show its cards
#   to each other" (§04, clause twenty.decision). Privately: the opponents see none of them.
# - every card played, by whom and in which trick, and every trick's winner: cards are played face up.
#   Where the rules let a card be played face down (Truco Paulista §3, "A face-down card is never shown to
#   the other player"; clarification 7), the other seats see that a card was played face down and by whom,
#   never which card: the player who played it knows it, as it knows its own hand.
# - the card turned up for the hand, where the rules turn one up (Truco Paulista §1, "The turn-up is public").
# - every bid, raise, refusal, side decision, 20-20 pass or play, and every signal, by whom. They are
#   said or made at the table; the text makes only the consultation at twenty private, so a gesture is
#   seen by every seat, opponents included (§06 allows the gestures as open table conventions; the
#   2-player profile forbids them because a gesture "can only address the opponent").
# Nothing else: not another seat's unplayed cards, nor the cards left out of the deal.


class Mode(enum.Enum):
    """The kind of hand in play; the value is the written form the events use."""

    NORMAL = "normal"
    TWENTY = "twenty"
    TWENTY_TWENTY = "twenty_twenty"


_MODES = (Mode.NORMAL, Mode.TWENTY, Mode.TWENTY_TWENTY)


@dataclass(frozen=True, slots=True)
class FaceDown:
    """A card another seat played face down (the face_down rule), as the observer saw it: who, never which card."""

    seat: str
    act: ClassVar[str] = "play"
    down: ClassVar[bool] = True

    def __str__(self) -> str:
        return f"{self.seat} plays a card face down"


@dataclass(frozen=True, slots=True)
class Seen:
    """One public act of the hand: the trick it was made in (0 before the first card) and the action.

    A card another seat played face down is a :class:`FaceDown`, which names no card.
    """

    trick: int
    action: Action | FaceDown


class RecordedMatch(Match):
    """A Match that keeps the public history of the hand in play, which :func:`observe` reads.

    The engine keeps only the state it needs to go on (the trick in play, the bid in force);
    what was played and said earlier in the hand is recorded here, as each action is applied.
    """

    __slots__ = ("_acts", "_tricks")

    _acts: list[Seen]
    _tricks: list[str | None]

    def _start_hand(self) -> None:  # at the match's start and after every hand: a new hand's history is empty
        self._acts = []
        self._tricks = []
        super()._start_hand()

    def apply(self, action: Action) -> tuple[Event, ...]:
        trick = self.trick_number
        events = Match.apply(self, action)  # raises, and records nothing, when the action is illegal
        self._record(trick, action, events)
        return events

    def _record(self, trick: int, action: Action, events: tuple[Event, ...]) -> None:
        if any(type(e) is HandEvent for e in events):
            # The action ended its hand: the history is the next hand's (empty), or none once the match is over.
            self._acts = []
            self._tricks = []
            return
        self._acts.append(Seen(trick, action))
        for e in events:
            if type(e) is TrickEvent:
                self._tricks.append(e.winner)

    def clone(self) -> RecordedMatch:
        other = super().clone()
        other._acts = list(self._acts)
        other._tricks = list(self._tricks)
        return other

    @property
    def history(self) -> tuple[Seen, ...]:
        """The public acts of the hand in play, in order (signals included)."""
        return tuple(self._acts)


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything one seat may know at one moment of a match, and nothing more.

    The table and the rules (seats, sides, ladder, rank order, target) are public and carried here,
    so that a player needs nothing else; ``tables`` is the compiled ruleset, which holds no state of
    the match. ``legal`` is what this seat, or its side, may do now (signals aside: ``gestures``).
    """

    seat: str
    side: str
    hand: tuple[Card, ...]  # own cards, unplayed (empty for a seat not yet dealt at 20-20)
    shown: tuple[tuple[str, tuple[Card, ...]], ...]  # partners' unplayed cards, shown at twenty
    acts: tuple[Seen, ...]  # the hand's public history: plays, bids, refusals, decisions, calls, signals
    trick_winners: tuple[str | None, ...]  # the completed tricks of the hand (None: tied)
    trick: tuple[tuple[str, Card | None], ...]  # the trick in play; None: a card another seat played face down
    trick_down: tuple[bool, ...]  # for each card of the trick in play, whether it was played face down
    turn_up: Card | None  # the card turned up for the hand, where the rules turn one up
    trick_number: int  # 0 before the first card can be played
    leader: str | None
    turn: str | None  # the seat due to act (play, answer, 20-20 question), None otherwise
    deciding_side: str | None  # the side at twenty while it decides
    held: tuple[tuple[str, int], ...]  # how many cards each seat holds, as the table sees them
    score: tuple[tuple[str, int], ...]
    mode: Mode
    phase: str
    dealer: str
    hand_number: int
    level: int  # the rung of the ladder in force (0: no bid)
    bid: Bid | None  # its bid, None with no bid
    value: int | str  # what the hand is worth now
    bidder: str | None  # the latest bidder
    legal: tuple[Action, ...]
    gestures: tuple[str, ...]  # the signals this seat may make now
    meanings: tuple[tuple[str, str], ...]  # every gesture of the rules and what it conventionally means
    seats: tuple[str, ...]  # the table, in its listed (clockwise) order
    sides: tuple[tuple[str, tuple[str, ...]], ...]
    ladder: tuple[tuple[Bid | None, int | str], ...]  # (bid, value) by rung; rung 0 is the hand without a bid
    ranks: tuple[str, ...]  # the rank order, highest first
    target: int
    twenty_at: int
    cards_each: int
    over: bool
    tables: Tables = field(compare=False, repr=False)

    @property
    def partners(self) -> tuple[str, ...]:
        return next(seats for side, seats in self.sides if side == self.side)

    @property
    def must_act(self) -> bool:
        """Whether the game waits for this seat: its turn, or its side's decision (taken by the side's first seat)."""
        if self.turn is not None:
            return self.turn == self.seat
        return self.deciding_side == self.side and self.partners[0] == self.seat

    def strength(self, card: Card) -> int:
        """The card's strength in this hand: higher beats lower, equal ties (the turn-up's manilhas above all, where
        the rules turn one up)."""
        t = self.tables
        return t.power_after[self.turn_up.id][card.id] if self.turn_up is not None else t.strength[card.id]

    @property
    def trick_powers(self) -> tuple[int, ...]:
        """What each card of the trick in play counts for: its strength, or 0 when it was played face down."""
        return tuple(0 if down or c is None else self.strength(c) for (_, c), down in zip(self.trick, self.trick_down))

    @property
    def played(self) -> tuple[tuple[int, str, Card], ...]:
        """The cards played in the hand that this seat has seen, as (trick, seat, card): every card but those another
        seat played face down."""
        return tuple((s.trick, s.action.seat, s.action.card) for s in self.acts if type(s.action) is Play)

    @property
    def bids(self) -> tuple[Raise, ...]:
        return tuple(s.action for s in self.acts if type(s.action) is Raise)

    @property
    def signals(self) -> tuple[Signal, ...]:
        return tuple(s.action for s in self.acts if type(s.action) is Signal)


def observe(match: Match, seat: str) -> Observation:
    """What ``seat`` may see of ``match`` now; the match must be a :class:`RecordedMatch` (it keeps the history)."""
    if not isinstance(match, RecordedMatch):
        raise TypeError("observe needs a RecordedMatch, which keeps the hand's public history; play through it")
    t = match.tables
    s = t.seat_index.get(seat)
    if s is None:
        raise ValueError(f"{seat!r} is not a seat of {t.name} (seats: {' '.join(t.seat_ids)})")
    side = t.side_of[s]
    live = match.phase not in (OVER, NO_DEAL)
    down = match.face_down()
    dealt = _dealt_seats(match) if live else frozenset()
    shown: tuple[tuple[str, tuple[Card, ...]], ...] = ()
    if live and match.mode == TWENTY and match.twenty_side == side:
        shown = tuple((t.seat_ids[x], _cards(t, match.hands[x])) for x in range(t.n) if x != s and t.side_of[x] == side)
    return Observation(
        seat=seat,
        side=t.side_ids[side],
        hand=_cards(t, match.hands[s]) if s in dealt else (),
        shown=shown,
        acts=tuple(_seen_by(s, t, x) for x in match._acts),
        trick_winners=tuple(match._tricks),
        trick=tuple((x, None if d and x != seat else c) for (x, c), d in zip(match.trick(), down)),
        trick_down=down,
        turn_up=match.turn_up if live else None,
        trick_number=match.trick_number,
        leader=match.leader if live and match.phase < DECISION else None,
        turn=match.turn,
        deciding_side=match.deciding_side,
        held=tuple((t.seat_ids[x], len(match.hands[x]) if x in dealt else 0) for x in range(t.n)),
        score=tuple(zip(t.side_ids, match._score)),
        mode=_MODES[match.mode],
        phase=match.phase_name,
        dealer=match.dealer,
        hand_number=match.hand_number,
        level=match.level,
        bid=t.bid_tokens[match.level],
        value=match.value,
        bidder=match.latest_bidder if match.level else None,
        legal=_legal(match, seat, t.side_ids[side]),
        gestures=_gestures(match, seat) if live else (),
        meanings=tuple((g.id, g.means) for g in t.rules.params.gestures),
        seats=t.seat_ids,
        sides=tuple((sd.id, sd.seats) for sd in t.rules.params.sides),
        ladder=tuple(zip(t.bid_tokens, t.values)),
        ranks=tuple(r.value for r in t.rules.params.rank_order),
        target=t.target,
        twenty_at=t.twenty_at,
        cards_each=t.cards_each,
        over=match.is_over,
        tables=t,
    )


def _seen_by(s: int, t: Tables, seen: Seen) -> Seen:
    """An act as seat ``s`` saw it: a card another seat played face down is that seat's face-down card, no more."""
    a = seen.action
    if type(a) is Play and a.down and t.seat_index[a.seat] != s:
        return Seen(seen.trick, FaceDown(a.seat))
    return seen


def _cards(t: Tables, ids: Iterable[int]) -> tuple[Card, ...]:
    return tuple(t.card(c) for c in ids)


def _dealt_seats(match: Match) -> frozenset[int]:
    # At the 20-20 question the cards go out one seat at a time: the seats asked so far hold theirs.
    t = match.tables
    if match.phase != CALL:
        return frozenset(range(t.n))
    s = t.tt_first[match._dealer]
    out = set()
    for _ in range(match._asked + 1):
        out.add(s)
        s = t.next_seat[s]
    return frozenset(out)


def _legal(match: Match, seat: str, side: str) -> tuple[Action, ...]:
    out: list[Action] = []
    for a in match.legal_actions():
        if isinstance(a, (PlayHand, DeclineHand)):
            if a.side == side:
                out.append(a)
        elif a.seat == seat:
            out.append(a)
    return tuple(out)


def _gestures(match: Match, seat: str) -> tuple[str, ...]:
    gestures = [g.id for g in match.rules.params.gestures]
    # Whether a gesture is allowed does not depend on which one it is (the checks judge the moment).
    if gestures and match.can(Signal(seat, gestures[0])):
        return tuple(gestures)
    return ()


def asking_order(match: Match, legal: Sequence[Action] | None = None) -> tuple[str, ...]:
    """The seats that may act now, in the order a table of players is asked; the last one must act.

    The game waits for one seat (the mover): the seat in turn, or the first seat of the side that
    decides at twenty. Others may act out of turn where the rules let them (a bid à la volée, a
    refusal by any opponent); they are asked first, in the order of play from the mover's next
    seat, so that each has its chance before the mover's move closes the moment. Empty once the
    match is over or out of deals. ``legal``, when given, is ``match.legal_actions()`` already computed.
    """
    if legal is None:
        legal = match.legal_actions()
    if not legal:
        return ()
    t = match.tables
    if match.phase == DECISION:
        mover = t.seat_index[t.rules.params.sides[match.twenty_side].seats[0]]
    else:
        mover = t.seat_index[match.turn or ""]
    acting = {t.seat_index[a.seat] for a in legal if not isinstance(a, (PlayHand, DeclineHand))}
    out = []
    s = t.next_seat[mover]
    while s != mover:
        if s in acting:
            out.append(t.seat_ids[s])
        s = t.next_seat[s]
    out.append(t.seat_ids[mover])
    return tuple(out)
