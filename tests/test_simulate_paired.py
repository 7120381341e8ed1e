"""vitou simulate's paired and duplicate comparisons: against values worked by hand, the width property, real runs."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vitou_ref.cli import main
from vitou_ref.engine.tables import tables_for
from vitou_ref.rules.registry import load_ruleset
from vitou_ref.sim import stats
from vitou_ref.sim.figures import CountsError
from vitou_ref.sim.paired import DUPLICATE, PLAIN, Pairs
from vitou_ref.sim.pairedfigs import kind_advantage, paired_json
from vitou_ref.sim.run import Lineup, play_units, player_seed, seating

TIMING = ("seconds", "matches_per_second", "merged_from")


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["simulate", "--format", "json", *args]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def figure(rep: dict[str, Any], name: str) -> dict[str, Any]:
    return next(f for f in rep["differences"][0]["figures"] if f["figure"] == name)


# ------------------------------------------------------------------ the paired test, by hand


def test_ten_pairs_worked_by_hand() -> None:
    # (x, y): (1,1) ×5, (1,0) ×2, (0,0) ×2, (0,1) ×1; d = y - x: 0 ×7, -1 ×2, +1 ×1.
    # d̄ = (-2 + 1) / 10 = -.1; Σ(d - d̄)² = 7·.01 + 2·.81 + 1.21 = 2.9; sd(d) = √(2.9/9) = .567646;
    # half-width 1.959964 · .567646 / √10 = .351824: [-.451824, .251824]; t = -.1 / .179505 = -.557086,
    # p = erfc(.557086/√2) = .577469.
    # x̄ = .7, sd(x)² = (7·.09 + 3·.49)/9 = 2.1/9; ȳ = .6, sd(y)² = (6·.16 + 4·.36)/9 = 2.4/9;
    # cov = (5·.12 - 2·.18 + 2·.42 - .28)/9 = .8/9 = .088889 (and 2.1 + 2.4 - 2·.8 = 2.9: sd(d)² checks);
    # unpaired half-width 1.959964 · √((2.1/9 + 2.4/9)/10) = 1.959964 · √.05 = .438261.
    p = stats.paired(Counter({(1, 1): 5, (1, 0): 2, (0, 0): 2, (0, 1): 1}))
    assert (p.n, p.mean, p.sd) == (10, pytest.approx(-0.1), pytest.approx(0.567646, abs=1e-6))
    assert p.cov == pytest.approx(0.8 / 9)
    lo, hi = p.interval()
    assert (lo, hi) == (pytest.approx(-0.451824, abs=1e-6), pytest.approx(0.251824, abs=1e-6))
    ulo, uhi = p.unpaired_interval()
    assert (ulo, uhi) == (pytest.approx(-0.538261, abs=1e-6), pytest.approx(0.338261, abs=1e-6))
    t, pv = p.test()
    assert t == pytest.approx(-0.557086, abs=1e-6) and pv == pytest.approx(0.577469, abs=1e-6)


def test_pairs_of_two_plays_are_per_match() -> None:
    # Duplicate values are sums over the two plays of a deal: (2, 0), (1, 1), (0, 0) and (2, 1) are per match
    # (1, 0), (.5, .5), (0, 0), (1, .5): d = -1, 0, 0, -.5; d̄ = -.375; Σ(d - d̄)² = .390625 + 2·.140625 + .015625
    # = .6875; sd = √(.6875/3) = .478714.
    p = stats.paired(Counter({(2, 0): 1, (1, 1): 1, (0, 0): 1, (2, 1): 1}), scale=2)
    assert (p.mean, p.sd) == (pytest.approx(-0.375), pytest.approx(0.478714, abs=1e-6))


def test_every_pair_differing_alike_is_complete_evidence() -> None:
    assert stats.paired(Counter({(0, 1): 5})).test() == (None, 0.0)
    assert stats.paired(Counter({(1, 1): 5})).test() == (0.0, 1.0)
    assert stats.paired(Counter({(0, 1): 1})).interval() == (1.0, 1.0)


pair_tables = st.dictionaries(
    st.tuples(st.integers(-3, 30), st.integers(-3, 30)), st.integers(1, 40), min_size=1, max_size=12
)


@settings(max_examples=300, deadline=None)
@given(pair_tables)
def test_the_paired_interval_is_no_wider_exactly_when_the_covariance_is_not_negative(
    table: dict[tuple[int, int], int],
) -> None:
    # What holds: sd(d)² = sd(x)² + sd(y)² - 2·cov exactly (n - 1 denominators throughout), so the paired
    # half-width z·sd(d)/√n is at most the unpaired z·√((sd(x)² + sd(y)²)/n) exactly when cov ≥ 0. The
    # issue's "never wider" does not hold for every data: negatively correlated pairs make it wider.
    p = stats.paired(Counter(table))
    if p.n < 2:
        return
    assert p.sd**2 == pytest.approx(p.sd_x**2 + p.sd_y**2 - 2 * p.cov, abs=1e-9)
    paired_w = p.interval()[1] - p.interval()[0]
    unpaired_w = p.unpaired_interval()[1] - p.unpaired_interval()[0]
    slack = 1e-9 * max(1.0, unpaired_w)
    if p.cov >= 0:
        assert paired_w <= unpaired_w + slack
    else:
        assert paired_w > unpaired_w - slack


def test_negatively_correlated_pairs_make_the_paired_interval_wider() -> None:
    # (0, 1) ×5 and (1, 0) ×5: cov = -2.5/9 < 0; sd(d)² = 10/9 against sd(x)² + sd(y)² = 5/9: the paired is
    # √2 times wider.
    p = stats.paired(Counter({(0, 1): 5, (1, 0): 5}))
    paired_w, unpaired_w = (p.interval()[1] - p.interval()[0]), (p.unpaired_interval()[1] - p.unpaired_interval()[0])
    assert paired_w == pytest.approx(math.sqrt(2) * unpaired_w)


# ------------------------------------------------------------------ pairs counted, merged, read back


def test_pairs_count_zeros_they_never_saw() -> None:
    p = Pairs(PLAIN)
    p.add_unit([{"a": 1}, {"a": 0}])
    p.add_unit([{}, {}])
    p.add_unit([{"a": 1}, {"a": 1, "b": 2}])
    assert p.pair("a", 0, 1) == Counter({(1, 0): 1, (0, 0): 1, (1, 1): 1})
    assert p.pair("b", 0, 1) == Counter({(0, 0): 2, (0, 2): 1}) and p.column("b", 1) == Counter({0: 2, 2: 1})
    assert Pairs.from_raw(json.loads(json.dumps(p.to_raw())), 2).to_raw() == p.to_raw()


@pytest.mark.parametrize(
    ("raw", "where"),
    [
        ({"form": "bridge", "units": 1, "joint": {}}, ("form",)),
        ({"form": "plain", "units": -1, "joint": {}}, ("units",)),
        ({"form": "plain", "units": 1, "joint": {"a": [[1, 1, 2]]}}, ("joint", "a")),
        ({"form": "plain", "units": 1, "joint": {"a": [[1, 2]]}}, ("joint", "a", 0)),
        ({"form": "plain", "units": 5, "joint": {"a": [[0, 0, 1]]}}, ("joint", "a", 0)),
        ({"form": "plain", "units": 5, "joint": {"a": [[True, 0, 1]]}}, ("joint", "a", 0)),
    ],
)
def test_pairs_that_are_not_counts_are_refused_where_they_are_wrong(raw: Any, where: tuple[Any, ...]) -> None:
    with pytest.raises(CountsError) as caught:
        Pairs.from_raw(raw, 2)
    assert caught.value.where == where


@pytest.mark.parametrize("form", [PLAIN, DUPLICATE])
def test_any_range_of_deals_pairs_alike_wherever_it_is_played(form: str) -> None:
    refs, lineup = ["vitou", "vitou-partners-tie"], Lineup("random", "heuristic")
    whole = play_units(refs, lineup, 7, 0, 12, form)
    head, tail = play_units(refs, lineup, 7, 0, 5, form), play_units(refs, lineup, 7, 5, 12, form)
    head[1].add(tail[1])
    assert head[1].to_raw() == whole[1].to_raw() and whole[1].units == 12
    assert whole[0][0].matches == 12 * (2 if form == DUPLICATE else 1)


# ------------------------------------------------------------------ the duplicate form


def test_the_second_play_moves_every_player_one_seat_on() -> None:
    # Vitou seats N E S W, sides NS and EW. Match 0 with random against heuristic: random holds NS. Its second
    # play: N's player (random, N's seed) sits at E, E's at S, S's at W, W's at N: random now holds EW, with
    # the cards E and W were dealt; the dealer and the cards stay with the seats.
    t = tables_for(load_ruleset("vitou"))
    lineup = Lineup("random", "heuristic")
    first, side0 = seating(t, lineup, 3, 0, 0)
    second, side1 = seating(t, lineup, 3, 0, 1)
    assert (side0, side1) == (0, 1)
    assert [first[s].kind for s in "NESW"] == ["random", "heuristic", "random", "heuristic"]
    assert [second[s].kind for s in "NESW"] == ["heuristic", "random", "heuristic", "random"]
    # The random player at E is N's, with N's seed: its generator's state is that of a fresh one seeded so.
    state = second["E"]._rnd.__self__.getstate()  # type: ignore[attr-defined]
    assert state == random.Random(player_seed(3, 0, "N")).getstate() != random.Random(player_seed(3, 0, "E")).getstate()


def test_a_duplicate_deal_s_advantage_worked_by_hand() -> None:
    # Four deals; the first kind's wins minus the second's, summed over a deal's two plays: 2, 0, 0, 2, per match
    # 1, 0, 0, 1: mean .5, sd √((4·.25)/3) = .577350, half-width 1.959964 · .577350 / √4 = .565792.
    p = Pairs(DUPLICATE)
    for v in (2, 0, 0, 2):
        p.add_unit([{"kind_advantage": v}])
    adv = kind_advantage(p, 0)
    assert (adv["form"], adv["deals"], adv["difference"], adv["sd"]) == ("duplicate", 4, 0.5, 0.5774)
    assert adv["ci95"] == [round(0.5 - 0.565792, 4), round(0.5 + 0.565792, 4)]


def test_duplicate_needs_two_sides_seated_alternately(capsys: pytest.CaptureFixture[str]) -> None:
    from vitou_ref.sim.run import duplicate_problem

    assert duplicate_problem(tables_for(load_ruleset("vitou"))) is None
    assert duplicate_problem(tables_for(load_ruleset("le-truc"))) is None


def test_a_real_duplicate_run_says_its_form_and_cancels_card_luck(capsys: pytest.CaptureFixture[str]) -> None:
    # The same 400 matches' worth: 400 plain matches, or 200 deals played twice. In the duplicate form each deal
    # compares the two kinds holding the same cards: its spread is below the plain one's over two matches (sd/√2).
    plain = run_json(capsys, "--against", "random", "--matches", "400")
    dup = run_json(capsys, "--against", "random", "--matches", "200", "--duplicate")
    assert (plain["form"], dup["form"], plain["matches"], dup["matches"], dup["deals"]) == (
        "plain",
        "duplicate",
        400,
        400,
        200,
    )
    a, b = plain["rulesets"][0]["first_kind_advantage"], dup["rulesets"][0]["first_kind_advantage"]
    assert (a["form"], b["form"]) == ("plain", "duplicate")
    assert b["sd"] < a["sd"] / math.sqrt(2) and b["ci95"][1] - b["ci95"][0] < a["ci95"][1] - a["ci95"][0]
    assert dup["rulesets"][0]["first_kind_won"]["of"] == 400


# ------------------------------------------------------------------ paired comparisons of rulesets, real runs


def test_common_seeds_correlate_and_narrow_the_interval(capsys: pytest.CaptureFixture[str]) -> None:
    rep = run_json(capsys, "--ruleset", "vitou", "--ruleset", "vitou-partners-tie", "--matches", "150")
    hp = figure(rep, "hands_per_match")
    assert hp["test"] == "Welch t"  # today's unpaired figure stays beside the paired one
    pr = hp["paired"]
    assert pr["form"] == "plain" and pr["deals"] == 150 and pr["covariance"] > 0
    assert pr["ci95"][1] - pr["ci95"][0] < pr["unpaired_ci95"][1] - pr["unpaired_ci95"][0]
    assert pr["difference"] == pytest.approx(hp["difference"], abs=1e-3)  # the same means, rounded to 4 and 3 places
    assert "paired" not in figure(rep, "tied_tricks")  # a trick is no unit two rulesets share


def test_a_ruleset_against_itself_differs_by_nothing_pair_by_pair(capsys: pytest.CaptureFixture[str]) -> None:
    rep = run_json(capsys, "--ruleset", "vitou", "--ruleset", "vitou", "--matches", "40")
    pr = figure(rep, "hands_per_match")["paired"]
    assert (pr["difference"], pr["sd"], pr["ci95"], pr["p"]) == (0.0, 0.0, [0.0, 0.0], 1.0)


def test_saved_halves_merge_into_the_whole_pairs_included(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--ruleset", "vitou", "--ruleset", "vitou-partners-tie", "--duplicate", "--seed", "4")
    whole = run_json(capsys, *args, "--matches", "20")
    assert main(["simulate", *args, "--matches", "8", "--save", str(tmp_path / "a.json")]) == 0
    assert main(["simulate", *args, "--first", "8", "--matches", "12", "--save", str(tmp_path / "b.json")]) == 0
    capsys.readouterr()
    merged = run_json(capsys, "--merge", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert {k: v for k, v in merged.items() if k not in TIMING} == {k: v for k, v in whole.items() if k not in TIMING}
    assert merged["form"] == "duplicate" and merged["matches"] == 40 and merged["paired"]


def test_a_file_saved_before_pairs_merges_without_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["simulate", "--ruleset", "vitou", "--ruleset", "vitou", "--matches", "4", "--save", str(tmp_path / "a")])
        == 0
    )
    raw = json.loads((tmp_path / "a").read_text())
    del raw["pairs"]
    (tmp_path / "old").write_text(json.dumps(raw))
    capsys.readouterr()
    rep = run_json(capsys, "--merge", str(tmp_path / "old"))
    assert rep["paired"] is False and "paired" not in figure(rep, "hands_per_match")
    raw["pairs"] = {"form": "plain", "units": 3, "joint": {}}
    (tmp_path / "bad").write_text(json.dumps(raw))
    assert main(["simulate", "--merge", str(tmp_path / "bad")]) == 2
    assert "do not add up" in capsys.readouterr().err


def test_paired_json_names_the_form() -> None:
    p = Pairs(DUPLICATE)
    p.add_unit([{"x": 2}, {"x": 0}])
    p.add_unit([{"x": 1}, {"x": 1}])
    out = paired_json(p, "x", 0, 1)
    # Per match (1, 0) and (.5, .5): d = -1 and 0, d̄ = -.5, sd = √(.5/1) = .707107.
    assert (out["form"], out["deals"], out["difference"], out["sd"]) == ("duplicate", 2, -0.5, 0.7071)


# ------------------------------------------------------------------ runs that stop when the answer is known


def _widths_at_checkpoints(refs: list[str], k: int, blocks: int, figure: str) -> list[float]:
    from vitou_ref.sim.stopping import width

    pairs = Pairs(PLAIN)
    out = []
    for b in range(blocks):
        pairs.add(play_units(refs, Lineup(), 1, b * k, (b + 1) * k)[1])
        out.append(width(pairs, figure, len(refs)))
    return out


def test_until_width_stops_at_the_first_checkpoint_narrow_enough(capsys: pytest.CaptureFixture[str]) -> None:
    refs = ["vitou", "vitou-partners-tie"]
    widths = _widths_at_checkpoints(refs, 20, 6, "hands_per_match")
    # A bound between checkpoint j's width and the narrowest before it: j is the first narrower than the bound.
    j = next(j for j in range(2, 6) if widths[j] < min(widths[:j]))
    bound = (min(widths[:j]) + widths[j]) / 2
    args = ["--ruleset", refs[0], "--ruleset", refs[1], "--checkpoint", "20", "--until-width", repr(bound)]
    rep = run_json(capsys, *args)
    assert rep["matches"] == 20 * (j + 1) and rep["ranges"] == [[0, 20 * (j + 1)]]
    stop = rep["stopping"]
    assert (stop["stopped_by"], stop["figure"], stop["checkpoint"]) == ("width", "hands_per_match", 20)
    assert stop["width"] == pytest.approx(widths[j], abs=1e-6) and stop["width"] < bound
    pr = figure(rep, "hands_per_match")["paired"]
    assert pr["ci95"][1] - pr["ci95"][0] == pytest.approx(widths[j], abs=1e-3)


def test_until_width_is_bounded_by_max_matches(capsys: pytest.CaptureFixture[str]) -> None:
    rep = run_json(capsys, "--until-width", "0.001", "--checkpoint", "15", "--max-matches", "40")
    assert rep["matches"] == 40 and rep["stopping"]["stopped_by"] == "max-matches"  # checkpoints 15, 30 and 40


@pytest.mark.parametrize("extra", [[], ["--duplicate", "--against", "heuristic"]])
def test_until_width_stops_alike_on_any_number_of_processes(
    capsys: pytest.CaptureFixture[str], extra: list[str]
) -> None:
    args = ["--ruleset", "vitou", "--ruleset", "vitou-partners-tie", "--until-width", "1.2", "--checkpoint", "10"]
    one = run_json(capsys, *args, *extra)
    two = run_json(capsys, *args, *extra, "--jobs", "2")
    assert one["stopping"]["stopped_by"] == "width" and one["matches"] < 100_000
    untimed = [json.dumps({k: v for k, v in r.items() if k not in TIMING}, sort_keys=True) for r in (one, two)]
    assert untimed[0] == untimed[1]


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--checkpoint", "10"], "--checkpoint"),
        (["--until-figure", "hands_per_match"], "--until-figure"),
        (["--until-width", "1", "--matches", "10"], "--matches"),
        (["--until-width", "1", "--until-figure", "tied_tricks"], "--until-figure"),
        (["--until-width", "1", "--until-figure", "kind_advantage"], "--until-figure"),
        (["--scheduler", "tcp://127.0.0.1:1", "--jobs", "2"], "--jobs"),
    ],
)
def test_options_of_a_stop_that_cannot_work_exit_2(
    args: list[str], option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", *args]) == 2
    assert option in capsys.readouterr().err


def test_merge_takes_the_form_from_its_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--matches", "2", "--save", str(tmp_path / "a")]) == 0
    assert main(["simulate", "--matches", "2", "--first", "2", "--duplicate", "--save", str(tmp_path / "b")]) == 0
    assert main(["simulate", "--merge", str(tmp_path / "a"), "--duplicate"]) == 2
    assert main(["simulate", "--merge", str(tmp_path / "a"), str(tmp_path / "b")]) == 2
    assert "form duplicate where" in capsys.readouterr().err


def test_the_text_says_the_form_the_stop_and_the_paired_differences(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--ruleset", "vitou", "--ruleset", "vitou", "--against", "heuristic", "--duplicate"]
    assert main(["simulate", *args, "--until-width", "9", "--checkpoint", "10"]) == 0
    out = capsys.readouterr().out
    assert "20 matches of seed 1 (deals 0 to 9)" in out and "duplicate: 10 deals, each played twice" in out
    assert "stopped: the 95% interval of kind_advantage" in out and "narrower than 9" in out
    assert "paired on the same deals, vitou/1.1.0 minus vitou/1.1.0:" in out
    assert "  hands per match (mean): +0 [+0 to +0]" in out
    assert "first kind's win share minus the second's (vitou/1.1.0), duplicate:" in out


@pytest.mark.parametrize(
    "pairs",
    [
        "not pairs",
        {"form": "plain", "units": 4, "joint": {"hands_per_match": [[1, "x", 1]]}},
        {"form": "plain", "units": 4, "joint": {"hands_per_match": [[10**6, 1, 1]]}},
        {"form": "duplicate", "units": 4, "joint": {}},
    ],
)
def test_hostile_pairs_in_a_saved_run_exit_2(pairs: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["simulate", "--ruleset", "vitou", "--ruleset", "vitou", "--matches", "4", "--save", str(tmp_path / "a")])
        == 0
    )
    raw = json.loads((tmp_path / "a").read_text())
    raw["pairs"] = pairs
    (tmp_path / "b").write_text(json.dumps(raw))
    capsys.readouterr()
    assert main(["simulate", "--merge", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert str(tmp_path / "b") in err and ("pairs" in err or "do not add up" in err)


def test_the_table_s_marks_follow_the_paired_test_where_a_figure_has_pairs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The table marks a difference by the paired test when the figure has one (a match has one value
    # of it), else by the unpaired test. Each test's verdict is flipped in turn in a real report:
    # the mark must follow the paired verdict for match length, the unpaired one for tied tricks.
    from vitou_ref.sim.compare import rows

    rep = run_json(capsys, "--ruleset", "vitou", "--ruleset", "vitou-partners-tie", "--matches", "40")
    hp, tt = figure(rep, "hands_per_match"), figure(rep, "tied_tricks")

    def marks() -> dict[str, bool]:
        got = {r.label.strip(): r.marks[0] for r in rows(rep) if r.marks}
        return {"hp": got["hands per match (mean)"], "tt": got["tied tricks"]}

    hp["significant"], hp["paired"]["significant"], tt["significant"] = False, True, False
    assert marks() == {"hp": True, "tt": False}
    hp["significant"], hp["paired"]["significant"], tt["significant"] = True, False, True
    assert marks() == {"hp": False, "tt": True}


def test_the_page_shows_each_paired_difference_with_both_intervals(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The page carries what the JSON's paired blocks say: each difference of a figure a match has
    # one value of, its paired interval and, beside it, the unpaired one on the same data.
    argv = ["--ruleset", "vitou", "--ruleset", "vitou-partners-tie", "--matches", "40"]
    rep = run_json(capsys, *argv)
    out = tmp_path / "sim.html"
    assert main(["simulate", *argv, "--format", "html", "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "<h2>Paired on the same deals</h2>" in page
    pr = figure(rep, "hands_per_match")["paired"]
    lo, hi = pr["ci95"]
    ulo, uhi = pr["unpaired_ci95"]
    assert f"[{lo:+.4g} to {hi:+.4g}]" in page and f"unpaired [{ulo:+.4g} to {uhi:+.4g}]" in page
    assert "tied tricks</th>" not in page.split("<h2>Paired on the same deals</h2>")[1]  # no pairs: not shown
