"""What a player is (a kind and a choice from an Observation), and the registry that makes one by kind."""

from __future__ import annotations

from typing import Protocol

from ..engine.actions import Action
from ..engine.observation import Observation

KINDS = ("random", "heuristic", "search", "solver")


class Player(Protocol):
    """A seat's player: it sees only its Observation (and its own seeded rng) and chooses.

    ``choose`` returns one of ``obs.legal``, a signal among ``obs.gestures``, or None to wait. Waiting
    is allowed only when the seat need not act (``obs.must_act`` is false: an out-of-turn chance).
    """

    kind: str

    def choose(self, obs: Observation) -> Action | None: ...


def make_player(kind: str, *, seed: int, budget: int | None = None) -> Player:
    """A new player of ``kind`` with its own rng seeded from ``seed``; ``budget`` is the searches' sample count."""
    # The kinds are imported here, not at the top: each imports this module's neighbours, not this registry.
    if kind == "random":
        from .randomplayer import RandomPlayer

        return RandomPlayer(seed)
    if kind == "heuristic":
        from .heuristic import HeuristicPlayer

        return HeuristicPlayer(seed)
    if kind == "search":
        from .search import DEFAULT_BUDGET, SearchPlayer

        return SearchPlayer(seed, DEFAULT_BUDGET if budget is None else budget)
    if kind == "solver":
        from .search import DEFAULT_BUDGET
        from .solved import SolverPlayer

        return SolverPlayer(seed, DEFAULT_BUDGET if budget is None else budget)
    raise ValueError(f"unknown player kind {kind!r} (kinds: {', '.join(KINDS)})")
