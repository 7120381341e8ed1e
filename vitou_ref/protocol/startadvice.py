"""What to do when an implementation's command cannot start: a script of the current folder, or one not executable."""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

_BY_SUFFIX = {".py": "python3", ".sh": "sh", ".js": "node", ".rb": "ruby", ".pl": "perl", ".php": "php"}


def start_advice(argv0: str, cwd: str | None = None) -> str:
    """A clause to append to "cannot start ...", or "" when the file system says nothing more of ``argv0``.

    The command is run as a shell would run it, never through one: a bare name is looked up on PATH only, and a
    script runs only with its run bit set. Both trip people who type ``my_adapter.py`` or forget ``chmod +x``.
    """
    base = Path(cwd or ".")
    path = base / argv0
    try:
        if not path.is_file():
            return ""
        executable = os.access(path, os.X_OK)
    except (OSError, ValueError):
        return ""
    run = shlex.quote(argv0 if os.sep in argv0 else f"./{argv0}")
    with_interpreter = f"{_interpreter(path)} {shlex.quote(argv0)}"
    if os.sep not in argv0 and shutil.which(argv0) is None:
        also = "" if executable else f" (and needs its run bit: chmod +x {run})"
        return (
            f"; a command in the current folder is written {run}, as in a shell{also}, "
            f"or run with its interpreter: {with_interpreter}"
        )
    if not executable:
        return f"; the file is not executable: chmod +x {run}, or name its interpreter: {with_interpreter}"
    if not _starts_itself(path):  # executable, but nothing says what runs it: Exec format error
        return (
            f"; the file names no interpreter: begin it with a line such as #!/usr/bin/env "
            f"{_interpreter(path).replace('INTERPRETER', 'python3')}, or name its interpreter: {with_interpreter}"
        )
    return ""


def _starts_itself(path: Path) -> bool:
    """Whether the system can run the file as it is: a script with its #! line, or a program (ELF, Mach-O)."""
    try:
        with path.open("rb") as fh:
            head = fh.read(4)
    except OSError:
        return True  # nothing to say of a file we cannot read
    return head[:2] == b"#!" or head in (b"\x7fELF", b"\xcf\xfa\xed\xfe", b"\xfe\xed\xfa\xcf")


def _interpreter(path: Path) -> str:
    """The interpreter its first line names (``#!/usr/bin/env python3``: python3), else its suffix's, else a word."""
    try:
        with path.open("rb") as fh:
            first = fh.readline(256).decode("utf-8", "replace")
    except OSError:
        first = ""
    if first.startswith("#!"):
        words = first[2:].split()
        if words and Path(words[0]).name == "env":
            words = [w for w in words[1:] if not w.startswith("-")]
        if words and Path(words[0]).name.isprintable():
            return shlex.quote(Path(words[0]).name)
    return _BY_SUFFIX.get(path.suffix, "INTERPRETER")
