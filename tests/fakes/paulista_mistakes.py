"""Truco Paulista engines with one rule mistake each, that no rules data can state: the reference, changed in one place.

Usage: python paulista_mistakes.py MODE (or MODE+MODE: an engine with each of the mistakes)
It answers like the reference adapter, except under truco-paulista, where MODE changes one behaviour:
  manilhas-tied          the four manilhas are equal: two manilhas tie the trick
  face-down-counts       a card played face down keeps its strength: it may win the trick
  concede-pays-raised    a concession while a raise waits pays the raised level, not the stake before it
  concede-eleven-pays-1  a concession during a played hand of eleven pays the stake (1), not 3
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from truc_mistakes import serve_mistakes  # the fakes share one way to serve: run as scripts, they see each other

from vitou_ref.engine.hands import Hands
from vitou_ref.engine.state import TWENTY
from vitou_ref.engine.tables import Tables
from vitou_ref.engine.transitions import PENDING, PLAY
from vitou_ref.engine.trick import Tricks

GAME = "truco-paulista"


def _paulista(m: Any) -> bool:
    return m._t.rules.id == GAME


def manilhas_tied(t: Tables) -> None:
    # Every manilha at the strength of the lowest: still above every other card, but equal to one another.
    top = max(t.strength)
    t.power_after = {up: tuple(min(p, top + 1) for p in power) for up, power in t.power_after.items()}


def face_down_counts() -> None:
    end = Tricks._end_trick

    def patched(self: Any, answer_due: bool) -> Any:
        if _paulista(self):
            self.tdown = 0  # the cards are compared as if every one were face up
        return end(self, answer_due)

    Tricks._end_trick = patched  # type: ignore[method-assign]


def concede_pays_raised() -> None:
    concede = Hands._do_concede

    def patched(self: Any, s: int) -> Any:
        if _paulista(self) and self.phase == PENDING:
            t = self._t
            pts = t.values[self.level]
            return self._finish(self._bside, pts, pts, "conceded", False, None, t.bid_tokens[self.level], None)
        return concede(self, s)

    Hands._do_concede = patched  # type: ignore[method-assign]


def concede_eleven_pays_1() -> None:
    concede = Hands._do_concede

    def patched(self: Any, s: int) -> Any:
        if _paulista(self) and self.phase == PLAY and self.mode == TWENTY:
            other = 1 - self._t.side_of[s]
            return self._finish(other, 1, 1, "conceded", False, None, None, None)
        return concede(self, s)

    Hands._do_concede = patched  # type: ignore[method-assign]


ENGINE: dict[str, Callable[[], None]] = {
    "face-down-counts": face_down_counts,
    "concede-pays-raised": concede_pays_raised,
    "concede-eleven-pays-1": concede_eleven_pays_1,
}
TABLES: dict[str, Callable[[Tables], None]] = {"manilhas-tied": manilhas_tied}


def main() -> int:
    return serve_mistakes("paulista_mistakes.py", GAME, ENGINE, TABLES)


if __name__ == "__main__":
    raise SystemExit(main())
