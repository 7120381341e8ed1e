"""Random matches under a ruleset, summed up for variant designers."""

from __future__ import annotations

import random
import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..engine.events import HandEvent, MatchEvent, TrickEvent
from ..engine.match import Match
from ..engine.tables import tables_for
from ..rules.model import Ruleset


@dataclass
class Simulation:
    ruleset: str
    matches: int
    seed: int
    seconds: float = 0.0
    hands_per_match: list[int] = field(default_factory=list)
    endings: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    won_values: Counter[str] = field(default_factory=Counter)  # hands won on tricks, by value
    refused_values: Counter[str] = field(default_factory=Counter)
    tricks: int = 0
    tied_tricks: int = 0
    reached_twenty: int = 0
    reached_twenty_twenty: int = 0
    twenty_at: int = 20  # the score of the twenty-point ending, as the ruleset sets it

    @property
    def hands(self) -> int:
        return sum(self.hands_per_match)

    def to_json(self) -> dict[str, Any]:
        h = self.hands_per_match
        hands = self.hands or 1
        return {
            "ruleset": self.ruleset,
            "matches": self.matches,
            "seed": self.seed,
            "policy": "uniformly random among the legal actions",
            "seconds": round(self.seconds, 3),
            "hands": self.hands,
            "hands_per_match": {
                "mean": round(statistics.fmean(h), 2) if h else 0,
                "median": statistics.median(h) if h else 0,
                "min": min(h, default=0),
                "max": max(h, default=0),
            },
            "endings": dict(self.endings.most_common()),
            "hand_results": dict(self.reasons.most_common()),
            "values_won_on_tricks": dict(sorted(self.won_values.items(), key=lambda kv: _order(kv[0]))),
            "values_won_by_refusal": dict(sorted(self.refused_values.items(), key=lambda kv: _order(kv[0]))),
            "refusal_rate": round(self.reasons["refusal"] / hands, 4),
            "tied_trick_rate": round(self.tied_tricks / (self.tricks or 1), 4),
            "all_tied_hand_rate": round(self.reasons["tied"] / hands, 4),
            "void_hand_rate": round(self.reasons["void"] / hands, 4),
            "matches_reaching_twenty": self.reached_twenty,
            "matches_reaching_twenty_twenty": self.reached_twenty_twenty,
        }


def _order(key: str) -> tuple[int, str]:
    return (int(key), "") if key.isdigit() else (10**9, key)


def simulate(rules: Ruleset, matches: int, seed: int, progress: Callable[[int, int], None] | None = None) -> Simulation:
    t = tables_for(rules)
    rng = random.Random(seed)
    rnd = rng.random
    sim = Simulation(rules.name, matches, seed, twenty_at=t.twenty_at)
    start = time.perf_counter()
    for i in range(matches):
        m = Match(t, rng=rng)
        saw_twenty = saw_tt = False
        last_hand: HandEvent | None = None
        while True:
            if m.mode == 1:
                saw_twenty = True
            elif m.mode == 2:
                saw_tt = True
            legal = m.legal_actions()
            if not legal:
                break
            for e in m.apply(legal[int(rnd() * len(legal))]):
                if isinstance(e, TrickEvent):
                    sim.tricks += 1
                    if e.winner is None:
                        sim.tied_tricks += 1
                elif isinstance(e, HandEvent):
                    last_hand = e
                    sim.reasons[e.reason] += 1
                    if e.reason == "tricks" and e.mode == "normal":
                        sim.won_values[str(e.points)] += 1
                    elif e.reason == "refusal":
                        sim.refused_values[str(e.points)] += 1
                elif isinstance(e, MatchEvent) and last_hand is not None:
                    sim.endings[_ending(last_hand, rules)] += 1
        sim.hands_per_match.append(m.hand_number)
        sim.reached_twenty += saw_twenty
        sim.reached_twenty_twenty += saw_tt
        if progress is not None:
            progress(i + 1, matches)
    sim.seconds = time.perf_counter() - start
    return sim


def _ending(h: HandEvent, rules: Ruleset) -> str:
    at = rules.params.twenty_at
    if h.mode == "twenty_twenty":
        return f"{at}-{at} ending"
    if h.mode == "twenty":
        score = dict(h.score)
        was = score[h.winner or ""] - int(h.points)
        return f"won at {at}" if was == at else f"opponents of the side at {at} passed the target"
    if isinstance(h.points, str):
        return "accepted top bid (baraque)"
    if h.reason == "refusal":
        return "target reached by a refusal"
    return "target reached on tricks"


def render_simulation(sim: Simulation) -> str:
    j = sim.to_json()
    hp = j["hands_per_match"]
    lines = [
        f"{sim.ruleset}: {sim.matches} random matches (seed {sim.seed}), {j['hands']} hands, {sim.seconds:.1f}s",
        "play: uniformly random among the legal actions (a baseline, not a model of real players)",
        f"hands per match: mean {hp['mean']}, median {hp['median']}, min {hp['min']}, max {hp['max']}",
        "how matches end:",
    ]
    for k, v in j["endings"].items():
        lines.append(f"  {k}: {v} ({100 * v / max(sim.matches, 1):.1f}%)")
    at = sim.twenty_at
    lines.append(
        f"matches reaching {at}: {sim.reached_twenty} ({100 * sim.reached_twenty / max(sim.matches, 1):.1f}%), "
        f"reaching {at}-{at}: {sim.reached_twenty_twenty} ({100 * sim.reached_twenty_twenty / max(sim.matches, 1):.1f}%)"
    )
    lines.append("how hands end:")
    for k, v in j["hand_results"].items():
        lines.append(f"  {k}: {v} ({100 * v / max(j['hands'], 1):.1f}%)")
    lines.append(
        "values of hands won on tricks: " + ", ".join(f"{k}: {v}" for k, v in j["values_won_on_tricks"].items())
    )
    lines.append(
        "values of hands won by refusal: " + ", ".join(f"{k}: {v}" for k, v in j["values_won_by_refusal"].items())
    )
    lines.append(
        f"refusal rate {j['refusal_rate']:.1%}, tied tricks {j['tied_trick_rate']:.1%}, "
        f"all-tied hands {j['all_tied_hand_rate']:.1%}, void hands (no winner, not all tied) {j['void_hand_rate']:.1%}"
    )
    return "\n".join(lines) + "\n"
