"""A match under a ruleset: the legal actions, and actions applied or refused with their rule."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..rules.cards import Card
from ..rules.errors import ILLEGAL_BY_CODE, REQUIRED_ORDER, IllegalAction, VitouError
from ..rules.model import Ruleset
from .actions import (
    Action,
    CallPlay,
    DeclineHand,
    Pass,
    Play,
    PlayHand,
    Raise,
    Refuse,
    Signal,
)
from .events import Event, MatchEvent, hand_event
from .reasons import Reason, Ref
from .setup import DealSource, random_draw, read_deals, read_score, settle_draw
from .tables import ELDEST, TIED, Tables, tables_for
from .transitions import ANSWER, CALL, CARD, DECISION, NO_DEAL, OVER, PHASE_NAMES, PLAY, TRANSITIONS

NORMAL, TWENTY, TWENTY_TWENTY = 0, 1, 2
MODE_NAMES = ("normal", "twenty", "twenty_twenty")
_NO_EVENTS: tuple[Event, ...] = ()


@dataclass(frozen=True, slots=True)
class Transition:
    """What one applied action did: the action and the events that followed it."""

    action: Action
    events: tuple[Event, ...]


class _Norm:
    """An action's fields resolved against the ruleset (None where unknown or absent)."""

    __slots__ = ("act", "seat", "side", "card", "level", "signal", "has_seat", "has_side")

    def __init__(self, t: Tables, a: Action) -> None:
        self.act = a.act
        seat = getattr(a, "seat", None)
        side = getattr(a, "side", None)
        self.has_seat = seat is not None
        self.has_side = side is not None
        self.seat = t.seat_index.get(seat) if seat is not None else None
        self.side = t.side_index.get(side) if side is not None else None
        card = getattr(a, "card", None)
        self.card = card.id if isinstance(card, Card) and t.strength[card.id] >= 0 else None
        to = getattr(a, "to", None)
        self.level = t.bid_level.get(to) if to is not None and not isinstance(to, bool) else None
        self.signal = getattr(a, "signal", None)


class Match:
    """One match of Vitou, from the first deal to the end.

    Build it with an explicit first dealer (or draw) and explicit deals, or
    with :meth:`random` from a seed. ``legal_actions()`` lists the legal
    decisions of the next step (signals aside); ``apply(action)`` makes one and
    returns the events, or raises an :class:`IllegalAction` carrying the error
    code and clause and leaves the match unchanged. For each kind of decision
    there is also a triple ``verify_x`` (raises), ``can_x`` (answers) and ``x``
    (acts and returns a frozen :class:`Transition`).
    """

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
        "_node",
        "level",
        "_bidder",
        "_bside",
        "_asked",
        "_bids_open",
        "first_dealer",
        "draw_rounds",
    )

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
        self.draw_rounds: list[dict[str, int]] = []
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
        self.hands: list[list[int]] = [[] for _ in range(t.n)]
        self.dealt: Sequence[tuple[int, ...]] = ()  # the current hand as dealt
        self.hand_number = 0
        self.trick_number = 0
        self._leader = -1
        self._turn = -1
        self.tseats: list[int] = []
        self.tcards: list[int] = []
        self._node = 0
        self.level = 0
        self._bidder = -1
        self._bside = -1
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

    # ------------------------------------------------------------------ reading

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
        if self.phase in (PLAY, CARD, ANSWER, CALL):
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
            self._node,
            self.level,
            self._bidder,
            self._bside,
            self._asked,
            self._deals.position,
        )

    def clone(self) -> Match:
        other = Match.__new__(Match)
        for name in Match.__slots__:
            setattr(other, name, getattr(self, name))
        other.hands = [list(h) for h in self.hands]
        other.tseats = list(self.tseats)
        other.tcards = list(self.tcards)
        other._score = list(self._score)
        other._deals = self._deals.clone()
        return other

    def describe(self) -> str:
        """The position in a line, for messages."""
        t = self._t
        score = ", ".join(f"{side} {pts}" for side, pts in zip(t.side_ids, self._score))
        if self.phase == OVER:
            return f"the match is over, won by {t.side_ids[self._winner]} (score {score})"
        if self.phase == NO_DEAL:
            return f"hand {self.hand_number + 1} has no deal (score {score})"
        head = f"hand {self.hand_number}, dealer {t.seat_ids[self._dealer]}, score {score}"
        if self.mode == TWENTY:
            head += f", {t.side_ids[self.twenty_side]} at {t.twenty_at}"
        elif self.mode == TWENTY_TWENTY:
            head += ", 20-20"
        if self.phase == DECISION:
            return f"{head}; {t.side_ids[self.twenty_side]} to decide whether to play"
        if self.phase == CALL:
            return f"{head}; {t.seat_ids[self._turn]} asked to pass or play ({self._asked} passed)"
        played = " ".join(f"{t.seat_ids[s]}:{t.card(c)}" for s, c in zip(self.tseats, self.tcards)) or "none"
        bid = ""
        if self.level:
            bid = f"; bid {t.bid_tokens[self.level]} by {t.seat_ids[self._bidder]} ({t.side_ids[self._bside]})"
        waiting = {PLAY: "to play", CARD: "to play the card of its bid", ANSWER: "to answer the bid"}[self.phase]
        return (
            f"{head}; trick {self.trick_number}, led by {t.seat_ids[self._leader]}, "
            f"cards played {played}{bid}; {t.seat_ids[self._turn]} {waiting}"
        )

    # ------------------------------------------------------------ legal actions

    def legal_actions(self) -> list[Action]:
        """Every legal decision of the next step, signals aside; empty once over or out of deals."""
        ph = self.phase
        t = self._t
        if ph <= ANSWER:
            s = self._turn
            row = t.play_actions[s]
            acts: list[Action] = [row[c] for c in self.hands[s]]  # type: ignore[misc]
            if ph != CARD:
                # _may_bid, inlined: this runs at every step of every hand.
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
                        acts.extend(t.raise_actions[s][self.level + 1 :])  # type: ignore[arg-type]
                    else:
                        acts.append(t.raise_actions[s][self.level + 1])  # type: ignore[arg-type]
                if ph == ANSWER:
                    if t.refusal_any_opponent:
                        acts.extend(t.refuse_actions[x] for x in range(t.n) if t.side_of[x] != self._bside)
                    else:
                        acts.append(t.refuse_actions[s])
            return acts
        if ph == DECISION:
            return list(t.decide_actions[self.twenty_side])
        if ph == CALL:
            return [t.pass_actions[self._turn], t.call_actions[self._turn]]
        return []

    def _may_bid(self, s: int) -> bool:
        # Whether seat s, in turn in PLAY or ANSWER, may bid the next level now.
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

    # ------------------------------------------------------------------ acting

    def apply(self, action: Action) -> tuple[Event, ...]:
        """Make ``action``; return the events it caused, or raise IllegalAction and change nothing."""
        t = self._t
        kind = type(action)
        ph = self.phase
        if kind is Play:
            if ph <= ANSWER:
                s = self._turn
                hand = self.hands[s]
                c = action.card.id  # type: ignore[union-attr]
                if action.seat == t.seat_ids[s] and c in hand:  # type: ignore[union-attr]
                    # Inlined _do_play for the common case: the trick goes on.
                    hand.remove(c)
                    tcards = self.tcards
                    tcards.append(c)
                    self.tseats.append(s)
                    if len(tcards) < t.n:
                        self._turn = t.next_seat[s]
                        self.phase = ANSWER if ph == CARD else PLAY
                        return _NO_EVENTS
                    return self._end_trick(ph == CARD)
        elif kind is Raise:
            s = self._turn
            if (ph == PLAY or ph == ANSWER) and self._bids_open and self.level < t.top:
                bid = t.raise_actions[s][self.level + 1]
                if (action is bid or action == bid) and self._may_bid(s):
                    return self._do_raise(s, self.level + 1)
                if t.jumps and self._check(action) is None:
                    return self._do_raise(s, t.bid_level[action.to])  # type: ignore[union-attr]
        elif kind is Refuse:
            if ph == ANSWER:
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
            return _NO_EVENTS
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

    def verify_signal(self, seat: str, signal: str) -> None:
        self.verify(Signal(seat, signal))

    def can_signal(self, seat: str, signal: str) -> bool:
        return self.can(Signal(seat, signal))

    def signal(self, seat: str, signal: str) -> Transition:
        return self.step(Signal(seat, signal))

    # ---------------------------------------------------------------- refusals

    def _illegal(self, action: Action) -> IllegalAction:
        found = self._check(action)
        if found is None:  # pragma: no cover - the fast path and the checks disagree
            raise VitouError(f"internal error: {action} passed every check but was not applied ({self.describe()})")
        return self._error(action, *found)

    def _error(self, action: Action, code: str, reason: Reason) -> IllegalAction:
        cls = ILLEGAL_BY_CODE.get(code, IllegalAction)
        return cls(code, self._t.clause_of.get(code, ""), action, reason, self.describe())

    def _check(self, action: Action) -> tuple[str, Reason] | None:
        """The first rule ``action`` breaks, in the spec's order of precedence, as (code, reason)."""
        t = self._t
        if not isinstance(action, (Play, Raise, Refuse, PlayHand, DeclineHand, Pass, CallPlay, Signal)):
            return "ACTION_MALFORMED", Reason("not_an_action", value=repr(action))
        n = _Norm(t, action)
        for code, check in _checks_for(t, n.act):
            reason = check(self, n)
            if reason is not None:
                return code, reason
        return None

    # ---------------------------------------------------------------- handlers

    def _do_play(self, s: int, i: int) -> tuple[Event, ...]:
        t = self._t
        self.tcards.append(self.hands[s].pop(i))
        self.tseats.append(s)
        was_card = self.phase == CARD
        if len(self.tcards) < t.n:
            self._turn = t.next_seat[s]
            self.phase = ANSWER if was_card else PLAY
            return _NO_EVENTS
        return self._end_trick(was_card)

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

    def _end_hand_on_tricks(self, side: int, row: str) -> tuple[Event, ...]:
        t = self._t
        if side == ELDEST:
            side = t.side_of[t.first_leader[self._dealer]]
        tok = t.bid_tokens[self.level]
        bside = t.side_ids[self._bside] if self._bside >= 0 else None
        if side < 0:
            return self._finish(-1, 0, 0, "tied", False, row, tok, bside)
        if self.mode == NORMAL:
            if t.value_is_match[self.level]:
                return self._finish(side, tok, 0, "tricks", True, row, tok, bside)  # type: ignore[arg-type]
            pts = t.values[self.level]
            return self._finish(side, pts, pts, "tricks", False, row, tok, bside)  # type: ignore[arg-type]
        if self.mode == TWENTY:
            if side == self.twenty_side:
                return self._finish(side, t.twenty_win, t.twenty_win, "tricks", t.twenty_win_match, row, None, None)
            return self._finish(side, t.twenty_lose, t.twenty_lose, "tricks", False, row, None, None)
        return self._finish(side, t.tt_win, t.tt_win, "tricks", True, row, None, None)

    def _do_raise(self, s: int, level: int) -> tuple[Event, ...]:
        self.level = level
        self._bidder = s
        self._bside = self._t.side_of[s]
        self.phase = CARD
        return _NO_EVENTS

    def _do_refuse(self, s: int) -> tuple[Event, ...]:
        t = self._t
        pts = t.refused[self.level]
        assert pts is not None
        side = t.side_of[s] if t.refusal_pays_refusers else self._bside
        return self._finish(side, pts, pts, "refusal", False, None, t.bid_tokens[self.level], t.side_ids[self._bside])

    def _do_decide(self, play: bool) -> tuple[Event, ...]:
        t = self._t
        if play:
            self._begin_play(t.first_leader[self._dealer])
            return _NO_EVENTS
        opp = 1 - self.twenty_side
        return self._finish(opp, t.twenty_decline, t.twenty_decline, "decline", False, None, None, None)

    def _do_call(self, play: bool) -> tuple[Event, ...]:
        t = self._t
        if play:
            caller = self._turn
            self._begin_play(caller if t.tt_leader_is_caller else t.first_leader[self._dealer])
            return _NO_EVENTS
        self._asked += 1
        if self._asked == t.n:
            return self._finish(-1, 0, 0, "passed", False, None, None, None)
        self._turn = t.next_seat[self._turn]
        return _NO_EVENTS

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

    def _start_hand(self) -> None:
        t = self._t
        deal = self._deals.next(self._dealer)
        if deal is not None:
            self.dealt = deal
            self.hands = [list(h) for h in deal]
            self.hand_number += 1
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
        self._leader = -1
        self.trick_number = 0
        self._node = 0
        self.tseats = []
        self.tcards = []
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
            self._turn = t.tt_first[self._dealer]
            self.phase = CALL
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
        self.trick_number = 1
        self._node = 0
        self.level = 0
        self._bidder = -1
        self._bside = -1
        self._leader = leader
        self._turn = leader
        self.phase = PLAY


def _card(card: Card | str) -> Card:
    if isinstance(card, Card):
        return card
    try:
        return Card.parse(card)
    except ValueError as exc:
        raise IllegalAction(
            "CARD_MALFORMED", "deck.cards", card, Reason("card_unreadable", text=str(exc)), ""
        ) from None


# ---------------------------------------------------------------- the checks
#
# One function per error code: it says why the action breaks that rule in this
# position, or returns None. The checks for an act run in the order of the
# spec's error list (clarification 20), so the code reported for an action
# that breaks several rules comes from the data, not from this file.

Check = Callable[[Match, _Norm], Reason | None]


def _seat(m: Match, s: int | None) -> Ref:
    return Ref("seat", m._t.seat_ids[s if s is not None else 0])


def _c_unknown_seat(m: Match, n: _Norm) -> Reason | None:
    if n.has_seat and n.seat is None:
        return Reason("unknown_seat", seats=Ref("seats", m._t.seat_ids))
    return None


def _c_unknown_side(m: Match, n: _Norm) -> Reason | None:
    if n.has_side and n.side is None:
        return Reason("unknown_side", sides=Ref("sides", m._t.side_ids))
    return None


def _c_card_malformed(m: Match, n: _Norm) -> Reason | None:
    if n.act == "play" and n.card is None:
        return Reason("card_malformed", ruleset=m._t.name)
    return None


def _c_unknown_bid(m: Match, n: _Norm) -> Reason | None:
    if n.act == "raise" and n.level is None:
        return Reason("unknown_bid", bids=Ref("bids", m._t.bid_tokens[1:]))
    return None


def _c_signal_unknown(m: Match, n: _Norm) -> Reason | None:
    if n.act == "signal" and n.signal not in m._t.gestures:
        return Reason("signal_unknown", gestures=Ref("gestures", tuple(sorted(m._t.gestures))))
    return None


def _c_match_over(m: Match, n: _Norm) -> Reason | None:
    return Reason("match_over") if m.phase == OVER else None


def _c_no_deal(m: Match, n: _Norm) -> Reason | None:
    return Reason("no_deal") if m.phase == NO_DEAL else None


def _c_wrong_phase(m: Match, n: _Norm) -> Reason | None:
    if n.act not in TRANSITIONS[m.phase]:
        t = m._t
        if n.seat is not None:
            role = Ref("seat", t.seat_ids[n.seat])
        elif n.side is not None:
            role = Ref("side", t.side_ids[n.side])
        else:
            role = Ref("plain", "?")
        stage = {PLAY: "play", CARD: "play", ANSWER: "play", DECISION: "decision", CALL: "call"}.get(m.phase, "play")
        deciding = Ref("side", t.side_ids[m.twenty_side]) if m.twenty_side >= 0 else Ref("plain", "?")
        return Reason(
            "wrong_phase." + stage, role=role, act=Ref("act", n.act), phase=PHASE_NAMES[m.phase], side=deciding
        )
    return None


def _c_signal_forbidden(m: Match, n: _Norm) -> Reason | None:
    if not m._t.signals_allowed:
        return Reason("signal_forbidden.never")
    if m.mode == TWENTY_TWENTY and m._t.tt_signals_forbidden:
        return Reason("signal_forbidden.twenty_twenty")
    return None


def _c_bid_closed_twenty(m: Match, n: _Norm) -> Reason | None:
    if m.mode == TWENTY and m._t.twenty_bids_closed:
        return Reason("bid_closed_twenty", side=Ref("side", m._t.side_ids[m.twenty_side]), at=m._t.twenty_at)
    return None


def _c_bid_closed_tt(m: Match, n: _Norm) -> Reason | None:
    if m.mode == TWENTY_TWENTY and m._t.tt_bids_closed:
        return Reason("bid_closed_twenty_twenty")
    return None


def _c_decision_wrong_side(m: Match, n: _Norm) -> Reason | None:
    if n.side != m.twenty_side:
        return Reason("decision_wrong_side", side=Ref("side", m._t.side_ids[m.twenty_side]), at=m._t.twenty_at)
    return None


def _c_call_out_of_turn(m: Match, n: _Norm) -> Reason | None:
    if n.seat != m._turn:
        return Reason("call_out_of_turn", asked=_seat(m, m._turn), seat=_seat(m, n.seat))
    return None


def _c_not_your_turn(m: Match, n: _Norm) -> Reason | None:
    if n.seat != m._turn:
        return Reason("not_your_turn", due=_seat(m, m._turn), seat=_seat(m, n.seat))
    return None


def _c_card_not_held(m: Match, n: _Norm) -> Reason | None:
    assert n.seat is not None
    if n.card not in m.hands[n.seat]:
        held = tuple(str(m._t.card(c)) for c in m.hands[n.seat])
        card = str(m._t.card(n.card)) if n.card is not None else "?"
        return Reason("card_not_held", seat=_seat(m, n.seat), held=Ref("cards", held), card=Ref("card", card))
    return None


def _c_bid_out_of_turn(m: Match, n: _Norm) -> Reason | None:
    t = m._t
    assert n.seat is not None
    if n.seat != m._turn:
        return Reason("bid_out_of_turn.not_in_turn", due=_seat(m, m._turn), seat=_seat(m, n.seat))
    if m.phase == CARD:
        return Reason("bid_out_of_turn.owes_card", seat=_seat(m, n.seat))
    if m.level == 0 and t.opening_tricks is not None and m.trick_number not in t.opening_tricks:
        return Reason(
            "bid_out_of_turn.trick", tricks=Ref("numbers", tuple(sorted(t.opening_tricks))), trick=m.trick_number
        )
    if m.level > 0 and not t.later_raise and m.phase != ANSWER:
        return Reason("bid_out_of_turn.answer_only")
    return None


def _c_refuse_no_bid(m: Match, n: _Norm) -> Reason | None:
    if m.phase == PLAY:
        if m.level:
            return Reason("refuse_no_bid.accepted", bid=Ref("bid", m._t.bid_tokens[m.level]))
        return Reason("refuse_no_bid.none")
    return None


def _c_refuse_not_follower(m: Match, n: _Norm) -> Reason | None:
    t = m._t
    assert n.seat is not None
    if m.phase == CARD:
        return Reason("refuse_not_follower.before_card", bidder=_seat(m, m._bidder))
    if t.refusal_any_opponent:
        if t.side_of[n.seat] == m._bside:
            return Reason("refuse_not_follower.bidding_side", seat=_seat(m, n.seat))
        return None
    if n.seat != m._turn:
        return Reason("refuse_not_follower.not_follower", follower=_seat(m, m._turn), seat=_seat(m, n.seat))
    return None


def _c_raise_from_last(m: Match, n: _Norm) -> Reason | None:
    t = m._t
    if not t.last_bids and len(m.tcards) == t.n - 1:
        return Reason("raise_from_last", seat=_seat(m, n.seat), trick=m.trick_number)
    return None


def _c_raise_own_side(m: Match, n: _Norm) -> Reason | None:
    t = m._t
    assert n.seat is not None
    if m.level > 0 and not t.raise_any_side and t.side_of[n.seat] == m._bside:
        return Reason(
            "raise_own_side",
            seat=_seat(m, n.seat),
            bid=Ref("bid", t.bid_tokens[m.level]),
            bidder=_seat(m, m._bidder),
            side=Ref("side", t.side_ids[m._bside]),
        )
    return None


def _c_raise_past_top(m: Match, n: _Norm) -> Reason | None:
    if m.level == m._t.top:
        return Reason("raise_past_top", bid=Ref("bid", m._t.bid_tokens[m.level]))
    return None


def _c_raise_jump(m: Match, n: _Norm) -> Reason | None:
    t = m._t
    assert n.level is not None
    if n.level <= m.level or (n.level > m.level + 1 and not t.jumps):
        nxt = Ref("bid", t.bid_tokens[m.level + 1])
        if m.level == 0:
            return Reason("raise_jump.opening", value=t.values[0], next=nxt, to=Ref("bid", t.bid_tokens[n.level]))
        return Reason(
            "raise_jump", now=Ref("bid", t.bid_tokens[m.level]), next=nxt, to=Ref("bid", t.bid_tokens[n.level])
        )
    return None


_ACT_WORDS = ("play", "raise", "refuse", "decide_play", "decide_decline", "call_pass", "call_play", "signal")


_CHECKS: dict[str, tuple[Check, frozenset[str]]] = {
    # code: (check, the acts it applies to)
    "UNKNOWN_SEAT": (_c_unknown_seat, frozenset({"play", "raise", "refuse", "call_pass", "call_play", "signal"})),
    "UNKNOWN_SIDE": (_c_unknown_side, frozenset({"decide_play", "decide_decline"})),
    "CARD_MALFORMED": (_c_card_malformed, frozenset({"play"})),
    "UNKNOWN_BID": (_c_unknown_bid, frozenset({"raise"})),
    "SIGNAL_UNKNOWN": (_c_signal_unknown, frozenset({"signal"})),
    "MATCH_OVER": (_c_match_over, frozenset(_ACT_WORDS)),
    "NO_DEAL": (_c_no_deal, frozenset(_ACT_WORDS)),
    "WRONG_PHASE": (_c_wrong_phase, frozenset(_ACT_WORDS)),
    "SIGNAL_FORBIDDEN": (_c_signal_forbidden, frozenset({"signal"})),
    "BID_CLOSED_TWENTY": (_c_bid_closed_twenty, frozenset({"raise"})),
    "BID_CLOSED_TWENTY_TWENTY": (_c_bid_closed_tt, frozenset({"raise"})),
    "DECISION_WRONG_SIDE": (_c_decision_wrong_side, frozenset({"decide_play", "decide_decline"})),
    "CALL_OUT_OF_TURN": (_c_call_out_of_turn, frozenset({"call_pass", "call_play"})),
    "NOT_YOUR_TURN": (_c_not_your_turn, frozenset({"play"})),
    "CARD_NOT_HELD": (_c_card_not_held, frozenset({"play"})),
    "BID_OUT_OF_TURN": (_c_bid_out_of_turn, frozenset({"raise"})),
    "REFUSE_NO_BID": (_c_refuse_no_bid, frozenset({"refuse"})),
    "REFUSE_NOT_FOLLOWER": (_c_refuse_not_follower, frozenset({"refuse"})),
    "RAISE_FROM_LAST": (_c_raise_from_last, frozenset({"raise"})),
    "RAISE_OWN_SIDE": (_c_raise_own_side, frozenset({"raise"})),
    "RAISE_PAST_TOP": (_c_raise_past_top, frozenset({"raise"})),
    "RAISE_JUMP": (_c_raise_jump, frozenset({"raise"})),
}
# ACTION_MALFORMED is found when reading an action, before any check.
CHECKED_CODES = frozenset(_CHECKS) | {"ACTION_MALFORMED"}


def _checks_for(t: Tables, act: str) -> list[tuple[str, Check]]:
    cache: dict[str, list[tuple[str, Check]]] | None = t.__dict__.get("_checks")
    if cache is None:
        cache = {}
        t.__dict__["_checks"] = cache
    found = cache.get(act)
    if found is None:
        codes = sorted((c for c, (_, acts) in _CHECKS.items() if act in acts), key=lambda c: t.precedence[c])
        found = cache[act] = [(c, _CHECKS[c][0]) for c in codes]
    return found


assert {c for pair in REQUIRED_ORDER for c in pair} <= CHECKED_CODES  # the order speaks of these checks


def json_of(events: Sequence[Event]) -> list[dict[str, Any]]:
    return [e.to_json() for e in events]
