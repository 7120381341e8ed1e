"""Where a command's output goes (JSON safe for a terminal, --output or stdout), and a check's exit status."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

from ..rules.errors import OutputFailed

# The problems of a file that could not be read at all: missing or no
# permission, not a regular file, not UTF-8 text. A check has no verdict on
# such input, so it exits 2 like every other command; 1 is for input that was
# read and found wrong.
UNREADABLE = frozenset({"FILE_UNREADABLE", "FILE_NOT_REGULAR", "YAML_ENCODING", "SUITE_MISSING"})


def check_status(ok: bool, codes: Iterable[str]) -> int:
    """A check's exit status: 0 valid, 1 read and found wrong, 2 some input could not be read."""
    if any(code in UNREADABLE for code in codes):
        return 2
    return 0 if ok else 1


def json_text(obj: Any) -> str:
    """JSON as a command prints it: indented, and safe for a terminal."""
    from ..present.escape import json_dumps

    return json_dumps(obj, indent=2) + "\n"


def print_json(obj: Any) -> None:
    sys.stdout.write(json_text(obj))


def emit(text: str, output: str | None, *, force: bool = False) -> None:
    """Command output: to the --output file when given, to stdout otherwise.

    The file must be new unless ``force``: then it replaces what is there, a
    link included (never its target). The path was checked before the work
    began; a file that appeared since is refused all the same.
    """
    if output:
        from ..kit.outpaths import lost_write
        from ..rules.files import write_file

        try:
            write_file(output, text, force=force)
        except OSError as exc:
            raise OutputFailed(lost_write("--output", output, exc)) from None
    else:
        sys.stdout.write(text)


__all__ = ["UNREADABLE", "check_status", "emit", "json_text", "print_json"]
