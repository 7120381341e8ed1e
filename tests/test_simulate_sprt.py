"""vitou simulate --sprt: the sequential test against values worked by hand, real runs that decide, bad input."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from vitou_ref.cli import main
from vitou_ref.sim.paired import DUPLICATE, PLAIN, Pairs
from vitou_ref.sim.sprt import LOWER, UPPER, Sprt, decision, llr, watched
from vitou_ref.sim.stats import Moments

TIMING = ("seconds", "matches_per_second")
# Ten paired differences of match length, worked by hand below.
TEN = [2, -1, 0, 3, 1, 1, -2, 4, 0, 2]


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["simulate", "--format", "json", *args]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def ten_pairs(form: str) -> Pairs:
    """Two rulesets whose match lengths differ by TEN, deal by deal (summed over both plays in the duplicate form:
    twice the per-match difference)."""
    pairs = Pairs(form)
    plays = 2 if form == DUPLICATE else 1
    for x in TEN:
        pairs.add_unit([{"hands_per_match": 5 * plays}, {"hands_per_match": (5 + x) * plays}])
    return pairs


# ------------------------------------------------------------------ the statistic, by hand


def test_the_bounds_are_those_of_alpha_and_beta_at_five_percent() -> None:
    # ln((1 - 0.05) / 0.05) = ln 19 = 2.944439; ln(0.05 / 0.95) = -ln 19.
    bounds = {"lower": LOWER, "upper": UPPER}
    assert bounds == {"lower": pytest.approx(-2.944439, abs=1e-6), "upper": pytest.approx(2.944439, abs=1e-6)}


@pytest.mark.parametrize(
    ("d0", "d1", "expected", "decided"),
    [
        # n = 10, Σx = 10, mean 1; deviations 1 -2 -1 2 0 0 -3 3 -1 1, squares summing to 30: s² = 30 / 9 = 10/3.
        # LLR = (d1 - d0) / s² · (Σx - n (d0 + d1) / 2):
        (0.0, 0.5, 1.125, None),  # 0.5 · 0.3 · (10 - 2.5) = 1.125: between the bounds, play on
        (0.0, 2.0, 0.0, None),  # 2 · 0.3 · (10 - 10) = 0: the mean sits half way
        (-1.0, 1.0, 6.0, "H1"),  # 2 · 0.3 · (10 - 0) = 6 >= 2.944
        (1.0, 3.0, -6.0, "H0"),  # 2 · 0.3 · (10 - 20) = -6 <= -2.944
        (3.0, 1.0, 6.0, "H1"),  # -2 · 0.3 · (10 - 20) = 6: H1 below H0 works alike
    ],
)
@pytest.mark.parametrize("form", [PLAIN, DUPLICATE])
def test_ten_values_worked_by_hand(d0: float, d1: float, expected: float, decided: str | None, form: str) -> None:
    m = watched(ten_pairs(form), "hands_per_match", 2)
    assert (m.n, m.mean, m.sd**2) == (10, pytest.approx(1.0), pytest.approx(10 / 3))
    ratio = llr(m, d0, d1)
    assert ratio == pytest.approx(expected, abs=1e-12)
    assert decision(ratio) == decided
    assert Sprt(d0, d1, "hands_per_match").stops(ten_pairs(form), 2) is (decided is not None)


def test_one_ruleset_reads_its_own_values_per_match_in_the_duplicate_form() -> None:
    # Deals whose two plays the first kind won both (+2), split (0) or lost both (-2): per match 1, 0, -1.
    # Values 1, 1, 1, 0, -1: mean 0.4, squares of deviations 3 · 0.36 + 0.16 + 1.96 = 3.2, s² = 0.8.
    # LLR of 0 against 0.5: 0.5 / 0.8 · (2 - 5 · 0.25) = 0.46875.
    pairs = Pairs(DUPLICATE)
    for v in (2, 2, 2, 0, -2):
        pairs.add_unit([{"kind_advantage": v}])
    m = watched(pairs, "kind_advantage", 1)
    assert (m.mean, m.sd**2) == (pytest.approx(0.4), pytest.approx(0.8))
    assert llr(m, 0.0, 0.5) == pytest.approx(0.46875)


@pytest.mark.parametrize("values", [[], [1], [1, 1, 1, 1]])
def test_no_spread_yet_decides_nothing(values: list[int]) -> None:
    # Fewer than two values, or none differing: s² is 0 or unknown, and a checkpoint says nothing of the spread.
    pairs = Pairs(PLAIN)
    for v in values:
        pairs.add_unit([{"first_kind_won": v}])
    assert llr(watched(pairs, "first_kind_won", 1), 0.2, 0.9) is None
    assert not Sprt(0.2, 0.9, "first_kind_won").stops(pairs, 1)
    assert llr(Moments(3, 0.5, 0.0), 0.0, 1.0) is None


# ------------------------------------------------------------------ real runs


def test_heuristic_against_random_accepts_h1_at_the_first_checkpoint(capsys: pytest.CaptureFixture[str]) -> None:
    # The heuristic wins about 87% of matches: a kind advantage near 0.75, far above 0.5. The first 20 matches
    # (seed 1): 19 won, 1 lost, values +1 ×19 and -1: mean 0.9, s² = (19 · 0.01 + 3.61) / 19 = 0.2;
    # LLR = 0.5 / 0.2 · (18 - 20 · 0.25) = 32.5 >= 2.944, so H1 at the first checkpoint.
    rep = run_json(capsys, "--players", "heuristic", "--against", "random", "--sprt", "0", "0.5", "--checkpoint", "20")
    stop = rep["stopping"]
    assert rep["matches"] == 20 and rep["ranges"] == [[0, 20]]
    assert (stop["decision"], stop["stopped_by"], stop["llr"]) == ("H1", "sprt", 32.5)
    assert (stop["h0"], stop["h1"], stop["alpha"], stop["beta"]) == (0.0, 0.5, 0.05, 0.05)
    assert stop["bounds"] == [-2.944439, 2.944439] and stop["figure"] == "kind_advantage"
    assert rep["rulesets"][0]["first_kind_advantage"]["difference"] == pytest.approx(0.9)


def test_hypotheses_far_above_the_truth_accept_h0(capsys: pytest.CaptureFixture[str]) -> None:
    # The truth near 0.75 is H0 itself, far from 0.25. After 10 matches (seed 1: all won, no spread) nothing is said;
    # after 20, mean 0.9 and s² = 0.2 as above: LLR = (0.25 - 0.75) / 0.2 · (18 - 20 · 0.5) = -20 <= -2.944.
    args = ["--players", "heuristic", "--against", "random", "--sprt", "0.75", "0.25", "--checkpoint", "10"]
    rep = run_json(capsys, *args)
    assert rep["matches"] == 20
    assert (rep["stopping"]["decision"], rep["stopping"]["llr"]) == ("H0", -20.0)


def test_hypotheses_too_close_to_tell_apart_stop_at_the_bound(capsys: pytest.CaptureFixture[str]) -> None:
    # 0.74 against 0.76: the LLR moves by 0.02 / s² per match from the midpoint, some 0.1 for each match off it;
    # 60 matches cannot reach ±2.944 unless the mean strays 0.1 from 0.75, which these do not (it ends near 0.77).
    args = ["--players", "heuristic", "--against", "random", "--sprt", "0.74", "0.76", "--checkpoint", "20"]
    rep = run_json(capsys, *args, "--max-matches", "60")
    stop = rep["stopping"]
    assert rep["matches"] == 60 and (stop["decision"], stop["stopped_by"]) == (None, "max-matches")
    assert LOWER < stop["llr"] < UPPER and stop["max_matches"] == 60


def test_two_rulesets_test_the_paired_difference(capsys: pytest.CaptureFixture[str]) -> None:
    # A ruleset against itself: every difference 0, no spread, never decided: the bound stops it.
    args = [
        "--ruleset",
        "vitou",
        "--ruleset",
        "vitou",
        "--sprt",
        "-1",
        "1",
        "--checkpoint",
        "10",
        "--max-matches",
        "20",
    ]
    stop = run_json(capsys, *args)["stopping"]
    assert (stop["figure"], stop["llr"], stop["decision"], stop["stopped_by"]) == (
        "hands_per_match",
        None,
        None,
        "max-matches",
    )


@pytest.mark.parametrize("extra", [[], ["--duplicate"]])
def test_sprt_stops_alike_on_any_number_of_processes(capsys: pytest.CaptureFixture[str], extra: list[str]) -> None:
    # Hypotheses near the truth, so that several checkpoints are read before the stop; --jobs 2 plays ahead.
    args = ["--players", "heuristic", "--against", "random", "--sprt", "0.6", "0.85", "--checkpoint", "10", *extra]
    one, two = run_json(capsys, *args), run_json(capsys, *args, "--jobs", "2")
    assert one["stopping"]["stopped_by"] == "sprt" and one["matches"] > 10 * (2 if extra else 1)
    untimed = [json.dumps({k: v for k, v in r.items() if k not in TIMING}, sort_keys=True) for r in (one, two)]
    assert untimed[0] == untimed[1]


def test_the_text_states_the_decision(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--players", "heuristic", "--against", "random", "--sprt", "0", "0.5", "--checkpoint", "20"]
    assert main(["simulate", *args]) == 0
    assert (
        "stopped: the SPRT of kind_advantage = 0 (H0) against 0.5 (H1), alpha 0.05, beta 0.05, accepted H1: "
        "LLR 32.5 >= 2.944 (checkpoints of 20, at most 100000)\n"
    ) in capsys.readouterr().out


def test_a_run_stopped_by_the_test_saves_and_merges(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--players", "heuristic", "--against", "random", "--sprt", "0", "0.5", "--checkpoint", "20"]
    played = run_json(capsys, *args, "--save", str(tmp_path / "a.json"))
    merged = run_json(capsys, "--merge", str(tmp_path / "a.json"))
    # As with --until-width, the saved counts are the matches played; how the run stopped is not counts.
    assert merged["ranges"] == played["ranges"] == [[0, 20]] and merged["stopping"] is None
    assert merged["rulesets"][0]["counts"] == played["rulesets"][0]["counts"]


# ------------------------------------------------------------------ bad input


KINDS = ["--players", "heuristic", "--against", "random"]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--sprt", "0.2", "0.2", *KINDS], "both 0.2"),
        (["--sprt", "x", "0.5", *KINDS], "'x' is not a number"),
        (["--sprt", "nan", "0.5", *KINDS], "not a finite number"),
        (["--sprt", "0.5", *KINDS], "expected 2 arguments"),
        (["--sprt", "0", "1.5", *KINDS], "1.5 is outside what kind_advantage can be: -1 to 1"),
        (["--sprt", "-0.1", "0.5", "--until-figure", "reached_twenty"], "outside what reached_twenty can be: 0 to 1"),
        (
            ["--sprt", "0.5", "3", "--until-figure", "hands_per_match"],
            "0.5 is outside what hands_per_match can be: at least 1",
        ),
        (
            ["--ruleset", "vitou", "--ruleset", "vitou-2p", "--sprt", "0", "1.2", "--until-figure", "reached_twenty"],
            "outside what the difference of reached_twenty can be: -1 to 1",
        ),
        (["--ruleset", "vitou", "--ruleset", "vitou-2p", "--ruleset", "vitou", "--sprt", "0", "1"], "3 rulesets"),
        (["--ruleset", "vitou", "--ruleset", "vitou-2p", "--sprt", "0", "0.5", *KINDS], "each ruleset's own"),
        (["--sprt", "0", "0.5", "--until-width", "0.1", *KINDS], "--until-width"),
        (["--sprt", "0", "0.5", "--matches", "10", *KINDS], "--max-matches"),
        (["--sprt", "0", "0.5", "--merge", "a.json"], "--merge takes"),
    ],
)
def test_bad_hypotheses_and_clashing_options_exit_2_naming_sprt(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", *args]) == 2
    err = capsys.readouterr().err
    assert "--sprt" in err and said in err, err


def test_the_figure_s_range_is_closed() -> None:
    from vitou_ref.sim.sprt import hypotheses_problem

    assert hypotheses_problem(-1.0, 1.0, "kind_advantage", 1) is None
    assert hypotheses_problem(1.0, 2.0, "hands_per_match", 1) is None
    assert hypotheses_problem(-50.0, math.nextafter(1e300, 0), "hands_per_match", 2) is None
