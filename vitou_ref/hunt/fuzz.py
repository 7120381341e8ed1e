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

from ..engine.actions import Malformed, action_from_json
from ..engine.match import Match
from ..engine.tables import Tables, tables_for
from ..protocol.client import Client, Fault
from ..protocol.server import _structural_code, match_from_setup, run_case
from ..protocol.wire import canonical, printable, same
from ..rules.cards import ALL_CARDS
from ..rules.errors import IllegalAction
from ..rules.model import Ruleset

MAX_ACTIONS = 160
MAX_SESSION = 2000  # earlier matches kept to replay a divergence that needs them
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
    before: list[Case] = field(default_factory=list)  # what the process was sent before, in order

    def describe(self) -> str:
        e = printable(json.dumps(self.expected, sort_keys=True, ensure_ascii=False), 600)
        a = printable(json.dumps(self.actual, sort_keys=True, ensure_ascii=False), 600)
        action = ""
        if self.where.startswith("step "):
            raw = self.case.actions[int(self.where.split()[1]) - 1]
            action = f" ({printable(json.dumps(raw, ensure_ascii=False), 200)})"
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
    # Legal sets compare as sets; the same order, the usual case, is the fast one. Types count: true is not 1.
    return same(a, b) or (isinstance(b, list) and sorted(map(canonical, a)) == sorted(map(canonical, b)))


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
        if not isinstance(g, dict) or r.get("ok") is not g.get("ok"):
            return div(f"step {i}", r, g)
        if not r["ok"]:
            if not same(r["error"], g.get("error")):
                return div(f"step {i}", r, g)
            continue
        if not same(r["events"], g.get("events")):
            return div(f"step {i}", {"events": r["events"]}, {"events": g.get("events")})
        if not _same_set(r["legal"], g.get("legal")):
            return div(f"step {i}", {"legal": r["legal"]}, {"legal": g.get("legal")})
    if not same(ref["final"], got.get("final")):
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
        start_timeout: float = 30.0,
        illegal: int = 12,
        batch: int = 16,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        self.rules = rules
        self.t = tables_for(rules)
        self.argv = argv
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.illegal = illegal
        self.batch = batch
        self.progress = progress
        self.tries = universe(self.t)
        self.client: Client | None = None
        self.session: list[Case] = []  # every case sent to the running process, in order
        self.matches = 0
        self.actions = 0  # over every match tried, for the report
        self.ended = 0  # matches played to their end
        self.restarts = 0
        self.deadline: float | None = None  # from --max-seconds: drawing and shrinking both stop there

    def _open(self) -> Client:
        if self.client is None:
            client = Client(self.argv, timeout=self.timeout, start_timeout=self.start_timeout)
            hello = client.start()  # Fault, with the process ended, when it cannot be used
            if self.rules.name not in hello.rulesets:
                client.kill()
                raise Fault("ruleset", f"the implementation does not offer {self.rules.name}")
            self.client = client
            self.session = []
        return self.client

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None

    def fresh(self) -> None:
        """Drop the running process: the next request starts a new one, with no memory of earlier matches."""
        if self.client is not None:
            self.client.kill()
            self.client = None

    def _line(self, seq: int, case: Case) -> bytes:
        body = {"cmd": "run", "seq": seq, "ruleset": self.rules.name, "setup": case.setup, "actions": case.actions}
        return (json.dumps(body, separators=(",", ":")) + "\n").encode()

    def _send(self, client: Client, case: Case) -> int:
        seq = client.next_seq()
        self.session.append(case)
        if len(self.session) > 2 * MAX_SESSION:
            del self.session[:-MAX_SESSION]
        client.send(self._line(seq, case))
        return seq

    def ask(self, cases: list[Case]) -> list[Any]:
        """The implementation's answers to a batch of cases, pipelined; a fault is one answer of its own."""
        try:
            client = self._open()
            seqs = [self._send(client, c) for c in cases]
            answers: list[Any] = [client.receive(q) for q in seqs]
        except Fault as exc:
            return [self._lost(exc)] * len(cases)
        return answers

    def _lost(self, exc: Fault) -> Fault:
        """The connection broke: it is dropped (the next batch restarts it), and why is the answer."""
        self.fresh()
        self.restarts += 1
        return Fault("fault", f"{exc.kind}: {exc.message}")

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.perf_counter() > self.deadline

    def check(self, drawn: list[tuple[int, int, int]]) -> Divergence | None:
        if self.out_of_time():
            return None  # hypothesis keeps the smallest failure found so far and stops shrinking
        # Each request leaves as soon as its case is built: the implementation
        # answers one case while the next is drawn and played here.
        built = []
        try:
            client = self._open()
            seqs = []
            for s, st, n in drawn:
                case, ref = make_case(self.t, s, st, n, self.illegal, self.tries)
                built.append((case, ref))
                seqs.append(self._send(client, case))
            answers: list[Any] = [client.receive(q) for q in seqs]
        except Fault as exc:
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
            d: Divergence | None = Divergence(case, "fault", "an answer", got.message, ref)
        else:
            got_body = {k: v for k, v in got.items() if k != "seq"} if isinstance(got, dict) else got
            d = compare(case, ref, got_body)
        if d is not None:
            d.before = self._before(case)
        return d

    def _before(self, case: Case) -> list[Case]:
        """The cases this process was sent before ``case`` (the most recent ones, when there were very many)."""
        for i in range(len(self.session) - 1, -1, -1):
            if self.session[i] is case:
                return self.session[max(0, i - MAX_SESSION) : i]
        return []

    def reference(self, case: Case) -> dict[str, Any]:
        return {k: v for k, v in run_case(self.t, case.setup, case.actions, 1).items() if k != "seq"}

    def diverges(self, case: Case, *, anyway: bool = False) -> Divergence | None:
        """Whether one concrete case still shows a divergence (used while shrinking, until the deadline)."""
        if self.out_of_time() and not anyway:
            return None
        (got,) = self.ask([case])
        return self.judge(case, self.reference(case), got)

    def reproduce(self, d: Divergence) -> Divergence | None:
        """The divergence seen again on a fresh start of the implementation, or None.

        An implementation that keeps state across matches may diverge only
        after earlier ones: then the session that led to it (``d.before``) is
        replayed first, in order, and the divergence returned keeps it.
        """
        self.fresh()
        again = self.diverges(d.case, anyway=True)
        if again is not None:
            again.before = []
            return again
        if not d.before:
            return None
        self.fresh()
        for i in range(0, len(d.before), self.batch):
            self.ask(d.before[i : i + self.batch])
        again = self.diverges(d.case, anyway=True)
        if again is not None:
            again.before = list(d.before)
        return again

    def run(self, examples: int, seed: int, max_seconds: float | None) -> FuzzResult:
        from hypothesis import HealthCheck, Phase, given, settings
        from hypothesis import seed as hseed

        start = time.perf_counter()
        self.deadline = None if max_seconds is None else start + max_seconds
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


def _expectation(ref: dict[str, Any]) -> dict[str, Any]:
    if ref.get("errored"):
        return {"errored": True}
    steps = [{"error": s["error"]} if not s["ok"] else {"ok": True, "events": s["events"], "legal": s["legal"]} for s in ref["steps"]]
    return {"legal": ref["legal"], "steps": steps, "final": ref["final"]}


def fixture_for(
    d: Divergence, rules: Ruleset, case_id: str, command: str, *, reproduced: bool = True
) -> dict[str, Any]:
    """The divergent case as a conformance fixture; its expectations are the reference's answers.

    When the divergence shows only after earlier matches (``d.before``), they
    come first in the file, in the order they were sent: certify sends a
    file's cases in order to one process, so the file reproduces it.
    """
    t = tables_for(rules)
    cases: list[dict[str, Any]] = []
    for i, earlier in enumerate(d.before, 1):
        ref = {k: v for k, v in run_case(t, earlier.setup, earlier.actions, 1).items() if k != "seq"}
        cases.append(
            {
                "id": f"{case_id}-{i:04d}",
                "title": f"fuzz: match {i} of the session before the divergence",
                "clauses": [rules.current_clause("turn.decisions")],
                "rulesets": [rules.name],
                "setup": earlier.setup,
                "actions": earlier.actions,
                "expect": _expectation(ref),
            }
        )
    cases.append(
        {
            "id": case_id,
            "title": f"fuzz: the implementation differs from the reference at {d.where}",
            "clauses": _clauses(rules, d),
            "rulesets": [rules.name],
            "setup": d.case.setup,
            "actions": d.case.actions,
            "expect": _expectation(d.reference),
        }
    )
    notes = []
    if d.before:
        notes.append(
            f"The difference shows only after the {len(d.before)} earlier match(es) of this file, sent in order "
            "to one process: the implementation keeps state from one match to the next."
        )
    if not reproduced:
        notes.append("The difference did not show again on a fresh start of the implementation: it may be flaky.")
    return {
        "format": 1,
        "title": f"Found by vitou fuzz against {printable(command, 200)}",
        "description": " ".join(
            [
                "Generated by vitou fuzz: the expectations are the reference interpreter's answers, not a "
                "hand derivation.",
                *notes,
                "First difference: " + d.describe(),
            ]
        ),
        "cases": cases,
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
