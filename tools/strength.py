"""How strong the player kinds are: head-to-head win rates with 95% Wilson intervals, and their speed.

    python tools/strength.py heuristic random --matches 400
    python tools/strength.py search heuristic --matches 200 --jobs 2
    python tools/strength.py --speed

In a head-to-head the two kinds hold opposite sides and swap sides every other match; match i is
played from seed ``seed + i``, and the players' seeds are derived from it, so a run is repeatable.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vitou_ref.engine.observation import Observation
from vitou_ref.engine.tables import tables_for
from vitou_ref.players.arena import play_match
from vitou_ref.players.base import make_player
from vitou_ref.rules.registry import load_ruleset


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def one_match(args: tuple[str, str, str, int, int | None]) -> bool:
    """Whether kind ``a`` wins match ``seed`` against kind ``b`` (``a`` holds the first side on even seeds)."""
    ruleset, a, b, seed, budget = args
    t = tables_for(load_ruleset(ruleset))
    a_side = t.side_ids[seed % 2]
    players = {
        s: make_player(a if t.side_ids[t.side_of[i]] == a_side else b, seed=seed * 100 + i, budget=budget)
        for i, s in enumerate(t.seat_ids)
    }
    *_, (m, _, _) = play_match(t, players, seed=seed)
    return m.winner == a_side


def head_to_head(ruleset: str, a: str, b: str, matches: int, seed: int, jobs: int, budget: int | None) -> None:
    start = time.perf_counter()
    work = [(ruleset, a, b, seed + i, budget) for i in range(matches)]
    if jobs > 1:
        with multiprocessing.Pool(jobs) as pool:
            results = pool.map(one_match, work, chunksize=4)
    else:
        results = [one_match(w) for w in work]
    wins = sum(results)
    lo, hi = wilson(wins, matches)
    secs = time.perf_counter() - start
    print(
        f"{ruleset}: {a} vs {b}: {a} won {wins}/{matches} = {wins / matches:.3f} "
        f"(95% Wilson [{lo:.3f}, {hi:.3f}]), seeds {seed}..{seed + matches - 1}, {secs:.1f} s, {jobs} job(s)"
    )


class _Timed:
    """A player wrapped to count and time its searched decisions (more than one choice, the game waiting)."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.kind = inner.kind  # type: ignore[attr-defined]
        self.decisions = 0
        self.seconds = 0.0

    def choose(self, obs: Observation) -> object:
        start = time.perf_counter()
        out = self.inner.choose(obs)  # type: ignore[attr-defined]
        if obs.must_act and len(obs.legal) > 1:
            self.decisions += 1
            self.seconds += time.perf_counter() - start
        return out


def speed(ruleset: str, matches: dict[str, int], budget: int | None) -> None:
    t = tables_for(load_ruleset(ruleset))
    for kind, n in matches.items():
        timed: list[_Timed] = []
        start = time.perf_counter()
        for seed in range(n):
            players = {
                s: _Timed(make_player(kind, seed=seed * 100 + i, budget=budget)) for i, s in enumerate(t.seat_ids)
            }
            timed += players.values()
            for _ in play_match(t, players, seed=seed):  # type: ignore[arg-type]
                pass
        secs = time.perf_counter() - start
        dec = sum(p.decisions for p in timed)
        dsecs = sum(p.seconds for p in timed)
        print(
            f"{ruleset}: {kind} at all seats: {n / secs:.1f} matches/s; "
            f"{dec} decisions with a choice, {dec / dsecs:.1f} decisions/s ({1000 * dsecs / max(dec, 1):.2f} ms each)"
        )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kinds", nargs="*", help="two player kinds: the first's win rate is measured")
    parser.add_argument("--ruleset", default="vitou/1.1.0")
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--budget", type=int, default=None, help="the search player's sampled deals per decision")
    parser.add_argument("--speed", action="store_true", help="matches/s of each kind, decisions/s of the search")
    args = parser.parse_args(argv)
    if args.speed:
        speed(args.ruleset, {"random": 2000, "heuristic": 500, "search": 10}, args.budget)
    if args.kinds:
        if len(args.kinds) != 2:
            parser.error("give two player kinds")
        head_to_head(args.ruleset, *args.kinds, args.matches, args.seed, args.jobs, args.budget)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
