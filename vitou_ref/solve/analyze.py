"""``vitou analyze``'s figures: perfect-information card play over every deal (two seats) or a seeded sample."""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass, field
from math import sqrt
from typing import Any

from ..engine.tables import Tables
from .deals import card_deals, every_deal
from .line import principal_line
from .solver import Budget, Position, Solver

Z95 = 1.959963984540054
DEFAULT_SAMPLE = 2000
# The positions the solvers of one run may search, every ruleset's together: a few minutes of one core.
DEFAULT_POSITIONS = 50_000_000
# The positions each table of a solver keeps (emptied when full: the values never depend on it, the memory
# does): a few hundred bytes each, so a run holds a few hundred MB at most, however large the pack.
TABLE_POSITIONS = 250_000
SOLVED = (
    "card play only, every seat seeing every card, both sides playing to win the hand (+1/0/-1); "
    "no bids, refusals or twenty decisions: the hand is held at its value"
)
# The figures, in the order they are shown, each a count of deals out of the deals analysed; a hand of more
# tricks than three has a "decided after" figure for each of them (shares()).
WINS = (
    ("leader_wins", "the first leader's side wins the hand"),
    ("other_wins", "the other side wins the hand"),
    ("nobody_wins", "nobody wins the hand"),
)
_COUNTS = ("one", "two", "three", "four", "five", "six", "seven", "eight")  # the most tricks the schema allows
READINGS = (
    ("tie_on_line", "a trick ties on the principal line"),
    ("leader_wins_through_tie", "the first leader's side wins, a trick tying on the principal line"),
    ("other_wins_through_tie", "the other side wins, a trick tying on the principal line"),
    ("leader_wins_other_reading", "the first leader's side wins, matching partners' cards read the other way"),
    ("other_wins_other_reading", "the other side wins, matching partners' cards read the other way"),
)


def shares(tricks: int) -> tuple[tuple[str, str], ...]:
    """The figures of a ruleset whose hands have ``tricks`` tricks: every count the rules schema allows."""
    decided = tuple(
        (
            f"decided_in_{k}",
            f"decided after {_COUNTS[k - 1] if k <= len(_COUNTS) else k} trick{'s' if k > 1 else ''}, the winner "
            "forcing it soonest",
        )
        for k in range(1, tricks + 1)
    )
    return WINS + decided + READINGS


@dataclass
class Tally:
    """Weighted counts of solved deals: card deals when every deal is counted, sampled deals otherwise."""

    tricks: int = 3
    counts: dict[str, int] = field(default_factory=dict)
    weight: int = 0
    distinct: int = 0
    # The paired difference, per deal, of each side's win between the ruleset's reading and the other one.
    diff: dict[str, list[int]] = field(default_factory=lambda: {"leader": [0, 0], "other": [0, 0]})
    times: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.counts = {k: 0 for k, _ in shares(self.tricks)}

    def add(self, solver: Solver, alt: Solver, pos: Position, w: int) -> None:
        flip = -1 if solver.side_of[pos.leader] else 1  # values are side 0's; the figures are the leader's side's
        start = time.process_time()
        solver.value(pos)
        self.times.append(time.process_time() - start)
        line = principal_line(solver, pos)
        v, va = line.value * flip, alt.value(pos) * flip
        c = self.counts
        self.weight += w
        self.distinct += 1
        c["leader_wins" if v > 0 else "other_wins" if v < 0 else "nobody_wins"] += w
        c[f"decided_in_{line.tricks}"] += w
        c["tie_on_line"] += w * line.tied
        c["leader_wins_through_tie"] += w * (line.tied and v > 0)
        c["other_wins_through_tie"] += w * (line.tied and v < 0)
        c["leader_wins_other_reading"] += w * (va > 0)
        c["other_wins_other_reading"] += w * (va < 0)
        for side, d in (("leader", (v > 0) - (va > 0)), ("other", (v < 0) - (va < 0))):
            self.diff[side][0] += w * d
            self.diff[side][1] += w * d * d


def analyze(t: Tables, sample: int = DEFAULT_SAMPLE, seed: int = 1, budget: Budget | None = None) -> dict[str, Any]:
    """The figures of one ruleset: exact over every deal for two seats, else over ``sample`` seeded deals.

    ``budget``: the positions the solvers may search; OverBudget, at once, when the work would go past it.
    """
    dealer = next(d for d in range(t.n) if t.first_leader[d] == 0)  # the first leader is seat 0
    solver = Solver(t, dealer, budget=budget, max_memo=TABLE_POSITIONS, face_down=True)
    alt = Solver(
        t, dealer, partners_win=not t.tie_partners_win, budget=budget, max_memo=TABLE_POSITIONS, face_down=True
    )
    tally = Tally(t.tricks)
    exact = t.n == 2
    start = time.process_time()
    if exact:
        for deal, w in every_deal(t, t.n, t.cards_each):
            tally.add(solver, alt, Position(deal, 0), w)
    else:
        rng = random.Random(seed)
        size = t.n * t.cards_each
        for _ in range(sample):
            cards = rng.sample(t.deck, size + t.turn_up)  # the card after the hands is turned up, if any
            hands = [cards[i * t.cards_each : (i + 1) * t.cards_each] for i in range(t.n)]
            power = t.power_after[cards[size]] if t.turn_up else None
            solver.clear()  # each hand solved from an empty table: its time is a whole solve's
            alt.clear()
            tally.add(solver, alt, solver.position(hands, 0, power), 1)
    elapsed = time.process_time() - start
    out = _figures(t, tally, exact, sample, seed)
    out["timing"] = {
        "seconds": elapsed,
        "solve_seconds": sum(tally.times),
        "median_ms_per_hand": 1000 * statistics.median(tally.times),
    }
    return out


def _figures(t: Tables, tally: Tally, exact: bool, sample: int, seed: int) -> dict[str, Any]:
    n = tally.weight
    figures: dict[str, Any] = {}
    for key, words in shares(t.tricks):
        k = tally.counts[key]
        figures[key] = {"what": words, "count": k, "share": k / n, "interval": None if exact else wilson(k, n)}
    for side in ("leader", "other"):
        s, sq = tally.diff[side]
        mean = s / n
        half = None if exact else Z95 * sqrt(max(sq / n - mean * mean, 0.0) / max(n - 1, 1))
        figures[f"tie_reading_worth_{side}"] = {
            "what": f"the {side} side's win share under this reading minus under the other (paired)",
            "count": s,
            "share": mean,
            "interval": None if half is None else [mean - half, mean + half],
        }
    deals: dict[str, Any] = {"count": n, "rank_deals": tally.distinct, "over": _over(t, n, exact, sample, seed)}
    if t.turn_up:  # the key only where there is one: the other rulesets' figures stay as they were
        deals["turn_up"] = True
    out: dict[str, Any] = {
        "ruleset": t.name,
        "seats": t.n,
        "exact": exact,
        "solved": SOLVED,
        "reading": "partners' matching cards win" if t.tie_partners_win else "matching highest cards tie",
        "deals": deals,
        "figures": figures,
    }
    if t.face_down_from:
        out["face_down_from"] = t.face_down_from  # the trick from which a card may be played face down
    return out


def _over(t: Tables, n: int, exact: bool, sample: int, seed: int) -> str:
    """What the deals counted are: every card deal (with its turn-up, where the rules turn one up), or a sample."""
    if not exact:
        each = " each with its turn-up," if t.turn_up else ""
        return f"a sample of {sample} card deals,{each} seed {seed}"
    if not t.turn_up:
        return "every card deal, counted by ranks"
    pack, k = len(t.deck), t.cards_each
    total = card_deals(pack, t.n, k, turn_up=True)
    if n != total:  # pragma: no cover - the weights count every card deal once (tests/test_analyze_turnup.py)
        raise AssertionError(f"the deals' weights sum to {n:,}, not the {total:,} card deals")
    return (
        f"every card deal with its turn-up, the two hands and the card turned up after them: "
        f"C({pack},{k}) C({pack - k},{k}) {pack - t.n * k} = {total:,} card deals, counted by strengths"
    )


def wilson(k: int, n: int, z: float = Z95) -> list[float]:
    """The Wilson score interval of a share k/n."""
    if n == 0:
        return [0.0, 1.0]
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return [max(0.0, mid - half), min(1.0, mid + half)]
