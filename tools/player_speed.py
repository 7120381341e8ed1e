"""How fast the player kinds play: matches/s with one kind at every seat, and the time of each decision.

    python tools/player_speed.py [--ruleset ID] [--budget N]

How strong they are is measured by the product itself: vitou simulate --players A --against B.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vitou_ref.engine.observation import Observation
from vitou_ref.engine.tables import tables_for
from vitou_ref.players.arena import play_match
from vitou_ref.players.base import make_player
from vitou_ref.rules.registry import load_ruleset


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
    parser.add_argument("--ruleset", default="vitou/1.1.0", help="the ruleset played (default: %(default)s)")
    parser.add_argument("--budget", type=int, default=None, help="the search player's sampled deals per decision")
    args = parser.parse_args(argv)
    speed(args.ruleset, {"random": 2000, "heuristic": 500, "search": 10, "solver": 10}, args.budget)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
