"""The clauses that give what an action brought about: a trick's winner, a hand's score, the match."""

from __future__ import annotations

from typing import Any

from ..engine.events import Event, HandEvent, MatchEvent, TrickEvent
from ..engine.match import Match
from ..engine.transitions import ANSWER, PENDING
from ..rules.model import Ruleset

# Each thing an event says, as Vitou's clause that says it, then the rules whose clause stands in for it
# in a game that names its clauses otherwise (Le Truc's fold is truc.fold, which binds "refusal").
_TRICK_WON = ("trick.rank_only", ("trick_compare",))
_TRICK_TIED = ("trick.tie", ("trick_tie",))
_RESOLUTION = ("hand.resolution", ("resolution",))
_BY_REASON = {
    "refusal": ("bid.refusal_value", ("refusal",)),
    "decline": ("twenty.decline", ("twenty_decline",)),
    "passed": ("tt.all_pass", ("twenty_twenty_all_pass",)),
}
_ACCEPTED = ("bid.accepted_value", ("ladder",))
_NO_BID = ("score.add", ("ladder",))
_MATCH_BID = ("bid.baraque", ())
_AT_TWENTY = ("twenty.play", ("twenty_play",))
_ALL_TIED_20_20 = ("tt.all_tied", ("twenty_twenty_all_tied",))
_TARGET = ("score.target", ("target",))


def _find(rules: Ruleset, wanted: tuple[str, tuple[str, ...]]) -> str | None:
    vitou_id, stand_ins = wanted
    clause = rules.current_clause(vitou_id)
    if clause in {c.id for c in rules.clauses}:
        return clause
    return next((rules.bindings[r] for r in stand_ins if r in rules.bindings), None)


def _hand(e: HandEvent) -> list[tuple[str, tuple[str, ...]]]:
    if e.reason in _BY_REASON:
        return [_BY_REASON[e.reason]]
    if e.reason == "tied" and e.mode == "twenty_twenty":
        return [_ALL_TIED_20_20]
    out: list[tuple[str, tuple[str, ...]]] = [_RESOLUTION]  # who wins the hand on its tricks, or that nobody does
    if isinstance(e.points, str):
        out.append(_MATCH_BID)
    elif e.winner is not None:
        out.append(_AT_TWENTY if e.mode == "twenty" else _ACCEPTED if e.bidder is not None else _NO_BID)
    return out


def event_clauses(rules: Ruleset, events: list[Event]) -> list[str]:
    """The clauses that give ``events``, in order, each once: what decided a trick, what a hand scores, who wins."""
    wanted: list[tuple[str, tuple[str, ...]]] = []
    match_bid = False
    for e in events:
        if isinstance(e, TrickEvent):
            wanted.append(_TRICK_TIED if e.winner is None else _TRICK_WON)
        elif isinstance(e, HandEvent):
            wanted += _hand(e)
            match_bid = isinstance(e.points, str)
        elif isinstance(e, MatchEvent):
            wanted.append(_MATCH_BID if match_bid else _TARGET)
    found = (_find(rules, w) for w in wanted)
    return list(dict.fromkeys(c for c in found if c is not None))


def allowing_clause(rules: Ruleset, m: Match, action: dict[str, Any]) -> str | None:
    """The clause that allows a legal action in this position."""
    act = action.get("act")
    if act == "play":
        base = "bid.answer" if m.phase == ANSWER else "play.any_card"
    elif act == "raise" and action.get("seat") != m.turn:  # a bid out of turn: only bid_timing any_seat allows it
        base = "bid.turn"
    elif act == "raise":
        base = "bid.open" if m.level == 0 else ("bid.answer" if m.phase in (ANSWER, PENDING) else "bid.later_raise")
    elif act == "accept":
        base = "bid.answer"
    elif act == "refuse":
        base = "bid.refusal"
    elif "side" in action:
        base = "twenty.decision"
    else:
        base = "tt.ask"
    clause = rules.current_clause(base)
    ids = {c.id for c in rules.clauses}
    if clause in ids:
        return clause
    # A game of its own (Le Truc) names its clauses otherwise: the clause that binds the same rule.
    rule = _RULE_OF.get(base)
    return rules.bindings.get(rule) if rule is not None else None


# The rule each of Vitou's allowing clauses binds, for a ruleset whose clauses have other ids.
_RULE_OF = {"bid.turn": "bid_timing", "bid.open": "opening", "bid.answer": "bid_answer"}
_RULE_OF |= {"bid.later_raise": "later_raise", "bid.refusal": "refusal", "twenty.decision": "twenty"}


__all__ = ["allowing_clause", "event_clauses"]
