"""Input files read safely (regular, bounded, never a wait) and output files written without following a link."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
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


# Writing. A link planted at an output path (before the run or while it goes
# on) must never redirect what vitou writes: a new file is created with
# O_EXCL, which never follows a link at the last component, and a file that
# may be replaced is written beside it and renamed over it, which replaces a
# link instead of writing to its target.
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_CREATE |= getattr(os, "O_BINARY", 0)


def create_new(path: str, *, force: bool = False) -> int:
    """A descriptor open for writing on a file created at ``path``, never through a link.

    FileExistsError when anything (a file, a link, even a dangling one) is
    there, unless ``force``: then a file or link there is removed first
    (the link itself, never its target); a directory never is.
    """
    if force:
        _remove_entry(path)
    return os.open(path, _CREATE, 0o666)


def _remove_entry(path: str) -> None:
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    os.unlink(path)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_file(path: str, data: str | bytes, *, force: bool = False) -> None:
    """``data`` written whole to ``path``, never through a link; the one writer of every output file.

    Without ``force`` the file must be new (FileExistsError otherwise, a
    link included). With ``force`` it is written to a temporary file in the
    same directory and renamed over ``path``: whatever was there, a file or
    a link, is replaced at once, and a reader never sees half a file.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if not force:
        fd = create_new(path)
        try:
            _write_all(fd, raw)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(path)  # no half-written file is left to pass for a whole one
            raise
        os.close(fd)
        return
    parent, name = os.path.split(os.path.abspath(path))
    temporary = os.path.join(parent, f".{name}.{secrets.token_hex(6)}.tmp")
    fd = create_new(temporary)
    try:
        try:
            _write_all(fd, raw)
        finally:
            os.close(fd)
        os.replace(temporary, path)  # a directory at ``path`` is refused (IsADirectoryError), never replaced
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def still_there(fd: int, path: str) -> bool:
    """Whether ``path`` still names the file open on ``fd``: not removed, replaced or turned into a link since."""
    try:
        here, there = os.lstat(path), os.fstat(fd)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)
