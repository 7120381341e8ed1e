"""``vitou bench engine|harness``: the speed of the reference's play and of certification through the pipe."""

from __future__ import annotations

import argparse
import sys

from . import options as _o
from .output import print_json


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bench = sub.add_parser(
        "bench",
        help="measure speed",
        description="Measure speed: the reference's random play, or certification through the pipe.",
    ).add_subparsers(dest="bench_command", metavar="SUBCOMMAND")
    bench.required = True
    engine = bench.add_parser(
        "engine",
        help="hands per second of random play on one core",
        description="Hands per second of random play with the reference on one core, legal actions at every "
        "step: several runs, the best reported with the median.",
    )
    engine.add_argument("--ruleset", default="vitou", help="ruleset id, id/version or file (default: vitou)")
    engine.add_argument("--seconds", type=_o.positive_seconds, default=2.0, help="length of each run (default 2)")
    engine.add_argument("--repeat", type=_o.positive_int, default=5, help="runs; the best is reported (default 5)")
    engine.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    engine.set_defaults(run=cmd_bench_engine)
    hb = bench.add_parser(
        "harness",
        help="certification speed: the whole suite, and cases per second through the pipe",
        description="Certify the bundled reference on the whole suite and time it; then cases per second through "
        "the pipe, with the reference answering and with its answers replayed (the harness alone).",
    )
    hb.add_argument(
        "--rounds",
        type=_o.positive_int,
        default=5,
        help="times the suite is sent for the throughput figures (default 5)",
    )
    hb.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    hb.set_defaults(run=cmd_bench_harness)


def cmd_bench_engine(args: argparse.Namespace) -> int:
    return bench_engine(args.ruleset, args.seconds, args.repeat, args.format)


def bench_engine(ruleset: str, seconds: float, repeat: int, fmt: str) -> int:
    from ..hunt.bench import bench_engine as measure
    from ..rules.registry import load_ruleset

    if seconds <= 0 or repeat < 1:
        print("vitou: --seconds must be positive and --repeat at least 1", file=sys.stderr)
        return 2
    fig = measure(load_ruleset(ruleset), seconds, repeat)
    if fmt == "json":
        print_json(fig.__dict__)
    else:
        print(
            f"{fig.ruleset}: {fig.hands_per_second_best:,.0f} hands/s best of {repeat} "
            f"(median {fig.hands_per_second_median:,.0f}); {fig.hands:,} hands, {fig.matches:,} matches "
            f"in {fig.seconds:.1f}s; random play, legal actions at every step, one core"
        )
    return 0


def cmd_bench_harness(args: argparse.Namespace) -> int:
    return bench_harness(args.rounds, args.format)


def bench_harness(rounds: int, fmt: str) -> int:
    from ..hunt.bench import bench_harness as measure

    if rounds < 1:
        print("vitou: --rounds must be at least 1", file=sys.stderr)
        return 2
    fig = measure(rounds)
    if fmt == "json":
        print_json(fig.__dict__)
    else:
        print(
            f"certify the reference on the whole suite ({fig.cases} cases): {fig.certify_seconds:.2f}s wall, process start included"
        )
        print(
            f"through the pipe, the reference answering: {fig.reference_cases_per_second:,.0f} cases/s "
            f"(suite sent {fig.rounds} times, one process)"
        )
        print(f"through the pipe, answers replayed (the harness alone): {fig.harness_cases_per_second:,.0f} cases/s")
    return 0


__all__ = ["add_parsers", "bench_engine", "bench_harness"]
