"""A match under a ruleset: the legal actions, and actions applied or refused with their rule."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from ..rules.cards import Card
from ..rules.errors import IllegalAction
from ..rules.model import Ruleset
from .actions import (
    Accept,
    Action,
    CallPlay,
    Concede,
    DeclineHand,
    Pass,
    Play,
    PlayHand,
    Raise,
    Refuse,
    Signal,
)
from .bids import Bids
from .checks import CHECKED_CODES, Checks
from .events import Event
from .reasons import Reason
from .setup import DealSource, random_draw, read_deals, read_score, settle_draw
from .state import NO_EVENTS, NORMAL, MatchState
from .tables import Tables, tables_for
from .transitions import ANSWER, AWAIT, CALL, DECISION, PENDING, PLAY
from .trick import Tricks

# CHECKED_CODES belongs to the checks table; it stays importable from here, where callers found it.
__all__ = ["CHECKED_CODES", "Match", "Transition"]


_M = TypeVar("_M", bound="Match")


@dataclass(frozen=True, slots=True)
class Transition:
    """What one applied action did: the action and the events that followed it."""

    action: Action
    events: tuple[Event, ...]


# One class assembled from mixins, one per stage of the game (the fields in
# state.py, a hand's deal and scoring in hands.py, tricks in trick.py, bids in
# bids.py, refusals in checks.py): a method found through the mixins costs what
# it did when all lived in this class, which the hot loop of play needs.
class Match(Tricks, Bids, Checks):
    """One match of Vitou, from the first deal to the end.

    Build it with an explicit first dealer (or draw) and explicit deals, or
    with :meth:`random` from a seed. ``legal_actions()`` lists the legal
    decisions of the next step (signals aside); ``apply(action)`` makes one and
    returns the events, or raises an :class:`IllegalAction` carrying the error
    code and clause and leaves the match unchanged. For each kind of decision
    there is also a triple ``verify_x`` (raises), ``can_x`` (answers) and ``x``
    (acts and returns a frozen :class:`Transition`).
    """

    __slots__ = ()  # the fields are MatchState's; without this line every match would also carry a __dict__

    def __init__(
        self,
        rules: Ruleset | Tables,
        *,
        dealer: str | None = None,
        draw: Sequence[Mapping[str, Card | str]] | None = None,
        deals: Iterable[Mapping[str, Sequence[Card | str]]] | None = None,
        score: Mapping[str, int] | None = None,
        seed: int | None = None,
        rng: random.Random | None = None,
    ) -> None:
        t = self._t = rules if isinstance(rules, Tables) else tables_for(rules)
        if rng is None and seed is not None:
            rng = random.Random(seed)
        self.draw_rounds = []
        if dealer is not None and draw is not None:
            from ..rules.errors import SetupError

            raise SetupError("give either a dealer or a draw, not both", "dealer")
        if dealer is not None:
            d = t.seat_index.get(dealer)
            if d is None:
                from ..rules.errors import SetupError

                raise SetupError(f"{dealer!r} is not a seat of {t.name} (seats: {' '.join(t.seat_ids)})", "dealer")
        elif draw is not None:
            d = settle_draw(t, draw)
        elif rng is not None:
            d, self.draw_rounds = random_draw(t, rng)
        else:
            from ..rules.errors import SetupError

            raise SetupError("a match needs a first dealer: give a dealer, a draw or a seed", "dealer")
        given = read_deals(t, deals) if deals is not None else None
        if given is None and rng is None:
            from ..rules.errors import SetupError

            raise SetupError("a match needs deals: give them, or a seed to shuffle with", "deals")
        self._score = read_score(t, score)
        self._deals = DealSource(t, given, rng if given is None else None)
        self.first_dealer = d
        self._dealer = d
        self._winner = -1
        self.mode = NORMAL
        self.twenty_side = -1
        self.hands = [[] for _ in range(t.n)]
        self.dealt = ()
        self.hand_number = 0
        self.trick_number = 0
        self._leader = -1
        self._turn = -1
        self.tseats = []
        self.tcards = []
        self.tdown = 0
        self._power = t.strength
        self._node = 0
        self.level = 0
        self._bidder = -1
        self._bside = -1
        self._resume = -1
        self._asked = 0
        self._bids_open = True
        self.phase = PLAY
        self._start_hand()

    @classmethod
    def random(
        cls, rules: Ruleset | Tables, seed: int | random.Random, *, score: Mapping[str, int] | None = None
    ) -> Match:
        """A match whose draw and deals come from ``seed`` (or a Random): the same seed, the same match."""
        if isinstance(seed, random.Random):
            return cls(rules, rng=seed, score=score)
        return cls(rules, seed=seed, score=score)

    def clone(self: _M) -> _M:
        other = type(self).__new__(type(self))  # a subclass (the recording match) clones as itself
        for name in MatchState.__slots__:
            setattr(other, name, getattr(self, name))
        other.hands = [list(h) for h in self.hands]
        other.tseats = list(self.tseats)
        other.tcards = list(self.tcards)
        other._score = list(self._score)
        other._deals = self._deals.clone()
        return other

    # ------------------------------------------------------------ legal actions

    def legal_actions(self) -> list[Action]:
        """Every legal decision of the next step, signals aside; empty once over or out of deals."""
        ph = self.phase
        t = self._t
        if ph <= AWAIT:
            s = self._turn
            row = t.play_actions[s]
            acts: list[Action] = [row[c] for c in self.hands[s]]  # type: ignore[misc]
            if t.face_down_from and self.trick_number >= t.face_down_from:  # each card face down too
                down = t.down_actions[s]
                acts.extend(down[c] for c in self.hands[s])  # type: ignore[misc]
            if t.concede and ph == PLAY:
                acts.append(t.concede_actions[s])
            if ph <= ANSWER:
                # _may_bid for the seat in turn, inlined: this runs at every step of every hand.
                level = self.level
                if (
                    self._bids_open
                    and level < t.top
                    and (t.last_bids or len(self.tcards) < t.n - 1)
                    and (
                        (t.opening_tricks is None or self.trick_number in t.opening_tricks)
                        if level == 0
                        else ((t.raise_any_side or t.side_of[s] != self._bside) and (t.later_raise or ph == ANSWER))
                    )
                ):
                    if t.jumps:
                        acts.extend(t.raise_actions[s][level + 1 :])  # type: ignore[arg-type]
                    else:
                        acts.append(t.raise_actions[s][level + 1])  # type: ignore[arg-type]
                if ph:  # ANSWER (PLAY is 0): the seat in turn answers a bid
                    if t.refusal_any_opponent:
                        acts.extend(t.refuse_actions[x] for x in range(t.n) if t.side_of[x] != self._bside)
                    else:
                        acts.append(t.refuse_actions[s])
                elif t.bids_any_seat:
                    self._add_bids_out_of_turn(s, acts)
            return acts
        if ph == PENDING:
            # The raise waits for its answer from the seat in turn: accept, refuse, or raise again.
            s = self._turn
            out: list[Action] = [t.accept_actions[s], t.refuse_actions[s]]
            if t.concede:
                out.append(t.concede_actions[s])
            if self.level < t.top:
                if t.jumps:
                    out.extend(t.raise_actions[s][self.level + 1 :])  # type: ignore[arg-type]
                else:
                    out.append(t.raise_actions[s][self.level + 1])  # type: ignore[arg-type]
            return out
        if ph == DECISION:
            if t.concede:  # a seat of the deciding side may concede: the hand is declined
                side = self.twenty_side
                return [*t.decide_actions[side], *(t.concede_actions[x] for x in range(t.n) if t.side_of[x] == side)]
            return list(t.decide_actions[self.twenty_side])
        if ph == CALL:
            return [t.pass_actions[self._turn], t.call_actions[self._turn]]
        return []

    # ------------------------------------------------------------------ acting

    def apply(self, action: Action) -> tuple[Event, ...]:
        """Make ``action``; return the events it caused, or raise IllegalAction and change nothing."""
        t = self._t
        kind = type(action)
        ph = self.phase
        if kind is Play:
            if ph <= AWAIT:
                s = self._turn
                hand = self.hands[s]
                c = action.card.id  # type: ignore[union-attr]
                down = action.down  # type: ignore[union-attr]
                if (
                    action.seat == t.seat_ids[s]  # type: ignore[union-attr]
                    and c in hand
                    and (not down or 0 < t.face_down_from <= self.trick_number)
                ):
                    # The card is played here rather than in a method: this is the hot
                    # path, and only a trick's last card needs more (_end_trick); where a
                    # hand may stop mid-trick, every card does (t.card_check_from is 1).
                    hand.remove(c)
                    tcards = self.tcards
                    if down:
                        self.tdown |= 1 << len(tcards)
                    tcards.append(c)
                    self.tseats.append(s)
                    if len(tcards) < t.card_check_from:
                        if ph <= ANSWER:  # no bid was awaiting an answer, or this card accepted it
                            self._turn = t.next_seat[s]
                            if ph:  # ANSWER (PLAY is 0): the answering seat's card accepts the bid
                                self.phase = PLAY
                        else:  # the answer belongs to the first seat of the other side to play
                            nxt = self._turn = t.next_seat[s]
                            self.phase = ANSWER if t.side_of[nxt] != self._bside else AWAIT
                        return NO_EVENTS
                    return self._end_trick(ph > ANSWER)
        elif kind is Raise:
            s = self._turn
            if ph == PENDING:
                if self._check(action) is None:  # the answering seat raises again
                    return self._do_raise_again(s, t.bid_level[action.to])  # type: ignore[union-attr]
            elif ph <= ANSWER and self._bids_open and self.level < t.top:
                bid = t.raise_actions[s][self.level + 1]
                if (action is bid or action == bid) and self._may_bid(s):
                    return self._do_raise(s, self.level + 1)
                if (t.jumps or t.bids_any_seat) and self._check(action) is None:
                    # a jump, or a bid by a seat not in turn (any_seat)
                    bidder = t.seat_index[action.seat]  # type: ignore[union-attr]
                    to = t.bid_level[action.to]  # type: ignore[union-attr]
                    return self._do_raise(s, to) if bidder == s else self._do_bid_out_of_turn(bidder, to)
        elif kind is Accept:
            if ph == PENDING and action.seat == t.seat_ids[self._turn]:  # type: ignore[union-attr]
                return self._do_accept()
        elif kind is Refuse:
            if ph == PENDING:
                if action.seat == t.seat_ids[self._turn]:  # type: ignore[union-attr]
                    return self._do_refuse(self._turn)  # a fold: the raiser scores the stake before its raise
            elif ph == ANSWER:
                if not t.refusal_any_opponent:
                    refusal = t.refuse_actions[self._turn]
                    if action is refusal or action == refusal:
                        return self._do_refuse(self._turn)
                elif self._check(action) is None:
                    return self._do_refuse(t.seat_index[action.seat])  # type: ignore[union-attr]
        elif kind is PlayHand or kind is DeclineHand:
            side = t.side_index.get(action.side)  # type: ignore[union-attr]
            if ph == DECISION and side == self.twenty_side:
                return self._do_decide(kind is PlayHand)
        elif kind is Pass or kind is CallPlay:
            caller = t.seat_index.get(action.seat)  # type: ignore[union-attr]
            if ph == CALL and caller == self._turn:
                return self._do_call(kind is CallPlay)
        elif kind is Signal and self._check(action) is None:
            return NO_EVENTS
        elif kind is Concede and self._check(action) is None:
            return self._do_concede(t.seat_index[action.seat])  # type: ignore[union-attr]
        raise self._illegal(action)

    def verify(self, action: Action) -> None:
        """Raise the IllegalAction ``action`` would meet; return None if it is legal."""
        found = self._check(action)
        if found is not None:
            raise self._error(action, *found)

    def can(self, action: Action) -> bool:
        return self._check(action) is None

    def step(self, action: Action) -> Transition:
        """Make ``action`` and return the frozen record of what it did."""
        return Transition(action, self.apply(action))

    # The pokerkit-style triples, one per kind of decision.
    def verify_play(self, seat: str, card: Card | str) -> None:
        self.verify(Play(seat, _card(card)))

    def can_play(self, seat: str, card: Card | str) -> bool:
        try:
            return self.can(Play(seat, _card(card)))
        except IllegalAction:
            return False

    def play(self, seat: str, card: Card | str) -> Transition:
        return self.step(Play(seat, _card(card)))

    def verify_raise(self, seat: str, to: int | str) -> None:
        self.verify(Raise(seat, to))

    def can_raise(self, seat: str, to: int | str) -> bool:
        return self.can(Raise(seat, to))

    def raise_bid(self, seat: str, to: int | str) -> Transition:
        return self.step(Raise(seat, to))

    def verify_refuse(self, seat: str) -> None:
        self.verify(Refuse(seat))

    def can_refuse(self, seat: str) -> bool:
        return self.can(Refuse(seat))

    def refuse(self, seat: str) -> Transition:
        return self.step(Refuse(seat))

    def verify_decide(self, side: str, play: bool) -> None:
        self.verify(PlayHand(side) if play else DeclineHand(side))

    def can_decide(self, side: str, play: bool) -> bool:
        return self.can(PlayHand(side) if play else DeclineHand(side))

    def decide(self, side: str, play: bool) -> Transition:
        return self.step(PlayHand(side) if play else DeclineHand(side))

    def verify_call(self, seat: str, play: bool) -> None:
        self.verify(CallPlay(seat) if play else Pass(seat))

    def can_call(self, seat: str, play: bool) -> bool:
        return self.can(CallPlay(seat) if play else Pass(seat))

    def call(self, seat: str, play: bool) -> Transition:
        return self.step(CallPlay(seat) if play else Pass(seat))

    def verify_concede(self, seat: str) -> None:
        self.verify(Concede(seat))

    def can_concede(self, seat: str) -> bool:
        return self.can(Concede(seat))

    def concede(self, seat: str) -> Transition:
        return self.step(Concede(seat))

    def verify_signal(self, seat: str, signal: str) -> None:
        self.verify(Signal(seat, signal))

    def can_signal(self, seat: str, signal: str) -> bool:
        return self.can(Signal(seat, signal))

    def signal(self, seat: str, signal: str) -> Transition:
        return self.step(Signal(seat, signal))


def _card(card: Card | str) -> Card:
    if isinstance(card, Card):
        return card
    try:
        return Card.parse(card)
    except ValueError as exc:
        raise IllegalAction(
            "CARD_MALFORMED", "deck.cards", card, Reason("card_unreadable", text=str(exc)), ""
        ) from None
