"""The page the browser is opened on: a file only this user can read, leading to the desk's address and its secret."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .._version import __version__
from ..present import escape
from ..present.page import document


def launch_page(url: str) -> str:
    """A page that sends the browser on to ``url`` at once, with a link for a browser that does not follow."""
    e = escape.html
    return document(
        lang="en",
        title="Referee's desk",
        kind="Referee's desk",
        heading="Opening the referee's desk",
        provenance=[],
        body=[f'<p>If the desk does not open by itself, <a href="{e(url)}">follow this link</a>.</p>'],
        footer=f"vitou {__version__}: this file is removed when the desk stops",
        refresh=url,
    )


@contextlib.contextmanager
def launch_file(url: str) -> Iterator[Path]:
    """The launch page in a private folder (0700), itself 0600, removed with the folder when the block ends.

    A browser started on an address has it on its command line, which every local user can read in the process
    table; started on this file, it has only the file's name, and the secret is in what only this user can read.
    """
    folder = tempfile.mkdtemp(prefix="vitou-desk-")  # made 0700, whatever the umask
    try:
        fd, path = tempfile.mkstemp(suffix=".html", prefix="open-", dir=folder)  # made 0600, never through a link
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(launch_page(url))
        yield Path(path)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


__all__ = ["launch_file", "launch_page"]
