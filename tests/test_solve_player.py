"""The solver player: each sampled deal's card play solved exactly, scored as the engine scores the hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from vitou_ref import load_ruleset
from vitou_ref.engine.actions import Play
from vitou_ref.engine.observation import RecordedMatch, observe
from vitou_ref.engine.tables import tables_for
from vitou_ref.players.base import make_player
from vitou_ref.players.solved import SolverPlayer, _value, position_of
from vitou_ref.solve.solver import Solver

ROOT = Path(__file__).resolve().parent.parent


def _world(name: str, deal: dict[str, list[str]], dealer: str) -> RecordedMatch:
    return RecordedMatch(tables_for(load_ruleset(name)), dealer=dealer, deals=[deal])


def test_a_card_is_worth_the_hand_s_end_with_bids_by_the_rules_of_thumb_and_cards_solved() -> None:
    # vitou-2p (ladder 1, 3, 6, 12; a refused bid pays the rung below; only a trick's leader may bid,
    # never the side whose bid stands; 8 ranks, so a card's place x is (strength - 1) / 7, 10 = 1,
    # 9 = 6/7, A = 5/7, 8 = 1/7, 7 = 0). The rules of thumb's estimate is 0.5 + (x1 - 0.5) / 2 +
    # (x2 - 0.5) / 4, +-0.25 a trick won or lost: they bid at 0.7, refuse under 0.35.
    # S deals; N leads 10S 10H 7C (estimate 0.875) against 9S AH 8D (0.732).
    # - N leads a ten: S, last to the trick, cannot bid; every card of S loses the hand, so the
    #   solver plays its lowest, 8D. N leads again at 0.625 + 0.25 = 0.875: it bids 3 and plays the
    #   lowest card that keeps the hand, 7C (its other ten takes the third trick). S, at
    #   0.732 - 0.25 = 0.482, accepts by playing AH, wins the trick and leads 9S at 0.679: no bid. N's
    #   ten takes the third trick: N wins at 3.
    # - N leads 7C: S takes it with 8D, leads at 0.732 + 0.25 = 0.982 and bids 3, playing AH. N, at
    #   0.625, accepts with a ten and leads the other at 0.75: it raises to 6; S accepts (0.679) with
    #   9S. N wins at 6: keeping the 7C for the first trick is worth 6 in this world.
    deal = {"N": ["10S", "10H", "7C"], "S": ["9S", "AH", "8D"]}
    m = _world("vitou-2p", deal, "S")
    t = m.tables
    obs = observe(m, "N")
    solver = Solver(t, t.seat_index["S"])
    plays = [a for a in m.legal_actions() if type(a) is Play]
    assert [(str(a.card), _value(obs, solver, m.clone(), a)) for a in plays] == [
        ("10S", 3.0),
        ("10H", 3.0),
        ("7C", 6.0),
    ]
    # S, to follow N's 7C: whichever card S plays, it wins the trick and bids 3 at the second (at
    # 0.982, 0.839 or 0.768), N accepts with a ten and raises to 6 with the other: -6 each.
    m.apply(next(a for a in plays if a.card.text == "7C"))
    obs = observe(m, "S")
    plays = [a for a in m.legal_actions() if type(a) is Play]
    assert {_value(obs, solver, m.clone(), a) for a in plays} == {-6.0}


def test_with_the_ladder_at_its_top_only_the_solved_value_is_left() -> None:
    # vitou-2p, the bids 3, 6, 12 and the match (baraque) made and accepted in turn: nothing can be
    # bid or answered any more, so the hand goes to its perfect-information winner, and the match
    # with it. N leads 10S 10H 7C against 9S AH 8D: N's two tens take two tricks whatever S plays.
    m = _world("vitou-2p", {"N": ["10S", "10H", "7C"], "S": ["9S", "AH", "8D"]}, "S")
    t = m.tables
    m.level = t.top  # the ladder's top, as if every rung had been bid and accepted
    solver = Solver(t, t.seat_index["S"])
    obs = observe(m, "N")
    plays = [a for a in m.legal_actions() if type(a) is Play]
    assert {_value(obs, solver, m.clone(), a) for a in plays} == {float(t.target)}


def test_the_worlds_bids_and_answers_are_the_rules_of_thumb_s() -> None:
    # _thumb reads the rules of thumb's bid or answer from the match, to spare an Observation at
    # every step of every world: it must be decide()'s, card aside, at every moment of many matches.
    import random

    from vitou_ref.engine.observation import asking_order
    from vitou_ref.players.heuristic import decide
    from vitou_ref.players.solved import _thumb

    # The settings profile opens bids at twenty, where the side at twenty counts its partners' cards.
    open_twenty = "conformance/settings/rulesets/setting-twenty-bids-open-1.0.0.yaml"
    for name in ("vitou/1.1.0", "vitou-2p", "le-truc", "vitou-volee", str(ROOT / open_twenty)):
        t = tables_for(load_ruleset(name))
        at = {t.side_ids[0]: t.twenty_at, t.side_ids[1]: 0} if t.twenty_at else None  # twenty: partners' cards seen
        for seed in range(12):
            rng = random.Random(seed)
            m = RecordedMatch(t, rng=random.Random(seed), score=at if seed % 2 else None)
            steps = 0
            while not m.is_over and steps < 400:
                legal = m.legal_actions()
                if not legal:
                    break
                for seat in asking_order(m, legal):
                    want = decide(observe(m, seat), signals=False)
                    assert _thumb(m, seat, legal) == (None if want is None or type(want) is Play else want)
                m.apply(rng.choice(legal))
                steps += 1


def test_the_position_of_a_match_is_the_solver_s() -> None:
    m = _world(
        "vitou/1.1.0",
        {"N": ["10S", "9H", "7C"], "E": ["AS", "KD", "8H"], "S": ["QS", "JH", "7D"], "W": ["10C", "9D", "AH"]},
        "W",
    )
    t = m.tables
    m.apply(next(a for a in m.legal_actions() if type(a) is Play and a.card.text == "9H"))
    solver = Solver(t, t.seat_index["W"])
    pos = position_of(solver, m)
    st = {c.text: t.strength[c.id] for c in (t.card(i) for i in t.deck)}
    assert pos.leader == t.seat_index["N"] and pos.played == (st["9H"],) and pos.node == 0
    assert pos.hands[0] == tuple(sorted((st["10S"], st["7C"])))
    assert solver.to_play(pos) == t.seat_index["E"]


def test_the_kind_is_registered_and_its_budget_checked() -> None:
    assert make_player("solver", seed=1).kind == "solver"
    with pytest.raises(ValueError, match="1 or more"):
        SolverPlayer(1, budget=0)


def test_simulate_plays_the_solver_against_another_kind(capsys: pytest.CaptureFixture[str]) -> None:
    from vitou_ref.cli.main import main

    argv = ["simulate", "--ruleset", "vitou-2p", "--players", "solver", "--against", "heuristic"]
    assert main([*argv, "--matches", "2", "--budget", "2"]) == 0
    assert "solver" in capsys.readouterr().out


def test_a_bid_is_judged_with_the_card_after_it() -> None:
    # Vitou: a bid is answered after the bidder's card, so the bidder plays a card right after its
    # bid. That card is a candidate of its own, the same in every world (chosen in each world it would
    # know the unseen cards); a card, or a bid answered before any card (Le Truc), has no follow-up.
    from vitou_ref.engine.actions import Raise
    from vitou_ref.players.solved import _cards_after

    m = _world(
        "vitou/1.1.0",
        {"N": ["10S", "9H", "7C"], "E": ["AS", "KD", "8H"], "S": ["QS", "JH", "7D"], "W": ["10C", "9D", "AH"]},
        "W",
    )
    obs = observe(m, "N")
    bid = next(a for a in obs.legal if type(a) is Raise)
    assert sorted(str(c.card) for c in _cards_after(obs, m, bid) if c is not None) == ["10S", "7C", "9H"]
    assert _cards_after(obs, m, next(a for a in obs.legal if type(a) is Play)) == [None]
    lt = _world("le-truc", {"A": ["3S", "2H", "4C"], "B": ["AS", "KD", "5H"]}, "B")
    lobs = observe(lt, "A")
    assert _cards_after(lobs, lt, next(a for a in lobs.legal if type(a) is Raise)) == [None]


def test_ties_go_to_the_rules_of_thumb(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every candidate worth the same in every world: the rules of thumb's choice is taken, not the
    # first legal action (a card: the rules of thumb open the bidding with N's ten and nine here).
    import dataclasses

    from vitou_ref.players import solved
    from vitou_ref.players.heuristic import decide

    m = _world(
        "vitou/1.1.0",
        {"N": ["10S", "9H", "7C"], "E": ["AS", "KD", "8H"], "S": ["QS", "JH", "7D"], "W": ["10C", "9D", "AH"]},
        "W",
    )
    obs = dataclasses.replace(observe(m, "N"), gestures=())  # no signal to make first
    thumb = decide(obs, signals=False)
    assert thumb != obs.legal[0]
    monkeypatch.setattr(solved, "_value", lambda *args: 0.0)
    assert SolverPlayer(1, budget=2).choose(obs) == thumb
