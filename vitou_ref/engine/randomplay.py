"""Random play: a policy that picks uniformly among the legal actions."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from .actions import Action
from .events import Event
from .match import Match


def random_policy(rng: random.Random) -> Callable[[list[Action]], Action]:
    rnd = rng.random

    def choose(legal: list[Action]) -> Action:
        return legal[int(rnd() * len(legal))]

    return choose


def play_out(match: Match, rng: random.Random) -> Iterator[tuple[Action, tuple[Event, ...]]]:
    """Play ``match`` to its end with uniformly random legal actions, yielding each step."""
    choose = random_policy(rng)
    while True:
        legal = match.legal_actions()
        if not legal:
            return
        action = choose(legal)
        yield action, match.apply(action)
