"""Ctrl-C and SIGTERM stop a command at once: one line, 130 or 143, no traceback, no process left behind."""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from vitou_ref.cli import main, stop

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process table in /proc")


def _alive_in_group(pgid: int) -> list[int]:
    """The processes of the group that still run (a zombie has ended; only its parent's reaping is left)."""
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path("/proc", entry, "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # after the command's name, which may hold spaces
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(int(entry))
    return alive


def _start(argv: list[str]) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "VITOU_CACHE_DIR": ""}
    return subprocess.Popen(
        [sys.executable, "-m", "vitou_ref", *argv],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # a group of its own, as a terminal's foreground job
    )


def _ended(proc: subprocess.Popen[bytes], within: float) -> tuple[int, str]:
    try:
        _, err = proc.communicate(timeout=within)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"still running {within} s after the signal")
    return proc.returncode, err.decode("utf-8", "replace")


def _no_one_left(pgid: int) -> None:
    deadline = time.monotonic() + 5.0
    while _alive_in_group(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = _alive_in_group(pgid)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"processes of the run outlived it: {left}"


@pytest.mark.parametrize(
    ("signum", "to_group", "status", "word"),
    [(signal.SIGINT, True, 130, "interrupted"), (signal.SIGTERM, False, 143, "terminated")],
    ids=["ctrl-c-to-the-group", "sigterm-to-the-parent"],
)
def test_simulate_on_several_processes_stops_at_once(signum: int, to_group: bool, status: int, word: str) -> None:
    proc = _start(["simulate", "--matches", "50000000", "--jobs", "2"])
    deadline = time.monotonic() + 60.0
    while len(_alive_in_group(proc.pid)) < 3 and time.monotonic() < deadline:  # the parent and its workers
        time.sleep(0.1)
    time.sleep(1.0)  # the workers are playing
    if to_group:
        os.killpg(proc.pid, signum)  # what a terminal sends on ^C
    else:
        proc.send_signal(signum)  # what a service manager or a CI runner sends
    code, err = _ended(proc, 10.0)
    assert (code, err.strip()) == (status, f"vitou: {word}"), err
    _no_one_left(proc.pid)


def test_a_second_ctrl_c_while_the_interpreter_ends_ends_it_without_a_traceback() -> None:
    # The interpreter's own clean-up waits on the threads left: a second ^C then ends it at once.
    code = (
        "import argparse, importlib, os, signal, threading, time\n"
        "m = importlib.import_module('vitou_ref.cli.main')\n"
        "def run(args):\n"
        "    threading.Thread(target=time.sleep, args=(60,)).start()  # the interpreter waits on it at exit\n"
        "    threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()  # the second ^C\n"
        "    raise KeyboardInterrupt  # the first\n"
        "m.parse_args = lambda argv: argparse.Namespace(run=run, output=None)\n"
        "m.console()\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)}, stderr=subprocess.PIPE
    )
    code_, err = _ended(proc, 10.0)
    assert code_ == 130 and "Traceback" not in err and err.count("vitou: interrupted") == 1, err


def test_a_stop_swallowed_by_a_gc_callback_is_raised_again_at_the_next_check(monkeypatch: pytest.MonkeyPatch) -> None:
    # Hypothesis times the collector with a gc callback; a ^C that lands inside it is "ignored" by Python.
    printed: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", printed.append)  # what Python would print as "Exception ignored"
    restore = stop.install()

    def callback(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            signal.raise_signal(signal.SIGINT)  # the handler runs here, and its raise goes nowhere

    gc.callbacks.append(callback)
    try:
        with contextlib.suppress(KeyboardInterrupt):  # should the raise make it out, the check still sees it
            gc.collect()
        with pytest.raises(stop.Stopped):
            stop.check()
    finally:
        gc.callbacks.remove(callback)
        restore()
    assert printed == []  # the stop is not printed as an error of the callback: it is raised again, once


def test_fuzz_stops_on_a_ctrl_c_whose_raise_was_swallowed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from vitou_ref.hunt.fuzz import Fuzzer

    real = Fuzzer.check
    calls = 0

    def check(self: Fuzzer, drawn: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 3:
            stop._received.append(signal.SIGINT)  # as the handler does before a raise that is lost
        return real(self, drawn)

    monkeypatch.setattr(Fuzzer, "check", check)
    status = main(["fuzz", "--examples", "400", "--seed", "1", "--save", str(tmp_path / "f")])
    assert status == 130 and calls < 10, calls
    assert capsys.readouterr().err.strip() == "vitou: interrupted"


def test_a_ctrl_c_that_a_library_turned_into_another_error_is_still_a_stop(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The signal's raise came inside hypothesis, which let another error out in its place (seen once in about a
    # hundred runs of the test below): the stop asked for is the answer, 130, not an internal error.
    from vitou_ref.hunt.fuzz import Fuzzer

    def check(self: Fuzzer, drawn: Any) -> Any:
        stop._received.append(signal.SIGINT)  # as the handler does, before its raise
        raise RuntimeError("")  # what came out of the library instead

    monkeypatch.setattr(Fuzzer, "check", check)
    status = main(["fuzz", "--examples", "400", "--seed", "1", "--save", str(tmp_path / "f")])
    assert (status, capsys.readouterr().err.strip()) == (130, "vitou: interrupted")


def test_fuzz_stops_on_ctrl_c_every_time(tmp_path: Path) -> None:
    for attempt in range(3):
        proc = _start(["fuzz", "--examples", "1000000", "--seed", str(attempt), "--save", str(tmp_path / "f")])
        time.sleep(4.0 + attempt * 0.7)  # started, and fuzzing: hypothesis and its gc callback are in
        os.killpg(proc.pid, signal.SIGINT)
        code, err = _ended(proc, 15.0)
        assert (code, err.strip()) == (130, "vitou: interrupted"), (attempt, err)
        _no_one_left(proc.pid)
