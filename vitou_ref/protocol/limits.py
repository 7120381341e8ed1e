"""Resource limits and no network for an implementation under test, set by a small wrapper before it runs."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from .._limitoptions import NO_NETWORK_HELP, OPTIONS, parse_size, parse_whole

GIB = 1 << 30
DEFAULT_MEMORY = 4 * GIB
DEFAULT_CPU = 3600
DEFAULT_FILE_SIZE = GIB
DEFAULT_OPEN_FILES = 1024
WRAPPER_WAIT = 30.0  # seconds for the wrapper to apply the limits and exec: an interpreter start, on a busy machine
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000

# The wrapper runs as ``python -I -S -c`` (no site, no environment of Python's own: it starts in milliseconds),
# between fork and exec, where the harness's threads cannot reach: unlike ``preexec_fn``, it is safe in a
# harness that runs threads, and unlike ``prlimit`` on the started pid, nothing runs before the limits hold.
# It tells the harness on the status pipe why it could not go on; the pipe closes at exec when all is well.
_WRAPPER = r"""
import ctypes, ctypes.util, json, os, resource, signal, sys
plan, fd, argv = json.loads(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
def fail(what, exc):
    os.write(fd, json.dumps([what, exc.strerror or str(exc)]).encode())
    os._exit(127)
if plan["net"]:
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(plan["net"]) != 0:
        # Without privilege, a user namespace of its own lets a process have a network namespace of its own.
        if libc.unshare(plan["net"] | plan["user"]) != 0:
            fail("net", OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno())))
        try:
            for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
                with open(f"/proc/self/{name}", "w") as fh:
                    fh.write(text)
        except OSError as exc:
            fail("net", exc)
for name, soft, hard in plan["rlimits"]:
    try:
        resource.setrlimit(getattr(resource, name), (soft, hard))
    except (OSError, ValueError) as exc:
        fail(name, exc)
for sig in ("SIGPIPE", "SIGXFSZ"):  # Python ignores these; the implementation gets the defaults, as subprocess gives
    if hasattr(signal, sig):
        signal.signal(getattr(signal, sig), signal.SIG_DFL)
os.set_inheritable(fd, False)
try:
    os.execvp(argv[0], argv)
except OSError as exc:
    fail("exec", exc)
"""


def shown_size(n: int) -> str:
    """A byte count as people write it: 4 GiB, 512 MiB, 1,000 bytes."""
    for unit, size in (("TiB", 1 << 40), ("GiB", GIB), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size:,} {unit}"
    return f"{n:,} bytes"


@dataclass(frozen=True)
class Limits:
    """What an implementation may use, per process it runs (None: no limit of vitou's); each names its option."""

    memory: int | None = DEFAULT_MEMORY  # bytes of data (RLIMIT_DATA): heap and private mappings, not reservations
    cpu: int | None = DEFAULT_CPU  # seconds of CPU time (RLIMIT_CPU): SIGXCPU, then SIGKILL a second later
    file_size: int | None = DEFAULT_FILE_SIZE  # bytes in any one file it writes (RLIMIT_FSIZE): SIGXFSZ
    open_files: int | None = DEFAULT_OPEN_FILES  # file descriptors (RLIMIT_NOFILE)
    no_network: bool = False
    prefix: str = "--"  # how the options are spelt: --limit-memory, or --vitou-limit-memory in the plugin

    def option(self, name: str) -> str:
        return f"{self.prefix}{name}"

    def rlimits(self) -> list[tuple[str, int, int]]:
        """(resource, soft, hard), never above what the harness itself runs under: the lower limit holds."""
        import resource

        out = []
        wanted: list[tuple[str, int | None, int]] = [("RLIMIT_DATA", self.memory, 0), ("RLIMIT_CPU", self.cpu, 1)]
        wanted += [("RLIMIT_FSIZE", self.file_size, 0), ("RLIMIT_NOFILE", self.open_files, 0)]
        for name, value, grace in wanted:
            if value is None:
                continue
            hard_now = resource.getrlimit(getattr(resource, name))[1]
            cap = hard_now if hard_now != resource.RLIM_INFINITY else value + grace
            out.append((name, min(value, cap), min(value + grace, cap)))
        return out

    def wrap(self, argv: Sequence[str], status_fd: int) -> list[str]:
        """The command line that runs ``argv`` under these limits, reporting on ``status_fd``."""
        if self.no_network and not sys.platform.startswith("linux"):
            raise LimitError(
                f"{self.option('no-network')}: running without network needs Linux network namespaces; "
                f"this system ({sys.platform}) has none, and the implementation was not started"
            )
        net = _CLONE_NEWNET if self.no_network else 0
        plan = {"net": net, "user": _CLONE_NEWUSER, "rlimits": self.rlimits()}
        return [sys.executable, "-I", "-S", "-c", _WRAPPER, json.dumps(plan), str(status_fd), *argv]

    def explain(self, returncode: int | None, stderr: str) -> str | None:
        """Which limit most likely ended a process that exited so, or None: the signal, else what stderr says."""
        if returncode == -signal.SIGXCPU and self.cpu is not None:
            return f"killed by SIGXCPU: over its CPU time limit of {self.cpu:,} s ({self.option('limit-cpu')})"
        if returncode == -signal.SIGXFSZ and self.file_size is not None:
            return (
                f"killed by SIGXFSZ: a file it wrote reached the file size limit of {shown_size(self.file_size)} "
                f"({self.option('limit-file-size')})"
            )
        said = stderr.lower()
        for words, value, what, name in (
            (_NO_MEMORY, self.memory, "ran out of memory: its memory limit", "limit-memory"),
            (_NO_FILES, self.open_files, "could open no more files: its open files limit", "limit-open-files"),
            (_TOO_LARGE, self.file_size, "wrote a file too large: its file size limit", "limit-file-size"),
        ):
            if value is not None and any(w in said for w in words):
                amount = f"{value:,} files" if name == "limit-open-files" else shown_size(value)
                return f"its stderr says it {what} is {amount} ({self.option(name)})"
        return None


_NO_MEMORY = (
    "memoryerror",
    "out of memory",
    "cannot allocate memory",
    "bad_alloc",
    "outofmemoryerror",
    "allocation failed",
)
_NO_FILES = ("too many open files", "emfile")
_TOO_LARGE = ("file too large", "efbig")


class LimitError(Exception):
    """The implementation could not be started as asked (a limit refused, no network namespace, no program)."""


def await_exec(status_fd: int, argv0: str, limits: Limits) -> None:
    """Wait for the wrapper to exec the implementation; LimitError with the reason when it could not."""
    try:
        ready, _, _ = select.select([status_fd], [], [], WRAPPER_WAIT)
        data = os.read(status_fd, 4096) if ready else b""
    finally:
        with contextlib.suppress(OSError):
            os.close(status_fd)
    if not data:
        return  # closed at exec: the implementation runs (or the wrapper was slow: it is supervised all the same)
    try:
        what, why = json.loads(data)
    except (ValueError, TypeError):
        what, why = "exec", data.decode(errors="replace")
    if what == "exec":
        raise LimitError(f"cannot start {argv0!r}: {why}")
    if what == "net":
        raise LimitError(
            f"{limits.option('no-network')}: this system does not let vitou give the implementation a network "
            f"namespace of its own (unshare: {why}; unprivileged user namespaces may be turned off); "
            "the implementation was not started"
        )
    raise LimitError(f"cannot set {what} for the implementation: {why}")


__all__ = [
    "DEFAULT_CPU",
    "DEFAULT_FILE_SIZE",
    "DEFAULT_MEMORY",
    "DEFAULT_OPEN_FILES",
    "NO_NETWORK_HELP",
    "OPTIONS",
    "LimitError",
    "Limits",
    "parse_size",
    "parse_whole",
]
