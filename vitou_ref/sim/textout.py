"""A simulation as text: what was played, then the figures with their intervals, rulesets side by side."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..present import escape
from .compare import rows


def ranges_text(ranges: list[list[int]]) -> str:
    return ", ".join(f"{a} to {b - 1}" for a, b in ranges)


def header(rep: Mapping[str, Any]) -> list[str]:
    """What was played, by whom, and how the figures are made: names from a profile or a saved file shown escaped."""
    names = [escape.text(r["ruleset"]) for r in rep["rulesets"]]
    timing = ""
    if rep["seconds"] is not None:
        timing = f"; {rep['seconds']:.1f} s, {rep['matches_per_second']:.0f} matches/s"
    lines = [
        f"{rep['matches']} matches of seed {rep['seed']} (matches {ranges_text(rep['ranges'])}) "
        f"under {' and '.join(names)}{timing}",
        f"players: {escape.text(rep['players']['described'])}",
    ]
    if rep["merged_from"]:
        lines.append(f"merged from: {escape.text(', '.join(rep['merged_from']))}")
    if len(names) > 1:
        lines.append("each ruleset plays the same matches' seeds and players' seeds")
    m = rep["method"]
    lines.append(f"value [95% interval]: shares by the {m['shares']}; means by the {m['means']}")
    return lines


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
            f"* differs from {names[0]} at the {m['level']:.0%} level: {m['share_differences']} for shares, "
            f"{m['mean_differences']} for means",
            f"  ({m['caveat']})",
        ]
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


def _dist(d: Mapping[str, int]) -> str:
    return ", ".join(f"{escape.text(k)}: {v}" for k, v in d.items()) or "none"


__all__ = ["header", "ranges_text", "render"]
