"""Who may bid and when is data (the optional rule bid_timing), and the answer to a bid belongs to the other side."""

from __future__ import annotations

import random
from typing import Any

from helpers import ROOT, deal

from vitou_ref import Match, load_rules_text, load_ruleset
from vitou_ref.engine.actions import Raise, Refuse
from vitou_ref.engine.randomplay import play_out

V11 = (ROOT / "spec" / "vitou-1.1.0.yaml").read_text(encoding="utf-8")
LAST_FORBIDDEN = "    rule: last_position\n    data:\n      bids: forbidden\n"


def _v11(rule_id: str, *pairs: tuple[str, str]) -> Any:
    """Vitou 1.1.0 with some text replaced, under another id (a published ruleset never changes)."""
    text = V11.replace("  id: vitou\n", f"  id: {rule_id}\n")
    for old, new in pairs:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return load_rules_text(text, f"{rule_id}.yaml")


def _last_allowed() -> Any:
    return _v11("vitou-last", (LAST_FORBIDDEN, LAST_FORBIDDEN.replace("forbidden", "allowed")))


def _acts(m: Match) -> set[tuple[Any, ...]]:
    return {tuple(a.to_json().values()) for a in m.legal_actions()}


# W holds the top card; with dealer W, N leads and W is last to trick 1.
W_WINS = "N: 7S 8S 9S | E: 7H 8H 9H | S: 7D 8D 9D | W: 10C KC QC"
E_WINS = "N: 7S 8S 9S | E: 10H 8H 9H | S: 7D 8D 9D | W: KC QC JC"


def test_a_bid_from_last_position_is_answered_by_the_other_side_not_by_the_bidder() -> None:
    # The bug this rule fixed: with last_position allowed, W bid 3 from last, won the trick with its own card,
    # led trick 2 and was offered `refuse` for its own bid. The answer belongs to the first NS player to play.
    m = Match(_last_allowed(), dealer="W", deals=[deal(W_WINS)])
    for seat, card in (("N", "7S"), ("E", "7H"), ("S", "7D")):
        m.play(seat, card)
    m.raise_bid("W", 3)
    assert m.play("W", "10C").events[0].to_json() == {"event": "trick", "trick": 1, "winner": "W"}
    assert m.turn == "W" and _acts(m) == {("W", "play", "KC"), ("W", "play", "QC")}
    assert not m.can_refuse("W") and not m.can_refuse("E") and not m.can_raise("W", 6)
    m.play("W", "KC")
    assert _acts(m) == {("N", "play", "8S"), ("N", "play", "9S"), ("N", "raise", 6), ("N", "refuse")}
    assert m.refuse("N").events[0].to_json()["score"] == {"NS": 0, "EW": 1}


def test_when_the_bidders_partner_wins_the_trick_the_partner_is_not_offered_refuse() -> None:
    # The other half of the bug: E, W's partner, won the trick and could refuse W's bid. E leads on, S answers.
    m = Match(_last_allowed(), dealer="W", deals=[deal(E_WINS)])
    for seat, card in (("N", "7S"), ("E", "10H"), ("S", "7D")):
        m.play(seat, card)
    m.raise_bid("W", 3)
    m.play("W", "KC")
    assert m.turn == "E" and {a.act for a in m.legal_actions()} == {"play"}
    assert m.broken_codes(Refuse("E"))[:1] == ["REFUSE_NOT_FOLLOWER"]  # the answer's moment has not come
    m.play("E", "8H")
    assert m.turn == "S" and m.can_refuse("S") and m.can_raise("S", 6)


def test_a_refusal_is_never_made_by_the_bidders_side_in_random_play_with_bids_from_last() -> None:
    # Property of the fix, over whole matches: whoever refuses is of the side opposite the latest bidder. Before
    # the fix this failed within a few matches (the next trick's leader answered, whatever its side).
    rules = _last_allowed()
    refusals = 0
    for seed in range(150):
        m = Match.random(rules, seed)
        for action, _events in play_out(m, random.Random(seed)):
            if action.act == "raise":
                bidder_side = "NS" if action.seat in ("N", "S") else "EW"  # type: ignore[union-attr]
            if action.act == "refuse":
                refusals += 1
                assert ("NS" if action.seat in ("N", "S") else "EW") != bidder_side  # type: ignore[union-attr]
    assert refusals > 50


def test_under_bids_a_la_volee_any_player_may_bid_and_the_other_side_answers() -> None:
    # bid_timing any_seat: with nothing owed every seat may open; a bid out of turn owes no card; its answer
    # belongs to the first player of the other side to play, here after N, the bidder's partner, has played.
    rules = load_ruleset("vitou-volee/1.0.0")
    m = Match(rules, dealer="W", deals=[deal("N: 10S 9S 7S | E: 8H 7H 8D | S: KS QS JS | W: 7D 7C 8C")])
    assert {a for a in _acts(m) if a[1] == "raise"} == {(s, "raise", 3) for s in "NESW"}
    m.raise_bid("S", 3)
    assert m.turn == "N" and m.phase_name == "awaiting_answer"
    assert _acts(m) == {("N", "play", "10S"), ("N", "play", "9S"), ("N", "play", "7S")}
    assert [m.can_refuse(s) for s in "NESW"] == [False] * 4
    m.play("N", "10S")
    assert _acts(m) == {("E", "play", c) for c in ("8H", "7H", "8D")} | {("E", "raise", 6), ("E", "refuse")}
    hand = m.refuse("E").events[0].to_json()
    assert hand["winner"] == "NS" and hand["points"] == 1  # the refused 3's preceding value, to the bidders


def test_under_bids_a_la_volee_a_bid_out_of_turn_answered_in_turn_leaves_the_play_where_it_was() -> None:
    # E opens out of turn while N leads: N answers at once; once N has played, the raise goes to NS players
    # only (N included, though it has played: a bid out of turn owes no card), and none while W is last.
    m = Match(
        load_ruleset("vitou-volee"), dealer="W", deals=[deal("N: 10S 9S 7S | E: 8H 7H 8D | S: KS QS JS | W: 7D 7C 8C")]
    )
    m.raise_bid("E", 3)
    assert m.turn == "N" and m.can_refuse("N") and not m.can_refuse("S")
    m.play("N", "10S")
    assert {a for a in _acts(m) if a[1] == "raise"} == {("N", "raise", 6), ("S", "raise", 6)}
    m.play("E", "8H")
    m.play("S", "KS")
    assert {a[1] for a in _acts(m)} == {"play"}  # W is last: nobody bids, whoever it is
    m.verify_play("W", "7D")
    assert [m.broken_codes(Raise(seat, 6))[0] for seat in ("N", "W")] == ["RAISE_FROM_LAST"] * 2


def test_the_base_rules_bind_no_clause_to_bid_timing_and_play_as_if_they_said_seat_in_turn() -> None:
    # bid_timing is optional: Vitou 1.0.0 and 1.1.0 (their hashes pinned elsewhere) bind no clause to it and
    # get the base behaviour; a copy of 1.1.0 that states {by: seat_in_turn} plays exactly the same matches.
    for name in ("vitou/1.0.0", "vitou/1.1.0"):
        rules = load_ruleset(name)
        assert "bid_timing" not in rules.bindings and rules.params.bid_timing == "seat_in_turn"
    stated = _v11(
        "vitou-stated",
        (
            "  - id: bid.not_last\n",
            '  - id: bid.timing\n    section: "03"\n    title: Who bids\n    text: The player in turn.\n'
            "    rule: bid_timing\n    data:\n      by: seat_in_turn\n\n  - id: bid.not_last\n",
        ),
    )
    assert stated.params.bid_timing == "seat_in_turn"
    base = load_ruleset("vitou/1.1.0")
    for seed in range(40):
        a = [
            (x.to_json(), [e.to_json() for e in ev])
            for x, ev in play_out(Match.random(base, seed), random.Random(seed))
        ]
        b = [
            (x.to_json(), [e.to_json() for e in ev])
            for x, ev in play_out(Match.random(stated, seed), random.Random(seed))
        ]
        assert a == b
