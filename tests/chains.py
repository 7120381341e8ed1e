"""Fork chains in tests: whether one still forks, and ending one that does (a test never leaves one running)."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

TRACE_VAR = "VITOU_HOSTILE_TRACE"  # read by tests/fakes/hostile_impl.py: where a chain writes its heartbeat


def chain_alive(trace: Path, within: float = 0.3) -> bool:
    """Whether the chain that writes ``trace`` (a byte a fork) still forks: the file grows within ``within`` s.

    A generation lives 2 ms, so a scan of /proc seldom catches one; the file always tells.
    """
    before = trace.stat().st_size if trace.exists() else 0
    time.sleep(within)
    return trace.exists() and trace.stat().st_size > before


def end_chain(trace: Path) -> None:
    """Kill a chain through the group and session it wrote first in ``trace``."""
    if not trace.exists() or not trace.read_bytes().strip():
        return
    pgrp, sid = (int(x) for x in trace.read_bytes().split(b"\n", 1)[0].split())
    for _ in range(100):
        with contextlib.suppress(OSError):
            os.killpg(pgrp, signal.SIGKILL)
        for name in os.listdir("/proc"):
            with contextlib.suppress(OSError, IndexError, ValueError), open(f"/proc/{name}/stat", "rb") as fh:
                if int(fh.read().rsplit(b")", 1)[1].split()[3]) == sid:
                    os.kill(int(name), signal.SIGKILL)
        if not chain_alive(trace, 0.05):
            return
