"""The start-up benchmark: `vitou --help` against bare Python, and `vitou certify` with a warm and a cold load cache.

Run ``python tools/bench_start.py`` (``--runs N``, default 11). Each command
runs as a whole process, the commands in turn (A B C A B C ...) so that a
drift in the machine's speed touches them alike, after one warm-up run of
each. Wall time is measured around the process; CPU time is the user and
system time of the process and of every process it waited for (the certified
implementation included), read from the kernel's accounting. Medians are
printed with the smallest and largest run: on a shared machine quote the
median, and a wide range says the machine was busy.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def _vitou() -> list[str]:
    found = shutil.which("vitou")
    return [found] if found else [sys.executable, "-m", "vitou_ref"]


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited with {done.returncode}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11, help="counted runs of each command (default: %(default)s)")
    args = parser.parse_args()
    vitou = _vitou()
    warm = tempfile.mkdtemp(prefix="vitou-bench-warm-")
    cold_root = tempfile.mkdtemp(prefix="vitou-bench-cold-")
    base = {k: v for k, v in os.environ.items() if k != "VITOU_CACHE_DIR"}
    cold_runs = [0]

    def cold_env() -> dict[str, str]:
        cold_runs[0] += 1  # a directory never used before: nothing in the cache
        return {**base, "VITOU_CACHE_DIR": os.path.join(cold_root, str(cold_runs[0]))}

    commands: list[tuple[str, list[str], object]] = [
        ("python -c pass", [sys.executable, "-c", "pass"], lambda: base),
        ("vitou --help", [*vitou, "--help"], lambda: base),
        ("vitou certify (warm cache)", [*vitou, "certify"], lambda: {**base, "VITOU_CACHE_DIR": warm}),
        ("vitou certify (cold cache)", [*vitou, "certify"], cold_env),
    ]
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in commands}
    try:
        for i in range(args.runs + 1):
            for name, argv, env in commands:
                measured = _run(argv, env())  # type: ignore[operator]
                if i:  # the first round warms the disk cache, the file cache and the compiled modules
                    figures[name].append(measured)
    finally:
        shutil.rmtree(warm, ignore_errors=True)
        shutil.rmtree(cold_root, ignore_errors=True)
    print(f"{args.runs} runs each, interleaved; seconds, median (min to max)")
    print(f"{'command':<28} {'wall':>22} {'cpu':>22}")
    for name, runs in figures.items():
        cells = []
        for k in (0, 1):
            xs = [r[k] for r in runs]
            cells.append(f"{statistics.median(xs):.3f} ({min(xs):.3f}-{max(xs):.3f})")
        print(f"{name:<28} {cells[0]:>22} {cells[1]:>22}")
    pairs = zip(figures["vitou --help"], figures["python -c pass"])
    over = statistics.median(h[0] - p[0] for h, p in pairs)
    print(f"vitou --help over python -c pass, median of the run-by-run differences: {over * 1000:.0f} ms wall")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
