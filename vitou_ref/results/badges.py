"""Badges: one shields.io endpoint document per implementation and ruleset, such as "298/298 vitou 1.1.0"."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from ..present import escape
from .matrix import INCOMPLETE, Comparison, Tally

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
    what = t.ruleset.replace("/", " ")
    what = f"envelope {what}" if envelope else what
    message = escape.text(f"{t.passed}/{t.verdict.total} {what}", 80)
    if t.entrant.report.level == "outcome":
        message += " (outcome level)"  # refusals judged, not their error codes: never to pass for a code-level badge
    if t.status == INCOMPLETE:
        message += " (incomplete)"
    return {"schemaVersion": 1, "label": LABEL, "message": message, "color": COLORS.get(t.status, "red")}


def _slug(text: str) -> str:
    return _UNSAFE.sub("_", text.replace("/", "-")).strip("._-")[:60] or "_"


def badges(c: Comparison) -> Iterator[tuple[str, dict[str, object]]]:
    """(file name, document) for each implementation and ruleset of the comparison, and for the envelope under it.

    A name is made of the implementation's own words, so it is given by the reports' order: the first report
    to be named so keeps it; a later one adds its file's name, and never takes a name another report has as
    its own (a version written to look like another's file name cannot take that report's badge).
    """
    tallies = [(g, t) for g in c.groups for t in g.tallies]
    own = [_stem(t, g.envelope) for g, t in tallies]
    plain = set(own)
    taken: set[str] = set()
    for (g, t), mine in zip(tallies, own):
        stem = mine
        if stem in taken:  # another run of the same implementation: its report file's name tells them apart
            stem += "-" + _slug(os.path.splitext(os.path.basename(t.entrant.report.path))[0])
        n = 1
        while stem in taken or (stem != mine and stem in plain):
            n += 1
            stem = f"{mine}-{t.entrant.key}{n}"
        taken.add(stem)
        yield f"{stem}.json", badge(t, g.envelope)


def _stem(t: Tally, envelope: bool) -> str:
    r = t.entrant.report
    return "-".join(_slug(s) for s in (r.name, r.version, *(["envelope"] if envelope else []), t.ruleset))


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
