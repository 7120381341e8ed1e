"""What tells reports of different suites apart: the content hash of a suite's case files."""

from __future__ import annotations

import hashlib
from pathlib import Path

from .suite import Suite


def suite_hash(suite: Suite) -> str | None:
    """sha256 over the suite's case files, in the order of their paths: each path (below the suite's root), length and bytes.

    A copy of the suite under another directory has the same hash; a case file
    added, removed, renamed or changed gives another. None if a file can no
    longer be read.
    """
    root = Path(suite.root)
    base = (root if root.is_dir() else root.parent).parent
    digest = hashlib.sha256()
    for shown in sorted(suite.files):
        try:
            data = (base / shown).read_bytes()
        except OSError:
            return None
        name = shown.split("/", 1)[-1].encode("utf-8")  # without the name of the suite's own directory
        digest.update(b"%d:%s\n%d\n" % (len(name), name, len(data)))
        digest.update(data)
    return "sha256:" + digest.hexdigest()
