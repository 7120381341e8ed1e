"""Reports compared, as text for a terminal, as Markdown and as JSON: the summary, then where the implementations differ."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._version import __version__
from ..kit.verdicts import changed_identity
from ..present import escape
from ..present import markdown as mdown
from ..rules.plurals import counted
from .caseline import CaseLine
from .matrix import Comparison, Entrant, Group, Tally
from .read import short_hash

NOT_RUN = "-"


def _cell(case: CaseLine | None) -> str:
    if case is None:
        return NOT_RUN
    return f"{case.label} (codes only)" if case.codes_only and not case.passed else case.label


def _ratio(ab: tuple[int, int] | None) -> str:
    return f"{ab[0]}/{ab[1]}" if ab is not None else NOT_RUN


def _envelope(t: Tally | None) -> str:
    return f"{t.passed}/{t.verdict.total} {t.status}" if t is not None else NOT_RUN


def _table(rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


def _cut(text: str, limit: int) -> str:
    return escape.text(text, limit)


# ------------------------------------------------------------------ text


def render_text(c: Comparison) -> str:
    out = [_heading(c), ""]
    out += [f"  {e.letter}  {_cut(e.label, 120)}: {_cut(_whence(e), 300)}" for e in c.entrants]
    out += [f"  {e.letter}  {_cut(_changed(e) or '', 800)}" for e in c.entrants if _changed(e)]
    out += ["", "summary (one row per implementation and ruleset):"]
    head = ["", "implementation", "version", "language", "ruleset", "passed", "clauses", "verdict", "level", "envelope"]
    rows = [head]
    for e, t, env in c.rows():
        r = e.report
        rows.append(
            [e.letter, _cut(r.name, 30), _cut(r.version, 16), _cut(r.language, 12), _cut(t.ruleset, 40)]
            + [f"{t.passed}/{t.verdict.total}", f"{t.verdict.clauses_passed}/{t.verdict.clauses_total}"]
            + [t.verdict_text(), t.level_text(), _envelope(env)]
        )
    out += _table(rows)
    for g in c.groups:
        out += ["", *_text_group(g)]
    return "\n".join(out) + "\n"


def _changed(e: Entrant) -> str | None:
    """Why no verdict of the report counts, when its implementation changed its identity during the run."""
    change = changed_identity(e.report.cases)
    return None if change is None else f"no verdict of this run counts: {change}"


def _heading(c: Comparison) -> str:
    suites = ", ".join(short_hash(h) for h in c.suite_hashes)
    return f"{counted(len(c.entrants), 'report', 'reports')} of vitou certify; suite {suites}"


def _whence(e: Entrant) -> str:
    r = e.report
    known = ""
    if r.known_failures:
        known = f"; {counted(len(r.known_failures), 'known failure', 'known failures')} listed"
    stopped = f"; INCOMPLETE: {r.stopped}" if r.stopped else ""
    return ", ".join(e.whence()) + f"{known}{stopped}"


def _text_group(g: Group) -> list[str]:
    letters = [t.entrant.key for t in g.tallies]
    differing = g.differing()
    total = len({cid for t in g.tallies for cid in t.results})
    what = "cases not passed" if len(g.tallies) == 1 else "cases where the implementations differ"
    out = [f"{_cut(g.label, 200)}: {len(differing)} {what} (of {total})"]
    if differing:
        rows = [["case", *letters, "title"]]
        for first, row in differing:
            rows.append([_cut(first.id, 40), *(_cell(row.get(x)) for x in letters), _cut(first.title, 80)])
        out += _table(rows)
    clauses = g.differing_clauses()
    if clauses:
        what = "clauses not passed" if len(g.tallies) == 1 else "clauses where they differ"
        out += [f"{_cut(g.label, 200)}: {len(clauses)} {what} (cases passed of cases run)"]
        rows = [["§", "clause", *letters]]
        for section, clause, by in clauses:
            rows.append([section, _cut(clause, 60), *(_ratio(by.get(x)) for x in letters)])
        out += _table(rows)
    return out


# -------------------------------------------------------------- markdown


def _md(text: str, limit: int = 300) -> str:
    return mdown.text(text, limit)


SUMMARY_HEAD = ["implementation", "version", "language", "ruleset", "passed", "clauses", "verdict", "level", "envelope"]


def render_markdown(c: Comparison) -> str:
    out = [mdown.heading(1, "Vitou conformance results"), "", _md(_heading(c)), ""]
    rows = []
    for e, t, env in c.rows():
        r = e.report
        cells = [_md(f"{e.key}: {e.label}"), _md(r.version), _md(r.language), _md(t.ruleset)]
        cells += [f"{t.passed}/{t.verdict.total}", f"{t.verdict.clauses_passed}/{t.verdict.clauses_total}"]
        rows.append([*cells, _md(t.verdict_text()), _md(t.level_text()), _md(_envelope(env))])
    out += [*mdown.table(SUMMARY_HEAD, rows), ""]
    for e in c.entrants:
        if e.report.stopped:
            out += [f"> **{_md(e.label)}**: incomplete, {_md(e.report.stopped)}.", ""]
        if _changed(e):
            out += [f"> **{_md(e.label)}**: {_md(_changed(e) or '', 800)}.", ""]
    for g in c.groups:
        out += _md_group(g)
    return "\n".join(out)


def _md_group(g: Group) -> list[str]:
    names = [_md(f"{t.entrant.key}: {t.entrant.label}") for t in g.tallies]  # the headers; the cells go by key
    keys = [t.entrant.key for t in g.tallies]
    differing = g.differing()
    what = "Cases not passed" if len(g.tallies) == 1 else "Cases where the implementations differ"
    out = [mdown.heading(2, _md(g.label)), "", f"{what}: {len(differing)}.", ""]
    if differing:
        rows = [
            [f"{_md(first.id, 40)} {_md(first.title, 120)}", *(_cell(row.get(k)) for k in keys)]
            for first, row in differing
        ]
        out += [*mdown.table(["case", *names], rows), ""]
    clauses = g.differing_clauses()
    if clauses:
        rows = [
            [f"§{_md(section, 8)} {mdown.code(clause, 60)}", *(_ratio(by.get(k)) for k in keys)]
            for section, clause, by in clauses
        ]
        out += [*mdown.table(["clause", *names], rows), ""]
    return out


# ------------------------------------------------------------------ json


def render_json(c: Comparison) -> dict[str, Any]:
    return {
        "harness": {"name": "vitou report", "version": __version__},
        "reports": [_report_json(e) for e in c.entrants],
        "summary": [_row_json(e, t, env) for e, t, env in c.rows()],
        "groups": [_group_json(g) for g in c.groups],
    }


def _report_json(e: Entrant) -> dict[str, Any]:
    r = e.report
    return {
        "key": e.key,
        "file": r.path,
        "label": e.label,
        "letter": e.letter,
        "implementation": {"name": r.name, "version": r.version, "language": r.language},
        "command": r.command,
        "suite": r.suite_hash,
        "spec": r.spec,
        "results": len(r.cases),
        "known_failures": r.known_failures,
        "incomplete": r.stopped,
        "identity_changed": changed_identity(r.cases),
        "level": r.level,
    }


def _tally_json(t: Tally) -> dict[str, Any]:
    v = t.verdict
    return {
        "ruleset": t.ruleset,
        "passed": t.passed,
        "total": v.total,
        "counts": dict(sorted(v.counts.items())),
        "clauses": {"passed": v.clauses_passed, "total": v.clauses_total},
        "verdict": t.status,
        "level": t.entrant.report.level,
        "levels": t.levels,  # the verdict at each level judged
    }


def _row_json(e: Entrant, t: Tally, env: Tally | None) -> dict[str, Any]:
    return {"report": e.key, "implementation": e.label, **_tally_json(t), "envelope": _tally_json(env) if env else None}


def _group_json(g: Group) -> dict[str, Any]:
    return {
        "ruleset": g.label,
        "name": g.name,
        "envelope": g.envelope,
        "spec": g.spec_hash,
        "suite": g.suite_hash,
        "implementations": [t.entrant.key for t in g.tallies],  # the keys of "reports", as below
        "differing": [
            {
                "id": first.id,
                "title": first.title,
                "clauses": list(first.clauses),
                "outcomes": {k: v.outcome for k, v in row.items()},
                "codes_only": sorted(k for k, v in row.items() if v.codes_only),
            }
            for first, row in g.differing()
        ],
        "clauses": [
            {"section": s, "clause": c, "by": {k: {"passed": a, "cases": b} for k, (a, b) in by.items()}}
            for s, c, by in g.clause_rows()
        ],
    }
