"""A connection to an implementation under test: one process, JSON lines, bounded in time and memory."""

from __future__ import annotations

import contextlib
import os
import selectors
import shlex
import signal
import subprocess
import time
from collections import deque
from collections.abc import Sequence

from ..present import escape
from . import supervise as _supervise
from .limits import LimitError, Limits, await_exec
from .startadvice import start_advice

DEFAULT_MAX_LINE = 8 * 1024 * 1024
STDERR_KEEP = 64 * 1024
CHUNK = 1 << 16
SHOWN_LINES = 12  # of stderr's tail, and at most that many of what the peer printed, in a message
SHOWN_WIDTH = 200  # characters of each line shown
LEFTOVER_GRACE = 0.5  # how long an exited peer's last output is awaited, for a message


class Fault(Exception):
    """The implementation did not answer as the protocol requires; ``kind`` is a stable word."""

    def __init__(self, kind: str, message: str, plain: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.plain = plain if plain is not None else message  # without the peer's own words (its stderr)


def split_command(command: str) -> list[str]:
    """``--impl`` split like a shell command line; it is never run through a shell."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise ValueError(f"cannot split the command {command!r}: {exc}") from None
    if not argv:
        raise ValueError("the implementation command is empty")
    return argv


class Connection:
    """One running implementation. ``exchange`` sends a line and returns the one line it answers.

    Every wait has a deadline; the response line has a size limit; stderr is
    drained as it comes and only its last 64 KiB are kept; so whatever the
    implementation does (hang, crash, flood either stream), the harness's time
    and memory stay bounded.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        max_line: int = DEFAULT_MAX_LINE,
        cwd: str | None = None,
        limits: Limits | None = None,
    ) -> None:
        self.argv = list(argv)
        self.limits = limits  # None: the command is run as it is, with the harness's own limits
        self.max_line = max_line
        self.cwd = cwd
        self.proc: subprocess.Popen[bytes] | None = None
        self._sel: selectors.BaseSelector | None = None
        self._out = bytearray()
        self._err: deque[bytes] = deque()
        self._err_size = 0
        self._out_open = False
        self._supervised: _supervise.Supervised | None = None

    # -------------------------------------------------------------- lifetime

    def open(self) -> None:
        _supervise.become_subreaper()
        token = _supervise.new_token()
        env = {**os.environ, _supervise.ENV_TOKEN: token}
        status = report = -1
        try:
            argv, status, report = self._wrapped()
            with _supervise.spawning():
                self.proc = subprocess.Popen(
                    argv,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    cwd=self.cwd,
                    env=env,
                    bufsize=0,
                    start_new_session=True,  # so that a kill reaches its children too
                    pass_fds=(report,) if report >= 0 else (),
                )
                self._supervised = _supervise.register(self.proc.pid, token)
        except LimitError as exc:
            raise Fault("spawn", str(exc)) from None
        except (OSError, ValueError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            advice = start_advice(self.argv[0], self.cwd)
            raise Fault("spawn", f"cannot start {self.argv[0]!r}: {why}{advice}") from None
        finally:
            self._close_report(report)
            if self.proc is None:
                self._close_report(status)  # never started: nothing will write to it
        self._await_exec(status)
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            os.set_blocking(stream.fileno(), False)
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.proc.stdout, selectors.EVENT_READ, "out")
        self._sel.register(self.proc.stderr, selectors.EVENT_READ, "err")
        self._out.clear()
        self._out_open = True

    def _wrapped(self) -> tuple[list[str], int, int]:
        """The command as run (under the limits' wrapper, if any), and the status pipe's two ends (-1: none)."""
        if self.limits is None:
            return self.argv, -1, -1
        status, report = os.pipe()
        try:
            return self.limits.wrap(self.argv, report), status, report
        except LimitError:
            os.close(status)
            os.close(report)
            raise

    @staticmethod
    def _close_report(report: int) -> None:
        if report >= 0:
            with contextlib.suppress(OSError):
                os.close(report)  # the wrapper holds its own copy, closed when it execs

    def _await_exec(self, status: int) -> None:
        if status < 0 or self.limits is None:
            return
        try:
            await_exec(status, self.argv[0], self.limits)
        except LimitError as exc:
            self.kill()
            raise Fault("spawn", f"{exc}{start_advice(self.argv[0], self.cwd)}") from None

    def _limit_note(self, code: int | None) -> str:
        """Which limit ended the process, if one did: its stderr read to the end first, for what it says."""
        if self.limits is None:
            return ""
        with contextlib.suppress(Fault):
            deadline = time.monotonic() + 0.2
            while self._stderr_open() and self._pump(deadline):
                pass
        why = self.limits.explain(code, self.stderr_tail(4000))
        return f"; {why}" if why else ""

    def _stderr_open(self) -> bool:
        return self._sel is not None and any(key.data == "err" for key in self._sel.get_map().values())

    def close(self, stop_line: bytes | None = None, grace: float = 1.0) -> None:
        proc = self.proc
        if proc is None:
            return
        if stop_line is not None and proc.poll() is None:
            with contextlib.suppress(Fault, OSError):
                self._write(stop_line, time.monotonic() + grace)
        with contextlib.suppress(OSError):
            assert proc.stdin
            proc.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=grace)
        self.kill()  # whether or not it exited: its children may live on

    def wait_exit(self, timeout: float) -> int | None:
        """The process's exit status once it exits (negative: a signal ended it), or None if still running after
        ``timeout``; its output is drained while waiting, and what it printed is kept (``pending_output``)."""
        proc = self.proc
        if proc is None:
            raise Fault("exited", "the implementation is not running")
        deadline = time.monotonic() + timeout
        with contextlib.suppress(Fault):
            # Short slices: a child that holds the pipes open must not hide that the process itself exited.
            while proc.poll() is None and self._sel is not None and self._pump(min(deadline, time.monotonic() + 0.05)):
                if time.monotonic() >= deadline:
                    break
        if proc.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        code = proc.poll()
        if code is not None:
            self.leftovers(0.1)  # its last output, if any, for the judge
        return code

    def kill(self) -> None:
        """End the implementation and every process it started (see _supervise); safe to call twice."""
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                proc.kill()
        if self._supervised is not None:
            _supervise.end(self._supervised)
            self._supervised = None
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        self._teardown()

    def _teardown(self) -> None:
        if self._sel is not None:
            self._sel.close()
            self._sel = None
        if self.proc is not None:
            for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                with contextlib.suppress(OSError):
                    if stream is not None:
                        stream.close()
        self.proc = None

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stderr_tail(self, limit: int = 2000) -> str:
        data = b"".join(self._err)[-limit:]
        return data.decode("utf-8", errors="replace")

    def leftovers(self, grace: float = LEFTOVER_GRACE) -> tuple[bytes, str]:
        """What the peer printed that nobody read, and its stderr's tail, once its streams end (``grace`` at most).

        A peer that dies at once (an import error) may still have its last
        words in the pipes when the harness finds it gone: they are read
        before the message is written, since they are the message.
        """
        deadline = time.monotonic() + grace
        with contextlib.suppress(Fault):
            while self._sel is not None and self._sel.get_map() and self._pump(deadline):
                pass  # until both streams end, or the grace is over (a peer still running keeps them open)
        return bytes(self._out[: SHOWN_LINES * SHOWN_WIDTH * 4]), self.stderr_tail(SHOWN_LINES * SHOWN_WIDTH * 4)

    def said(self, printed: bytes = b"") -> str:
        """The lines the peer printed (``printed`` first) and the tail of its stderr, escaped, as a message's end."""
        rest, tail = self.leftovers()
        return said_text(printed + rest, tail)

    # -------------------------------------------------------------- exchange

    def pending_output(self) -> bool:
        """Whether the implementation printed more than it was asked for."""
        return bool(self._out)

    def take_output(self) -> bytes:
        """What the implementation printed that nobody has read, taken (at most a line's limit)."""
        out = bytes(self._out)
        self._out.clear()
        return out

    def exchange(self, line: bytes, timeout: float) -> bytes:
        """Send one request line and return the response line (without its newline)."""
        deadline = time.monotonic() + timeout
        self._write(line, deadline)
        return self._read_line(deadline)

    def write_all(self, data: bytes, timeout: float) -> None:
        """Send several request lines at once (pipelining); answers are read with read_line."""
        self._write(data, time.monotonic() + timeout)

    def read_line(self, timeout: float) -> bytes:
        return self._read_line(time.monotonic() + timeout)

    def _write(self, data: bytes, deadline: float) -> None:
        proc = self.proc
        if proc is None or proc.stdin is None:
            raise Fault("exited", "the implementation is not running")
        view = memoryview(data)
        while view:
            try:
                n = os.write(proc.stdin.fileno(), view)
                view = view[n:]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, OSError):
                raise self._exited("stopped reading its input") from None
            # The pipe is full: keep draining its output while waiting to write.
            if not self._pump(deadline, want_write=True):
                raise Fault("timeout", "the implementation stopped reading its input")

    def _read_line(self, deadline: float) -> bytes:
        while True:
            nl = self._out.find(b"\n")
            if nl > self.max_line:  # its newline came in the chunk that took it past the bound: over it all the same
                raise Fault("too_long", f"a response line is over {self.max_line} bytes: {nl} bytes before its newline")
            if nl >= 0:
                line = bytes(self._out[:nl])
                del self._out[: nl + 1]
                return line
            if len(self._out) > self.max_line:
                raise Fault(
                    "too_long", f"a response line is over {self.max_line} bytes: {len(self._out)} read, no newline"
                )
            if not self._out_open:
                raise self._exited("exited before answering")
            if not self._pump(deadline):
                raise Fault("timeout", "no answer within the time limit")

    def _pump(self, deadline: float, want_write: bool = False) -> bool:
        """Read what is available; False once the deadline has passed."""
        sel = self._sel
        if sel is None:
            raise Fault("exited", "the implementation is not running")
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        stdin = self.proc.stdin if want_write and self.proc is not None else None
        if stdin is not None:
            # Wake as soon as the pipe has room again, not after a fixed pause: a long line is many pipefuls.
            sel.register(stdin, selectors.EVENT_WRITE, "in")
        try:
            ready = sel.select(remaining)
        finally:
            if stdin is not None:
                sel.unregister(stdin)
        for key, _ in ready:
            if key.data == "in":
                continue
            fd = key.fileobj.fileno()  # type: ignore[union-attr]
            try:
                chunk = os.read(fd, CHUNK)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if key.data == "out":
                if not chunk:
                    sel.unregister(key.fileobj)
                    self._out_open = False
                elif len(self._out) <= self.max_line:
                    self._out += chunk
                # Past the limit the rest of the line is dropped: memory stays bounded.
            elif not chunk:
                sel.unregister(key.fileobj)
            else:
                self._err.append(chunk)
                self._err_size += len(chunk)
                while self._err_size > STDERR_KEEP and len(self._err) > 1:
                    self._err_size -= len(self._err.popleft())
        return True

    def _exited(self, what: str) -> Fault:
        code = None
        if self.proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self.proc.wait(timeout=0.5)
        if code is None and what == "exited before answering":
            what = "closed its output before answering, and is still running"
        plain = (
            f"the implementation {what}"
            + (f" (exit status {code})" if code is not None else "")
            + self._limit_note(code)
        )
        tail = self.stderr_tail(400).strip()
        return Fault("exited", plain + (f"; stderr: {escape.text(tail, 400)}" if tail else ""), plain)


def _lines(text: str, most: int, last: bool) -> list[str]:
    lines = [line for line in text.splitlines() if line.strip()]
    cut = lines[-most:] if last else lines[:most]
    shown = [f"    {escape.text(line.rstrip(), SHOWN_WIDTH)}" for line in cut]
    if len(lines) > most:
        shown = ["    ...", *shown] if last else [*shown, "    ..."]
    return shown


def said_text(printed: bytes, stderr: str) -> str:
    """What a peer that gave no answer printed, and the end of its stderr: indented lines, each escaped and cut.

    Each line is escaped (no terminal control reaches the user's screen) and
    indented (no line of the peer's reads as one of vitou's own).
    """
    out = []
    text = printed.decode("utf-8", errors="replace")
    if text.strip():
        out += ["  it printed on stdout, where only protocol lines belong (logs go to stderr):"]
        out += _lines(text, SHOWN_LINES // 3, last=False)
    if stderr.strip():
        out += ["  its stderr ends with:", *_lines(stderr, SHOWN_LINES, last=True)]
    return "".join(f"\n{line}" for line in out)
