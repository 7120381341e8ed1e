"""The rules text, section by section, against the reference interpreter.

Every expectation here is worked out by hand from the rules text and the
spec's clarifications; the comment above each deal says how.
Rank order: 10 > 9 > A > K > Q > J > 8 > 7. Seats clockwise N E S W; the
dealer's left is the next seat clockwise (dealer W: N leads).
"""

from __future__ import annotations

import pytest
from helpers import acts, errors, events, legal_set, plays, run

# ----------------------------------------------------------------- §05

D05 = "N: AS 7H 8C | E: 9C KD JH | S: 10H QS 8D | W: 7C AD 9S"


def test_section_05_refusal_of_six_scores_three_for_east_west() -> None:
    r = run("N r3, N AS, E r6, E 9C, S refuse", [D05])
    assert errors(r) == [None] * 5
    assert legal_set(r["legal"]) == legal_set(plays("N", "AS 7H 8C") + [{"seat": "N", "act": "raise", "to": 3}])
    steps = r["steps"]
    assert legal_set(steps[0]["legal"]) == legal_set(plays("N", "AS 7H 8C"))
    assert legal_set(steps[1]["legal"]) == legal_set(
        plays("E", "9C KD JH") + [{"seat": "E", "act": "raise", "to": 6}, {"seat": "E", "act": "refuse"}]
    )
    assert legal_set(steps[2]["legal"]) == legal_set(plays("E", "9C KD JH"))
    assert legal_set(steps[3]["legal"]) == legal_set(
        plays("S", "10H QS 8D") + [{"seat": "S", "act": "raise", "to": 12}, {"seat": "S", "act": "refuse"}]
    )
    # No trick is compared: the only event is the hand's.
    assert steps[4]["events"] == [
        {"event": "hand", "winner": "EW", "points": 3, "reason": "refusal", "score": {"NS": 0, "EW": 3}}
    ]
    assert steps[4]["legal"] == []
    assert r["final"] == {"score": {"NS": 0, "EW": 3}, "dealer": "N", "winner": None}


def test_section_05_nine_of_clubs_beats_ace_of_hearts() -> None:
    # N 9C, E AH, S 7S, W 8D: the 9 outranks the ace whatever the suits.
    r = run("N 9C, E AH, S 7S, W 8D", ["N: 9C 7D 8S | E: AH KS QH | S: 7S JD QC | W: 8D KC JS"])
    assert errors(r) == [None] * 4
    assert r["steps"][3]["events"] == [{"event": "trick", "trick": 1, "winner": "N"}]
    # N won the trick and leads the next one.
    assert legal_set(r["steps"][3]["legal"]) == legal_set(
        plays("N", "7D 8S") + [{"seat": "N", "act": "raise", "to": 3}]
    )


# ----------------------------------------------------------------- §01


def test_first_lead_is_the_dealers_left() -> None:
    r = run("", ["N: 9C 7D 8S | E: AH KS QH | S: 7S JD QC | W: 8D KC JS"], dealer="S")
    assert {a["seat"] for a in r["legal"]} == {"W"}
    r = run("", ["N: 9C 7D 8S | E: AH KS QH | S: 7S JD QC | W: 8D KC JS"], dealer="N")
    assert {a["seat"] for a in r["legal"]} == {"E"}


def test_draw_lowest_rank_deals_and_suits_do_not_count() -> None:
    # 7 is the lowest rank: N deals, so E leads.
    r = run(
        "",
        ["N: 9C 7D 8S | E: AH KS QH | S: 7S JD QC | W: 8D KC JS"],
        dealer=None,
        draw=[{"N": "7S", "E": "10H", "S": "AD", "W": "KC"}],
    )
    assert {a["seat"] for a in r["legal"]} == {"E"}
    assert r["final"]["dealer"] == "N"


def test_draw_only_tied_lowest_redraw() -> None:
    # N and E tie on 7; only they redraw; E's J is lower than N's 9, so E deals and S leads.
    draw = [{"N": "7S", "E": "7H", "S": "AD", "W": "KC"}, {"N": "9C", "E": "JD"}]
    r = run("", ["N: 9C 7D 8S | E: AH KS QH | S: 7S JD QC | W: 8D KC JS"], dealer=None, draw=draw)
    assert {a["seat"] for a in r["legal"]} == {"S"}


@pytest.mark.parametrize(
    ("draw", "fragment"),
    [
        ([{"N": "7S", "E": "7H", "S": "AD", "W": "KC"}], "still tied"),
        ([{"N": "7S", "E": "7H", "S": "AD", "W": "KC"}, {"N": "9C", "E": "JD", "S": "8C"}], "exactly the seats"),
        ([{"N": "7S", "E": "8H", "S": "AD", "W": "KC"}, {"N": "9C"}], "one too many"),
        ([{"N": "7S", "E": "7S", "S": "AD", "W": "KC"}], "drawn twice"),
        ([{"N": "1S", "E": "7H", "S": "AD", "W": "KC"}], "not a card"),
    ],
)
def test_a_draw_that_does_not_settle_the_dealer_is_an_errored_request(
    draw: list[dict[str, str]], fragment: str
) -> None:
    r = run("", ["N: 9C 7D 8S | E: AH KS QH | S: 7S JD QC | W: 8D KC JS"], dealer=None, draw=draw)
    assert r["errored"] is True and r["seq"] == 1
    assert fragment in r["message"]


def test_dealer_passes_left_after_each_hand() -> None:
    # Hand 1, dealer W: N and S win the first two tricks (10S, then 9S). Hand 2 is dealt by N, so E leads.
    d1 = "N: 10S 9S QC | E: 7H 8C 10H | S: 8H JS 9H | W: 7D KD AC"
    r = run("N 10S, E 7H, S 8H, W 7D, N 9S, E 8C, S JS, W KD", [d1, d1])
    assert errors(r) == [None] * 8
    assert {a["seat"] for a in r["steps"][-1]["legal"]} == {"E"}
    assert r["final"]["dealer"] == "N"


@pytest.mark.parametrize(
    ("deal", "fragment"),
    [
        ("N: AS 7H 8C | E: 9C KD JH | S: 10H QS 8D | W: 7C AD AS", "dealt twice"),
        ("N: AS 7H 8C | E: 9C KD JH | S: 10H QS 8D | W: 7C AD 5S", "not a card"),
        ("N: AS 7H | E: 9C KD JH | S: 10H QS 8D | W: 7C AD 9S", "a hand is 3"),
        ("N: AS 7H 8C 9H | E: 9C KD JH | S: 10H QS 8D | W: 7C AD 9S", "a hand is 3"),
        ("N: AS 7H 8C | E: 9C KD JH | S: 10H QS 8D", "no cards to W"),
        ("N: AS 7H 8C | E: 9C KD JH | S: 10H QS 8D | W: 7C AD 9S | X: 7D 8D 9D", "not a seat"),
    ],
)
def test_a_deal_that_is_not_three_distinct_cards_each_is_an_errored_request(deal: str, fragment: str) -> None:
    r = run("N AS", [deal])
    assert r["errored"] is True
    assert fragment in r["message"]
    assert "deals/0" in r["message"]


# ----------------------------------------------------------------- §02


def test_matching_highest_cards_tie_the_trick_even_between_partners() -> None:
    # N 10S and S 10H are partners' cards of the same rank: the trick ties (clarification 1).
    r = run("N 10S, E 7H, S 10H, W 7D", ["N: 10S 9S QC | E: 7H 8C AH | S: 10H JS 9H | W: 7D KD AC"])
    assert r["steps"][3]["events"] == [{"event": "trick", "trick": 1, "winner": None}]
    # The previous leader, N, leads again.
    assert {a["seat"] for a in r["steps"][3]["legal"]} == {"N"}


# One case per row of the hand-resolution table. Dealer W, so N leads trick 1.
ROWS = {
    # N 10S wins; N 9S wins again: NS take two tricks and play stops.
    "AA": (
        "N: 10S 9S QC | E: 7H 8C 10H | S: 8H JS 9H | W: 7D KD AC",
        "N 10S, E 7H, S 8H, W 7D, N 9S, E 8C, S JS, W KD",
        ["N", "N"],
        "NS",
    ),
    # N 10S wins; then E 9C and S 9D tie at the top: the first winner's side wins.
    "AT": (
        "N: 10S 8S QC | E: 7H 9C 10H | S: 8H 9D 9H | W: 7D KD AC",
        "N 10S, E 7H, S 8H, W 7D, N 8S, E 9C, S 9D, W KD",
        ["N", None],
        "NS",
    ),
    # N 10S and E 10H tie; N leads again and E's 9C wins: EW take the hand.
    "TA": (
        "N: 10S 7S QC | E: 10H 9C 8C | S: 8H JS 9H | W: 7D KD AC",
        "N 10S, E 10H, S 8H, W 7D, N 7S, E 9C, S JS, W KD",
        [None, "E"],
        "EW",
    ),
    # N wins, E wins, then S's 9S wins the third.
    "ABA": (
        "N: 10S 7S QC | E: 7H 10H 8C | S: 8H JS 9S | W: 7D KD AC",
        "N 10S, E 7H, S 8H, W 7D, N 7S, E 10H, S JS, W KD, E 8C, S 9S, W AC, N QC",
        ["N", "E", "S"],
        "NS",
    ),
    # N wins, E wins, then W's 9D wins the third.
    "ABB": (
        "N: 10S 7S QC | E: 7H 10H 8C | S: 8H JS 7C | W: 7D KD 9D",
        "N 10S, E 7H, S 8H, W 7D, N 7S, E 10H, S JS, W KD, E 8C, S 7C, W 9D, N QC",
        ["N", "E", "W"],
        "EW",
    ),
    # N wins, E wins, then E 9H and S 9S tie: the earliest trick winner's side (NS) wins.
    "ABT": (
        "N: 10S 7S QC | E: 7H 10H 9H | S: 8H JS 9S | W: 7D 8C KD",
        "N 10S, E 7H, S 8H, W 7D, N 7S, E 10H, S JS, W 8C, E 9H, S 9S, W KD, N QC",
        ["N", "E", None],
        "NS",
    ),
    # Two ties (10s, then 9s); E's ace wins the third.
    "TTA": (
        "N: 10S 9S 7S | E: 10H 9H AC | S: 8H 8S 8C | W: 7D 7H 7C",
        "N 10S, E 10H, S 8H, W 7D, N 9S, E 9H, S 8S, W 7H, N 7S, E AC, S 8C, W 7C",
        [None, None, "E"],
        "EW",
    ),
    # Three ties: nobody scores.
    "TTT": (
        "N: 10S 9S AS | E: 10H 9H AH | S: 7S 7H 8S | W: 7D 8D 8C",
        "N 10S, E 10H, S 7S, W 7D, N 9S, E 9H, S 7H, W 8D, N AS, E AH, S 8S, W 8C",
        [None, None, None],
        None,
    ),
}


@pytest.mark.parametrize("row", sorted(ROWS))
def test_hand_resolution_table_row(row: str) -> None:
    deal_text, actions, trick_winners, winner = ROWS[row]
    r = run(actions, [deal_text])
    assert errors(r) == [None] * len(acts(actions))
    evs = events(r)
    tricks = [e["winner"] for e in evs if e["event"] == "trick"]
    assert tricks == trick_winners
    hand = [e for e in evs if e["event"] == "hand"]
    if winner is None:
        assert hand == [{"event": "hand", "winner": None, "points": 0, "reason": "tied", "score": {"NS": 0, "EW": 0}}]
    else:
        score = {"NS": 1 if winner == "NS" else 0, "EW": 1 if winner == "EW" else 0}
        assert hand == [{"event": "hand", "winner": winner, "points": 1, "reason": "tricks", "score": score}]
    # The hand ends on the trick that decides it: no card after it.
    assert r["steps"][-1]["events"][-1]["event"] == "hand"
    assert r["final"]["dealer"] == "N"


def test_play_stops_as_soon_as_the_hand_is_decided() -> None:
    # After AA, a third-trick card is refused: no deal is left for the next hand.
    deal_text, actions, _, _ = ROWS["AA"]
    r = run(actions + ", N QC", [deal_text])
    assert errors(r)[-1] == "NO_DEAL"


# ----------------------------------------------------------------- §03

# E wins trick 1 with 10H and leads trick 2 (dealer W).
D_E_WINS = "N: 7S 8S QC | E: 10H 9H AC | S: 8H JS 7C | W: 7D KD 9D"


def test_without_a_bid_the_hand_is_worth_one() -> None:
    deal_text, actions, _, _ = ROWS["AA"]
    assert events(run(actions, [deal_text]))[-1]["points"] == 1


@pytest.mark.parametrize(
    ("actions", "points", "bidders"),
    [
        # Refusing 3 gives the bidders 1.
        ("N r3, N 7S, E refuse", 1, "NS"),
        # Refusing 6 gives 3 (the §05 shape with another deal).
        ("N r3, N 7S, E r6, E 10H, S refuse", 3, "EW"),
        # Refusing 12 gives 6: W, last to the trick, may refuse (only bids are barred from last position).
        ("N r3, N 7S, E r6, E 10H, S r12, S 8H, W refuse", 6, "NS"),
        # Refusing baraque gives 12: W accepts 12 by playing, E wins trick 1 and raises to baraque at its lead.
        ("N r3, N 7S, E r6, E 10H, S r12, S 8H, W 7D, E rbaraque, E 9H, S refuse", 12, "EW"),
    ],
)
def test_a_refusal_gives_the_bidding_side_the_preceding_value(actions: str, points: int, bidders: str) -> None:
    r = run(actions, [D_E_WINS])
    assert errors(r) == [None] * len(acts(actions))
    score = {"NS": points if bidders == "NS" else 0, "EW": points if bidders == "EW" else 0}
    assert r["steps"][-1]["events"] == [
        {"event": "hand", "winner": bidders, "points": points, "reason": "refusal", "score": score}
    ]


def test_refused_baraque_gives_twelve_but_accepted_baraque_gives_the_match() -> None:
    # Accepted: S plays instead of refusing; E's 9H takes trick 2, so EW won both tricks.
    r = run("N r3, N 7S, E r6, E 10H, S r12, S 8H, W 7D, E rbaraque, E 9H, S JS, W KD, N 8S", [D_E_WINS])
    assert errors(r) == [None] * 12
    assert r["steps"][-1]["events"] == [
        {"event": "trick", "trick": 2, "winner": "E"},
        {"event": "hand", "winner": "EW", "points": "baraque", "reason": "tricks", "score": {"NS": 0, "EW": 0}},
        {"event": "match", "winner": "EW"},
    ]
    assert r["final"] == {"score": {"NS": 0, "EW": 0}, "dealer": "N", "winner": "EW"}


def test_accepted_baraque_with_all_tricks_tied_scores_nothing_and_the_match_goes_on() -> None:
    # The TTT deal, with bids 3 (N), 6 (E), 12 (S), accepted by W's card; baraque by E in trick 2 accepted by S.
    deal_text = "N: 10S 9S AS | E: 10H 9H AH | S: 7S 7H 8S | W: 7D 8D 8C"
    actions = "N r3, N 10S, E r6, E 10H, S r12, S 7S, W 7D, N 9S, E rbaraque, E 9H, S 7H, W 8D, N AS, E AH, S 8S, W 8C"
    r = run(actions, [deal_text, deal_text])
    assert errors(r) == [None] * 16
    assert r["steps"][-1]["events"] == [
        {"event": "trick", "trick": 3, "winner": None},
        {"event": "hand", "winner": None, "points": 0, "reason": "tied", "score": {"NS": 0, "EW": 0}},
    ]
    assert r["final"]["winner"] is None and r["steps"][-1]["legal"] != []


def test_accepted_play_awards_the_value_to_the_hand_winners_not_the_bidders() -> None:
    # E raises to 6, S accepts; NS go on to win tricks 1 and 2 (N 10S, then N 9S), so NS score 6.
    deal_text = "N: 10S 9S QC | E: 7H 8C 10H | S: 8H JS 9H | W: 7D KD AC"
    r = run("N r3, N 10S, E r6, E 7H, S 8H, W 7D, N 9S, E 8C, S JS, W KD", [deal_text])
    assert errors(r) == [None] * 10
    assert events(r)[-1] == {
        "event": "hand",
        "winner": "NS",
        "points": 6,
        "reason": "tricks",
        "score": {"NS": 6, "EW": 0},
    }


@pytest.mark.parametrize(("bids", "points"), [("N r3", 3), ("N r3, N 10S, E r6, E 7H, S r12", 12)])
def test_accepted_levels_score_their_value(bids: str, points: int) -> None:
    deal_text = "N: 10S 9S QC | E: 7H 8C 10H | S: 8H JS 9H | W: 7D KD AC"
    tail = {
        "N r3": "N 10S, E 7H, S 8H, W 7D, N 9S, E 8C, S JS, W KD",
        "N r3, N 10S, E r6, E 7H, S r12": "S 8H, W 7D, N 9S, E 8C, S JS, W KD",
    }[bids]
    r = run(f"{bids}, {tail}", [deal_text])
    assert set(errors(r)) == {None}
    assert events(r)[-1]["points"] == points and events(r)[-1]["winner"] == "NS"


def test_opening_is_allowed_in_a_later_trick() -> None:
    # Trick 1 is played without bids; E leads trick 2 and opens at 3 (clarification 5).
    r = run("N 7S, E 10H, S 8H, W 7D, E r3, E 9H", [D_E_WINS])
    assert errors(r) == [None] * 6
    assert {"seat": "S", "act": "refuse"} in r["steps"][-1]["legal"]


def test_the_opposite_side_may_raise_at_a_later_turn_not_only_as_the_answer() -> None:
    # N opens 3 and E accepts by playing. Trick 1: N 7S, E 10H, S 8H, W 7D: E wins and leads trick 2,
    # E 9H, S JS; then W, third to trick 2 (N is last), raises N's bid to 6 at its own turn (clarification 5).
    r = run("N r3, N 7S, E 10H, S 8H, W 7D, E 9H, S JS, W r6, W KD", [D_E_WINS])
    assert errors(r) == [None] * 9
    # N, last to trick 2, is the immediate follower: it may refuse or accept, but not raise from last position.
    assert legal_set(r["steps"][-1]["legal"]) == legal_set(plays("N", "8S QC") + [{"seat": "N", "act": "refuse"}])
    r = run("N r3, N 7S, E 10H, S 8H, W 7D, E 9H, S JS, W r6, W KD, N r12", [D_E_WINS])
    assert errors(r)[-1] == "RAISE_FROM_LAST"


@pytest.mark.parametrize(
    ("actions", "code"),
    [
        # W is last to trick 1 and may not open.
        ("N 7S, E 10H, S 8H, W r3", "RAISE_FROM_LAST"),
        # S is N's partner: only EW may raise N's bid.
        ("N r3, N 7S, E 10H, S r6", "RAISE_OWN_SIDE"),
        # No jump from 3 to 12.
        ("N r3, N 7S, E r12", "RAISE_JUMP"),
        # No opening above 3.
        ("N r6", "RAISE_JUMP"),
        # No bid beyond baraque: after baraque by E, S answers; N later cannot raise.
        ("N r3, N 7S, E r6, E 10H, S r12, S 8H, W 7D, E rbaraque, E 9H, S rbaraque", "RAISE_PAST_TOP"),
        # Only the player in turn bids.
        ("E r3", "BID_OUT_OF_TURN"),
        # The bidder owes its card; it cannot bid again first.
        ("N r3, N r6", "BID_OUT_OF_TURN"),
        # E is the immediate follower; W cannot refuse in E's place, nor S for its partner's bid.
        ("N r3, N 7S, W refuse", "REFUSE_NOT_FOLLOWER"),
        ("N r3, N 7S, S refuse", "REFUSE_NOT_FOLLOWER"),
        # No refusal before the bidder's card.
        ("N r3, E refuse", "REFUSE_NOT_FOLLOWER"),
        # Nothing to refuse.
        ("N 7S, E refuse", "REFUSE_NO_BID"),
        # Once E has accepted by playing, the bid can no longer be refused.
        ("N r3, N 7S, E 10H, S refuse", "REFUSE_NO_BID"),
        ("N 7S, E 9H", None),
    ],
)
def test_an_illegal_bid_or_refusal_is_rejected_with_its_rule(actions: str, code: str | None) -> None:
    r = run(actions, [D_E_WINS])
    assert errors(r)[-1] == code
    assert set(errors(r)[:-1]) <= {None}


def test_a_rejected_action_leaves_the_position_unchanged() -> None:
    # The §05 case with an illegal refusal by W slipped in after E's raise: same result.
    clean = run("N r3, N AS, E r6, E 9C, S refuse", [D05])
    dirty = run("N r3, N AS, E r6, W refuse, E 9C, S refuse", [D05])
    assert errors(dirty) == [None, None, None, "REFUSE_NOT_FOLLOWER", None, None]
    assert dirty["steps"][4:] == clean["steps"][3:]
    assert dirty["final"] == clean["final"]


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"seat": "E", "act": "play", "card": "9C"}, "NOT_YOUR_TURN"),
        ({"seat": "N", "act": "play", "card": "9C"}, "CARD_NOT_HELD"),
        ({"seat": "N", "act": "play", "card": "11S"}, "CARD_MALFORMED"),
        ({"seat": "X", "act": "play", "card": "AS"}, "UNKNOWN_SEAT"),
        ({"side": "XY", "act": "play_hand"}, "UNKNOWN_SIDE"),
        ({"seat": "N", "act": "raise", "to": 4}, "UNKNOWN_BID"),
        ({"seat": "N", "act": "raise", "to": "3"}, "UNKNOWN_BID"),
        ({"seat": "N", "act": "signal", "signal": "wink"}, "SIGNAL_UNKNOWN"),
        ({"seat": "N", "act": "dance"}, "ACTION_MALFORMED"),
        ({"act": "play", "card": "AS"}, "ACTION_MALFORMED"),
        ({"seat": "N", "act": "play"}, "ACTION_MALFORMED"),
        ({"seat": "N", "act": "play", "card": "AS", "extra": 1}, "ACTION_MALFORMED"),
        ("N AS", "ACTION_MALFORMED"),
        ({"seat": "N", "act": "pass"}, "WRONG_PHASE"),
        ({"side": "NS", "act": "play_hand"}, "WRONG_PHASE"),
    ],
)
def test_a_malformed_or_misplaced_action_is_a_rejected_step_not_an_errored_request(action: object, code: str) -> None:
    r = run([action, *acts("N AS")], [D05])  # type: ignore[list-item]
    assert "errored" not in r
    assert errors(r) == [code, None]


# ----------------------------------------------------------------- §04

AA = ROWS["AA"]  # NS win tricks 1 and 2 with N 10S then N 9S (dealer W)
TA = ROWS["TA"]  # EW win: tie, then E 9C
TTT = ROWS["TTT"]


def test_first_to_reach_21_wins_and_scores_may_pass_it() -> None:
    # NS at 19 win a hand at 3: 22, and the match.
    r = run(f"N r3, {AA[1]}", [AA[0]], score={"NS": 19, "EW": 4})
    assert events(r)[-2:] == [
        {"event": "hand", "winner": "NS", "points": 3, "reason": "tricks", "score": {"NS": 22, "EW": 4}},
        {"event": "match", "winner": "NS"},
    ]
    assert r["final"] == {"score": {"NS": 22, "EW": 4}, "dealer": "N", "winner": "NS"}
    assert r["steps"][-1]["legal"] == []


def test_after_the_match_every_action_is_refused() -> None:
    r = run(f"N r3, {AA[1]}, N QC", [AA[0], AA[0]], score={"NS": 19, "EW": 4})
    assert errors(r)[-1] == "MATCH_OVER"


def test_reaching_exactly_twenty_stops_bidding_and_the_side_decides_after_the_deal() -> None:
    r = run(f"N r3, {AA[1]}", [AA[0], AA[0]], score={"NS": 17, "EW": 0})
    assert events(r)[-1]["score"] == {"NS": 20, "EW": 0}
    assert legal_set(r["steps"][-1]["legal"]) == legal_set(
        [{"side": "NS", "act": "play_hand"}, {"side": "NS", "act": "decline_hand"}]
    )


def test_declining_at_twenty_gives_the_opponents_one_and_the_dealer_passes() -> None:
    r = run("NS decline_hand", [AA[0], AA[0]], score={"NS": 20, "EW": 5})
    assert r["steps"][0]["events"] == [
        {"event": "hand", "winner": "EW", "points": 1, "reason": "decline", "score": {"NS": 20, "EW": 6}}
    ]
    # Next hand, dealer N: NS decide again.
    assert legal_set(r["steps"][0]["legal"]) == legal_set(
        [{"side": "NS", "act": "play_hand"}, {"side": "NS", "act": "decline_hand"}]
    )
    assert r["final"]["dealer"] == "N"


def test_playing_at_twenty_and_winning_gives_one_and_the_match() -> None:
    r = run(f"NS play_hand, {AA[1]}", [AA[0]], score={"NS": 20, "EW": 5})
    # No bids at twenty: after the decision N may only play.
    assert legal_set(r["steps"][0]["legal"]) == legal_set(plays("N", "10S 9S QC"))
    assert events(r)[-2:] == [
        {"event": "hand", "winner": "NS", "points": 1, "reason": "tricks", "score": {"NS": 21, "EW": 5}},
        {"event": "match", "winner": "NS"},
    ]


def test_playing_at_twenty_and_losing_gives_the_opponents_three() -> None:
    r = run(f"NS play_hand, {TA[1]}", [TA[0], TA[0]], score={"NS": 20, "EW": 5})
    assert events(r)[-1] == {
        "event": "hand",
        "winner": "EW",
        "points": 3,
        "reason": "tricks",
        "score": {"NS": 20, "EW": 8},
    }


def test_all_tricks_tied_at_twenty_still_score_nothing() -> None:
    r = run(f"NS play_hand, {TTT[1]}", [TTT[0], TTT[0]], score={"NS": 20, "EW": 5})
    assert events(r)[-1] == {
        "event": "hand",
        "winner": None,
        "points": 0,
        "reason": "tied",
        "score": {"NS": 20, "EW": 5},
    }


@pytest.mark.parametrize(("action", "code"), [("N r3", "BID_CLOSED_TWENTY"), ("EW play_hand", "DECISION_WRONG_SIDE")])
def test_at_twenty_nobody_bids_and_only_that_side_decides(action: str, code: str) -> None:
    prefix = "NS play_hand, " if action == "N r3" else ""
    r = run(prefix + action, [AA[0]], score={"NS": 20, "EW": 5})
    assert errors(r)[-1] == code


def test_signals_stay_allowed_at_twenty_and_change_nothing() -> None:
    r = run("W sig:ten, NS play_hand, E sig:none", [AA[0]], score={"NS": 20, "EW": 5})
    assert errors(r) == [None, None, None]
    assert r["steps"][0]["events"] == [] and r["steps"][2]["events"] == []
    assert r["steps"][0]["legal"] == r["legal"]


def test_twenty_twenty_is_reached_by_a_decline_and_starts_with_the_dealers_left() -> None:
    # NS at 20 decline; EW go from 19 to 20. Next hand, dealer N: E is asked first.
    r = run("NS decline_hand", [AA[0], AA[0]], score={"NS": 20, "EW": 19})
    assert events(r)[-1]["score"] == {"NS": 20, "EW": 20}
    assert legal_set(r["steps"][0]["legal"]) == legal_set(
        [{"seat": "E", "act": "pass"}, {"seat": "E", "act": "play_hand"}]
    )


def test_twenty_twenty_four_passes_change_dealer_and_repeat() -> None:
    r = run("N pass, E pass, S pass, W pass", [AA[0], AA[0]], score={"NS": 20, "EW": 20})
    assert errors(r) == [None] * 4
    assert r["steps"][3]["events"] == [
        {"event": "hand", "winner": None, "points": 0, "reason": "passed", "score": {"NS": 20, "EW": 20}}
    ]
    # Dealer N now; E is asked first.
    assert legal_set(r["steps"][3]["legal"]) == legal_set(
        [{"seat": "E", "act": "pass"}, {"seat": "E", "act": "play_hand"}]
    )
    assert r["final"]["dealer"] == "N"


def test_twenty_twenty_first_play_deals_all_and_the_winners_take_the_match() -> None:
    # Dealer W: N passes, E says play; the hand is led by N, dealer's left; passed hands play their cards.
    r = run(f"N pass, E play_hand, {AA[1]}", [AA[0]], score={"NS": 20, "EW": 20})
    assert legal_set(r["steps"][1]["legal"]) == legal_set(plays("N", "10S 9S QC"))
    assert events(r)[-2:] == [
        {"event": "hand", "winner": "NS", "points": 1, "reason": "tricks", "score": {"NS": 21, "EW": 20}},
        {"event": "match", "winner": "NS"},
    ]


def test_twenty_twenty_all_tricks_tied_repeats_with_the_next_dealer() -> None:
    r = run(f"N play_hand, {TTT[1]}", [TTT[0], TTT[0]], score={"NS": 20, "EW": 20})
    assert events(r)[-1] == {
        "event": "hand",
        "winner": None,
        "points": 0,
        "reason": "tied",
        "score": {"NS": 20, "EW": 20},
    }
    assert legal_set(r["steps"][-1]["legal"]) == legal_set(
        [{"seat": "E", "act": "pass"}, {"seat": "E", "act": "play_hand"}]
    )
    assert r["final"]["dealer"] == "N"


@pytest.mark.parametrize(
    ("actions", "code"),
    [
        ("E pass", "CALL_OUT_OF_TURN"),
        ("N AS", "WRONG_PHASE"),
        ("N sig:ace", "SIGNAL_FORBIDDEN"),
        ("N play_hand, W sig:nine", "SIGNAL_FORBIDDEN"),
        ("N play_hand, N r3", "BID_CLOSED_TWENTY_TWENTY"),
    ],
)
def test_at_twenty_twenty_only_the_player_asked_answers_and_nobody_bids_or_signals(actions: str, code: str) -> None:
    r = run(actions, [AA[0]], score={"NS": 20, "EW": 20})
    assert errors(r)[-1] == code


def test_a_complete_match_through_twenty_and_twenty_twenty() -> None:
    # NS 14, EW 17. Hand 1 (dealer W): N opens 3, E raises to 6, S accepts; NS win (AA deal): NS 20.
    # Hand 2 (dealer N, E leads): NS at 20 decline: EW 18.
    # Hand 3 (dealer E, S leads): NS decline again: EW 19.
    # Hand 4 (dealer S, W leads): NS play and lose on tricks: EW + 3 = 22 -> EW win the match.
    d_ew = "N: 7S 8S QC | E: 7H 8H 9C | S: 7C JS 8C | W: 10H 9H AC"  # W leads 10H, then 9H: EW take two
    r = run(
        "N r3, N 10S, E r6, E 7H, S 8H, W 7D, N 9S, E 8C, S JS, W KD, NS decline_hand, NS decline_hand, "
        "NS play_hand, W 10H, N 7S, E 7H, S 7C, W 9H, N 8S, E 8H, S JS",
        [AA[0], AA[0], AA[0], d_ew],
        score={"NS": 14, "EW": 17},
    )
    assert set(errors(r)) == {None}
    hands = [e for e in events(r) if e["event"] == "hand"]
    assert [(h["winner"], h["points"], h["reason"]) for h in hands] == [
        ("NS", 6, "tricks"),
        ("EW", 1, "decline"),
        ("EW", 1, "decline"),
        ("EW", 3, "tricks"),
    ]
    assert hands[-1]["score"] == {"NS": 20, "EW": 22}
    assert r["final"] == {"score": {"NS": 20, "EW": 22}, "dealer": "W", "winner": "EW"}


# ----------------------------------------------------------------- §06


def test_any_seat_may_signal_at_any_moment_of_play() -> None:
    r = run("S sig:ten, N r3, E sig:nine, N AS, W sig:ace, E sig:none", [D05])
    assert errors(r) == [None] * 6
    assert all(s["events"] == [] for s in r["steps"])
    # Signals never appear in a legal set, and do not change it.
    assert r["steps"][0]["legal"] == r["legal"]
