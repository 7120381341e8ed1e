"""Runs that stop when the answer is known: the width of the chosen figure's 95% interval, read at fixed checkpoints."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .paired import ENDING, KIND_FIGURES, MATCH_FIGURES, PLAYS, Pairs
from .stats import Z95, moments, paired

CHECKPOINT = 100  # matches (deals, in the duplicate form) between two looks at the interval
KIND_ADVANTAGE = "kind_advantage"  # the first kind's win share minus the second's


@dataclass(frozen=True)
class Until:
    """Play until the figure's interval is narrower than ``width``, looking every ``checkpoint`` units, at most
    ``max_units`` of them."""

    width: float
    figure: str
    checkpoint: int = CHECKPOINT
    max_units: int = 100_000

    def blocks(self, first: int) -> Iterator[tuple[int, int]]:
        return checkpoints(first, self.checkpoint, self.max_units)

    def stops(self, pairs: Pairs, rulesets: int) -> bool:
        """Whether the run stops after the checkpoint that brought its counts to ``pairs``."""
        return width(pairs, self.figure, rulesets) < self.width

    def to_json(self, pairs: Pairs, rulesets: int, stopped: bool) -> dict[str, Any]:
        """The ``stopping`` block of the run whose last checkpoint brought its counts to ``pairs``."""
        return stopping_json(self, width(pairs, self.figure, rulesets), stopped)


def checkpoints(first: int, checkpoint: int, max_units: int) -> Iterator[tuple[int, int]]:
    """The checkpoints' ranges from ``first``, ``checkpoint`` units each, the last one cut at the bound."""
    for a in range(first, first + max_units, checkpoint):
        yield a, min(a + checkpoint, first + max_units)


def default_figure(two_kinds: bool) -> str:
    """Two kinds: how much better the first is; otherwise the length of a match."""
    return KIND_ADVANTAGE if two_kinds else "hands_per_match"


def figure_problem(figure: str, two_kinds: bool) -> str | None:
    """Why a figure cannot be watched, or None."""
    names = MATCH_FIGURES + (KIND_FIGURES if two_kinds else ())
    if figure in names or (figure.startswith(ENDING) and len(figure) > len(ENDING)):
        return None
    return f"{figure!r} is not a figure a match has one value of: {', '.join(names)} or endings/<name>"


def width(pairs: Pairs, figure: str, rulesets: int) -> float:
    """The width the stop reads: of each ruleset's difference from the first, paired, the widest (one ruleset, or
    the kinds' advantage, a figure of each ruleset on its own: the widest of their intervals). Infinite while a
    value has not varied yet: a spread of 0 after a checkpoint says nothing of the spread to come."""
    scale = PLAYS[pairs.form]
    widths = []
    if rulesets == 1 or figure == KIND_ADVANTAGE:
        for k in range(rulesets):
            m = moments(pairs.column(figure, k))
            widths.append(math.inf if m.n < 2 or m.sd == 0 else 2 * Z95 * m.sd / math.sqrt(m.n) / scale)
    else:
        for k in range(1, rulesets):
            p = paired(pairs.pair(figure, 0, k), scale)
            widths.append(math.inf if p.n < 2 or p.sd == 0 else 2 * Z95 * p.sd / math.sqrt(p.n))
    return max(widths)


def stopping_json(until: Until, reached: float, stopped: bool) -> dict[str, Any]:
    return {
        "until_width": until.width,
        "figure": until.figure,
        "checkpoint": until.checkpoint,
        "max_matches": until.max_units,  # as --max-matches counts: deals, in the duplicate form
        "width": None if math.isinf(reached) else round(reached, 6),
        "stopped_by": "width" if stopped else "max-matches",
    }


__all__ = [
    "CHECKPOINT",
    "KIND_ADVANTAGE",
    "Until",
    "checkpoints",
    "default_figure",
    "figure_problem",
    "stopping_json",
    "width",
]
