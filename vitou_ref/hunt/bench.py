"""Benchmarks, run as commands: figures are measured, not asserted by timed tests."""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass
from typing import Any

from ..engine.match import Match
from ..engine.tables import tables_for
from ..rules.model import Ruleset


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


@dataclass(frozen=True)
class HarnessFigure:
    cases: int
    certify_seconds: float  # the whole suite against the reference, process start included
    reference_cases_per_second: float  # through the pipe, the reference answering
    harness_cases_per_second: float  # through the pipe, answers replayed: the harness alone
    rounds: int


def bench_harness(rounds: int = 5) -> HarnessFigure:
    """Certification speed: the suite against the reference, and the harness against instant answers."""
    import json
    import os
    import sys
    import tempfile

    from ..kit.certify import REFERENCE_COMMAND, Certifier, Options
    from ..kit.suite import load_suite
    from ..protocol.server import run_case
    from ..rules.registry import load_ruleset, shipped_names
    from .replay import key_of

    suite = load_suite()
    names = [n for n in suite.rulesets() if n in shipped_names()]
    per_ruleset = {n: suite.applicable(n) for n in names}
    total = sum(len(v) for v in per_ruleset.values())

    def certify(argv: list[str], cases: dict[str, list[Any]], steady: bool) -> float:
        opts = Options(argv=argv, label="bench", rulesets=list(cases))
        t0 = time.perf_counter()
        run = Certifier(suite, cases, opts).run()
        took = time.perf_counter() - t0
        bad = [r for r in run.results if r.bad]
        if bad:
            raise RuntimeError(f"{bad[0].case.id} {bad[0].outcome}: {bad[0].reason}")
        return run.case_seconds if steady else took

    certify_seconds = certify(list(REFERENCE_COMMAND), per_ruleset, steady=False)
    repeated = {n: list(v) * rounds for n, v in per_ruleset.items()}
    n_cases = total * rounds
    reference = n_cases / certify(list(REFERENCE_COMMAND), repeated, steady=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "answers.jsonl")
        with open(path, "w", encoding="utf-8") as fh:
            from .._version import __version__

            start = {
                "protocol": 1,
                "implementation": {"name": "replay", "version": __version__, "language": "python"},
                "rulesets": names,
            }
            fh.write(json.dumps({"key": "start", "answer": start}) + "\n")
            for n, cases in per_ruleset.items():
                from ..engine.tables import tables_for

                t = tables_for(load_ruleset(n))
                for c in cases:
                    req = c.request(0, n)
                    answer = run_case(t, req["setup"], req["actions"], 0)
                    del answer["seq"]
                    key = key_of(c.request_line(0, n)).decode()
                    fh.write(json.dumps({"key": key, "answer": answer}) + "\n")
        harness = n_cases / certify([sys.executable, "-m", "vitou_ref.hunt.replay", path], repeated, steady=True)
    return HarnessFigure(total, certify_seconds, reference, harness, rounds)
