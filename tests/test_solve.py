"""The perfect-information solver: its values against the reference engine playing every line, and by hand."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from math import comb

import pytest
from helpers import ROOT

from vitou_ref import Match, load_ruleset
from vitou_ref.engine.actions import Play
from vitou_ref.engine.events import HandEvent
from vitou_ref.engine.tables import Tables, tables_for
from vitou_ref.solve.deals import card_deals, pack_counts, rank_deals
from vitou_ref.solve.line import principal_line
from vitou_ref.solve.solver import Solver

SETTINGS = ROOT / "conformance" / "settings" / "rulesets"


def _tables(name: str) -> Tables:
    ref = SETTINGS / f"{name}-1.0.0.yaml" if name.startswith("setting-") else name
    return tables_for(load_ruleset(ref))


def _engine_value(m: Match, t: Tables) -> int:
    """Minimax of side 0's result over every line of card play the engine allows (no bids), played out."""
    seat = m.legal_actions()[0].seat
    maxing = t.side_of[t.seat_index[seat]] == 0
    values = []
    for a in m.legal_actions():
        if type(a) is not Play:
            continue
        child = m.clone()
        events = child.apply(a)
        hand = next((e for e in events if type(e) is HandEvent), None)
        if hand is not None:
            values.append(0 if hand.winner is None else 1 if hand.winner == t.side_ids[0] else -1)
        else:
            values.append(_engine_value(child, t))
    return max(values) if maxing else min(values)


def _deal(t: Tables, rng: random.Random) -> list[list[int]]:
    cards = rng.sample(t.deck, t.n * t.cards_each)
    return [cards[i * t.cards_each : (i + 1) * t.cards_each] for i in range(t.n)]


def _match(t: Tables, hands: list[list[int]], dealer: int) -> Match:
    deal = {t.seat_ids[i]: [t.card(c).text for c in h] for i, h in enumerate(hands)}
    return Match(t, dealer=t.seat_ids[dealer], deals=[deal])


@pytest.mark.parametrize(
    ("name", "deals"),
    [
        ("vitou-2p", 150),
        ("le-truc", 100),
        ("vitou/1.1.0", 6),
        ("vitou-mid-trick", 4),  # the hand may stop inside a trick: the value must not change
        ("vitou-anticlockwise", 3),
        ("vitou-partners-tie", 4),
        ("setting-tie-eldest-leads", 4),
        ("setting-resolution-rows", 4),  # rows won by the eldest's side and by nobody
    ],
)
def test_the_solver_agrees_with_the_engine_playing_every_line(name: str, deals: int) -> None:
    t = _tables(name)
    rng = random.Random(7)
    for k in range(deals):
        hands = _deal(t, rng)
        dealer = k % t.n
        solver = Solver(t, dealer)
        got = solver.value(solver.position(hands, t.first_leader[dealer]))
        assert got == _engine_value(_match(t, hands, dealer), t), (name, hands, dealer)


def test_partners_matching_cards_are_read_as_the_ruleset_says() -> None:
    # N and S hold the only two tens. Under vitou-partners-tie N's 10 and S's 10 in one trick win it
    # for NS; under vitou/1.0.0 they tie it. Both solvers must agree with their engines on deals
    # where that can happen; the values themselves are the engine's.
    for name in ("vitou/1.0.0", "vitou-partners-tie"):
        t = _tables(name)
        hands = [["10S", "7C", "8D"], ["9S", "9H", "AS"], ["10H", "7D", "8S"], ["9C", "KS", "QS"]]
        ids = [[next(c for c in t.deck if t.card(c).text == code) for code in h] for h in hands]
        for dealer in range(4):
            solver = Solver(t, dealer)
            got = solver.value(solver.position(ids, t.first_leader[dealer]))
            assert got == _engine_value(_match(t, ids, dealer), t)


def _ids(t: Tables, hands: list[list[str]]) -> list[list[int]]:
    return [[next(c for c in t.deck if t.card(c).text == code) for code in h] for h in hands]


def _side_value(t: Tables, hands: list[list[str]], dealer: str, seat: str) -> int:
    """The solved value for ``seat``'s side, the hand dealt by ``dealer``."""
    d = t.seat_index[dealer]
    solver = Solver(t, d)
    v = solver.value(solver.position(_ids(t, hands), t.first_leader[d]))
    return v if t.side_of[t.seat_index[seat]] == 0 else -v


def test_values_worked_by_hand() -> None:
    t = _tables("vitou-2p")  # ranks 10 9 A K Q J 8 7, high to low
    # N: 10S 10H 7C, S: 9S AH 8D. Nothing beats a ten. N leading: 10, 10 takes two tricks (row AA).
    # S leading: whatever S plays N takes with a ten, then leads the other ten: two tricks again.
    hands = [["10S", "10H", "7C"], ["9S", "AH", "8D"]]
    assert _side_value(t, hands, "S", "N") == 1  # N leads
    assert _side_value(t, hands, "N", "N") == 1  # S leads
    # N: 9S 8S 7S leads against S: 10H KH QH. S answers the 9 with the 10 and an 8 or 7 with the Q,
    # so S takes trick 1 keeping a card above each of N's two left (K, Q over 8, 7; or 10 over 9),
    # leads it and takes trick 2: row AA for S whatever N does.
    assert _side_value(t, [["9S", "8S", "7S"], ["10H", "KH", "QH"]], "S", "S") == 1
    # Four players: N holds three tens, the fourth (10C) is E's. In each trick N plays a ten: it wins
    # the trick unless E's 10C meets it, a tie between the sides, which happens at most once. The
    # results are then AA, AT or TA for NS (clause trick.tie; rows AA, AT, TA): NS win, whoever leads.
    t4 = _tables("vitou/1.1.0")
    four = [["10S", "10H", "10D"], ["10C", "9S", "9H"], ["7C", "7D", "7S"], ["8C", "8D", "8S"]]
    for dealer in t4.seat_ids:
        assert _side_value(t4, four, dealer, "N") == 1


def test_how_soon_a_worked_hand_is_decided() -> None:
    # vitou-2p, N: 10S 10H 7C leads against S: 9S AH 8D. N can force the win in two tricks (10, 10:
    # row AA). The principal line is lazier: N's lowest card that keeps the win is the 7 (S takes it
    # with its lowest, 8D, leads its lowest, AH, N's ten takes it and the other ten the third: BAA),
    # three tricks, none tied.
    t = _tables("vitou-2p")
    solver = Solver(t, 1)
    line = principal_line(solver, solver.position(_ids(t, [["10S", "10H", "7C"], ["9S", "AH", "8D"]]), 0))
    assert (line.value, line.tricks, line.tied) == (1, 2, False)
    # S: 10H KH QH against N: 9S 8S 7S leading: S takes trick 1 with the 10 or the Q and trick 2
    # with what is left (above N's cards), so S's win is forced in two; it cannot be one (no row).
    line = principal_line(solver, solver.position(_ids(t, [["9S", "8S", "7S"], ["10H", "KH", "QH"]]), 0))
    assert (line.value, line.tricks) == (-1, 2)


def test_rank_deals_count_every_card_deal_once() -> None:
    # A small pack: ranks 1-4 with 2, 2, 3 and 1 cards (8 cards), two seats of three. Brute force:
    # every ordered pair of disjoint 3-card hands, grouped by the two hands' rank multisets.
    ranks = [1, 1, 2, 2, 3, 3, 3, 4]
    brute: Counter[tuple[tuple[int, ...], ...]] = Counter()
    for a in itertools.combinations(range(8), 3):
        rest = [i for i in range(8) if i not in a]
        for b in itertools.combinations(rest, 3):
            brute[(tuple(sorted(ranks[i] for i in a)), tuple(sorted(ranks[i] for i in b)))] += 1
    ours = dict(rank_deals({1: 2, 2: 2, 3: 3, 4: 1}, 2, 3))
    assert ours == dict(brute)
    assert sum(brute.values()) == comb(8, 3) * comb(5, 3) == card_deals(8, 2, 3)
    # Three seats of two from the same pack, against the same brute force.
    brute3: Counter[tuple[tuple[int, ...], ...]] = Counter()
    for perm in itertools.permutations(range(8), 6):
        hands = [perm[0:2], perm[2:4], perm[4:6]]
        if all(list(h) == sorted(h) for h in hands):
            brute3[tuple(tuple(sorted(ranks[i] for i in h)) for h in hands)] += 1
    assert dict(rank_deals({1: 2, 2: 2, 3: 3, 4: 1}, 3, 2)) == dict(brute3)


def test_vitou_2p_has_14280_rank_deals_standing_for_every_card_deal() -> None:
    t = _tables("vitou-2p")
    deals = list(rank_deals(pack_counts(t), 2, 3))
    assert len(deals) == 14280  # the count, by ranks only
    assert sum(w for _, w in deals) == comb(32, 3) * comb(29, 3)


def test_vitou_analyze_gives_the_same_figures_on_every_run(capsys: pytest.CaptureFixture[str]) -> None:
    from vitou_ref.cli.main import main

    argv = ["analyze", "--ruleset", "vitou/1.1.0", "--ruleset", "vitou-partners-tie", "--sample", "40"]
    assert main([*argv, "--format", "json"]) == 0
    first = capsys.readouterr().out
    assert main([*argv, "--format", "json"]) == 0
    assert capsys.readouterr().out == first
    import json

    doc = json.loads(first)
    fig = doc["rulesets"][0]["figures"]
    assert doc["rulesets"][0]["deals"]["count"] == 40
    shares = fig["leader_wins"]["count"] + fig["other_wins"]["count"] + fig["nobody_wins"]["count"]
    assert shares == 40
    lo, hi = fig["leader_wins"]["interval"]
    assert lo <= fig["leader_wins"]["share"] <= hi
    assert "timing" not in doc["rulesets"][0]
    assert main([*argv, "--timing"]) == 0
    assert "ms a hand" in capsys.readouterr().out


def test_vitou_analyze_refuses_an_unknown_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    from vitou_ref.cli.main import main

    assert main(["analyze", "--ruleset", "no-such-game/1.0.0"]) == 2
    assert "no-such-game" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["vitou-2p", "le-truc", "vitou/1.1.0", "vitou-partners-tie"])
def test_the_card_that_keeps_the_value_is_the_lowest_whose_line_keeps_it(name: str) -> None:
    # Solver.keeping answers with one threshold search a child, where the definition asks each
    # child's whole value: the lowest strength whose position after it has the position's value
    # (the side to play can do no better, by the minimax). Held to that definition at every
    # position of random lines of play, inside tricks and at their starts, on fresh solvers.
    t = _tables(name)
    rng = random.Random(11)
    for k in range(40):
        dealer = k % t.n
        solver = Solver(t, dealer)
        pos = solver.position(_deal(t, rng), t.first_leader[dealer])
        while True:
            v = solver.value(pos)
            kids = {s: solver.after(pos, s) for s in solver.moves(pos)}
            values = {s: c if isinstance(c, int) else solver.value(c) for s, c in kids.items()}
            assert solver.keeping(pos) == min(s for s, x in values.items() if x == v), (name, pos)
            s = rng.choice(list(kids))
            nxt = kids[s]
            if isinstance(nxt, int):
                break
            pos = nxt
