"""A command's stdout and stderr, escaped as they are written: nothing a command prints can drive a terminal."""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from . import escape


class Escaping(io.TextIOBase):
    """A text stream that passes everything written to it through ``escape.layout`` on its way to ``inner``.

    Every message a command prints, its own words and the paths, names and texts it quotes, goes through
    one place, so a message written tomorrow without escaping is escaped all the same. A writer that means
    its controls (the progress line's carriage return) writes to ``unescaped``, and only its own words.
    """

    def __init__(self, inner: TextIO) -> None:
        super().__init__()
        self.unescaped = inner

    def write(self, s: str) -> int:
        self.unescaped.write(escape.layout(s))
        return len(s)

    def writelines(self, lines: Iterable[str]) -> None:  # type: ignore[override]
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.unescaped.flush()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self.unescaped.isatty()

    def fileno(self) -> int:
        return self.unescaped.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.unescaped, "encoding", "utf-8") or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.unescaped, "errors", None)

    @property
    def buffer(self) -> Any:
        """The bytes below, for a writer of bytes that are not text (a protocol's JSON lines, already safe)."""
        return self.unescaped.buffer


def unescaped(stream: TextIO) -> TextIO:
    """The stream below an ``Escaping`` one, or ``stream`` itself."""
    inner = getattr(stream, "unescaped", None)
    return inner if inner is not None else stream


@contextlib.contextmanager
def escaped_streams() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` escaped for the duration; each put back as it was at the end."""
    out, err = sys.stdout, sys.stderr
    sys.stdout = Escaping(out) if not isinstance(out, Escaping) else out
    sys.stderr = Escaping(err) if not isinstance(err, Escaping) else err
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # a closed pipe: what it lost is lost either way
                stream.flush()
        sys.stdout, sys.stderr = out, err


__all__ = ["Escaping", "escaped_streams", "unescaped"]
