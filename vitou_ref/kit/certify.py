"""Certification: every applicable case sent to an implementation, answers compared, outcomes kept."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..present import escape
from ..protocol.client import IDENTITY, PROTOCOL_MINOR, Client, Fault, offers_none
from ..protocol.connection import DEFAULT_MAX_LINE, Connection
from ..protocol.limits import Limits
from ..rules.plurals import counted
from .caseresult import ENVELOPE, ERRORED, FAILED, PASSED, SKIPPED, XFAIL, XPASS, CaseResult, fault_class
from .envelope import NONE, EnvelopeCase, Line, by_ruleset, judge_answer, judge_exit, judge_sentinel, sentinel
from .fixtures import Case
from .judge import CODE, OUTCOME, compare, differences, shape_problem
from .legalsets import judged
from .refusals import Refusals, count
from .suite import Suite

if TYPE_CHECKING:
    from ..rules.model import Ruleset

REFERENCE_COMMAND = [sys.executable, "-m", "vitou_ref.adapter"]
SMOKE_IDS = ("VT-0001", "VT-0002", "VT-0003")


class HarnessError(Exception):
    """The harness cannot run at all (the implementation never answered start, ...)."""

    def __init__(self, message: str, kind: str = "") -> None:
        super().__init__(message)
        self.kind = kind  # the Fault's kind when a start failed (IDENTITY: it answered as another implementation)


@dataclass
class Options:
    argv: list[str]
    label: str
    rulesets: list[str]
    only: list[str] = field(default_factory=list)
    expect: Mapping[str, str] = field(default_factory=dict)
    timeout: float = 10.0
    start_timeout: float = 30.0
    max_restarts: int = 3
    max_line: int = DEFAULT_MAX_LINE
    validate_protocol: bool = False
    # With validate_protocol: the cards of each ruleset's pack (pack_of), the only cards an answer about it
    # may name; a ruleset not listed is held to the protocol's cards, any of the French pack.
    packs: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    smoke: bool = False  # a smoke test (--smoke): its verdicts are not a certification
    limits: Limits = field(default_factory=Limits)  # what each process of the implementation may use
    level: str | None = None  # code or outcome (--level); None: as the handshake says (error_codes)
    rules: Mapping[str, Ruleset | None] = field(default_factory=dict)  # the run's: the reference's legal sets


@dataclass
class Run:
    options: Options
    suite: Suite
    started: float
    implementation: dict[str, Any] | None = None
    protocol_minor: int = PROTOCOL_MINOR  # the peer speaks protocol 1.minor, as its answer to start says
    level: str = CODE  # the level certified: the user's --level, else the handshake's word, else code
    offered: list[str] = field(default_factory=list)
    results: list[CaseResult] = field(default_factory=list)
    restarts: int = 0
    fatal: str | None = None  # why the run could not go on
    seconds: float = 0.0  # the whole run, process start included
    case_seconds: float = 0.0  # from the first request to the last answer
    planned: dict[str, Any] = field(default_factory=dict)  # the ids to be run, per ruleset and envelope: the header's
    refusals: dict[str, Refusals] = field(default_factory=dict)  # per ruleset: who decided them, as the answers say

    def plan(self) -> dict[str, Any]:
        """What the run is to send, as the report's header declares it: each ruleset's case ids, rules and envelope."""
        return {"rules": self.planned.get("rules", {}), "envelope": self.planned.get("envelope", {})}

    def for_ruleset(self, ruleset: str) -> list[CaseResult]:
        return [r for r in self.results if r.ruleset == ruleset and r.section != ENVELOPE]

    def envelope(self) -> list[CaseResult]:
        return [r for r in self.results if r.section == ENVELOPE]


Listener = Callable[[str, Any], None]  # ("start", Run) / ("case", CaseResult) / ("end", Run)


def pack_of(rules: Ruleset) -> tuple[str, ...]:
    """The cards of a ruleset's pack, as written: the only cards an answer about it may name."""
    from ..engine.tables import tables_for

    t = tables_for(rules)
    return tuple(t.card(c).text for c in t.deck)


class Certifier:
    """Sends cases to one implementation and judges the answers; restarts it, within a budget, when it fails."""

    def __init__(
        self,
        suite: Suite,
        cases: Mapping[str, Sequence[Case]],
        options: Options,
        listener: Listener = lambda kind, payload: None,
        started: Connection | None = None,
        envelope: Sequence[tuple[EnvelopeCase, str]] = (),
    ):
        self.suite = suite
        self.cases = cases  # ruleset -> cases, in order
        self.envelope = envelope  # (case, the ruleset its lines name), run after every rules case
        self.opt = options
        self.listen = listener
        # One client for the run: its first handshake binds every later start, restarts and starts after a stop.
        self.peer = Client(
            options.argv, timeout=options.timeout, start_timeout=options.start_timeout, max_line=options.max_line,
            validate=options.validate_protocol, connection=started, limits=options.limits,
        )  # fmt: skip
        self.client: Client | None = None  # the peer while its process runs
        self._stopped = False  # a case ended the process with stop: a case after it starts a new one

    # ------------------------------------------------------------- process

    def open(self, run: Run) -> None:
        """Start the implementation and shake hands; HarnessError (nothing left running) when that fails.

        The run's implementation, minor, level and offer are the first handshake's, which ``Client.start``
        returns at every start: a later one that differs fails with kind IDENTITY.
        """
        try:
            hello = self.peer.start()
        except Fault as exc:
            raise HarnessError(exc.message, exc.kind) from None
        problem = offers_none(self.opt.rulesets, hello.rulesets)
        if problem is not None:
            self.peer.kill()  # nothing it could be asked: the run cannot be made, whatever its answers would be
            raise HarnessError(problem)
        self.client = self.peer
        run.implementation = hello.implementation
        run.protocol_minor = hello.minor
        # The user's word wins over the handshake's: --level code holds an engine to the codes it disowns.
        run.level = self.opt.level or (CODE if hello.codes else OUTCOME)
        run.offered = list(hello.rulesets)

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None
        self.peer.kill()  # a process started for the run and never shaken hands with, if any

    def _drop(self) -> None:
        """The process failed on a case: it is ended, and the next case that needs it starts it again."""
        if self.client is not None:
            self.client.kill()
            self.client = None

    def _reopen(self, run: Run) -> str | None:
        """Before a case: start the process again if a failure or a stop ended it, within the restart budget.

        Restarts are made when a case needs one, never after the last: so a start whose answer changed the
        identity always has a case to carry it, in the report and in the verdict. Returns that change, or None.
        """
        if run.fatal is not None or self.client is not None:
            return None
        if self._stopped:
            self._stopped = False  # not a restart: the process did what stop asks
            what = "the start after stop"
        elif run.restarts >= self.opt.max_restarts:
            run.fatal = f"the implementation failed {counted(run.restarts + 1, 'time', 'times')}; no more restarts"
            return None
        else:
            run.restarts += 1
            what = f"restart {run.restarts}"
        try:
            self.open(run)
        except HarnessError as exc:
            run.fatal = f"{what} failed: {exc}"
            return f"at {what}, {exc}" if exc.kind == IDENTITY else None
        return None

    # ------------------------------------------------------------- running

    def run(self) -> Run:
        planned = {"rules": {n: [c.id for c in cs] for n, cs in self.cases.items()}}
        run = Run(self.opt, self.suite, time.time(), planned={**planned, "envelope": by_ruleset(self.envelope)})
        t0 = time.perf_counter()
        try:
            self.open(run)
            self.listen("start", run)
            t_cases = time.perf_counter()
            for ruleset, cases in self.cases.items():
                for case in cases:
                    result = self.one(run, ruleset, case)
                    run.results.append(result)
                    self.listen("case", result)
            # Last, so that an implementation an envelope line brings down has answered every rules case first.
            for ecase, ruleset in self.envelope:
                result = self.one(run, ruleset, ecase)
                run.results.append(result)
                self.listen("case", result)
            run.case_seconds = time.perf_counter() - t_cases
        finally:
            self.close()  # on every path, Ctrl-C and harness errors included
            run.seconds = time.perf_counter() - t0
        self.listen("end", run)
        return run

    def one(self, run: Run, ruleset: str, case: Case | EnvelopeCase) -> CaseResult:
        """One case sent and judged, known failures applied."""
        known = self.opt.expect.get(case.id)
        if ruleset not in run.offered:
            return CaseResult(case, ruleset, SKIPPED, f"{ruleset} is not offered by the implementation")
        filled = case.under(ruleset, self.opt.rules.get(ruleset)) if isinstance(case, EnvelopeCase) else case
        if isinstance(filled, str):  # an envelope case that cannot apply under this ruleset, and says why
            return CaseResult(case, ruleset, SKIPPED, filled, known=known)
        case = filled  # an envelope case's lines as sent under this ruleset
        changed = self._reopen(run)
        if changed is not None:
            # Never a known failure: a run whose implementation changed is no run of one implementation.
            return CaseResult(case, ruleset, ERRORED, changed, fault=IDENTITY)
        if run.fatal is not None or self.client is None:
            return CaseResult(case, ruleset, ERRORED, f"not run: {run.fatal}", known=known)
        t0 = time.perf_counter()
        if isinstance(case, EnvelopeCase):
            result = self._envelope(run, ruleset, case)
        else:
            result = self._exchange(run, ruleset, case)
        result.seconds = time.perf_counter() - t0
        result.known = known
        if known is not None:
            if result.outcome == PASSED:
                result.outcome = XPASS
                result.reason = f"listed as a known failure ({known}) but passed: remove it from the list"
            elif result.outcome in (FAILED, ERRORED):
                result.reason = f"known failure ({known}): {result.reason}"
                result.outcome = XFAIL
        return result

    def _envelope(self, run: Run, ruleset: str, case: EnvelopeCase) -> CaseResult:
        """Each line sent and its answer read (none for a line that gets none), then the sentinel's."""
        client = self.client
        assert client is not None
        problem = None
        try:
            if client.pending_output():
                raise Fault("extra_line", "the implementation printed an extra line after the previous answer")
            for i, line in enumerate(case.lines):
                client.send(line.to_bytes(ruleset))
                if line.exit_status is not None:  # stop, the case's last line: no answer, no sentinel
                    problem = problem or self._judge_stop(client, i, line)
                    break
                if line.answer != NONE:
                    problem = problem or judge_answer(line, client.receive_raw(), i, codes=run.level == CODE)
            else:
                seq = client.next_seq()
                client.send(sentinel(seq))
                last = judge_sentinel(client.receive_raw(), seq)
                if last is not None and not self._resync(client, seq, len(case.lines) + 1):
                    self._drop()  # more answers than lines, and not the sentinel's among them: out of step
                problem = problem or last
        except Fault as exc:
            self._drop()
            return CaseResult(case, ruleset, ERRORED, f"{exc.kind}: {exc.message}", fault=fault_class(exc.kind))
        if problem is not None:
            return CaseResult(case, ruleset, FAILED, problem)
        return CaseResult(case, ruleset, PASSED)

    def _judge_stop(self, client: Client, index: int, line: Line) -> str | None:
        """After a stop line: the process must exit with status 0, printing nothing, within the request deadline.

        docs/reference/protocol.md: "at stop, the process exits with status 0". Every request has its deadline, and this
        one's is --timeout, as any other's. Whatever it did, it is ended, children and all, and is not restarted
        for it: a case after this one starts it anew.
        """
        conn = client.conn
        assert conn is not None
        status = conn.wait_exit(client.timeout)
        printed = conn.take_output()
        client.kill()
        self.client = None
        self._stopped = True
        return judge_exit(index, status, printed, client.timeout, line)

    @staticmethod
    def _resync(client: Client, seq: int, most: int) -> bool:
        """Read on to the sentinel's answer after extra answers, so that the next case starts in step."""
        return any(judge_sentinel(client.receive_raw(), seq) is None for _ in range(most))

    def _exchange(self, run: Run, ruleset: str, case: Case) -> CaseResult:
        client = self.client
        assert client is not None
        seq = client.next_seq()
        try:
            response = client.exchange(case.request_line(seq, ruleset), seq)
        except Fault as exc:
            self._drop()  # the stream is out of step or gone: only a fresh start can be trusted
            return CaseResult(case, ruleset, ERRORED, f"{exc.kind}: {exc.message}", fault=fault_class(exc.kind))
        expect = judged(case, ruleset, self.opt.rules.get(ruleset))
        if self.opt.validate_protocol:
            from ..rules.schema import first_error  # jsonschema is imported only when answers are validated

            schema = "protocol/errored-response" if response.get("errored") is True else "protocol/run-response"
            # At the outcome level a refusal's error is not judged, so the schema does not require a code there.
            broken = first_error(response, schema, self.opt.packs.get(ruleset), codes=run.level == CODE)
            if broken is not None:
                why = f"the answer breaks the protocol schema: {escape.text(broken, 300)}"
                return CaseResult(case, ruleset, ERRORED, why, fault="schema")
        bad_shape = shape_problem(response, len(case.plain_actions), expect.errored)
        if bad_shape is not None:
            return CaseResult(case, ruleset, ERRORED, bad_shape, fault="shape")
        count(run.refusals, ruleset, response)  # counted, never judged: the verdict is the comparison's alone
        diff = compare(case, expect, response, run.protocol_minor)
        if diff is None:
            return CaseResult(case, ruleset, PASSED)
        # One exchange judges both levels: whether only the error codes differ is known at either.
        lenient = compare(case, expect, response, run.protocol_minor, OUTCOME)
        if lenient is None and run.level == OUTCOME:
            return CaseResult(case, ruleset, PASSED, f"at the code level: {diff.describe()}", codes_only=True)
        # Every place it differs, not the first alone: a bug that shows first must not hide the bugs after it.
        first, *more = differences(case, expect, response, run.protocol_minor, run.level)
        return CaseResult(case, ruleset, FAILED, first.describe(), first, more=tuple(more), codes_only=lenient is None)
