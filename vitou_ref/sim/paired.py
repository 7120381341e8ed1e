"""Paired outcomes: what each deal gave under every ruleset, counted jointly so that differences are tested on pairs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .figures import MAX_COUNT, CountsError, count

PLAIN, DUPLICATE = "plain", "duplicate"
FORMS = (PLAIN, DUPLICATE)
PLAYS = {PLAIN: 1, DUPLICATE: 2}  # plays of each deal
# The figures a match has one value of (a hand or a trick is no unit both rulesets share: their numbers differ).
MATCH_FIGURES = ("hands_per_match", "first_dealer_side_won", "reached_twenty", "reached_twenty_twenty")
KIND_FIGURES = ("first_kind_won", "kind_advantage")  # only when two kinds play
ENDING = "endings/"  # endings/<name>: 1 for the match that ended so
MAX_KEY = 4096  # a value of a unit is a few dozen hands at most: a saved file with more is not counts


@dataclass
class Pairs:
    """Joint counts of the units of a run (a match, or in the duplicate form a deal and its two plays): figure ->
    the unit's value under each ruleset, in order (summed over its plays) -> units. A unit whose values are all 0
    is not kept (``units`` counts it), so that a way of ending seen late needs no zeros before it."""

    form: str = PLAIN
    units: int = 0
    joint: dict[str, Counter[tuple[int, ...]]] = field(default_factory=dict)

    def add_unit(self, values: Sequence[Mapping[str, int]]) -> None:
        """One unit: its figures' values under each ruleset."""
        self.units += 1
        for name in sorted({k for v in values for k in v}):
            key = tuple(v.get(name, 0) for v in values)
            if any(key):
                self.joint.setdefault(name, Counter())[key] += 1

    def add(self, other: Pairs) -> None:
        if other.form != self.form:
            raise ValueError(f"cannot add {other.form} pairs to {self.form} ones")
        self.units += other.units
        for name, c in other.joint.items():
            self.joint.setdefault(name, Counter()).update(c)

    def pair(self, name: str, a: int, b: int) -> Counter[tuple[int, int]]:
        """The joint counts of rulesets ``a`` and ``b`` for a figure, units with a 0 for both included."""
        out: Counter[tuple[int, int]] = Counter()
        for key, n in self.joint.get(name, Counter()).items():
            out[(key[a], key[b])] += n
        zeros = self.units - sum(out.values())
        if zeros:
            out[(0, 0)] += zeros
        return out

    def column(self, name: str, k: int) -> Counter[int]:
        """The values of ruleset ``k`` for a figure, unit by unit (as value -> units)."""
        out: Counter[int] = Counter()
        for (x, _), n in self.pair(name, k, k).items():
            out[x] += n
        return out

    def to_raw(self) -> dict[str, Any]:
        """As JSON: each figure's keys sorted, each a list of the values under each ruleset and the units."""
        joint = {name: [[*key, n] for key, n in sorted(c.items())] for name, c in sorted(self.joint.items())}
        return {"form": self.form, "units": self.units, "joint": joint}

    @classmethod
    def from_raw(cls, raw: object, rulesets: int) -> Pairs:
        """Pairs read back from :meth:`to_raw`; CountsError at the key that is wrong."""
        if not isinstance(raw, Mapping):
            raise CountsError((), "the pairs are not an object")
        form, joint = raw.get("form"), raw.get("joint")
        if form not in FORMS:
            raise CountsError(("form",), f"the form is not one of {', '.join(FORMS)}")
        if not isinstance(joint, Mapping):
            raise CountsError(("joint",), "joint is not an object")
        try:
            p = cls(str(form), count(raw.get("units")))
        except ValueError as exc:
            raise CountsError(("units",), str(exc)) from None
        for name, rows in joint.items():
            if not isinstance(name, str) or not isinstance(rows, list):
                raise CountsError(("joint", str(name)[:40]), "not a figure's list of units")
            c = p.joint.setdefault(name, Counter())
            for j, row in enumerate(rows):
                key, n = _row(row, rulesets, ("joint", name, j))
                c[key] += n
            if sum(c.values()) > p.units:
                raise CountsError(("joint", name), f"{sum(c.values())} units is more than the run's {p.units}")
        return p


def _row(row: object, rulesets: int, where: tuple[object, ...]) -> tuple[tuple[int, ...], int]:
    if not isinstance(row, list) or len(row) != rulesets + 1:
        raise CountsError(where, f"not a list of {rulesets} values and a count")
    for v in row:
        if not isinstance(v, int) or isinstance(v, bool) or not -MAX_KEY <= v <= MAX_COUNT:
            raise CountsError(where, f"{repr(v)[:40]} is not a value or a count")
    *key, n = row
    if n < 1 or any(abs(v) > MAX_KEY for v in key) or not any(key):
        raise CountsError(where, "a unit's values out of range, all 0, or a count below 1")
    return tuple(key), n


def summed(plays: Sequence[Mapping[str, int]]) -> dict[str, int]:
    """A deal's values over its plays."""
    out: Counter[str] = Counter()
    for p in plays:
        out.update(p)
    return dict(out)


__all__ = ["DUPLICATE", "ENDING", "FORMS", "KIND_FIGURES", "MATCH_FIGURES", "PLAIN", "PLAYS", "Pairs", "summed"]
