"""How strong one kind of player is against another, in pairs of matches on the same seed with the sides swapped.

    python tools/solver_strength.py [--ruleset ID] [--pairs N] [--seed S] [--players A] [--against B] [--budget N]

Pair i plays match seed S+i twice: A holding the first side and B the second, then the sides
swapped; the deals come from the match's seed, so both matches of a pair are dealt alike hand for
hand. A's win share is the mean of the pairs' shares (0, 1/2 or 1), with a 95% interval from the
spread of the pairs (the paired design: a deal's luck cancels within its pair).
"""

from __future__ import annotations

import argparse
import sys
import time
from math import sqrt
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vitou_ref.engine.events import MatchEvent
from vitou_ref.engine.tables import Tables, tables_for
from vitou_ref.players.arena import play_match
from vitou_ref.players.base import make_player
from vitou_ref.rules.registry import load_ruleset

Z95 = 1.959963984540054


def winner(t: Tables, kinds: tuple[str, str], seed: int, budget: int | None) -> int:
    """The index in ``kinds`` of the kind that wins match ``seed``, kinds[0] holding the first side."""
    players = {
        s: make_player(kinds[t.side_of[i]], seed=seed * 100 + i, budget=budget) for i, s in enumerate(t.seat_ids)
    }
    for _, _, events in play_match(t, players, seed=seed):  # type: ignore[arg-type]
        for e in events:
            if type(e) is MatchEvent:
                return t.side_index[e.winner]
    raise AssertionError("a match always ends with a winner")  # pragma: no cover


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", default="vitou/1.1.0", help="the ruleset played (default: %(default)s)")
    parser.add_argument("--pairs", type=int, default=200, help="pairs of matches (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=1, help="the first match's seed (default: %(default)s)")
    parser.add_argument("--players", default="solver", help="kind A (default: %(default)s)")
    parser.add_argument("--against", default="search", help="kind B (default: %(default)s)")
    parser.add_argument("--budget", type=int, default=None, help="the searches' sampled deals per decision")
    args = parser.parse_args(argv)
    t = tables_for(load_ruleset(args.ruleset))
    a, b = args.players, args.against
    shares: list[float] = []
    start = time.perf_counter()
    for i in range(args.pairs):
        seed = args.seed + i
        won = (winner(t, (a, b), seed, args.budget) == 0) + (winner(t, (b, a), seed, args.budget) == 1)
        shares.append(won / 2)
        if (i + 1) % 10 == 0:  # a long run shows how far it is, and what it has found so far
            print(f"{i + 1} pairs: {a} {100 * sum(shares) / len(shares):.1f}%", file=sys.stderr, flush=True)
    report(t.name, a, b, shares, args.seed, time.perf_counter() - start)
    return 0


def report(name: str, a: str, b: str, shares: list[float], seed: int, seconds: float) -> None:
    n = len(shares)
    mean = sum(shares) / n
    sd = sqrt(sum((x - mean) ** 2 for x in shares) / (n - 1)) if n > 1 else 0.0
    half = Z95 * sd / sqrt(n)
    print(
        f"{name}: {a} against {b}: {a} wins {100 * mean:.1f}% [{100 * (mean - half):.1f}, {100 * (mean + half):.1f}] "
        f"of {2 * n} matches ({n} pairs, seeds {seed}-{seed + n - 1}, paired 95% interval; pairs won "
        f"2-0 {shares.count(1.0)}, 1-1 {shares.count(0.5)}, 0-2 {shares.count(0.0)}); {seconds:.0f}s"
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
