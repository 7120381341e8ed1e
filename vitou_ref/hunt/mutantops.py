"""What a data mutant is, and the edits of a rules document that make one: a clause's data, the rows, the error list."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..rules.versions import parse_version

Doc = dict[str, Any]


@dataclass(frozen=True)
class Mutant:
    name: str
    mistake: str
    change: Callable[[Doc], None]
    equivalent: str | None = None  # why no conformance case can tell it from the reference
    since: tuple[int, int, int] = (1, 0, 0)  # the first version of Vitou the mistake can be made in
    game: str = "vitou"  # the id of the ruleset whose versions it is made from (vitou, le-truc)

    def applies_to(self, version: str, game: str = "vitou") -> bool:
        """Whether the mistake can be made in version ``version`` of the ruleset ``game``."""
        return game == self.game and (game != "vitou" or _version(version) >= self.since)


def _version(text: str) -> tuple[int, int, int]:
    return parse_version(text)


def _data(doc: Doc, rule: str) -> dict[str, Any]:
    for clause in doc["clauses"]:
        if clause.get("rule") == rule:
            data: dict[str, Any] = clause["data"]
            return data
    raise KeyError(rule)


def _set(rule: str, **values: Any) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        _data(doc, rule).update(values)

    return change


def _bind(rule: str, **data: Any) -> Callable[[Doc], None]:
    """Bind an optional rule the base leaves unbound, with a clause of its own."""

    def change(doc: Doc) -> None:
        clause = {"id": f"mutant.{rule}", "section": "02", "title": "Mutant", "text": "mutant", "rule": rule}
        doc["clauses"].append({**clause, "data": data})

    return change


def _both(*changes: Callable[[Doc], None]) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        for c in changes:
            c(doc)

    return change


def _swap(i: int) -> Callable[[Doc], None]:
    """Swap the ranks at places ``i`` and ``i + 1`` of the ruleset's own rank order (0: the highest)."""

    def change(doc: Doc) -> None:
        order = _data(doc, "rank_order")["highest_first"]
        order[i], order[i + 1] = order[i + 1], order[i]

    return change


# The usual order of the French pack, ace high: the mistake of a player who knows no other game.
_USUAL = ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")


def _usual_order(doc: Doc) -> None:
    data = _data(doc, "rank_order")
    data["highest_first"] = sorted(data["highest_first"], key=_USUAL.index)


def _rows(rows: list[tuple[str, list[str], str]]) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        _data(doc, "resolution")["rows"] = [{"id": i, "pattern": p, "winner": w, "text": "mutant"} for i, p, w in rows]

    return change


def _row(row_id: str, winner: str) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        for row in _data(doc, "resolution")["rows"]:
            if row["id"] == row_id:
                row["winner"] = winner

    return change


def _ladder(**by_bid: dict[str, Any]) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        for level in _data(doc, "ladder")["levels"]:
            level.update(by_bid.get(str(level["bid"]), {}))

    return change


def _before(code: str, other: str) -> Callable[[Doc], None]:
    """Move ``code`` just before ``other`` in the error list: a different order of precedence."""

    def change(doc: Doc) -> None:
        errors = doc["errors"]
        moved = next(e for e in errors if e["code"] == code)
        errors.remove(moved)
        errors.insert(next(i for i, e in enumerate(errors) if e["code"] == other), moved)

    return change


def _acts(code: str, *acts: str) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        next(e for e in doc["errors"] if e["code"] == code)["acts"] = list(acts)

    return change


def _reversed_order(doc: Doc) -> None:
    data = _data(doc, "rank_order")
    data["highest_first"] = list(reversed(data["highest_first"]))


def _add_code(code: str, clause: str, condition: str, acts: list[str], before: str) -> Callable[[Doc], None]:
    """Add an error code to the list, just before ``before``: the code a mistaken rule needs to refuse with."""

    def change(doc: Doc) -> None:
        errors = doc["errors"]
        at = next(i for i, e in enumerate(errors) if e["code"] == before)
        entry = {"code": code, "clause": clause, "summary": "mutant", "condition": condition, "acts": acts}
        errors.insert(at, {**entry, "when": "mutant"})

    return change


def _without_act(act: str, *codes: str) -> Callable[[Doc], None]:
    """Take ``act`` out of the game: out of every code's acts, and the codes that judge it alone."""

    def change(doc: Doc) -> None:
        doc["errors"] = [e for e in doc["errors"] if e["code"] not in codes]
        for e in doc["errors"]:
            if act in e.get("acts", []):
                e["acts"] = [a for a in e["acts"] if a != act]

    return change


# Resolution tables a mistaken reading of when a hand stops gives (the rows' ids as the resolution names them).
_STOP_LATE = [  # every hand plays its three tricks, even when two decide it
    (a + b + c, [a, b, c], w)
    for a, b, c, w in [
        ("A", "A", "A", "A"), ("A", "A", "B", "A"), ("A", "A", "T", "A"),
        ("A", "T", "A", "A"), ("A", "T", "B", "A"), ("A", "T", "T", "A"),
        ("T", "A", "A", "A"), ("T", "A", "B", "A"), ("T", "A", "T", "A"),
        ("A", "B", "A", "A"), ("A", "B", "B", "B"), ("A", "B", "T", "A"),
        ("T", "T", "A", "A"), ("T", "T", "T", "none"),
    ]
]  # fmt: skip
_STOP_EARLY = [
    ("A", ["A"], "A"),
    ("TA", ["T", "A"], "A"),
    ("TTA", ["T", "T", "A"], "A"),
    ("TTT", ["T", "T", "T"], "none"),
]
