"""Certification: every applicable case sent to an implementation, answers compared, outcomes kept."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._compare import Difference, compare, shape_problem
from ._connection import DEFAULT_MAX_LINE, Connection, Fault
from ._fixtures import Case, Suite
from ._schema import first_error

PASSED, FAILED, ERRORED, SKIPPED, XFAIL, XPASS = "passed", "failed", "errored", "skipped", "xfail", "xpass"
REFERENCE_COMMAND = [sys.executable, "-m", "vitou_ref.adapter"]
SMOKE_IDS = ("VT-0001", "VT-0002", "VT-0003")
STOP = b'{"cmd":"stop"}\n'


class HarnessError(Exception):
    """The harness cannot run at all (the implementation never answered start, ...)."""


@dataclass
class CaseResult:
    case: Case
    ruleset: str
    outcome: str
    reason: str | None = None
    difference: Difference | None = None
    seconds: float = 0.0
    known: str | None = None  # the reason given in --expect, if listed

    @property
    def bad(self) -> bool:
        return self.outcome in (FAILED, ERRORED, XPASS)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "case",
            "id": self.case.id,
            "title": self.case.title,
            "ruleset": self.ruleset,
            "outcome": self.outcome,
            "clauses": list(self.case.clauses),
            "group": self.case.group,
            "seconds": round(self.seconds, 6),
        }
        if self.reason:
            out["reason"] = self.reason
        if self.difference is not None:
            out["difference"] = self.difference.to_json()
        if self.known:
            out["known_failure"] = self.known
        return out


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


@dataclass
class Run:
    options: Options
    suite: Suite
    started: float
    implementation: dict[str, Any] | None = None
    offered: list[str] = field(default_factory=list)
    results: list[CaseResult] = field(default_factory=list)
    restarts: int = 0
    fatal: str | None = None  # why the run could not go on
    seconds: float = 0.0  # the whole run, process start included
    case_seconds: float = 0.0  # from the first request to the last answer

    def for_ruleset(self, ruleset: str) -> list[CaseResult]:
        return [r for r in self.results if r.ruleset == ruleset]


Listener = Callable[[str, Any], None]  # ("start", Run) / ("case", CaseResult) / ("end", Run)


def _noop(kind: str, payload: Any) -> None:
    return None


class Certifier:
    def __init__(
        self,
        suite: Suite,
        cases: Mapping[str, Sequence[Case]],
        options: Options,
        listener: Listener = _noop,
        started: Connection | None = None,
    ):
        self.suite = suite
        self.cases = cases  # ruleset -> cases, in order
        self.opt = options
        self.listen = listener
        self.conn: Connection | None = None
        self._started = started  # a process already started for the first connection
        self.seq = 0

    # ------------------------------------------------------------- process

    def _open(self, run: Run) -> None:
        conn, self._started = self._started, None
        if conn is None:
            conn = Connection(self.opt.argv, max_line=self.opt.max_line)
            conn.open()
        self.conn = conn
        try:
            raw = conn.exchange(b'{"cmd":"start","protocol":1}\n', self.opt.start_timeout)
        except Fault as exc:
            conn.kill()
            raise HarnessError(f"the implementation never answered start: {exc.message}") from None
        try:
            hello = json.loads(raw)
        except ValueError:
            conn.kill()
            raise HarnessError(f"the answer to start is not JSON: {raw[:200]!r}") from None
        problem = _start_problem(hello, self.opt.validate_protocol)
        if problem is not None:
            conn.kill()
            raise HarnessError(f"the answer to start is not usable: {problem}")
        run.implementation = hello["implementation"]
        run.offered = list(hello["rulesets"])

    def _restart(self, run: Run) -> bool:
        if self.conn is not None:
            self.conn.kill()
        if run.restarts >= self.opt.max_restarts:
            run.fatal = f"the implementation failed {run.restarts + 1} times; no more restarts"
            return False
        run.restarts += 1
        try:
            self._open(run)
        except (HarnessError, Fault) as exc:
            run.fatal = f"restart {run.restarts} failed: {exc}"
            return False
        return True

    # ------------------------------------------------------------- running

    def run(self) -> Run:
        run = Run(self.opt, self.suite, time.time())
        t0 = time.perf_counter()
        try:
            self._open(run)
        except Fault as exc:
            raise HarnessError(exc.message) from None
        self.listen("start", run)
        t_cases = time.perf_counter()
        try:
            for ruleset, cases in self.cases.items():
                for case in cases:
                    result = self._one(run, ruleset, case)
                    run.results.append(result)
                    self.listen("case", result)
            run.case_seconds = time.perf_counter() - t_cases
        finally:
            if self.conn is not None:
                self.conn.close(STOP)
            run.seconds = time.perf_counter() - t0
        self.listen("end", run)
        return run

    def _one(self, run: Run, ruleset: str, case: Case) -> CaseResult:
        known = self.opt.expect.get(case.id)
        if ruleset not in run.offered:
            return CaseResult(case, ruleset, SKIPPED, f"{ruleset} is not offered by the implementation")
        if run.fatal is not None or self.conn is None:
            return CaseResult(case, ruleset, ERRORED, f"not run: {run.fatal}", known=known)
        t0 = time.perf_counter()
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

    def _exchange(self, run: Run, ruleset: str, case: Case) -> CaseResult:
        conn = self.conn
        assert conn is not None
        if conn.pending_output():
            # Output nobody asked for: the last answer had an extra line.
            self._restart(run)
            return CaseResult(
                case, ruleset, ERRORED, "the implementation printed an extra line after the previous answer"
            )
        self.seq += 1
        seq = self.seq
        line = case.request_line(seq, ruleset)
        try:
            raw = conn.exchange(line, self.opt.timeout)
        except Fault as exc:
            self._restart(run)
            return CaseResult(case, ruleset, ERRORED, f"{exc.kind}: {exc.message}")
        try:
            response = json.loads(raw)
        except ValueError:
            self._restart(run)
            shown = raw[:120].decode("utf-8", errors="replace")
            return CaseResult(case, ruleset, ERRORED, f"invalid JSON in the answer: {shown!r}")
        expect = case.expectation(ruleset)
        if not isinstance(response, dict) or response.get("seq") != seq:
            got = response.get("seq") if isinstance(response, dict) else None
            self._restart(run)
            if isinstance(got, int) and not isinstance(got, bool) and 0 < got < seq:
                why = f"an extra line: this answer has seq {got}, a request already answered; the implementation printed more than one line for it"
            else:
                why = f"wrong seq: sent {seq}, the answer has {got!r}"
            return CaseResult(case, ruleset, ERRORED, why)
        if self.opt.validate_protocol:
            schema = "protocol/errored-response" if response.get("errored") is True else "protocol/run-response"
            broken = first_error(response, schema)
            if broken is not None:
                return CaseResult(case, ruleset, ERRORED, f"the answer breaks the protocol schema: {broken}")
        bad_shape = shape_problem(response, len(case.plain_actions), expect.errored)
        if bad_shape is not None:
            return CaseResult(case, ruleset, ERRORED, bad_shape)
        diff = compare(case, expect, response)
        if diff is not None:
            return CaseResult(case, ruleset, FAILED, diff.describe(), diff)
        return CaseResult(case, ruleset, PASSED)


def _start_problem(hello: Any, validate: bool) -> str | None:
    if not isinstance(hello, dict):
        return "not a JSON object"
    if validate:
        broken = first_error(hello, "protocol/start-response")
        if broken is not None:
            return broken
    if hello.get("protocol") != 1:
        return f"protocol {hello.get('protocol')!r}, not 1"
    if not isinstance(hello.get("rulesets"), list) or not all(isinstance(r, str) for r in hello["rulesets"]):
        return "'rulesets' is not a list of names"
    if not isinstance(hello.get("implementation"), dict):
        return "'implementation' is missing"
    return None
