"""The solver player: each sampled deal's card play solved exactly, scored as the engine scores the hand."""

from __future__ import annotations

import pytest

from vitou_ref import load_ruleset
from vitou_ref.engine.actions import Play
from vitou_ref.engine.observation import RecordedMatch, observe
from vitou_ref.engine.tables import tables_for
from vitou_ref.players.base import make_player
from vitou_ref.players.solved import SolverPlayer, _value, position_of
from vitou_ref.solve.solver import Solver


def _world(name: str, deal: dict[str, list[str]], dealer: str) -> RecordedMatch:
    return RecordedMatch(tables_for(load_ruleset(name)), dealer=dealer, deals=[deal])


def test_a_card_is_worth_its_solved_value_at_the_unbid_hand_s_points() -> None:
    # vitou-2p, S deals, N leads 10S 10H 7C against 9S AH 8D: N wins whatever it leads (a ten takes
    # any trick, and N holds two), so each of N's cards is worth the unbid hand's point to N, +1.
    deal = {"N": ["10S", "10H", "7C"], "S": ["9S", "AH", "8D"]}
    m = _world("vitou-2p", deal, "S")
    t = m.tables
    obs = observe(m, "N")
    solver = Solver(t, t.seat_index["S"])
    plays = [a for a in m.legal_actions() if type(a) is Play]
    assert [_value(obs, solver, m.clone(), a) for a in plays] == [float(t.values[0])] * 3
    # S, to follow N's 7C, has three cards: each loses the hand (N's two tens take two tricks).
    m.apply(next(a for a in plays if a.card.text == "7C"))
    obs = observe(m, "S")
    plays = [a for a in m.legal_actions() if type(a) is Play]
    assert {_value(obs, solver, m.clone(), a) for a in plays} == {-float(t.values[0])}


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
