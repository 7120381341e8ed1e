"""Reading an input file safely: regular files only, bounded in size, never a wait on a pipe or a device."""

from __future__ import annotations

import os
import stat

from .errors import InputError
from .problems import Problem

# Apart from the YAML reader so that a caller with bytes to hash (the load
# cache) reads a file the same careful way without importing a YAML parser.

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _not_regular(mode: int, name: str) -> InputError:
    kind = next((what for test, what in _KINDS if test(mode)), "not a regular file")
    return InputError([Problem("FILE_NOT_REGULAR", f"{kind}, not a regular file; only regular files are read", name)])


def read_path(path: str, *, max_bytes: int, display: str | None = None) -> bytes:
    """At most ``max_bytes + 1`` bytes of a regular file; InputError for anything else, and never a wait.

    A FIFO, a device, a socket or a directory is refused before it is read:
    reading a FIFO with no writer blocks for ever and a device never ends.
    The file is stat'ed first (opening some devices acts on them), then
    opened without blocking and checked again in case it was swapped.
    """
    name = display or path
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(mode, name)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with open(fd, "rb", closefd=True) as fh:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise _not_regular(mode, name)
            return fh.read(max_bytes + 1)
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        what = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InputError([Problem("FILE_UNREADABLE", what, name)]) from None
