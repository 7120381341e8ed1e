"""The harness ends every process an implementation started, and only those: its own children live on."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from chains import TRACE_VAR, chain_alive, end_chain

from vitou_ref.protocol.connection import Connection
from vitou_ref.protocol.supervise import ENV_TOKEN


def test_closing_a_connection_spares_the_harness_own_children() -> None:
    # Fails before the fix: a child the harness process started itself while a connection was open (as
    # another thread's subprocess does, e.g. tools/code_mutants.py's probe) was taken for an orphan of the
    # implementation, re-parented to the harness, and killed with it.
    conn = Connection([sys.executable, "-m", "vitou_ref.adapter"])
    conn.open()
    own = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        conn.close()
        assert own.poll() is None, "the harness's own child was killed with the implementation"
    finally:
        own.kill()
        own.wait()


# ---- round two: fork chains


HOSTILE = Path(__file__).resolve().parent / "fakes" / "hostile_impl.py"
linux_only = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc to look for survivors")


def _holding(needle: bytes) -> list[int]:
    """The live (not zombie) processes with ``needle`` in their environment."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                if fh.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    continue
            with open(f"/proc/{name}/environ", "rb") as fh:
                if needle in fh.read():
                    found.append(int(name))
        except OSError:
            continue
    return found


def _wait_for(needle: bytes, count: int, within: float) -> list[int]:
    """The holders of ``needle`` once there are ``count`` or more of them (or none, for a count of 0)."""
    deadline = time.monotonic() + within
    while True:
        left = _holding(needle)
        if (len(left) >= count if count else not left) or time.monotonic() > deadline:
            return left
        time.sleep(0.02)


@linux_only
@pytest.mark.parametrize("mode", ["fork_chain", "fork_chain_pgid"])
def test_a_fork_chain_never_outlives_its_connection_20_times_in_a_row(mode: str, tmp_path: Path) -> None:
    # Fails before the fix: the supervisor killed pid by pid from a scan of /proc, and a chain that forks and
    # exits every 2 ms was a new pid by the time the kill came (6 certify runs in 10 left it alive). Its group
    # and session never change: they are what the supervisor must end.
    survivors: dict[int, list[int]] = {}
    traces = [tmp_path / f"chain-{n}" for n in range(20)]
    try:
        for attempt, trace in enumerate(traces):
            os.environ[TRACE_VAR] = str(trace)
            conn = Connection([sys.executable, str(HOSTILE), mode])
            try:
                conn.open()
                assert conn._supervised is not None
                needle = f"{ENV_TOKEN}={conn._supervised.token}".encode()
                assert conn.exchange(b'{"cmd":"start","protocol":1}\n', 30.0).startswith(b"{")
                assert chain_alive(trace, 0.2), "the chain did not start"
            finally:
                conn.close(b'{"cmd":"stop"}\n')
            left = _wait_for(needle, 0, 0.5)
            if left or chain_alive(trace):
                survivors[attempt] = left
    finally:
        os.environ.pop(TRACE_VAR, None)
        for trace in traces:
            end_chain(trace)
    assert not survivors, f"{len(survivors)} connections of 20 left a process behind: {survivors}"


@linux_only
def test_the_zombies_a_fork_chain_leaves_are_reaped_while_it_runs(tmp_path: Path) -> None:
    # Fails before the fix: every generation of a chain re-parented to the harness (a subreaper) is its child,
    # and its exit left a zombie nobody reaped until the connection closed: 500 a second, each holding a pid
    # (32,768 pids on a default Linux), so a long fuzz run could leave the machine unable to fork.
    trace = tmp_path / "chain"
    os.environ[TRACE_VAR] = str(trace)
    conn = Connection([sys.executable, str(HOSTILE), "fork_chain"])
    conn.open()
    os.environ.pop(TRACE_VAR)
    try:
        conn.exchange(b'{"cmd":"start","protocol":1}\n', 30.0)
        time.sleep(1.0)
        me = str(os.getpid()).encode()
        # Several looks, each against the generations made so far (a byte each in the trace, after its first
        # line): without a reaper every generation is still a zombie; with one, a look just after a pass of the
        # reaper finds few. The best look is judged, so a busy machine that slows the reaper cannot fail it.
        ratios = []
        for _ in range(6):
            time.sleep(0.3)
            # Only the chain's own zombies (its session, written first in the trace): a long test session may hold
            # zombies of other tests' orphans, which are no sign of this chain.
            sid = trace.read_bytes().split(b"\n", 1)[0].split()[1]
            zombies = 0
            for name in os.listdir("/proc"):
                with contextlib.suppress(OSError), open(f"/proc/{name}/stat", "rb") as fh:
                    fields = fh.read().rsplit(b")", 1)[1].split()
                    zombies += fields[0] == b"Z" and fields[1] == me and fields[3] == sid
            made = len(trace.read_bytes().split(b"\n", 1)[-1])
            ratios.append((zombies / max(made, 1), zombies, made))
        assert chain_alive(trace), "the chain did not start"
        best = min(ratios)
        assert best[0] < 0.5, f"{best[1]} of the chain's {best[2]} generations wait as zombies to be reaped"
    finally:
        conn.close()
        end_chain(trace)
