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
from .words import say, say_html


def launch_page(url: str, lang: str = "en") -> str:
    """A page that sends the browser on to ``url`` at once, with a link for a browser that does not follow."""
    link = f'<a href="{escape.html(url)}">'
    return document(
        lang=lang,
        title=say(lang, "kind"),
        kind=say(lang, "kind"),
        heading=say(lang, "launch.heading"),
        provenance=[],
        body=[f"<p>{say_html(lang, 'launch.follow', link=link, end='</a>')}</p>"],
        footer=say(lang, "launch.footer", version=__version__),
        refresh=url,
    )


@contextlib.contextmanager
def launch_file(url: str, lang: str = "en") -> Iterator[Path]:
    """The launch page in a private folder (0700), itself 0600, removed with the folder when the block ends.

    A browser started on an address has it on its command line, which every local user can read in the process
    table; started on this file, it has only the file's name, and the secret is in what only this user can read.
    """
    folder = tempfile.mkdtemp(prefix="vitou-desk-")  # made 0700, whatever the umask
    try:
        fd, path = tempfile.mkstemp(suffix=".html", prefix="open-", dir=folder)  # made 0600, never through a link
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(launch_page(url, lang))
        yield Path(path)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


__all__ = ["launch_file", "launch_page"]
