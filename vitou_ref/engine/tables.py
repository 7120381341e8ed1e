"""A ruleset compiled into lookup tables, so that play costs no more than hand-written rules."""

from __future__ import annotations

from typing import Any

from ..rules.cards import ALL_CARDS, Card
from ..rules.model import MATCH, Params, Ruleset
from .actions import Accept, CallPlay, Concede, DeclineHand, Pass, Play, PlayHand, Raise, Refuse
from .events import TrickEvent

TIED = 2  # the result of a tied trick, after the two side indexes 0 and 1
ELDEST = -2  # a row whose winner is the side of the player next to the dealer
VOID = -3  # a row with no winner although not every trick tied (-1: every trick tied)


class Tables:
    """Everything the match needs from a ruleset, as tuples and dicts indexed by small ints."""

    def __init__(self, rules: Ruleset) -> None:
        p = rules.params
        self.rules = rules
        self.name = rules.name
        # One helper per block of tables, in this order: each may read what the
        # ones before it built (the seat count, the card strengths, the ladder).
        self._compile_seats(p)
        self._compile_cards(p)
        self.tie_partners_win = p.tie_same_side == "first_played_wins"
        self.tie_eldest_leads = p.tie_next_leader == "eldest"
        self.tricks = p.tricks
        self._compile_resolution(rules)
        self._compile_ladder(p)
        self._compile_endings(p)
        self.precedence = {e.code: i for i, e in enumerate(rules.errors)}
        self.clause_of = {e.code: e.clause for e in rules.errors}
        self.acts_of = {e.code: frozenset(e.acts) for e in rules.errors}
        # The game's acts are those ACTION_MALFORMED judges: any other act is not a decision of this game.
        self.game_acts = self.acts_of.get("ACTION_MALFORMED", frozenset())
        self._prebuild_actions()

    def _compile_seats(self, p: Params) -> None:
        n = self.n = len(p.seats)
        self.seat_ids = tuple(s.id for s in p.seats)
        self.seat_names = tuple(s.name for s in p.seats)
        self.seat_index = {s: i for i, s in enumerate(self.seat_ids)}
        self.side_ids = tuple(s.id for s in p.sides)
        self.side_names = tuple(s.name for s in p.sides)
        self.side_index = {s: i for i, s in enumerate(self.side_ids)}
        side_of = [0] * n
        for si, side in enumerate(p.sides):
            for seat in side.seats:
                side_of[self.seat_index[seat]] = si
        self.side_of = tuple(side_of)

        # Seats are listed clockwise, and the seat on a player's left is the
        # next one clockwise; "next" in the rules is whichever way play goes.
        step = 1 if p.next_is == "left" else -1
        self.next_seat = tuple((i + step) % n for i in range(n))
        self.prev_seat = tuple((i - step) % n for i in range(n))
        self.dealer_after = self.next_seat if p.dealer_passes == "next" else self.prev_seat
        self.deal_after = self.next_seat if p.deal_first == "next" else self.prev_seat
        self.first_leader = self.next_seat if p.first_leader == "next_to_dealer" else tuple(range(n))
        self.tt_first = self.next_seat if p.tt_first == "next_to_dealer" else tuple(range(n))
        self.tt_leader_is_caller = p.tt_leader == "first_to_play"

    def _compile_cards(self, p: Params) -> None:
        # Cards: strength by card id, -1 for cards outside this pack.
        strength = [-1] * len(ALL_CARDS)
        order = p.rank_order
        suits = {s.suit for s in p.suits}
        for card in ALL_CARDS:
            if card.rank in order and card.suit in suits and card.rank in p.ranks:
                strength[card.id] = len(order) - order.index(card.rank)
        self.strength = tuple(strength)
        self.deck = tuple(c.id for c in ALL_CARDS if strength[c.id] >= 0)
        # turn_up: each hand turns up one card, whose rank's successor in the circle makes the manilhas, above
        # every other card and ordered by suit. power_after[turn-up card id] is the strengths for that hand.
        self.turn_up = bool(p.turn_up_circle)
        self.power_after: dict[int, tuple[int, ...]] = {}
        if self.turn_up:
            circle = p.turn_up_circle
            top = max(strength)
            for up in self.deck:
                rank = ALL_CARDS[up].rank
                manilha = circle[(circle.index(rank) + 1) % len(circle)]
                power = list(strength)
                for c in self.deck:
                    card = ALL_CARDS[c]
                    if card.rank == manilha:
                        power[c] = top + 1 + p.manilha_suits.index(card.suit)
                self.power_after[up] = tuple(power)
        # face_down: from this trick on a card may be played face down, with strength 0: below every card played
        # face up (whose strengths start at 1), tied with another face-down card. 0: never.
        self.face_down_from = p.face_down_from
        self.concede = p.concede
        self.scores_stop = p.scores_stop
        self.cards_each = p.cards_each
        self.draw_lowest = p.draw_dealer == "lowest"
        self.redraw_all = p.redraw_who == "all"

    def _compile_ladder(self, p: Params) -> None:
        ladder = p.ladder
        self.bid_tokens = tuple(level.bid for level in ladder)
        self.bid_level = {level.bid: i for i, level in enumerate(ladder) if i > 0}
        self.values = tuple(level.value for level in ladder)
        self.value_is_match = tuple(v == MATCH for v in self.values)
        self.refused = tuple(level.refused for level in ladder)
        self.top = len(ladder) - 1
        self.jumps = p.jumps_allowed
        self.opening_tricks = p.opening_tricks
        self.last_bids = p.last_position_bids
        self.raise_any_side = p.raise_by == "any"
        self.later_raise = p.later_raise
        self.bids_any_seat = p.bid_timing == "any_seat"  # à la volée: any seat may bid while nothing is owed
        self.refusal_any_opponent = p.refusal_by == "any_opponent"
        self.refusal_pays_refusers = p.refusal_pays == "refusers"
        # bid_answer: before_any_card (Le Truc): a raise is answered at once, by accept, refuse or a raise again.
        self.answer_first = p.answer_when == "before_any_card"

    def _compile_endings(self, p: Params) -> None:
        self.target = p.target
        self.twenty = p.twenty_enabled
        self.twenty_at = p.twenty_at
        self.twenty_bids_closed = p.twenty_bids_closed
        self.twenty_decline = p.twenty_decline
        self.twenty_win = p.twenty_win
        self.twenty_win_match = p.twenty_win_takes_match
        self.twenty_lose = p.twenty_lose
        self.tt = p.tt_enabled
        self.tt_question = p.tt_question
        self.tt_bids_closed = p.tt_bids_closed
        self.tt_signals_forbidden = p.tt_signals_forbidden
        self.tt_win = p.tt_win
        self.tt_all_pass_rotates = p.tt_all_pass_dealer == "passes"
        self.tt_all_tied_rotates = p.tt_all_tied_dealer == "passes"
        self.gestures = frozenset(g.id for g in p.gestures)
        self.signals_allowed = p.signals_allowed

    def _prebuild_actions(self) -> None:
        # Every action a legal set can hold, built once: play never allocates one.
        cards = ALL_CARDS
        strength = self.strength
        self.play_actions = tuple(
            tuple(Play(seat, cards[c]) if strength[c] >= 0 else None for c in range(len(cards)))
            for seat in self.seat_ids
        )
        self.down_actions = tuple(
            tuple(Play(seat, cards[c], True) if strength[c] >= 0 else None for c in range(len(cards)))
            for seat in self.seat_ids
        )
        self.concede_actions = tuple(Concede(seat) for seat in self.seat_ids)
        self.raise_actions = tuple(
            tuple(Raise(seat, tok) if tok is not None else None for tok in self.bid_tokens) for seat in self.seat_ids
        )
        self.refuse_actions = tuple(Refuse(seat) for seat in self.seat_ids)
        self.accept_actions = tuple(Accept(seat) for seat in self.seat_ids)
        self.pass_actions = tuple(Pass(seat) for seat in self.seat_ids)
        self.call_actions = tuple(CallPlay(seat) for seat in self.seat_ids)
        self.decide_actions = tuple((PlayHand(side), DeclineHand(side)) for side in self.side_ids)
        # trick_events[trick][winner seat, or -1 for a tie]
        self.trick_events = tuple(
            tuple(TrickEvent(k, self.seat_ids[w] if w >= 0 else None) for w in [*range(self.n), -1])
            for k in range(self.tricks + 2)
        )

    def _compile_resolution(self, rules: Ruleset) -> None:
        # A trie over the absolute results of the tricks so far (side 0, side 1
        # or TIED). Each node knows whether the hand is decided there, and by
        # which row; a hand walks one edge per trick.
        by_pattern = {row.pattern: row for row in rules.params.resolution}
        nxt: list[list[int]] = [[-1, -1, -1]]
        term: list[tuple[int, str] | None] = [None]
        seqs: list[tuple[int, ...]] = [()]
        i = 0
        while i < len(seqs):
            seq = seqs[i]
            if term[i] is None and len(seq) < self.tricks:
                for r in (0, 1, TIED):
                    child = seq + (r,)
                    a = next((x for x in child if x != TIED), None)
                    rel = tuple("T" if x == TIED else ("A" if x == a else "B") for x in child)
                    row = by_pattern.get(rel)  # type: ignore[arg-type]
                    decided: tuple[int, str] | None = None
                    if row is not None:
                        if row.winner == "none":
                            decided = (-1 if a is None else VOID, row.id)
                        elif row.winner == "eldest":
                            decided = (ELDEST, row.id)  # settled at play time: it depends on the dealer
                        else:
                            assert a is not None
                            decided = (a if row.winner == "A" else 1 - a, row.id)
                    nxt[i][r] = len(seqs)
                    nxt.append([-1, -1, -1])
                    term.append(decided)
                    seqs.append(child)
            i += 1
        self.trie_next = tuple(tuple(x) for x in nxt)
        self.trie_term = tuple(term)
        # hand_stop: as_soon_as_determined lets a hand stop in the middle of a trick (Tricks._card_mid_trick).
        # Then every card goes on past the hot path's quick branch, which takes only the cards below
        # card_check_from (the trick's last one alone otherwise); trie_may_stop marks the nodes from which
        # some way the trick in play can end decides the hand, so that only those are searched.
        self.stop_mid_trick = rules.params.hand_stop == "as_soon_as_determined"
        self.card_check_from = 1 if self.stop_mid_trick else self.n
        # cut_short_answer: may_be_given: no stop while a bid awaits its answer (Tricks._card_mid_trick).
        self.stop_waits_answer = rules.params.stop_answer == "may_be_given"
        self.trie_may_stop = tuple(any(c >= 0 and term[c] is not None for c in row) for row in nxt)

    def as_json(self, action: Any) -> dict[str, Any]:
        """The protocol form of an action; the prebuilt ones are written once and shared."""
        cache: dict[int, dict[str, Any]] | None = self.__dict__.get("_json")
        if cache is None:
            cache = self.__dict__["_json"] = {}
            prebuilt: list[Any] = [a for row in self.play_actions for a in row if a is not None]
            prebuilt += [a for row in self.raise_actions for a in row if a is not None]
            prebuilt += [a for row in self.down_actions for a in row if a is not None]
            prebuilt += [*self.refuse_actions, *self.accept_actions, *self.pass_actions, *self.call_actions]
            prebuilt += self.concede_actions
            prebuilt += [a for pair in self.decide_actions for a in pair]
            for a in prebuilt:
                cache[id(a)] = a.to_json()
        found = cache.get(id(action))
        if found is not None:
            return found
        out: dict[str, Any] = action.to_json()
        return out

    def card(self, cid: int) -> Card:
        return ALL_CARDS[cid]


def tables_for(rules: Ruleset) -> Tables:
    """The compiled tables of a ruleset, built once and kept with it."""
    t: Tables | None = rules.__dict__.get("_tables")
    if t is None:
        t = Tables(rules)
        object.__setattr__(rules, "_tables", t)  # a cache, not part of the frozen value
    return t
