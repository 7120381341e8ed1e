"""The resolution table's checks: every way a hand's tricks can go is decided by exactly one reachable row."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from .model import ResolutionRow

Path = tuple[object, ...]
Bad = Callable[[str, str, Path], None]  # records one located problem


def relative_sequences(tricks: int) -> list[tuple[str, ...]]:
    """Every sequence of trick results up to ``tricks`` long, A being the first side to win one."""
    out: list[tuple[str, ...]] = []
    for n in range(1, tricks + 1):
        for seq in itertools.product("ABT", repeat=n):
            first_win = next((x for x in seq if x != "T"), None)
            if first_win in (None, "A"):
                out.append(seq)
    return out


def check_resolution(rows: tuple[ResolutionRow, ...], tricks: int, at: Path, bad: Bad) -> None:
    by_pattern: dict[tuple[str, ...], list[int]] = {}
    for i, row in enumerate(rows):
        if [r.id for r in rows].index(row.id) != i:
            bad("RESOLUTION_ROW_DUPLICATE", f"row id {row.id!r} is used twice", at + ("rows", i, "id"))
        if len(row.pattern) > tricks:
            bad(
                "RESOLUTION_PATTERN",
                f"row {row.id!r} has {len(row.pattern)} tricks, but a hand has {tricks}",
                at + ("rows", i, "pattern"),
            )
        first_win = next((x for x in row.pattern if x != "T"), None)
        if first_win == "B":
            bad(
                "RESOLUTION_PATTERN",
                f"row {row.id!r}: A names the side that won the earliest won trick, so B cannot come before A",
                at + ("rows", i, "pattern"),
            )
        if row.winner in ("A", "B") and row.winner not in row.pattern:
            bad(
                "RESOLUTION_PATTERN",
                f"row {row.id!r} gives the hand to {row.winner}, a side that won no trick in its pattern",
                at + ("rows", i, "winner"),
            )
        by_pattern.setdefault(row.pattern, []).append(i)
    decided: set[tuple[str, ...]] = set()
    used: set[int] = set()
    for seq in relative_sequences(tricks):
        if any(seq[:k] in decided for k in range(1, len(seq))):
            continue
        matches = by_pattern.get(seq, [])
        if len(matches) > 1:
            ids = ", ".join(repr(rows[i].id) for i in matches)
            bad("RESOLUTION_AMBIGUOUS", f"rows {ids} all match the results {''.join(seq)}", at + ("rows", matches[1]))
        if matches:
            decided.add(seq)
            used.add(matches[0])
        elif len(seq) == tricks:
            bad(
                "RESOLUTION_INCOMPLETE",
                f"no row decides a hand whose tricks went {' '.join(seq)} (A: the first side to win a trick, B: the other, T: tied)",
                at + ("rows",),
            )
    for i, row in enumerate(rows):
        if (
            i not in used
            and len(row.pattern) <= tricks
            and row.pattern in by_pattern
            and by_pattern[row.pattern][0] == i
        ):
            bad(
                "RESOLUTION_UNREACHABLE",
                f"row {row.id!r} can never apply: an earlier trick already decides every hand it would match",
                at + ("rows", i, "pattern"),
            )
