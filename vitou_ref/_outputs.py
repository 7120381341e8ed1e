"""Output paths checked before any work starts, and option values checked as they are parsed."""

from __future__ import annotations

import argparse
import math
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


def write_new(path: str, text: str, *, force: bool) -> None:
    """Write ``text`` to ``path``; refuse (FileExistsError) to replace a file unless ``force``."""
    mode = "w" if force else "x"
    with open(path, mode, encoding="utf-8") as fh:
        fh.write(text)


# ------------------------------------------------------------------ option types


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def positive_seconds(text: str) -> float:
    """A finite duration above zero (no nan, no inf)."""
    value = _number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be above zero")
    return value


def percent(text: str) -> float:
    value = _number(text)
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text!r} must be between 0 and 100")
    return value


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def positive_int(text: str) -> int:
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def count(text: str) -> int:
    """A whole number, zero allowed (restarts, say)."""
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 or more")
    return value


def whole_percent(text: str) -> int:
    value = _integer(text)
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text!r} must be between 0 and 100")
    return value


def seed(text: str) -> int:
    value = _integer(text)
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"{text!r} must be between 0 and 2**63-1")
    return value


def command(text: str) -> str:
    """An implementation's command line: given, it must say something (an unset variable is not the reference)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("the command is empty; leave out --impl to use the bundled reference")
    return text
