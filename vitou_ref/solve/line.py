"""A solved hand's line: how soon its winner can force the win, and the principal line, each the lowest card that keeps the value."""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.tables import TIED
from .solver import Position, Solver


@dataclass(frozen=True)
class Line:
    """A hand under perfect play: its value for side 0, the tricks played until it is decided, whether one tied."""

    value: int
    tricks: int
    tied: bool


def principal_line(solver: Solver, pos: Position) -> Line:
    """The hand played out from ``pos`` with every seat playing, of the cards that keep the position's
    value, the lowest: the one line the figures count, since perfect play often leaves several open. A card
    goes face down only where no card face up keeps the value (``Solver.moves``), the weakest first.

    ``tricks`` is, for a hand someone wins, the fewest tricks within which the winner can force the
    win against a loser who holds out (the deciding trick included); for a hand nobody wins, the
    tricks the principal line takes. ``tied`` says whether a trick of the principal line tied.
    """
    value = solver.value(pos)
    tricks, tied = 0, False
    cur: Position | int = pos
    while isinstance(cur, Position):
        here = cur
        for s in solver.moves(here):
            child = solver.after(here, s)
            if (child if isinstance(child, int) else solver.value(child)) == value:
                break
        else:  # pragma: no cover - some move always keeps the value
            raise AssertionError("no move keeps the solved value")
        if len(here.played) + 1 == solver.n:
            tricks += 1
            tied = tied or solver.outcome(here.leader, (*here.played, solver.shown(s))) == TIED
        cur = child
    if value:
        memo: dict[tuple[Position, int], bool] = {}
        tricks = next(k for k in range(1, solver.t.tricks + 1) if _forced(solver, pos, value, k, memo))
    return Line(value, tricks, tied)


def _forced(solver: Solver, pos: Position, value: int, k: int, memo: dict[tuple[Position, int], bool]) -> bool:
    """Whether the side the hand is worth ``value`` to (+1: side 0, -1: side 1) can win it within ``k`` tricks."""
    key = (pos, k)
    found = memo.get(key)
    if found is not None:
        return found
    if solver.budget is not None:
        solver.budget.spend()
    mine = solver.side_of[solver.to_play(pos)] == (0 if value > 0 else 1)
    done = solver.depth[pos.node] + 1  # the tricks completed once the trick in play ends
    result = not mine
    for s in solver.moves(pos):
        child = solver.after(pos, s)
        if isinstance(child, int):
            ok = child == value and done <= k
        elif not child.played and solver.depth[child.node] >= k:
            ok = False  # k tricks played and the hand goes on
        else:
            ok = _forced(solver, child, value, k, memo)
        if ok == mine:
            result = ok
            break
    if len(memo) >= solver.max_memo:  # the answers never depend on it; the memory does
        memo.clear()
    memo[key] = result
    return result
