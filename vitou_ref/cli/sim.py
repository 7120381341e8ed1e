"""``vitou simulate``: matches played under one or more rulesets, summed up with intervals, compared, charted, merged."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from . import options as _o
from .progress import HELP as PROGRESS_HELP

# The kinds of vitou_ref.players.KINDS, named here so that building the parser
# loads no engine (a test holds the two to the same kinds).
KINDS = ("random", "heuristic", "search", "solver")
RULESET, MATCHES, SEED, PLAYERS = "vitou", 1000, 1, "random"  # the defaults the help states
# What a run plays, by field of Request: --merge takes all of it from its files.
PLAYED = {n: f"--{n}" for n in ("matches", "seed", "first", "players", "against", "budget", "jobs")}
PLAYED["rulesets"] = "--ruleset"
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
        "--budget", type=_o.positive_int, metavar="N", help="the search and solver players' budget (default: their own)"
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
    sim.add_argument("--save", metavar="FILE", help="write the raw counts as JSON, for --merge (default: not saved)")
    sim.add_argument("--force", action="store_true", help="replace the --save and --plot files if they exist")
    sim.add_argument(
        "--merge",
        nargs="+",
        metavar="FILE",
        help="sum up runs saved with --save instead of playing: same rulesets, players and seed, ranges of "
        "matches that do not overlap (default: play)",
    )
    sim.add_argument("--progress", action="store_true", help=PROGRESS_HELP)
    sim.set_defaults(run=cmd_simulate)


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


def cmd_simulate(args: argparse.Namespace) -> int:
    names = ("matches", "seed", "first", "players", "against", "budget", "jobs", "output", "plot", "save")
    given = {n: getattr(args, n) for n in names}
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

    from ..kit.outpaths import file_problem

    if req.merge:
        given = [option for name, option in PLAYED.items() if getattr(req, name) is not None]
        if given:
            raise _bad(given[0], "--merge takes the rulesets, players, seed and matches from its files; leave it out")
    kinds = {req.players or PLAYERS, req.against}
    if req.budget is not None and not {"search", "solver"} & set(kinds):
        raise _bad("--budget", "the budget is the search player's, and no search player plays")
    if req.plot is not None:
        if os.path.splitext(req.plot)[1].lower() not in PLOT_FORMATS:
            raise _bad("--plot", f"{req.plot}: the extension says the format: .png or .svg")
        if importlib.util.find_spec("matplotlib") is None:
            raise _bad("--plot", "charts need matplotlib, which is not installed: pip install 'vitou[plot]'")
    for path, option in ((req.save, "--save"), (req.plot, "--plot")):
        problem = None if path is None else file_problem(path, option, force=req.force)
        if problem is not None:
            raise _bad(option, problem.removeprefix(f"{option}: "), "OUTPUT_PATH")


def simulate(req: Request) -> int:
    """Play (or merge), then print the figures; 2 for unusable options or files, before any match is played."""
    from ..sim import shards
    from ..sim.compare import report
    from ..sim.run import Lineup
    from .output import emit, json_text
    from .progress import ProgressLine

    _check(req)
    if req.merge:
        result = shards.merge(req.merge)
    else:
        lineup = Lineup(req.players or PLAYERS, req.against, req.budget)
        seed = SEED if req.seed is None else req.seed
        matches = req.matches or MATCHES
        with ProgressLine("simulate", matches, unit="matches", failed=None, force=req.progress) as shown:
            result = shards.simulate(
                req.rulesets or [RULESET],
                lineup,
                seed,
                req.first or 0,
                matches,
                jobs=req.jobs or 1,
                progress=shown.update,
            )
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
        emit(json_text(rep), req.output)
    elif req.fmt == "html":
        from ..sim.htmlout import page

        emit(page(rep), req.output)
    else:
        from ..sim.textout import render

        emit(render(rep), req.output)
    if req.save is not None:
        print(f"vitou: counts saved to {req.save}", file=sys.stderr)
    return 0


__all__ = ["KINDS", "Request", "add_parsers", "simulate"]
