"""What the rules would have given: the values against `vitou analyze` and the engine, by hand, the unsolved, the page."""

from __future__ import annotations

import contextlib
import json
import random
import re
from pathlib import Path

import pytest
from helpers import ROOT

from vitou_ref.audit.audit import Ruling, Words, audit
from vitou_ref.audit.record import Record, load_record, read_record
from vitou_ref.audit.whatif import Alternative, Outcome, Unsolved, WhatIf, what_if, what_ifs
from vitou_ref.cli.analyze import analyze as cli_analyze
from vitou_ref.desk.whatif_view import whatif_for, whatif_fragment
from vitou_ref.engine.actions import Malformed, Play, action_from_json
from vitou_ref.engine.events import HandEvent
from vitou_ref.engine.match import Match
from vitou_ref.engine.reasons import Ref
from vitou_ref.engine.tables import Tables, tables_for
from vitou_ref.present import escape
from vitou_ref.protocol.server import match_from_setup
from vitou_ref.rules.errors import IllegalAction
from vitou_ref.rules.model import Ruleset
from vitou_ref.rules.registry import load_ruleset
from vitou_ref.solve.analyze import DEFAULT_POSITIONS, TABLE_POSITIONS, Tally
from vitou_ref.solve.solver import Budget, Solver

DISPUTES = sorted((ROOT / "conformance" / "disputes").glob("[0-9]*.yaml"))
LANGS = ("en", "fr", "pt", "ru")


def _record(text: str) -> tuple[Record, Ruleset]:
    return read_record(text, "<test>")


def _illegal(record: Record, rules: Ruleset) -> list[Ruling]:
    return [r for r in audit(record, rules, go_on=True).rulings if not r.legal and r.code is not None]


def _for_side(o: Outcome, side: str) -> int:
    """+1 when ``side`` wins the hand, -1 when the other side does, 0 when nobody does."""
    return 0 if o.winner is None else 1 if o.winner == side else -1


def _sampled_deal(t: Tables, seed: int) -> tuple[str, dict[str, list[str]], list[list[int]]]:
    """The deal `vitou analyze --sample 1 --seed S` solves (as codes and as card ids), and its dealer: the one whose
    first leader is seat 0."""
    cards = random.Random(seed).sample(t.deck, t.n * t.cards_each)
    k = t.cards_each
    hands = [cards[i * k : (i + 1) * k] for i in range(t.n)]
    deal = {t.seat_ids[i]: [t.card(c).text for c in h] for i, h in enumerate(hands)}
    dealer = next(d for d in range(t.n) if t.first_leader[d] == 0)
    return t.seat_ids[dealer], deal, hands


def _fresh(name: str, dealer: str, deal: dict[str, list[str]], t: Tables) -> tuple[Record, Ruleset, Ruling]:
    """A record whose first action is the leader's refusal with no bid in force: illegal, with every card to play."""
    cards = ", ".join(f"{s}: [{', '.join(c)}]" for s, c in deal.items())
    record, rules = _record(
        f"format: 1\nheader: {{ruleset: {t.name}, dealer: {dealer}}}\ndeals:\n  - {{{cards}}}\n"
        f"actions: {t.seat_ids[0]} refuse\n"
    )
    (ruling,) = _illegal(record, rules)
    return record, rules, ruling


# ------------------------------------------------------------------ (a) the values agree with vitou analyze


@pytest.mark.parametrize("name", ["vitou/1.0.0", "vitou/1.1.0", "vitou-mid-trick"])
def test_the_leaders_best_alternative_is_the_value_vitou_analyze_gives_the_deal(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # `vitou analyze --sample 1 --seed S` solves one deal, the first leader being seat 0: its figures say which
    # side wins that hand. The leader, who chooses among its cards, gets the best of its alternatives' values.
    t = tables_for(load_ruleset(name))
    for seed in range(1, 13):
        assert cli_analyze([name], 1, seed, "json", False) == 0
        figures = json.loads(capsys.readouterr().out)["rulesets"][0]["figures"]
        said = {"leader_wins": 1, "nobody_wins": 0, "other_wins": -1}
        (analyzed,) = [v for k, v in said.items() if figures[k]["count"] == 1]
        dealer, deal, _ = _sampled_deal(t, seed)
        record, rules, ruling = _fresh(name, dealer, deal, t)
        found = what_if(record, rules, ruling)
        plays = [a for a in found.alternatives if a.action["act"] == "play"]
        assert len(plays) == t.cards_each and all(a.outcome is not None for a in plays)
        best = max(_for_side(a.outcome, t.side_ids[t.side_of[0]]) for a in plays if a.outcome is not None)
        assert best == analyzed, (name, seed)
        assert all(a.outcome.points == 1 for a in plays if a.outcome is not None and a.outcome.winner is not None)
        assert [a.unsolved.why for a in found.alternatives if a.unsolved is not None] == ["bid"]  # the opening


@pytest.mark.parametrize("name", ["le-truc", "vitou-2p"])
def test_two_player_deals_agree_with_vitou_analyzes_count_of_that_deal(name: str) -> None:
    # Two seats are analysed over every deal at once; one deal is counted as analyze counts it (Tally.add, with
    # the solvers analyze builds), and the leader's best alternative must say the same.
    t = tables_for(load_ruleset(name))
    dealer_i = next(d for d in range(t.n) if t.first_leader[d] == 0)
    for seed in range(1, 41):
        dealer, deal, hands = _sampled_deal(t, seed)
        solver = Solver(t, dealer_i, budget=Budget(DEFAULT_POSITIONS), max_memo=TABLE_POSITIONS)
        alt = Solver(t, dealer_i, partners_win=not t.tie_partners_win, max_memo=TABLE_POSITIONS)
        tally = Tally(t.tricks)
        tally.add(solver, alt, solver.position(hands, 0), 1)
        analyzed = tally.counts["leader_wins"] - tally.counts["other_wins"]
        record, rules, ruling = _fresh(name, dealer, deal, t)
        plays = [a for a in what_if(record, rules, ruling).alternatives if a.outcome is not None]
        assert max(_for_side(a.outcome, t.side_ids[t.side_of[0]]) for a in plays if a.outcome) == analyzed, seed


def _engine_value(m: Match, side: str) -> int:
    """Minimax of ``side``'s result over every line of card play the engine allows from ``m`` (no bids), played out."""
    t = m.tables
    seat = str(m.turn)
    values = []
    for a in m.legal_actions():
        if type(a) is not Play:
            continue
        child = m.clone()
        hand = next((e for e in child.apply(a) if type(e) is HandEvent), None)
        if hand is None:
            values.append(_engine_value(child, side))
        else:
            values.append(0 if hand.winner is None else 1 if hand.winner == side else -1)
    mine = t.side_ids[t.side_of[t.seat_index[seat]]] == side
    return max(values) if mine else min(values)


@pytest.mark.parametrize("path", DISPUTES, ids=lambda p: p.stem)
def test_each_alternative_of_a_shipped_dispute_agrees_with_the_engine_played_every_way(path: Path) -> None:
    # The solver of `vitou analyze`, asked as analyze asks it, against every line of the engine's card play.
    record, rules = load_record(str(path))
    t = tables_for(rules)
    for ruling in _illegal(record, rules):
        found = what_if(record, rules, ruling)
        assert [a.action for a in found.alternatives] == [
            a for a, _ in (ruling.position.legal if ruling.position else [])
        ]
        m = match_from_setup(t, record.setup())
        for ra in record.actions[: ruling.n - 1]:
            with contextlib.suppress(Malformed, IllegalAction):  # not made, as in the audit
                m.apply(action_from_json(ra.action))
        for alt in found.alternatives:
            if alt.outcome is None or alt.outcome.ended:
                continue
            child = m.clone()
            child.apply(action_from_json(alt.action))
            side = t.side_ids[0]
            assert _for_side(alt.outcome, side) == _engine_value(child, side), (path.stem, alt.action)


def test_the_shipped_disputes_with_an_illegal_action_each_have_their_what_if() -> None:
    seen = {}
    for path in DISPUTES:
        record, rules = load_record(str(path))
        for ruling in _illegal(record, rules):
            seen[(path.stem, ruling.n)] = what_if(record, rules, ruling)
    assert len(seen) >= 8
    # 02: East, the immediate follower of North's opening, could have played (East-West win at 3 under best
    # play), raised (not solved: a bid awaits its answer) or refused (North-South score 1 at once).
    got = seen[("02-refusal-not-follower", 3)]
    outcomes = [(a.action["act"], a.outcome) for a in got.alternatives]
    assert ("refuse", Outcome("NS", 1, None, True)) in outcomes
    assert [o for act, o in outcomes if act == "play"] == [Outcome("EW", 3, None, False)] * 3
    # 07: at 20-20, North says play: the hand's winners win the match.
    tt = seen[("07-signal-at-twenty-twenty", 1)]
    assert [a.outcome for a in tt.alternatives if a.action["act"] == "play_hand"] == [Outcome("EW", 1, "EW", False)]


# ------------------------------------------------------------------ (b) by hand, from the rules text


def test_by_hand_west_last_to_trick_two_wins_the_hand_with_the_nine_and_gives_it_away_with_the_ace() -> None:
    # Dealer West, so North leads (§02). Rank is 10, 9, A, K, Q, J, 8, 7; suits never count (§01).
    # Trick 1: N 10S, E KD, S 8D, W 7C: North's ten is highest, North-South take it and North leads trick 2.
    # Trick 2: N 7H, E JH, S QS, then West, last to the trick, opens at 3: illegal, "never from last position"
    # (§03). West holds AD and 9S; no bid is in force, so the hand is worth 1 (§03).
    # - W 9S: the nine is highest, East-West take trick 2 and West leads trick 3: W AD, N 8C, E 9C, S AS. East's
    #   nine is highest: East-West take trick 3 too, 2 of the 3 tricks (§02): East-West win 1.
    # - W AD: the ace is highest (no ten or nine in the trick): East-West take trick 2; trick 3 is W 9S, N 8C,
    #   E 9C, S AS: the two nines are the matching highest cards and tie the trick (§02; clarification 1 of
    #   vitou/1.0.0: even from partners, as dispute 08 rules). "If the third ties after earlier decisive tricks,
    #   the earliest trick winner wins the hand" (§02): North-South, who took trick 1, win 1.
    record, rules = _record(
        "format: 1\nheader: {ruleset: vitou/1.0.0, dealer: W}\n"
        "deals:\n  - {N: [10S, 7H, 8C], E: [9C, KD, JH], S: [AS, QS, 8D], W: [7C, AD, 9S]}\n"
        "actions: N 10S E KD S 8D W 7C N 7H E JH S QS W r3\n"
    )
    (ruling,) = _illegal(record, rules)
    assert ruling.code == "RAISE_FROM_LAST"
    got = {a.action["card"]: a.outcome for a in what_if(record, rules, ruling).alternatives}
    assert got == {"AD": Outcome("NS", 1, None, False), "9S": Outcome("EW", 1, None, False)}


def test_by_hand_south_at_twenty_bids_with_one_card_left_and_its_ten_would_have_won_the_match() -> None:
    # North-South at 20, East-West at 5: North-South decide to play the hand (§04) and all bidding stops.
    # Dealer West, North leads. Trick 1: N 10S, E KD, S 8D, W 7C: North's ten, North-South.
    # Trick 2: N 7H, E 9C, S QS, W AD: East's nine is highest, East-West; East leads trick 3.
    # Trick 3: E JH, then South opens at 3: illegal, no bids once a side is at exactly 20 (§04). South's one card
    # is 10D; then W 9S, N 8C: South's ten is highest, North-South take trick 3 and 2 of the 3 tricks (§02).
    # "Playing and winning gives 1 and the match" (§04): North-South score 1 and win the match.
    record, rules = _record(
        "format: 1\nheader: {ruleset: vitou/1.0.0, dealer: W, score: {NS: 20, EW: 5}}\n"
        "deals:\n  - {N: [10S, 7H, 8C], E: [9C, KD, JH], S: [10D, QS, 8D], W: [7C, AD, 9S]}\n"
        "actions: NS takes N 10S E KD S 8D W 7C N 7H E 9C S QS W AD E JH S r3\n"
    )
    (ruling,) = _illegal(record, rules)
    got = what_if(record, rules, ruling)
    assert [(a.action, a.outcome) for a in got.alternatives] == [
        ({"seat": "S", "act": "play", "card": "10D"}, Outcome("NS", 1, "NS", False))
    ]


# ------------------------------------------------------------------ (c) what cannot be solved says so


def test_a_card_the_record_leaves_unknown_leaves_the_position_unsolved() -> None:
    record, rules = _record(
        "format: 1\nheader: {ruleset: vitou/1.0.0, dealer: W}\n"
        "deals:\n  - {N: [AS, 7H, 8C], E: [9C, KD, '?'], S: [10H, QS, 8D], W: [7C, AD, 9S]}\n"
        "actions: N AS S 10H\n"
    )
    got = what_if(record, rules, 2)
    assert got.alternatives == () and got.unsolved == Unsolved("card_unknown", ("E",))
    (ruling,) = _illegal(record, rules)  # South out of turn: illegal whatever East holds
    assert what_if(record, rules, ruling).unsolved == Unsolved("card_unknown", ("E",))


def test_a_bid_a_call_the_bound_and_no_action_each_say_why_there_is_no_value() -> None:
    record, rules = load_record(str(ROOT / "conformance" / "disputes" / "02-refusal-not-follower.yaml"))
    got = what_if(record, rules, 3)
    assert [a.unsolved for a in got.alternatives if a.action["act"] == "raise"] == [Unsolved("bid", ("bid_card",))]
    tight = what_if(record, rules, 3, max_positions=5)
    assert {a.unsolved.why for a in tight.alternatives if a.unsolved} == {"bid", "over_bound"}
    assert [a.outcome for a in tight.alternatives if a.action["act"] == "refuse"] == [Outcome("NS", 1, None, True)]
    record, rules = load_record(str(ROOT / "conformance" / "disputes" / "07-signal-at-twenty-twenty.yaml"))
    calls = what_if(record, rules, 1).alternatives
    assert [a.unsolved for a in calls if a.action["act"] == "pass"] == [Unsolved("call", ("twenty_twenty_call",))]
    record, rules = load_record(str(ROOT / "conformance" / "disputes" / "11-baraque-refused-and-accepted.yaml"))
    over = what_if(record, rules, len(record.actions) + 1)  # the match was won on the last action
    assert over.alternatives == () and over.unsolved == Unsolved("no_action", ("match_over",))


def test_a_legal_ruling_or_an_action_beyond_the_record_is_refused() -> None:
    record, rules = load_record(str(DISPUTES[0]))
    legal = audit(record, rules).rulings[0]
    with pytest.raises(ValueError, match="ruled legal"):
        what_if(record, rules, legal)
    with pytest.raises(ValueError, match="no position"):
        what_if(record, rules, len(record.actions) + 2)
    assert whatif_for(Words(rules, "en"), record, legal) == ""


def test_many_what_ifs_share_one_replay_and_one_bound() -> None:
    record, rules = load_record(str(ROOT / "conformance" / "disputes" / "09-tied-third-after-split.yaml"))
    many = what_ifs(record, rules, range(1, len(record.actions) + 1), most=5)
    assert sorted(many) == [1, 2, 3, 4, 5]
    assert all(many[n] == what_if(record, rules, n) for n in many)


# ------------------------------------------------------------------ (d) the fragment: escaped, in each language

ENGLISH = re.compile(r"\b(the|win|wins|hand|solved|solver|value|under|best|play|plays|raises|refuses|score|bid)\b")
EVERY_KIND = (
    Alternative({"seat": "N", "act": "play", "card": "AS"}, None, Outcome("NS", 1, None, False), None),
    Alternative({"seat": "N", "act": "play", "card": "7H"}, None, Outcome("EW", 3, "EW", False), None),
    Alternative({"seat": "N", "act": "play", "card": "8C"}, None, Outcome(None, 0, None, False), None),
    Alternative({"seat": "N", "act": "play", "card": "9C"}, None, Outcome("NS", "baraque", "NS", False), None),
    Alternative({"seat": "N", "act": "refuse"}, None, Outcome("EW", 6, None, True), None),
    Alternative({"seat": "N", "act": "refuse"}, None, Outcome("EW", 1, "EW", True), None),
    Alternative({"seat": "N", "act": "refuse"}, None, Outcome(None, 0, None, True), None),
    Alternative({"seat": "N", "act": "refuse"}, None, Outcome("NS", "baraque", "NS", True), None),
    Alternative({"seat": "N", "act": "raise", "to": 3}, None, None, Unsolved("bid", ("bid_card",))),
    Alternative({"side": "NS", "act": "play_hand"}, None, None, Unsolved("decision", ("twenty_decision",))),
    Alternative({"seat": "N", "act": "pass"}, None, None, Unsolved("call", ("twenty_twenty_call",))),
    Alternative({"seat": "N", "act": "play", "card": "KD"}, None, None, Unsolved("over_bound", ("22",))),
)


def _text(html: str) -> str:
    return re.sub(r"<[^>]*>", " ", html)


@pytest.mark.parametrize("lang", LANGS)
def test_the_fragment_speaks_each_language_with_its_plural_forms(lang: str) -> None:
    rules = load_ruleset("vitou/1.0.0")
    w = Words(rules, lang)
    html = whatif_fragment(w, WhatIf(4, 1, EVERY_KIND, None, 10, 22))
    unknown = whatif_fragment(w, WhatIf(2, 1, (), Unsolved("card_unknown", ("E", "W")), 0, 22))
    nothing = whatif_fragment(w, WhatIf(9, 2, (), Unsolved("no_action", ("match_over",)), 0, 22))
    assert html.count("<tr>") == len(EVERY_KIND) + 1 and 'id="whatif-4"' in html
    assert w.seat("E") in unknown and w.seat("W") in unknown and w.say("audit", "phase.match_over") in nothing
    points = {"en": "3 points", "fr": "3 points", "pt": "3 pontos", "ru": "3 очка"}[lang]
    one = {"en": "1 point", "fr": "1 point", "pt": "1 ponto", "ru": "1 очко"}[lang]
    assert points in html and one in html and "12 " in w.say("whatif", "actions", n=12)
    if lang != "en":
        for fragment in (html, unknown, nothing):
            assert not ENGLISH.findall(_text(fragment)), (lang, ENGLISH.findall(_text(fragment)))
    if lang == "ru":
        assert "6 очков" in html  # many
        assert "здесь было возможно 12 допустимых действий" in _text(html)


def test_the_fragment_escapes_every_text_from_a_ruleset_or_a_record() -> None:
    rules = load_ruleset("vitou/1.0.0")
    w = Words(rules, "en")
    hostile = "<img src=x onerror=alert(1)>\u202e"
    alts = (
        Alternative(
            {"seat": hostile, "act": "play", "card": "AS"}, None, Outcome(hostile, hostile, hostile, False), None
        ),
        Alternative({"seat": "N", "act": "raise", "to": hostile}, None, Outcome(hostile, 1, None, True), None),
    )
    html = whatif_fragment(w, WhatIf(1, 1, alts, None, 0, 22))
    html += whatif_fragment(w, WhatIf(1, 1, (), Unsolved("card_unknown", (hostile,)), 0, 22))
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html and "\u202e" not in html


def test_the_fragment_of_a_shipped_dispute_in_every_language() -> None:
    record, rules = load_record(str(ROOT / "conformance" / "disputes" / "02-refusal-not-follower.yaml"))
    (ruling,) = _illegal(record, rules)
    for lang in LANGS:
        html = whatif_for(Words(rules, lang), record, ruling)
        assert html.count("<tr>") == 6 and 'class="card' in html
        w = Words(rules, lang)
        refused = w.say("whatif", "ended", side=Ref("side", "NS"), points=w.say("whatif", "points", n=1))
        assert escape.html(refused) in html  # East's refusal: North-South score 1 at once
