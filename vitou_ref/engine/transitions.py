"""The match's state machine as a table of data: which decisions each phase accepts."""

# How the machine works
# ---------------------
# A match is always in exactly one phase. Every decision a player (or, at
# twenty, a side) makes is an *act*. The act is looked up in TRANSITIONS under
# the current phase:
#
# * no entry: the act belongs to another stage of the hand. It is refused with
#   WRONG_PHASE, and the error names the role (seat or side), the phase and
#   the act. MATCH_OVER and NO_DEAL are phases with no entries at all, and
#   refuse everything with their own code.
# * an entry: it names the handler that applies the act and every phase the
#   match may be in afterwards. Before the handler runs, the act is checked
#   against the rules (whose turn, which card, which bid level...); a refused
#   act leaves the match exactly as it was. The handler itself cannot fail.
#
# A hand moves through the phases in this order: DECISION (only when one side
# has exactly 20), CALL (only at 20-20), then PLAY, where each card may be
# preceded by a bid; a bid by the seat in turn moves to CARD (the bidder must
# now play). The answer to a bid belongs to the first seat of the side opposite
# the latest bidder to play after it (after the bidder's card, when it owes
# one): while a seat of the bidder's side is in turn the match is in AWAIT (that
# seat plays on, it neither bids nor refuses), and when the answering seat's
# turn comes, in ANSWER (it accepts by playing, raises, or refuses). Under the
# base rules of four seats the answering seat is always the bidder's immediate
# follower, so AWAIT is met only where a bid from last position is allowed (the
# next leader may be the bidder's side) or where any seat may bid (bid_timing:
# any_seat, a bid by a seat not in turn, which owes no card). Where a raise is
# answered before any card (bid_answer: before_any_card, Le Truc), a raise moves
# the match to PENDING instead, and the raiser's opponent is in turn to answer:
# accept (the seat whose turn the raises interrupted plays), refuse (fold), or
# raise again (the first raiser answers now); no card is played meanwhile.
# Where the rules let the seat due to act concede the hand (the concede rule, Truco Paulista), it may in
# PLAY, in PENDING (a fold) and, by a seat of the deciding side, in DECISION (a decline); those rules
# answer every raise before any card, so CARD, ANSWER and AWAIT never meet it (rules/settings.py).
# When a hand ends,
# the next hand is dealt and the match goes to the first phase of that hand,
# or to OVER when the match is won, or to NO_DEAL when no cards are left to
# deal.
#
# The entries below are data; tests check that after every applied act the
# match is in one of the phases its entry lists.

from __future__ import annotations

# The play of the tricks holds the four lowest numbers, so that "ph <= AWAIT"
# means "a card is due", and "ph <= ANSWER" "a bid may be made"; PLAY is 0, so
# that "if ph:" tells ANSWER from PLAY (the hot path tests these).
PLAY = 0  # no bid awaits an answer: the seat in turn plays a card, and may bid first
ANSWER = 1  # the seat that answers a bid is in turn: play (accept), raise, refuse
CARD = 2  # the seat that has just bid in turn must play its card
AWAIT = 3  # a bid awaits its answer, and a seat of the bidder's side is in turn: it plays on
PENDING = 4  # a raise awaits its answer before any card: the answering seat is in turn (bid_answer)
DECISION = 5  # the side at exactly 20 decides to play or to decline the hand
CALL = 6  # at 20-20, the seat asked says pass or play
OVER = 7  # the match has been won
NO_DEAL = 8  # a hand is due but no deal is left

PHASE_NAMES = (
    "play",
    "answer",
    "bid_card",
    "awaiting_answer",
    "raise_pending",
    "twenty_decision",
    "twenty_twenty_call",
    "match_over",
    "no_deal",
)

# Phases a match can be in once a hand has ended and the next one is dealt.
_NEXT_HAND = frozenset({PLAY, DECISION, CALL, OVER, NO_DEAL})

# act -> (handler, phases after)
TRANSITIONS: dict[int, dict[str, tuple[str, frozenset[int]]]] = {
    PLAY: {
        "play": ("play", frozenset({PLAY}) | _NEXT_HAND),
        # CARD for a bid by the seat in turn; ANSWER or AWAIT for one by another seat (any_seat);
        # PENDING where a raise is answered before any card (bid_answer: before_any_card)
        "raise": ("raise", frozenset({CARD, ANSWER, AWAIT, PENDING})),
        "refuse": ("refuse", _NEXT_HAND),  # always refused here: no bid awaits an answer
        "accept": ("accept", frozenset({PLAY})),  # always refused here: no raise awaits an answer
        "signal": ("signal", frozenset({PLAY})),
        "concede": ("concede", _NEXT_HAND),  # the seat in turn gives up the hand (the concede rule)
    },
    CARD: {
        "play": ("play", frozenset({ANSWER, AWAIT}) | _NEXT_HAND),
        "raise": ("raise", frozenset({CARD})),  # always refused: the bidder owes a card
        "refuse": ("refuse", _NEXT_HAND),  # always refused: no card yet to answer
        "signal": ("signal", frozenset({CARD})),
    },
    ANSWER: {
        "play": ("play", frozenset({PLAY, ANSWER}) | _NEXT_HAND),
        "raise": ("raise", frozenset({CARD})),
        "refuse": ("refuse", _NEXT_HAND),
        "signal": ("signal", frozenset({ANSWER})),
    },
    AWAIT: {
        "play": ("play", frozenset({ANSWER, AWAIT}) | _NEXT_HAND),
        "raise": ("raise", frozenset({AWAIT})),  # always refused: the bid awaits its answer
        "refuse": ("refuse", _NEXT_HAND),  # always refused: the answering seat is not in turn yet
        "signal": ("signal", frozenset({AWAIT})),
    },
    PENDING: {
        "play": ("play", frozenset({PENDING})),  # always refused: the raise waits for its answer
        "raise": ("raise", frozenset({PENDING})),  # the answering seat raises again; the first raiser answers
        "accept": ("accept", frozenset({PLAY})),
        "refuse": ("refuse", _NEXT_HAND),  # a fold
        "signal": ("signal", frozenset({PENDING})),
        "concede": ("concede", _NEXT_HAND),  # the answering seat concedes: a fold
    },
    DECISION: {
        "decide_play": ("decide", frozenset({PLAY})),
        "decide_decline": ("decide", _NEXT_HAND),
        "signal": ("signal", frozenset({DECISION})),
        "concede": ("concede", _NEXT_HAND),  # a seat of the deciding side concedes: the hand is declined
    },
    CALL: {
        "call_pass": ("call", frozenset({CALL}) | _NEXT_HAND),
        "call_play": ("call", frozenset({PLAY})),
        "signal": ("signal", frozenset({CALL})),  # always refused where 20-20 forbids signals
    },
    OVER: {},
    NO_DEAL: {},
}
