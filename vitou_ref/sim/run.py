"""The runner: match i of seed S played with seeds of its own, so that any range of matches plays anywhere alike."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..engine.tables import Tables, tables_for
from .figures import Figures, MatchTally
from .paired import PLAIN, PLAYS, Pairs, summed

if TYPE_CHECKING:
    from ..players.base import Player

BASELINE = "random"  # uniformly random among the legal actions: a baseline, not a model of real players


@dataclass(frozen=True)
class Lineup:
    """Who plays: every seat of one kind, or ``kind`` against ``against``, side for side."""

    kind: str = BASELINE
    against: str | None = None
    budget: int | None = None  # the search player's budget; None: its own default

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "against": self.against, "budget": self.budget}

    @classmethod
    def from_json(cls, raw: Any) -> Lineup:
        if not isinstance(raw, dict) or not isinstance(raw.get("kind"), str):
            raise ValueError("players is not an object with a kind")
        against, budget = raw.get("against"), raw.get("budget")
        if against is not None and not isinstance(against, str):
            raise ValueError("players.against is not a kind")
        if budget is not None and (not isinstance(budget, int) or isinstance(budget, bool)):
            raise ValueError("players.budget is not a number")
        return cls(raw["kind"], against, budget)

    def describe(self) -> str:
        budget = f" (search budget {self.budget})" if self.budget is not None else ""
        if self.against is None:
            said = " (uniformly random legal actions: a baseline, not a model of real players)"
            return f"{self.kind} players on every seat{said if self.kind == BASELINE else ''}{budget}"
        return f"{self.kind} against {self.against}, sides swapped every other match{budget}"


def match_seed(seed: int, i: int) -> int:
    """The seed of match ``i`` (0-based) of a run seeded ``seed``: the same wherever and in whatever order it is played."""
    return random.Random(f"vitou-sim:{seed}:{i}").getrandbits(64)


def player_seed(seed: int, i: int, seat: str) -> int:
    """The seed of the player in ``seat`` in match ``i``."""
    return random.Random(f"vitou-sim:{seed}:{i}:{seat}").getrandbits(64)


def first_kind_side(lineup: Lineup, i: int) -> int | None:
    """The side the first kind holds in match ``i`` when two kinds play: the first on even matches, the second on odd
    ones, so that what a seat or the deal is worth cancels out over a run."""
    return None if lineup.against is None else i % 2


def seat_kinds(t: Tables, lineup: Lineup, i: int) -> dict[str, str]:
    side = first_kind_side(lineup, i)
    if side is None or lineup.against is None:
        return dict.fromkeys(t.seat_ids, lineup.kind)
    return {s: lineup.kind if t.side_of[n] == side else lineup.against for n, s in enumerate(t.seat_ids)}


@lru_cache(maxsize=16)
def tables_named(ref: str) -> Tables:
    """A ruleset's tables by id or file, once per process (a worker plays many ranges of the same rulesets)."""
    from ..rules.registry import load_ruleset

    return tables_for(load_ruleset(ref))


def tables_of(ref: str | Tables) -> Tables:
    """Tables given, or named (the processes of a run are handed names: tables do not travel between them)."""
    return ref if isinstance(ref, Tables) else tables_named(ref)


def seating(t: Tables, lineup: Lineup, seed: int, i: int, play: int) -> tuple[dict[str, Player], int | None]:
    """The players of play ``play`` of match ``i`` and the side of the first kind (None: one kind). The second play of
    a duplicate deal moves every player, its kind and its seed, one seat on (seat n to seat n + 1 in the order of
    play), the cards and the dealer staying with the seats: each player holds the cards its opponent on its right
    held, on the other side, and so the other kind holds what the first held."""
    from ..players import make_player

    kinds, n = seat_kinds(t, lineup, i), t.n
    players = {
        t.seat_ids[(k + play) % n]: make_player(kinds[s], seed=player_seed(seed, i, s), budget=lineup.budget)
        for k, s in enumerate(t.seat_ids)
    }
    side = first_kind_side(lineup, i)
    return players, None if side is None else (side + play) % 2


def duplicate_problem(t: Tables) -> str | None:
    """Why a ruleset cannot be played in the duplicate form: a move of one seat must hand each side the other's
    cards."""
    if len(t.side_ids) != 2 or any(t.side_of[k] == t.side_of[(k + 1) % t.n] for k in range(t.n)):
        return f"{t.name} does not seat two sides alternately: a move of one seat does not exchange the sides' cards"
    return None


def play_units(
    refs: Sequence[str | Tables],
    lineup: Lineup,
    seed: int,
    start: int,
    stop: int,
    form: str = PLAIN,
    progress: Callable[[int], None] | None = None,
) -> tuple[list[Figures], Pairs]:
    """Matches (deals, in the duplicate form, each played twice) ``start`` to ``stop - 1`` of seed ``seed``, each
    under every ruleset: their counts, ruleset by ruleset, and their values unit by unit, jointly."""
    from ..players.arena import play_match

    tables = [tables_of(r) for r in refs]
    figures = [Figures(t.name, t.twenty_at) for t in tables]
    pairs = Pairs(form)
    for i in range(start, stop):
        deal_seed = match_seed(seed, i)
        unit = []
        for t, f in zip(tables, figures):
            plays = []
            for play in range(PLAYS[form]):
                players, side = seating(t, lineup, seed, i, play)
                tally = MatchTally(f)
                match = None
                for match, _action, events in play_match(t, players, deal_seed):
                    tally.step(match.mode, events)
                if match is None:  # a match with no step at all is not a match the engine can produce
                    raise RuntimeError(f"match {i} of seed {seed} under {t.name} made no move")
                dealer_side = t.side_ids[t.side_of[match.first_dealer]]
                kinds = None if side is None else (t.side_ids[side], t.side_ids[1 - side])
                tally.close(match.hand_number, dealer_side, None if kinds is None else kinds[0])
                plays.append(tally.values(match.hand_number, dealer_side, kinds))
            unit.append(summed(plays))
        pairs.add_unit(unit)
        if progress is not None:
            progress(i + 1 - start)
    return figures, pairs


def play_range(
    refs: Sequence[str | Tables],
    lineup: Lineup,
    seed: int,
    start: int,
    stop: int,
    progress: Callable[[int], None] | None = None,
) -> list[Figures]:
    """Matches ``start`` to ``stop - 1`` of seed ``seed``, each under every ruleset: their counts, ruleset by ruleset."""
    return play_units(refs, lineup, seed, start, stop, PLAIN, progress)[0]


__all__ = [
    "BASELINE",
    "Lineup",
    "duplicate_problem",
    "match_seed",
    "play_range",
    "play_units",
    "player_seed",
    "seat_kinds",
    "seating",
    "tables_named",
    "tables_of",
]
