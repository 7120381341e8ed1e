"""The comparison drawn with matplotlib (the optional extra vitou[plot]), to PNG or SVG, rulesets side by side."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from .compare import Chart, charts

# matplotlib's tab10, in the same order as the HTML page's bars: a ruleset keeps its colour everywhere.
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")


def colour(i: int) -> str:
    return COLOURS[i % len(COLOURS)]


def draw(rep: Mapping[str, Any], path: str) -> None:
    """The three charts, one above the other, written to ``path`` (its extension says PNG or SVG).

    matplotlib is imported here, never at the top: the base install does not
    have it. The Figure is used without pyplot, so no backend and no window
    are ever chosen (the canvas is Agg's, or SVG's for .svg).
    """
    from matplotlib.figure import Figure

    drawn = charts(rep)
    names = [r["ruleset"] for r in rep["rulesets"]]
    fig = Figure(figsize=(10, 13), layout="constrained")
    axes = fig.subplots(3, 1, gridspec_kw={"height_ratios": [1.2, 1, 0.9]})
    _bars(axes[0], drawn[0], names, horizontal=False)
    _bars(axes[1], drawn[1], names, horizontal=True)
    _bars(axes[2], drawn[2], names, horizontal=False)
    players = rep["players"]["described"].split(" (")[0]
    fig.suptitle(f"{rep['matches']} matches of seed {rep['seed']}, {players}", fontsize=13)
    fmt = os.path.splitext(path)[1].lower().lstrip(".")
    # No date in the file: the same run draws the same bytes.
    metadata = {"Date": None} if fmt == "svg" else {"Software": None}
    fig.savefig(path, format=fmt, dpi=110, metadata=metadata)


def _bars(ax: Any, chart: Chart, names: list[str], *, horizontal: bool) -> None:
    n = len(names)
    width = 0.8 / n
    at = list(range(len(chart.categories)))
    for i, name in enumerate(names):
        offset = (i - (n - 1) / 2) * width
        heights = [100 * s for s in chart.shares[name]]
        where = [x + offset for x in at]
        if horizontal:
            ax.barh(where, heights, height=width, color=colour(i), label=name)
        else:
            ax.bar(where, heights, width=width, color=colour(i), label=name)
    unit = f"% of {chart.unit}"
    if horizontal:
        ax.set_yticks(at, [_wrap(c) for c in chart.categories])
        ax.invert_yaxis()  # the commonest ending on top, as in the table
        ax.set_xlabel(unit)
        ax.grid(axis="x", alpha=0.3)
    else:
        step = max(1, len(at) // 30)  # at most some thirty labels, so that they never run into each other
        ax.set_xticks(at[::step], list(chart.categories[::step]))
        ax.set_xlabel(chart.axis)
        ax.set_ylabel(unit)
        ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.set_title(chart.title, loc="left", fontweight="bold")
    ax.legend(loc="best", frameon=False)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def _wrap(text: str, width: int = 28) -> str:
    """A long ending's name on two lines or more, so that the labels do not eat the chart."""
    words, lines, line = text.split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    return "\n".join([*lines, line])


__all__ = ["COLOURS", "colour", "draw"]
