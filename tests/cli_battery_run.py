"""One run of the vitou command in a sandbox of its own, in process or as a process, bounded in time.

A sandbox is a fresh directory: ``work`` (the working directory, with the
inputs a context names and the battery's hostile files), ``home`` (HOME) and
``outside`` (the battery's file outside the working directory, and the target
of its symlink). The whole tree is snapshotted before and after the run, so
that a file written, changed or removed anywhere but where an output option
pointed is seen.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vitou_ref.cli import main

# Files a run may find in its working directory, by name: the inputs the contexts use, and the battery's.
Materials = Mapping[str, bytes]
OUTSIDE_FILE = "target.yaml"  # in outside/: the battery's outside file, and where its symlink points
# Where a run may write in HOME: vitou's cache (hypothesis's for fuzz among them: $XDG_CACHE_HOME/vitou, by
# default ~/.cache/vitou), and the directories matplotlib keeps for itself when --plot first imports it.
CACHES = ("home/.cache/vitou", "home/.cache/matplotlib", "home/.config/matplotlib")
# Variables that would change what a run does or shows: unset for every run, in process and as a process.
UNSET = ("VITOU_DEBUG", "HYPOTHESIS_STORAGE_DIRECTORY", "XDG_CACHE_HOME", "MPLCONFIGDIR", "BROWSER", "COLUMNS", "LINES")
# Dask waits 30 s for a scheduler by default: a run given an address nobody listens at gives up sooner.
ENV = {"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"}


class Hang(BaseException):
    """Raised by the timer in the command's own frames: BaseException, so that no ``except Exception`` eats it."""


@dataclass(frozen=True)
class Outcome:
    argv: tuple[str, ...]
    status: int | None  # None: still running when its time was up
    out: bytes
    err: bytes
    seconds: float
    stray: tuple[str, ...]  # paths under the sandbox written, changed or removed that no output option named


@dataclass(frozen=True)
class Sandbox:
    root: Path

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def outside(self) -> Path:
        return self.root / "outside"

    def fill(self, materials: Materials, hostile: Materials) -> None:
        for d in (self.work, self.home, self.outside, self.work / "dir"):
            d.mkdir(parents=True, exist_ok=True)
        for name, content in {**materials, **hostile}.items():
            (self.work / name).write_bytes(content)
        (self.outside / OUTSIDE_FILE).write_bytes(materials["rules.yaml"])
        os.mkfifo(self.work / "fifo")
        (self.work / "link-out").symlink_to(self.outside / OUTSIDE_FILE)
        (self.work / "dangling").symlink_to(self.outside / "missing.yaml")

    def expand(self, value: str) -> str:
        return value.replace("{outside}", str(self.outside))


@contextlib.contextmanager
def sandbox(materials: Materials, hostile: Materials) -> Iterator[Sandbox]:
    root = Path(tempfile.mkdtemp(prefix="vitou-battery-"))
    try:
        box = Sandbox(root)
        box.fill(materials, hostile)
        yield box
    finally:
        _make_removable(root)
        shutil.rmtree(root, ignore_errors=True)


def _make_removable(root: Path) -> None:
    # A run may leave a directory without write permission; rmtree needs it back.
    for dirpath, dirnames, _ in os.walk(root):
        for d in dirnames:
            with contextlib.suppress(OSError):
                os.chmod(os.path.join(dirpath, d), 0o700, follow_symlinks=False)


def snapshot(root: Path) -> dict[str, tuple[str, str]]:
    """Every entry under root by its path relative to root: its kind and what it holds. Never opens a FIFO."""
    seen: dict[str, tuple[str, str]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            st = os.lstat(path)
            mode = oct(st.st_mode)  # a permission changed is a change too
            if stat.S_ISLNK(st.st_mode):
                seen[rel] = ("link", os.readlink(path))
            elif stat.S_ISREG(st.st_mode):
                with open(path, "rb") as f:
                    seen[rel] = ("file", f"{mode} {hashlib.sha256(f.read()).hexdigest()}")
            elif stat.S_ISDIR(st.st_mode):
                seen[rel] = ("dir", mode)
            else:
                seen[rel] = ("other", mode)
    return seen


def strays(before: dict[str, tuple[str, str]], after: dict[str, tuple[str, str]], named: list[str]) -> list[str]:
    """The paths that differ, but for those at or under a named output (paths relative to the sandbox)."""
    allowed = [n for n in named if n and not n.startswith("..")] + list(CACHES)
    differ = sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))
    return [
        p
        for p in differ
        if not any(p == a or p.startswith(a + os.sep) for a in allowed) and not _made_for_cache(p, after)
    ]


def _made_for_cache(path: str, after: dict[str, tuple[str, str]]) -> bool:
    """A directory made on the way to a cache (~/.cache itself, ~/.config)."""
    return after.get(path, ("",))[0] == "dir" and any(c.startswith(path + os.sep) for c in CACHES)


def named_in_sandbox(box: Sandbox, paths: list[str]) -> list[str]:
    """Output paths as the command was given them, relative to the sandbox: never resolved through a link."""
    return [os.path.relpath(os.path.normpath(os.path.join(box.work, p)), box.root) for p in paths if p]


def run_in_process(box: Sandbox, argv: list[str], named: list[str], timeout: float) -> Outcome:
    """``vitou ARGV`` through the entry point that maps errors to exit statuses, isolated as a process would be."""
    before = snapshot(box.root)
    out, err = io.BytesIO(), io.BytesIO()
    start = time.monotonic()
    status: int | None
    with _isolated(box), _captured(out, err) as stray_fds, _desk_returns_at_once(), _deadline(timeout):
        try:
            status = main(argv)
        except Hang:
            status = None
        except SystemExit as exc:  # ends the process with its code, as it would have
            status = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
        except KeyboardInterrupt:  # the one running the tests pressed Ctrl-C: theirs, not the run's
            raise
        except BaseException:  # escaped main: the process would print it and exit 1
            status = 1
            err.write(traceback.format_exc().encode())
    seconds = time.monotonic() - start
    moved = strays(before, snapshot(box.root), named_in_sandbox(box, named))
    return Outcome(
        tuple(argv), status, out.getvalue() + stray_fds[0], err.getvalue() + stray_fds[1], seconds, tuple(moved)
    )


def run_process(box: Sandbox, argv: list[str], named: list[str], timeout: float) -> Outcome:
    """``python -m vitou_ref ARGV`` in its own session, killed with everything it started when its time is up."""
    before = snapshot(box.root)
    env = {k: v for k, v in os.environ.items() if k not in UNSET} | ENV | {"HOME": str(box.home)}
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "vitou_ref", *argv],
        cwd=box.work,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    status: int | None
    try:
        out, err = proc.communicate(timeout=timeout)
        status = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        status = None
    seconds = time.monotonic() - start
    moved = strays(before, snapshot(box.root), named_in_sandbox(box, named))
    return Outcome(tuple(argv), status, out, err, seconds, tuple(moved))


@contextlib.contextmanager
def _isolated(box: Sandbox) -> Iterator[None]:
    """The working directory, HOME and the environment a process started there would have; all put back after."""
    cwd, environ = os.getcwd(), dict(os.environ)
    stdin = sys.stdin
    os.chdir(box.work)
    for k in UNSET:
        os.environ.pop(k, None)
    os.environ.update(ENV)
    os.environ["HOME"] = str(box.home)
    _dask_reads_the_environment()
    sys.stdin = io.TextIOWrapper(io.BytesIO(b""), encoding="utf-8")  # the adapter reads to the end of its input
    try:
        yield
    finally:
        sys.stdin = stdin
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(environ)
        _dask_reads_the_environment()


def _dask_reads_the_environment() -> None:
    # Dask reads its variables when it is first imported; loaded already, it is told to read them again.
    config = sys.modules.get("dask.config")
    if config is not None:
        config.refresh()


@contextlib.contextmanager
def _captured(out: io.BytesIO, err: io.BytesIO) -> Iterator[list[bytes]]:
    """sys.stdout and sys.stderr as a pipe's (UTF-8, strict), and file descriptors 1 and 2 into files: what a
    process the command starts writes there is its output too. Yields [fd 1's bytes, fd 2's bytes], filled at exit."""
    streams = (sys.stdout, sys.stderr)
    wrappers = [io.TextIOWrapper(b, encoding="utf-8", errors="strict", write_through=True) for b in (out, err)]
    fds: list[bytes] = [b"", b""]
    with tempfile.TemporaryFile() as fd1, tempfile.TemporaryFile() as fd2:
        files = (fd1, fd2)
        saved = [os.dup(1), os.dup(2)]
        for fd, f in zip((1, 2), files):
            os.dup2(f.fileno(), fd)
        sys.stdout, sys.stderr = wrappers
        try:
            yield fds
        finally:
            for w in wrappers:
                with contextlib.suppress(Exception):
                    w.flush()
                w.detach()  # the BytesIO stays readable
            sys.stdout, sys.stderr = streams
            for fd, saved_fd in zip((1, 2), saved):
                os.dup2(saved_fd, fd)
                os.close(saved_fd)
            for i, f in enumerate(files):
                f.seek(0)
                fds[i] = f.read()


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Hang raised in the run after ``seconds``: a blocking open of a FIFO or a read is interrupted (PEP 475)."""

    def ring(signum: int, frame: Any) -> None:
        raise Hang

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _desk_returns_at_once() -> Iterator[None]:
    """The desk serves until Ctrl-C; in process it stops as if given it at once, after saying where it listens."""
    from vitou_ref.desk import server

    real = server.serve

    def serve(*args: Any, **kwargs: Any) -> Any:
        httpd, url = real(*args, **kwargs)
        httpd.serve_forever = lambda *a, **k: None
        return httpd, url

    server.serve = serve
    try:
        yield
    finally:
        server.serve = real
