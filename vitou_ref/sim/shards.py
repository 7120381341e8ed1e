"""Large runs: matches split into contiguous ranges across processes, raw counts saved, and runs merged exactly."""

from __future__ import annotations

import contextlib
import itertools
import json
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from .._version import __version__
from ..engine.tables import Tables
from ..present import escape
from ..protocol.wire import WireError, loads
from ..rules.errors import InputError
from ..rules.files import read_path
from ..rules.problems import Problem, pointer
from .figures import MAX_COUNT, CountsError, Figures, count
from .run import Lineup, play_range, tables_of

FORMAT = "vitou-simulate-counts"  # the "format" of a --save file
FORMAT_VERSION = 1
MAX_SAVED = 64 << 20  # bytes of a --save file read back: counts, never this big
CHUNKS_PER_JOB = 8  # ranges per process: finer progress, and a slow range does not hold the others up


@dataclass
class Result:
    """Counts of the same matches under each ruleset, with what it takes to tell runs apart."""

    names: tuple[str, ...]
    lineup: Lineup
    seed: int
    ranges: tuple[tuple[int, int], ...]  # [first, end) of each range of matches, sorted, disjoint
    figures: list[Figures]
    seconds: float | None = None  # wall time of a run made here; None for runs merged from files
    sources: tuple[str, ...] = field(default=())  # the files merged
    vitou: str = __version__  # the version that played the matches

    @property
    def matches(self) -> int:
        return sum(b - a for a, b in self.ranges)

    def to_saved(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "vitou": self.vitou,
            "rulesets": list(self.names),
            "players": self.lineup.to_json(),
            "seed": self.seed,
            "ranges": [list(r) for r in self.ranges],
            "counts": [f.to_raw() for f in self.figures],
        }


def split(start: int, stop: int, parts: int) -> list[tuple[int, int]]:
    """``[start, stop)`` cut into ``parts`` contiguous ranges as even as can be (none empty)."""
    n = stop - start
    parts = max(1, min(parts, n))
    edges = [start + n * k // parts for k in range(parts + 1)]
    return list(itertools.pairwise(edges))


def simulate(
    refs: Sequence[str | Tables],
    lineup: Lineup,
    seed: int,
    first: int,
    matches: int,
    *,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
) -> Result:
    """Matches ``first`` to ``first + matches - 1`` under each ruleset, on ``jobs`` processes; the same counts for any
    number of jobs."""
    names = tuple(tables_of(r).name for r in refs)  # loaded here first: a bad ruleset stops the run at once
    start = time.perf_counter()
    stop = first + matches
    if jobs <= 1 or not all(isinstance(r, str) for r in refs):
        figures = play_range(refs, lineup, seed, first, stop, progress)
    else:
        figures = _in_processes(
            [str(r) for r in refs], lineup, seed, split(first, stop, jobs * CHUNKS_PER_JOB), jobs, progress
        )
    seconds = time.perf_counter() - start
    return Result(names, lineup, seed, ((first, stop),), figures, seconds)


def _in_processes(
    refs: Sequence[str],
    lineup: Lineup,
    seed: int,
    ranges: list[tuple[int, int]],
    jobs: int,
    progress: Callable[[int], None] | None,
) -> list[Figures]:
    # spawn: a fresh interpreter per worker, as on macOS; forking a parent that may hold threads is not safe.
    context = multiprocessing.get_context("spawn")
    total: list[Figures] | None = None
    done = 0
    # Workers ignore ^C: the parent alone stops the run, cancelling what has not started, without a traceback
    # from every process.
    pool = ProcessPoolExecutor(
        # More processes than twice the cores buys nothing and costs a start each: --jobs 100000 is not 100000.
        max_workers=min(jobs, len(ranges), 2 * (os.cpu_count() or 1)),
        mp_context=context,
        initializer=signal.signal,
        initargs=(signal.SIGINT, signal.SIG_IGN),
    )
    finished_ok = False
    try:
        futures = {pool.submit(play_range, tuple(refs), lineup, seed, a, b): b - a for a, b in ranges}
        pending: set[Future[list[Figures]]] = set(futures)
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                part = fut.result()
                if total is None:
                    total = part
                else:
                    for mine, theirs in zip(total, part):
                        mine.add(theirs)
                done += futures[fut]
                if progress is not None:
                    progress(done)
        finished_ok = True
    except BaseException:
        _end_workers(pool)
        raise
    finally:
        pool.shutdown(wait=finished_ok, cancel_futures=True)
    assert total is not None
    return total


def _end_workers(pool: ProcessPoolExecutor) -> None:
    """The workers of a run that stops (^C, SIGTERM, an error) ended now.

    They ignore ^C, and the pool would let each play its whole range, then
    wait for them as the interpreter exits; and a signal to the parent alone
    would leave them running after it. The pool has no public way to end
    them before Python 3.14's terminate_workers.
    """
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for p in processes:
        with contextlib.suppress(Exception):  # already gone, or never started
            p.terminate()
    deadline = time.monotonic() + 2.0
    for p in processes:
        with contextlib.suppress(Exception):
            p.join(max(0.0, deadline - time.monotonic()))
            if p.is_alive():
                p.kill()
                p.join(1.0)


def save(result: Result, path: str, *, force: bool) -> None:
    """The raw counts as JSON, refusing to replace a file unless ``force``."""
    from ..kit.outpaths import write_new

    write_new(path, json.dumps(result.to_saved(), indent=1, sort_keys=True) + "\n", force=force)


def _problem(path: str, message: str, where: tuple[object, ...] = ()) -> InputError:
    keys = [escape.text(k, 60) if isinstance(k, str) else k for k in where]  # a key from the file: cut and escaped
    return InputError([Problem("SIMULATION_MERGE", message, path, path=pointer(keys))])


def _figures(path: str, counts: object) -> list[Figures]:
    """Each ruleset's counts read and checked: whole numbers in range, no share above its total."""
    if not isinstance(counts, list):
        raise _problem(path, "the counts are not a list", ("counts",))
    figures = []
    for i, raw in enumerate(counts):
        try:
            f = Figures.from_raw(raw)
        except CountsError as exc:
            raise _problem(path, f"the counts are not well formed: {exc}", ("counts", i, *exc.where)) from None
        wrong = f.inconsistency()
        if wrong is not None:
            raise _problem(path, f"the counts are not those of matches played: {wrong[1]}", ("counts", i, *wrong[0]))
        figures.append(f)
    return figures


def _text(v: object) -> str:
    if not isinstance(v, str):
        raise TypeError(f"{v!r} is not a ruleset's name")
    return v


def read_saved(path: str) -> Result:
    """One --save file, checked: InputError naming the file for anything that is not a run's counts."""
    data = read_path(path, max_bytes=MAX_SAVED)
    if len(data) > MAX_SAVED:
        raise _problem(path, f"over {MAX_SAVED >> 20} MiB: not the counts of vitou simulate --save")
    try:
        raw = loads(data)  # bounded depth and digits: a saved file may come from anywhere
    except WireError as exc:
        raise _problem(path, f"not JSON: {exc.message}") from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise _problem(path, f'not the counts of vitou simulate --save (no "format": "{FORMAT}")')
    if raw.get("format_version") != FORMAT_VERSION:
        raise _problem(path, f"format_version {raw.get('format_version')!r}; this vitou reads {FORMAT_VERSION}")
    try:
        names = tuple(_text(n) for n in raw["rulesets"])
        ranges = tuple((count(a), count(b)) for a, b in raw["ranges"])
        lineup, seed = Lineup.from_json(raw["players"]), raw["seed"]
        if not isinstance(seed, int) or isinstance(seed, bool) or not isinstance(raw["vitou"], str):
            raise ValueError("the seed or the vitou version is missing")
    except (KeyError, TypeError, ValueError) as exc:
        raise _problem(path, f"the run is not well formed ({type(exc).__name__}: {exc})") from None
    figures = _figures(path, raw.get("counts"))
    if not figures or [f.ruleset for f in figures] != list(names):
        raise _problem(path, "the counts do not match the rulesets it names")
    if (
        not ranges
        or any(a < 0 or a >= b for a, b in ranges)
        or any(b > c for (_, b), (c, _) in itertools.pairwise(ranges))
    ):
        raise _problem(path, "its ranges of matches are not sorted, disjoint ranges [first, end)")
    if any(f.matches != sum(b - a for a, b in ranges) for f in figures):
        raise _problem(path, "the counts do not add up to the matches of its ranges")
    return Result(names, lineup, seed, ranges, figures, None, (path,), raw["vitou"])


def merge(paths: Sequence[str]) -> Result:
    """Runs made elsewhere, as one: the same rulesets, players, seed and vitou, and ranges of matches that do not
    overlap (a gap is allowed, and shows in the ranges); InputError naming the files otherwise."""
    runs = [read_saved(p) for p in paths]
    base = runs[0]
    for r in runs[1:]:
        for what, mine, theirs in (
            ("rulesets", ", ".join(base.names), ", ".join(r.names)),
            ("players", base.lineup.describe(), r.lineup.describe()),
            ("seed", base.seed, r.seed),
            ("vitou version", base.vitou, r.vitou),
        ):
            if mine != theirs:
                raise _problem(
                    r.sources[0],
                    f"{what} {theirs} where {base.sources[0]} has {mine}: "
                    "only runs of the same rulesets, players, seed and vitou version merge",
                )
    spans = sorted((a, b, r.sources[0]) for r in runs for a, b in r.ranges)
    for (_, b1, p1), (a2, b2, p2) in itertools.pairwise(spans):
        if a2 < b1:
            raise _problem(
                p2, f"matches {a2} to {min(b1, b2) - 1} are also in {p1}: the runs overlap, and would count them twice"
            )
    ranges: list[tuple[int, int]] = []
    for a, b, _ in spans:
        if ranges and ranges[-1][1] == a:
            ranges[-1] = (ranges[-1][0], b)
        else:
            ranges.append((a, b))
    figures = base.figures
    for r in runs[1:]:
        for i, (ours, other) in enumerate(zip(figures, r.figures)):
            ours.add(other)
            over = next((n for n in (ours.matches, ours.hands, ours.tricks) if n > MAX_COUNT), None)
            if over is not None:  # each file within the maximum, and the sum over it
                raise _problem(
                    r.sources[0],
                    f"merged with the files before it, a total of {over} is over the maximum count, {MAX_COUNT}",
                    ("counts", i),
                )
    return Result(base.names, base.lineup, base.seed, tuple(ranges), figures, None, tuple(paths), base.vitou)


__all__ = ["FORMAT", "FORMAT_VERSION", "Result", "merge", "read_saved", "save", "simulate", "split"]
