"""Deliberately wrong rulesets: each one a plausible implementer's mistake, made by altering the rules data.

A mutant is a version of Vitou's document with the data of one or two
clauses, or its error table, changed in memory (the shipped spec is never
touched), built without the consistency checks (some mistakes are
inconsistent on purpose) and served under the base's own name, so that the
suite applies to it unchanged. The suite's mutation score is the share of
mutants that some case catches. The error-table mutants apply from Vitou
1.1.0, the first version whose error list states each code's acts and
condition; under 1.0.0 those choices were left to the cases.
"""

from __future__ import annotations

import copy

from ..rules.load import build_ruleset
from ..rules.model import Ruleset
from ..rules.problems import Problem
from .mutantops import (
    _STOP_EARLY,
    _STOP_LATE,
    Mutant,
    _acts,
    _before,
    _bind,
    _both,
    _ladder,
    _row,
    _rows,
    _set,
    _swap,
    _usual_order,
)
from .paulista_mutants import PAULISTA_MUTANTS
from .truc_mutants import TRUC_MUTANTS

_V11 = (1, 1, 0)

MUTANTS: tuple[Mutant, ...] = (
    # Named after Vitou's ranks; each takes the pack of the ruleset it mutates.
    Mutant("rank-9-above-10", "puts the second rank above the highest (Vitou: the 9 above the 10)", _swap(0)),
    Mutant("rank-ace-above-9", "puts the third rank above the second (Vitou: the ace above the 9)", _swap(1)),
    Mutant("rank-natural", "uses the usual order, ace high, 10 below the jack", _usual_order),
    Mutant(
        "partners-tie-wins",
        "lets partners' matching top cards win the trick",
        _set("trick_tie", same_side="first_played_wins"),
    ),
    Mutant(
        "tie-eldest-leads",
        "has the eldest hand lead after a tied trick",
        _set("trick_tie", next_leader="eldest"),
        equivalent="the eldest hand leads the first trick, and a hand goes on after a tie only when every trick "
        "before it was tied (T, TT): the player who led the tied trick is always the eldest hand",
    ),
    Mutant("all-tied-eldest", "gives a hand of three tied tricks to the eldest hand's side", _row("TTT", "eldest")),
    Mutant(
        "abt-second-winner",
        "gives a tied third trick after split tricks to the second trick's winner",
        _row("ABT", "B"),
    ),
    Mutant(
        "at-goes-on",
        "plays a third trick after a won first trick and a tied second",
        _rows(
            [(i, p, w) for i, p, w in _STOP_LATE if i.startswith("AT")]
            + [
                ("AA", ["A", "A"], "A"),
                ("TA", ["T", "A"], "A"),
                ("ABA", ["A", "B", "A"], "A"),
                ("ABB", ["A", "B", "B"], "B"),
                ("ABT", ["A", "B", "T"], "A"),
                ("TTA", ["T", "T", "A"], "A"),
                ("TTT", ["T", "T", "T"], "none"),
            ]
        ),
    ),
    Mutant("stop-late", "always plays the three tricks", _rows(_STOP_LATE)),
    Mutant(
        "stop-mid-trick",
        "stops a hand in the middle of a trick once its result is determined (clarification 3's other reading)",
        _bind("hand_stop", at="as_soon_as_determined"),
    ),
    Mutant("stop-early", "ends the hand on the first trick won", _rows(_STOP_EARLY)),
    Mutant(
        "refusal-pays-refused",
        "pays the refused level instead of the one below",
        _ladder(**{"3": {"refused": 3}, "6": {"refused": 6}, "12": {"refused": 12}}),
    ),
    Mutant("refusal-pays-refuser", "pays a refusal to the side that refused", _set("refusal", pays="refusers")),
    Mutant("raise-from-last", "lets the last player of a trick bid", _set("last_position", bids="allowed")),
    Mutant("raise-partner", "lets a player raise its own side's bid", _set("raise_side", by="any")),
    Mutant("jumps", "lets a bid skip levels", _set("jumps", allowed=True)),
    Mutant("refusal-by-anyone", "lets any opponent of the bidder refuse", _set("refusal", by="any_opponent")),
    Mutant(
        "baraque-worth-12", "scores an accepted baraque as 12 points, not the match", _ladder(baraque={"value": 12})
    ),
    Mutant("bid-at-twenty", "lets players bid while a side has 20", _set("twenty_bids", bids="open")),
    Mutant("decline-worth-3", "gives 3 for a declined hand at twenty", _set("twenty_decline", opponents=3)),
    Mutant(
        "lose-at-twenty-worth-1", "gives the opponents 1 when the side at twenty loses", _set("twenty_play", lose=1)
    ),
    Mutant(
        "no-twenty-ending",
        "has no twenty-point or 20-20 ending",
        _both(_set("twenty", enabled=False), _set("twenty_twenty", enabled=False)),
    ),
    Mutant(
        "tt-all-pass-same-dealer",
        "re-deals with the same dealer after four passes at 20-20",
        _set("twenty_twenty_all_pass", dealer="stays"),
    ),
    Mutant(
        "tt-all-tied-same-dealer",
        "re-deals with the same dealer after an all-tied 20-20 hand",
        _set("twenty_twenty_all_tied", dealer="stays"),
    ),
    Mutant("dealer-passes-right", "passes the deal to the right", _set("dealer_rotation", passes="previous")),
    Mutant("highest-deals", "lets the highest card of the draw deal", _set("draw", dealer="highest")),
    Mutant("everyone-redraws", "has everyone redraw on a tie for lowest", _set("redraw", who="all")),
    Mutant("signals-at-tt", "allows signals at 20-20", _set("twenty_twenty_signals", signals="allowed")),
    Mutant("open-first-trick-only", "allows opening only in the first trick", _set("opening", tricks=[1])),
    Mutant(
        "no-later-raises", "allows a raise only as the immediate answer to a bid", _set("later_raise", allowed=False)
    ),
    Mutant("dealer-leads", "has the dealer lead the first trick", _set("first_lead", leader="dealer")),
    Mutant(
        "tt-caller-leads",
        "has the player who says play lead at 20-20",
        _set("twenty_twenty_play", leader="first_to_play"),
    ),
    Mutant("tt-dealer-asked-first", "asks the dealer first at 20-20", _set("twenty_twenty_ask", first="dealer")),
    Mutant("tt-win-worth-3", "scores 3 for the 20-20 hand", _set("twenty_twenty_play", win=3)),
    Mutant("target-22", "needs more than 21 to win", _set("target", points=22)),
    Mutant("signals-never", "refuses every signal", _set("signals_allowed", allowed="never")),
    Mutant(
        "twenty-win-no-match",
        "does not end the match when the side at twenty wins",
        _set("twenty_play", win_takes_match=False),
        equivalent="20 + 1 reaches the target of 21: the match ends on the score anyway",
    ),
    Mutant(
        "deal-from-the-right",
        "deals the first packet to the dealer's right",
        _set("deal", first="previous"),
        equivalent="protocol v1 gives every deal explicitly; the order of the packets never shows",
    ),
)

MUTANTS += (
    Mutant(
        "turn-covers-bids",
        "reports NOT_YOUR_TURN for any action by a seat not due, bids and refusals included",
        _acts("NOT_YOUR_TURN", "play", "raise", "refuse"),
        since=_V11,
    ),
    Mutant(
        "card-before-turn",
        "checks whether the card is held before whose turn it is",
        _before("CARD_NOT_HELD", "NOT_YOUR_TURN"),
        since=_V11,
    ),
    Mutant(
        "side-before-moment",
        "judges a bid's side before its moment (a second bid before the bidder's card is RAISE_OWN_SIDE)",
        _before("RAISE_OWN_SIDE", "BID_OUT_OF_TURN"),
        since=_V11,
    ),
    Mutant(
        "follower-before-bid",
        "asks whether the refuser is the follower before whether a bid awaits an answer",
        _before("REFUSE_NOT_FOLLOWER", "REFUSE_NO_BID"),
        since=_V11,
    ),
    Mutant(
        "side-before-position",
        "judges a bid's side before whether the bidder is last to the trick",
        _before("RAISE_OWN_SIDE", "RAISE_FROM_LAST"),
        since=_V11,
    ),
    Mutant(
        "moment-before-twenty",
        "at twenty, reports a bid by the wrong seat as out of turn rather than closed",
        _before("BID_OUT_OF_TURN", "BID_CLOSED_TWENTY"),
        since=_V11,
    ),
    Mutant(
        "refusal-closed-at-twenty",
        "refuses a refusal at twenty as a closed bid rather than one with no bid to answer",
        _acts("BID_CLOSED_TWENTY", "raise", "refuse"),
        since=_V11,
    ),
)

# Le Truc's mistakes, made from its own document (truc_mutants.py); a name is a mutant's in one game only.
MUTANTS += TRUC_MUTANTS
# Truco Paulista's, made from its own document (paulista_mutants.py).
MUTANTS += PAULISTA_MUTANTS

BY_NAME = {m.name: m for m in MUTANTS}
GAMES = tuple(dict.fromkeys(m.game for m in MUTANTS))  # the rulesets mutants are made from


def build_mutant(base: Ruleset, name: str) -> Ruleset:
    """The mutant ``name`` of ``base``, under the base's own name (the base itself where the mistake cannot apply).

    ``base`` is a version of the mutant's game or a ruleset of its own made like one (a pack of forty for Vitou);
    which rulesets to mutate is the caller's choice (the adapter: every version of the game).
    """
    mutant = BY_NAME[name]
    if not mutant.applies_to(base.version, mutant.game):
        return base
    doc = copy.deepcopy(base.to_json())
    mutant.change(doc)

    def locate(code: str, message: str, path: tuple[object, ...]) -> Problem:
        return Problem(code, message, f"mutant {name}")

    return build_ruleset(doc, locate, strict=False)
