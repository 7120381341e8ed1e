"""Le Truc's deliberately wrong rulesets: an implementer's mistakes in its pack, its raises and their answers.

Made from le-truc's own document as Vitou's are from Vitou's (mutants.py): the data of a clause, the
resolution rows or the error list changed in memory, served under le-truc's own name. A mistake that
no data can state (a raise again refused, the answerer playing after an accept) is a fake engine of
the tests instead (tests/fakes/truc_mistakes.py).
"""

from __future__ import annotations

from collections.abc import Callable

from .mutantops import (
    _STOP_EARLY,
    _STOP_LATE,
    Doc,
    Mutant,
    _add_code,
    _before,
    _bind,
    _both,
    _data,
    _ladder,
    _reversed_order,
    _row,
    _rows,
    _set,
    _swap,
    _usual_order,
    _without_act,
)

GAME = "le-truc"
_BIDS = (2, 4, 6, 8, 10, 12)


def _past_twelve(doc: Doc) -> None:
    # One more level above 12: a raise once 12 is agreed or proposed is taken, as if the ladder went on.
    _data(doc, "ladder")["levels"].append({"bid": 14, "value": 14, "refused": 12})


def _truc(name: str, mistake: str, change: Callable[[Doc], None], equivalent: str | None = None) -> Mutant:
    return Mutant(name, mistake, change, equivalent, game=GAME)


# Vitou's way of answering: after the raiser's card, by playing; accept is then no act of the game.
_BY_PLAYING = _both(
    _set("bid_answer", when="after_bidders_card", accept="by_playing"),
    _without_act("accept", "ACCEPT_NO_RAISE", "ACCEPT_NOT_ANSWERER", "RAISE_AWAITS_ANSWER", "RAISE_OWN_WAITING"),
)
# The follower, last to the trick, may not raise: Vitou's rule for two players, with Vitou's code for it.
_NOT_FROM_LAST = _both(
    _set("last_position", bids="forbidden"),
    _add_code("RAISE_FROM_LAST", "truc.last_raises", "last_to_the_trick", ["raise"], "RAISE_PAST_TOP"),
)
TRUC_MUTANTS: tuple[Mutant, ...] = (
    # ---- cards and tricks (§1, §2)
    _truc("truc-weaker-wins", "lets the weaker card win: the rank order reversed, 4 high and 3 low", _reversed_order),
    _truc("truc-2-above-3", "puts the 2 above the 3", _swap(0)),
    _truc("truc-ace-above-2", "puts the ace above the 2", _swap(1)),
    _truc("truc-rank-natural", "uses the usual order, ace high, 3 and 2 the lowest", _usual_order),
    _truc(
        "truc-spoilt-eldest-leads",
        "has the player who did not deal lead after a spoilt trick",
        _set("trick_tie", next_leader="eldest"),
        equivalent="the player who did not deal leads the first trick, and a hand goes on after a spoilt trick "
        "only when every trick before it was spoilt (T, TT): the leader of the spoilt trick is always that player",
    ),
    _truc(
        "truc-all-spoilt-eldest",
        "gives a hand of three spoilt tricks to the player who did not deal",
        _row("TTT", "eldest"),
    ),
    _truc("truc-xyt-second-winner", "gives X Y T to the winner of the second trick", _row("ABT", "B")),
    _truc("truc-stop-late", "always plays the three tricks", _rows(_STOP_LATE)),
    _truc("truc-stop-early", "ends the hand on the first trick won", _rows(_STOP_EARLY)),
    _truc(
        "truc-stop-mid-trick",
        "stops a hand inside a trick once its result is known (the text: at the end of a trick)",
        _bind("hand_stop", at="as_soon_as_determined"),
    ),
    # ---- the deal (§1)
    _truc("truc-dealer-leads", "has the dealer lead the first trick", _set("first_lead", leader="dealer")),
    _truc("truc-highest-deals", "lets the higher card of the draw deal", _set("draw", dealer="highest")),
    _truc(
        "truc-dealer-passes-back",
        "passes the deal to the previous player",
        _set("dealer_rotation", passes="previous"),
        equivalent="with two players the previous player is the next one: the deal alternates either way",
    ),
    _truc(
        "truc-everyone-redraws",
        "has every player draw again on equal ranks",
        _set("redraw", who="all"),
        equivalent="with two players, equal ranks are both players' draws: the same two draw again",
    ),
    # ---- the stake, raises and answers (§3)
    _truc(
        "truc-fold-pays-raised",
        "pays a fold the raised stake instead of the stake before it (2 for a raise to 2 folded, ...)",
        _ladder(**{str(b): {"refused": b} for b in _BIDS}),
    ),
    _truc(
        "truc-fold-pays-one",
        "pays 1 for any fold, whatever the stake",
        _ladder(**{str(b): {"refused": 1} for b in _BIDS}),
    ),
    _truc("truc-fold-pays-folder", "gives the fold's points to the player who folds", _set("refusal", pays="refusers")),
    _truc(
        "truc-answer-by-playing",
        "answers a raise Vitou's way: after the raiser's card, a card accepts it (no accept)",
        _BY_PLAYING,
    ),
    _truc("truc-follower-no-raise", "does not let the follower, last to the trick, raise", _NOT_FROM_LAST),
    _truc("truc-raise-past-12", "lets a raise go past 12 (to 14)", _past_twelve),
    _truc("truc-jumps", "lets a raise skip levels", _set("jumps", allowed=True)),
    _truc("truc-first-trick-only", "allows the first raise only in the first trick", _set("opening", tricks=[1])),
    _truc(
        "truc-no-later-raises",
        "allows a raise after the first only as the answer to a raise",
        _set("later_raise", allowed=False),
    ),
    # ---- the match (§4)
    _truc("truc-target-11", "ends the match at 11 points instead of 12", _set("target", points=11)),
    _truc("truc-target-13", "needs 13 points to win the match", _set("target", points=13)),
    # ---- the order of the error codes: which rule an action breaks first
    _truc(
        "truc-card-before-turn",
        "checks whether the card is held before whose turn it is",
        _before("CARD_NOT_HELD", "NOT_YOUR_TURN"),
    ),
    _truc(
        "truc-turn-before-wait",
        "refuses the raiser's card while its raise waits as out of turn, not as a raise awaiting its answer",
        _before("NOT_YOUR_TURN", "RAISE_AWAITS_ANSWER"),
    ),
    _truc(
        "truc-moment-before-own-wait",
        "refuses a raise by the raiser while its raise waits as out of turn, not as its own raise waiting",
        _before("BID_OUT_OF_TURN", "RAISE_OWN_WAITING"),
    ),
    _truc(
        "truc-answerer-before-raise",
        "asks who may accept before whether a raise waits (an accept with nothing waiting, by the player not in turn)",
        _before("ACCEPT_NOT_ANSWERER", "ACCEPT_NO_RAISE"),
    ),
    _truc(
        "truc-follower-before-bid",
        "asks who may fold before whether a raise waits",
        _before("REFUSE_NOT_FOLLOWER", "REFUSE_NO_BID"),
    ),
)
