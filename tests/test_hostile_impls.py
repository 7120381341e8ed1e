"""The harness against a hostile implementation: every mode of fakes/hostile_impl.py through every runner.

Each row of EXPECTED is one way an implementation can attack the harness, and the
exit status each runner must give for it:

* ``certify``: ``vitou certify --impl CMD --suite SUITE --timeout T --start-timeout S
  --max-restarts R``, SUITE a directory holding tests/data/small_suite.yaml and the stop case
  tests/data/stop_envelope.yaml: 0 CONFORMANT (right answers, however they are
  written, however slowly within the deadlines, whatever the process does on the side),
  1 NOT CONFORMANT (a wrong answer, a wrong type, a broken line, a crash or a timeout on
  some case, restarts or not), 2 the harness could not run at all (never a usable answer
  to start).
* ``fuzz``: ``vitou fuzz --impl CMD --examples 40 --timeout T --start-timeout S
  --max-seconds 30 --max-restarts R --save DIR``: 0 no divergence, 1 a divergence, 2 unusable at start.
* ``plugin``: ``python -m pytest -p vitou_ref.pytest_plugin --vitou-impl CMD --vitou-suite
  SUITE --vitou-timeout T``, in an empty directory of its own: 0 every case
  passed, 1 some failed, 4 (usage error) unusable at start.

Whatever the mode, every run must also:

* never exit 3 (an internal error of vitou, pytest's INTERNALERROR), nor print a Python
  traceback or INTERNALERROR;
* end within a bound worked out from its deadlines (see BOUNDS);
* leave no process behind. Each run gets a token of its own in VITOU_HOSTILE_TOKEN,
  inherited by the implementation and everything it starts (the one mode that clears its
  environment carries the token in its argv). After the run, /proc is searched for the
  token in every process's environ and cmdline; after REAP seconds, any process still
  holding it is a survivor: the row fails, and the survivor is killed (by pid) so that
  it does not disturb the rows after it.

The runs are independent (each has its own token, directory and implementation), so
they run JOBS at a time in threads: the first test starts every run the session
selected, and each test then waits for its own. ``VITOU_HOSTILE_JOBS=1`` runs them one
after the other; ``VITOU_HOSTILE_LOG=FILE`` appends one JSON line per run (mode,
runner, expected, status, seconds, bound, survivors, traceback) to FILE, to print the
whole table.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pytest
from chains import TRACE_VAR, chain_alive, end_chain

import vitou_ref

HERE = Path(__file__).resolve().parent
HOSTILE = HERE / "fakes" / "hostile_impl.py"
SMALL = HERE / "data" / "small_suite.yaml"  # VT-0001..VT-0004; VT-0004 expects an errored request
STOP_CASE = HERE / "data" / "stop_envelope.yaml"  # VE-0025: stop, then the exit with status 0
PACKAGE_ROOT = str(Path(vitou_ref.__file__).resolve().parent.parent)  # the runs use the vitou_ref these tests import
TOKEN_VAR = "VITOU_HOSTILE_TOKEN"

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/environ").exists() or not hasattr(os, "fork"),
    reason="needs Linux: /proc to find survivors, fork for the hostile modes",
)

# ------------------------------------------------------------------ options and bounds

T = 2.0  # --timeout, --vitou-timeout: the deadline of one request
S = 4.0  # --start-timeout: the deadline of the answer to start (T < S, with room for slow_start between them)
R = 1  # --max-restarts
CASES = 5  # in the small suite and the stop case beside it (the stop waits at most T for the exit)
EXAMPLES = 40  # fuzz --examples
FUZZ_MAX = 30.0  # fuzz --max-seconds
PLUGIN_S = 30.0  # the plugin has no start-timeout option: its start deadline is the default, 30 s
GRACE = 3.0  # after stop: a process that does not exit is terminated, then killed, within this
SLACK = 12.0  # interpreter starts (the runner's, the implementation's at each start) on a busy 2-core machine
REAP = 1.5  # after the runner exits, how long its last processes may take to go
JOBS = int(os.environ.get("VITOU_HOSTILE_JOBS", str(min(6, 2 * (os.cpu_count() or 1)))))  # most runs mostly wait

# The longest a run may take. Every request has its deadline T and every start its
# deadline S, so the slowest run that still obeys them is: every case waits its whole
# deadline (a slow implementation may take up to T per case, a hung one takes exactly T),
# every start waits its whole deadline, the stop waits its grace, plus the slack.
BOUNDS = {
    # CASES x T + (1 + R) x S + GRACE + SLACK = 10 + 8 + 3 + 12 = 33 s: at most 1 + R starts
    # (after R restarts the remaining cases are not run).
    "certify": CASES * T + (1 + R) * S + GRACE + SLACK,
    # min(FUZZ_MAX + max(T, S), (R + 3) x (S + T)) + GRACE + SLACK = min(34, 24) + 3 + 12 = 39 s
    # (docs/explanation/verdict.md): at most 1 + R starts while searching and shrinking and
    # 2 to check a divergence, each with at most one request waited out; --max-seconds bounds the
    # whole run, the check included, with one request or one start in flight when the time is up.
    "fuzz": min(FUZZ_MAX + max(T, S), (R + 3) * (S + T)) + GRACE + SLACK,
    # CASES x T + PLUGIN_S + GRACE + SLACK = 10 + 30 + 3 + 12 = 55 s: one slow start at most
    # (no mode here hangs at a restart's start).
    "plugin": CASES * T + PLUGIN_S + GRACE + SLACK,
}
# The modes whose runs wait out a deadline or a grace: started first (only an ordering, for speed).
WAITING = frozenset(
    {"hang_start", "hang_at", "partial_hang", "slow_over", "slow_ok", "slow_start", "close_stdout"}
    | {"hang_on_stop", "ignore_sigterm", "close_stdout_at_start", "serve_after_stop"}
    | {"slow_start_hang", "traceback_hang"}
)
HARD_LIMIT = 120.0  # a runner is interrupted 30 s past its bound, 120 s at most, and the row fails

# ------------------------------------------------------------------ the expected outcomes

OK = {"certify": 0, "fuzz": 0, "plugin": 0}
WRONG = {"certify": 1, "fuzz": 1, "plugin": 1}
UNUSABLE = {"certify": 2, "fuzz": 2, "plugin": 4}
STOP = {"certify": 1, "fuzz": 0, "plugin": 1}  # right answers, a wrong end at stop: only the stop case fails

EXPECTED: dict[str, dict[str, int]] = {
    # ---- right answers: conformant, whatever else the implementation does
    "good": OK,  # the baseline: the reference's own answers
    "keys_reordered": OK,  # JSON objects are unordered (RFC 8259 4); the handshake's keys too
    "legal_reversed": OK,  # protocol.md: a legal set "is compared as a set"
    "crlf": OK,  # protocol.md says JSON Lines; JSON Lines allows \r\n (\r is JSON whitespace)
    "spaces": OK,  # whitespace around tokens is JSON (RFC 8259 2); still one line per answer
    "unicode_escapes": OK,  # "\u0041\u0053" is the string "AS": the same JSON value
    "extra_fields": OK,  # protocol.md: "Fields may be added to messages"; an unknown field is ignored
    "stderr_flood": OK,  # protocol.md: "stderr is free-form"; the harness drains it and stays bounded
    "slow_ok": OK,  # 0.5 x T per answer is within the deadline
    "slow_start": OK,  # answers start after (T + S) / 2 > T: the start has its own deadline, --start-timeout
    "fork_child": OK,  # right answers; the child holding the pipes must not outlive the run
    "setpgid_escape": OK,  # right answers; a child in its own process group must not outlive the run
    "setsid_escape": OK,  # right answers; a grandchild in its own session must not outlive the run
    "env_escape": OK,  # right answers; a daemon with an empty environment must not outlive the run
    # protocol.md: "at stop, the process exits with status 0". certify and the plugin run the stop case
    # (VE-0025) last, and wait for the exit as for any answer (T); fuzz judges no stop: it hunts the rules.
    # Whatever the process does at stop, it is ended, and nothing it started outlives the run.
    "hang_on_stop": STOP,  # still running T after stop: killed, and the stop case fails
    "ignore_sigterm": STOP,  # the same, and SIGTERM is not enough: the harness must SIGKILL
    "serve_after_stop": STOP,  # ignores stop and serves on: still running after T, the stop case fails
    "exit_1_at_stop": STOP,  # an exit status other than 0 at stop
    "exit_255_at_stop": STOP,  # the same with 255 (exit(-1) in C)
    "handoff": OK,  # the answers on the pipe are right, whichever process wrote them (a launcher)
    # ---- wrong answers, wrong types, broken lines: not conformant
    "bools": WRONG,  # true is not 1 and false is not 0 (scores, trick numbers, points)
    "seq_true": WRONG,  # seq is an integer; true == 1 only in Python
    "seq_float": WRONG,  # 1.0 is not the integer 1
    "seq_string": WRONG,  # "1" is not 1
    "seq_off_by_one": WRONG,  # the answer is not to this request (the plugin must check seq too)
    "seq_null": WRONG,  # null is for a request whose seq could not be read
    "nested_answer": WRONG,  # not an answer, and no RecursionError may escape the parser
    "answer_list": WRONG,  # an answer is an object
    "answer_number": WRONG,  # an answer is an object
    "answer_null": WRONG,  # an answer is an object
    "answer_string": WRONG,  # a string holding the answer's text is not the answer
    "doubled": WRONG,  # exactly one line per request: the second line is an extra line
    "handshake_twice": WRONG,  # the second handshake is read where an answer to run belongs
    "partial_exit": WRONG,  # a crash in the middle of an answer, restarts or not
    "partial_hang": WRONG,  # half a line, then a timeout
    "bad_utf8": WRONG,  # protocol.md: UTF-8 JSON Lines; invalid bytes are a broken line, even in an extra field
    "raw_control": WRONG,  # a raw control character in a string is not JSON (RFC 8259 7)
    "bom": WRONG,  # RFC 8259 8.1: no BOM on a networked JSON text; the strict client refuses the line
    "blank_line": WRONG,  # exactly one response line per request: the empty line is that line
    "trailing_garbage": WRONG,  # one JSON value per line, nothing after it
    "dup_keys": WRONG,  # a value that depends on which duplicate the parser keeps is no answer
    "slow_over": WRONG,  # 1.5 x T: over the deadline
    "hang_at": WRONG,  # a timeout on a case, restarts or not
    "exit_after_start": WRONG,  # a valid handshake, then a crash on every case: not "could not run"
    "close_stdout": WRONG,  # the same: a valid handshake, then no answer ever
    "trick_float": WRONG,  # a trick number is an integer; 1.0 is not 1
    "steps_lists": WRONG,  # a step is an object
    "huge_line": WRONG,  # 20 MB is over the harness's line limit, however right the answer inside
    "winner_false": WRONG,  # false is not null
    "huge_int": WRONG,  # a 5,000-digit score is a wrong score, not a crash (Python refuses > 4,300 digits)
    "nan": WRONG,  # NaN is not JSON
    "overflow_number": WRONG,  # 1e999 is not a score (and not a finite number)
    "missing_final": WRONG,  # final is required
    "errored_all": WRONG,  # VT-0004 expects errored and passes; the other cases do not
    "stale": WRONG,  # the answer to another request, under this request's seq
    "phantom_ruleset": WRONG,  # announced vitou/1.0.0 but answers "unknown ruleset": every case errored
    # ---- round two: reports. An identity is the implementation's words: they change no verdict (and vitou
    # report keys results by report, never by those words: tests/test_report.py runs these two beside the reference)
    "forge_label": WRONG,  # the version forges the reference run's label; VT-0002 errored (VT-0004 expects it)
    "mimic_reference": WRONG,  # the reference's name, version and language; VT-0003 errored
    # ---- never a usable answer to start: the harness could not run
    "hang_start": UNUSABLE,  # start timeout
    "exit_at_start": UNUSABLE,  # nothing answered
    "close_stdout_at_start": UNUSABLE,  # end of output before the handshake, the process still running
    "garbage_before_start": UNUSABLE,  # the first line after start is the answer to start, and it is garbage
    "protocol_true": UNUSABLE,  # true is not 1
    "protocol_string": UNUSABLE,  # "1" is not 1
    "protocol_float": UNUSABLE,  # 1.0 is not 1
    "protocol_2": UNUSABLE,  # not protocol 1
    "rulesets_string": UNUSABLE,  # a string is not a list of names (and "vitou" in "vitou/1.0.0" is no test)
    "rulesets_null": UNUSABLE,  # null is not a list
    "no_implementation": UNUSABLE,  # 'implementation' is required (schema/protocol/start-response)
    "handshake_list": UNUSABLE,  # an answer is an object
    "nested_handshake": UNUSABLE,  # not an object, and no RecursionError may escape the parser
    "handshake_errored": UNUSABLE,  # an errored answer is not a handshake
    "bom_handshake": UNUSABLE,  # as bom: the strict client refuses the line
    "bad_utf8_handshake": UNUSABLE,  # as bad_utf8
    # ---- round two: the comparison. Clarification 27 and protocol.md: messages are open, a receiver
    # ignores a field it does not know, in every object of an answer; actions are closed.
    "extra_trick_field": OK,  # an extra field in a trick event
    "extra_hand_field": OK,  # ... in a hand event, its value nested objects and arrays
    "extra_match_field": OK,  # ... in a match event (fuzz plays matches to their end; the small suite has none)
    "extra_final_field": OK,  # ... in final
    "extra_score_field": OK,  # ... in a score (final's and a hand event's), a whole number as the schema asks
    "extra_step_field": OK,  # ... in an accepted step
    "extra_rejected_field": OK,  # ... in a rejected step, the error object
    "extra_errored_field": OK,  # ... in an errored answer (VT-0004), even named code and steps
    "extra_handshake_nested": OK,  # ... in the handshake and its implementation object, nested
    "extra_everywhere": OK,  # all of the above at once
    "extra_colliding_names": OK,  # a name that is a protocol field of another object means nothing here
    "winner_list": WRONG,  # a named field of the wrong type: a winner is a seat or null
    "no_trick_winner": WRONG,  # a named field missing
    "no_hand_points": WRONG,  # a named field missing
    "no_final_dealer": WRONG,  # a named field of final missing
    "score_as_text": WRONG,  # "3" is not 3, inside a score as anywhere
    "legal_action_extra": WRONG,  # an action never gains a field: the legal set holds another action
    "extra_event": WRONG,  # an extra event is not an extra field: the events differ
    # ---- round two: the outcome level (protocol.md, Levels: "error_codes" is a boolean; any other value makes the
    # answer to start unusable, and "false" is no false, nor 0, nor null)
    "error_codes_string": UNUSABLE,
    "error_codes_zero": UNUSABLE,
    "error_codes_null": UNUSABLE,
    "nocodes_markup": OK,  # "error_codes": false: any refusal passes, whatever its error holds (its markup escaped)
    # ---- round two: slow start plus a hang at the 5th run request (MODE_ARGS). The small suite sends
    # 4 run requests, so certify and the plugin never reach the fault and rightly pass; fuzz sends
    # more, and must end within its bound with the fault, found to need the earlier requests.
    "slow_start_hang": {"certify": 0, "fuzz": 1, "plugin": 0},
    # ---- round two: certify's words and outputs (first-time implementers' failures, links planted during a run)
    "import_error": UNUSABLE,  # dies before reading: never answered start, and the traceback is shown (MESSAGES)
    "print_exit": UNUSABLE,  # printed "1", not a handshake: what it printed is shown
    "banner": UNUSABLE,  # the first line after start is the answer to start: a banner is no handshake
    "traceback_hang": UNUSABLE,  # start timeout; the traceback on its stderr is shown
    "other_ruleset": UNUSABLE,  # offers none of the rulesets asked: nothing can be asked of it (not a verdict)
    "escapes_at_start": UNUSABLE,  # its stderr is shown, escaped: no terminal control reaches the screen
    "plant_links": WRONG,  # one wrong score; what it plants is judged by test_a_link_planted_during_the_run_...
    # ---- round two: text that reaches a renderer (protocol.md: the name and version are free text; the verdict is
    # on the answers, and every output format stays well-formed: test_hostile_text_keeps_every_format_well_formed)
    "markup_name": OK,  # a name that is HTML is still a name: right answers, conformant
    "markdown_name": OK,  # the same with Markdown
    "bidi_name": OK,  # the same with a right-to-left override
    "c1_name": OK,  # the same with C1 controls and line separators
    "nonchar_name": OK,  # the same with U+FFFF and U+FFFE
    "surrogate_name": OK,  # a lone surrogate escape is JSON (RFC 8259 8.2 leaves its meaning open): still a name
    "markup_card": WRONG,  # a card that is not in the legal set (and is HTML) is a wrong legal set
    "markdown_card": WRONG,  # the same with Markdown
    "c1_card": WRONG,  # the same with C1 controls
    "nonchar_card": WRONG,  # the same with U+FFFF, U+FFFE and ]]>
    "bidi_card": WRONG,  # the same with a right-to-left override
    # ---- round two: processes and resources (the limits each run is given are in LIMITED)
    "fork_chain": OK,  # right answers; a chain that changes its pid every 2 ms must not outlive the run
    "fork_chain_pgid": OK,  # the same in a process group of its own, in the implementation's session
    "memory_balloon": WRONG,  # a CRASH under --limit-memory, never the harness's nor the machine's memory
    "disk_filler": WRONG,  # a CRASH (SIGXFSZ) under --limit-file-size, the file no bigger than the limit
    "fd_opener": WRONG,  # a CRASH under the default --limit-open-files (1024)
    "cpu_spinner": WRONG,  # a CRASH under --limit-cpu (or a TIMEOUT, on a machine too busy to spin fast)
    # ---- round two: the pack as data
    "foreign_card": WRONG,  # 3S is a card of the French pack, not of Vitou's: a wrong legal set
}

# ---- round two: the limits a resource mode runs under, as certify and fuzz spell them (the plugin: --vitou-...)
LIMITED: dict[str, list[str]] = {
    "memory_balloon": ["--limit-memory", "256M"],  # small: the test costs the machine little
    "disk_filler": ["--limit-file-size", "8M"],  # the file, in the run's own directory, stops at 8 MiB
    "cpu_spinner": ["--limit-cpu", "1"],
}

# What each runner must say of a round-two mode (in its stdout or stderr, its message to the implementer).
MESSAGES: dict[str, tuple[str, ...]] = {
    "import_error": ("never answered start", "ModuleNotFoundError: No module named 'my_engine'"),
    "print_exit": ("it printed on stdout", "\n    1\n"),
    "banner": ("MyEngine 0.1 ready, type help", "only protocol lines"),
    "traceback_hang": ("no answer within the time limit", "RuntimeError: no licence file"),
    "other_ruleset": ("offers none of the rulesets asked", "nobody-asked/1.0.0"),
    "escapes_at_start": ("fatal: no licence\\x1b[31m",),
    # ---- round two: the outcome level: the field and its value named
    "error_codes_string": ("'error_codes' is \"false\"", "not true or false"),
    "error_codes_zero": ("'error_codes' is 0", "not true or false"),
    "error_codes_null": ("'error_codes' is null", "not true or false"),
}
# Extra arguments of a mode's command line.
MODE_ARGS: dict[str, list[str]] = {"slow_start_hang": ["--at", "5"]}

# ------------------------------------------------------------------ the runners


def _impl(mode: str) -> str:
    argv = [sys.executable, str(HOSTILE), mode, "--timeout", str(T), "--start-timeout", str(S)]
    return shlex.join(argv + MODE_ARGS.get(mode, []))


def _suite(where: Path) -> Path:
    """The small suite and the stop case, in a directory of their own: a suite's envelope case is another file."""
    where.mkdir()
    for source in (SMALL, STOP_CASE):
        (where / source.name).write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    return where


def _certify(impl: str, workdir: Path) -> tuple[list[str], Path]:
    argv = [sys.executable, "-m", "vitou_ref", "certify", "--impl", impl, "--suite", str(_suite(workdir / "suite"))]
    return argv + ["--timeout", str(T), "--start-timeout", str(S), "--max-restarts", str(R)], workdir


def _fuzz(impl: str, workdir: Path) -> tuple[list[str], Path]:
    argv = [sys.executable, "-m", "vitou_ref", "fuzz", "--impl", impl, "--examples", str(EXAMPLES), "--seed", "1"]
    argv += ["--timeout", str(T), "--start-timeout", str(S), "--max-seconds", str(FUZZ_MAX), "--max-restarts", str(R)]
    return argv + ["--save", str(workdir / "fuzz-failures")], workdir


def _plugin(impl: str, workdir: Path) -> tuple[list[str], Path]:
    # A directory of its own, with its own ini file: pytest collects nothing else, and takes
    # no rootdir or options from this repository.
    here = workdir / "pytest-run"
    here.mkdir()
    (here / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    _suite(here / "suite")
    argv = [sys.executable, "-m", "pytest", "-p", "vitou_ref.pytest_plugin", "--vitou-impl", impl]
    argv += ["--vitou-suite", "suite", "--vitou-timeout", str(T), "-p", "no:cacheprovider"]
    return argv, here


RUNNERS: dict[str, Callable[[str, Path], tuple[list[str], Path]]] = {
    "certify": _certify,
    "fuzz": _fuzz,
    "plugin": _plugin,
}

# ------------------------------------------------------------------ survivors


def holders(token: str) -> dict[int, str]:
    """The live processes holding ``token`` in their environment or their argv, with their command lines."""
    needle = token.encode()
    found: dict[int, str] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                if fh.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    continue  # a zombie has exited: only its exit status is left
            with open(f"/proc/{entry.name}/cmdline", "rb") as fh:
                cmdline = fh.read()
            with open(f"/proc/{entry.name}/environ", "rb") as fh:
                environ = fh.read()
        except OSError:
            continue  # gone meanwhile, or not ours to read
        if needle in environ or needle in cmdline:
            found[int(entry.name)] = cmdline.replace(b"\0", b" ").decode(errors="replace").strip()[:200]
    return found


def reap(token: str, wait: float = REAP) -> list[str]:
    """Wait up to ``wait`` s for the holders of ``token`` to go; kill (by pid) and list those that do not."""
    deadline = time.monotonic() + wait
    while True:
        left = holders(token)
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    for pid in left:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return [f"pid {pid}: {cmd}" for pid, cmd in sorted(left.items())]


def chain_survivor(trace: Path) -> list[str]:
    """A fork chain still forking after the run (a scan of /proc seldom sees a 2 ms pid), ended; [] if none."""
    if not chain_alive(trace):
        return []
    group_session = trace.read_bytes().splitlines()[0].decode()
    end_chain(trace)
    return [f"a fork chain still forking after the run (group and session {group_session})"]


# ------------------------------------------------------------------ one run


@dataclass
class Outcome:
    mode: str
    runner: str
    expected: int
    status: int | None  # None: still running at the hard limit, killed
    seconds: float
    bound: float
    survivors: list[str] = field(default_factory=list)
    traceback: bool = False
    internalerror: bool = False
    stdout_tail: str = ""
    stderr_tail: str = ""

    def problems(self) -> list[str]:
        out = []
        if self.status is None:
            out.append(f"still running after {self.seconds:.0f}s: killed")
        elif self.status != self.expected:
            out.append(f"exit status {self.status}, expected {self.expected}")
        if self.seconds > self.bound:
            out.append(f"took {self.seconds:.1f}s, over its bound of {self.bound:.0f}s")
        if self.survivors:
            out.append(f"{len(self.survivors)} process(es) outlived the run: " + "; ".join(self.survivors))
        if self.traceback:
            out.append("a Python traceback on stderr" + (" (after the test's Ctrl-C)" if self.status is None else ""))
        if self.internalerror:
            out.append("INTERNALERROR in the output")
        return out


def _tail(path: Path, limit: int = 1500) -> str:
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        fh.seek(max(0, fh.tell() - limit))
        return fh.read().decode("utf-8", errors="replace")


def _contains(path: Path, needle: bytes) -> bool:
    with open(path, "rb") as fh:
        return needle in fh.read()


def _starts_a_line(path: Path, needle: bytes) -> bool:
    with open(path, "rb") as fh:
        return any(line.startswith(needle) for line in fh)


class Runs:
    """Runs (mode, runner) pairs JOBS at a time; each result is waited for by its own test."""

    def __init__(self, base: Path, jobs: int) -> None:
        self.base = base
        self.pool = ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="hostile")
        self.futures: dict[tuple[str, str], Future[Outcome]] = {}
        self.live: dict[str, subprocess.Popen[bytes]] = {}  # token -> runner still running
        self.lock = threading.Lock()
        self.log = os.environ.get("VITOU_HOSTILE_LOG")

    def submit(self, mode: str, runner: str) -> None:
        with self.lock:
            if (mode, runner) not in self.futures:
                self.futures[mode, runner] = self.pool.submit(self._run, mode, runner)

    def result(self, mode: str, runner: str) -> Outcome:
        self.submit(mode, runner)
        return self.futures[mode, runner].result()

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
        with self.lock:
            live = dict(self.live)
        for proc in live.values():  # interrupted: nothing of ours may go on running
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        self.pool.shutdown(wait=True)
        for token in live:
            reap(token, wait=0)

    def _run(self, mode: str, runner: str) -> Outcome:
        token = uuid.uuid4().hex
        workdir = self.base / f"{runner}-{mode}"
        workdir.mkdir()
        argv, cwd = RUNNERS[runner](_impl(mode), workdir)
        argv += [a.replace("--", "--vitou-", 1) if runner == "plugin" else a for a in LIMITED.get(mode, [])]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "VITOU_HOSTILE_"))}
        env[TOKEN_VAR] = token
        env[TRACE_VAR] = str(workdir / "chain-trace")  # a fork chain's heartbeat: see chain_survivor
        env["PYTHONPATH"] = os.pathsep.join(p for p in (PACKAGE_ROOT, os.environ.get("PYTHONPATH")) if p)
        if runner == "plugin":
            env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the plugin under test alone (and 2-3 s quicker)
        out, err = workdir / "stdout", workdir / "stderr"
        bound = BOUNDS[runner]
        # Files, not pipes: a process left behind holding the runner's output open must not hold this test up.
        with open(out, "wb") as fo, open(err, "wb") as fe:
            started = time.monotonic()
            proc = subprocess.Popen(
                argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=fo, stderr=fe, start_new_session=True
            )
            with self.lock:
                self.live[token] = proc
            status: int | None
            try:
                status = proc.wait(timeout=min(bound + 30, HARD_LIMIT))
            except subprocess.TimeoutExpired:
                status = None
                # Ctrl-C first, as a user would: the harness may still end what it started; then SIGKILL.
                for sig, wait in ((signal.SIGINT, 5.0), (signal.SIGKILL, None)):
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(proc.pid, sig)
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        proc.wait(timeout=wait)
                        break
            seconds = time.monotonic() - started
        survivors = reap(token) + chain_survivor(workdir / "chain-trace")
        with self.lock:
            self.live.pop(token, None)
        outcome = Outcome(
            mode,
            runner,
            EXPECTED[mode][runner],
            status,
            round(seconds, 2),
            bound,
            survivors,
            # vitou's own traceback starts a line; an implementation's, quoted in a message, is indented.
            traceback=_starts_a_line(err, b"Traceback (most recent call last)"),
            internalerror=runner == "plugin" and (_contains(out, b"INTERNALERROR") or _contains(err, b"INTERNALERROR")),
            stdout_tail=_tail(out),
            stderr_tail=_tail(err),
        )
        if self.log:
            with self.lock, open(self.log, "a", encoding="utf-8") as fh:
                record = {k: v for k, v in asdict(outcome).items() if not k.endswith("_tail")}
                fh.write(json.dumps(record) + "\n")
        return outcome


@pytest.fixture(scope="module")
def runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    pool = Runs(tmp_path_factory.mktemp("hostile"), JOBS)
    # Every run this session selected starts now: those that wait out deadlines first, so that
    # they overlap the quick ones, then the rest in the order the tests ask for them.
    wanted = []
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if getattr(item, "originalname", None) == "test_hostile_implementation" and callspec is not None:
            wanted.append((callspec.params["mode"], callspec.params["runner"]))
    for mode, runner in sorted(wanted, key=lambda key: key[0] not in WAITING):
        pool.submit(mode, runner)
    try:
        yield pool
    finally:
        pool.close()


# ------------------------------------------------------------------ the tests


def _rows() -> list[object]:
    rows = []
    for runner in RUNNERS:
        marks = [pytest.mark.slow] if runner != "certify" else []
        rows += [pytest.param(mode, runner, id=f"{runner}-{mode}", marks=marks) for mode in EXPECTED]
    return rows


@pytest.mark.parametrize(("mode", "runner"), _rows())
def test_hostile_implementation(runs: Runs, mode: str, runner: str) -> None:
    o = runs.result(mode, runner)
    problems = o.problems()
    said = o.stdout_tail + o.stderr_tail
    problems += [f"does not say {text!r}" for text in MESSAGES.get(mode, ()) if text not in said]
    if mode in MESSAGES and "\x1b" in said:
        problems.append("a raw escape character from the implementation reached the output")
    assert not problems, (
        f"{runner} against hostile mode {mode!r}: " + "; ".join(problems) + f"\n--- stdout (end) ---\n{o.stdout_tail}"
        f"\n--- stderr (end) ---\n{o.stderr_tail}"
    )


def _load_hostile() -> Any:
    spec = importlib.util.spec_from_file_location("hostile_impl", HOSTILE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while being made
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def test_every_mode_has_exactly_one_expected_row() -> None:
    modes = _load_hostile().MODES
    assert set(modes) == set(EXPECTED)
    assert len(modes) >= 40
    assert all(set(row) == set(RUNNERS) for row in EXPECTED.values())


def _session(mode: str, lines: list[bytes], token: str, wait: float = 3.0) -> tuple[bytes, list[str]]:
    """Drive a mode by hand: the lines in, its stdout out, and what still holds ``token`` ``wait`` s later.

    Whatever is left is then killed.
    """
    env = dict(os.environ, **{TOKEN_VAR: token})
    env["PYTHONPATH"] = os.pathsep.join(p for p in (PACKAGE_ROOT, os.environ.get("PYTHONPATH")) if p)
    proc = subprocess.Popen(
        [sys.executable, str(HOSTILE), mode, "--timeout", "1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(b"".join(line + b"\n" for line in lines), timeout=wait)
    except subprocess.TimeoutExpired:
        out = b""  # still running, or a child still holds stdout
    left = [f"pid {pid}: {cmd}" for pid, cmd in sorted(holders(token).items())]
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.stdout is not None
    proc.stdout.close()
    reap(token, wait=0.5)
    return out, left


START = b'{"cmd":"start","protocol":1}'
STOP = b'{"cmd":"stop"}'
RUN = json.dumps(
    {
        "cmd": "run",
        "seq": 1,
        "ruleset": "vitou/1.0.0",
        "setup": {
            "dealer": "W",
            "deals": [
                {"N": ["9C", "7D", "8S"], "E": ["AH", "KS", "QH"], "S": ["7S", "JD", "QC"], "W": ["8D", "KC", "JS"]}
            ],
        },
        "actions": [
            {"seat": s, "act": "play", "card": c} for s, c in (("N", "9C"), ("E", "AH"), ("S", "7S"), ("W", "8D"))
        ],
    }
).encode()


@pytest.mark.parametrize(
    ("mode", "check"),
    [
        ("bom", lambda lines: lines[1].startswith(b"\xef\xbb\xbf{")),
        ("crlf", lambda lines: all(x.endswith(b"\r") for x in lines[:2])),
        ("bools", lambda lines: b'"trick":true' in lines[1] and b'"seq":1' in lines[1]),
        ("trick_float", lambda lines: b'"trick":1.0' in lines[1]),
        ("bad_utf8", lambda lines: b"\xe9" in lines[1]),
        ("nested_answer", lambda lines: lines[1] == b"[" * 1000 + b"]" * 1000),
        ("huge_int", lambda lines: b"1" + b"0" * 4999 + b"," in lines[1]),
        ("protocol_float", lambda lines: lines[0].startswith(b'{"protocol":1.0,')),
        ("keys_reordered", lambda lines: [json.loads(x) for x in lines[:2]] == [*_good_lines()]),
    ],
)
def test_a_mode_writes_what_it_says(mode: str, check: Callable[[list[bytes]], bool]) -> None:
    out, _ = _session(mode, [START, RUN, STOP], uuid.uuid4().hex)
    assert check(out.split(b"\n")), out[:600]


def _good_lines() -> list[object]:
    out, _ = _session("good", [START, RUN, STOP], uuid.uuid4().hex)
    return [json.loads(x) for x in out.splitlines()[:2]]


@pytest.mark.parametrize(
    "mode", ["fork_child", "setpgid_escape", "setsid_escape", "env_escape", "hang_on_stop", "ignore_sigterm"]
)
def test_a_process_mode_does_leave_a_process_behind(mode: str) -> None:
    # Without a harness that cleans up, these modes leave a process holding the token:
    # the corpus really attacks what the survivor check looks for.
    _, left = _session(mode, [START, STOP], uuid.uuid4().hex, wait=1.5)
    assert left, f"{mode} left nothing behind"


# ---- round two: the comparison, and fuzz's restart budget


@pytest.mark.slow
def test_fuzz_tells_a_fault_that_needs_the_earlier_requests_within_its_bound(runs: Runs) -> None:
    # slow_start_hang hangs at each process's 5th request, and starts slowly each time: the fault
    # shows on a fresh start only after the four requests before it, so it is no flaky one.
    o = runs.result("slow_start_hang", "fuzz")
    assert not o.problems(), o.problems()
    assert "DIVERGENCE at fault" in o.stdout_tail and "timeout" in o.stdout_tail
    assert "it needs the earlier requests of the session" in o.stdout_tail, o.stdout_tail
    assert "after the 4 earlier match(es)" in o.stdout_tail and "flaky" not in o.stdout_tail


# ---- round two: certify's words and outputs (first-time implementers' failures, links planted during a run)


def _planted_run(tmp_path: Path, force: bool) -> tuple[subprocess.CompletedProcess[str], dict[str, Path], Path]:
    """certify against plant_links, which puts links to a victim file at the output paths once the run is going."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    paths = {"--junit": tmp_path / "r.xml", "--save-failed": tmp_path / "saved" / "VT-0002.yaml"}
    if not force:  # the JSON-lines report is created at the start: the implementation replaces it with a link
        paths["--report"] = tmp_path / "r.jsonl"
    (tmp_path / "saved").mkdir()
    argv, _ = _certify(_impl("plant_links"), tmp_path)
    argv += ["--junit", str(paths["--junit"]), "--save-failed", str(tmp_path / "saved")]
    argv += ["--report", str(tmp_path / "r.jsonl"), *(["--force"] if force else [])]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "VITOU_HOSTILE_"))}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (PACKAGE_ROOT, os.environ.get("PYTHONPATH")) if p)
    env["VITOU_HOSTILE_PLANT"] = os.pathsep.join(str(p) for p in paths.values())
    env["VITOU_HOSTILE_VICTIM"] = str(victim)
    got = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=BOUNDS["certify"], check=False)
    return got, paths, victim


def test_a_link_planted_during_the_run_is_never_written_through(tmp_path: Path) -> None:
    got, paths, victim = _planted_run(tmp_path, force=False)
    assert got.returncode == 2, got.stdout + got.stderr  # an output lost is a run that could not be made whole
    *_, rules, envelope = got.stdout.splitlines()  # the verdicts, still: the rules', then the envelope's (stop)
    assert rules.startswith("NOT CONFORMANT vitou/1.1.0: 3/4 cases")
    assert envelope.startswith("CONFORMANT envelope (protocol lines, under vitou/1.1.0): 1/1 cases")
    assert victim.read_text(encoding="utf-8") == "precious\n"
    for option, path in paths.items():
        assert path.is_symlink(), f"{option}: the planted link was replaced without --force"
        assert f"could not write {option}: " in got.stderr, got.stderr
    assert "Traceback" not in got.stderr


def test_with_force_a_planted_link_is_replaced_never_followed(tmp_path: Path) -> None:
    got, paths, victim = _planted_run(tmp_path, force=True)
    assert got.returncode == 1, got.stdout + got.stderr
    assert victim.read_text(encoding="utf-8") == "precious\n"
    for path in paths.values():
        assert not path.is_symlink() and path.is_file()
    assert ET.parse(paths["--junit"]).getroot().tag == "testsuites"
    assert "VT-0002" in paths["--save-failed"].read_text(encoding="utf-8")


# ---- round two: text that reaches a renderer

ROUND_TWO_TEXT = [
    *("markup_name", "markdown_name", "bidi_name", "c1_name", "nonchar_name", "surrogate_name"),
    *("markup_card", "markdown_card", "c1_card", "nonchar_card", "bidi_card"),
]
# What no output may hold raw: controls a terminal obeys, bidi overrides and isolates, line separators, noncharacters.
RAW = set(range(0x20)) - {0x0A} | set(range(0x7F, 0xA0)) | {0x2028, 0x2029, *range(0x202A, 0x202F)}
RAW |= {*range(0x2066, 0x206A), 0xFFFE, 0xFFFF, *range(0xD800, 0xE000)}


def _raw_characters(text: str) -> list[str]:
    return sorted({f"U+{ord(ch):04X}" for ch in text if ord(ch) in RAW})


@pytest.mark.parametrize("mode", ROUND_TWO_TEXT)
def test_hostile_text_keeps_every_format_well_formed(mode: str, tmp_path: Path) -> None:
    # Fails before: the Markdown made the name and the card live HTML, the JSON printed C1 controls raw, and
    # the JUnit file held U+FFFF, which no XML parser reads.
    import xml.dom.minidom

    markdown_it = pytest.importorskip("markdown_it")
    impl = _impl(mode)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (PACKAGE_ROOT, os.environ.get("PYTHONPATH")) if p))
    outs = {}
    for fmt in ("markdown", "json", "text"):
        argv = [sys.executable, "-m", "vitou_ref", "certify", "--impl", impl, "--suite", str(SMALL), "--format", fmt]
        if fmt == "markdown":
            argv += ["--junit", str(tmp_path / "junit.xml")]
        done = subprocess.run(argv, env=env, capture_output=True, timeout=HARD_LIMIT, check=False)
        assert done.returncode == EXPECTED[mode]["certify"], done.stderr.decode(errors="replace")[-800:]
        outs[fmt] = done.stdout.decode("utf-8")
        assert _raw_characters(outs[fmt]) == [], fmt
    tokens = markdown_it.MarkdownIt("commonmark").enable("table").parse(outs["markdown"])
    inline = [c for t in tokens for c in (t.children or [])]
    assert not [t for t in [*tokens, *inline] if t.type in ("html_block", "html_inline", "link_open", "image")]
    assert not [t for t in inline if t.type in ("em_open", "s_open")]  # the verdict lines are strong, nothing else
    assert [t.content for t in inline if t.type == "code_inline" and not re.fullmatch(r"[a-z0-9_.]+", t.content)] == []
    report = json.loads(outs["json"])
    assert report["implementation"]["name"] is not None
    junit = (tmp_path / "junit.xml").read_text(encoding="utf-8")
    assert _raw_characters(junit.replace("\n", "")) == []
    xml.dom.minidom.parseString(junit.encode("utf-8"))  # well-formed XML 1.0, or it raises


# ---- round two: processes and resources


@pytest.mark.parametrize("mode", ["fork_chain", "fork_chain_pgid"])
def test_a_fork_chain_does_go_on_without_a_harness(mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Its process group killed, the chain lives on: the corpus really attacks what the supervisor must end.
    trace = tmp_path / "chain-trace"
    monkeypatch.setenv(TRACE_VAR, str(trace))
    try:
        _session(mode, [START, STOP], uuid.uuid4().hex, wait=1.0)
        assert chain_alive(trace), f"{mode} stopped forking with its parent's group"
    finally:
        end_chain(trace)


# ---- round two: the outcome level


def _markup_live(markdown: str) -> list[str]:
    """The tokens of ``markdown`` that a renderer would make live: HTML, links, images."""
    markdown_it = pytest.importorskip("markdown_it")
    tokens = markdown_it.MarkdownIt("commonmark").enable("table").parse(markdown)
    every = [*tokens, *(c for t in tokens for c in (t.children or []))]
    return [t.type for t in every if t.type in ("html_block", "html_inline", "link_open", "image")]


def _vitou(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (PACKAGE_ROOT, os.environ.get("PYTHONPATH")) if p))
    argv = [sys.executable, "-m", "vitou_ref", *args]
    return subprocess.run(argv, env=env, capture_output=True, timeout=HARD_LIMIT, check=False)


@pytest.mark.parametrize("level", ["outcome", "code"])
def test_an_engine_without_codes_has_its_markup_escaped_in_every_output(level: str, tmp_path: Path) -> None:
    # At the outcome level the refusal passes, its error told in the case's reason; at the code level it fails,
    # and its error is the difference every output and the results page show: text from the engine, escaped.
    import xml.dom.minidom

    report = str(tmp_path / "r.jsonl")
    base = ["certify", "--impl", _impl("nocodes_markup"), "--suite", str(SMALL), "--level", level]
    outs = {}
    for fmt in ("markdown", "json", "text"):
        extra = ["--junit", str(tmp_path / "junit.xml"), "--report", report] if fmt == "text" else []
        done = _vitou([*base, "--format", fmt, *extra])
        assert done.returncode == (0 if level == "outcome" else 1), done.stderr.decode(errors="replace")[-800:]
        outs[fmt] = done.stdout.decode("utf-8")
    for fmt in ("html", "markdown", "text"):
        done = _vitou(["report", report, "--format", fmt])
        assert done.returncode == 0, done.stderr.decode(errors="replace")[-800:]
        outs[f"report-{fmt}"] = done.stdout.decode("utf-8")
    cases = [json.loads(x) for x in Path(report).read_text(encoding="utf-8").splitlines()[1:-1]]
    (refused,) = [c for c in cases if c.get("codes_only")]
    assert "alert(1)" in json.dumps(refused)  # the engine's markup did reach the report, to be escaped below
    for name, text in outs.items():
        assert _raw_characters(text) == [], name  # no terminal control, in JSON and plain text too
    page = outs["report-html"].lower()
    if level == "code":
        assert "alert(1)" in page  # a failing case's difference is on the page
    assert "<script" not in page and "<img" not in page  # as text, never as markup
    assert _markup_live(outs["markdown"]) == [] and _markup_live(outs["report-markdown"]) == []
    junit = (tmp_path / "junit.xml").read_text(encoding="utf-8")
    assert _raw_characters(junit.replace("\n", "")) == [] and "<script" not in junit
    xml.dom.minidom.parseString(junit.encode("utf-8"))


# ---- round two: the pack as data


def test_validating_answers_holds_their_cards_to_the_pack_of_the_ruleset() -> None:
    # The protocol's schemas take any card of the French pack; --validate-protocol holds an answer about Vitou
    # to Vitou's 32 cards, so a legal set offering 3S breaks the schema there, not only the comparison.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (PACKAGE_ROOT, os.environ.get("PYTHONPATH")) if p))
    argv = [sys.executable, "-m", "vitou_ref", "certify", "--impl", _impl("foreign_card"), "--suite", str(SMALL)]
    done = subprocess.run([*argv, "--validate-protocol"], env=env, capture_output=True, timeout=HARD_LIMIT, check=False)
    assert done.returncode == 1, done.stderr.decode(errors="replace")[-800:]
    out = done.stdout.decode("utf-8")
    assert "breaks the protocol schema" in out and "3S" in out, out[-2000:]
