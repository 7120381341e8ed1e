"""Differential fuzzing: random matches on the reference and on an implementation, compared answer by answer."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from typing import Any, NoReturn

from ..engine.tables import tables_for
from ..kit.judge import CODE, OUTCOME
from ..protocol.client import IDENTITY, PROTOCOL_MINOR, Client, Fault, offered_advice, offers_none
from ..protocol.limits import Limits
from ..rules.model import Ruleset
from .fuzzcases import Case, Divergence, FuzzResult, batches, compare, make_case, reference_answer, run_pinned, universe
from .fuzzfixture import fixture_for
from .fuzzshrink import earliest

MAX_KINDS = 10  # kinds of divergence a run reports at most: each costs a check on fresh starts (the run's bound)
MAX_SESSION = 2000  # earlier matches kept to replay a divergence that needs them
CHECK_STARTS = 2  # the check of a divergence on a fresh start: the case alone, then after its session

# How a divergence shows on a fresh start of the implementation (Fuzzer.reproduce).
ALONE = "alone"  # the case alone shows it
SESSION = "session"  # only after the earlier requests of the session, replayed in order
FLAKY = "flaky"  # neither: it did not show again
UNCHECKED = "unchecked"  # not checked: --max-seconds was reached first


class _Found(Exception):
    pass


class _Spent(Exception):
    """No more may be sent: the restart budget or the time is spent (``Fuzzer.spent`` says which)."""


class Fuzzer:
    """Sends drawn matches to an implementation in pipelined batches, judges its answers, shrinks a divergence.

    On a divergence, hypothesis shrinks the batch to one match and the
    fewest actions; then the case is cut to the hand where it diverges and
    stripped of every action it does not need (``_earliest``).
    """

    def __init__(
        self,
        rules: Ruleset,
        argv: list[str],
        *,
        timeout: float = 10.0,
        start_timeout: float = 30.0,
        illegal: int = 12,
        batch: int = 16,
        max_restarts: int = 3,
        progress: Callable[[int, int], None] | None = None,  # (matches tried, divergences found: 0 or 1)
        limits: Limits | None = None,  # None: the defaults
        level: str | None = None,  # code or outcome (the protocol's Levels); None: as the answer to start says
    ) -> None:
        self.asked_level = level
        self.level = level or CODE
        self.limits = limits if limits is not None else Limits()
        self.rules = rules
        self.t = tables_for(rules)
        self.illegal = illegal
        self.batch = batch
        self.progress = progress
        self.tries = universe(self.t)
        # One client for the run: its first handshake binds every restart, the check's fresh starts included.
        self.peer = Client(argv, timeout=timeout, start_timeout=start_timeout, limits=self.limits)
        self.client: Client | None = None  # the peer while its process runs
        self.changed: str | None = None  # how a restart changed the identity: a fault of the implementation
        self.minor = PROTOCOL_MINOR  # the peer's protocol 1.minor, from its answer to start
        self.session: list[Case] = []  # every case sent to the running process, in order
        self.matches = 0
        self.actions = 0  # over every match tried, for the report
        self.ended = 0  # matches played to their end
        self.restarts = 0
        self.budget = max_restarts  # restarts allowed: the search's and the shrinking's, then the check's own
        self.spent: str | None = None
        self.deadline: float | None = None  # from --max-seconds: nothing is sent after it, the check included
        self.known: set[str] = set()  # kinds of divergence found or listed: not found again (hunt/fuzzkinds.py)
        self.aside: dict[str, int] = {}  # the divergences of a known kind met while drawing, by kind
        self.target: str | None = None  # while a find is shrunk and checked: its kind, the only one that counts
        self.drawing = True  # hypothesis draws new matches (not replaying them to shrink)

    def _open(self) -> Client:
        if self.client is None:
            if self.changed is not None:
                self._stop(IDENTITY)  # nothing more is asked of it: what it would answer is not the run's engine
            if self.peer.hello is not None:  # it started before: this start is a restart
                if self.restarts >= self.budget:
                    self._stop("restarts")
                self.restarts += 1
            self._check_time()
            try:
                hello = self.peer.start()  # Fault, with the process ended, when it cannot be used
            except Fault as exc:
                if exc.kind != IDENTITY:
                    raise
                self.changed = f"at restart {self.restarts}, {exc.message}"
                self._stop(IDENTITY)
            problem = offers_none([self.rules.name], hello.rulesets)
            if problem is not None:
                self.peer.kill()
                raise Fault("ruleset", problem + offered_advice(hello.rulesets, "--ruleset"))
            self.client = self.peer
            # The first handshake's at every start; the user's word wins over it, as in certify.
            self.minor, self.level = hello.minor, self.asked_level or (CODE if hello.codes else OUTCOME)
            self.session = []
        return self.client

    def _stop(self, why: str) -> NoReturn:
        self.spent = self.spent or why
        raise _Spent

    def _check_time(self) -> None:
        if self.out_of_time():
            self._stop("time")

    def _receive(self, client: Client, seqs: list[int], answers: list[Any]) -> None:
        """The answers to ``seqs``, in order, onto ``answers`` (so that those before a fault stand); at the
        deadline the rest is not waited for, and the process is dropped."""
        for q in seqs:
            if self.out_of_time():
                self.fresh()  # answers left unread: the stream is out of step
                self._stop("time")
            answers.append(client.receive(q))

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None
        self.peer.kill()

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
        """The answers to a batch of cases, pipelined; a fault is the answer to the request it hit and those after.

        Raises _Spent when nothing more may be sent.
        """
        answers: list[Any] = []
        try:
            client = self._open()
            seqs = [self._send(client, c) for c in cases]
            self._receive(client, seqs, answers)
        except Fault as exc:
            answers += [self._lost(exc)] * (len(cases) - len(answers))
        return answers

    def _lost(self, exc: Fault) -> Fault:
        """The connection broke: it is dropped (the next batch restarts it, within the budget), and why is the answer."""
        self.fresh()
        return Fault("fault", f"{exc.kind}: {exc.message}")

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.perf_counter() > self.deadline

    def check(self, drawn: list[tuple[int, int, int]]) -> Divergence | None:
        if self.spent is not None or self.out_of_time():
            return None  # hypothesis keeps the smallest failure found so far and stops shrinking
        # Each request leaves as soon as its case is built: the implementation
        # answers one case while the next is drawn and played here.
        built = []
        answers: list[Any] = []
        try:
            client = self._open()
            seqs = []
            for s, st, n in drawn:
                case, ref = make_case(self.t, s, st, n, self.illegal, self.tries)
                built.append((case, ref))
                seqs.append(self._send(client, case))
            self._receive(client, seqs, answers)
        except _Spent:
            built = built[: len(answers)]  # what was answered before the time was up is judged
        except Fault as exc:
            # The answers before the fault stand; the fault is the answer to the request it hit.
            lost = self._lost(exc)
            while len(built) < len(drawn):
                s, st, n = drawn[len(built)]
                built.append(make_case(self.t, s, st, n, self.illegal, self.tries))
            answers += [lost] * (len(drawn) - len(answers))
        self.matches += len(built)
        for case, ref in built:
            self.actions += len(case.actions)
            self.ended += ref["final"]["winner"] is not None
        for (case, ref), got in zip(built, answers):
            d = self.judge(case, ref, got)
            if d is not None and d.kind in self.known:  # found before, or listed by --expect: counted, set aside
                if self.drawing:
                    self.aside[d.kind] = self.aside.get(d.kind, 0) + 1
            elif d is not None:
                return d
        return None

    def judge(self, case: Case, ref: dict[str, Any], got: Any) -> Divergence | None:
        if isinstance(got, Fault):
            d: Divergence | None = Divergence(case, "fault", "an answer", got.message, ref)
        else:
            got_body = {k: v for k, v in got.items() if k != "seq"} if isinstance(got, dict) else got
            d = compare(case, ref, got_body, self.minor, self.level)
        if d is not None:
            d.before = self._before(case)
        return d

    def _before(self, case: Case) -> list[Case]:
        """The cases this process was sent before ``case`` (the most recent ones, when there were very many)."""
        for i in range(len(self.session) - 1, -1, -1):
            if self.session[i] is case:
                return self.session[max(0, i - MAX_SESSION) : i]
        return []

    def diverges(self, case: Case) -> Divergence | None:
        """Whether one concrete case still shows a divergence (used while shrinking, within the budget and time)."""
        try:
            (got,) = self.ask([case])
        except _Spent:
            return None
        d = self.judge(case, reference_answer(self.t, case), got)
        if d is None or self.target is not None:
            return d if d is None or d.kind == self.target else None
        return None if d.kind in self.known else d

    def reproduce(self, d: Divergence) -> tuple[str, Divergence]:
        """How the divergence shows on a fresh start of the implementation (ALONE, SESSION, FLAKY or
        UNCHECKED), and the divergence to report.

        The case is sent alone first. An implementation that keeps state
        across matches may diverge only after earlier ones: then the whole
        session that led to it (``d.before``) is replayed, in order, then the
        case, and the divergence returned keeps the session. The check has
        CHECK_STARTS starts of its own, whatever the search spent; it stops
        at the deadline like the rest of the run.
        """
        self.budget = self.restarts + CHECK_STARTS
        self.spent = None  # the search's reason to stop is in its result; the check has its own starts
        self.fresh()
        again = self.diverges(d.case)
        if again is not None:
            again.before = []
            return ALONE, again
        if self.spent is not None:
            return UNCHECKED, d
        if not d.before:
            return FLAKY, d
        self.fresh()
        try:
            for i in range(0, len(d.before), self.batch):
                self.ask(d.before[i : i + self.batch])
        except _Spent:
            return UNCHECKED, d
        again = self.diverges(d.case)
        if again is not None:
            again.before = list(d.before)
            return SESSION, again
        return (UNCHECKED if self.spent is not None else FLAKY), d

    def run(
        self, examples: int, seed: int, max_seconds: float | None, *, every: bool = False, known: Iterable[str] = ()
    ) -> FuzzResult:
        """Draw matches until ``examples`` are tried; shrink the first divergence, or with ``every`` each divergence
        of a kind not found before (hunt/fuzzkinds.py), and go on. Kinds in ``known`` are counted, set aside."""
        start = time.perf_counter()
        self.deadline = None if max_seconds is None else start + max_seconds
        self.known, self.aside = set(known), {}
        self._open()  # a program that cannot start is reported as such, before any example is drawn
        finds: list[Divergence] = []
        played: set[tuple[int, int, int]] = set()  # the draws sent so far: the same draw is the same match
        chunk = 0
        while self.matches < examples and self.spent is None and not self.out_of_time():
            d, chunk = self._search(examples, seed, chunk, played, len(finds))
            if d is None:
                break
            self.target = d.kind  # the shrinking keeps to this kind: another bug is another find
            try:
                d = earliest(d, self.diverges, self.t)
            finally:
                self.target = None
            finds.append(d)
            self.known.add(d.kind)
            if not every or len(finds) >= MAX_KINDS:
                self.spent = self.spent or (None if not every else "kinds")
                break
        seconds = time.perf_counter() - start
        spent = self.spent or ("time" if self.out_of_time() and self.matches < examples else None)
        return FuzzResult(
            self.matches, seconds, finds, self.restarts, chunk, self.actions, self.ended, spent, dict(self.aside)
        )

    def _search(
        self, examples: int, seed: int, chunk: int, played: set[tuple[int, int, int]], finds: int
    ) -> tuple[Divergence | None, int]:
        """Hypothesis's search for one divergence of a new kind, and its shrinking; and the next chunk's number."""
        from hypothesis import HealthCheck, Phase, given, settings
        from hypothesis import seed as hseed

        found: list[Divergence] = []
        while self.matches < examples and self.spent is None and not self.out_of_time():
            # Hypothesis tries its simplest example first (one match of no action) in every
            # chunk, reseeded as each is: a chunk must have room for the matches left even
            # at one match an example, or a short run is nothing but those.
            want = min(50, examples - self.matches + 1)

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
                self.drawing = not found
                if not found:  # drawing, not shrinking (which replays whole draws): each match once, to the count
                    # Hypothesis draws many all-zero batches early on: one match, repeated.
                    drawn = [d for d in dict.fromkeys(drawn) if d not in played][: examples - self.matches]
                    if not drawn:
                        return
                    played.update(drawn)
                d = self.check(drawn)
                if d is not None:
                    found.append(d)  # the last one found is the smallest, once shrinking ends
                if self.progress is not None:
                    self.progress(self.matches, finds + min(len(found), 1))
                if d is not None:
                    raise _Found

            before = self.matches
            try:
                run_pinned(prop)
            except _Found:
                return found[-1], chunk + 1
            except Fault:
                raise  # the implementation cannot even be started again: nothing to compare
            except Exception as exc:
                if not found:
                    raise RuntimeError(f"fuzzing stopped: {type(exc).__name__}: {exc}") from exc
                return found[-1], chunk + 1
            chunk += 1
            if self.matches == before:
                break  # a chunk with nothing new to send: another would draw the same
        return (found[-1] if found else None), chunk


# fixture_for lives with the fixture code; the fuzz command imports it from here.
__all__ = ["ALONE", "FLAKY", "MAX_KINDS", "MAX_SESSION", "SESSION", "UNCHECKED", "FuzzResult", "Fuzzer", "fixture_for"]
