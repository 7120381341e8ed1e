"""The checks of a raise answered before any card, of a card played face down and of a conceded hand."""

from __future__ import annotations

from .norm import Norm, seat_ref
from .reasons import Reason, Ref
from .state import MatchState
from .transitions import DECISION, PENDING

_seat = seat_ref


def check_raise_awaits_answer(m: MatchState, n: Norm) -> Reason | None:
    if m.phase == PENDING:
        t = m._t
        return Reason(
            "raise_awaits_answer",
            bid=Ref("bid", t.bid_tokens[m.level]),
            bidder=_seat(m, m._bidder),
            due=_seat(m, m._turn),
        )
    return None


def check_raise_own_waiting(m: MatchState, n: Norm) -> Reason | None:
    if m.phase == PENDING and n.seat == m._bidder:
        return Reason("raise_own_waiting", seat=_seat(m, n.seat), bid=Ref("bid", m._t.bid_tokens[m.level]))
    return None


def check_accept_no_raise(m: MatchState, n: Norm) -> Reason | None:
    if m.phase != PENDING:
        if m.level:
            return Reason("accept_no_raise.accepted", bid=Ref("bid", m._t.bid_tokens[m.level]))
        return Reason("accept_no_raise.none")
    return None


def check_accept_not_answerer(m: MatchState, n: Norm) -> Reason | None:
    if n.seat != m._turn:
        return Reason("accept_not_answerer", due=_seat(m, m._turn), seat=_seat(m, n.seat))
    return None


def check_face_down_too_early(m: MatchState, n: Norm) -> Reason | None:
    t = m._t
    if n.down and m.trick_number < t.face_down_from:
        return Reason("face_down_too_early", trick=m.trick_number, first=t.face_down_from)
    return None


def check_concede_out_of_turn(m: MatchState, n: Norm) -> Reason | None:
    t = m._t
    assert n.seat is not None
    if m.phase == DECISION:
        if t.side_of[n.seat] != m.twenty_side:
            return Reason("concede_not_deciding", side=Ref("side", t.side_ids[m.twenty_side]), seat=_seat(m, n.seat))
        return None
    if n.seat != m._turn:
        return Reason("concede_out_of_turn", due=_seat(m, m._turn), seat=_seat(m, n.seat))
    return None
