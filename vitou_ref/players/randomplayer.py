"""The baseline player: uniformly random among its legal actions."""

from __future__ import annotations

import random

from ..engine.actions import Action
from ..engine.observation import Observation


class RandomPlayer:
    """Uniformly random among ``obs.legal``; never signals.

    When the game waits for it, it picks among its legal actions. When it is only offered an
    out-of-turn chance (a bid à la volée, a refusal by any opponent), waiting is one more choice,
    as likely as each action.
    """

    kind = "random"

    def __init__(self, seed: int) -> None:
        self._rnd = random.Random(seed).random

    def choose(self, obs: Observation) -> Action | None:
        legal = obs.legal
        if not legal:
            return None
        n = len(legal) if obs.must_act else len(legal) + 1
        i = int(self._rnd() * n)
        return legal[i] if i < len(legal) else None
