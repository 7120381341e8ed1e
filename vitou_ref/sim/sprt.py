"""Runs that stop when a stated hypothesis is decided: a sequential probability ratio test read at fixed checkpoints."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .paired import PLAYS, Pairs
from .stats import Moments, moments, paired
from .stopping import CHECKPOINT, KIND_ADVANTAGE, checkpoints

ALPHA = 0.05  # the chance of accepting H1 when H0 holds
BETA = 0.05  # the chance of accepting H0 when H1 holds
UPPER = math.log((1 - BETA) / ALPHA)  # H1 accepted at or above: ln 19
LOWER = math.log(BETA / (1 - ALPHA))  # H0 accepted at or below: -ln 19
# A figure of one ruleset that is a match's 0 or 1 (a kind's win, an ending, ...) has its mean in [0, 1].
MEANS = {"hands_per_match": (1.0, math.inf), KIND_ADVANTAGE: (-1.0, 1.0)}


def llr(m: Moments, d0: float, d1: float) -> float | None:
    """The normal-approximation generalised SPRT's log-likelihood ratio of H1 (the mean is ``d1``) against H0 (it is
    ``d0``), as fishtest's normalised SPRT has it for paired game results: (d1 - d0) / s² · (Σx - n·(d0 + d1) / 2),
    s² the sample variance. None while it cannot say anything: fewer than two values, or none differing yet."""
    if m.n < 2 or m.sd == 0:
        return None
    return (d1 - d0) / m.sd**2 * m.n * (m.mean - (d0 + d1) / 2)


def decision(ratio: float | None) -> str | None:
    """``H1`` at or above the upper bound, ``H0`` at or below the lower one, else None: play on."""
    if ratio is None:
        return None
    if ratio >= UPPER:
        return "H1"
    if ratio <= LOWER:
        return "H0"
    return None


def watched(pairs: Pairs, figure: str, rulesets: int) -> Moments:
    """The values the test reads, one a deal, in the figure's units (per match, in the duplicate form): one
    ruleset's own values, or the second ruleset's paired difference from the first."""
    scale = PLAYS[pairs.form]
    if rulesets == 1:
        m = moments(pairs.column(figure, 0))
        return Moments(m.n, m.mean / scale, m.sd / scale)
    p = paired(pairs.pair(figure, 0, 1), scale)
    return Moments(p.n, p.mean, p.sd)


def hypotheses_problem(d0: float, d1: float, figure: str, rulesets: int) -> str | None:
    """Why ``--sprt D0 D1`` cannot test ``figure`` over ``rulesets`` rulesets, or None."""
    if rulesets > 2:
        return (
            f"it tests one figure: of one ruleset, or the second's paired difference from the first; {rulesets} "
            "rulesets are given (run each comparison with the first on its own)"
        )
    if rulesets == 2 and figure == KIND_ADVANTAGE:
        return (
            "with two rulesets, kind_advantage is each ruleset's own, two figures: give one ruleset, or an "
            "--until-figure the second's paired difference from the first is tested on, such as first_kind_won"
        )
    if d0 == d1:
        return f"H0 and H1 are both {d0:g}: the test needs two different values"
    lo, hi = MEANS.get(figure, (0.0, 1.0))
    if rulesets == 2:  # a difference of two means in [lo, hi]
        lo, hi = lo - hi, hi - lo
    what = f"{'the difference of ' if rulesets == 2 else ''}{figure}"
    for d in (d0, d1):
        if not lo <= d <= hi:
            can = f"at least {lo:g}" if math.isinf(hi) else f"{lo:g} to {hi:g}"
            return f"{d:g} is outside what {what} can be: {can}"
    return None


@dataclass(frozen=True)
class Sprt:
    """Play until the test of H0 "``figure`` is ``d0``" against H1 "it is ``d1``" decides, looking every
    ``checkpoint`` units, at most ``max_units`` of them."""

    d0: float
    d1: float
    figure: str
    checkpoint: int = CHECKPOINT
    max_units: int = 100_000

    def blocks(self, first: int) -> Iterator[tuple[int, int]]:
        return checkpoints(first, self.checkpoint, self.max_units)

    def ratio(self, pairs: Pairs, rulesets: int) -> float | None:
        return llr(watched(pairs, self.figure, rulesets), self.d0, self.d1)

    def stops(self, pairs: Pairs, rulesets: int) -> bool:
        """Whether the run stops after the checkpoint that brought its counts to ``pairs``."""
        return decision(self.ratio(pairs, rulesets)) is not None

    def to_json(self, pairs: Pairs, rulesets: int, stopped: bool) -> dict[str, Any]:
        """The ``stopping`` block of the run whose last checkpoint brought its counts to ``pairs``."""
        ratio = self.ratio(pairs, rulesets)
        return {
            "h0": self.d0,
            "h1": self.d1,
            "alpha": ALPHA,
            "beta": BETA,
            "bounds": [round(LOWER, 6), round(UPPER, 6)],
            "figure": self.figure,
            "checkpoint": self.checkpoint,
            "max_matches": self.max_units,  # as --max-matches counts: deals, in the duplicate form
            "llr": None if ratio is None else round(ratio, 6),
            "decision": decision(ratio),
            "stopped_by": "sprt" if stopped else "max-matches",
        }


__all__ = ["ALPHA", "BETA", "LOWER", "UPPER", "Sprt", "decision", "hypotheses_problem", "llr", "watched"]
