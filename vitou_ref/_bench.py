"""Benchmarks, run as commands: figures are measured, not asserted by timed tests."""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass

from ._match import Match
from ._model import Ruleset
from ._tables import tables_for


@dataclass(frozen=True)
class EngineFigure:
    ruleset: str
    hands_per_second_best: float
    hands_per_second_median: float
    hands: int
    matches: int
    seconds: float


def bench_engine(rules: Ruleset, seconds: float = 2.0, repeat: int = 5, seed: int = 1) -> EngineFigure:
    """Random play, legal actions generated at every step, on one core; the best of ``repeat`` runs."""
    t = tables_for(rules)
    rates: list[float] = []
    total_hands = total_matches = 0
    elapsed = 0.0
    for r in range(repeat):
        rng = random.Random(seed + r)
        rnd = rng.random
        hands = matches = 0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            m = Match(t, rng=rng)
            while True:
                legal = m.legal_actions()
                if not legal:
                    break
                m.apply(legal[int(rnd() * len(legal))])
            hands += m.hand_number
            matches += 1
            if matches % 16 == 0 and time.perf_counter() >= deadline:
                break
        took = time.perf_counter() - start
        rates.append(hands / took)
        total_hands += hands
        total_matches += matches
        elapsed += took
    return EngineFigure(rules.name, max(rates), statistics.median(rates), total_hands, total_matches, elapsed)
