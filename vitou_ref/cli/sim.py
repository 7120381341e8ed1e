"""``vitou simulate``: matches played under one or more rulesets, summed up with intervals, compared, charted, merged."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import options as _o
from .progress import HELP as PROGRESS_HELP

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from ..sim.shards import Result

# The kinds of vitou_ref.players.KINDS, named here so that building the parser
# loads no engine (a test holds the two to the same kinds).
KINDS = ("random", "heuristic", "search", "solver")
RULESET, MATCHES, SEED, PLAYERS = "vitou", 1000, 1, "random"  # the defaults the help states
# What a run plays, by field of Request: --merge takes all of it from its files.
PLAYED = {n: f"--{n}" for n in ("matches", "seed", "first", "players", "against", "budget", "jobs", "duplicate")}
PLAYED |= {"rulesets": "--ruleset", "scheduler": "--scheduler", "until_width": "--until-width", "sprt": "--sprt"}
PLAYED["scheduler_timeout"] = "--scheduler-timeout"
UNTIL = {"until_figure": "--until-figure", "checkpoint": "--checkpoint", "max_matches": "--max-matches"}
CHECKPOINT, MAX_MATCHES = 100, 100_000  # the defaults the help states (vitou_ref.sim.stopping holds them too)
HANDSHAKE = 30  # seconds; the help states it, and vitou_ref.sim.execute.HANDSHAKE_SECONDS is the same


PLOT_FORMATS = (".png", ".svg")


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sim = sub.add_parser(
        "simulate",
        help="play matches under one or more rulesets and sum them up, with intervals",
        description="Play matches with the reference and sum them up for variant designers: match length, how "
        "matches and hands end, the first dealer's side's wins, the values won, refusals, twenty and 20-20, tied "
        "tricks, each with a 95% interval. By default every seat plays uniformly random legal actions: a "
        "baseline, not a model of real players. Match i of a seed is played with seeds of its own, under every "
        "ruleset alike, so that rulesets compare on the same deals and runs of disjoint ranges of matches merge.",
    )
    sim.add_argument(
        "--ruleset",
        action="append",
        metavar="ID|FILE",
        help="ruleset id, id/version or file; give it again to compare rulesets side by side (default: vitou)",
    )
    sim.add_argument("--matches", type=_o.positive_int, metavar="N", help="matches to play (default: 1000)")
    sim.add_argument(
        "--seed", type=_o.seed, metavar="S", help="the seed: the same seed plays the same matches (default: 1)"
    )
    sim.add_argument(
        "--first",
        type=_o.count,
        metavar="N",
        help="the number of the first match to play, from 0: machines sharing a run play disjoint ranges of one "
        "seed, then --merge (default: 0)",
    )
    sim.add_argument(
        "--players", choices=KINDS, help="the kind of player on every seat (default: random, the baseline)"
    )
    sim.add_argument(
        "--against",
        choices=KINDS,
        metavar="KIND",
        help="pit --players against this kind (random, heuristic, search or solver): the first holds the first side on even matches and the second on "
        "odd ones, and its win rate is reported (default: none, every seat plays --players)",
    )
    sim.add_argument(
        "--budget",
        type=_o.search_budget,
        metavar="N",
        help=f"the search and solver players' budget: deals sampled at each decision, each kept while it is made, "
        f"at most {_o.MAX_BUDGET:,} (default: their own, 16)",
    )
    sim.add_argument(
        "--format",
        choices=("text", "json", "html"),
        default="text",
        help="output format; html: one self-contained page with tables and charts (default: text)",
    )
    sim.add_argument("--output", "-o", metavar="FILE", help="write here instead of standard output")
    sim.add_argument(
        "--plot",
        metavar="FILE",
        help="draw the charts to FILE, PNG or SVG by its extension; needs matplotlib: pip install 'vitou[plot]' "
        "(default: no chart)",
    )
    sim.add_argument(
        "--jobs",
        type=_o.positive_int,
        metavar="N",
        help="processes to play on, at most twice the cores; the same figures for any N (default: 1)",
    )
    _add_run_options(sim)
    sim.add_argument("--save", metavar="FILE", help="write the raw counts as JSON, for --merge (default: not saved)")
    sim.add_argument("--force", action="store_true", help="replace the --output, --save and --plot files if they exist")
    sim.add_argument(
        "--merge",
        nargs="+",
        metavar="FILE",
        help="sum up runs saved with --save instead of playing: same rulesets, players and seed, ranges of "
        "matches that do not overlap (default: play)",
    )
    sim.add_argument("--progress", action="store_true", help=PROGRESS_HELP)
    sim.set_defaults(run=cmd_simulate)


def _add_run_options(sim: argparse.ArgumentParser) -> None:
    """Where a run plays, in what form, and when it stops."""
    sim.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="play on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786), the same figures as --jobs 1; "
        "needs pip install 'vitou[dask]' here and on the workers (default: this machine)",
    )
    sim.add_argument(
        "--scheduler-timeout",
        type=_o.positive_seconds,
        metavar="SEC",
        help=f"how long --scheduler waits to connect, for the answer to Dask's handshake and for a first worker; "
        f"a scheduler that does not answer in time, or has no worker, is an error naming --scheduler (default: {HANDSHAKE})",
    )
    sim.add_argument(
        "--duplicate",
        action="store_true",
        default=None,
        help="play each deal twice, the second time with every player moved one seat on, so that the other side "
        "holds each side's cards: card luck cancels out of each deal's difference; --matches counts deals "
        "(default: each deal once)",
    )
    sim.add_argument(
        "--until-width",
        type=_o.positive,
        metavar="W",
        help="play until the 95%% interval of --until-figure is narrower than W, looking every --checkpoint "
        "matches, at most --max-matches (default: play --matches)",
    )
    sim.add_argument(
        "--sprt",
        nargs=2,
        type=_o.number,
        metavar=("D0", "D1"),
        help="play until a sequential probability ratio test (normal approximation, alpha = beta = 0.05) accepts "
        "H0, --until-figure is D0, or H1, it is D1, looking every --checkpoint matches, at most --max-matches; "
        "one ruleset, or two and the second's paired difference from the first (default: play --matches)",
    )
    sim.add_argument(
        "--until-figure",
        metavar="FIGURE",
        help="the figure --until-width or --sprt watches: with several rulesets, each one's paired difference from the first; "
        "hands_per_match, first_dealer_side_won, reached_twenty, reached_twenty_twenty, endings/<name>, and with "
        "--against first_kind_won or kind_advantage (default: kind_advantage with --against, else hands_per_match)",
    )
    sim.add_argument(
        "--checkpoint",
        type=_o.positive_int,
        metavar="K",
        help="matches between two looks of --until-width or --sprt, the same for any --jobs (default: 100)",
    )
    sim.add_argument(
        "--max-matches",
        type=_o.positive_int,
        metavar="N",
        help="the bound of --until-width or --sprt (default: 100000)",
    )


@dataclass(frozen=True)
class Request:
    """What ``vitou simulate`` was asked, as plain values (None: not given)."""

    rulesets: list[str] | None = None
    matches: int | None = None
    seed: int | None = None
    first: int | None = None
    players: str | None = None
    against: str | None = None
    budget: int | None = None
    jobs: int | None = None
    fmt: str = "text"
    output: str | None = None
    plot: str | None = None
    save: str | None = None
    force: bool = False
    merge: list[str] | None = None
    progress: bool = False
    duplicate: bool | None = None
    scheduler: str | None = None
    scheduler_timeout: float | None = None
    until_width: float | None = None
    sprt: tuple[float, float] | None = None
    until_figure: str | None = None
    checkpoint: int | None = None
    max_matches: int | None = None


def cmd_simulate(args: argparse.Namespace) -> int:
    names: tuple[str, ...] = (
        "matches",
        "seed",
        "first",
        "players",
        "against",
        "budget",
        "jobs",
        "output",
        "plot",
        "save",
    )
    names += ("duplicate", "scheduler", "scheduler_timeout", "until_width", "until_figure", "checkpoint")
    names += ("max_matches",)
    given = {n: getattr(args, n) for n in names}
    given["sprt"] = None if args.sprt is None else tuple(args.sprt)
    req = Request(args.ruleset, **given, fmt=args.format, force=args.force, merge=args.merge, progress=args.progress)
    return simulate(req)


def _bad(option: str, message: str, code: str = "SIMULATE_OPTIONS") -> Exception:
    from ..rules.errors import InputError
    from ..rules.problems import Problem

    return InputError([Problem(code, message, option)])


def _check(req: Request) -> None:
    """Every option checked, and every output path, before a match is played."""
    import importlib.util
    import os

    from ..kit.outpaths import file_problem, input_clash

    if req.merge:
        given = [option for name, option in PLAYED.items() if getattr(req, name) is not None]
        if given:
            raise _bad(given[0], "--merge takes the rulesets, players, seed and matches from its files; leave it out")
    _check_run(req)
    kinds = {req.players or PLAYERS, req.against}
    if req.budget is not None and not {"search", "solver"} & set(kinds):
        raise _bad("--budget", "the budget is the search player's, and no search player plays")
    if req.plot is not None:
        if os.path.splitext(req.plot)[1].lower() not in PLOT_FORMATS:
            raise _bad("--plot", f"{req.plot}: the extension says the format: .png or .svg")
        if importlib.util.find_spec("matplotlib") is None:
            raise _bad("--plot", "charts need matplotlib, which is not installed: pip install 'vitou[plot]'")
    inputs = [*(req.merge or []), *(req.rulesets or [])]
    for path, option in ((req.save, "--save"), (req.plot, "--plot")):
        problem = (
            None if path is None else input_clash(path, inputs, option) or file_problem(path, option, force=req.force)
        )
        if problem is not None:
            raise _bad(option, problem.removeprefix(f"{option}: "), "OUTPUT_PATH")


def _check_run(req: Request) -> None:
    """The options of how a run is played and stopped, and where."""
    import importlib.util

    from ..sim.sprt import hypotheses_problem
    from ..sim.stopping import default_figure, figure_problem

    if req.until_width is not None and req.sprt is not None:
        raise _bad("--sprt", "--sprt and --until-width are two rules to stop a run: give one of them")
    if req.until_width is None and req.sprt is None:
        given = [option for name, option in UNTIL.items() if getattr(req, name) is not None]
        if given:
            raise _bad(given[0], "it says how --until-width or --sprt stops a run; give one of them too")
    else:
        if req.matches is not None:
            said = (
                "--until-width plays until its interval is narrow enough"
                if req.sprt is None
                else "--sprt plays until its test decides"
            )
            raise _bad("--matches", f"{said}: bound it with --max-matches")
        figure = req.until_figure or default_figure(req.against is not None)
        problem = figure_problem(figure, req.against is not None)
        if problem is not None:
            raise _bad("--until-figure", problem)
        if req.sprt is not None:
            problem = hypotheses_problem(*req.sprt, figure, len(req.rulesets or [RULESET]))
            if problem is not None:
                raise _bad("--sprt", problem)
    if req.scheduler is None:
        if req.scheduler_timeout is not None:
            raise _bad("--scheduler-timeout", "it says how long --scheduler waits; give --scheduler too")
        return
    _scheduler(req)  # an address Dask cannot read is a usage error here, not a ValueError inside Dask
    if req.jobs is not None:
        raise _bad("--jobs", "--scheduler plays on the cluster's workers; leave --jobs out")
    if importlib.util.find_spec("distributed") is None:
        raise _bad("--scheduler", "a Dask cluster needs Dask, which is not installed: pip install 'vitou[dask]'")


def _scheduler(req: Request) -> str:
    """The --scheduler address as Dask reads it (``tcp://host:port``), read by the one reader."""
    from ..rules import reader

    try:
        return str(reader.address(req.scheduler or "", what="a scheduler's address"))
    except reader.ReadError as exc:
        raise _bad("--scheduler", str(exc)) from None


def _play(req: Request, progress: Callable[[int], None]) -> Result:
    """The run the options ask for, on this machine or on the cluster."""
    from ..sim import shards
    from ..sim.paired import DUPLICATE, PLAIN
    from ..sim.run import Lineup
    from ..sim.sprt import Sprt
    from ..sim.stopping import Until, default_figure

    until: Until | Sprt | None = None
    figure = req.until_figure or default_figure(req.against is not None)
    bounds = (req.checkpoint or CHECKPOINT, req.max_matches or MAX_MATCHES)
    if req.until_width is not None:
        until = Until(req.until_width, figure, *bounds)
    elif req.sprt is not None:
        until = Sprt(*req.sprt, figure, *bounds)

    def run(executor: Executor | None = None, window: int | None = None) -> Result:
        return shards.simulate(
            req.rulesets or [RULESET],
            Lineup(req.players or PLAYERS, req.against, req.budget),
            SEED if req.seed is None else req.seed,
            req.first or 0,
            req.matches or MATCHES,
            jobs=req.jobs or 1,
            progress=progress,
            form=DUPLICATE if req.duplicate else PLAIN,
            until=until,
            executor=executor,
            window=window,
        )

    if req.scheduler is None:
        return run()
    from ..sim.execute import NoWorkers, SchedulerSilent, dask_executor

    address, timeout = _scheduler(req), req.scheduler_timeout or HANDSHAKE
    try:
        with dask_executor(address, timeout) as (executor, threads):
            return run(executor, threads)
    except (SchedulerSilent, NoWorkers) as exc:
        said = (
            f"the scheduler took the connection but did not answer Dask's handshake within {timeout:g} s"
            if isinstance(exc, SchedulerSilent)
            else f"the scheduler has no worker: none joined within {timeout:g} s"
        )
        raise _bad("--scheduler", f"{address}: {said} (--scheduler-timeout)") from None
    except OSError as exc:  # Dask's connection errors are OSErrors (TimeoutError among them)
        raise _bad("--scheduler", f"{address}: cannot reach the scheduler ({exc})") from None


def simulate(req: Request) -> int:
    """Play (or merge), then print the figures; 2 for unusable options or files, before any match is played."""
    from ..sim import shards
    from ..sim.compare import report
    from .output import emit, json_text
    from .progress import ProgressLine

    _check(req)
    if req.merge:
        result = shards.merge(req.merge)
    else:
        stops = req.until_width is not None or req.sprt is not None
        total = (req.max_matches or MAX_MATCHES) if stops else (req.matches or MATCHES)
        with ProgressLine("simulate", total, unit="matches", failed=None, force=req.progress) as shown:
            result = _play(req, shown.update)
    if req.save is not None:
        try:
            shards.save(result, req.save, force=req.force)
        except OSError as exc:
            raise _bad("--save", f"{req.save}: {exc.strerror or exc}", "OUTPUT_PATH") from None
    rep = report(result)
    if req.plot is not None:
        from ..sim.plot import draw

        draw(rep, req.plot)
    if req.fmt == "json":
        emit(json_text(rep), req.output, force=req.force)
    elif req.fmt == "html":
        from ..sim.htmlout import page

        emit(page(rep), req.output, force=req.force)
    else:
        from ..sim.textout import render

        emit(render(rep), req.output, force=req.force)
    if req.save is not None:
        from ..present.escape import text

        print(f"vitou: counts saved to {text(req.save)}", file=sys.stderr)
    return 0


__all__ = ["KINDS", "Request", "add_parsers", "simulate"]
