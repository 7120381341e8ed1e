"""The runner: match i of seed S played with seeds of its own, so that any range of matches plays anywhere alike."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..engine.tables import Tables, tables_for
from .figures import Figures, MatchTally

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


def play_range(
    refs: Sequence[str | Tables],
    lineup: Lineup,
    seed: int,
    start: int,
    stop: int,
    progress: Callable[[int], None] | None = None,
) -> list[Figures]:
    """Matches ``start`` to ``stop - 1`` of seed ``seed``, each under every ruleset: their counts, ruleset by ruleset."""
    from ..players import make_player
    from ..players.arena import play_match

    tables = [tables_of(r) for r in refs]
    figures = [Figures(t.name, t.twenty_at) for t in tables]
    for i in range(start, stop):
        deal_seed = match_seed(seed, i)
        for t, f in zip(tables, figures):
            players = {
                s: make_player(k, seed=player_seed(seed, i, s), budget=lineup.budget)
                for s, k in seat_kinds(t, lineup, i).items()
            }
            tally = MatchTally(f)
            match = None
            for match, _action, events in play_match(t, players, deal_seed):
                tally.step(match.mode, events)
            if match is None:  # a match with no step at all is not a match the engine can produce
                raise RuntimeError(f"match {i} of seed {seed} under {t.name} made no move")
            side = first_kind_side(lineup, i)
            dealer_side = t.side_ids[t.side_of[match.first_dealer]]
            tally.close(match.hand_number, dealer_side, None if side is None else t.side_ids[side])
        if progress is not None:
            progress(i + 1 - start)
    return figures


__all__ = ["BASELINE", "Lineup", "match_seed", "play_range", "player_seed", "seat_kinds", "tables_named", "tables_of"]
