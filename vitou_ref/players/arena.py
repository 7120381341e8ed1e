"""A match between players, one per seat: who is asked in what order, and what a player may answer."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator, Mapping

from ..engine.actions import Action, Signal
from ..engine.events import Event
from ..engine.match import Match
from ..engine.observation import RecordedMatch, asking_order, observe
from ..engine.tables import Tables
from ..rules.errors import VitouError
from .base import Player


class ArenaError(VitouError):
    """A player broke the arena's contract: waited when the game waited for it, or chose an action it may not take."""


def play_match(
    tables: Tables, players: Mapping[str, Player], seed: int, dealer: str | None = None
) -> Iterator[tuple[Match, Action, tuple[Event, ...]]]:
    """Play one match, yielding (the match, the action, its events) after every applied action.

    The draw for dealer (unless ``dealer`` is given) and the deals come from ``random.Random(seed)``
    as in ``Match(tables, rng=...)``; ``players`` maps every seat id to its player. At each step the
    seats that may act are asked in :func:`~vitou_ref.engine.observation.asking_order`: those with an
    out-of-turn chance first, in the order of play from the mover's next seat, each may wait (None);
    then the mover, the seat the game waits for (the seat in turn, or the first seat of the side
    deciding at twenty), which may not wait. The first action taken is applied and the asking starts
    over. A signal (one of ``obs.gestures``) is applied like an action but moves nothing: a seat may
    make one signal between two moves of the game, and is asked again. Deterministic for ``seed``
    and the players' seeds. Raises ArenaError naming the player that breaks these rules.
    """
    missing = [s for s in tables.seat_ids if s not in players]
    extra = [s for s in players if s not in tables.seat_index]
    if missing or extra:
        raise ValueError(
            f"players must be keyed by the seats {' '.join(tables.seat_ids)} (missing {missing}, extra {extra})"
        )
    match = RecordedMatch(tables, dealer=dealer, rng=random.Random(seed))
    signalled: set[str] = set()
    while True:
        order = asking_order(match)
        if not order:
            return
        for i, seat in enumerate(order):
            obs = observe(match, seat)
            if seat in signalled:
                obs = dataclasses.replace(obs, gestures=())
            player = players[seat]
            action = player.choose(obs)
            if action is None:
                if i == len(order) - 1:
                    raise ArenaError(f"{_who(player, seat)} returned None, but the game waits for {seat} to act")
                continue
            if action not in obs.legal and not (
                isinstance(action, Signal) and action.seat == seat and action.signal in obs.gestures
            ):
                raise ArenaError(f"{_who(player, seat)} chose {action}, which is not among its legal actions now")
            events = match.apply(action)
            if isinstance(action, Signal):
                signalled.add(seat)
            else:
                signalled.clear()
            yield match, action, events
            break


def _who(player: Player, seat: str) -> str:
    return f"the {player.kind} player at {seat} ({type(player).__name__})"
