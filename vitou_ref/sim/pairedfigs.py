"""The paired figures of a run: each ruleset's difference from the first on the same deals, and the kinds' advantage."""

from __future__ import annotations

from typing import Any

from .paired import ENDING, KIND_FIGURES, MATCH_FIGURES, PLAYS, Pairs
from .stats import LEVEL, Moments, Paired, moments, normal_p, paired

PAIRED_METHOD = (
    "paired: the difference of each deal's values, d = value - baseline, its mean ± 1.96 · sd(d) / √(deals) "
    "(the normal approximation to the paired t interval; for 0/1 outcomes the Wald interval for paired proportions, "
    "Newcombe 1998, method 1), and its test d̄ / (sd(d) / √deals), two-sided; unpaired_ci95 is the same data as if "
    "the samples were independent, d̄ ± 1.96 · √(sd(x)² / n + sd(y)² / n): the paired interval is no wider exactly "
    "when the covariance of the pairs is ≥ 0"
)
DUPLICATE_METHOD = (
    "duplicate: each deal is played twice, the second time with every player (its kind and its seed) moved one "
    "seat on, the cards and the dealer staying with the seats, so that each side's cards go to the other side's "
    "players; a deal's value is the mean of its two plays"
)


def is_match_figure(name: str) -> bool:
    return name in MATCH_FIGURES or name in KIND_FIGURES or name.startswith(ENDING)


def _rounded(p: Paired | Moments, lo: float, hi: float, t: float | None, pv: float) -> dict[str, Any]:
    return {
        "difference": round(p.mean, 4),
        "sd": round(p.sd, 4),
        "ci95": [round(lo, 4), round(hi, 4)],
        "statistic": None if t is None else round(t, 3),
        "p": float(f"{pv:.4g}"),
        "significant": pv < LEVEL,
    }


def paired_json(pairs: Pairs, figure: str, a: int, b: int) -> dict[str, Any]:
    """Ruleset ``b``'s difference from ruleset ``a`` in ``figure``, deal by deal."""
    p = paired(pairs.pair(figure, a, b), PLAYS[pairs.form])
    lo, hi = p.interval()
    ulo, uhi = p.unpaired_interval()
    t, pv = p.test()
    out = {"form": pairs.form, "deals": p.n} | _rounded(p, lo, hi, t, pv)
    return out | {"covariance": round(p.cov, 6), "unpaired_ci95": [round(ulo, 4), round(uhi, 4)]}


def kind_advantage(pairs: Pairs, k: int) -> dict[str, Any]:
    """How much more often the first kind wins than the second under ruleset ``k``: the mean, over deals, of the
    first kind's wins minus the second's (per match), with its interval; in the duplicate form each deal's
    difference compares the two kinds holding the same cards."""
    scale = PLAYS[pairs.form]
    m = moments(pairs.column("kind_advantage", k))
    m = Moments(m.n, m.mean / scale, m.sd / scale)
    lo, hi = m.interval()
    se = m.sd / m.n**0.5 if m.n else 0.0
    t = m.mean / se if se else 0.0
    return {"form": pairs.form, "deals": m.n} | _rounded(m, lo, hi, t, normal_p(t) if se else 1.0)


__all__ = ["DUPLICATE_METHOD", "PAIRED_METHOD", "is_match_figure", "kind_advantage", "paired_json"]
