"""The clauses a ruling rests on: what allows an action, what an action once the hand is over breaks, what it brought."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

from ..engine.events import Event, HandEvent, MatchEvent, TrickEvent
from ..engine.match import Match
from ..engine.reasons import Reason, Ref
from ..engine.tables import tables_for
from ..engine.transitions import ANSWER, PENDING
from ..rules.model import Ruleset


class Stand(NamedTuple):
    """One of Vitou's clauses, and what stands in for it in a game that names its clauses otherwise: the clause
    bound to the first of ``rules`` the game binds, else the clause the first of ``codes`` it defines cites (Le
    Truc's fold is truc.fold, which binds "refusal"; its card in turn is truc.trick, which CARD_NOT_HELD cites)."""

    vitou: str
    rules: tuple[str, ...] = ()
    codes: tuple[str, ...] = ()


# What an event says.
_TRICK_WON = Stand("trick.rank_only", ("trick_compare",))
_TRICK_TIED = Stand("trick.tie", ("trick_tie",))
_RESOLUTION = Stand("hand.resolution", ("resolution",))
_STOP = Stand("", ("hand_stop",))  # a profile's own clause: a hand decided inside a trick (vitou-mid-trick)
_BY_REASON = {
    "refusal": Stand("bid.refusal_value", ("refusal",)),
    "decline": Stand("twenty.decline", ("twenty_decline",)),
    "passed": Stand("tt.all_pass", ("twenty_twenty_all_pass",)),
    "conceded": Stand("", ("concede",)),  # Truco Paulista's tp.concede: what a concession gives, in every position
}
_ACCEPTED = Stand("bid.accepted_value", ("ladder",))
_NO_BID = Stand("score.add", ("ladder",))
_MATCH_BID = Stand("bid.baraque")
_AT_TWENTY = Stand("twenty.play", ("twenty_play",))
_AT_TWENTY_TWENTY = Stand("tt.play", ("twenty_twenty_play",))
_ALL_TIED_20_20 = Stand("tt.all_tied", ("twenty_twenty_all_tied",))
_TARGET = Stand("score.target", ("target",))

# What allows an action.
_ALLOWING = {
    s.vitou: s
    for s in (
        Stand("play.any_card", (), ("CARD_NOT_HELD",)),
        Stand("bid.turn", ("bid_timing",), ("BID_OUT_OF_TURN",)),
        Stand("bid.open", ("opening",)),
        Stand("bid.not_last", ("last_position",)),
        Stand("bid.answer", ("bid_answer",)),
        Stand("bid.later_raise", ("later_raise",)),
        Stand("bid.refusal", ("refusal",)),
        Stand("twenty.decision", (), ("DECISION_WRONG_SIDE",)),
        Stand("tt.ask", ("twenty_twenty_ask",), ("CALL_OUT_OF_TURN",)),
        Stand("signals.when", ("signals_allowed",)),
    )
}
# Acts only some games have, Vitou none: found by the rule that gives them (Truco Paulista's tp.face_down, tp.concede).
_ALLOWING["play.face_down"] = Stand("", ("face_down",))
_ALLOWING["concede"] = Stand("", ("concede",))


def _find(rules: Ruleset, wanted: Stand) -> str | None:
    if wanted.vitou:
        clause = rules.current_clause(wanted.vitou)
        if clause in {c.id for c in rules.clauses}:
            return clause
    found = next((rules.bindings[r] for r in wanted.rules if r in rules.bindings), None)
    if found is None:
        cites = {e.code: e.clause for e in rules.errors}
        found = next((cites[c] for c in wanted.codes if c in cites), None)
    return found


def _decided(rules: Ruleset, e: HandEvent, inside: bool) -> Stand:
    """The clause that ended a hand: a refusal, a decline, all passing, or its tricks, or a stop inside one
    (``inside``: no trick completed on the action that ended it)."""
    if e.reason in _BY_REASON:
        return _BY_REASON[e.reason]
    if e.reason == "tied" and e.mode == "twenty_twenty":
        return _ALL_TIED_20_20
    if inside and "hand_stop" in rules.bindings:
        return _STOP
    return _RESOLUTION


def _ended(events: list[Event]) -> tuple[HandEvent, bool] | None:
    """The hand event among ``events``, and whether the hand ended inside a trick: no trick event before it."""
    for i, e in enumerate(events):
        if isinstance(e, HandEvent):
            return e, not any(isinstance(x, TrickEvent) for x in events[:i])
    return None


def _hand(rules: Ruleset, e: HandEvent, inside: bool) -> list[Stand]:
    ended = _decided(rules, e, inside)
    if ended not in (_RESOLUTION, _STOP):
        return [ended]
    out = [_RESOLUTION] if ended is _RESOLUTION else [_RESOLUTION, _STOP]  # the table's row decides, or the stop
    if isinstance(e.points, str):
        out.append(_MATCH_BID)
    elif e.winner is not None:
        by_mode = {"twenty": _AT_TWENTY, "twenty_twenty": _AT_TWENTY_TWENTY}
        out.append(by_mode.get(str(e.mode), _ACCEPTED if e.bidder is not None else _NO_BID))
    return out


def _match(rules: Ruleset, hand: HandEvent | None) -> Stand:
    """What ended the match: an accepted baraque, the hand at 20-20, the side at twenty winning its hand, or 21."""
    if hand is None:
        return _TARGET
    if isinstance(hand.points, str):
        return _MATCH_BID
    if hand.mode == "twenty_twenty":
        return _AT_TWENTY_TWENTY
    t = tables_for(rules)
    won = dict(hand.score).get(hand.winner or "", 0) - hand.points
    if hand.mode == "twenty" and t.twenty_win_match and won == t.twenty_at:  # the side at twenty won it
        return _AT_TWENTY
    return _TARGET


def event_clauses(rules: Ruleset, events: list[Event]) -> list[str]:
    """The clauses that give ``events``, in order, each once: what decided a trick, what a hand scores, who wins."""
    wanted: list[Stand] = []
    hand: HandEvent | None = None
    for e in events:
        if isinstance(e, TrickEvent):
            wanted.append(_TRICK_TIED if e.winner is None else _TRICK_WON)
        elif isinstance(e, HandEvent):
            wanted += _hand(rules, e, not any(isinstance(x, TrickEvent) for x in events))
            hand = e
        elif isinstance(e, MatchEvent):
            wanted.append(_match(rules, hand))
    found = (_find(rules, w) for w in wanted)
    return list(dict.fromkeys(c for c in found if c is not None))


def allowing_clause(rules: Ruleset, m: Match, action: dict[str, Any]) -> str | None:
    """The clause that allows a legal action in this position."""
    act = action.get("act")
    if act == "play" and action.get("face_down") is True:
        base = "play.face_down"
    elif act == "play":
        base = "bid.answer" if m.phase == ANSWER else "play.any_card"
    elif act == "concede":
        base = "concede"
    elif act == "raise" and action.get("seat") != m.turn:  # a bid out of turn: only bid_timing any_seat allows it
        base = "bid.turn"
    elif act == "raise" and _last_to_play(m, action.get("seat")):  # only where last_position allows it
        base = "bid.not_last"
    elif act == "raise":
        base = "bid.open" if m.level == 0 else ("bid.answer" if m.phase in (ANSWER, PENDING) else "bid.later_raise")
    elif act == "accept":
        base = "bid.answer"
    elif act == "refuse":
        base = "bid.refusal"
    elif act == "signal":
        base = "signals.when"
    elif "side" in action:
        base = "twenty.decision"
    else:
        base = "tt.ask"
    return _find(rules, _ALLOWING[base])


def _last_to_play(m: Match, seat: Any) -> bool:
    played = [s for s, _ in m.trick()]
    return seat not in played and len(played) == m.tables.n - 1


# ------------------------------------------------------------------ grounds only the whole record gives


class Ruled(Protocol):
    """What :func:`settle` reads and writes of a ruling (vitou_ref.audit.audit.Ruling)."""

    n: int
    action: Any
    legal: bool
    code: str | None
    clause: str | None
    reason: Reason | None
    events: list[Event]
    allowed_by: str | None


def _after_end(
    rules: Ruleset, code: str, at: int, hand_number: int, e: HandEvent, inside: bool
) -> tuple[str | None, Reason]:
    """The clause an action breaks once the hand ended at action ``at`` (or the match with it), and why."""
    side = Ref("side", e.winner)
    if code == "MATCH_OVER":
        return _find(rules, _match(rules, e)), Reason("match_ended", action=at, side=side)
    kind = e.reason if e.reason in _BY_REASON else ("tricks" if e.winner is not None else "nobody")
    params: dict[str, Any] = {"hand": hand_number, "action": at}
    if e.winner is not None:
        params["side"] = side
    return _find(rules, _decided(rules, e, inside)), Reason(f"hand_ended.{kind}", **params)


def settle(rules: Ruleset, rulings: Sequence[Ruled]) -> None:
    """Give the rulings the grounds their position alone does not hold.

    An action made once a hand is over, with no deal for the next (NO_DEAL), breaks the clause that ended the hand,
    not the deal's: the third trick of a hand won on its first two was never to be played (§02, "Stop as soon as
    the result is determined"). Once the match is won (MATCH_OVER), it breaks what ended the match. The reason says
    on which action and for whom. A gesture, which no position lists among its legal actions, is allowed by the
    clause on gestures.
    """
    ended: tuple[int, int, HandEvent, bool] | None = None  # the action that ended the latest hand, its number...
    hands = 0
    for r in rulings:
        if r.legal:
            found = _ended(r.events)
            if found is not None:
                hands += 1
                ended = (r.n, hands, *found)
            if r.allowed_by is None and isinstance(r.action, dict) and r.action.get("act") == "signal":
                r.allowed_by = _find(rules, _ALLOWING["signals.when"])
        elif ended is not None and r.code in ("NO_DEAL", "MATCH_OVER"):
            clause, r.reason = _after_end(rules, str(r.code), *ended)
            r.clause = clause or r.clause


__all__ = ["Ruled", "Stand", "allowing_clause", "event_clauses", "settle"]
