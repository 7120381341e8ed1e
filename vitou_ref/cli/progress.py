"""A progress line on stderr for long runs: rewritten in place on a terminal, cleared at the end, silent in a pipe."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any, TextIO

from ..present import escape
from ..present.terminal import unescaped

HELP = "show progress even when stderr is not a terminal (then as a line every few seconds)"
TERMINAL_EVERY = 0.1  # seconds between redraws on a terminal
LOG_EVERY = 5.0  # seconds between lines in a log, with --progress


class ProgressLine:
    """``label: done/total unit (pct%), N failed, 0:12 elapsed, 0:30 left``, for a run whose total is known.

    What is left is estimated at the pace so far, once a second has gone
    and something is done.

    On a terminal the line is rewritten with ``\\r`` and erased by ``close``,
    so that the output that follows starts on a clean line. With ``force``
    and no terminal (a CI log), a plain line is written every few seconds and
    the last one kept. Otherwise nothing is written. Safe to call from
    several threads.
    """

    def __init__(
        self,
        label: str,
        total: int,
        *,
        unit: str,
        failed: str | None = "failed",
        force: bool = False,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        # The line's own carriage returns must reach the terminal: it writes below the escaping stream,
        # and escapes its text itself (a label may name a ruleset).
        self.stream = unescaped(stream if stream is not None else sys.stderr)
        self.terminal = _isatty(self.stream)
        self.on = self.terminal or force
        self.label, self.total, self.unit, self.failed = label, total, unit, failed
        self.done = self.failures = 0
        self._shown = ""  # what is on the terminal's line now
        self._last = float("-inf")
        self._lock = threading.Lock()
        self._clock = clock
        self._start = clock()

    def __enter__(self) -> ProgressLine:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def update(self, done: int, failures: int = 0) -> None:
        """The run has done ``done`` of its total, with ``failures`` failures so far."""
        with self._lock:
            changed = failures != self.failures
            self.done, self.failures = done, failures
            now = time.monotonic()
            if self.on and (changed or now - self._last >= (TERMINAL_EVERY if self.terminal else LOG_EVERY)):
                self._last = now
                self._write(self.text())

    def advance(self, failed: bool = False) -> None:
        """One more done, a failure or not."""
        self.update(self.done + 1, self.failures + failed)

    def text(self) -> str:
        pct = f" ({100 * self.done // self.total}%)" if self.total and self.done <= self.total else ""
        tail = f", {self.failures} {self.failed}" if self.failed else ""
        elapsed = max(0.0, self._clock() - self._start)
        tail += f", {_clock_time(elapsed)} elapsed"
        if elapsed >= 1.0 and 0 < self.done < self.total:
            tail += f", {_clock_time(elapsed * (self.total - self.done) / self.done)} left"
        return escape.text(f"{self.label}: {self.done}/{self.total} {self.unit}{pct}{tail}")

    def _write(self, text: str) -> None:
        if self.terminal:
            text = text[: _columns(self.stream) - 1]
            self.stream.write("\r" + text + " " * max(0, len(self._shown) - len(text)))
            self._shown = text
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        """Erase the line on a terminal; in a log, write the last count."""
        with self._lock:
            if not self.on:
                return
            if self.terminal and self._shown:
                self.stream.write("\r" + " " * len(self._shown) + "\r")
                self.stream.flush()
                self._shown = ""
            elif not self.terminal and self.done:
                self._write(self.text())
            self.on = False


def certify_listener(line: ProgressLine, then: Callable[[str, Any], None] | None = None) -> Callable[[str, Any], None]:
    """A listener for the kit's ``Certifier``: each case's result advances the line, the run's end erases it.

    ``then``, another listener (the JSON-lines report), hears every event too.
    """

    def listen(kind: str, payload: Any) -> None:
        if then is not None:
            then(kind, payload)
        if kind == "case":
            line.advance(failed=payload.bad)
        elif kind == "end":
            line.close()

    return listen


def _clock_time(seconds: float) -> str:
    """``m:ss``, or ``h:mm:ss`` from an hour."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stream
        return False


def _columns(stream: TextIO) -> int:
    """The terminal's width; 80 when it does not say (a fresh pseudo-terminal reports 0)."""
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        columns = 0
    return columns if columns > 1 else 80


__all__ = ["HELP", "ProgressLine", "certify_listener"]
