"""Truco Paulista's deliberately wrong rulesets: the mistakes engines of this game are known to make, as data.

Made from truco-paulista's own document as Le Truc's are from its own (truc_mutants.py). A mistake no data
can state (the manilhas tied with one another, a face-down card that keeps its strength) is a fake engine of
the tests instead (tests/fakes/paulista_mistakes.py).
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
    _both,
    _data,
    _ladder,
    _reversed_order,
    _row,
    _rows,
    _set,
    _swap,
    _without_act,
)

GAME = "truco-paulista"
_BIDS = (3, 6, 9, 12)


def _tp(name: str, mistake: str, change: Callable[[Doc], None], equivalent: str | None = None) -> Mutant:
    return Mutant(name, mistake, change, equivalent, game=GAME)


def _past_twelve(doc: Doc) -> None:
    # One more level above 12: a raise once 12 is agreed or proposed is taken, as if the ladder went on.
    _data(doc, "ladder")["levels"].append({"bid": 15, "value": 15, "refused": 12})


def _manilha_below(doc: Doc) -> None:
    # The circle read the wrong way round: the rank below the turn-up's makes the manilhas.
    data = _data(doc, "turn_up")
    data["circle"] = list(reversed(data["circle"]))


def _unbind(doc: Doc, rule: str) -> None:
    # The clause stays (clarifications cite it), without its rule: the rule's stand-in, off, applies.
    for clause in doc["clauses"]:
        if clause.get("rule") == rule:
            del clause["rule"], clause["data"]


def _no_face_down(doc: Doc) -> None:
    # No card is ever played face down: the field is then no field of a play (ACTION_MALFORMED).
    _unbind(doc, "face_down")
    doc["errors"] = [e for e in doc["errors"] if e["code"] != "FACE_DOWN_TOO_EARLY"]


def _no_concede(doc: Doc) -> None:
    # No hand is ever conceded: the act is then no decision of the game (ACTION_MALFORMED).
    _without_act("concede", "CONCEDE_OUT_OF_TURN")(doc)
    _unbind(doc, "concede")


def _eldest_for_none(rows: list[tuple[str, list[str], str]]) -> list[tuple[str, list[str], str]]:
    # The mistaken tables of when a hand stops, with this game's own three tied tricks (the first leader wins).
    return [(i, p, "eldest" if w == "none" else w) for i, p, w in rows]


# Le Truc's first mistake here too: the player last to the trick may not raise, with Vitou's code for it.
_NOT_FROM_LAST = _both(
    _set("last_position", bids="forbidden"),
    _add_code("RAISE_FROM_LAST", "tp.follower_raises", "last_to_the_trick", ["raise"], "RAISE_PAST_TOP"),
)

PAULISTA_MUTANTS: tuple[Mutant, ...] = (
    # ---- the strength of a card (§2)
    _tp("tp-queen-above-jack", "puts the queen above the jack, as in the usual order", _swap(4)),
    _tp("tp-jack-above-king", "puts the jack above the king", _swap(3)),
    _tp("tp-weaker-wins", "lets the weaker card win: the rank order reversed", _reversed_order),
    _tp("tp-manilha-below", "makes the rank below the turn-up's the manilhas", _manilha_below),
    _tp(
        "tp-manilha-suits-reversed",
        "orders the manilhas by suit the wrong way: clubs the lowest, diamonds the highest",
        _set("turn_up", suits_lowest_first=["C", "H", "S", "D"]),
    ),
    _tp(
        "tp-manilha-spades-lowest",
        "puts the manilha of spades below that of diamonds",
        _set("turn_up", suits_lowest_first=["S", "D", "H", "C"]),
    ),
    # ---- tricks and the hand (§3)
    _tp(
        "tp-face-down-first-trick",
        "lets a card be played face down in the first trick",
        _set("face_down", from_trick=1),
    ),
    _tp(
        "tp-face-down-third-trick",
        "lets a card be played face down only from the third trick",
        _set("face_down", from_trick=3),
    ),
    _tp("tp-no-face-down", "has no face-down card", _no_face_down),
    _tp("tp-all-tied-nobody", "scores nothing for three tied tricks", _row("TTT", "none")),
    _tp("tp-xyt-second-winner", "gives X Y T to the winner of the second trick", _row("ABT", "B")),
    _tp("tp-stop-late", "always plays the three tricks", _rows(_eldest_for_none(_STOP_LATE))),
    _tp("tp-stop-early", "ends the hand on the first trick won", _rows(_eldest_for_none(_STOP_EARLY))),
    _tp(
        "tp-tied-eldest-leads",
        "has the player who did not deal lead after a tied trick",
        _set("trick_tie", next_leader="eldest"),
        equivalent="the player who did not deal leads the first trick, and a hand goes on after a tied trick only "
        "when every trick before it was tied (T, TT): the leader of the tied trick is always that player",
    ),
    # ---- the deal (§1)
    _tp("tp-dealer-leads", "has the dealer lead the first trick", _set("first_lead", leader="dealer")),
    _tp("tp-highest-deals", "lets the higher card of the draw deal", _set("draw", dealer="highest")),
    # ---- the stake, raises and answers (§4)
    _tp(
        "tp-fold-pays-raised",
        "pays a fold the raised stake instead of the stake before it (3 for a raise to 3 folded, ...)",
        _ladder(**{str(b): {"refused": b} for b in _BIDS}),
    ),
    _tp("tp-fold-pays-one", "pays 1 for any fold", _ladder(**{str(b): {"refused": 1} for b in _BIDS})),
    _tp("tp-fold-pays-folder", "gives the fold's points to the player who folds", _set("refusal", pays="refusers")),
    _tp(
        "tp-same-player-raises-twice",
        "lets the player whose raise was the last accepted raise again (Le Truc's rule)",
        _set("raise_side", by="any"),
    ),
    _tp("tp-follower-no-raise", "does not let the other player, last to the trick, raise", _NOT_FROM_LAST),
    _tp("tp-raise-past-12", "lets a raise go past 12 (to 15)", _past_twelve),
    _tp("tp-jumps", "lets a raise skip levels", _set("jumps", allowed=True)),
    _tp("tp-first-trick-only", "allows the first raise only in the first trick", _set("opening", tricks=[1])),
    _tp(
        "tp-no-later-raises",
        "allows a raise after the first only as the answer to a raise",
        _set("later_raise", allowed=False),
    ),
    # ---- conceding (§5)
    _tp("tp-no-concede", "does not let a hand be conceded", _no_concede),
    # ---- the hand of eleven (§6)
    _tp("tp-raise-at-eleven", "lets a player raise during a hand of eleven", _set("twenty_bids", bids="open")),
    _tp(
        "tp-raise-at-eleven-eleven", "lets a player raise when both are at 11", _set("twenty_twenty_bids", bids="open")
    ),
    _tp("tp-eleven-worth-one", "counts a played hand of eleven 1 point", _set("twenty_play", win=1, lose=1)),
    _tp(
        "tp-eleven-fold-three",
        "gives the other player 3 when the hand of eleven is folded",
        _set("twenty_decline", opponents=3),
    ),
    _tp("tp-eleven-at-ten", "makes a hand at 10 points the hand of eleven", _set("twenty", at=10)),
    _tp(
        "tp-both-eleven-worth-one", "counts the hand both players at 11 play 1 point", _set("twenty_twenty_play", win=1)
    ),
    # ---- scoring and the match (§7)
    _tp("tp-scores-pass-twelve", "lets a score pass 12 (11 and 3 make 14)", _set("target", scores="pass")),
    _tp(
        "tp-target-11",
        "ends the match at 11 points instead of 12 (and plays the hand of eleven at 10)",
        _both(_set("target", points=11), _set("twenty", at=10)),
    ),
    # ---- the order of the error codes: which rule an action breaks first
    _tp(
        "tp-turn-before-wait",
        "refuses a card while a raise waits as out of turn",
        _before("NOT_YOUR_TURN", "RAISE_AWAITS_ANSWER"),
    ),
    _tp(
        "tp-card-before-turn",
        "checks whether the card is held before whose turn it is",
        _before("CARD_NOT_HELD", "NOT_YOUR_TURN"),
    ),
    _tp(
        "tp-face-down-before-held",
        "refuses a card not held, played face down in the first trick, as face down too early",
        _before("FACE_DOWN_TOO_EARLY", "CARD_NOT_HELD"),
    ),
    _tp(
        "tp-own-raise-before-moment",
        "refuses a raise by the player not in turn as the last accepted raiser's",
        _before("RAISE_OWN_SIDE", "BID_OUT_OF_TURN"),
    ),
    _tp(
        "tp-moment-before-closed",
        "refuses a raise at a hand of eleven, by the player not in turn, as out of turn",
        _before("BID_OUT_OF_TURN", "BID_CLOSED_TWENTY"),
    ),
    _tp(
        "tp-answerer-before-raise",
        "asks who may accept before whether a raise waits",
        _before("ACCEPT_NOT_ANSWERER", "ACCEPT_NO_RAISE"),
    ),
    _tp(
        "tp-follower-before-bid",
        "asks who may fold before whether a raise waits",
        _before("REFUSE_NOT_FOLLOWER", "REFUSE_NO_BID"),
    ),
)
