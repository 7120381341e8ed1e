"""Process supervision: every process an implementation starts is found and ended with it.

An implementation under test may fork children that keep its pipes open,
leave its process group, start a session of their own, or double-fork so
that their parent is gone, or fork and exit every few milliseconds so that
no pid lasts. The harness finds them all on Linux:

* it becomes a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``), so an
  orphaned descendant is re-parented to the harness rather than to init, and
  a reaper thread reaps their zombies while the run goes on;
* every implementation is started with a token in its environment
  (``VITOU_SUPERVISOR``) that its children inherit;
* when a connection ends, the harness ends, in rounds until two scans of
  ``/proc`` 10 ms apart find nothing alive: the implementation's process group and
  session, every descendant of the implementation, every process that
  carries its token, every orphan re-parented to the harness since it
  started, and the whole process group and session of each of these (a
  fork chain changes its pid, never its group or session). Each round stops
  them (SIGSTOP) and then kills them (SIGKILL); the rounds are bounded, and
  whatever is still alive after them is named on stderr.

A chain that starts a new session at every generation is only chased, round
after round; a cgroup would hold it, and needs privileges the harness does
not ask for. Elsewhere (macOS, the BSDs: no ``/proc``) only the process
group and the session are ended: a child that leaves both may survive.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time
import uuid
from dataclasses import dataclass

ENV_TOKEN = "VITOU_SUPERVISOR"
_PR_SET_CHILD_SUBREAPER = 36
_PROC = "/proc"
_lock = threading.RLock()  # held while spawning and while scanning: a child just started is never taken for an orphan
_live: dict[int, Supervised] = {}  # implementation pid -> what is known of it
_state = {"subreaper": False}
_ending: set[int] = set()  # implementations being ended (see _chase)


@dataclass(frozen=True)
class Supervised:
    """One started implementation: its pid, its token and when it started (in clock ticks since boot)."""

    pid: int
    token: str
    started: int


@dataclass(frozen=True)
class _Proc:
    pid: int
    ppid: int
    pgrp: int
    session: int
    start: int
    zombie: bool


def new_token() -> str:
    return uuid.uuid4().hex


def become_subreaper() -> bool:
    """Make this process the subreaper of its descendants (Linux); whether that holds."""
    if _state["subreaper"]:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        _state["subreaper"] = bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        _state["subreaper"] = False
    if _state["subreaper"]:
        # Orphans now come to this process: their zombies must be reaped while the run goes on.
        threading.Thread(target=_reaper, name="vitou-reaper", daemon=True).start()
    return _state["subreaper"]


def _read_stat(pid: int) -> _Proc | None:
    try:
        with open(f"{_PROC}/{pid}/stat", "rb") as fh:
            raw = fh.read()
    except OSError:
        return None
    # The command name may hold spaces and parentheses: the fields start after the last ')'.
    fields = raw[raw.rfind(b")") + 2 :].split()
    try:
        return _Proc(pid, int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19]), fields[0] == b"Z")
    except (IndexError, ValueError):
        return None


def _has_token(pid: int, token: bytes) -> bool:
    try:
        with open(f"{_PROC}/{pid}/environ", "rb") as fh:
            return token in fh.read()
    except OSError:
        return False


def _processes() -> list[_Proc]:
    try:
        names = os.listdir(_PROC)
    except OSError:
        return []
    out = []
    for name in names:
        if name.isdigit():
            p = _read_stat(int(name))
            if p is not None:
                out.append(p)
    return out


def spawning() -> threading.RLock:
    """Hold this while starting an implementation and registering it (``with spawning(): ...``)."""
    return _lock


def register(pid: int, token: str) -> Supervised:
    p = _read_stat(pid)
    s = Supervised(pid, token, p.start if p is not None else 0)
    with _lock:
        _live[pid] = s
    return s


def _protected(s: Supervised) -> set[int]:
    """Groups and sessions never signalled: the harness's own, and those of the other implementations running."""
    with _lock:
        others = {pid for pid in _live if pid != s.pid}
    return {0, 1, os.getpgrp(), os.getsid(0)} | others


def _doomed(s: Supervised, procs: list[_Proc], sessions: set[int], groups: set[int]) -> set[int]:
    """The live processes that belong to ``s``: its tree, its groups and sessions, its token, its orphans."""
    me = os.getpid()
    mine = os.getsid(0)
    with _lock:
        others = {pid for pid in _live if pid != s.pid}
    children: dict[int, list[int]] = {}
    for p in procs:
        children.setdefault(p.ppid, []).append(p.pid)
    found: set[int] = set()
    stack = [s.pid]
    while stack:  # the descendants that still hang from the implementation
        pid = stack.pop()
        for c in children.get(pid, ()):
            if c not in found:
                found.add(c)
                stack.append(c)
    token = f"{ENV_TOKEN}={s.token}".encode()
    for p in procs:
        if p.pid in (me, s.pid) or p.pid in others or p.zombie:
            continue
        in_run = p.pgrp in groups or p.session in sessions or _orphan(s, p, me, mine)
        if in_run or (p.start >= s.started and _has_token(p.pid, token)):
            found.add(p.pid)
    # A descendant of the orphans found (an orphan's own children) goes too.
    stack = list(found)
    while stack:
        for c in children.get(stack.pop(), ()):
            if c not in found and c != me:
                found.add(c)
                stack.append(c)
    found.discard(me)
    return {pid for pid in found if pid not in others}


def _orphan(s: Supervised, p: _Proc, me: int, mine: int) -> bool:
    # An orphan re-parented to the harness while this implementation ran. A child that shares the harness's
    # session is the harness's own (another thread's subprocess): the implementation runs in a session of its
    # own, and nothing it starts can join the harness's.
    return p.ppid == me and p.start >= s.started and _state["subreaper"] and p.session != mine


def end(s: Supervised, rounds: int = 200, seconds: float = 5.0) -> list[int]:
    """End everything that belongs to the implementation, whole groups and sessions; the pids left, if any.

    Each round scans the process table, adds the groups and sessions of what
    it finds (alive, or a zombie it left) to those already doomed, stops them
    all (a stopped process cannot fork) and kills them, groups at once;
    rounds go on until two scans 10 ms apart find nothing alive and no new
    zombie, or the rounds or the seconds run out.
    """
    with contextlib.suppress(OSError):
        os.killpg(s.pid, signal.SIGKILL)
    left: list[int] = []
    if sys.platform.startswith("linux") and os.path.isdir(_PROC):
        left = _chase(s, rounds, time.monotonic() + seconds)
    with _lock:
        _live.pop(s.pid, None)
    if left:
        shown = ", ".join(map(str, left[:10]))
        print(f"vitou: {len(left)} process(es) the implementation started could not be ended: {shown}", file=sys.stderr)
    return left


def _chase(s: Supervised, rounds: int, deadline: float) -> list[int]:
    protected = _protected(s)
    sessions = {s.pid}
    groups = {s.pid}
    alive: list[_Proc] = []
    exited: set[int] = set()  # the run's zombies seen so far: a new one is a process that was alive
    quiet = 0
    with _lock:
        _ending.add(s.pid)  # the reaper leaves this run's zombies alone: they tell where a fork chain lives
    try:
        for n in range(rounds):
            with _lock:  # no other thread is between starting a child and registering it
                procs = _processes()
                doomed = _doomed(s, procs, sessions, groups)
                zombies = _zombies(s, procs, sessions, groups)
            alive = [p for p in procs if p.pid in doomed and not p.zombie]
            # A generation of a fork chain lives a few ms, and a scan may miss it; the zombie it leaves with the
            # harness, its subreaper, keeps its group and session, and so gives the chain away.
            new = [p for p in zombies if p.pid not in exited]
            exited.update(p.pid for p in new)
            found_groups = {p.pgrp for p in (*alive, *new)} - protected
            sessions |= {p.session for p in (*alive, *new)} - protected
            groups |= found_groups
            _signal(found_groups, alive)
            quiet = 0 if alive or new else quiet + 1
            if quiet >= 2 or time.monotonic() > deadline:  # two scans 10 ms apart found nothing: all gone
                break
            time.sleep(0.01 if quiet else 0.001 * (n >= 3))
        with _lock:
            _reap_zombies(_zombies(s, _processes(), sessions, groups))
    finally:
        with _lock:
            _ending.discard(s.pid)
    return [p.pid for p in alive] if quiet < 2 else []


def _signal(groups: set[int], alive: list[_Proc]) -> None:
    """Stop everything first (a stopped process cannot fork), then kill it: whole groups, then each process."""
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        for g in groups:  # groups seen in this very scan: never a pgid since reused
            with contextlib.suppress(OSError):
                os.killpg(g, sig)
        for p in alive:
            with contextlib.suppress(OSError):
                os.kill(p.pid, sig)


def _zombies(s: Supervised, procs: list[_Proc], sessions: set[int], groups: set[int]) -> list[_Proc]:
    """The harness's zombie children that were the implementation's (never one it waits for itself)."""
    me = os.getpid()
    mine = os.getsid(0)
    with _lock:
        live = set(_live)
    return [
        p
        for p in procs
        if p.zombie
        and p.ppid == me
        and p.pid not in live
        and (p.session in sessions or p.pgrp in groups or _orphan(s, p, me, mine))
    ]


def _reap_zombies(zombies: list[_Proc]) -> None:
    """Each zombie holds a pid until it is reaped."""
    for p in zombies:
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(p.pid, os.WNOHANG)


def reap_orphans() -> None:
    """While implementations run: reap the zombies of the orphans they left (a fork chain leaves 500 a second)."""
    with _lock:
        running = list(_live.values())
        if not running:
            return
        procs = _processes()
        for s in running:
            if s.pid not in _ending:
                _reap_zombies(_zombies(s, procs, {s.pid}, {s.pid}))


def _has_zombie_child() -> bool:
    try:
        return os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return False


def _reaper() -> None:
    while True:
        time.sleep(0.2)
        # waitid(WNOWAIT) is one cheap call: the process table is read only when some child has exited.
        if _has_zombie_child():
            with contextlib.suppress(Exception):  # a reaper that dies would let zombies fill the pid table
                reap_orphans()


def end_all() -> None:
    """Whatever is still supervised at exit is ended: no path out of the harness leaves a process behind."""
    with _lock:
        pending = list(_live.values())
    for s in pending:
        with contextlib.suppress(OSError):
            os.kill(s.pid, signal.SIGKILL)
        end(s)
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(s.pid, os.WNOHANG)


atexit.register(end_all)
