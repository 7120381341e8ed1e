"""Output paths checked before any work starts, and files written without following a link or replacing a file."""

from __future__ import annotations

import os
import stat

from ..rules.files import write_file


def file_problem(path: str, option: str, *, force: bool = False, overwrite_ok: bool = False) -> str | None:
    """Why ``path`` cannot take a new file, or None: checked before a run, so no result is lost at its end."""
    if not path or not path.strip():
        return f"{option}: the path is empty"
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        return f"{option}: {path}: the directory {parent} does not exist"
    try:
        st = os.lstat(path)  # a link is judged as a link: its target is never written
    except FileNotFoundError:
        if not os.access(parent, os.W_OK | os.X_OK):
            return f"{option}: {path}: the directory is not writable"
        return None
    except OSError as exc:
        return f"{option}: {path}: {exc.strerror}"
    if stat.S_ISLNK(st.st_mode):
        if force or overwrite_ok:
            return None  # the link is replaced by the file, and whatever it points to is left alone
        return f"{option}: {path} is a symbolic link; give --force to replace the link (its target is never written)"
    if stat.S_ISDIR(st.st_mode):
        return f"{option}: {path} is a directory, not a file"
    if not stat.S_ISREG(st.st_mode):
        return f"{option}: {path} is not a regular file"
    if not (force or overwrite_ok):
        return f"{option}: {path} exists; give --force to replace it"
    if not os.access(path, os.W_OK):
        return f"{option}: {path} is not writable"
    return None


def input_clash(path: str, inputs: list[str], option: str) -> str | None:
    """Why ``path`` must not be written: it is one of the command's ``inputs``, which would be lost, even with --force."""
    for given in inputs:
        try:
            same = os.path.samefile(path, given)  # through links and other spellings of one file
        except (OSError, ValueError):
            continue  # one of them is not there (or not a path): they cannot be the same file
        if same:
            return f"{option}: {path} is also an input of the command ({given}); write the output elsewhere"
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


def write_new(path: str, text: str, *, force: bool) -> None:
    """Write ``text`` to ``path``, never through a link; refuse (FileExistsError) to replace anything unless ``force``."""
    write_file(path, text, force=force)


def lost_write(option: str, path: str, exc: OSError) -> str:
    """Why an output could not be written, for the message that says so."""
    if isinstance(exc, FileExistsError):
        return (
            f"{option}: {path}: something was put there during the run (a file or a link); "
            "it is neither replaced nor followed: give --force to replace it"
        )
    return f"{option}: {path}: {exc.strerror or exc}"
