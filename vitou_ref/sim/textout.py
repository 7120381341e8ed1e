"""A simulation as text: what was played, then the figures with their intervals, rulesets side by side."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..present import escape
from .compare import label, rows


def ranges_text(ranges: list[list[int]]) -> str:
    return ", ".join(f"{a} to {b - 1}" for a, b in ranges)


def header(rep: Mapping[str, Any]) -> list[str]:
    """What was played, by whom, and how the figures are made: names from a profile or a saved file shown escaped."""
    names = [escape.text(r["ruleset"]) for r in rep["rulesets"]]
    timing = ""
    if rep["seconds"] is not None:
        timing = f"; {rep['seconds']:.1f} s, {rep['matches_per_second']:.0f} matches/s"
    unit = "deals" if rep.get("form") == "duplicate" else "matches"  # the ranges count deals, each played twice
    lines = [
        f"{rep['matches']} matches of seed {rep['seed']} ({unit} {ranges_text(rep['ranges'])}) "
        f"under {' and '.join(names)}{timing}",
        f"players: {escape.text(rep['players']['described'])}",
    ]
    if rep.get("form") == "duplicate":
        lines.append(
            f"duplicate: {rep['deals']} deals, each played twice, every player one seat on the second time "
            "(the other side holds each side's cards)"
        )
    stop = rep.get("stopping")
    if stop:
        lines.append(stopped(stop))
    if rep["merged_from"]:
        lines.append(f"merged from: {escape.text(', '.join(rep['merged_from']))}")
    if len(names) > 1:
        lines.append("each ruleset plays the same matches' seeds and players' seeds")
    m = rep["method"]
    lines.append(f"value [95% interval]: shares by the {m['shares']}; means by the {m['means']}")
    return lines


def stopped(stop: Mapping[str, Any]) -> str:
    """The one line of what stopped the run: the interval's width, the test's decision, or the bound."""
    bounds = f"(checkpoints of {stop['checkpoint']}, at most {stop['max_matches']})"
    figure = escape.text(stop["figure"])
    if "until_width" in stop:
        reached = "n/a" if stop["width"] is None else f"{stop['width']:.4g}"
        why = "narrower than" if stop["stopped_by"] == "width" else "the bound reached before"
        return f"stopped: the 95% interval of {figure} {reached} wide, {why} {stop['until_width']:g} {bounds}"
    lower, upper = stop["bounds"]
    ratio = "n/a" if stop["llr"] is None else f"{stop['llr']:.4g}"
    test = (
        f"the SPRT of {figure} = {stop['h0']:g} (H0) against {stop['h1']:g} (H1), "
        f"alpha {stop['alpha']:g}, beta {stop['beta']:g},"
    )
    if stop["decision"] == "H1":
        return f"stopped: {test} accepted H1: LLR {ratio} >= {upper:.4g} {bounds}"
    if stop["decision"] == "H0":
        return f"stopped: {test} accepted H0: LLR {ratio} <= {lower:.4g} {bounds}"
    return (
        f"stopped: {test} decided nothing before the bound: LLR {ratio}, between {lower:.4g} and {upper:.4g} {bounds}"
    )


def render(rep: Mapping[str, Any]) -> str:
    """The whole text report."""
    table = rows(rep)
    names = [escape.text(r["ruleset"]) for r in rep["rulesets"]]
    heads = ["", *names]
    cells = [
        [
            escape.text(r.label),
            *(c + ("*" if 0 < i <= len(r.marks) and r.marks[i - 1] else "") for i, c in enumerate(r.cells)),
        ]
        for r in table
    ]
    widths = [max(len(x[k]) for x in [heads, *cells]) for k in range(len(heads))]

    def line(parts: list[str]) -> str:
        return "  ".join(p.ljust(w) if k == 0 else p.rjust(w) for k, (p, w) in enumerate(zip(parts, widths))).rstrip()

    out = [*header(rep), ""]
    if len(names) > 1:
        out.append(line(heads))
    for r, c in zip(table, cells):
        out.append(escape.text(r.label) + ":" if r.section else line(c))
    if len(names) > 1:
        m = rep["method"]
        out += [
            "",
            f"* differs from {names[0]} at the {m['level']:.0%} level: paired on the same deals for a figure a match "
            f"has one value of; otherwise {m['share_differences']} for shares, {m['mean_differences']} for means",
            f"  ({m['caveat']})",
        ]
    out += paired_lines(rep)
    out.append("")
    for r in rep["rulesets"]:
        who = f" ({escape.text(r['ruleset'])})" if len(names) > 1 else ""
        out.append(
            f"hands per match{who}: median {r['hands_per_match']['median']:g}, "
            f"min {r['hands_per_match']['min']}, max {r['hands_per_match']['max']}; "
            + _dist(r["hands_per_match"]["distribution"])
        )
        out.append(f"values of hands won{who}: " + _dist(r["hand_values"]["distribution"]))
        out.append("  of which by a refusal: " + _dist(r["values_by_refusal"]))
    return "\n".join(out) + "\n"


def paired_lines(rep: Mapping[str, Any]) -> list[str]:
    """The paired differences (the same deals under both rulesets) and the kinds' advantage, with intervals."""
    out = []
    for d in rep["differences"]:
        tests = [t for t in d["figures"] if "paired" in t]
        if tests:
            out += ["", f"paired on the same deals, {escape.text(d['ruleset'])} minus {escape.text(d['baseline'])}:"]
        for t in tests:
            pr = t["paired"]
            lo, hi = pr["ci95"]
            mark = "*" if pr["significant"] else ""
            out.append(
                f"  {escape.text(label(t['figure'], rep)).strip()}: {pr['difference']:+.4g} [{lo:+.4g} to {hi:+.4g}]{mark}"
            )
    for r in rep["rulesets"]:
        adv = r.get("first_kind_advantage")
        if adv:
            lo, hi = adv["ci95"]
            who = f" ({escape.text(r['ruleset'])})" if len(rep["rulesets"]) > 1 else ""
            out += [
                "",
                f"first kind's win share minus the second's{who}, {adv['form']}: "
                f"{adv['difference']:+.4g} [{lo:+.4g} to {hi:+.4g}] over {adv['deals']} deals",
            ]
    return out


def _dist(d: Mapping[str, int]) -> str:
    return ", ".join(f"{escape.text(k)}: {v}" for k, v in d.items()) or "none"


__all__ = ["header", "paired_lines", "ranges_text", "render"]
