"""The baseline player: uniformly random among its legal actions."""

from __future__ import annotations

import random

from ..engine.actions import Action, Concede
from ..engine.observation import Observation


class RandomPlayer:
    """Uniformly random among ``obs.legal``; never signals.

    When the game waits for it, it picks among its legal actions. When it is only offered an
    out-of-turn chance (a bid à la volée, a refusal by any opponent), waiting is one more choice,
    as likely as each action. It never concedes a hand (Truco Paulista's concede): a concession scores
    what losing the hand on its tricks, folding the raise that waits or declining the hand of eleven
    scores, which are all among its choices, so it would only make every hand shorter.
    """

    kind = "random"

    def __init__(self, seed: int) -> None:
        self._rnd = random.Random(seed).random

    def choose(self, obs: Observation) -> Action | None:
        legal = tuple(a for a in obs.legal if type(a) is not Concede)
        if not legal:
            return None
        n = len(legal) if obs.must_act else len(legal) + 1
        i = int(self._rnd() * n)
        return legal[i] if i < len(legal) else None
