"""vitou simulate: the statistics against values worked by hand, per-match seeds, jobs, save and merge, charts, pages."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from vitou_ref.cli import main
from vitou_ref.engine.tables import tables_for
from vitou_ref.rules.registry import load_ruleset
from vitou_ref.sim import stats
from vitou_ref.sim.run import Lineup, match_seed, play_range, player_seed, seat_kinds
from vitou_ref.sim.shards import split

TIMING = ("seconds", "matches_per_second", "merged_from")


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["simulate", "--format", "json", *args]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def untimed(rep: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in rep.items() if k not in TIMING}


# ------------------------------------------------------------------ statistics, against values worked by hand


def test_wilson_of_50_in_100() -> None:
    # p = .5, z² = 3.841459: centre (.5 + z²/200) / (1 + z²/100) = .5 exactly;
    # half = z·√(.25/100 + z²/40000) / (1 + z²/100) = 1.959964 · .0509514 / 1.0384146 = .096168.
    lo, hi = stats.wilson(50, 100)
    assert lo == pytest.approx(0.403832, abs=1e-6) and hi == pytest.approx(0.596168, abs=1e-6)


def test_wilson_of_0_in_10_is_closed_at_0() -> None:
    # k = 0: lo = 0; hi = 2·(z²/20) / (1 + z²/10) = .384146 / 1.3841459 = .277533 (not 0 as k/n ± z·se says).
    assert stats.wilson(0, 10) == (0.0, pytest.approx(0.277533, abs=1e-6))
    assert stats.wilson(10, 10) == (pytest.approx(1 - 0.277533, abs=1e-6), 1.0)
    assert stats.wilson(0, 0) == (0.0, 1.0)


def test_a_printed_interval_is_the_exact_one_rounded_once() -> None:
    from vitou_ref.sim.compare import avg, mean_of, pct, share

    # 282 of 400 (search against heuristic): Wilson's lower bound is 0.658529..., printed 65.9; before, the JSON's
    # 0.6585 was rounded again and printed 65.8. The upper bound is 0.747571..., 74.8; the share 70.5.
    assert pct(share(282, 400)) == "70.5% [65.9–74.8]"
    # A mean of 1.1352 (169 twos among 1250 values) prints 1.14, not the 1.13 of 1.135 rounded again.
    counts = {1: 1081, 2: 169}
    assert avg(mean_of(stats.moments(counts), counts)).startswith("1.14 [")


def test_two_proportion_z_pooled() -> None:
    # 45/100 against 60/100: pooled p = 105/200 = .525; se = √(.525·.475·(1/100 + 1/100)) = .0706222;
    # z = (.60 - .45) / .0706222 = 2.12398; two-sided p = erfc(2.12398/√2) = .03367.
    z, p = stats.two_proportions(45, 100, 60, 100)
    assert z == pytest.approx(2.12398, abs=1e-5) and p == pytest.approx(0.03367, abs=1e-5)
    assert stats.two_proportions(0, 50, 0, 80) == (0.0, 1.0)  # nothing either side: no evidence


def test_welch_with_the_normal_approximation() -> None:
    # mean 10, sd 2, n 100 against mean 10.5, sd 3, n 150: se = √(4/100 + 9/150) = √.1 = .316228;
    # t = .5 / .316228 = 1.581139; p = erfc(1.581139/√2) = .113846.
    t, p = stats.welch(stats.Moments(100, 10.0, 2.0), stats.Moments(150, 10.5, 3.0))
    assert t == pytest.approx(1.581139, abs=1e-6) and p == pytest.approx(0.113846, abs=1e-6)


def test_moments_median_and_the_interval_of_a_mean() -> None:
    # 1, 2, 3, 4: mean 2.5, sample sd √(5/3) = 1.290994; half-width 1.959964 · 1.290994 / 2 = 1.265151.
    m = stats.moments({1: 1, 2: 1, 3: 1, 4: 1})
    assert (m.n, m.mean, m.sd) == (4, 2.5, pytest.approx(math.sqrt(5 / 3)))
    lo, hi = m.interval()
    assert lo == pytest.approx(2.5 - 1.265151, abs=1e-6) and hi == pytest.approx(2.5 + 1.265151, abs=1e-6)
    assert stats.median({1: 2, 5: 1}) == 1 and stats.median({1: 1, 2: 1}) == 1.5 and stats.median({}) == 0


# ------------------------------------------------------------------ seeds and ranges


def test_a_match_s_seeds_depend_on_the_run_s_seed_and_its_number_only() -> None:
    assert match_seed(1, 5) == match_seed(1, 5) != match_seed(1, 6) != match_seed(2, 5)
    assert player_seed(1, 5, "N") != player_seed(1, 5, "E")
    assert split(0, 10, 3) == [(0, 3), (3, 6), (6, 10)] and split(5, 7, 8) == [(5, 6), (6, 7)]


def test_any_range_of_matches_plays_alike_wherever_it_is_played() -> None:
    whole = play_range(["vitou"], Lineup(), 7, 0, 30)[0]
    head, tail = play_range(["vitou"], Lineup(), 7, 0, 12)[0], play_range(["vitou"], Lineup(), 7, 12, 30)[0]
    head.add(tail)
    assert head.to_raw() == whole.to_raw() and whole.matches == 30


def test_two_kinds_swap_sides_every_other_match() -> None:
    t = tables_for(load_ruleset("vitou"))
    even, odd = seat_kinds(t, Lineup("random", "heuristic"), 0), seat_kinds(t, Lineup("random", "heuristic"), 1)
    first = [s for n, s in enumerate(t.seat_ids) if t.side_of[n] == 0]
    assert all(even[s] == "random" and odd[s] == "heuristic" for s in first)
    assert sorted(even.values()) == sorted(odd.values()) == ["heuristic", "heuristic", "random", "random"]


def test_the_cli_s_kinds_are_the_players() -> None:
    from vitou_ref.cli.sim import KINDS
    from vitou_ref.players import KINDS as PLAYERS

    assert KINDS == PLAYERS


# ------------------------------------------------------------------ the command


def test_one_ruleset_text_says_the_baseline_and_the_intervals(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--matches", "60", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "a baseline, not a model of real players" in out and "Wilson score interval" in out
    assert "first dealer's side wins" in out and "hands per match (mean)" in out


def test_two_rulesets_side_by_side_with_their_tests(capsys: pytest.CaptureFixture[str]) -> None:
    rep = run_json(capsys, "--ruleset", "vitou", "--ruleset", "vitou-2p", "--matches", "300")
    a, b = rep["rulesets"]
    assert (a["ruleset"], b["ruleset"]) == ("vitou/1.1.0", "vitou-2p/1.0.0")
    assert sum(e["count"] for e in a["endings"].values()) == 300
    assert a["hands_per_match"]["ci95"][0] < a["hands_per_match"]["mean"] < a["hands_per_match"]["ci95"][1]
    (diff,) = rep["differences"]
    tests = {t["figure"]: t for t in diff["figures"]}
    assert tests["hands_per_match"]["test"] == "Welch t" and tests["hands_per_match"]["significant"]
    assert tests["tied_tricks"]["test"] == "two-proportion z"
    assert main(["simulate", "--ruleset", "vitou", "--ruleset", "vitou-2p", "--matches", "300"]) == 0
    out = capsys.readouterr().out
    assert "*" in out and "differs from vitou/1.1.0 at the 5% level" in out


def test_against_reports_the_first_kind_s_win_rate(capsys: pytest.CaptureFixture[str]) -> None:
    rep = run_json(capsys, "--players", "random", "--against", "random", "--matches", "60")
    (r,) = rep["rulesets"]
    assert r["first_kind_won"]["of"] == 60 and rep["players"]["against"] == "random"
    assert run_json(capsys, "--matches", "10")["rulesets"][0]["first_kind_won"] is None


def test_jobs_give_the_figures_of_one_process(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--ruleset", "vitou", "--ruleset", "vitou-2p", "--matches", "120", "--seed", "9")
    one, two = run_json(capsys, *args), run_json(capsys, *args, "--jobs", "2")
    assert untimed(one) == untimed(two)


def test_saved_halves_merge_into_the_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b, c = (str(tmp_path / f"{x}.json") for x in "abc")
    whole = run_json(capsys, "--matches", "80", "--seed", "4")
    run_json(capsys, "--matches", "30", "--seed", "4", "--save", a)
    run_json(capsys, "--matches", "50", "--seed", "4", "--first", "30", "--save", b)
    merged = run_json(capsys, "--merge", b, a)
    assert untimed(merged) == untimed(whole) and merged["merged_from"] == [b, a] and merged["seconds"] is None
    # The same file twice, an overlap, a different seed: each refused, naming the files.
    assert main(["simulate", "--merge", a, a]) == 2
    assert f"{a}: SIMULATION_MERGE: matches 0 to 29 are also in {a}" in capsys.readouterr().err
    run_json(capsys, "--matches", "10", "--seed", "5", "--save", c)
    assert main(["simulate", "--merge", a, c]) == 2
    err = capsys.readouterr().err
    assert c in err and a in err and "seed 5 where" in err


def test_merge_refuses_what_is_not_saved_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something else"}')
    assert main(["simulate", "--merge", str(bad)]) == 2
    assert f"{bad}: SIMULATION_MERGE: not the counts of vitou simulate --save" in capsys.readouterr().err
    assert main(["simulate", "--merge", str(tmp_path / "missing.json")]) == 2
    assert "FILE_UNREADABLE" in capsys.readouterr().err
    assert main(["simulate", "--merge", str(bad), "--seed", "3"]) == 2
    assert "--seed: SIMULATE_OPTIONS: --merge takes" in capsys.readouterr().err


def _hostile_saves(good: dict[str, Any]) -> dict[str, str]:
    """Saved counts altered the ways a file from elsewhere may be: each must get exit 2 naming the file, never 3."""

    def altered(**changes: Any) -> str:
        return json.dumps({**good, **changes})

    return {
        "nested": "[" * 100_000 + "]" * 100_000,  # before the fix: a RecursionError, exit 3
        "boolean range": altered(ranges=[[True, 30]]),  # JSON's true is not match 1
        "string range": altered(ranges=[["0", 30]]),
        "float range": altered(ranges=[[0.0, 30]]),
        "ruleset not a name": altered(rulesets=[7]),
        "counts of a string": altered(counts=["x"]),
        "huge integer": altered(seed=0).replace('"seed": 0', '"seed": ' + "9" * 5000),
    }


def test_merge_refuses_hostile_saves(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = tmp_path / "a.json"
    run_json(capsys, "--matches", "30", "--seed", "4", "--save", str(a))
    good = json.loads(a.read_text(encoding="utf-8"))
    for what, text in _hostile_saves(good).items():
        f = tmp_path / "hostile.json"
        f.write_text(text, encoding="utf-8")
        assert main(["simulate", "--merge", str(f)]) == 2, what
        assert f"{f}: SIMULATION_MERGE" in capsys.readouterr().err, what  # with a JSON pointer where one applies


def test_save_replaces_nothing_without_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "counts.json"
    path.write_text("mine")
    assert main(["simulate", "--matches", "5", "--save", str(path)]) == 2
    assert "exists; give --force to replace it" in capsys.readouterr().err and path.read_text() == "mine"
    assert main(["simulate", "--matches", "5", "--save", str(path), "--force"]) == 0
    assert json.loads(path.read_text())["format"] == "vitou-simulate-counts"


def test_options_that_cannot_work_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--plot", str(tmp_path / "chart.pdf")]) == 2
    assert "--plot: SIMULATE_OPTIONS: " in capsys.readouterr().err
    assert main(["simulate", "--budget", "50"]) == 2
    assert "no search player plays" in capsys.readouterr().err
    assert main(["simulate", "--players", "nobody"]) == 2


def test_plot_without_matplotlib_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    with pytest.raises(Exception) as caught:
        from vitou_ref.cli.sim import Request
        from vitou_ref.cli.sim import simulate as run

        run(Request(plot=str(tmp_path / "c.png")))
    assert "pip install 'vitou[plot]'" in str(caught.value)


def test_the_base_command_never_imports_matplotlib(tmp_path: Path) -> None:
    code = (
        "import sys; from vitou_ref.cli import main; "
        f"assert main(['simulate', '--matches', '3', '--format', 'html', '-o', {str(tmp_path / 'p.html')!r}]) == 0; "
        "print('matplotlib' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().endswith("False")


@pytest.mark.parametrize("ext", ["png", "svg"])
def test_plot_draws_the_comparison(tmp_path: Path, ext: str, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    chart = tmp_path / f"chart.{ext}"
    assert (
        main(["simulate", "--ruleset", "vitou", "--ruleset", "vitou-2p", "--matches", "40", "--plot", str(chart)]) == 0
    )
    data = chart.read_bytes()
    assert data.startswith(b"\x89PNG") if ext == "png" else b"<svg" in data[:2000]
    if ext == "svg":
        assert b"Match length" in data and b"vitou-2p/1.0.0" in data


def test_the_page_reads_on_a_phone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from browser import DESKTOP, PHONE, scroll_width

    page = tmp_path / "sim.html"
    args = ["simulate", "--ruleset", "vitou", "--ruleset", "vitou-2p", "--matches", "100", "--format", "html"]
    assert main([*args, "-o", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert "<script" not in text and "http" not in text.replace("http-equiv", "")
    assert "How matches end" in text and "differs from vitou/1.1.0" in text
    assert scroll_width(page, PHONE) <= PHONE and scroll_width(page, DESKTOP) <= DESKTOP
