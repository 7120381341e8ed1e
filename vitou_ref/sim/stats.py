"""Intervals and tests for the figures: Wilson for shares, the normal approximation for means, z and Welch for differences."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

Z95 = 1.959963984540054  # the two-sided 95% quantile of the standard normal
LEVEL = 0.05  # a difference is called significant below this p-value


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of the share k/n: unlike k/n ± z·se, it stays in [0, 1] and is sound at 0 and n."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    zz = z * z
    centre = (p + zz / (2 * n)) / (1 + zz / n)
    half = z * math.sqrt(p * (1 - p) / n + zz / (4 * n * n)) / (1 + zz / n)
    # Rounding can leave the bound a hair outside [0, 1] (or off 0 at k = 0): the interval is closed there.
    return (0.0 if k == 0 else max(0.0, centre - half), 1.0 if k == n else min(1.0, centre + half))


@dataclass(frozen=True)
class Moments:
    """A sample summed up: its size, mean and sample standard deviation (n - 1 in the denominator)."""

    n: int
    mean: float
    sd: float

    def interval(self, z: float = Z95) -> tuple[float, float]:
        """The normal-approximation interval of the mean, mean ± z·sd/√n: sound for the sizes simulations run."""
        if self.n < 2:
            return (self.mean, self.mean)
        half = z * self.sd / math.sqrt(self.n)
        return (self.mean - half, self.mean + half)


def moments(counts: Mapping[int, int]) -> Moments:
    """The moments of a sample given as value -> how many times it occurs: exact whatever the size."""
    n = sum(counts.values())
    if n == 0:
        return Moments(0, 0.0, 0.0)
    mean = math.fsum(v * c for v, c in counts.items()) / n
    if n < 2:
        return Moments(n, mean, 0.0)
    ss = math.fsum(c * (v - mean) ** 2 for v, c in counts.items())
    return Moments(n, mean, math.sqrt(ss / (n - 1)))


def median(counts: Mapping[int, int]) -> float:
    """The median of a sample given as value -> count (the mean of the two middle values for an even size)."""
    n = sum(counts.values())
    if n == 0:
        return 0.0
    ordered = sorted(counts.items())

    def at(rank: int) -> int:  # the value at 0-based rank in the sorted sample
        seen = 0
        for value, c in ordered:
            seen += c
            if rank < seen:
                return value
        return ordered[-1][0]

    return (at((n - 1) // 2) + at(n // 2)) / 2


def normal_p(z: float) -> float:
    """The two-sided p-value of a standard normal statistic."""
    return math.erfc(abs(z) / math.sqrt(2))


def two_proportions(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    """The pooled two-proportion z test of k1/n1 against k2/n2: (z, two-sided p); z > 0 when the second is larger."""
    if n1 <= 0 or n2 <= 0:
        return (0.0, 1.0)
    pooled = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:  # both shares are 0, or both 1: no evidence of a difference
        return (0.0, 1.0)
    z = (k2 / n2 - k1 / n1) / se
    return (z, normal_p(z))


def welch(a: Moments, b: Moments) -> tuple[float, float]:
    """Welch's t of mean b against mean a, its p-value from the normal (fine at hundreds of samples): (t, p)."""
    if a.n < 2 or b.n < 2:
        return (0.0, 1.0)
    se = math.sqrt(a.sd**2 / a.n + b.sd**2 / b.n)
    if se == 0:
        return (0.0, 1.0)
    t = (b.mean - a.mean) / se
    return (t, normal_p(t))


__all__ = ["LEVEL", "Z95", "Moments", "median", "moments", "normal_p", "two_proportions", "welch", "wilson"]
