"""Large runs: matches split into contiguous ranges across processes, raw counts saved, and runs merged exactly."""

from __future__ import annotations

import contextlib
import itertools
import json
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from .._version import __version__
from ..engine.tables import Tables
from ..present import escape
from ..protocol.wire import WireError, loads
from ..rules.errors import InputError
from ..rules.files import read_path
from ..rules.problems import Problem, pointer
from .execute import Inline, Part, process_pool, run_all, run_in_order
from .figures import MAX_COUNT, CountsError, Figures, count
from .paired import DUPLICATE, PLAIN, PLAYS, Pairs
from .run import Lineup, duplicate_problem, play_units, tables_of
from .sprt import Sprt
from .stopping import Until

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
    form: str = PLAIN  # duplicate: each match of the ranges is a deal played twice
    pairs: Pairs | None = None  # None: merged from a file saved before pairs were counted
    stopping: dict[str, Any] | None = None  # how a run with --until-width or --sprt stopped

    @property
    def deals(self) -> int:
        return sum(b - a for a, b in self.ranges)

    @property
    def matches(self) -> int:
        return self.deals * PLAYS[self.form]

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
        } | ({} if self.pairs is None else {"pairs": self.pairs.to_raw()})


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
    form: str = PLAIN,
    until: Until | Sprt | None = None,
    executor: Executor | None = None,
    window: int | None = None,
) -> Result:
    """Matches ``first`` to ``first + matches - 1`` under each ruleset (deals, each played twice, in the duplicate
    form), on ``jobs`` processes or on ``executor`` (any concurrent.futures executor, ``window`` ranges at a time),
    the same counts either way. With ``until``, checkpoints of ``until.checkpoint`` matches from ``first`` until the
    figure's interval is narrow enough (an Until) or the test decides (an Sprt), at most ``until.max_units``
    (``matches`` is not read)."""
    tables = [tables_of(r) for r in refs]  # loaded here first: a bad ruleset stops the run at once
    names = tuple(t.name for t in tables)
    if form == DUPLICATE:
        problem = next((p for p in map(duplicate_problem, tables) if p is not None), None)
        if problem is not None:
            raise InputError([Problem("SIMULATE_OPTIONS", problem, "--duplicate")])
    start = time.perf_counter()
    named = [str(r) for r in refs] if all(isinstance(r, str) for r in refs) else list(refs)
    many = executor is not None or (jobs > 1 and all(isinstance(r, str) for r in refs))
    if until is None:
        stop = first + matches
        if not many:
            part = play_units(refs, lineup, seed, first, stop, form, progress)
        else:
            parts = jobs if executor is None else (window or 1)
            tasks = [(named, lineup, seed, a, b, form) for a, b in split(first, stop, parts * CHUNKS_PER_JOB)]
            with _executor(executor, jobs, len(tasks)) as ex:
                part = run_all(ex, tasks, progress)
        stopping = None
    else:
        part, stopping, stop = _until(
            named, lineup, seed, first, form, until, executor if many else Inline(), jobs, window, progress
        )
    seconds = time.perf_counter() - start
    return Result(names, lineup, seed, ((first, stop),), part[0], seconds, form=form, pairs=part[1], stopping=stopping)


def _until(
    refs: Sequence[str | Tables],
    lineup: Lineup,
    seed: int,
    first: int,
    form: str,
    until: Until | Sprt,
    executor: Executor | None,
    jobs: int,
    window: int | None,
    progress: Callable[[int], None] | None,
) -> tuple[Part, dict[str, Any], int]:
    """Checkpoints counted in order until the rule says so: the same stop for any executor."""

    def enough(part: Part) -> bool:
        return until.stops(part[1], len(refs))

    tasks = ((refs, lineup, seed, a, b, form) for a, b in until.blocks(first))
    ahead = window or (jobs if executor is None else 1)
    with _executor(executor, jobs, ahead) as ex:
        part, stopped = run_in_order(ex, tasks, max(1, ahead), enough, progress)
    # The last look read these very counts: the block says what it saw.
    return part, until.to_json(part[1], len(refs), stopped), first + part[1].units


@contextlib.contextmanager
def _executor(executor: Executor | None, jobs: int, tasks: int) -> Iterator[Executor]:
    if executor is not None:
        yield executor
    else:
        with process_pool(jobs, tasks) as pool:
            yield pool


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
    pairs = _pairs(path, raw, len(names))
    form = PLAIN if pairs is None else pairs.form
    deals = sum(b - a for a, b in ranges)
    if any(f.matches != deals * PLAYS[form] for f in figures) or (pairs is not None and pairs.units != deals):
        raise _problem(path, "the counts do not add up to the matches of its ranges")
    return Result(names, lineup, seed, ranges, figures, None, (path,), raw["vitou"], form, pairs)


def _pairs(path: str, raw: dict[str, Any], rulesets: int) -> Pairs | None:
    """The paired counts of a saved run; None in a file saved before they were counted."""
    if "pairs" not in raw:
        return None
    try:
        return Pairs.from_raw(raw["pairs"], rulesets)
    except CountsError as exc:
        raise _problem(path, f"the pairs are not well formed: {exc}", ("pairs", *exc.where)) from None


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
            ("form", base.form, r.form),
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
    figures, pairs = base.figures, base.pairs
    for r in runs[1:]:
        # A file saved before pairs were counted leaves the merge without them: the unpaired figures still add up.
        if pairs is not None and r.pairs is not None:
            pairs.add(r.pairs)
        else:
            pairs = None
        for i, (ours, other) in enumerate(zip(figures, r.figures)):
            ours.add(other)
            over = next((n for n in (ours.matches, ours.hands, ours.tricks) if n > MAX_COUNT), None)
            if over is not None:  # each file within the maximum, and the sum over it
                raise _problem(
                    r.sources[0],
                    f"merged with the files before it, a total of {over} is over the maximum count, {MAX_COUNT}",
                    ("counts", i),
                )
    return Result(
        base.names, base.lineup, base.seed, tuple(ranges), figures, None, tuple(paths), base.vitou, base.form, pairs
    )


__all__ = ["FORMAT", "FORMAT_VERSION", "Result", "merge", "read_saved", "save", "simulate", "split"]
