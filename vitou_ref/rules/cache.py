"""A disk cache of loaded data, keyed by the content of its inputs and of the code: safe under races, ignored if corrupt."""

from __future__ import annotations

import contextlib
import copyreg
import hashlib
import io
import os
import pickle
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

from .._version import __version__

T = TypeVar("T")

# Loading the spec and the suite means parsing YAML and validating it against
# the schemas: most of a certification's start. Both are pure functions of
# bytes on disk and of this package's code, so their results are kept here,
# one file an entry, named by a hash of everything they depend on. No entry is
# ever updated in place: a changed input is a new name, so there is nothing to
# invalidate. An entry is written to a temporary file and renamed into place,
# which is atomic: two processes that race both build, and one's identical
# result wins. An entry is checked against its own digest before it is
# unpickled, and anything that goes wrong reading it counts as a miss.
#
# The entries are pickles, which run code when loaded: the directory must
# belong to the user and be writable by no one else, or it is not used.

ENV_DIR = "VITOU_CACHE_DIR"  # where the cache lives; an empty value turns it off
MAGIC = b"vitou-cache 1\n"
MAX_ENTRIES = 256  # beyond this, the least recently used entries are removed


def cache_dir() -> Path | None:
    """The load cache's directory (VITOU_CACHE_DIR, else the platform's), or None when the cache is off."""
    configured = os.environ.get(ENV_DIR)
    if configured is not None:
        return Path(configured) if configured else None
    return platform_cache_dir()


def platform_cache_dir() -> Path:
    """vitou's directory where the platform keeps caches: ~/Library/Caches/vitou on macOS, XDG's elsewhere."""
    if sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:  # XDG, the convention of Linux and the other POSIX systems; it allows only an absolute path
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "vitou"


def _usable(directory: Path) -> bool:
    """Whether ``directory`` exists (made if not) and only its owner, this user, may write to it."""
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = directory.stat()
    except (OSError, RuntimeError):  # RuntimeError: no home directory to expand
        return False
    own = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    return stat.S_ISDIR(st.st_mode) and own and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


_FINGERPRINT: list[bytes] = []


def _code_fingerprint() -> bytes:
    """This package's code as it is on disk: every module's name, size and time of change, and the interpreter."""
    if not _FINGERPRINT:
        h = hashlib.sha256(f"{__version__}|{sys.implementation.cache_tag}|{pickle.HIGHEST_PROTOCOL}".encode())
        root = Path(__file__).resolve().parent.parent
        stack = [root]
        while stack:
            with os.scandir(stack.pop()) as entries:
                for e in sorted(entries, key=lambda e: e.name):
                    if e.is_dir() and e.name not in ("__pycache__", "_data"):
                        stack.append(Path(e.path))
                    elif e.name.endswith(".py"):
                        st = e.stat()
                        h.update(f"{os.path.relpath(e.path, root)}|{st.st_size}|{st.st_mtime_ns}\n".encode())
        _FINGERPRINT.append(h.digest())
    return _FINGERPRINT[0]


def key_of(kind: str, parts: Iterable[bytes | str]) -> str:
    """The entry name for ``kind`` built from ``parts``: each part is length-prefixed, so no two lists collide."""
    h = hashlib.sha256(_code_fingerprint() + kind.encode())
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "big") + data)
    return f"{kind}-{h.hexdigest()[:40]}"


# Frozen mappings (MappingProxyType) are how the rules keep data read-only;
# pickle cannot save them itself, so this pickler saves them as the dict they wrap.
def _mapping(d: dict[Any, Any]) -> MappingProxyType[Any, Any]:
    return MappingProxyType(d)


class _Pickler(pickle.Pickler):
    dispatch_table = copyreg.dispatch_table.copy()
    dispatch_table[MappingProxyType] = lambda m: (_mapping, (dict(m),))


def _read(path: Path) -> Any:
    with open(path, "rb") as fh:
        blob = fh.read()
    head = len(MAGIC) + 32
    if blob[: len(MAGIC)] != MAGIC or hashlib.sha256(blob[head:]).digest() != blob[len(MAGIC) : head]:
        raise ValueError("not a cache entry, or a damaged one")
    return pickle.loads(blob[head:])


def _write(directory: Path, name: str, value: Any) -> None:
    buf = io.BytesIO()
    _Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    payload = buf.getvalue()
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    try:
        with open(fd, "wb") as fh:
            fh.write(MAGIC + hashlib.sha256(payload).digest() + payload)
        os.replace(tmp, directory / name)
    except BaseException:
        os.unlink(tmp)
        raise
    _prune(directory)


def _prune(directory: Path) -> None:
    """Removes the least recently used entries beyond MAX_ENTRIES (a hit renews an entry's time)."""
    entries = [e for e in os.scandir(directory) if e.name.endswith(".pickle") or e.name.startswith(".tmp-")]
    if len(entries) <= MAX_ENTRIES:
        return
    entries.sort(key=lambda e: e.stat().st_mtime_ns)
    for e in entries[: len(entries) - MAX_ENTRIES]:
        with contextlib.suppress(OSError):  # another process removed it first
            os.unlink(e.path)


def memo(kind: str, parts: Iterable[bytes | str], build: Callable[[], T], expect: type[T]) -> T:
    """``build()``, or its result kept from an earlier call with the same parts and the same code.

    ``build`` must be a pure function of ``parts`` (and of the package's code).
    What it raises is not kept, so an error is reported afresh every time.
    The value read back must be an ``expect``, or it is rebuilt.
    """
    directory = cache_dir()
    if directory is None or not _usable(directory):
        return build()
    path = directory / f"{key_of(kind, parts)}.pickle"
    try:
        value = _read(path)
        if isinstance(value, expect):
            os.utime(path)
            return value
    except Exception:  # missing, damaged, or written by other code: a miss
        pass
    value = build()
    # A full disk, or a value that cannot be pickled, is no reason to fail a load.
    with contextlib.suppress(OSError, pickle.PicklingError, TypeError, AttributeError):
        _write(directory, path.name, value)
    return value
