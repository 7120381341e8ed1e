"""Why an action is refused: plain functions in a table the spec's error order sorts, and the mixin that runs them."""

from __future__ import annotations

from collections.abc import Callable

from ..rules.conditions import CONDITIONS
from ..rules.errors import ILLEGAL_BY_CODE, REQUIRED_ORDER, IllegalAction, VitouError
from .actions import Accept, Action, CallPlay, Concede, DeclineHand, Pass, Play, PlayHand, Raise, Refuse, Signal
from .answerchecks import (
    check_accept_no_raise,
    check_accept_not_answerer,
    check_concede_out_of_turn,
    check_face_down_too_early,
    check_raise_awaits_answer,
    check_raise_own_waiting,
)
from .norm import Norm, seat_ref
from .reasons import Reason, Ref
from .state import TWENTY, TWENTY_TWENTY, MatchState
from .tables import Tables
from .transitions import ANSWER, AWAIT, CALL, CARD, DECISION, NO_DEAL, OVER, PENDING, PHASE_NAMES, PLAY, TRANSITIONS

_ACTIONS = (Play, Raise, Accept, Refuse, PlayHand, DeclineHand, Pass, CallPlay, Signal, Concede)


class Checks(MatchState):
    """The refusal of an illegal action: the first rule it breaks, and the IllegalAction that says so."""

    __slots__ = ()

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
        if not isinstance(action, _ACTIONS):
            return "ACTION_MALFORMED", Reason("not_an_action", value=repr(action))
        if action.act not in t.game_acts:
            return "ACTION_MALFORMED", Reason("act_not_of_this_game", act=Ref("act", action.act))
        if type(action) is Play and action.down and not t.face_down_from:
            return "ACTION_MALFORMED", Reason("face_down_not_of_this_game")
        n = Norm(t, action)
        for code, check in _checks_for(t, n.act):
            reason = check(self, n)
            if reason is not None:
                return code, reason
        return None

    def broken_codes(self, action: Action) -> list[str]:
        """Every code whose condition holds for ``action`` here, in the order of precedence.

        The first is the code the action is refused with; the rest are the rules it
        also breaks, which a referee may want to see. A code that can only be judged
        once another is ruled out (a card's holder needs a known seat) is left out
        when that other one holds.
        """
        t = self._t
        if not isinstance(action, _ACTIONS) or action.act not in t.game_acts:
            return ["ACTION_MALFORMED"]
        if type(action) is Play and action.down and not t.face_down_from:
            return ["ACTION_MALFORMED"]
        n = Norm(t, action)
        found: list[str] = []
        for code, check in _checks_for(t, n.act):
            if any(code in _BLOCKS.get(earlier, ()) for earlier in found):
                continue
            if check(self, n) is not None:
                found.append(code)
        return found


# ---------------------------------------------------------------- the checks
#
# One function per error code: it says why the action breaks that rule in this
# position, or returns None. The checks for an act run in the order of the
# spec's error list (clarification 20), so the code reported for an action
# that breaks several rules comes from the data, not from this file.

_seat = seat_ref
Check = Callable[[MatchState, Norm], Reason | None]


def _c_unknown_seat(m: MatchState, n: Norm) -> Reason | None:
    if n.has_seat and n.seat is None:
        return Reason("unknown_seat", seats=Ref("seats", m._t.seat_ids))
    return None


def _c_unknown_side(m: MatchState, n: Norm) -> Reason | None:
    if n.has_side and n.side is None:
        return Reason("unknown_side", sides=Ref("sides", m._t.side_ids))
    return None


def _c_card_malformed(m: MatchState, n: Norm) -> Reason | None:
    if n.act == "play" and n.card is None:
        return Reason("card_malformed", ruleset=m._t.name)
    return None


def _c_unknown_bid(m: MatchState, n: Norm) -> Reason | None:
    if n.act == "raise" and n.level is None:
        return Reason("unknown_bid", bids=Ref("bids", m._t.bid_tokens[1:]))
    return None


def _c_signal_unknown(m: MatchState, n: Norm) -> Reason | None:
    if n.act == "signal" and n.signal not in m._t.gestures:
        return Reason("signal_unknown", gestures=Ref("gestures", tuple(sorted(m._t.gestures))))
    return None


def _c_match_over(m: MatchState, n: Norm) -> Reason | None:
    return Reason("match_over") if m.phase == OVER else None


def _c_no_deal(m: MatchState, n: Norm) -> Reason | None:
    return Reason("no_deal") if m.phase == NO_DEAL else None


def _c_wrong_phase(m: MatchState, n: Norm) -> Reason | None:
    if n.act not in TRANSITIONS[m.phase]:
        t = m._t
        if n.seat is not None:
            role = Ref("seat", t.seat_ids[n.seat])
        elif n.side is not None:
            role = Ref("side", t.side_ids[n.side])
        else:
            role = Ref("plain", "?")
        stage = {DECISION: "decision", CALL: "call"}.get(m.phase, "play")
        deciding = Ref("side", t.side_ids[m.twenty_side]) if m.twenty_side >= 0 else Ref("plain", "?")
        figures = {"at": t.twenty_at} if stage != "play" else {}  # the ending's score, as the ruleset sets it
        return Reason(
            "wrong_phase." + stage,
            role=role,
            act=Ref("act", n.act),
            phase=PHASE_NAMES[m.phase],
            side=deciding,
            **figures,
        )
    return None


def _c_signal_forbidden(m: MatchState, n: Norm) -> Reason | None:
    if not m._t.signals_allowed:
        return Reason("signal_forbidden.never")
    if m.mode == TWENTY_TWENTY and m._t.tt_signals_forbidden:
        return Reason("signal_forbidden.twenty_twenty", at=m._t.twenty_at)
    return None


def _c_bid_closed_twenty(m: MatchState, n: Norm) -> Reason | None:
    if m.mode == TWENTY and m._t.twenty_bids_closed:
        return Reason("bid_closed_twenty", side=Ref("side", m._t.side_ids[m.twenty_side]), at=m._t.twenty_at)
    return None


def _c_bid_closed_tt(m: MatchState, n: Norm) -> Reason | None:
    if m.mode == TWENTY_TWENTY and m._t.tt_bids_closed:
        return Reason("bid_closed_twenty_twenty", at=m._t.twenty_at)
    return None


def _c_decision_wrong_side(m: MatchState, n: Norm) -> Reason | None:
    if n.side != m.twenty_side:
        return Reason("decision_wrong_side", side=Ref("side", m._t.side_ids[m.twenty_side]), at=m._t.twenty_at)
    return None


def _c_call_out_of_turn(m: MatchState, n: Norm) -> Reason | None:
    if n.seat != m._turn:
        return Reason("call_out_of_turn", asked=_seat(m, m._turn), seat=_seat(m, n.seat))
    return None


def _c_not_your_turn(m: MatchState, n: Norm) -> Reason | None:
    if n.seat != m._turn and not _may_act_out_of_turn(m, n):
        return Reason("not_your_turn", due=_seat(m, m._turn), seat=_seat(m, n.seat))
    return None


def _may_act_out_of_turn(m: MatchState, n: Norm) -> bool:
    # Where a ruleset lets NOT_YOUR_TURN judge bids and refusals too (rules/conditions.py), the
    # seats the rules let act out of turn are not refused for it: a bid by any seat where any seat may bid and
    # no bid awaits an answer, a refusal by any seat where any opponent may refuse the bid awaiting its answer
    # (a bidder's partner then meets REFUSE_NOT_FOLLOWER, the refusing rules' own answer).
    t = m._t
    if n.act == "raise":
        return t.bids_any_seat and m.phase == PLAY
    return n.act == "refuse" and t.refusal_any_opponent and m.phase == ANSWER


def _c_card_not_held(m: MatchState, n: Norm) -> Reason | None:
    assert n.seat is not None
    if n.card not in m.hands[n.seat]:
        held = tuple(str(m._t.card(c)) for c in m.hands[n.seat])
        card = str(m._t.card(n.card)) if n.card is not None else "?"
        return Reason("card_not_held", seat=_seat(m, n.seat), held=Ref("cards", held), card=Ref("card", card))
    return None


def _c_bid_out_of_turn(m: MatchState, n: Norm) -> Reason | None:
    t = m._t
    assert n.seat is not None
    if n.seat != m._turn and not (t.bids_any_seat and m.phase == PLAY):
        if not t.bids_any_seat:
            return Reason("bid_out_of_turn.not_in_turn", due=_seat(m, m._turn), seat=_seat(m, n.seat))
        # any_seat: every seat may bid, but only while no bid awaits an answer and nobody owes a card
        if m.phase == CARD:
            return Reason("bid_out_of_turn.card_owed", bidder=_seat(m, m._bidder))
        return Reason("bid_out_of_turn.awaiting", bidder=_seat(m, m._bidder), bid=Ref("bid", t.bid_tokens[m.level]))
    if m.phase == PENDING:  # the answering seat raises again: the answer itself, at any trick
        return None
    if m.phase == CARD:
        return Reason("bid_out_of_turn.owes_card", seat=_seat(m, n.seat))
    if m.phase == AWAIT:  # the seat in turn is on the bidder's side: it plays on, the answer is the other side's
        return Reason("bid_out_of_turn.awaiting", bidder=_seat(m, m._bidder), bid=Ref("bid", t.bid_tokens[m.level]))
    if m.level == 0 and t.opening_tricks is not None and m.trick_number not in t.opening_tricks:
        return Reason(
            "bid_out_of_turn.trick", tricks=Ref("numbers", tuple(sorted(t.opening_tricks))), trick=m.trick_number
        )
    if m.level > 0 and not t.later_raise and m.phase != ANSWER:
        return Reason("bid_out_of_turn.answer_only")
    return None


def _c_refuse_no_bid(m: MatchState, n: Norm) -> Reason | None:
    if m.phase == PLAY:
        if m.level:
            return Reason("refuse_no_bid.accepted", bid=Ref("bid", m._t.bid_tokens[m.level]))
        return Reason("refuse_no_bid.none")
    return None


def _c_refuse_not_follower(m: MatchState, n: Norm) -> Reason | None:
    t = m._t
    assert n.seat is not None
    if m.phase == CARD:
        return Reason("refuse_not_follower.before_card", bidder=_seat(m, m._bidder))
    if m.phase == AWAIT:  # the answering seat, the first of the other side to play, is not in turn yet
        return Reason("refuse_not_follower.not_yet", bidder=_seat(m, m._bidder), due=_seat(m, m._turn))
    if t.refusal_any_opponent:
        if t.side_of[n.seat] == m._bside:
            return Reason("refuse_not_follower.bidding_side", seat=_seat(m, n.seat))
        return None
    if n.seat != m._turn:
        return Reason("refuse_not_follower.not_follower", follower=_seat(m, m._turn), seat=_seat(m, n.seat))
    return None


def _c_raise_from_last(m: MatchState, n: Norm) -> Reason | None:
    t = m._t
    if not t.last_bids and len(m.tcards) == t.n - 1:
        if n.seat != m._turn:  # any_seat: whoever bids, the trick's last card is the only one to come
            return Reason("raise_from_last.out_of_turn", last=_seat(m, m._turn), trick=m.trick_number)
        return Reason("raise_from_last", seat=_seat(m, n.seat), trick=m.trick_number)
    return None


def _c_raise_own_side(m: MatchState, n: Norm) -> Reason | None:
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


def _c_raise_past_top(m: MatchState, n: Norm) -> Reason | None:
    if m.level == m._t.top:
        return Reason("raise_past_top", bid=Ref("bid", m._t.bid_tokens[m.level]))
    return None


def _c_raise_jump(m: MatchState, n: Norm) -> Reason | None:
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


# The interpreter's side of each named condition (rules/conditions.py names
# them and the acts each may judge; the ruleset's error list says which acts
# it does judge and in what order).
_BY_CONDITION: dict[str, Check] = {
    "seat_not_at_table": _c_unknown_seat,
    "side_not_at_table": _c_unknown_side,
    "not_a_card_of_the_pack": _c_card_malformed,
    "not_a_bid_of_the_ladder": _c_unknown_bid,
    "not_a_gesture": _c_signal_unknown,
    "match_won": _c_match_over,
    "no_deal_left": _c_no_deal,
    "act_of_another_stage": _c_wrong_phase,
    "gestures_forbidden_now": _c_signal_forbidden,
    "a_side_at_twenty": _c_bid_closed_twenty,
    "twenty_twenty": _c_bid_closed_tt,
    "side_not_at_twenty": _c_decision_wrong_side,
    "seat_not_asked": _c_call_out_of_turn,
    "seat_not_due_to_play": _c_not_your_turn,
    "card_not_in_hand": _c_card_not_held,
    "bid_not_at_its_moment": _c_bid_out_of_turn,
    "no_bid_awaits_an_answer": _c_refuse_no_bid,
    "not_the_follower_now": _c_refuse_not_follower,
    "last_to_the_trick": _c_raise_from_last,
    "side_of_the_latest_bidder": _c_raise_own_side,
    "ladder_at_its_top": _c_raise_past_top,
    "not_the_next_level": _c_raise_jump,
    "a_raise_awaits_its_answer": check_raise_awaits_answer,
    "own_raise_awaits_its_answer": check_raise_own_waiting,
    "no_raise_awaits_an_answer": check_accept_no_raise,
    "not_the_answerer": check_accept_not_answerer,
    "face_down_before_its_trick": check_face_down_too_early,
    "seat_not_due_to_act": check_concede_out_of_turn,
}
# ACTION_MALFORMED's condition is judged when reading an action, before any check.
_CHECKS: dict[str, Check] = {
    code: _BY_CONDITION[c.name] for code, c in CONDITIONS.items() if code != "ACTION_MALFORMED"
}
CHECKED_CODES = frozenset(_CHECKS) | {"ACTION_MALFORMED"}


def _checks_for(t: Tables, act: str) -> list[tuple[str, Check]]:
    cache: dict[str, list[tuple[str, Check]]] | None = t.__dict__.get("_checks")
    if cache is None:
        cache = {}
        t.__dict__["_checks"] = cache
    found = cache.get(act)
    if found is None:
        codes = sorted((c for c in _CHECKS if act in t.acts_of.get(c, ())), key=lambda c: t.precedence[c])
        found = cache[act] = [(c, _CHECKS[c]) for c in codes]
    return found


# The codes each code makes impossible to judge when it holds (rules/errors.py's REQUIRED_ORDER).
_BLOCKS: dict[str, frozenset[str]] = {
    a: frozenset(b for x, b in REQUIRED_ORDER if x == a) for a in {x for x, _ in REQUIRED_ORDER}
}

assert {c for pair in REQUIRED_ORDER for c in pair} <= CHECKED_CODES  # the order speaks of these checks
