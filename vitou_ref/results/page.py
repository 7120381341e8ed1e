"""Reports compared as one self-contained HTML page: no script, no font, nothing fetched; every text from a report escaped."""

from __future__ import annotations

import difflib
import os
import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._version import __version__
from ..kit.caseresult import PASSED, SKIPPED, XFAIL
from ..present import escape
from ..present.page import anchor, document
from ..rules.plurals import counted
from .caseline import CaseLine
from .matrix import Comparison, Entrant, Group, Tally
from .read import short_hash

RULEBOOK_NAME = "rulebook.html"  # the page `vitou rulebook --format html` writes, looked for beside the report
MAX_JSON = 20_000  # characters of an expected or actual value shown; the rest is cut, and says so

# Only what this page shows: the layout, type, tables and header are the shared ones (present/page.py).
CSS = """
:root{--measure:80rem}
th[scope=row]{position:sticky;left:0;z-index:1;background:#fff;min-width:8rem;max-width:16rem}
thead th{max-width:14rem}
.num{text-align:center;white-space:nowrap;font-variant-numeric:tabular-nums}
tr.section>*{font-weight:700}
tr.section>th[scope=row]{background:#e8ecf6}
.r-full{background:#c6efce;color:#0b3d17}
.r-high{background:#e3f1b8;color:#283400}
.r-mid{background:#ffe1a6;color:#482a00}
.r-low{background:#f8c6c1;color:#5a0a04}
.r-none{background:#ececec;color:#333}
td a{color:inherit}
.tag{display:inline-block;min-width:1.5em;padding:0 .2em;text-align:center;border:1px solid #555;border-radius:3px;
font-weight:700;font-size:.8rem;margin-right:.3em;background:#fff;color:#1a1a1a}
.sub{display:block;font-size:.8rem;font-weight:400;color:var(--muted);overflow-wrap:anywhere}
.notice{border-left:4px solid #a35f00;background:#fff3dc;padding:.5rem .8rem}
.legend{display:flex;flex-wrap:wrap;gap:.4rem;padding:0;list-style:none;font-size:.85rem}
.legend li{padding:.1rem .5rem;border:1px solid var(--line)}
.cmp{display:grid;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));gap:.6rem}
.cmp>div{min-width:0}
mark{background:#ffd76e;color:inherit}
.id{white-space:nowrap;overflow-wrap:normal}
th.case{position:static;max-width:none;background:#f7f7f5}
@media (max-width:40rem){th[scope=row]{min-width:6rem;max-width:10rem}
#summary table,#summary tbody,#summary tr,#summary th,#summary td{display:block;max-width:none}
#summary thead{display:none}#summary tr{border:1px solid var(--line);margin-bottom:.6rem}
#summary th[scope=row]{position:static}#summary td{border:none;border-top:1px solid var(--line);text-align:left}
#summary td .sub{display:inline;margin-left:.4rem}
#summary td::before{display:inline-block;min-width:8.5rem;font-weight:600;color:var(--muted)}
"""


@dataclass(frozen=True)
class Rulebook:
    """Where the rulebook page is, seen from the report page, and the anchors it has."""

    href: str
    anchors: frozenset[str]

    def link(self, clause: str) -> str | None:
        target = anchor("clause", clause)  # the id the rulebook page gives the clause
        return f"{self.href}#{target}" if target in self.anchors else None


def rulebook(path: str, page: str | None) -> Rulebook | None:
    """The rulebook page at ``path`` as the report page at ``page`` links to it; None if it cannot be read."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read(64 << 20)
    except OSError:
        return None
    anchors = frozenset(re.findall(r'\sid="([^"<>]+)"', text))
    target = os.path.relpath(path, os.path.dirname(os.path.abspath(page))) if page else path
    return Rulebook(urllib.parse.quote(target.replace(os.sep, "/")), anchors)


def _e(text: Any, limit: int = 300) -> str:
    """Untrusted text, made printable, cut, and escaped for HTML text and attributes alike."""
    return escape.html(text, limit)


def _rate(ab: tuple[int, int] | None) -> str:
    if ab is None or not ab[1]:
        return "r-none"
    a, b = ab
    return "r-full" if a == b else "r-high" if a * 10 >= b * 9 else "r-mid" if a * 2 >= b else "r-low"


def _ratio_cell(ab: tuple[int, int] | None, bold: bool = False) -> str:
    if ab is None:
        return '<td class="num r-none">–<span class="sub">not run</span></td>'
    pct = f"{100 * ab[0] // ab[1]}%" if ab[1] else "no case"
    return f'<td class="num {_rate(ab)}">{ab[0]}/{ab[1]}<span class="sub">{pct}</span></td>'


def _outcome_class(case: CaseLine) -> str:
    if case.outcome == PASSED:
        return "r-full"
    if case.outcome == SKIPPED:
        return "r-none"
    return "r-mid" if case.outcome == XFAIL else "r-low"


class _Ids:
    """An id for each failing case's details, unique in the page and safe in a URL."""

    def __init__(self) -> None:
        self.ids: dict[tuple[int, int, str], str] = {}

    def of(self, entrant: int, group: int, case_id: str) -> str:
        key = (entrant, group, case_id)
        if key not in self.ids:
            slug = re.sub(r"[^A-Za-z0-9_-]+", "_", case_id)[:40]
            self.ids[key] = f"f{entrant}-g{group}-{slug}-{len(self.ids)}"
        return self.ids[key]


SUMMARY_HEAD: tuple[str, ...] = ("implementation", "version", "language", "ruleset", "passed / total", "clauses")
SUMMARY_HEAD += ("verdict", "level", "envelope")
# On a phone the summary's rows stack, each cell after the name of its column: every column stays in view.
CSS += "".join(f'#summary td:nth-child({i})::before{{content:"{h}"}}' for i, h in enumerate(SUMMARY_HEAD[1:], 2))
CSS += "}\n"


def render_page(c: Comparison, book: Rulebook | None = None) -> str:
    ids = _Ids()
    index = {e.key: i for i, e in enumerate(c.entrants)}
    body = [
        f'<p class="notice" role="note"><span class="tag">{e.letter}</span>{_e(e.label)}: '
        f"incomplete report, {_e(e.report.stopped)}.</p>"
        for e in c.entrants
        if e.report.stopped
    ]
    body.append(_summary(c))
    for gi, g in enumerate(c.groups):
        body.append(_group(g, gi, book, ids, index))
    body.append(_failing(c, ids, index, book))
    suites = ", ".join(short_hash(h) for h in c.suite_hashes)
    return document(
        lang="en",
        title="Vitou conformance results",
        kind="Conformance results",
        heading=f"{counted(len(c.entrants), 'report', 'reports')} of vitou certify compared",
        provenance=[f"suite {escape.text(suites, 300)}"],
        intro=[_linked(book)],
        body=body,
        footer=f"Made by vitou report {__version__} from the reports of vitou certify.",
        css=CSS,
    )


def _linked(book: Rulebook | None) -> str:
    if book is None:
        return (
            '<p class="provenance">Give --rulebook FILE, or put rulebook.html beside this page, '
            "for clause ids that link to the rules.</p>"
        )
    return f'<p class="provenance">Clause ids link to <a href="{escape.html(book.href)}">the rulebook</a>.</p>'


def _tag(e: Entrant) -> str:
    return f'<span class="tag">{_e(e.letter)}</span>'


def _status_class(t: Tally | None) -> str:
    if t is None:
        return "r-none"
    classes = {"conformant": "r-full", "known failures only": "r-high", "incomplete": "r-mid"}
    return classes.get(t.status, "r-none" if t.status in ("not offered", "no cases") else "r-low")


def _summary(c: Comparison) -> str:
    head = SUMMARY_HEAD
    rows = []
    for e, t, env in c.rows():
        r = e.report
        whence = " · ".join(e.whence())
        if r.known_failures:
            whence += f" · {counted(len(r.known_failures), 'known failure', 'known failures')} listed"
        envelope = (
            f'<td class="num {_status_class(env)}">{env.passed}/{env.verdict.total}'
            f'<span class="sub">{_e(env.status)}</span></td>'
            if env
            else '<td class="num r-none">–</td>'
        )
        rows.append(
            f'<tr><th scope="row">{_tag(e)}{_e(e.label, 200)}<span class="sub">{_e(whence, 400)}</span></th>'
            f"<td>{_e(r.version, 40)}</td><td>{_e(r.language, 30)}</td><td>{_e(t.ruleset, 60)}</td>"
            + _ratio_cell((t.passed, t.verdict.total))
            + _ratio_cell((t.verdict.clauses_passed, t.verdict.clauses_total))
            + f'<td class="{_status_class(t)}">{_e(t.verdict_text())}</td><td>{_e(t.level_text())}</td>{envelope}</tr>'
        )
    return (
        '<section id="summary"><h2>Summary</h2>'
        "<p>One row per implementation and ruleset: cases passed of cases run, the clauses all of whose cases passed, "
        "and the verdict; the level it was certified at (code: each refused action's error code checked; outcome: "
        "only that it is refused), and where a code-level run's verdict differs at the outcome level, that one; "
        "the envelope (protocol lines, judged apart) in the last column.</p>"
        + _legend()
        + '<div class="scroll"><table><thead><tr>'
        + "".join(f'<th scope="col">{h}</th>' for h in head)
        + "</tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table></div></section>"
    )


def _legend() -> str:
    items = [("r-full", "100%"), ("r-high", "90% or more"), ("r-mid", "50% or more"), ("r-low", "under 50%")]
    cells = "".join(f'<li class="{cls}">{text}</li>' for cls, text in items)
    return f'<ul class="legend" aria-label="colours">{cells}<li class="r-none">not run</li></ul>'


def _columns(g: Group, first: str) -> str:
    cols = "".join(f'<th scope="col">{_tag(t.entrant)}{_e(t.entrant.label, 200)}</th>' for t in g.tallies)
    return f'<thead><tr><th scope="col">{first}</th>{cols}</tr></thead>'


def _group(g: Group, gi: int, book: Rulebook | None, ids: _Ids, index: Mapping[str, int]) -> str:
    title = g.label[:1].upper() + g.label[1:] if g.envelope else f"Ruleset {g.label}"  # "Envelope under vitou/1.1.0"
    out = [f'<section id="g{gi}"><h2>{_e(title)}</h2>']
    if not g.envelope:
        out.append("<h3>By rules-text section and clause</h3><p>Cases passed of cases run.</p>")
        out.append(f'<div class="scroll"><table>{_columns(g, "section / clause")}<tbody>')
        clauses = g.clause_rows()
        for section, by in g.section_rows():
            title = g.title(section)
            out.append(f'<tr class="section"><th scope="row">§{_e(section, 8)} {_e(title, 120)}</th>')
            out.extend(_ratio_cell(by.get(t.entrant.key)) for t in g.tallies)
            out.append("</tr>")
            for s, clause, cby in clauses:
                if s == section:
                    out.append(f'<tr><th scope="row">{_clause(clause, book)}</th>')
                    out.extend(_ratio_cell(cby.get(t.entrant.key)) for t in g.tallies)
                    out.append("</tr>")
        out.append("</tbody></table></div>")
    out.append(_differing(g, gi, ids, index))
    out.append("</section>")
    return "".join(out)


def _clause(clause: str, book: Rulebook | None) -> str:
    href = book.link(clause) if book else None
    # An id is one word: never broken inside (the table scrolls in its box instead).
    text = f'<span class="id">{_e(clause, 80)}</span>'
    return f'<a href="{escape.html(href)}">{text}</a>' if href else text


def _differing(g: Group, gi: int, ids: _Ids, index: Mapping[str, int]) -> str:
    rows = g.differing()
    total = len({cid for t in g.tallies for cid in t.results})
    what = "Cases not passed" if len(g.tallies) == 1 else "Cases where the implementations differ"
    out = [f"<h3>{what}: {len(rows)} of {total}</h3>"]
    if not rows:
        return out[0] + "<p>None.</p>"
    cols = "".join(f'<th scope="col">{_tag(t.entrant)}{_e(t.entrant.label, 200)}</th>' for t in g.tallies)
    out.append(f'<div class="scroll"><table><thead><tr>{cols}</tr></thead>')
    for first, row in rows:
        # The case's id on a row of its own, as wide as the table: never squeezed into a narrow column and broken.
        out.append(
            f'<tbody><tr><th scope="rowgroup" class="case" colspan="{len(g.tallies)}"><span class="id">'
            f'{_e(first.id, 60)}</span><span class="sub">{_e(first.title, 200)}</span></th></tr><tr>'
        )
        for t in g.tallies:
            case = row.get(t.entrant.key)
            if case is None:
                out.append('<td class="num r-none">–<span class="sub">not run</span></td>')
            elif case.outcome in (PASSED, SKIPPED):
                out.append(f'<td class="num {_outcome_class(case)}">{_e(case.label)}</td>')
            else:
                target = ids.of(index[t.entrant.key], gi, case.id)
                out.append(f'<td class="num {_outcome_class(case)}"><a href="#{target}">{_e(case.label)}</a></td>')
        out.append("</tr></tbody>")
    out.append("</table></div>")
    return "".join(out)


def _failing(c: Comparison, ids: _Ids, index: Mapping[str, int], book: Rulebook | None) -> str:
    out = [
        '<section id="failing"><h2>Failing cases</h2><p>Each with its first differing step, expected against actual.</p>'
    ]
    for e in c.entrants:
        cases = [
            (gi, t, case)
            for gi, g in enumerate(c.groups)
            for t in g.tallies
            if t.entrant is e
            for case in t.results.values()
            if case.outcome not in (PASSED, SKIPPED)
        ]
        cases.sort(key=lambda x: (x[2].id, x[0]))  # by id, as a reader looks one up; not in the order they ran
        not_passed = counted(len(cases), "case", "cases")
        out.append(f'<h3 id="e{index[e.key]}">{_tag(e)}{_e(e.label, 200)}: {not_passed} not passed</h3>')
        for gi, t, case in cases:
            out.append(_failure(ids.of(index[e.key], gi, case.id), t, case, book))
    out.append("</section>")
    return "".join(out)


def _failure(ident: str, t: Tally, case: CaseLine, book: Rulebook | None) -> str:
    where = case.key[0]  # its ruleset, or the envelope under it
    out = [
        f'<details id="{ident}"><summary><strong>{_e(case.id, 60)}</strong> {_e(case.label)} · {_e(where, 60)} · '
        f"{_e(case.title, 200)}</summary>"
    ]
    diff = case.difference
    # The first difference, then every place after it: a bug that shows first does not hide the ones after it.
    for n, place in enumerate([diff, *case.more] if diff else []):
        step = _e(place.get("where"), 60)
        action = f" ({_e(_json(place.get('action'), compact=True), 300)})" if place.get("action") is not None else ""
        head = "First difference" if n == 0 else f"Then, difference {n + 1} of {len(case.more) + 1}"
        out.append(f"<p>{head}: <strong>{step}</strong>{action}: {_e(place.get('what'), 200)}</p>")
        out.append('<div class="cmp">')
        texts = {side: _json(place.get(side)) for side in ("expected", "actual")}
        for side, other in (("expected", "actual"), ("actual", "expected")):
            out.append(f"<div><h4>{side}</h4><pre>{_marked(texts[side], texts[other])}</pre></div>")
        out.append("</div>")
    if case.codes_only and not case.passed:
        out.append("<p>Only its error codes differ: it passes at the outcome level.</p>")
    if case.known:
        out.append(f"<p>Listed as a known failure: {_e(case.known, 600)}</p>")
    if case.reason and not diff:  # with a difference, the reason only says it again
        out.append(f"<p>{_e(case.reason, 4000)}</p>")
    if case.clauses:
        out.append(f'<p class="sub">clauses: {", ".join(_clause(x, book) for x in case.clauses[:40])}</p>')
    out.append("</details>")
    return "".join(out)


def _marked(text: str, other: str) -> str:
    """One side of a difference as HTML: its lines the other lacks marked, and in a changed line the changed part."""
    a, b = text.split("\n"), other.split("\n")
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out += [escape.html(x) for x in a[i1:i2]]
        elif op == "replace" and i2 - i1 == j2 - j1:
            out += [_marked_within(x, y) for x, y in zip(a[i1:i2], b[j1:j2])]
        else:
            out += [f"<mark>{escape.html(x)}</mark>" for x in a[i1:i2]]
    return "\n".join(out)


def _common(x: str, y: str) -> int:
    """How many characters ``x`` and ``y`` share at their start."""
    return next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))


def _marked_within(x: str, y: str) -> str:
    """A line ``x`` with the part that differs from ``y`` marked: what lies between their common start and end."""
    start = _common(x, y)
    end = _common(x[start:][::-1], y[start:][::-1])
    middle = x[start : len(x) - end]
    marked = f"<mark>{escape.html(middle)}</mark>" if middle else ""
    return escape.html(x[:start]) + marked + escape.html(x[len(x) - end :])


def _json(value: Any, compact: bool = False) -> str:
    """A value from a report as JSON text, safe to show: no raw control or surrogate characters, cut if long."""
    text = escape.json_dumps(value, indent=None if compact else 1, sort_keys=True)
    return text if len(text) <= MAX_JSON else text[:MAX_JSON] + f"\n… cut: {len(text) - MAX_JSON} more characters"
