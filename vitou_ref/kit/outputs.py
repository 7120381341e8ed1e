"""Output paths checked before any work starts, and files written without replacing what exists."""

from __future__ import annotations

import os
import stat


def file_problem(path: str, option: str, *, force: bool = False, overwrite_ok: bool = False) -> str | None:
    """Why ``path`` cannot take a new file, or None: checked before a run, so no result is lost at its end."""
    if not path or not path.strip():
        return f"{option}: the path is empty"
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        return f"{option}: {path}: the directory {parent} does not exist"
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if not os.access(parent, os.W_OK | os.X_OK):
            return f"{option}: {path}: the directory is not writable"
        return None
    except OSError as exc:
        return f"{option}: {path}: {exc.strerror}"
    if stat.S_ISDIR(st.st_mode):
        return f"{option}: {path} is a directory, not a file"
    if not stat.S_ISREG(st.st_mode):
        return f"{option}: {path} is not a regular file"
    if not (force or overwrite_ok):
        return f"{option}: {path} exists; give --force to replace it"
    if not os.access(path, os.W_OK):
        return f"{option}: {path} is not writable"
    return None


def dir_problem(path: str, option: str) -> str | None:
    """Why ``path`` cannot be (or become) a directory to write files in, or None."""
    if not path or not path.strip():
        return f"{option}: the path is empty"
    if os.path.exists(path):
        if not os.path.isdir(path):
            return f"{option}: {path} exists and is not a directory"
        if not os.access(path, os.W_OK | os.X_OK):
            return f"{option}: {path} is not writable"
        return None
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        return f"{option}: {path}: the directory {parent} does not exist"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"{option}: {path}: {parent} is not writable"
    return None


def taken_problem(directory: str, names: list[str], option: str) -> str | None:
    """Why files of these names cannot be written to ``directory`` without --force (some exist), or None."""
    taken = sorted(n for n in names if os.path.exists(os.path.join(directory, n)))
    if not taken:
        return None
    return (
        f"{option}: {directory} already holds {', '.join(taken[:5])}"
        f"{' ...' if len(taken) > 5 else ''}; give --force to replace them, or another directory"
    )


def write_new(path: str, text: str, *, force: bool) -> None:
    """Write ``text`` to ``path``; refuse (FileExistsError) to replace a file unless ``force``."""
    mode = "w" if force else "x"
    with open(path, mode, encoding="utf-8") as fh:
        fh.write(text)
