"""`vitou analyze` over a turned-up card and face-down cards (Truco Paulista), and the figures it gave before them."""

from __future__ import annotations

import contextlib
import io
import json
import random
from math import comb

import pytest

from vitou_ref import Match, load_ruleset
from vitou_ref.cli.main import main
from vitou_ref.engine.actions import Play
from vitou_ref.engine.events import HandEvent
from vitou_ref.engine.tables import TIED, Tables, tables_for
from vitou_ref.solve.deals import card_deals, every_deal, turn_up_packs
from vitou_ref.solve.solver import Position, Solver

EVERY_DEAL_WITH_TURN_UP = comb(40, 3) * comb(37, 3) * 34  # §1: two hands of 3 from 40, then one card turned up


def _tp() -> Tables:
    return tables_for(load_ruleset("truco-paulista"))


def _id(t: Tables, code: str) -> int:
    return next(c for c in t.deck if t.card(c).text == code)


def _engine_value(m: Match, t: Tables) -> int:
    """Minimax of side 0's result over every card the engine allows, face up or face down (no bids), played out."""
    seat = m.legal_actions()[0].seat
    maxing = t.side_of[t.seat_index[seat]] == 0
    values = []
    for a in m.legal_actions():
        if type(a) is not Play:
            continue
        child = m.clone()
        hand = next((e for e in child.apply(a) if type(e) is HandEvent), None)
        if hand is not None:
            values.append(0 if hand.winner is None else 1 if hand.winner == t.side_ids[0] else -1)
        else:
            values.append(_engine_value(child, t))
    return max(values) if maxing else min(values)


def _match(t: Tables, a: list[str], b: list[str], up: str) -> Match:
    # B deals, so A (seat 0, side 0) leads the first trick (§1: the player who did not deal leads).
    return Match(t, dealer="B", deals=[{"A": a, "B": b, "turn_up": up}])


def _solved(t: Tables, a: list[str], b: list[str], up: str) -> int:
    """The solver's value for A (side 0, leading), the hand's strengths those after the turn-up ``up``."""
    solver = Solver(t, t.seat_index["B"], face_down=True)
    hands = [[_id(t, c) for c in a], [_id(t, c) for c in b]]
    return solver.value(solver.position(hands, 0, t.power_after[_id(t, up)]))


def test_the_weights_over_every_turn_up_sum_to_every_card_deal() -> None:
    t = _tp()
    assert EVERY_DEAL_WITH_TURN_UP == 2_610_098_400 == card_deals(40, 2, 3, turn_up=True)
    # Each of the 40 turn-ups leaves 39 cards, dealt as C(39,3) C(36,3) pairs of hands.
    assert 40 * comb(39, 3) * comb(36, 3) == EVERY_DEAL_WITH_TURN_UP
    packs = turn_up_packs(t)
    assert sum(ups for _, ups in packs) == 40
    for counts, _ in packs:
        # §2: the turn-up's rank keeps 3 cards, the 8 other ordinary ranks 4, and the 4 manilhas are one card
        # each, above them all: 13 strengths.
        assert sorted(counts.values()) == [1, 1, 1, 1, 3] + [4] * 8
        assert [counts[s] for s in (10, 11, 12, 13)] == [1, 1, 1, 1]
    # The four suits of a rank leave the same pack (the turn-up takes one card of its rank whatever its suit).
    # Turn-ups 2 and 3 leave alike too: a 2 makes the 3s manilhas and leaves three 2s, the highest ordinary
    # rank; a 3 makes the 4s manilhas and leaves three 3s, again the highest. So 9 packs, one of them twice.
    assert sorted(ups for _, ups in packs) == [4] * 8 + [8]
    deals = list(every_deal(t, 2, 3))
    assert sum(w for _, w in deals) == EVERY_DEAL_WITH_TURN_UP
    assert len(deals) == len({d for d, _ in deals}) == 140_406


def test_the_manilha_of_clubs_and_the_turn_up_decide_a_hand() -> None:
    t = _tp()
    a, b = ["QS", "3H", "5C"], ["QC", "2S", "4D"]
    # Turn-up 7D: the queens are manilhas (§2), QC the strongest card, QS above every ordinary card. A leads.
    # B's QC takes any card, and 2S takes 5C. A leads 5C: B takes it with 2S, then leads QC. A leads 3H or QS:
    # B plays 4D, keeping QC and 2S, each above one of A's two cards left (QS < QC, 5C < 2S), and takes the
    # last two tricks. So B wins.
    assert _solved(t, a, b, "7D") == -1
    # B's manilha of diamonds instead (QD < QS): A leads 5C; if B takes it with 2S or QD, A's QS and 3H take
    # the next two (QS beats QD, 3H beats 4D); if B plays 4D, A leads QS and wins. So A wins.
    assert _solved(t, a, ["QD", "2S", "4D"], "7D") == 1
    # The same hands as the first with turn-up 4H: the 5s are manilhas, so A's 5C is the strongest card and
    # its 3H beats all of B's cards (queens are ordinary): A takes two tricks whatever B does.
    assert _solved(t, a, b, "4H") == 1
    for hands, up, want in ((b, "7D", -1), (["QD", "2S", "4D"], "7D", 1), (b, "4H", 1)):
        assert _engine_value(_match(t, a, hands, up), t) == want  # the engine, every line played out, agrees


def test_a_face_down_card_loses_to_a_card_face_up_and_ties_another_face_down() -> None:
    t = _tp()
    solver = Solver(t, t.seat_index["B"], face_down=True)
    power = t.power_after[_id(t, "7D")]
    # After a tied first trick (KS, KH) A leads again (§3). A holds 5C 3H, B holds 4D 2S.
    node = t.trie_next[0][TIED]
    five, three, four, two = (power[_id(t, c)] for c in ("5C", "3H", "4D", "2S"))
    assert five < three and four < two  # ordinary cards: 4 < 5 < ... < 2 < 3 (§2)
    pos = Position(((five, three), (four, two)), 0, node)
    # Face down from the second trick on: each card face up, then face down (as minus its strength).
    assert solver.moves(pos) == (five, three, -five)  # two cards: face down, the weaker goes (see the solver)
    assert all(m > 0 for m in solver.moves(Position(((1, five, three), (four, 5, two)), 0)))  # not in the first
    down = solver.after(pos, -five)
    assert isinstance(down, Position) and down.played == (0,)
    # B's 4D face up beats A's face-down card: T then B, B wins the hand after two tricks (§3, T X).
    assert solver.after(down, four) == -1
    # B face down too: a tie, T T, and the third trick decides, A (who led the tied trick) leading it.
    both = solver.after(down, -four)
    assert isinstance(both, Position) and both.hands == ((three,), (two,)) and both.leader == 0
    last = solver.after(both, three)
    assert isinstance(last, Position) and solver.after(last, two) == 1  # 3H beats 2S: T T A, A wins
    # A leads 3H, which B's 4D and 2S cannot beat nor tie: T A, A wins. Face-down cards change nothing.
    assert solver.value(pos) == 1
    m = _match(t, ["KS", "5C", "3H"], ["KH", "4D", "2S"], "7D")
    m.apply(Play("A", t.card(_id(t, "KS"))))
    m.apply(Play("B", t.card(_id(t, "KH"))))
    assert any(type(x) is Play and x.down for x in m.legal_actions())
    assert _engine_value(m, t) == 1


def _deals(t: Tables, k: int, seed: int) -> list[tuple[list[int], list[int], int]]:
    rng = random.Random(seed)
    out = []
    for _ in range(k):
        cards = rng.sample(t.deck, 7)
        out.append((cards[:3], cards[3:6], cards[6]))
    return out


def test_the_solver_agrees_with_the_engine_playing_every_line_with_a_turn_up_and_face_down_cards() -> None:
    t = _tp()
    for a, b, up in _deals(t, 30, 5):
        solver = Solver(t, t.seat_index["B"], face_down=True)
        got = solver.value(solver.position([a, b], 0, t.power_after[up]))
        a_, b_, up_ = [t.card(c).text for c in a], [t.card(c).text for c in b], t.card(up).text
        assert got == _engine_value(_match(t, a_, b_, up_), t), (a_, b_, up_)


def test_face_down_moves_and_giving_away_the_weakest_change_no_value() -> None:
    # §3: a card face up is never worse than the same card face down. Face down it loses the trick unless the
    # other card is face down too (a tie); face up it does as well or better against either. A first trick
    # won by X ends the hand on X's tie or win of the second and goes on to the third only on a loss, which
    # face down gives too; after a tied first, the second is won, tied (the third follows, same leader) or
    # lost. A last trick is better won than tied, and tied than lost. So under perfect information a
    # face-down card never changes who wins, and the solver with every card face down as a move of its own,
    # or with none, finds the same values at every position of random lines.
    t = _tp()
    rng = random.Random(3)
    for a, b, up in _deals(t, 60, 9):
        shortcut = Solver(t, 1, face_down=True)
        every = Solver(t, 1, face_down=True)
        every.down_weakest = False
        none = Solver(t, 1)
        pos: Position | int = shortcut.position([a, b], 0, t.power_after[up])
        while isinstance(pos, Position):
            v = shortcut.value(pos)
            assert v == every.value(pos) == none.value(pos), pos
            # The card that keeps the value is the first of the moves, in their order, whose child keeps it.
            moves = shortcut.moves(pos)
            kids = [shortcut.after(pos, s) for s in moves]
            keeps = [s for s, c in zip(moves, kids) if (c if isinstance(c, int) else shortcut.value(c)) == v]
            assert shortcut.keeping(pos) == keeps[0]
            pos = shortcut.after(pos, rng.choice(moves))


def _figures(argv: list[str]) -> dict[str, object]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["analyze", *argv, "--format", "json"]) == 0
    r = json.loads(out.getvalue())["rulesets"][0]
    return {"deals": r["deals"], **{k: f["count"] for k, f in r["figures"].items()}}


# `vitou analyze --format json` and `vitou analyze --ruleset le-truc --format json` at c93fa23, before the
# solver knew turn-ups and face-down cards: a ruleset without them must give exactly these counts still.
BEFORE = {
    "vitou-2p": {
        "deals": {"count": 18_123_840, "rank_deals": 14_280, "over": "every card deal, counted by ranks"},
        "leader_wins": 8_101_184,
        "other_wins": 10_018_624,
        "nobody_wins": 4_032,
        "decided_in_1": 0,
        "decided_in_2": 11_670_400,
        "decided_in_3": 6_453_440,
        "tie_on_line": 5_683_328,
        "leader_wins_through_tie": 2_406_880,
        "other_wins_through_tie": 3_272_416,
        "leader_wins_other_reading": 8_101_184,
        "other_wins_other_reading": 10_018_624,
        "tie_reading_worth_leader": 0,
        "tie_reading_worth_other": 0,
    },
    "le-truc": {
        "deals": {"count": 76_767_600, "rank_deals": 48_210, "over": "every card deal, counted by ranks"},
        "leader_wins": 34_398_480,
        "other_wins": 42_362_640,
        "nobody_wins": 6_480,
        "decided_in_1": 0,
        "decided_in_2": 48_231_456,
        "decided_in_3": 28_536_144,
        "tie_on_line": 19_862_112,
        "leader_wins_through_tie": 8_555_784,
        "other_wins_through_tie": 11_299_848,
        "leader_wins_other_reading": 34_398_480,
        "other_wins_other_reading": 42_362_640,
        "tie_reading_worth_leader": 0,
        "tie_reading_worth_other": 0,
    },
}


def test_a_ruleset_without_a_turn_up_gives_the_figures_it_gave_before() -> None:
    assert _figures([]) == BEFORE["vitou-2p"]


@pytest.mark.slow
def test_le_truc_gives_the_figures_it_gave_before() -> None:
    assert _figures(["--ruleset", "le-truc"]) == BEFORE["le-truc"]


@pytest.mark.slow
def test_truco_paulista_figures_over_every_deal_and_its_turn_up() -> None:
    # `vitou analyze --ruleset truco-paulista --format json`: about 35 s of one core.
    got = _figures(["--ruleset", "truco-paulista"])
    deals = got.pop("deals")
    assert deals["count"] == EVERY_DEAL_WITH_TURN_UP and deals["turn_up"] is True  # type: ignore[index]
    assert "with its turn-up" in deals["over"] and "2,610,098,400" in deals["over"]  # type: ignore[index]
    assert got == {
        "leader_wins": 1_182_923_280,
        "other_wins": 1_427_175_120,
        "nobody_wins": 0,  # §3: every hand has a winner
        "decided_in_1": 0,
        "decided_in_2": 1_605_885_832,
        "decided_in_3": 1_004_212_568,
        "tie_on_line": 619_874_400,
        "leader_wins_through_tie": 279_747_408,
        "other_wins_through_tie": 340_126_992,
        "leader_wins_other_reading": 1_182_923_280,
        "other_wins_other_reading": 1_427_175_120,
        "tie_reading_worth_leader": 0,
        "tie_reading_worth_other": 0,
    }
