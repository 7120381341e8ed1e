"""``vitou analyze``: the card play of hands solved under perfect information, per ruleset, side by side."""

from __future__ import annotations

import argparse
from typing import Any

from . import options as _o
from .output import print_json

# The positions the solvers may search in one run, and each of their tables keeps (vitou_ref.solve.analyze's
# DEFAULT_POSITIONS and TABLE_POSITIONS, stated here so that building the parser loads no solver).
MAX_POSITIONS, TABLE_POSITIONS = 50_000_000, 250_000


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "analyze",
        help="perfect-information values of the card play: exact over every deal for two players",
        description="Solve the card play of hands under perfect information (every seat sees every card, both "
        "sides play to win the hand; no bids, refusals or twenty decisions: the hand is held at its value) from "
        "the compiled rules, and give how often each side wins, how soon hands are decided and what ties are "
        "worth. Two-player rulesets: every deal, exactly. More seats: a seeded sample, with 95% intervals. The "
        "same figures on every run.",
    )
    p.add_argument(
        "--ruleset",
        action="append",
        metavar="ID|FILE",
        help="ruleset id, id/version or file; give it again to compare side by side (default: vitou-2p)",
    )
    p.add_argument(
        "--sample",
        type=_o.positive_int,
        default=2000,
        metavar="N",
        help="deals sampled with more than two seats (default: 2000)",
    )
    p.add_argument("--seed", type=_o.seed, default=1, metavar="S", help="the sample's seed (default: 1)")
    p.add_argument(
        "--max-positions",
        type=_o.positive_int,
        default=MAX_POSITIONS,
        metavar="N",
        help="the work budget: positions the solver may search in the whole run, every ruleset's together, "
        "roughly 20,000,000 a minute of one core (its tables keep at most "
        f"{TABLE_POSITIONS:,} positions each, emptied when full); a run that needs more stops at once with an "
        f"error naming this option (default: {MAX_POSITIONS})",
    )
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    p.add_argument(
        "--timing",
        action="store_true",
        help="also give the CPU time taken: the whole run, and the median solve of one hand (not the same on every run)",
    )
    p.set_defaults(run=cmd_analyze)


def cmd_analyze(args: argparse.Namespace) -> int:
    return analyze(args.ruleset or ["vitou-2p"], args.sample, args.seed, args.format, args.timing, args.max_positions)


def analyze(
    rulesets: list[str], sample: int, seed: int, fmt: str, timing: bool, max_positions: int = MAX_POSITIONS
) -> int:
    from ..engine.tables import tables_for
    from ..rules.errors import InputError
    from ..rules.problems import Problem
    from ..rules.registry import load_ruleset
    from ..solve.analyze import analyze as solve_figures
    from ..solve.solver import Budget, OverBudget

    tables = [tables_for(load_ruleset(r)) for r in rulesets]
    budget = Budget(max_positions)
    try:
        results = [solve_figures(t, sample, seed, budget) for t in tables]
    except OverBudget as exc:
        # Two seats are solved over every deal, whatever --sample says.
        smaller = "" if all(t.n == 2 for t in tables) else ", or a smaller --sample"
        message = (
            f"the card play of {', '.join(t.name for t in tables)} needs {exc}, the work budget: give a larger "
            f"--max-positions{smaller}"
        )
        raise InputError([Problem("ANALYZE_BUDGET", message, "--max-positions")]) from None
    if not timing:
        for r in results:
            del r["timing"]
    if fmt == "json":
        print_json({"rulesets": results})
    else:
        print(_text(results))
    return 0


def _text(results: list[dict[str, Any]]) -> str:
    first = results[0]
    # The figures of the ruleset with the most tricks: they hold every other's, and each "decided after" row.
    longest = max(results, key=lambda r: len(r["figures"]))
    lines = [f"Perfect-information card play: {first['solved']}.", ""]
    width = max(len(f["what"]) for f in longest["figures"].values())
    lines.append(" " * width + "  " + "  ".join(f"{r['ruleset']:>28}" for r in results))
    rows = [("deals", [f"{r['deals']['count']:,} ({'every deal' if r['exact'] else 'sample'})" for r in results])]
    rows.append(("rank deals solved", [f"{r['deals']['rank_deals']:,}" for r in results]))
    for key, fig in longest["figures"].items():  # "-": no hand of that ruleset has that many tricks
        rows.append(
            (fig["what"], [_cell(r["figures"][key], r["exact"]) if key in r["figures"] else "-" for r in results])
        )
    for what, cells in rows:
        lines.append(f"{what:<{width}}  " + "  ".join(f"{c:>28}" for c in cells))
    for r in results:
        down = f"; a card may be played face down from trick {r['face_down_from']}" if "face_down_from" in r else ""
        lines.append(f"{r['ruleset']}: {r['deals']['over']}; reading of matching cards: {r['reading']}{down}")
        if "timing" in r:
            tm = r["timing"]
            lines.append(
                f"  {tm['seconds']:.2f} s of CPU in all; the value solves {tm['solve_seconds']:.2f} s, "
                f"median {tm['median_ms_per_hand']:.3f} ms a hand (one core, CPU time)"
            )
    return "\n".join(lines)


def _cell(fig: dict[str, Any], exact: bool) -> str:
    if exact or fig["interval"] is None:
        return f"{100 * fig['share']:.3f}%"
    lo, hi = fig["interval"]
    return f"{100 * fig['share']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"
