"""A hostile implementation of protocol v1: each MODE attacks the harness one way.

Usage: python hostile_impl.py MODE [--timeout SEC] [--start-timeout SEC] [--at N]
       python hostile_impl.py --list

It is built on ``vitou_ref.adapter.build_server()`` and gives the reference's answers,
except where MODE says otherwise. ``--timeout`` and ``--start-timeout`` are the deadlines
the harness was given: the slow modes answer at a fraction or a multiple of them.
``--at`` is the run request that a one-off fault hits (default 2, so the first case
passes). Counting starts again in each new process, so a restarted process hits the
fault again at its own N-th request.

Processes that a mode leaves behind inherit the environment, and with it
VITOU_HOSTILE_TOKEN, which tests/test_hostile_impls.py looks for in /proc after a
run. A process that clears its environment carries the token in its argv instead.
Every mode, and what the harness must make of it, is listed in
tests/test_hostile_impls.py (EXPECTED).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from vitou_ref.adapter import build_server

LINGER = 1000  # how long a process left behind sleeps: far longer than any run
SLOW_ANSWERS = 4  # slow_ok delays this many run answers (the small suite has 4 cases)
BOM = b"\xef\xbb\xbf"
NESTED = b"[" * 1000 + b"]" * 1000 + b"\n"
TOKEN_VAR = "VITOU_HOSTILE_TOKEN"
TRACE_VAR = "VITOU_HOSTILE_TRACE"  # a fork chain's heartbeat file (see chain_trace)

Json = dict[str, Any]


@dataclass
class Ctx:
    timeout: float
    start_timeout: float
    at: int
    token: str
    prev: Json | None = None  # the previous run answer, as the reference gave it


def put(data: bytes) -> None:
    """Write all of ``data`` to stdout, unbuffered (no flush needed, nothing left at exit)."""
    view = memoryview(data)
    while view:
        view = view[os.write(1, view) :]


def err(data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(2, view) :]


def enc(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8") + b"\n"


def enc_with(value: Any, placeholder: str, raw: bytes) -> bytes:
    """``value`` encoded, with the string ``placeholder`` replaced by ``raw`` bytes (no JSON encoding)."""
    return enc(value).replace(json.dumps(placeholder).encode(), raw)


def sleep_forever() -> None:
    while True:
        time.sleep(3600)


def linger() -> None:
    """The body of a process left behind: sleep, then leave without running any cleanup."""
    time.sleep(LINGER)
    os._exit(0)


def ignore_polite_signals() -> None:
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)


# ------------------------------------------------------------------ transforms


def reverse_keys(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: reverse_keys(v[k]) for k in reversed(list(v))}
    if isinstance(v, list):
        return [reverse_keys(x) for x in v]
    return v


def reverse_legal(r: Json) -> Json:
    if isinstance(r.get("legal"), list):
        r["legal"] = r["legal"][::-1]
    for s in r.get("steps", []):
        if isinstance(s.get("legal"), list):
            s["legal"] = s["legal"][::-1]
    return r


def to_bools(v: Any) -> Any:
    if type(v) is int and v in (0, 1):
        return bool(v)
    if isinstance(v, dict):
        return {k: to_bools(x) for k, x in v.items()}
    if isinstance(v, list):
        return [to_bools(x) for x in v]
    return v


def uescape(v: Any) -> str:
    """JSON text with every character of every string written as a \\u escape: the same value."""
    if isinstance(v, str):
        return '"' + "".join(f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else json.dumps(ch)[1:-1] for ch in v) + '"'
    if isinstance(v, dict):
        return "{" + ",".join(uescape(k) + ":" + uescape(x) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(uescape(x) for x in v) + "]"
    return json.dumps(v)


def spaced(v: Any) -> bytes:
    """The same value with JSON whitespace (spaces, tabs) around every token, on one line."""
    return b" \t" + json.dumps(v, separators=(" ,\t", " :\t")).encode() + b" \t\n"


def trick_floats(r: Json) -> Json:
    for s in r.get("steps", []):
        for e in s.get("events", []):
            if e.get("event") == "trick":
                e["trick"] = float(e["trick"])
    return r


def score_side(r: Json) -> str | None:
    """The first side of the final score, where a number can be planted."""
    final = r.get("final")
    return next(iter(final["score"])) if isinstance(final, dict) else None


def with_score(r: Json, value: Any) -> Json:
    side = score_side(r)
    if side is not None:
        r["final"]["score"][side] = value
    return r


def winner_false(r: Json) -> Json:
    if isinstance(r.get("final"), dict) and r["final"].get("winner") is None:
        r["final"]["winner"] = False
    return r


def steps_as_lists(r: Json) -> Json:
    if isinstance(r.get("steps"), list):
        r["steps"] = [list(s.values()) for s in r["steps"]]
    return r


def duplicate_final(r: Json) -> bytes:
    """The key "final" twice: a wrong value first, the right one last (the one Python's json keeps)."""
    if not isinstance(r.get("final"), dict):
        return enc(r)
    wrong = dict(r["final"], score={k: v + 7 for k, v in r["final"]["score"].items()})
    return b'{"final":' + enc(wrong)[:-1] + b"," + enc(r)[1:]


# ------------------------------------------------------------------ hooks


def send_hello(c: Ctx, r: Json) -> None:
    put(enc(r))


def send(c: Ctx, n: int, r: Json) -> None:
    put(enc(r))


def nothing(c: Ctx) -> None:
    return None


def exit_now(c: Ctx) -> None:
    os._exit(0)


def hang(c: Ctx) -> None:
    sleep_forever()


def answer_with(f: Callable[[Json], Any]) -> Callable[[Ctx, int, Json], None]:
    """Run answers are ``f`` of the reference's answer, encoded as usual."""
    return lambda c, n, r: put(enc(f(r)))


def answer_bytes(f: Callable[[Json], bytes]) -> Callable[[Ctx, int, Json], None]:
    """Run answers are the bytes ``f`` makes of the reference's answer."""
    return lambda c, n, r: put(f(r))


def hello_with(f: Callable[[Json], Any]) -> Callable[[Ctx, Json], None]:
    return lambda c, r: put(enc(f(r)))


def hello_bytes(f: Callable[[Json], bytes]) -> Callable[[Ctx, Json], None]:
    return lambda c, r: put(f(r))


def at_nth(fault: Callable[[Ctx, Json], None]) -> Callable[[Ctx, int, Json], None]:
    """The fault on the --at-th run request of this process, the reference's answer otherwise."""

    def hook(c: Ctx, n: int, r: Json) -> None:
        if n == c.at:
            fault(c, r)
        else:
            put(enc(r))

    return hook


def setitem(r: Json, key: str, value: Any) -> Json:
    r[key] = value
    return r


def popitem(r: Json, key: str) -> Json:
    r.pop(key, None)
    return r


def slow_ok(c: Ctx, n: int, r: Json) -> None:
    if n <= SLOW_ANSWERS:
        time.sleep(0.5 * c.timeout)
    put(enc(r))


def seconds_since_spawn() -> float:
    """How long ago this process was started (forked by the harness), from /proc."""
    with open("/proc/self/stat", "rb") as fh:
        ticks = int(fh.read().rsplit(b")", 1)[1].split()[19])  # field 22, starttime
    with open("/proc/uptime", "rb") as fh:
        uptime = float(fh.read().split()[0])
    return uptime - ticks / os.sysconf("SC_CLK_TCK")


def slow_start(c: Ctx, r: Json) -> None:
    # Halfway between the two deadlines, counted from the process's start (its imports included):
    # too late for --timeout, in time for --start-timeout.
    time.sleep(max(0.0, (c.timeout + c.start_timeout) / 2 - seconds_since_spawn()))
    put(enc(r))


def partial_then(end: Callable[[], None]) -> Callable[[Ctx, Json], None]:
    def fault(c: Ctx, r: Json) -> None:
        data = enc(r)
        put(data[: len(data) // 2])
        end()

    return fault


def too_late(c: Ctx, r: Json) -> None:
    time.sleep(1.5 * c.timeout)
    put(enc(r))


def bad_name(r: Json) -> bytes:
    r["implementation"]["name"] = "@U@"
    return enc_with(r, "@U@", b'"hostile\xff"')


def stale(c: Ctx, n: int, r: Json) -> None:
    body = c.prev if c.prev is not None else r
    put(enc({**body, "seq": r.get("seq")}))


def close_stdout_after_hello(c: Ctx, r: Json) -> None:
    put(enc(r))
    os.close(1)


def exit_after_hello(c: Ctx, r: Json) -> None:
    put(enc(r))
    os._exit(0)


def handoff(c: Ctx, r: Json) -> None:
    put(enc(r))
    if os.fork() != 0:
        os._exit(0)  # the parent goes; the child, same pipes, serves the rest


def fork_child(c: Ctx) -> None:
    if os.fork() == 0:
        linger()


def setpgid_escape(c: Ctx) -> None:
    if os.fork() == 0:
        os.setpgid(0, 0)
        ignore_polite_signals()
        linger()


def setsid_escape(c: Ctx) -> None:
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            ignore_polite_signals()
            linger()  # the pipes stay open in here
        os._exit(0)
    os.waitpid(pid, 0)


def env_escape(c: Ctx) -> None:
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            os.closerange(3, 1024)
            ignore_polite_signals()
            code = f"import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep({LINGER})"
            os.execve(sys.executable, [sys.executable, "-c", code, c.token], {})
        os._exit(0)
    os.waitpid(pid, 0)


def garbage_first(c: Ctx) -> None:
    put(b"".join(b"garbage line %d: {not json\n" % i for i in range(100_000)))


def close_stdout_now(c: Ctx) -> None:
    os.close(1)


def stderr_burst(mb: int) -> None:
    chunk = (b"noise \x1b[2J \xff\xfe not utf-8, " * 2048)[: 1 << 16]
    for _ in range(mb * 16):
        err(chunk)


def flood_hello(c: Ctx, r: Json) -> None:
    stderr_burst(16)
    put(enc(r))


def flood_answer(c: Ctx, n: int, r: Json) -> None:
    stderr_burst(2)
    put(enc(r))


def ignore(c: Ctx, n: int, r: Json) -> None:
    return None


def ignore_hello(c: Ctx, r: Json) -> None:
    return None


def phantom(c: Ctx, n: int, r: Json) -> None:
    put(enc({"seq": r.get("seq"), "errored": True, "message": "unknown ruleset 'vitou/1.0.0'"}))


# ---- round two: processes and resources

CHAIN_LIFE = 150.0  # seconds: a fork chain ends itself after this (every run's bound is shorter)
CHAIN_PAUSE = 0.002  # a fork chain's generation lives this long before it forks its successor and exits
CHUNK = 16 << 20  # a memory balloon's step, written so that it is resident; a disk filler's write


def fork_chain_with(leave: Callable[[], None]) -> Callable[[Ctx], None]:
    """A child that ``leave``s the implementation's group (or session), then forks and exits every ~2 ms.

    Each generation keeps the pipes, the environment (the token) and the group
    and session of the first: its pid is all that changes.
    """

    def launch(c: Ctx) -> None:
        if os.fork() != 0:
            return
        leave()
        ignore_polite_signals()
        trace = chain_trace()
        born = time.monotonic()
        while time.monotonic() - born < CHAIN_LIFE:  # far longer than any run; a test's mistake ends too
            time.sleep(CHAIN_PAUSE)
            if os.fork() != 0:
                os._exit(0)
            if trace is not None:
                os.write(trace, b".")
        os._exit(0)

    return launch


def chain_trace() -> int | None:
    """Where a chain says it lives, if VITOU_HOSTILE_TRACE names a file: its group and session, then a byte a fork.

    A process that lives 2 ms is rarely caught by a scan of /proc; a file that
    keeps growing after the run is a sure sign that the chain survived.
    """
    path = os.environ.get(TRACE_VAR)
    if not path:
        return None
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.write(fd, b"%d %d\n" % (os.getpgrp(), os.getsid(0)))
    return fd


def memory_balloon(c: Ctx, r: Json) -> None:
    held = []
    while True:  # a MemoryError under a memory limit: the serve loop reports it on stderr and exits 70
        held.append(b"x" * CHUNK)


def disk_filler(c: Ctx, r: Json) -> None:
    # As an engine in C would: SIGXFSZ ends it when a write passes the file size limit (Python ignores it).
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    block = b"x" * (1 << 20)
    with open("vitou-hostile-disk-filler.bin", "wb", buffering=0) as fh:
        while True:
            fh.write(block)


def fd_opener(c: Ctx, r: Json) -> None:
    held = []
    try:
        while True:
            held.append(os.open(os.devnull, os.O_RDONLY))
    except OSError as exc:  # EMFILE: said on stderr, as an engine's uncaught error would say it
        err(f"fd_opener: {exc} after {len(held)} files\n".encode())
        os._exit(1)


def cpu_spinner(c: Ctx, r: Json) -> None:
    n = 0
    while True:
        n += 1


# ------------------------------------------------------------------ the modes


@dataclass(frozen=True)
class Mode:
    doc: str
    launch: Callable[[Ctx], None] = nothing
    hello: Callable[[Ctx, Json], None] = send_hello
    answer: Callable[[Ctx, int, Json], None] = send
    stop: Callable[[Ctx], None] = exit_now


MODES: dict[str, Mode] = {
    # ---------------------------------------------- correct answers, however they are written
    "good": Mode("no fault: the reference's answers, written as the reference writes them"),
    "keys_reordered": Mode(
        "every object's keys in reverse order, the handshake's too (JSON objects are unordered)",
        hello=hello_with(reverse_keys),
        answer=answer_with(reverse_keys),
    ),
    "legal_reversed": Mode(
        "every legal set in reverse order (legal sets are compared as sets)", answer=answer_with(reverse_legal)
    ),
    "crlf": Mode(
        "every line, the handshake's too, ends in CRLF (JSON Lines allows it: CR is JSON whitespace)",
        hello=hello_bytes(lambda r: enc(r)[:-1] + b"\r\n"),
        answer=answer_bytes(lambda r: enc(r)[:-1] + b"\r\n"),
    ),
    "spaces": Mode(
        "spaces and tabs around every token and at both ends of every line (JSON whitespace)",
        hello=hello_bytes(spaced),
        answer=answer_bytes(spaced),
    ),
    "unicode_escapes": Mode(
        'every character of every string written as a \\u escape ("\\u0041\\u0053" is "AS")',
        hello=hello_bytes(lambda r: uescape(r).encode() + b"\n"),
        answer=answer_bytes(lambda r: uescape(r).encode() + b"\n"),
    ),
    "extra_fields": Mode(
        "unknown fields at the top level of the handshake and of every run answer (protocol.md: fields may be added)",
        hello=hello_with(lambda r: setitem(r, "x_capabilities", {"pipelining": True, "notes": [1, None]})),
        answer=answer_with(lambda r: setitem(setitem(r, "x_elapsed_ms", 0.25), "x_trace", [{"a": None}])),
    ),
    "stderr_flood": Mode(
        "16 MB on stderr before the handshake and 2 MB before every answer (terminal escapes, bad UTF-8)",
        hello=flood_hello,
        answer=flood_answer,
    ),
    "slow_ok": Mode(f"the first {SLOW_ANSWERS} run answers each after 0.5 x --timeout", answer=slow_ok),
    "slow_start": Mode(
        "the handshake halfway between --timeout and --start-timeout after the process started",
        hello=slow_start,
    ),
    "fork_child": Mode(
        "forks a child that keeps stdin/stdout/stderr open and sleeps; the answers are right", launch=fork_child
    ),
    "setpgid_escape": Mode(
        "a child in a process group of its own (setpgid), pipes open, SIGTERM ignored, sleeping",
        launch=setpgid_escape,
    ),
    "setsid_escape": Mode(
        "double fork: a grandchild in a session of its own (setsid), pipes open, SIGTERM ignored, sleeping",
        launch=setsid_escape,
    ),
    "env_escape": Mode(
        "double fork and setsid, then exec a sleeper with an empty environment and no pipes (token in argv)",
        launch=env_escape,
    ),
    "hang_on_stop": Mode("never exits after stop or at the end of its input", stop=hang),
    "ignore_sigterm": Mode(
        "ignores SIGTERM, SIGINT and SIGHUP, and never exits after stop",
        launch=lambda c: ignore_polite_signals(),
        stop=hang,
    ),
    "handoff": Mode(
        "answers start, then forks: the parent exits, the child serves the rest on the same pipes", hello=handoff
    ),
    # ---------------------------------------------- wrong answers, wrong types, broken lines
    "bools": Mode(
        "every 0/1 integer in run answers (scores, trick numbers, points) as false/true; seq kept",
        answer=answer_with(lambda r: {**to_bools(r), "seq": r.get("seq")}),
    ),
    "seq_true": Mode('"seq": true', answer=answer_with(lambda r: setitem(r, "seq", True))),
    "seq_float": Mode('"seq": N.0', answer=answer_with(lambda r: setitem(r, "seq", float(r["seq"])))),
    "seq_string": Mode('"seq": "N"', answer=answer_with(lambda r: setitem(r, "seq", str(r["seq"])))),
    "seq_off_by_one": Mode('"seq": N + 1', answer=answer_with(lambda r: setitem(r, "seq", r["seq"] + 1))),
    "seq_null": Mode('"seq": null', answer=answer_with(lambda r: setitem(r, "seq", None))),
    "nested_answer": Mode("every run answer is 1,000 nested [", answer=answer_bytes(lambda r: NESTED)),
    "answer_list": Mode("every run answer is a list holding the right answer", answer=answer_with(lambda r: [r])),
    "answer_number": Mode("every run answer is the number N (its seq)", answer=answer_with(lambda r: r["seq"])),
    "answer_null": Mode("every run answer is null", answer=answer_bytes(lambda r: b"null\n")),
    "answer_string": Mode(
        "every run answer is a JSON string holding the right answer's text", answer=answer_with(json.dumps)
    ),
    "doubled": Mode("every run answer written twice", answer=answer_bytes(lambda r: enc(r) * 2)),
    "handshake_twice": Mode("the handshake answered twice", hello=hello_bytes(lambda r: enc(r) * 2)),
    "partial_exit": Mode(
        "at the N-th run: half the answer line, then exit 0", answer=at_nth(partial_then(lambda: os._exit(0)))
    ),
    "partial_hang": Mode(
        "at the N-th run: half the answer line, then hang", answer=at_nth(partial_then(sleep_forever))
    ),
    "bad_utf8": Mode(
        "invalid UTF-8 (a Latin-1 byte) inside a string of an extra field of every run answer",
        answer=answer_bytes(lambda r: enc_with(setitem(r, "note", "@U@"), "@U@", b'"caf\xe9"')),
    ),
    "raw_control": Mode(
        "a raw NUL byte inside a string of an extra field of every run answer (must be escaped in JSON)",
        answer=answer_bytes(lambda r: enc_with(setitem(r, "note", "@C@"), "@C@", b'"nul\x00here"')),
    ),
    "bom": Mode(
        "a UTF-8 BOM before every run answer (RFC 8259 8.1: a JSON text on the wire has none)",
        answer=answer_bytes(lambda r: BOM + enc(r)),
    ),
    "blank_line": Mode("an empty line before every run answer", answer=answer_bytes(lambda r: b"\n" + enc(r))),
    "trailing_garbage": Mode(
        "words after the answer's closing brace, on the same line",
        answer=answer_bytes(lambda r: enc(r)[:-1] + b" trailing words\n"),
    ),
    "dup_keys": Mode(
        'the key "final" twice in every run answer: a wrong value first, the right one last',
        answer=answer_bytes(duplicate_final),
    ),
    "slow_over": Mode("the N-th run answer after 1.5 x --timeout", answer=at_nth(too_late)),
    "hang_at": Mode(
        "never answers the N-th run request (and reads nothing more)", answer=at_nth(lambda c, r: sleep_forever())
    ),
    "exit_after_start": Mode("answers start, then exits 0 at once", hello=exit_after_hello),
    "close_stdout": Mode(
        "answers start, then closes stdout and keeps running (reading its input, then sleeping)",
        hello=close_stdout_after_hello,
        answer=ignore,
        stop=hang,
    ),
    "trick_float": Mode("trick numbers in events as 1.0, 2.0, 3.0", answer=answer_with(trick_floats)),
    "steps_lists": Mode("every step is a list (of the step object's values)", answer=answer_with(steps_as_lists)),
    "huge_line": Mode(
        "at the N-th run: the right answer with a 20 MB extra field (over the harness's line limit)",
        answer=at_nth(lambda c, r: put(enc(setitem(r, "padding", "x" * (20 << 20))))),
    ),
    "winner_false": Mode("final.winner false instead of null", answer=answer_with(winner_false)),
    "huge_int": Mode(
        "a 5,000-digit integer as a final score",
        answer=answer_bytes(lambda r: enc_with(with_score(r, "@H@"), "@H@", b"1" + b"0" * 4999)),
    ),
    "nan": Mode("NaN as a final score", answer=answer_with(lambda r: with_score(r, float("nan")))),
    "overflow_number": Mode(
        "1e999 (beyond a double) as a final score",
        answer=answer_bytes(lambda r: enc_with(with_score(r, "@O@"), "@O@", b"1e999")),
    ),
    "missing_final": Mode("no final in any run answer", answer=answer_with(lambda r: popitem(r, "final"))),
    "errored_all": Mode(
        'every run answered {"seq":N,"errored":true}',
        answer=answer_with(lambda r: {"seq": r.get("seq"), "errored": True}),
    ),
    "stale": Mode(
        "answers to the wrong request: each run answer is the previous request's, with this request's seq",
        answer=stale,
    ),
    "phantom_ruleset": Mode(
        "announces vitou/1.0.0 (and the rest) but serves none of them: every run is 'unknown ruleset'",
        answer=phantom,
    ),
    # ---------------------------------------------- no usable handshake
    "hang_start": Mode("never answers start (never even reads it)", launch=hang),
    "exit_at_start": Mode("reads start, exits 0 without a word", hello=lambda c, r: os._exit(0)),
    "close_stdout_at_start": Mode(
        "closes stdout before anything and keeps running",
        launch=close_stdout_now,
        hello=ignore_hello,
        answer=ignore,
        stop=hang,
    ),
    "garbage_before_start": Mode("100,000 lines of garbage on stdout before the handshake", launch=garbage_first),
    "protocol_true": Mode('handshake "protocol": true', hello=hello_with(lambda r: setitem(r, "protocol", True))),
    "protocol_string": Mode('handshake "protocol": "1"', hello=hello_with(lambda r: setitem(r, "protocol", "1"))),
    "protocol_float": Mode('handshake "protocol": 1.0', hello=hello_with(lambda r: setitem(r, "protocol", 1.0))),
    "protocol_2": Mode('handshake "protocol": 2', hello=hello_with(lambda r: setitem(r, "protocol", 2))),
    "rulesets_string": Mode(
        'handshake "rulesets": "vitou/1.0.0" (a string, not a list)',
        hello=hello_with(lambda r: setitem(r, "rulesets", "vitou/1.0.0")),
    ),
    "rulesets_null": Mode('handshake "rulesets": null', hello=hello_with(lambda r: setitem(r, "rulesets", None))),
    "no_implementation": Mode(
        "handshake without its required 'implementation'", hello=hello_with(lambda r: popitem(r, "implementation"))
    ),
    "handshake_list": Mode("the handshake is [1]", hello=hello_bytes(lambda r: b"[1]\n")),
    "nested_handshake": Mode("the handshake is 1,000 nested [", hello=hello_bytes(lambda r: NESTED)),
    "handshake_errored": Mode(
        "start answered as an errored request",
        hello=hello_with(lambda r: {"seq": None, "errored": True, "message": "not today"}),
    ),
    "bom_handshake": Mode("a UTF-8 BOM before the handshake", hello=hello_bytes(lambda r: BOM + enc(r))),
    "bad_utf8_handshake": Mode(
        "invalid UTF-8 in the implementation's name in the handshake",
        hello=hello_bytes(bad_name),
    ),
    # ---------------------------------------------- round two: processes and resources
    "fork_chain": Mode(
        "a child in a session of its own (setsid) that forks and exits every 2 ms, SIGTERM ignored; answers right",
        launch=fork_chain_with(os.setsid),
    ),
    "fork_chain_pgid": Mode(
        "a child in a process group of its own (setpgid, same session) that forks and exits every 2 ms",
        launch=fork_chain_with(lambda: os.setpgid(0, 0)),
    ),
    "memory_balloon": Mode(
        "at the N-th run: allocates 16 MiB after 16 MiB, written, without end", answer=at_nth(memory_balloon)
    ),
    "disk_filler": Mode(
        "at the N-th run: writes a file in its working directory without end (SIGXFSZ at its default)",
        answer=at_nth(disk_filler),
    ),
    "fd_opener": Mode(
        "at the N-th run: opens files without end, and exits 1 saying why when it cannot", answer=at_nth(fd_opener)
    ),
    "cpu_spinner": Mode("at the N-th run: spins on the CPU without end", answer=at_nth(cpu_spinner)),
}


# ------------------------------------------------------------------ serving


def serve(c: Ctx, mode: Mode) -> None:
    server = build_server()
    mode.launch(c)
    stdin = sys.stdin.buffer
    runs = 0
    while True:
        raw = stdin.readline()
        if not raw:
            mode.stop(c)
            return
        text = raw.decode("utf-8", errors="replace")
        if not text.strip():
            continue
        try:
            req = json.loads(text)
        except ValueError:
            req = None
        cmd = req.get("cmd") if isinstance(req, dict) else None
        if cmd == "stop":
            mode.stop(c)
            return
        resp = server.handle(text)
        if cmd == "start" and isinstance(resp, dict) and "protocol" in resp:
            mode.hello(c, resp)
        elif cmd == "run" and isinstance(resp, dict):
            runs += 1
            snapshot = json.loads(json.dumps(resp))  # before a mode changes it in place
            mode.answer(c, runs, resp)
            c.prev = snapshot
        else:
            put(enc(resp))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hostile_impl.py", description=__doc__.split("\n")[0])
    parser.add_argument("mode", nargs="?", choices=sorted(MODES), metavar="MODE")
    parser.add_argument("--timeout", type=float, default=10.0, help="the harness's --timeout (default 10)")
    parser.add_argument("--start-timeout", type=float, default=30.0, help="the harness's --start-timeout (default 30)")
    parser.add_argument("--at", type=int, default=2, help="the run request a one-off fault hits (default 2)")
    parser.add_argument("--list", action="store_true", help="list the modes")
    args = parser.parse_args(argv)
    if args.list or args.mode is None:
        for name, m in MODES.items():
            print(f"{name:24} {m.doc}")
        return 0 if args.list else 2
    ctx = Ctx(args.timeout, args.start_timeout, args.at, os.environ.get(TOKEN_VAR, "no-token"))
    try:
        serve(ctx, MODES[args.mode])
    except OSError:
        pass  # the harness closed the pipes or killed a peer: nothing more to say
    except Exception as exc:  # a bug here, not an attack: one line, never a traceback the harness could show
        tb = exc.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        where = f" (line {tb.tb_lineno})" if tb is not None else ""
        err(f"hostile_impl {args.mode}: {type(exc).__name__}: {exc}{where}\n".encode())
        os._exit(70)
    os._exit(0)


if __name__ == "__main__":
    raise SystemExit(main())
