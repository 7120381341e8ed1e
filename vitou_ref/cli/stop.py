"""Ctrl-C and SIGTERM: a command unwinds through its ``finally`` blocks and exits 130 or 143, without a traceback."""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM)
NAMES = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}


class Stopped(KeyboardInterrupt):
    """A signal asked the command to stop; every ``except KeyboardInterrupt`` treats it as Ctrl-C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


# The signals received, kept: a raise inside a callback Python calls for
# itself (the garbage collector's, which hypothesis sets during fuzz) is
# lost, printed as "Exception ignored", and the command would go on. Such a
# lost stop is not printed, and long loops call check(), which raises it again.
_received: list[int] = []


def _quiet(hook: Callable[[Any], object]) -> Callable[[Any], object]:
    def unraisable(info: Any) -> object:
        if isinstance(info.exc_value, Stopped):
            return None  # kept in _received, raised again by check()
        return hook(info)

    return unraisable


def _stop(signum: int, frame: Any) -> None:
    _received.append(signum)
    raise Stopped(signum)


def install() -> Callable[[], None]:
    """Both signals raise Stopped from now on; the function returned puts back the handlers there were."""
    _received.clear()
    if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
        return lambda: None
    # A signal ignored when vitou started (a job started in the background by a
    # script ignores ^C) stays ignored, as Python leaves it.
    before = {s: signal.signal(s, _stop) for s in SIGNALS if signal.getsignal(s) is not signal.SIG_IGN}
    hook = sys.unraisablehook
    sys.unraisablehook = _quiet(hook)

    def restore() -> None:
        for s, handler in before.items():
            signal.signal(s, handler)
        sys.unraisablehook = hook

    return restore


def received() -> tuple[int, ...]:
    """The signals received since the handlers were installed, first first."""
    return tuple(_received)


def check() -> None:
    """Raise Stopped if a signal came whose raise was swallowed on the way."""
    if _received:
        raise Stopped(_received[0])


def status(exc: KeyboardInterrupt) -> tuple[int, str]:
    """The exit status (as a shell reports a process ended by the signal: 130, 143) and the word for a stop."""
    signum = exc.signum if isinstance(exc, Stopped) else signal.SIGINT
    return 128 + signum, NAMES.get(signal.Signals(signum), "stopped")


def exit_at_once() -> None:
    """After the command: a further signal ends the process now, as the interpreter's own clean-up runs.

    Nothing of the command is left to unwind by then; a second Ctrl-C while
    the interpreter waits on its threads would print a traceback and wait on.
    """
    if threading.current_thread() is threading.main_thread():
        for s in SIGNALS:
            if signal.getsignal(s) is not signal.SIG_IGN:
                signal.signal(s, lambda signum, frame: os._exit(128 + signum))


__all__ = ["Stopped", "check", "exit_at_once", "install", "status"]
