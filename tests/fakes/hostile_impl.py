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


# ---- round two: text that reaches a renderer (names, versions and cards that are markup or controls)

MARKUP = "<img src=x onerror=alert(1)>"
SCRIPT = "<script>alert(1)</script>"
C1 = "\u009b2J\u009d0;owned\u0007\u2028\u2029"  # CSI, OSC and the line separators JSON leaves raw
NONCHARS = "\uffff\ufffe"  # XML 1.0 forbids both
BIDI = "\u202eevil\u202c\u2066x\u2069"  # a right-to-left override: "live" shown as "evil"
MARKDOWN = "*em* _u_ [link](http://x) `code` | cell | &amp; ]]> # h ~~s~~ $x$"


def named(name: str, version: str | None = None) -> Callable[[Ctx, Json], None]:
    """The handshake with the implementation's name (and version) replaced: free text, protocol.md says."""

    def hook(c: Ctx, r: Json) -> None:
        impl = dict(r.get("implementation") or {}, name=name)
        if version is not None:
            impl["version"] = version
        # ASCII JSON: a lone surrogate is an escape on the wire, never a byte UTF-8 cannot hold.
        put(json.dumps(dict(r, implementation=impl), separators=(",", ":")).encode() + b"\n")

    return hook


def with_card(card: str) -> Callable[[Json], Json]:
    """The first legal set of the answer with one more card, ``card``: a wrong legal set."""

    def f(r: Json) -> Json:
        for holder in [r, *[s for s in r.get("steps", []) if isinstance(s, dict)]]:
            if isinstance(holder.get("legal"), list):
                holder["legal"] = [*holder["legal"], card]
                break
        return r

    return f


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


# ---- round two: certify's words and outputs (first-time implementers' failures, links planted during a run)

PLANT_VAR = "VITOU_HOSTILE_PLANT"  # output paths, os.pathsep apart, where plant_links puts links...
VICTIM_VAR = "VITOU_HOSTILE_VICTIM"  # ...to this file, which the harness must never write
TRACEBACK = (
    b"Traceback (most recent call last):\n"
    b'  File "my_adapter.py", line 1, in <module>\n'
    b"    import my_engine\n"
    b"ModuleNotFoundError: No module named 'my_engine'\n"
)


def import_error(c: Ctx) -> None:
    err(TRACEBACK)
    os._exit(1)


def print_then_exit(c: Ctx) -> None:
    put(b"1\n")
    os._exit(0)


def traceback_then_hang(c: Ctx) -> None:
    err(TRACEBACK.replace(b"ModuleNotFoundError: No module named 'my_engine'", b"RuntimeError: no licence file"))
    sleep_forever()


def escapes_then_exit(c: Ctx) -> None:
    err(b"\x1b[2J\x1b]0;pwned\x07fatal: no licence\x1b[31m\r\n")
    os._exit(3)


def plant_links() -> None:
    """A link to the victim at every path named in VITOU_HOSTILE_PLANT, replacing what is there."""
    victim = os.environ.get(VICTIM_VAR)
    for path in filter(None, os.environ.get(PLANT_VAR, "").split(os.pathsep)):
        if victim:
            if os.path.lexists(path):
                os.unlink(path)
            os.symlink(victim, path)


def plant_then_wrong(c: Ctx, n: int, r: Json) -> None:
    if n == 1:
        plant_links()
    if n == c.at and isinstance(r.get("final"), dict):
        r["final"]["score"] = {k: v + 1 for k, v in r["final"]["score"].items()}
    put(enc(r))


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


# ---- round two: reports (an identity made to pass for another report's)
REFERENCE_LABEL = "the bundled reference (python -m vitou_ref.adapter)"  # what certify records as its command


def as_implementation(name: str, version: str) -> Callable[[Json], Json]:
    def hello(r: Json) -> Json:
        return setitem(r, "implementation", {**r.get("implementation", {}), "name": name, "version": version})

    return hello


def errored_every(k: int) -> Callable[[Ctx, int, Json], None]:
    """Every k-th run answered as errored, the reference's answer otherwise: a record unlike the reference's."""

    def hook(c: Ctx, n: int, r: Json) -> None:
        send(c, n, {"seq": r.get("seq"), "errored": True} if n % k == 0 else r)

    return hook


# ---- round two: the outcome level (an engine that reports no error codes, and a handshake that says so wrongly)


def error_codes_as(value: Any) -> Callable[[Json], Json]:
    """The handshake with ``error_codes`` set to ``value``: the protocol allows only true or false."""
    return lambda r: setitem(r, "error_codes", value)


def refused_in_markup(r: Json) -> Json:
    """Every refused step's error an object whose code and message are markup: any refusal at the outcome level."""
    for i, step in enumerate(r.get("steps") or []):
        if isinstance(step, dict) and step.get("ok") is False:
            error = {"code": MARKUP, "message": f"{SCRIPT} ]]> *no* [x](http://x) \x1b[31m"}
            r["steps"][i] = {"ok": False, "error": error, "message": SCRIPT}
    return r


@dataclass(frozen=True)
class Mode:
    doc: str
    launch: Callable[[Ctx], None] = nothing
    hello: Callable[[Ctx, Json], None] = send_hello
    answer: Callable[[Ctx, int, Json], None] = send
    stop: Callable[[Ctx], None] = exit_now
    keep_serving: bool = False  # a stop line is skipped like a blank one: it serves on, to the end of its input


# Round two's modes (defined above), joined to MODES at its end.
ROUND_TWO: dict[str, Mode] = {
    "import_error": Mode("a traceback (ModuleNotFoundError) on stderr and exit 1, before reading", launch=import_error),
    "print_exit": Mode('prints "1" and exits 0 before reading its input', launch=print_then_exit),
    "banner": Mode(
        "prints a banner line before anything is asked, then serves like the reference",
        launch=lambda c: put(b"MyEngine 0.1 ready, type help\n"),
    ),
    "traceback_hang": Mode("a traceback (RuntimeError) on stderr, then hangs unread", launch=traceback_then_hang),
    "other_ruleset": Mode(
        "offers only nobody-asked/1.0.0", hello=hello_with(lambda r: setitem(r, "rulesets", ["nobody-asked/1.0.0"]))
    ),
    "escapes_at_start": Mode("terminal escapes and an error on stderr, then exit 3", launch=escapes_then_exit),
    "plant_links": Mode(
        "at its first run request, links to $VITOU_HOSTILE_VICTIM at the paths in $VITOU_HOSTILE_PLANT; "
        "then one wrong score at the N-th",
        answer=plant_then_wrong,
    ),
}

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
    "serve_after_stop": Mode("ignores stop and keeps serving; exits 0 at the end of its input", keep_serving=True),
    "exit_1_at_stop": Mode("exits with status 1 at stop (and at the end of its input)", stop=lambda c: os._exit(1)),
    "exit_255_at_stop": Mode(
        "exits with status 255 at stop (and at the end of its input)", stop=lambda c: os._exit(255)
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
    # ---- round two: reports (an identity made to pass for another report's)
    "forge_label": Mode(
        f'handshake version "1.0.0 ({REFERENCE_LABEL})": the label vitou report gives the bundled reference\'s run;'
        " every second run answered as errored",
        hello=hello_with(as_implementation("vitou-ref", f"1.0.0 ({REFERENCE_LABEL})")),
        answer=errored_every(2),
    ),
    "mimic_reference": Mode(
        "the handshake's name, version and language are the bundled reference's; every third run answered as errored",
        hello=hello_with(as_implementation("vitou-ref", "1.0.0")),
        answer=errored_every(3),
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
    **ROUND_TWO,
    # ---- round two: text that reaches a renderer
    "markup_name": Mode(
        f"the implementation's name is {MARKUP!r} and its version {SCRIPT!r}", hello=named(MARKUP, SCRIPT)
    ),
    "markdown_name": Mode("the implementation's name and version are Markdown markup", hello=named(MARKDOWN, MARKDOWN)),
    "bidi_name": Mode("the implementation's name holds a right-to-left override and isolates", hello=named(BIDI)),
    "c1_name": Mode("the implementation's name holds C1 controls (CSI, OSC) and U+2028", hello=named(C1, C1)),
    "nonchar_name": Mode("the implementation's name holds U+FFFF and U+FFFE", hello=named(NONCHARS, NONCHARS)),
    "surrogate_name": Mode("the implementation's name is a lone surrogate escape", hello=named("\ud800x\udfff")),
    "markup_card": Mode(
        f"the name and a card of the legal set are {MARKUP!r}",
        hello=named(MARKUP),
        answer=answer_with(with_card(MARKUP)),
    ),
    "markdown_card": Mode("a card of the legal set is Markdown markup", answer=answer_with(with_card(MARKDOWN))),
    "c1_card": Mode(
        "the name and a card of the legal set hold C1 controls and U+2028",
        hello=named(C1),
        answer=answer_with(with_card(C1)),
    ),
    "nonchar_card": Mode(
        "the name and a card of the legal set hold U+FFFF and U+FFFE",
        hello=named(NONCHARS),
        answer=answer_with(with_card(NONCHARS + "]]>")),
    ),
    "bidi_card": Mode("a card of the legal set holds a right-to-left override", answer=answer_with(with_card(BIDI))),
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


# ---- round two: the comparison: fields a receiver ignores, and slow start plus a hang
#
# Clarification 27 and docs/reference/protocol.md: messages are open, actions are closed. A field the
# protocol does not name, in any object of an answer (the top level, a step, an event, final,
# a score, the handshake, an errored answer), is ignored; an action, in a legal set too, never
# gains one. The counter-modes change a field the protocol names and must still fail.

DEBUG = {"x_debug": {"nested": [1, {"deeper": [None, True, "text"]}], "empty": {}}, "x_ms": 1}


def events_of(r: Json) -> list[Json]:
    return [e for s in r.get("steps", []) if s.get("ok") for e in s.get("events", [])]


def each_event(kind: str, extra: Json) -> Callable[[Json], Json]:
    """Every event of ``kind`` (or of every kind: ``*``) with the fields ``extra`` added."""

    def f(r: Json) -> Json:
        for e in events_of(r):
            if kind in ("*", e.get("event")):
                e.update(extra)
        return r

    return f


def extra_in_final(r: Json) -> Json:
    if isinstance(r.get("final"), dict):
        r["final"].update(DEBUG)
    return r


def extra_in_scores(r: Json) -> Json:
    # The score schema holds every key of a score to a whole number: the extra key is one.
    for holder in [r.get("final"), *events_of(r)]:
        if isinstance(holder, dict) and isinstance(holder.get("score"), dict):
            holder["score"]["x_tiebreak"] = 7
    return r


def extra_in_steps(ok: bool) -> Callable[[Json], Json]:
    def f(r: Json) -> Json:
        for s in r.get("steps", []):
            if s.get("ok") is ok:
                s.update(DEBUG)
        return r

    return f


def extra_everywhere(r: Json) -> Json:
    for f in (each_event("*", DEBUG), extra_in_final, extra_in_steps(True), extra_in_steps(False)):
        r = f(r)
    return {**r, **DEBUG}


def colliding_names(r: Json) -> Json:
    """Extra fields named as protocol fields of another object, with values that would be wrong there."""
    for s in r.get("steps", []):
        if s.get("ok"):
            s["error"] = "NOT_YOUR_TURN"  # error belongs to a rejected step
            s["final"] = {"winner": "NS"}
        else:
            s["events"] = [{"event": "match", "winner": "NS"}]  # events and legal belong to an accepted step
            s["legal"] = [{"seat": "N", "act": "refuse"}]
    for e in events_of(r):
        if e.get("event") == "trick":
            e.update(points=12, reason="refusal", score={"NS": 20, "EW": 20})  # a hand event's fields
        elif e.get("event") == "hand":
            e.update(trick=3, dealer="X")
        else:
            e.update(points="baraque", trick=1)
    if isinstance(r.get("final"), dict):
        r["final"].update(events=[], legal=[{"act": "pass"}], points=99, reason="void", ok=False)
    r["message"] = "a run answer may carry an errored answer's message: it is ignored"
    return r


def extra_errored(c: Ctx, n: int, r: Json) -> None:
    if r.get("errored") is True:
        r.update(DEBUG, code="UNKNOWN_RULESET", steps=[{"ok": False}])
    put(enc(r))


def winner_list(r: Json) -> Json:
    for e in events_of(r):
        if e.get("event") == "trick":
            e["winner"] = [e.get("winner")]
    return r


def drop_from_events(kind: str, key: str) -> Callable[[Json], Json]:
    def f(r: Json) -> Json:
        for e in events_of(r):
            if e.get("event") == kind:
                e.pop(key, None)
        return r

    return f


def drop_final(key: str) -> Callable[[Json], Json]:
    def f(r: Json) -> Json:
        if isinstance(r.get("final"), dict):
            r["final"].pop(key, None)
        return r

    return f


def score_points_text(r: Json) -> Json:
    for e in events_of(r):
        if e.get("event") == "hand" and isinstance(e.get("score"), dict):
            e["score"] = {k: str(v) for k, v in e["score"].items()}
    return r


def legal_action_extra(r: Json) -> Json:
    for s in r.get("steps", []):
        if s.get("ok") and s.get("legal"):
            s["legal"][0] = {**s["legal"][0], "x_hint": True}  # an action gains no field: another action
    return r


def extra_event(r: Json) -> Json:
    for s in r.get("steps", []):
        if s.get("ok") and s.get("events"):
            s["events"].append({"event": "x_note", "text": "an extra event is not an extra field"})
    return r


def slow_start_then_hang(c: Ctx, n: int, r: Json) -> None:
    if n >= c.at:
        sleep_forever()
    put(enc(r))


MODES.update(
    {
        # ---- round two: extra fields where the protocol lets a receiver ignore them: conformant
        "extra_trick_field": Mode(
            'every trick event with "x_ms":1 (the issue\'s example)',
            answer=answer_with(each_event("trick", {"x_ms": 1})),
        ),
        "extra_hand_field": Mode(
            "every hand event with extra fields, one an object of nested arrays and objects",
            answer=answer_with(each_event("hand", DEBUG)),
        ),
        "extra_match_field": Mode(
            "every match event with extra fields (an object, a number)", answer=answer_with(each_event("match", DEBUG))
        ),
        "extra_final_field": Mode("final with extra fields (an object, a number)", answer=answer_with(extra_in_final)),
        "extra_score_field": Mode(
            "every score (final's, each hand event's) with an extra whole-number key",
            answer=answer_with(extra_in_scores),
        ),
        "extra_step_field": Mode("every accepted step with extra fields", answer=answer_with(extra_in_steps(True))),
        "extra_rejected_field": Mode(
            "every rejected step (the error object) with extra fields", answer=answer_with(extra_in_steps(False))
        ),
        "extra_errored_field": Mode(
            "every errored answer with extra fields, a code and steps among them", answer=extra_errored
        ),
        "extra_handshake_nested": Mode(
            "the handshake's implementation object and top level with nested extra fields",
            hello=hello_with(lambda r: {**setitem(r, "implementation", {**r["implementation"], **DEBUG}), **DEBUG}),
        ),
        "extra_everywhere": Mode(
            "nested extra fields in every object of every run answer at once", answer=answer_with(extra_everywhere)
        ),
        "extra_colliding_names": Mode(
            "extra fields named as the protocol's fields of other objects (error in an accepted step, points in a "
            "trick event, events in final, ...)",
            answer=answer_with(colliding_names),
        ),
        # ---- round two: named fields missing or wrong: still not conformant
        "winner_list": Mode("every trick event's winner as a list", answer=answer_with(winner_list)),
        "no_trick_winner": Mode(
            "every trick event without its winner", answer=answer_with(drop_from_events("trick", "winner"))
        ),
        "no_hand_points": Mode(
            "every hand event without its points", answer=answer_with(drop_from_events("hand", "points"))
        ),
        "no_final_dealer": Mode("final without its dealer", answer=answer_with(drop_final("dealer"))),
        "score_as_text": Mode('every hand event\'s score with "3" for 3', answer=answer_with(score_points_text)),
        "legal_action_extra": Mode(
            "the first action of every accepted step's legal set with an extra field (actions are closed)",
            answer=answer_with(legal_action_extra),
        ),
        "extra_event": Mode(
            "an event of an unknown kind after the events of every step that has some",
            answer=answer_with(extra_event),
        ),
        # ---- round two: the outcome level
        "error_codes_string": Mode('handshake "error_codes": "false"', hello=hello_with(error_codes_as("false"))),
        "error_codes_zero": Mode('handshake "error_codes": 0', hello=hello_with(error_codes_as(0))),
        "error_codes_null": Mode('handshake "error_codes": null', hello=hello_with(error_codes_as(None))),
        "nocodes_markup": Mode(
            'handshake "error_codes": false; every refused step\'s error an object whose code and message are markup',
            hello=hello_with(error_codes_as(False)),
            answer=answer_with(refused_in_markup),
        ),
        # ---- round two: slow start plus a hang
        "slow_start_hang": Mode(
            "the handshake between --timeout and --start-timeout, then never answers its --at-th run request",
            hello=slow_start,
            answer=slow_start_then_hang,
        ),
    }
)


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
            if mode.keep_serving:
                continue
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


# ---- round two: the pack as data (cards of the French pack that the ruleset in force does not play)


def with_play_of(card: str) -> Callable[[Json], Json]:
    """The first legal set of the answer with one more play, of ``card``, by the seat of its first action."""

    def f(r: Json) -> Json:
        for holder in [r, *[s for s in r.get("steps", []) if isinstance(s, dict)]]:
            legal = holder.get("legal")
            if isinstance(legal, list) and legal and isinstance(legal[0], dict) and "seat" in legal[0]:
                holder["legal"] = [*legal, {"seat": legal[0]["seat"], "act": "play", "card": card}]
                break
        return r

    return f


MODES.update(
    {
        "foreign_card": Mode(
            "a legal set offers a play of 3S, a card of the French pack but not of Vitou's",
            answer=answer_with(with_play_of("3S")),
        ),
    }
)


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
