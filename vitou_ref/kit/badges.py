"""Badges: one shields.io endpoint document per implementation and ruleset, such as "298/298 vitou 1.1.0"."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from ..present import escape
from .comparison import INCOMPLETE, Comparison, Tally

LABEL = "conformance"
COLORS = {
    "conformant": "brightgreen",
    "known failures only": "yellowgreen",
    INCOMPLETE: "yellow",
    "not conformant": "red",
    "not offered": "lightgrey",
    "no cases": "lightgrey",
}
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def badge(t: Tally, envelope: bool = False) -> dict[str, object]:
    """The endpoint document (schema/shields-endpoint.schema.json) of one tally."""
    what = "envelope" if envelope else t.ruleset.replace("/", " ")
    message = escape.text(f"{t.passed}/{t.verdict.total} {what}", 80)
    if t.status == INCOMPLETE:
        message += " (incomplete)"
    return {"schemaVersion": 1, "label": LABEL, "message": message, "color": COLORS.get(t.status, "red")}


def _slug(text: str) -> str:
    return _UNSAFE.sub("_", text.replace("/", "-")).strip("._-")[:60] or "_"


def badges(c: Comparison) -> Iterator[tuple[str, dict[str, object]]]:
    """(file name, document) for each implementation and ruleset of the comparison, and for its envelope."""
    taken: set[str] = set()
    for g in c.groups:
        for t in g.tallies:
            r = t.entrant.report
            stem = "-".join(_slug(s) for s in (r.name, r.version, "envelope" if g.envelope else t.ruleset))
            name = f"{stem}.json"
            if name in taken:  # another run of the same implementation: its report file's name tells them apart
                stem += "-" + _slug(os.path.splitext(os.path.basename(r.path))[0])
                name = f"{stem}.json"
            n = 1
            while name in taken:
                n += 1
                name = f"{stem}-{n}.json"
            taken.add(name)
            yield name, badge(t, g.envelope)


def write_badges(directory: str, c: Comparison) -> list[str]:
    """Each badge written under ``directory`` (made if missing; a badge of the same name is replaced)."""
    os.makedirs(directory, exist_ok=True)
    written = []
    for name, doc in badges(c):
        path = os.path.join(directory, name)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(escape.json_dumps(doc) + "\n")
        written.append(path)
    return written
