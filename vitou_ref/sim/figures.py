"""What a simulation counts, per ruleset: raw counts only, so that runs merge exactly; intervals come at output."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..engine.events import Event, HandEvent, MatchEvent, TrickEvent
from ..engine.state import TWENTY, TWENTY_TWENTY
from ..rules import reader


@dataclass
class Figures:
    """The counts of one ruleset over a range of matches. Every field adds up when two ranges merge."""

    ruleset: str
    twenty_at: int = 20
    matches: int = 0
    hands_per_match: Counter[int] = field(default_factory=Counter)  # hands in a match -> matches
    endings: Counter[str] = field(default_factory=Counter)
    hand_results: Counter[str] = field(default_factory=Counter)  # how hands end (the reason) -> hands
    values_won: Counter[str] = field(default_factory=Counter)  # points of a hand won -> hands (a bid's name too)
    values_by_refusal: Counter[str] = field(default_factory=Counter)
    tricks: int = 0
    tied_tricks: int = 0
    reached_twenty: int = 0
    reached_twenty_twenty: int = 0
    first_dealer_side_won: int = 0
    first_kind_won: int = 0  # matches won by the side of --players when it plays --against another kind

    @property
    def hands(self) -> int:
        return sum(h * c for h, c in self.hands_per_match.items())

    def add(self, other: Figures) -> None:
        """Add another range's counts to these (same ruleset)."""
        if (other.ruleset, other.twenty_at) != (self.ruleset, self.twenty_at):
            raise ValueError(f"cannot add the counts of {other.ruleset} to those of {self.ruleset}")
        for name in COUNTERS:
            getattr(self, name).update(getattr(other, name))
        for name in INTS:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def to_raw(self) -> dict[str, Any]:
        """The counts as JSON: counters as objects with sorted string keys, so that equal counts print equal."""
        out: dict[str, Any] = {"ruleset": self.ruleset, "twenty_at": self.twenty_at}
        for name in INTS:
            out[name] = getattr(self, name)
        for name in COUNTERS:
            out[name] = {str(k): v for k, v in sorted(getattr(self, name).items(), key=lambda kv: order(str(kv[0])))}
        return out

    @classmethod
    def from_raw(cls, raw: Mapping[str, Any]) -> Figures:
        """Counts read back from :meth:`to_raw`; CountsError, at the key that is wrong, when they are not such counts."""
        if not isinstance(raw, Mapping):
            raise CountsError((), "the counts of a ruleset are not an object")
        for name in ("ruleset", "twenty_at", *INTS, *COUNTERS):
            if name not in raw:
                raise CountsError((), f"no {name!r}")
        if not isinstance(raw["ruleset"], str):
            raise CountsError(("ruleset",), "ruleset is not a name")
        f = cls(raw["ruleset"], _counted(raw["twenty_at"], ("twenty_at",)))
        for name in INTS:
            setattr(f, name, _counted(raw[name], (name,)))
        for name in COUNTERS:
            items = raw[name]
            if not isinstance(items, Mapping):
                raise CountsError((name,), f"{name} is not an object")
            key = _number_key if name == "hands_per_match" else _value_key if name.startswith("values") else str
            getattr(f, name).update({_counted(k, (name, k), key): _counted(v, (name, k)) for k, v in items.items()})
        return f

    def inconsistency(self) -> tuple[tuple[str, ...], str] | None:
        """Where and how these counts cannot come from matches played (a share above its total, a total too large)."""
        hands, results = self.hands, sum(self.hand_results.values())
        refused, won = self.hand_results.get("refusal", 0), sum(self.values_won.values())
        checks: list[tuple[tuple[str, ...], int, int, str]] = [
            # Each match, as it closes, adds one to matches and one to hands_per_match: the two totals are one.
            (("hands_per_match",), sum(self.hands_per_match.values()), self.matches, "matches"),
            (("hands_per_match",), hands, MAX_COUNT, f"the maximum count, {MAX_COUNT}"),
            # At most one ending per match, one result per hand, one value won per hand ended with a winner.
            (("endings",), sum(self.endings.values()), self.matches, "matches"),
            (("hand_results",), results, hands, "hands (the sum of hands_per_match)"),
            (("values_won",), won, results, "hands ended (the sum of hand_results)"),
            (("values_by_refusal",), sum(self.values_by_refusal.values()), refused, "hands ended by a refusal"),
            (("tied_tricks",), self.tied_tricks, self.tricks, "tricks"),
            *(((name,), getattr(self, name), self.matches, "matches") for name in _OF_MATCHES),
        ]
        for where, share, total, what in checks:
            if share > total:
                return where, f"{share} is more than its total, {total} {what}"
        for k, n in self.values_by_refusal.items():
            if n > self.values_won.get(k, 0):  # a hand won by a refusal is a hand won, counted in both
                return (
                    "values_by_refusal",
                    k,
                ), f"{n} hands won for {k} by a refusal, of {self.values_won.get(k, 0)} won"
        return None


INTS = (
    "matches",
    "tricks",
    "tied_tricks",
    "reached_twenty",
    "reached_twenty_twenty",
    "first_dealer_side_won",
    "first_kind_won",
)
COUNTERS = ("hands_per_match", "endings", "hand_results", "values_won", "values_by_refusal")


MAX_COUNT = 2**53  # the largest count kept: every count and total up to it is exact as a double in the statistics
_OF_MATCHES = ("reached_twenty", "reached_twenty_twenty", "first_dealer_side_won", "first_kind_won")


class CountsError(ValueError):
    """Saved counts that are not counts: where (the keys, from a ruleset's counts down) and what."""

    def __init__(self, where: tuple[object, ...], message: str) -> None:
        super().__init__(message)
        self.where = where


def count(v: object) -> int:
    """Exactly a whole number, 0 to MAX_COUNT: JSON's true is not 1, and 2.5, "3" or 10**400 is no count."""
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise ValueError(f"{repr(v)[:60]} is not a count")
    if v > MAX_COUNT:
        raise ValueError(f"a count of {len(str(v))} digits is over the maximum, {MAX_COUNT}")
    return v


def _counted(v: object, where: tuple[object, ...], read: Callable[[Any], Any] = count) -> Any:
    try:
        return read(v)
    except ValueError as exc:
        raise CountsError(where, str(exc)) from None


def _number_key(k: object) -> int:
    # JSON's object keys are strings: a number of hands is written "7".
    if not isinstance(k, str) or not reader.is_whole(k, 16):
        raise ValueError(f"{reader.shown(str(k))} is not a number of hands")
    return count(reader.whole(k, max_digits=16))


def _value_key(k: object) -> str:
    """A hand's value as counted: its points ("3") or, for a bid worth the match, the bid's name ("baraque")."""
    if not isinstance(k, str) or (reader.looks_numeric(k) and not reader.is_whole(k, 16)):
        raise ValueError(f"{reader.shown(str(k))} is not a hand's value: points in the digits 0-9, or a bid's name")
    return k


def order(key: str) -> tuple[int, str]:
    """Numbers first, in order, then names (a match-winning bid's value is its name)."""
    return (reader.whole(key), "") if reader.is_whole(key, 16) else (10**9, key)


class MatchTally:
    """Counts one match as it is played, step by step, into a ruleset's :class:`Figures`."""

    def __init__(self, figures: Figures) -> None:
        self.f = figures
        self.saw_twenty = self.saw_tt = False
        self.last_hand: HandEvent | None = None
        self.winner: str | None = None
        self.ending: str | None = None

    def step(self, mode: int, events: Iterable[Event]) -> None:
        f = self.f
        if mode == TWENTY:
            self.saw_twenty = True
        elif mode == TWENTY_TWENTY:
            self.saw_tt = True
        for e in events:
            if isinstance(e, TrickEvent):
                f.tricks += 1
                if e.winner is None:
                    f.tied_tricks += 1
            elif isinstance(e, HandEvent):
                self.last_hand = e
                f.hand_results[e.reason] += 1
                if e.winner is not None:
                    f.values_won[str(e.points)] += 1
                    if e.reason == "refusal":
                        f.values_by_refusal[str(e.points)] += 1
            elif isinstance(e, MatchEvent):
                self.winner = e.winner
                if self.last_hand is not None:
                    self.ending = ending(self.last_hand, f.twenty_at)
                    f.endings[self.ending] += 1

    def close(self, hands: int, first_dealer_side: str, first_kind_side: str | None) -> None:
        """The match is over: its length, the thresholds it reached, and who won it."""
        f = self.f
        f.matches += 1
        f.hands_per_match[hands] += 1
        f.reached_twenty += self.saw_twenty
        f.reached_twenty_twenty += self.saw_tt
        f.first_dealer_side_won += self.winner == first_dealer_side
        f.first_kind_won += first_kind_side is not None and self.winner == first_kind_side

    def values(self, hands: int, first_dealer_side: str, kinds: tuple[str, str] | None) -> dict[str, int]:
        """The match's value of each figure a match has one of (see :mod:`vitou_ref.sim.paired`); ``kinds``: the
        sides of the first and the second kind, when two play."""
        out = {
            "hands_per_match": hands,
            "first_dealer_side_won": int(self.winner == first_dealer_side),
            "reached_twenty": int(self.saw_twenty),
            "reached_twenty_twenty": int(self.saw_tt),
        }
        if kinds is not None:
            won = (int(self.winner == kinds[0]), int(self.winner == kinds[1]))
            out |= {"first_kind_won": won[0], "kind_advantage": won[0] - won[1]}
        if self.ending is not None:
            out[f"endings/{self.ending}"] = 1
        return out


def ending(h: HandEvent, at: int) -> str:
    """How a match ended, from its last hand."""
    if h.mode == "twenty_twenty":
        return f"{at}-{at} ending"
    if h.mode == "twenty":
        score = dict(h.score)
        was = score[h.winner or ""] - int(h.points)
        return f"won at {at}" if was == at else f"opponents of the side at {at} passed the target"
    if isinstance(h.points, str):
        return "accepted top bid (baraque)"
    if h.reason == "refusal":
        return "target reached by a refusal"
    return "target reached on tricks"


__all__ = ["COUNTERS", "INTS", "MAX_COUNT", "CountsError", "Figures", "MatchTally", "count", "ending", "order"]
