"""Differential fuzzing: random matches on the reference and on an implementation, compared answer by answer.

A match is drawn by hypothesis as three numbers: a seed (the deals, the
first dealer and every choice of action), a starting score (0-0, or one near
the endings, where the rules are densest) and how many actions to play at
most. Play follows a seeded random policy, with a share of deliberately
illegal actions (wrong seat, card not held, bids where they are forbidden,
malformed actions). Matches go to the implementation in pipelined batches.
On a divergence, hypothesis shrinks the batch to one match and the fewest
actions; then the case is cut to the hand where it diverges, stripped of
every action it does not need, and written as a fixture whose expectations
are the reference's answers.
"""

from __future__ import annotations

import contextlib
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ._actions import Malformed, action_from_json
from ._cards import ALL_CARDS
from ._connection import Connection, Fault
from ._errors import IllegalAction
from ._match import Match
from ._model import Ruleset
from ._protocol import _structural_code, match_from_setup, run_case
from ._tables import Tables, tables_for

MAX_ACTIONS = 160
STARTS: tuple[tuple[int, int], ...] = ((0, 0), (17, 15), (19, 19), (20, 14), (14, 20), (20, 19), (20, 20), (18, 20))


@dataclass
class Case:
    setup: dict[str, Any]
    actions: list[Any]


@dataclass
class Divergence:
    case: Case
    where: str  # "step N", "legal", "final", "errored", "fault"
    expected: Any
    actual: Any
    reference: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        e = json.dumps(self.expected, sort_keys=True)[:600]
        a = json.dumps(self.actual, sort_keys=True)[:600]
        action = ""
        if self.where.startswith("step "):
            action = f" ({self.case.actions[int(self.where.split()[1]) - 1]})"
        return f"{self.where}{action}: expected {e}, got {a}"


def universe(t: Tables) -> list[Any]:
    """Actions to try where they do not belong: every kind of mistake an implementation must refuse."""
    out: list[Any] = []
    for seat in t.seat_ids:
        out += [{"seat": seat, "act": "play", "card": str(c)} for c in ALL_CARDS]
        out += [{"seat": seat, "act": "raise", "to": tok} for tok in t.bid_tokens[1:]]
        out += [
            {"seat": seat, "act": "refuse"},
            {"seat": seat, "act": "pass"},
            {"seat": seat, "act": "play_hand"},
            {"seat": seat, "act": "signal", "signal": "ten"},
            {"seat": seat, "act": "signal", "signal": "wink"},
            {"seat": seat, "act": "raise", "to": 4},
            {"seat": seat, "act": "play", "card": "1S"},
        ]
    for side in t.side_ids:
        out += [{"side": side, "act": "play_hand"}, {"side": side, "act": "decline_hand"}]
    out += [
        {"seat": "X", "act": "play", "card": "AS"},
        {"seat": t.seat_ids[0], "act": "dance"},
        {"act": "play"},
        "N AS",
    ]
    return out


def make_case(
    t: Tables, seed: int, start: int, length: int, illegal: int, tries: list[Any]
) -> tuple[Case, dict[str, Any]]:
    """The match a drawn example stands for, and the reference's answer to it, built in one pass."""
    rng = random.Random(seed)
    a, b = STARTS[start % len(STARTS)]
    score = {t.side_ids[0]: a, t.side_ids[1]: b}
    use_draw = rng.random() < 0.25
    m = (
        Match(t, rng=rng, score=score)
        if use_draw
        else Match(t, dealer=t.seat_ids[rng.randrange(t.n)], rng=rng, score=score)
    )
    setup: dict[str, Any] = {"score": score}
    if use_draw:
        setup["draw"] = [{s: str(t.card(c)) for s, c in r.items()} for r in m.draw_rounds]
    else:
        setup["dealer"] = m.dealer
    deals: list[dict[str, list[str]]] = []

    def note_deal() -> None:
        if m.deals_used() > len(deals) and m.dealt:
            deals.append({s: [str(t.card(c)) for c in m.dealt[i]] for i, s in enumerate(t.seat_ids)})

    note_deal()
    j = t.as_json
    legal_actions = m.legal_actions()
    legal = [j(x) for x in legal_actions]
    ref: dict[str, Any] = {"legal": legal, "steps": []}
    actions: list[Any] = []
    rand = rng.random
    for _ in range(length):
        if not legal:
            break
        c = int(rand() * 65536)
        try:
            if c % 100 >= 100 - illegal:
                action: Any = tries[(c // 100) % len(tries)]
                actions.append(action)
                events = m.apply(action_from_json(action))
            else:
                pick = legal_actions[(c // 100) % len(legal_actions)]
                actions.append(legal[(c // 100) % len(legal)])
                events = m.apply(pick)
        except Malformed as exc:
            ref["steps"].append({"ok": False, "error": _structural_code(t, action, exc.code)})
            continue
        except IllegalAction as exc:
            ref["steps"].append({"ok": False, "error": exc.code})
            continue
        if events:  # a new deal is only ever taken when a hand ends
            note_deal()
        legal_actions = m.legal_actions()
        legal = [j(x) for x in legal_actions]
        ref["steps"].append({"ok": True, "events": [e.to_json() for e in events], "legal": legal})
    ref["final"] = {"score": m.score, "dealer": m.dealer, "winner": m.winner}
    setup["deals"] = deals
    return Case(setup, actions), ref


def _key(a: Any) -> str:
    return json.dumps(a, sort_keys=True, separators=(",", ":"))


def _same_set(a: Any, b: Any) -> bool:
    # Legal sets compare as sets; the same order, the usual case, is the fast one.
    return bool(a == b) or (isinstance(b, list) and sorted(map(_key, a)) == sorted(map(_key, b)))


def compare(case: Case, ref: dict[str, Any], got: Any) -> Divergence | None:
    """The first place the implementation's answer differs from the reference's."""

    def div(where: str, e: Any, a: Any) -> Divergence:
        return Divergence(case, where, e, a, ref)

    if not isinstance(got, dict):
        return div("answer", "a JSON object", got)
    if ref.get("errored"):
        return (
            None
            if got.get("errored") is True
            else div("errored", {"errored": True}, {k: got.get(k) for k in ("legal", "final")})
        )
    if got.get("errored") is True:
        return div("errored", {"errored": False}, got)
    if not isinstance(got.get("steps"), list) or len(got["steps"]) != len(ref["steps"]):
        return div("steps", f"{len(ref['steps'])} steps", got.get("steps"))
    if not _same_set(ref["legal"], got.get("legal")):
        return div("legal", ref["legal"], got.get("legal"))
    for i, (r, g) in enumerate(zip(ref["steps"], got["steps"]), 1):
        if not isinstance(g, dict) or r.get("ok") != g.get("ok"):
            return div(f"step {i}", r, g)
        if not r["ok"]:
            if r["error"] != g.get("error"):
                return div(f"step {i}", r, g)
            continue
        if r["events"] != g.get("events"):
            return div(f"step {i}", {"events": r["events"]}, {"events": g.get("events")})
        if not _same_set(r["legal"], g.get("legal")):
            return div(f"step {i}", {"legal": r["legal"]}, {"legal": g.get("legal")})
    if ref["final"] != got.get("final"):
        return div("final", ref["final"], got.get("final"))
    return None


class _Found(Exception):
    pass


def batches(most: int) -> Any:
    """Batches of drawn matches (seed, start, length), the size drawn first so that it shrinks to one match."""
    from hypothesis import strategies as st

    seeds, starts, lengths = st.integers(0, 2**32 - 1), st.integers(0, len(STARTS) - 1), st.integers(0, MAX_ACTIONS)

    @st.composite
    def draw(draw: Any) -> list[tuple[int, int, int]]:
        # Three draws per match rather than a tuple strategy: the same choices, drawn faster.
        return [(draw(seeds), draw(starts), draw(lengths)) for _ in range(draw(st.integers(1, most)))]

    return draw()


@dataclass
class FuzzResult:
    matches: int
    seconds: float
    divergence: Divergence | None
    restarts: int
    examples: int
    actions: int = 0
    ended: int = 0

    @property
    def rate(self) -> float:
        return self.matches / self.seconds if self.seconds else 0.0

    def describe(self) -> str:
        """What was tried, in a line: how many matches, how long they were, how fast."""
        n = max(self.matches, 1)
        return (
            f"{self.matches} matches ({self.actions / n:.0f} actions on average, {100 * self.ended / n:.0f}% played "
            f"to the end of the match) in {self.seconds:.1f}s: {self.rate:,.0f} matches/s"
        )


class Fuzzer:
    def __init__(
        self,
        rules: Ruleset,
        argv: list[str],
        *,
        timeout: float = 10.0,
        illegal: int = 12,
        batch: int = 16,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        self.rules = rules
        self.t = tables_for(rules)
        self.argv = argv
        self.timeout = timeout
        self.illegal = illegal
        self.batch = batch
        self.progress = progress
        self.tries = universe(self.t)
        self.conn: Connection | None = None
        self.matches = 0
        self.actions = 0  # over every match tried, for the report
        self.ended = 0  # matches played to their end
        self.restarts = 0

    def _open(self) -> Connection:
        if self.conn is None:
            conn = Connection(self.argv)
            conn.open()
            hello = json.loads(conn.exchange(b'{"cmd":"start","protocol":1}\n', 30.0))
            if self.rules.name not in hello.get("rulesets", []):
                conn.kill()
                raise Fault("ruleset", f"the implementation does not offer {self.rules.name}")
            self.conn = conn
        return self.conn

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close(b'{"cmd":"stop"}\n')
            self.conn = None

    def _line(self, seq: int, case: Case) -> bytes:
        body = {"cmd": "run", "seq": seq, "ruleset": self.rules.name, "setup": case.setup, "actions": case.actions}
        return (json.dumps(body, separators=(",", ":")) + "\n").encode()

    def ask(self, cases: list[Case]) -> list[Any]:
        """The implementation's answers to a batch of cases, pipelined; a fault is one answer of its own."""
        conn = self._open()
        lines = [self._line(i + 1, c) for i, c in enumerate(cases)]
        try:
            conn.write_all(b"".join(lines), self.timeout)
            answers = [json.loads(conn.read_line(self.timeout)) for _ in cases]
        except (Fault, ValueError) as exc:
            return [self._lost(exc)] * len(cases)
        return answers

    def _lost(self, exc: Fault | ValueError) -> Fault:
        """The connection broke: it is dropped (the next batch restarts it), and why is the answer."""
        if self.conn is not None:
            self.conn.kill()
            self.conn = None
        self.restarts += 1
        return Fault("fault", exc.message if isinstance(exc, Fault) else f"invalid JSON: {exc}")

    def check(self, drawn: list[tuple[int, int, int]]) -> Divergence | None:
        # Each request leaves as soon as its case is built: the implementation
        # answers one case while the next is drawn and played here.
        built = []
        conn = self._open()
        try:
            for i, (s, st, n) in enumerate(drawn):
                case, ref = make_case(self.t, s, st, n, self.illegal, self.tries)
                built.append((case, ref))
                conn.write_all(self._line(i + 1, case), self.timeout)
            answers: list[Any] = [json.loads(conn.read_line(self.timeout)) for _ in built]
        except (Fault, ValueError) as exc:
            answers = [self._lost(exc)] * len(drawn)
            while len(built) < len(drawn):
                s, st, n = drawn[len(built)]
                built.append(make_case(self.t, s, st, n, self.illegal, self.tries))
        self.matches += len(built)
        for case, ref in built:
            self.actions += len(case.actions)
            self.ended += ref["final"]["winner"] is not None
        for (case, ref), got in zip(built, answers):
            d = self.judge(case, ref, got)
            if d is not None:
                return d
        return None

    def judge(self, case: Case, ref: dict[str, Any], got: Any) -> Divergence | None:
        if isinstance(got, Fault):
            return Divergence(case, "fault", "an answer", got.message, ref)
        got_body = {k: v for k, v in got.items() if k != "seq"} if isinstance(got, dict) else got
        return compare(case, ref, got_body)

    def diverges(self, case: Case) -> Divergence | None:
        """Whether one concrete case still shows a divergence (used while shrinking)."""
        ref = {k: v for k, v in run_case(self.t, case.setup, case.actions, 1).items() if k != "seq"}
        (got,) = self.ask([case])
        return self.judge(case, ref, got)

    def run(self, examples: int, seed: int, max_seconds: float | None) -> FuzzResult:
        from hypothesis import HealthCheck, Phase, given, settings
        from hypothesis import seed as hseed

        start = time.perf_counter()
        self._open()  # a program that cannot start is reported as such, before any example is drawn
        found: list[Divergence] = []
        chunk = 0
        while self.matches < examples:
            if max_seconds is not None and time.perf_counter() - start > max_seconds:
                break
            want = max(1, min(50, (examples - self.matches + self.batch - 1) // self.batch))

            @settings(
                max_examples=want,
                database=None,
                deadline=None,
                derandomize=False,
                suppress_health_check=list(HealthCheck),
                phases=[Phase.generate, Phase.shrink],
                report_multiple_bugs=False,
                print_blob=False,
            )
            @hseed(seed * 1_000_003 + chunk)
            @given(batches(self.batch))
            def prop(drawn: list[tuple[int, int, int]]) -> None:
                d = self.check(drawn)
                if d is not None:
                    found.append(d)  # the last one found is the smallest, once shrinking ends
                    raise _Found
                if self.progress is not None:
                    self.progress(self.matches, examples)

            try:
                prop()
            except _Found:
                break
            except Fault:
                raise  # the implementation cannot even be started again: nothing to compare
            except Exception as exc:
                if not found:
                    raise RuntimeError(f"fuzzing stopped: {exc}") from exc
                break
            chunk += 1
        seconds = time.perf_counter() - start
        div = found[-1] if found else None
        if div is not None:
            div = self._earliest(div)
        return FuzzResult(self.matches, seconds, div, self.restarts, chunk, self.actions, self.ended)

    def _earliest(self, d: Divergence) -> Divergence:
        """Shrink further with what the rules guarantee, as long as the case still diverges.

        A hand starts from its dealer, the score and its deal alone, so a case
        can begin at the hand where it diverges; a rejected action changes
        nothing, and any action may turn out not to matter; and nothing after
        the first differing step is needed.
        """
        if d.where == "fault":
            return d
        best = d
        for candidate in self._from_hand_starts(best.case):
            again = self.diverges(candidate)
            if again is not None:
                best = again
                break
        best = self._cut_after_difference(best)
        # Blocks of actions, halving in size down to single ones: a whole trick
        # or a bid and its answer may go where no single action can.
        before = -1
        while len(best.case.actions) != before:
            before = len(best.case.actions)
            size = max(1, before // 2)
            while size >= 1:
                j = len(best.case.actions) - size
                while j >= 0:
                    acts = best.case.actions
                    again = self.diverges(Case(best.case.setup, acts[:j] + acts[j + size :]))
                    if again is not None:
                        best = self._cut_after_difference(again)
                    j = min(j - 1, len(best.case.actions) - size)
                size //= 2
        # Deals the case never reaches go; so does the next hand's deal when the case stops before it
        # is played (a refusal ends a hand, and the reference deals the next at once).
        for keep in range(1, len(best.case.setup["deals"])):
            trimmed = Case({**best.case.setup, "deals": best.case.setup["deals"][:keep]}, best.case.actions)
            again = self.diverges(trimmed)
            if again is not None:
                best = again
                break
        return best

    def _cut_after_difference(self, d: Divergence) -> Divergence:
        if d.where.startswith("step "):
            n = int(d.where.split()[1])
            if n < len(d.case.actions):
                again = self.diverges(Case(d.case.setup, d.case.actions[:n]))
                if again is not None:
                    return again
        return d

    def _from_hand_starts(self, case: Case) -> list[Case]:
        """The case started afresh at each hand it plays, latest hand first."""
        m = match_from_setup(self.t, case.setup)
        starts: list[Case] = []
        hand = m.hand_number
        for i, raw in enumerate(case.actions):
            if m.hand_number != hand and m.deals_used() >= 1 and m.phase_name not in ("match_over", "no_deal"):
                hand = m.hand_number
                deals = case.setup["deals"][m.deals_used() - 1 :]
                starts.append(Case({"dealer": m.dealer, "score": m.score, "deals": deals}, case.actions[i:]))
            with contextlib.suppress(Malformed, IllegalAction):
                m.apply(action_from_json(raw))
        return list(reversed(starts))


def fixture_for(d: Divergence, rules: Ruleset, case_id: str, command: str) -> dict[str, Any]:
    """The divergent case as a conformance fixture; its expectations are the reference's answers."""
    ref = d.reference
    clauses = _clauses(rules, d)
    if ref.get("errored"):
        expect: dict[str, Any] = {"errored": True}
    else:
        steps = []
        for s in ref["steps"]:
            steps.append(
                {"error": s["error"]} if not s["ok"] else {"ok": True, "events": s["events"], "legal": s["legal"]}
            )
        expect = {"legal": ref["legal"], "steps": steps, "final": ref["final"]}
    return {
        "format": 1,
        "title": f"Found by vitou fuzz against {command}",
        "description": (
            "Generated by vitou fuzz: the expectations are the reference interpreter's answers, not a "
            "hand derivation. First difference: " + d.describe()
        ),
        "cases": [
            {
                "id": case_id,
                "title": f"fuzz: the implementation differs from the reference at {d.where}",
                "clauses": clauses,
                "rulesets": [rules.name],
                "setup": d.case.setup,
                "actions": d.case.actions,
                "expect": expect,
            }
        ],
    }


_REASON_CLAUSES = {  # how a hand ended, and the clause that says what it is worth
    "refusal": "bid.refusal_value",
    "decline": "twenty.decline",
    "passed": "tt.all_pass",
    "tied": "tt.all_tied",
}


_ACT_CLAUSES = {  # an action one side allows and the other does not, and the clause that decides it
    "raise": "bid.turn",
    "refuse": "bid.refusal",
    "signal": "signals.when",
    "play_hand": "twenty.decision",
    "decline_hand": "twenty.decision",
    "pass": "tt.ask",
    "play": "play.turn_order",
}


def _legal_difference(d: Divergence) -> list[str]:
    """The kinds of action in one legal set and not the other, where the difference is in a legal set."""
    e = d.expected.get("legal") if isinstance(d.expected, dict) else d.expected if d.where == "legal" else None
    a = d.actual.get("legal") if isinstance(d.actual, dict) else d.actual if d.where == "legal" else None
    if not isinstance(e, list) or not isinstance(a, list):
        return []
    ek, ak = {_key(x): x for x in e}, {_key(x): x for x in a if isinstance(x, dict)}
    kinds = [x.get("act") for k, x in {**ek, **ak}.items() if (k in ek) != (k in ak)]
    return sorted({k for k in kinds if isinstance(k, str)})


def _clauses(rules: Ruleset, d: Divergence) -> list[str]:
    ids = {c.id for c in rules.clauses}
    found: list[str] = []
    for side in (d.expected, d.actual):
        if isinstance(side, dict) and isinstance(side.get("error"), str):
            with contextlib.suppress(KeyError):
                found.append(rules.error(side["error"]).clause)
    events = json.dumps([d.expected, d.actual])
    for reason, clause in _REASON_CLAUSES.items():
        if f'"reason": "{reason}"' in events:
            found.append(rules.current_clause(clause))
    if '"trick"' in events:
        found += [rules.current_clause(c) for c in ("deck.rank_order", "trick.rank_only", "trick.tie")]
    if '"hand"' in events:
        found.append(rules.current_clause("hand.resolution"))
    if d.where == "final" or '"score"' in events:
        found.append(rules.current_clause("score.add"))
    for act in _legal_difference(d):
        if act in _ACT_CLAUSES:
            found.append(rules.current_clause(_ACT_CLAUSES[act]))
    found.append(rules.current_clause("turn.decisions"))
    out: list[str] = []
    for c in found:
        if c in ids and c not in out:
            out.append(c)
    return out
