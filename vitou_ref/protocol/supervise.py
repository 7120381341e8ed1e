"""Process supervision: every process an implementation starts is found and ended with it.

An implementation under test may fork children that keep its pipes open,
leave its process group, start a session of their own, or double-fork so
that their parent is gone. The harness finds them all on Linux:

* it becomes a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``), so an
  orphaned descendant is re-parented to the harness rather than to init;
* every implementation is started with a token in its environment
  (``VITOU_SUPERVISOR``) that its children inherit;
* when a connection ends, the harness kills, in rounds until none is left:
  the implementation's process group and session, every descendant of the
  implementation, every process that carries its token, and every orphan
  re-parented to the harness since it started; then it reaps the orphans.

Elsewhere (macOS, the BSDs) only the process group and the session are
ended: a child that leaves both and is orphaned may survive the run.
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


def _doomed(s: Supervised, procs: list[_Proc]) -> set[int]:
    """The processes that belong to ``s``: its tree, its group and session, its token, the orphans since it started."""
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
        if p.pgrp == s.pid or p.session == s.pid:
            found.add(p.pid)
        elif p.ppid == me and p.start >= s.started and _state["subreaper"] and p.session != mine:
            # An orphan re-parented to the harness while this implementation ran. A child that shares the
            # harness's session is the harness's own (another thread's subprocess): the implementation runs
            # in a session of its own, and nothing it starts can join the harness's.
            found.add(p.pid)
        elif p.start >= s.started and _has_token(p.pid, token):
            found.add(p.pid)
    # A descendant of the orphans found (an orphan's own children) goes too.
    stack = list(found)
    while stack:
        for c in children.get(stack.pop(), ()):
            if c not in found and c != me:
                found.add(c)
                stack.append(c)
    found.discard(me)
    return found


def end(s: Supervised, rounds: int = 20) -> None:
    """Kill the implementation's process group and every process that belongs to it; reap the orphans."""
    with contextlib.suppress(OSError):
        os.killpg(s.pid, signal.SIGKILL)
    if sys.platform.startswith("linux") and os.path.isdir(_PROC):
        me = os.getpid()
        for _ in range(rounds):
            with _lock:  # no other thread is between starting a child and registering it
                procs = _processes()
                doomed = _doomed(s, procs)
            alive = [p for p in procs if p.pid in doomed and not p.zombie]
            for p in alive:
                with contextlib.suppress(OSError):
                    os.kill(p.pid, signal.SIGKILL)
            _reap([p.pid for p in procs if p.pid in doomed and p.ppid == me])
            if not alive:
                break
            time.sleep(0.01)  # a fork may have raced the scan: look again
    with _lock:
        _live.pop(s.pid, None)


def _reap(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)


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
