"""The interpreter follows the rules data: altered copies of the spec change play, with no code change."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import SPEC, acts, deal, errors, events

from vitou_ref import Match, load_rules_text
from vitou_ref.engine.tables import tables_for
from vitou_ref.protocol.server import run_case

TEXT = SPEC.read_text(encoding="utf-8")


def altered(*pairs: tuple[str, str]) -> Any:
    text = TEXT
    for old, new in pairs:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return load_rules_text(text.replace("  id: vitou\n", "  id: vitou-altered\n"), "altered.yaml")


def run_with(rules: Any, actions: str, deals: list[str], **setup: Any) -> dict[str, Any]:
    return run_case(tables_for(rules), {"dealer": "W", "deals": [deal(d) for d in deals], **setup}, acts(actions), 1)


D = "N: 10S 7S QC | E: 7H 10H 9H | S: 8H JS 9S | W: 8D 8C KD"


def test_another_rank_order() -> None:
    rules = altered(
        (
            '      highest_first: ["10", "9", "A", "K", "Q", "J", "8", "7"]',
            '      highest_first: ["7", "10", "9", "A", "K", "Q", "J", "8"]',
        )
    )
    # With 7 on top, E's 7H takes the trick that N's 10S would take under Vitou 1.0.
    r = run_with(rules, "N 10S, E 7H, S 8H, W 8D", [D])
    assert r["steps"][-1]["events"] == [{"event": "trick", "trick": 1, "winner": "E"}]


def test_another_ladder_and_refusal_values() -> None:
    rules = altered(
        ("        - {bid: 3, value: 3, refused: 1}", "        - {bid: 2, value: 2, refused: 1}"),
        ("        - {bid: 6, value: 6, refused: 3}", "        - {bid: 4, value: 4, refused: 2}"),
        ("        - {bid: 12, value: 12, refused: 6}", "        - {bid: 8, value: 8, refused: 4}"),
        ("        - {bid: baraque, value: match, refused: 12}", "        - {bid: all, value: match, refused: 8}"),
    )
    r = run_with(rules, "N r2, N 10S, E r4, E 7H, S refuse", [D])
    assert errors(r) == [None] * 5
    assert events(r) == [
        {"event": "hand", "winner": "EW", "points": 2, "reason": "refusal", "score": {"NS": 0, "EW": 2}}
    ]
    assert errors(run_with(rules, "N r3", [D])) == ["UNKNOWN_BID"]
    r = run_with(rules, "N r2, N 10S, E r4, E 7H, S r8, S 8H, W 8D, N 7S, E rall, E 10H, S refuse", [D])
    assert events(r)[-1]["points"] == 8


def test_another_target_score() -> None:
    rules = altered(("      points: 21\n", "      points: 11\n"), ("      at: 20\n", "      at: 10\n"))
    # NS at 8 win a hand at 3 (N 10S, then N wins again): 11 is the target.
    d = "N: 10S 9S QC | E: 7H 8C 10H | S: 8H JS 9H | W: 7D KD AC"
    r = run_with(rules, "N r3, N 10S, E 7H, S 8H, W 7D, N 9S, E 8C, S JS, W KD", [d], score={"NS": 8, "EW": 0})
    assert events(r)[-1] == {"event": "match", "winner": "NS"}
    # And 10 is now the score that stops bidding.
    r = run_with(rules, "", [d], score={"NS": 10, "EW": 0})
    assert r["legal"] == [{"side": "NS", "act": "play_hand"}, {"side": "NS", "act": "decline_hand"}]


def test_a_changed_row_of_the_resolution_table() -> None:
    rules = altered(
        (
            "          pattern: [A, B, T]\n          winner: A\n",
            "          pattern: [A, B, T]\n          winner: B\n",
        )
    )
    # N wins, E wins, the third ties: under this table the second winner's side (EW) takes the hand.
    r = run_with(rules, "N 10S, E 7H, S 8H, W 8D, N 7S, E 10H, S JS, W 8C, E 9H, S 9S, W KD, N QC", [D])
    assert events(r)[-1]["winner"] == "EW"


def test_another_direction_of_play() -> None:
    rules = altered(("      next: left\n", "      next: right\n"))
    # Dealer W: the next player is now on the right, S, who leads; then W, N, E.
    m = Match(rules, dealer="W", deals=[deal(D)])
    assert m.turn == "S"
    m.play("S", "8H")
    assert m.turn == "E"


def test_opening_restricted_to_the_first_trick() -> None:
    rules = altered(("      tricks: any\n", "      tricks: [1]\n"))
    r = run_with(rules, "N 10S, E 7H, S 8H, W 8D, N r3", [D])
    assert errors(r)[-1] == "BID_OUT_OF_TURN"
    assert not any(a["act"] == "raise" for a in r["steps"][3]["legal"])


def test_the_error_list_order_sets_which_rule_is_cited() -> None:
    # W raises to 12 from last position, after its partner E made the latest bid: two rules broken.
    line = "N r3, N 10S, E r6, E 7H, S 8H, W r12"
    assert errors(run_with(altered(), line, [D]))[-1] == "RAISE_FROM_LAST"
    swapped = altered(
        (
            "  - code: RAISE_FROM_LAST\n    clause: bid.not_last\n    summary: A player last to the current trick may not bid.\n"
            "  - code: RAISE_OWN_SIDE\n    clause: bid.opposite_side\n    summary: Only the side opposite the latest bidder may raise.\n",
            "  - code: RAISE_OWN_SIDE\n    clause: bid.opposite_side\n    summary: Only the side opposite the latest bidder may raise.\n"
            "  - code: RAISE_FROM_LAST\n    clause: bid.not_last\n    summary: A player last to the current trick may not bid.\n",
        )
    )
    assert errors(run_with(swapped, line, [D]))[-1] == "RAISE_OWN_SIDE"


@pytest.mark.parametrize("gestures", [["ten", "nine", "ace", "none"]])
def test_signals_come_from_the_gesture_list(gestures: list[str]) -> None:
    rules = altered(('        - {id: none, gesture: eyes upward, means: "no 10, 9 or A"}\n', ""))
    r = run_with(rules, "N sig:none, N sig:ten", [D])
    assert errors(r) == ["SIGNAL_UNKNOWN", None]
