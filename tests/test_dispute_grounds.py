"""The grounds of every shipped dispute, derived by hand from the rules text and the spec's clauses, and the grounds
of an action made once its hand, or the match, is over."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT

from vitou_ref.audit.audit import Audit, Ruling, Words, audit
from vitou_ref.audit.grounds import event_clauses
from vitou_ref.audit.record import load_record, read_record
from vitou_ref.audit.report import final_line, ruling_json

DISPUTES = ROOT / "conformance" / "disputes"
LANGS = ["en", "fr", "pt", "ru"]

# One row per action: (n, ground, events). ground is the clause that allows a legal action in its position, or
# "CODE clause" for an illegal one, the clause it breaks; events are the clauses of what the action brought about,
# in order: a trick won (trick.rank_only) or tied (trick.tie), the hand decided and scored, the match.
Row = tuple[int, str, list[str]]
ANY = "play.any_card"  # §02: "clockwise, everyone plays any card": a card in turn, with no bid to answer

GROUNDS: dict[str, list[Row]] = {
    "01-section-05-refusal.yaml": [
        (1, "bid.open", []),  # §03: "Before playing your card ... you may open at 3"; N is first to the trick
        (2, ANY, []),  # §02: the bidder's own card, any card held
        (3, "bid.answer", []),  # §03: "the next player may ... raise if entitled": E answers N's 3 with 6
        (4, ANY, []),  # §02: E's card that goes with its raise
        # §03: "Only that immediate follower may refuse" -> bid.refusal; "A refusal awards the bidding side the
        # preceding value ... 3 if 6" -> bid.refusal_value
        (5, "bid.refusal", ["bid.refusal_value"]),
    ],
    "02-refusal-not-follower.yaml": [
        (1, "bid.open", []),  # §03: N opens at 3 before its card
        (2, ANY, []),  # §02
        (3, "REFUSE_NOT_FOLLOWER bid.refusal", []),  # §03: "Only that immediate follower may refuse": E, not W
    ],
    "03-raise-from-last.yaml": [
        (1, ANY, []),
        (2, ANY, []),
        (3, ANY, []),
        (4, "RAISE_FROM_LAST bid.not_last", []),  # §03: "unless you are last to the current trick"
    ],
    "04-raise-partner.yaml": [
        (1, "bid.open", []),
        (2, ANY, []),
        (3, "bid.answer", []),  # §03: "the next player may accept by playing without raising"
        (4, "RAISE_OWN_SIDE bid.opposite_side", []),  # §03: "You cannot raise your partner"
    ],
    "05-jump.yaml": [
        (1, "bid.open", []),
        (2, ANY, []),
        (3, "RAISE_JUMP bid.no_jumps", []),  # §03: "Further raises follow 6, 12, then baraque ... no jumps"
    ],
    "06-bid-at-twenty.yaml": [
        (1, "twenty.decision", []),  # §04: "that side may ... decide whether to play"
        (2, "BID_CLOSED_TWENTY twenty.no_bids", []),  # §04: "Once a side reaches exactly 20, all bidding stops"
        (3, ANY, []),  # the bid not made, N leads
    ],
    "07-signal-at-twenty-twenty.yaml": [
        (1, "SIGNAL_FORBIDDEN tt.no_signals", []),  # §04: "At 20–20 neither side may share cards or signal"
        (2, "tt.ask", []),  # §04: "Deal 3 to the player on the left, who says pass or play"
    ],
    "08-partners-tie.yaml": [
        (1, ANY, []),
        (2, ANY, []),
        (3, ANY, []),
        (4, ANY, ["trick.tie"]),  # §02: "Matching highest cards tie the trick": N's and S's tens, partners or not
        (5, ANY, []),  # §02: "the previous leader leads again": N
        (6, ANY, []),
        (7, ANY, []),
        # §02: "Highest rank wins": N's 9S; "If the first trick ties, the winner of the second wins the hand"
        # -> hand.resolution; §04: "add the hand's 1 ... to the winners' total" -> score.add
        (8, ANY, ["trick.rank_only", "hand.resolution", "score.add"]),
    ],
    "09-tied-third-after-split.yaml": [
        *((n, ANY, []) for n in (1, 2, 3)),
        (4, ANY, ["trick.rank_only"]),  # §02: N's 10S
        *((n, ANY, []) for n in (5, 6, 7)),
        (8, ANY, ["trick.rank_only"]),  # §02: E's 10H
        *((n, ANY, []) for n in (9, 10, 11)),
        # §02: the 9s tie; "If the third ties after earlier decisive tricks, the earliest trick winner wins the
        # hand" -> hand.resolution (row ABT); §04: NS add 1 -> score.add
        (12, ANY, ["trick.tie", "hand.resolution", "score.add"]),
    ],
    "10-all-tricks-tied.yaml": [
        *((n, ANY, []) for n in (1, 2, 3)),
        (4, ANY, ["trick.tie"]),
        *((n, ANY, []) for n in (5, 6, 7)),
        (8, ANY, ["trick.tie"]),
        *((n, ANY, []) for n in (9, 10, 11)),
        (12, ANY, ["trick.tie", "hand.resolution"]),  # §02: "With all tricks tied, nobody scores"
    ],
    "11-baraque-refused-and-accepted.yaml": [
        (1, "bid.open", []),
        (2, ANY, []),
        (3, "bid.answer", []),  # E raises N's 3 as its answer
        (4, ANY, []),
        (5, "bid.answer", []),  # S raises E's 6 as its answer
        (6, ANY, []),
        (7, "bid.answer", ["trick.rank_only"]),  # W accepts 12 by playing; E's 10H takes trick 1
        # §03: "Only the opposite partnership to the latest bidder may raise, again before playing": E, leading
        (8, "bid.later_raise", []),
        (9, ANY, []),
        (10, "bid.refusal", ["bid.refusal_value"]),  # §03: S, the follower, refuses; "12 if baraque" to EW
        (11, "bid.open", []),  # hand 2, dealer N (§01: "Dealer passes left"): E opens
        (12, ANY, []),
        (13, "bid.answer", []),
        (14, ANY, []),
        (15, "bid.answer", []),
        (16, ANY, []),
        (17, "bid.answer", ["trick.rank_only"]),  # N accepts W's 12 by playing; S's 10S takes trick 1
        (18, "bid.later_raise", []),  # S, leading trick 2, raises W's 12 to baraque
        (19, ANY, []),
        (20, "bid.answer", []),  # W accepts baraque by playing
        (21, ANY, []),
        # §03: "An accepted baraque gives the winners the match": NS take trick 2 and the hand (row AA)
        (22, ANY, ["trick.rank_only", "hand.resolution", "bid.baraque"]),
    ],
    "12-decline-at-twenty.yaml": [
        (1, "twenty.decision", ["twenty.decline"]),  # §04: "Declining gives opponents 1"
    ],
    "13-play-at-twenty-and-lose.yaml": [
        (1, "twenty.decision", []),
        *((n, ANY, []) for n in (2, 3, 4)),
        (5, ANY, ["trick.rank_only"]),  # E's 10H
        *((n, ANY, []) for n in (6, 7, 8)),
        # §04: "playing and losing gives opponents 3" -> twenty.play; EW take tricks 1 and 2 (row AA)
        (9, ANY, ["trick.rank_only", "hand.resolution", "twenty.play"]),
    ],
    "14-twenty-twenty-pass-round.yaml": [
        (1, "tt.ask", []),
        (2, "tt.ask", []),
        (3, "tt.ask", []),
        (4, "tt.ask", ["tt.all_pass"]),  # §04: "If all 4 pass, change dealer and repeat"
        (5, "tt.ask", []),  # §04: "Deal 3 to the player on the left": E, left of the new dealer N
        (6, "tt.ask", []),  # §04: "who says pass or play": S says play
    ],
    "15-wink-then-refusal.yaml": [
        (1, "bid.open", []),
        (2, ANY, []),
        (3, "signals.when", []),  # §06: "Conventional gestures are otherwise allowed"; not their turn, no matter
        (4, "bid.refusal", ["bid.refusal_value"]),  # §03: S, the follower, refuses; "1 if 3 is refused"
    ],
    "16-refusal-after-acceptance.yaml": [
        (1, "bid.open", []),
        (2, ANY, []),
        (3, "bid.answer", []),  # §03: E accepts by playing without raising
        (4, ANY, []),
        (5, "REFUSE_NO_BID bid.answer", []),  # §03: "Immediately after a bid": the 3 was accepted by E's card
    ],
    "17-bid-out-of-turn.yaml": [
        (1, ANY, []),
        (2, "BID_OUT_OF_TURN bid.turn", []),  # §03: "Before playing your card": E, not S, is to play
    ],
    "18-refusal-cut-short-by-the-stop.yaml": [
        *((n, ANY, []) for n in (1, 2, 3)),
        (4, ANY, ["trick.rank_only"]),  # N's 10S
        (5, "bid.open", []),  # N, leading trick 2, opens at 3
        # mt.stop (§02, "Stop as soon as the result is determined"): nothing outranks N's 10H, so trick 2 ends
        # N's or tied, rows AA and AT of mt.resolution both give NS the hand, which stops on the card; the 3 that
        # awaited its answer stands accepted -> bid.accepted_value
        (6, ANY, ["mt.resolution", "mt.stop", "bid.accepted_value"]),
        (7, "REFUSE_NO_BID bid.answer", []),  # hand 2 is dealt and nobody has bid in it
    ],
    "19-raise-after-own-accepted.yaml": [  # Truco Paulista
        (1, "tp.when_to_raise", []),  # §4: "A player may raise whenever it is their turn to act": A leads
        (2, "tp.answer", []),  # §4: the raise "must be answered before any card": B accepts
        (3, "tp.trick", []),  # §3/§4: A, whose turn the raise interrupted, plays a card held
        (4, "tp.trick", ["tp.stronger_wins"]),  # B's card; A's 3 beats B's 2 (no manilha): "the stronger card wins"
        # §4: "the player whose raise was the last one accepted may not raise again until the other player has
        # raised": A's 3 is the last accepted raise, and B has not raised
        (5, "RAISE_OWN_SIDE tp.alternating", []),
    ],
}

# One row per claim: (action, clauses). A claim on whether the action may be made (it asserts legal, illegal or a
# code) is answered with the clause that rules on that: the one broken, or the one that allows the action. A
# claim that asserts nothing checkable is answered with the clauses of what the action brought about.
CLAIMS: dict[str, list[tuple[int, list[str]]]] = {
    # "We raised to 6, so we score 6": §03 "3 if 6" -> bid.refusal_value
    "01-section-05-refusal.yaml": [(5, ["bid.refusal_value"])],
    # "Any of us may refuse for the side": §03 "Only that immediate follower may refuse" -> bid.refusal
    "02-refusal-not-follower.yaml": [(3, ["bid.refusal"])],
    "03-raise-from-last.yaml": [(4, ["bid.not_last"])],  # §03: "unless you are last to the current trick"
    "04-raise-partner.yaml": [(4, ["bid.opposite_side"])],  # §03: "You cannot raise your partner"
    "05-jump.yaml": [(3, ["bid.no_jumps"])],  # §03: "no jumps"
    "06-bid-at-twenty.yaml": [(2, ["twenty.no_bids"])],  # §04: "all bidding stops"
    "07-signal-at-twenty-twenty.yaml": [(1, ["tt.no_signals"])],  # §04: "neither side may ... signal"
    # "Our two tens win the trick for us": §02 "Matching highest cards tie the trick" -> trick.tie
    "08-partners-tie.yaml": [(4, ["trick.tie"])],
    # "the refusal does not count": §03 "Only that immediate follower may refuse, and must decide without
    # consulting the partner" -> bid.refusal: the follower's refusal, whatever the partner did
    "15-wink-then-refusal.yaml": [(4, ["bid.refusal"])],
    # "I was never given the chance to refuse": hand 2 has no bid to refuse -> bid.answer (clarification 23)
    "18-refusal-cut-short-by-the-stop.yaml": [(7, ["bid.answer"])],
}


def _ruled(path: Path) -> Audit:
    record, rules = load_record(str(path))
    return audit(record, rules, go_on=True)


def _row(a: Audit, r: Ruling) -> Row:
    ground = r.allowed_by if r.legal else f"{r.code} {r.clause}"
    return (r.n, str(ground), event_clauses(a.rules, r.events))


def test_every_shipped_dispute_has_its_row() -> None:
    assert sorted(GROUNDS) == sorted(p.name for p in DISPUTES.glob("[0-9]*.yaml"))


@pytest.mark.parametrize("name", sorted(GROUNDS))
def test_each_action_is_ruled_on_its_ground(name: str) -> None:
    a = _ruled(DISPUTES / name)
    assert [_row(a, r) for r in a.rulings] == GROUNDS[name]


@pytest.mark.parametrize("name", sorted(GROUNDS))
def test_each_claim_is_answered_with_the_clause_it_is_about(name: str) -> None:
    a = _ruled(DISPUTES / name)
    w = Words(a.rules, "en")
    answered = [(r.n, c["clauses"]) for r in a.rulings for c in ruling_json(w, r).get("claims", [])]
    assert answered == CLAIMS.get(name, [])
    assert all(
        f"{x} (" in c["ruling"] for r in a.rulings for c in ruling_json(w, r).get("claims", []) for x in c["clauses"]
    )


def test_the_match_won_by_an_accepted_baraque_ends_with_bid_baraque() -> None:
    a = _ruled(DISPUTES / "11-baraque-refused-and-accepted.yaml")
    assert final_line(Words(a.rules, "en"), a).endswith("by rule bid.baraque (Accepted baraque)")


# ------------------------------------------------------------------ an action once the hand, or the match, is over

DEAL_AA = "{N: [10S, 9S, QC], E: [7H, 8C, AH], S: [JS, 8H, 9H], W: [7D, KD, AC]}"  # N's 10S, then 9S: row AA
DEAL_TTT = "{N: [10S, 9S, AS], E: [10H, 9H, AH], S: [7S, 7H, 8S], W: [7D, 8D, 8C]}"  # dispute 10's deal
AA = "N 10S E 7H S JS W 7D N 9S E 8C S 8H W KD"
TTT = "N 10S E 10H S 7S W 7D N 9S E 9H S 7H W 8D N AS E AH S 8S W 8C"
SECTION_05 = "{N: [AS, 7H, 8C], E: [9C, KD, JH], S: [10H, QS, 8D], W: [7C, AD, 9S]}"
TRUC = "{A: [3S, 2H, 4C], B: [KS, QH, 5H]}"  # A's 3S and 2H take two tricks: truc.hand
TRUC_EXAMPLE = "{A: [3S, 7H, 4C], B: [2D, KS, 5H]}"

# (ruleset, header score, deal, actions, the action ruled, its code and clause, its reason's key and params).
# The ground is the clause that ended the hand (or the match) before the action, and the reason says on which
# action and for whom; the next hand's deal is not the matter.
AFTER_THE_END = [
    # §02: "Stop as soon as the result is determined": NS won tricks 1 and 2 (row AA), no third trick
    (
        "vitou/1.1.0",
        None,
        DEAL_AA,
        f"{AA} N QC",
        9,
        "NO_DEAL hand.resolution",
        ("hand_ended.tricks", {"hand": 1, "action": 8, "side": "NS"}),
    ),
    # §02: "With all tricks tied, nobody scores and the next dealer deals"
    (
        "vitou/1.0.0",
        None,
        DEAL_TTT,
        f"{TTT} E 9H",
        13,
        "NO_DEAL hand.resolution",
        ("hand_ended.nobody", {"hand": 1, "action": 12}),
    ),
    # §03: a refusal concedes the hand: bid.refusal_value, "A refusal ends the hand at once"
    (
        "vitou/1.0.0",
        None,
        SECTION_05,
        "N r3 N AS E r6 E 9C S refuse N 7H",
        6,
        "NO_DEAL bid.refusal_value",
        ("hand_ended.refusal", {"hand": 1, "action": 5, "side": "EW"}),
    ),
    # §04: "Declining gives opponents 1": the declined hand is over
    (
        "vitou/1.1.0",
        "{NS: 20, EW: 5}",
        SECTION_05,
        "NS declines N AS",
        2,
        "NO_DEAL twenty.decline",
        ("hand_ended.decline", {"hand": 1, "action": 1, "side": "EW"}),
    ),
    # §04: "If all 4 pass, change dealer and repeat": the question starts again on a fresh deal
    (
        "vitou/1.1.0",
        "{NS: 20, EW: 20}",
        SECTION_05,
        "N pass E pass S pass W pass E pass",
        5,
        "NO_DEAL tt.all_pass",
        ("hand_ended.passed", {"hand": 1, "action": 4}),
    ),
    # §04: "If all tricks tie, repeat with the next dealer"
    (
        "vitou/1.1.0",
        "{NS: 20, EW: 20}",
        DEAL_TTT,
        f"N play {TTT} E pass",
        14,
        "NO_DEAL tt.all_tied",
        ("hand_ended.nobody", {"hand": 1, "action": 13}),
    ),
    # mt.stop: the hand stopped on N's 10H, inside trick 2; E's refusal comes after it
    (
        "vitou-mid-trick/1.0.0",
        None,
        "{N: [10S, 10H, 7D], E: [7H, 9C, KD], S: [8C, QS, 8D], W: [7C, AD, 9S]}",
        "N 10S E 7H S 8C W 7C N r3 N 10H E refuse",
        7,
        "NO_DEAL mt.stop",
        ("hand_ended.tricks", {"hand": 1, "action": 6, "side": "NS"}),
    ),
    # §04: "first to reach 21 wins": 18 and an accepted 3
    (
        "vitou/1.1.0",
        "{NS: 18, EW: 0}",
        DEAL_AA,
        f"N r3 {AA} N QC",
        10,
        "MATCH_OVER score.target",
        ("match_ended", {"action": 9, "side": "NS"}),
    ),
    # §04: "Playing and winning gives 1 and the match"
    (
        "vitou/1.1.0",
        "{NS: 20, EW: 5}",
        DEAL_AA,
        f"NS takes {AA} N QC",
        10,
        "MATCH_OVER twenty.play",
        ("match_ended", {"action": 9, "side": "NS"}),
    ),
    # Le Truc §3: "A fold ends the hand at once"
    (
        "le-truc/1.0.0",
        None,
        TRUC_EXAMPLE,
        "A r2 B r4 A accept A 3S B 5H A 4C B r6 A refuse A 7H",
        9,
        "NO_DEAL truc.fold",
        ("hand_ended.refusal", {"hand": 1, "action": 8, "side": "B"}),
    ),
    # Le Truc §2: "A hand is won with two tricks ... the first row that matches decides the hand, which stops there"
    (
        "le-truc/1.0.0",
        None,
        TRUC,
        "A 3S B KS A 2H B QH A 4C",
        5,
        "NO_DEAL truc.hand",
        ("hand_ended.tricks", {"hand": 1, "action": 4, "side": "A"}),
    ),
    # Le Truc §4: "The first player to reach 12 points or more wins the match"
    (
        "le-truc/1.0.0",
        "{A: 11, B: 0}",
        TRUC,
        "A 3S B KS A 2H B QH A 4C",
        5,
        "MATCH_OVER truc.match",
        ("match_ended", {"action": 4, "side": "A"}),
    ),
]


def _record(tmp_path: Path, ruleset: str, score: str | None, deal: str, actions: str, claims: str = "") -> Audit:
    dealer = "B" if ruleset.startswith("le-truc") else "W"
    head = f"{{ruleset: {ruleset}, dealer: {dealer}" + (f", score: {score}" if score else "") + "}"
    text = f"format: 1\nheader: {head}\ndeals:\n  - {deal}\nactions: {actions}\n{claims}"
    path = tmp_path / "record.yaml"
    path.write_text(text, encoding="utf-8")
    record, rules = read_record(text, str(path))
    return audit(record, rules, go_on=True)


@pytest.mark.parametrize(("ruleset", "score", "deal", "actions", "n", "ground", "reason"), AFTER_THE_END)
def test_an_action_after_the_end_breaks_the_clause_that_ended_it(
    tmp_path: Path, ruleset: str, score: str | None, deal: str, actions: str, n: int, ground: str, reason: Any
) -> None:
    a = _record(tmp_path, ruleset, score, deal, actions)
    r = a.rulings[n - 1]
    assert (r.legal, f"{r.code} {r.clause}") == (False, ground)
    assert r.reason is not None and r.reason.to_json() == {"key": reason[0], "params": reason[1]}
    for lang in LANGS:
        text = Words(a.rules, lang).reason(r.reason)
        assert "{" not in text and reason[0] not in text and str(reason[1]["action"]) in text, text
    assert [x.n for x in a.rulings if x.legal] == list(range(1, n))


def test_the_english_reason_says_when_the_hand_ended_for_whom_and_that_no_deal_follows(tmp_path: Path) -> None:
    a = _record(tmp_path, "vitou/1.1.0", None, DEAL_AA, f"{AA} N QC")
    w = Words(a.rules, "en")
    said = w.reason(a.rulings[8].reason)  # type: ignore[arg-type]
    assert said == "hand 1 ended on action 8, won by North-South on its tricks; the next hand has not been dealt"


def test_a_claim_about_who_may_refuse_cites_bid_refusal_and_one_about_the_score_bid_refusal_value(
    tmp_path: Path,
) -> None:
    # §03: "Only that immediate follower may refuse, and must decide without consulting the partner" -> bid.refusal;
    # "A refusal awards the bidding side the preceding value ... 3 if 6" -> bid.refusal_value.
    claims = (
        "claims:\n"
        '  - {at: 5, by: E, claim: "South had to consult North before refusing.", asserts: illegal}\n'
        '  - {at: 5, by: E, claim: "We raised to 6, so we score 6."}\n'
    )
    a = _record(tmp_path, "vitou/1.0.0", None, SECTION_05, "N r3 N AS E r6 E 9C S refuse", claims)
    w = Words(a.rules, "en")
    consult, score = ruling_json(w, a.rulings[4])["claims"]
    assert consult["clauses"] == ["bid.refusal"] and consult["upheld"] is False
    assert consult["ruling"].endswith("by rule bid.refusal (Only the immediate follower refuses)")
    assert score["clauses"] == ["bid.refusal_value"] and score["upheld"] is None
    assert "East-West score 3 by refusal" in score["ruling"]


def test_le_truc_answers_a_claim_on_a_raise_from_last_with_its_own_clause(tmp_path: Path) -> None:
    # Le Truc §3: "The other player, who is always the last to the trick, may raise before playing" -> truc.last_raises
    claims = '  - {at: 7, by: A, claim: "B is last to the trick and may not raise there.", asserts: illegal}\n'
    actions = "A r2 B r4 A accept A 3S B 5H A 4C B r6 A refuse"
    a = _record(tmp_path, "le-truc/1.0.0", None, TRUC_EXAMPLE, actions, "claims:\n" + claims)
    grounds = [_row(a, r) for r in a.rulings]
    assert grounds == [
        (1, "truc.when_to_raise", []),  # §3: "A player may raise whenever it is their turn to act"
        (2, "truc.answer", []),  # §3: the answer to a raise: raise again
        (3, "truc.answer", []),  # accept
        (4, "truc.trick", []),  # §2: the leader plays any card held
        (5, "truc.trick", ["truc.higher_wins"]),  # §2: 3 above 5
        (6, "truc.trick", []),
        (7, "truc.last_raises", []),
        (8, "truc.fold", ["truc.fold"]),  # §3: the fold, and what it scores: the stake before the raise, 4
    ]
    (claim,) = ruling_json(Words(a.rules, "en"), a.rulings[6])["claims"]
    assert claim["clauses"] == ["truc.last_raises"] and claim["upheld"] is False
