"""The named conditions behind the error codes: which acts each one judges, as the interpreter evaluates them."""

# A ruleset's error list says, for each code, the condition that raises it and
# the acts it applies to; the interpreter evaluates the condition by its name.
# The acts are data, but not free: a condition must judge every act it is
# *required* for (or some illegal action would be refused with no code at
# all), and can judge only the acts it is *defined* for (a bid has no card to
# hold). Between the two a ruleset chooses: NOT_YOUR_TURN may also judge bids
# and refusals, which is the other reading of "another player is due to play"
# (clarification 21 of Vitou 1.1.0 rules it out for Vitou itself), and the
# codes that close bidding at twenty may also judge refusals.
#
# A rules file written before error conditions were data (Vitou 1.0.0) states
# none of this; it gets the required acts, which is what 1.0.0's cases expect.

from __future__ import annotations

from dataclasses import dataclass

# The acts of protocol v1, by what they decide (the protocol's spelling beside).
ACTS: tuple[str, ...] = (
    "play",  # {seat, act: play, card}
    "raise",  # {seat, act: raise, to}
    "accept",  # {seat, act: accept}: only where a raise is answered before any card (bid_answer: explicit)
    "refuse",  # {seat, act: refuse}
    "decide_play",  # {side, act: play_hand}: the side at twenty plays the hand
    "decide_decline",  # {side, act: decline_hand}
    "call_pass",  # {seat, act: pass}: at 20-20, the seat asked passes
    "call_play",  # {seat, act: play_hand}: at 20-20, the seat asked says play
    "signal",  # {seat, act: signal, signal}
    "concede",  # {seat, act: concede}: the seat due to act gives up the hand (Truco Paulista)
)
# The acts of the games written before accept existed: a ruleset that states no acts (Vitou 1.0.0) has these.
VITOU_ACTS: frozenset[str] = frozenset(ACTS) - {"accept", "concede"}
_ALL = frozenset(ACTS)
_SEAT_ACTS = _ALL - {"decide_play", "decide_decline"}
# The acts every game has: a card, a raise and its refusal (a fold).
_CORE = frozenset({"play", "raise", "refuse"})
_DECIDE = frozenset({"decide_play", "decide_decline"})
_CALL = frozenset({"call_pass", "call_play"})


@dataclass(frozen=True, slots=True)
class Condition:
    """What the interpreter evaluates for one error code."""

    name: str
    required: frozenset[str]  # acts it must judge, of those the game has (game_acts)
    defined: frozenset[str]  # acts it can judge (a superset of required)


def _c(name: str, required: frozenset[str], defined: frozenset[str] | None = None) -> Condition:
    return Condition(name, required, required if defined is None else defined)


CONDITIONS: dict[str, Condition] = {
    # Its acts are the game's: an action whose act it does not name is not a decision of this game.
    "ACTION_MALFORMED": _c("not_a_decision", _CORE, _ALL),
    "UNKNOWN_SEAT": _c("seat_not_at_table", _SEAT_ACTS),
    "UNKNOWN_SIDE": _c("side_not_at_table", _DECIDE),
    "CARD_MALFORMED": _c("not_a_card_of_the_pack", frozenset({"play"})),
    "UNKNOWN_BID": _c("not_a_bid_of_the_ladder", frozenset({"raise"})),
    "SIGNAL_UNKNOWN": _c("not_a_gesture", frozenset({"signal"})),
    "MATCH_OVER": _c("match_won", _ALL),
    "NO_DEAL": _c("no_deal_left", _ALL),
    # A signal has a place in every stage of a hand, so the stage never refuses it.
    "WRONG_PHASE": _c("act_of_another_stage", _ALL - {"signal"}, _ALL),
    "SIGNAL_FORBIDDEN": _c("gestures_forbidden_now", frozenset({"signal"})),
    # Judging refusals too is the other reading of "all bidding stops" (clarification 29 of 1.1.0 rules it out).
    "BID_CLOSED_TWENTY": _c("a_side_at_twenty", frozenset({"raise"}), frozenset({"raise", "refuse"})),
    "BID_CLOSED_TWENTY_TWENTY": _c("twenty_twenty", frozenset({"raise"}), frozenset({"raise", "refuse"})),
    "DECISION_WRONG_SIDE": _c("side_not_at_twenty", _DECIDE),
    "CALL_OUT_OF_TURN": _c("seat_not_asked", _CALL),
    "NOT_YOUR_TURN": _c("seat_not_due_to_play", frozenset({"play"}), frozenset({"play", "raise", "refuse"})),
    "CARD_NOT_HELD": _c("card_not_in_hand", frozenset({"play"})),
    "BID_OUT_OF_TURN": _c("bid_not_at_its_moment", frozenset({"raise"})),
    "REFUSE_NO_BID": _c("no_bid_awaits_an_answer", frozenset({"refuse"})),
    "REFUSE_NOT_FOLLOWER": _c("not_the_follower_now", frozenset({"refuse"})),
    "RAISE_FROM_LAST": _c("last_to_the_trick", frozenset({"raise"})),
    "RAISE_OWN_SIDE": _c("side_of_the_latest_bidder", frozenset({"raise"})),
    "RAISE_PAST_TOP": _c("ladder_at_its_top", frozenset({"raise"})),
    "RAISE_JUMP": _c("not_the_next_level", frozenset({"raise"})),
    # Where a raise is answered before any card (bid_answer: before_any_card), the codes of the wait.
    "RAISE_AWAITS_ANSWER": _c("a_raise_awaits_its_answer", frozenset({"play"})),
    "RAISE_OWN_WAITING": _c("own_raise_awaits_its_answer", frozenset({"raise"})),
    "ACCEPT_NO_RAISE": _c("no_raise_awaits_an_answer", frozenset({"accept"})),
    "ACCEPT_NOT_ANSWERER": _c("not_the_answerer", frozenset({"accept"})),
    # Where a card may be played face down (the face_down rule), before the trick it is allowed from.
    "FACE_DOWN_TOO_EARLY": _c("face_down_before_its_trick", frozenset({"play"})),
    # Where a hand may be conceded (the concede rule), by a seat that is not due to act.
    "CONCEDE_OUT_OF_TURN": _c("seat_not_due_to_act", frozenset({"concede"})),
}


def game_acts(errors: list[dict[str, object]]) -> frozenset[str]:
    """The acts of a game: those its ACTION_MALFORMED judges, or Vitou's eight where no code states acts."""
    for e in errors:
        acts = e.get("acts")
        if e.get("code") == "ACTION_MALFORMED" and isinstance(acts, list):
            return frozenset(a for a in acts if isinstance(a, str))
    return VITOU_ACTS


def default_acts(code: str) -> tuple[str, ...]:
    """The acts of a code whose ruleset states none (Vitou 1.0.0): Vitou's eight, or those it must judge of them."""
    cond = CONDITIONS.get(code)
    if code == "ACTION_MALFORMED":
        return tuple(a for a in ACTS if a in VITOU_ACTS)
    return tuple(a for a in ACTS if cond and a in cond.required and a in VITOU_ACTS)
