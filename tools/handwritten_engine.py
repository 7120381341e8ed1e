"""A hand-written Vitou 1.0 engine, rules fixed in code: the yardstick for the data-driven interpreter's speed.

It plays the same random matches as `vitou bench engine` (random draw, deals of
3 cards from a partial shuffle, uniform choice among the legal actions at every
step, bids, refusals, both twenty-point endings) and is timed the same way.
It is not used by the package; `python tools/handwritten_engine.py` prints its
figure next to the interpreter's, measured in the same process.
"""

from __future__ import annotations

import random
import statistics
import sys
import time

N, E, S, W = range(4)
TIE = 2
LADDER = (1, 3, 6, 12, "match")
REFUSED = (None, 1, 3, 6, 12)
# strength of card id (rank_index * 4 + suit); rank index 0 is the 10
STRENGTH = tuple(8 - c // 4 for c in range(32))

# actions are tuples: ("p", seat, card) ("r", seat, level) ("x", seat) ("d", play?) ("c", seat, play?)
PLAYS = tuple(tuple(("p", s, c) for c in range(32)) for s in range(4))
RAISES = tuple(tuple(("r", s, lv) for lv in range(5)) for s in range(4))
REFUSALS = tuple(("x", s) for s in range(4))
DECIDE = (("d", True), ("d", False))
CALLS = tuple((("c", s, False), ("c", s, True)) for s in range(4))


def shuffled(count: int, rng: random.Random) -> list[int]:
    cards = list(range(32))
    rnd = rng.random
    for i in range(count):
        j = i + int(rnd() * (32 - i))
        cards[i], cards[j] = cards[j], cards[i]
    return cards[:count]


class Game:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        drawing = [N, E, S, W]
        while True:
            cards = shuffled(len(drawing), rng)
            low = min(STRENGTH[c] for c in cards)
            tied = [s for s, c in zip(drawing, cards) if STRENGTH[c] == low]
            if len(tied) == 1:
                break
            drawing = tied
        self.dealer = tied[0]
        self.score = [0, 0]
        self.over = False
        self.hands_played = 0
        self.new_hand()

    def new_hand(self) -> None:
        cards = shuffled(12, self.rng)
        first = (self.dealer + 1) % 4
        self.hands = [[], [], [], []]
        for i in range(4):
            self.hands[(first + i) % 4] = cards[i * 3 : i * 3 + 3]
        self.hands_played += 1
        ns, ew = self.score
        if ns == 20 and ew == 20:
            self.mode, self.phase, self.turn, self.asked = "tt", "call", first, 0
        elif ns == 20 or ew == 20:
            self.mode, self.phase, self.at20 = "twenty", "decide", 0 if ns == 20 else 1
        else:
            self.mode = "normal"
            self.begin(first)

    def begin(self, leader: int) -> None:
        self.phase, self.leader, self.turn = "play", leader, leader
        self.trick, self.results, self.level, self.bside = [], [], 0, -1

    def legal(self) -> list[tuple[object, ...]]:
        ph = self.phase
        if ph in ("play", "answer"):
            s = self.turn
            acts = [PLAYS[s][c] for c in self.hands[s]]
            if (
                self.mode == "normal"
                and self.level < 4
                and len(self.trick) < 3
                and (self.level == 0 or s % 2 != self.bside)
            ):
                acts.append(RAISES[s][self.level + 1])
            if ph == "answer":
                acts.append(REFUSALS[s])
            return acts
        if ph == "card":
            return [PLAYS[self.turn][c] for c in self.hands[self.turn]]
        if ph == "decide":
            return list(DECIDE)
        if ph == "call":
            return list(CALLS[self.turn])
        return []

    def apply(self, a: tuple[object, ...]) -> None:
        kind = a[0]
        if kind == "p":
            s, c = a[1], a[2]
            self.hands[s].remove(c)  # type: ignore[arg-type]
            self.trick.append((s, c))
            if len(self.trick) < 4:
                self.phase = "answer" if self.phase == "card" else "play"
                self.turn = (s + 1) % 4  # type: ignore[operator]
                return
            self.end_trick()
        elif kind == "r":
            self.level = a[2]
            self.bside = a[1] % 2  # type: ignore[operator]
            self.phase = "card"
        elif kind == "x":
            self.finish(self.bside, REFUSED[self.level], False)  # type: ignore[arg-type]
        elif kind == "d":
            if a[1]:
                self.begin((self.dealer + 1) % 4)
            else:
                self.finish(1 - self.at20, 1, False)
        elif a[2]:
            self.begin((self.dealer + 1) % 4)
        else:
            self.asked += 1
            if self.asked == 4:
                self.finish(-1, 0, False)
            else:
                self.turn = (self.turn + 1) % 4

    def end_trick(self) -> None:
        best = max(STRENGTH[c] for _, c in self.trick)
        tops = [s for s, c in self.trick if STRENGTH[c] == best]
        result = tops[0] % 2 if len(tops) == 1 else TIE
        self.results.append(result)
        r = self.results
        winner = None
        if len(r) == 2:
            if r[0] != TIE and (r[1] == r[0] or r[1] == TIE):
                winner = r[0]
            elif r[0] == TIE and r[1] != TIE:
                winner = r[1]
        elif len(r) == 3:
            if r[2] != TIE:
                winner = r[2]
            elif r[0] != TIE:
                winner = r[0]
            elif r[1] != TIE:
                winner = r[1]
            else:
                winner = -1
        if winner is None:
            self.leader = tops[0] if len(tops) == 1 else self.leader
            self.turn = self.leader
            self.trick = []
            self.phase = "play"
            return
        if winner < 0:
            self.finish(-1, 0, False)
        elif self.mode == "normal":
            value = LADDER[self.level]
            if value == "match":
                self.finish(winner, 0, True)
            else:
                self.finish(winner, value, False)  # type: ignore[arg-type]
        elif self.mode == "twenty":
            if winner == self.at20:
                self.finish(winner, 1, True)
            else:
                self.finish(winner, 3, False)
        else:
            self.finish(winner, 1, True)

    def finish(self, side: int, points: int, match: bool) -> None:
        if side >= 0:
            self.score[side] += points
        self.dealer = (self.dealer + 1) % 4
        if side >= 0 and (match or self.score[side] >= 21):
            self.over = True
            self.phase = "over"
            return
        self.new_hand()


def bench(seconds: float, seed: int) -> float:
    rng = random.Random(seed)
    rnd = rng.random
    hands = matches = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        g = Game(rng)
        while True:
            legal = g.legal()
            if not legal:
                break
            g.apply(legal[int(rnd() * len(legal))])
        hands += g.hands_played
        matches += 1
        if matches % 16 == 0 and time.perf_counter() >= deadline:
            break
    return hands / (time.perf_counter() - start)


def _arguments(argv: list[str]) -> tuple[float, int]:
    """SECONDS and REPEAT from the command line; usage (exit 0 for --help, 2 for a bad value) otherwise."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python tools/handwritten_engine.py",
        description="Time the hand-written Vitou 1.0 engine and the data-driven interpreter on the same random "
        "matches, interleaved, and print both rates and their ratio.",
    )
    parser.add_argument("seconds", nargs="?", type=float, default=2.0, help="seconds per timing (default 2)")
    parser.add_argument("repeat", nargs="?", type=int, default=5, help="timings of each engine (default 5)")
    args = parser.parse_args(argv)
    if not args.seconds > 0 or args.repeat < 1:
        parser.error("SECONDS must be above zero and REPEAT at least 1")
    return args.seconds, args.repeat


def main(argv: list[str] | None = None) -> int:
    from vitou_ref import load_ruleset
    from vitou_ref.hunt.bench import bench_engine

    seconds, repeat = _arguments(sys.argv[1:] if argv is None else argv)
    hand_rates, ref_rates = [], []
    rules = load_ruleset("vitou/1.0.0")
    for r in range(repeat):  # interleaved, so that both see the same machine
        hand_rates.append(bench(seconds, r + 1))
        ref_rates.append(bench_engine(rules, seconds, 1, seed=r + 1).hands_per_second_best)
    print(
        f"hand-written engine: {max(hand_rates):,.0f} hands/s best of {repeat} (median {statistics.median(hand_rates):,.0f})"
    )
    print(
        f"vitou_ref (data):    {max(ref_rates):,.0f} hands/s best of {repeat} (median {statistics.median(ref_rates):,.0f})"
    )
    ratios = [a / b for a, b in zip(ref_rates, hand_rates)]
    print(f"ratio interpreter / hand-written, per interleaved pair: median {statistics.median(ratios):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
