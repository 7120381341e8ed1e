"""The casebook: the shipped disputes by section of the rules text and by rule, each opened at the desk."""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass
from typing import Any

from ..audit.audit import Audit, Words, audit
from ..audit.grounds import event_clauses
from ..audit.i18n import clause_words
from ..audit.record import load_record
from ..audit.report import claim_grounds
from ..engine.reasons import catalog, render, section_titles
from ..engine.tables import tables_for
from ..present import escape
from ..present.page import anchor
from ..rules.data import data_dir
from ..rules.model import Clause, Ruleset
from .forms import Stamp, button_form, disputes


@dataclass(frozen=True)
class Case:
    """A shipped dispute and the rules its rulings cite, each as its ruleset writes it (with its section)."""

    name: str  # the file's name, as the desk's dispute operation takes it
    stem: str  # the file's name without .yaml: its words' key in the casebook catalogue
    rules: Ruleset
    clauses: tuple[Clause, ...]  # in the order the rulings first cite them

    @property
    def number(self) -> str:
        return self.stem.partition("-")[0]

    @property
    def sections(self) -> tuple[str, ...]:
        return tuple(sorted({c.section for c in self.clauses}))


def cited(a: Audit) -> list[str]:
    """The clauses a dispute is about, in order, each once: those its disputed actions are ruled by.

    The disputed actions are the illegal ones and those a claim is made on; a record with neither is a
    question about the whole of it, and every action counts. An illegal action cites the clause it breaks; a
    legal one the clause that allows it in its position and the clauses that give what it brought about (a
    trick's winner, a hand's score, the match); a claim is answered by the clauses its ruling rests on. Counting
    every card played would file nearly every case under "any card may be played" (§02), which no one disputes.
    """
    w = Words(a.rules, "en")
    disputed = [r for r in a.rulings if r.claims or (not r.legal and r.open is None)] or a.rulings
    out: list[str] = []
    for r in disputed:
        if not r.legal:
            out += [r.clause] if r.clause else []
        else:
            out += [r.allowed_by] if r.allowed_by else []
            out += event_clauses(a.rules, r.events)
        for claim in r.claims:
            out += claim_grounds(w, r, claim)
    return list(dict.fromkeys(out))


@functools.cache
def cases() -> tuple[Case, ...]:
    """The shipped disputes, each audited once per process (they ship with the package and never change)."""
    folder = data_dir("conformance") / "disputes"
    out = []
    for name in disputes():
        record, rules = load_record(str(folder / name))
        clauses = tuple(rules.clause(c) for c in cited(audit(record, rules, go_on=True)))
        out.append(Case(name, name.removesuffix(".yaml"), rules, clauses))
    return tuple(out)


def case_words(stem: str, lang: str) -> tuple[str, str] | None:
    """A dispute's title and question in ``lang`` (English where ``lang`` has none), or None without any."""
    own = catalog(lang).get("casebook", {}).get(stem)
    if isinstance(own, dict) and own.get("title") and own.get("question"):
        return str(own["title"]), str(own["question"])
    return None


def _say(lang: str, key: str, **params: Any) -> str:
    return render(key, params, lang, section="casebook")


def section_title(lang: str, rules: Ruleset, section: str) -> str:
    """A section with its title in ``lang``, as the rulebook names it: "§03 Raise, accept or refuse"."""
    title = section_titles(catalog(lang), rules.id).get(section, "")
    with contextlib.suppress(KeyError, IndexError, ValueError):  # a title may name the ruleset's ending score
        title = title.format(at=tables_for(rules).twenty_at)
    return _say(lang, "section", section=section, title=title)


def _case_anchor(section: str, c: Case) -> str:
    return anchor("casebook-case", f"{section}-{c.stem}")


def _clause_anchor(clause_id: str) -> str:
    return anchor("casebook-rule", clause_id)


def _title(c: Case, lang: str) -> str:
    title, _ = case_words(c.stem, lang) or (c.stem, "")
    return _say(lang, "case", number=c.number, title=title)


def _case_item(c: Case, section: str, lang: str, stamp: Stamp) -> str:
    """A dispute under one section: its title, its question, the rules of that section it cites, and "open"."""
    e = escape.html
    _, question = case_words(c.stem, lang) or ("", "")
    rules = ", ".join(
        f'<a href="#{e(_clause_anchor(k.id))}"><code>{e(k.id)}</code></a>' for k in c.clauses if k.section == section
    )
    opened = button_form(stamp, "dispute", {"name": c.name}, _say(lang, "open"), inline=True)
    return (
        f'<li id="{e(_case_anchor(section, c))}"><strong>{e(_title(c, lang))}</strong> {e(question)}'
        f'<br><span class="meta">{e(_say(lang, "ruleset", name=c.rules.name))} · {e(_say(lang, "cites"))} {rules}'
        f"</span> {opened}</li>"
    )


def by_section(all_cases: tuple[Case, ...]) -> dict[str, list[Case]]:
    """Each section of the rules text the disputes touch, in order, with the disputes that touch it."""
    out: dict[str, list[Case]] = {}
    for c in all_cases:
        for s in c.sections:
            out.setdefault(s, []).append(c)
    return dict(sorted(out.items()))


def by_clause(all_cases: tuple[Case, ...]) -> dict[str, tuple[Clause, list[Case]]]:
    """Each rule the disputes cite, in its section's order then the ruleset's, with the disputes citing it."""
    found: dict[str, tuple[Clause, list[Case]]] = {}
    order: dict[str, tuple[str, int]] = {}
    for c in all_cases:
        ids = [k.id for k in c.rules.clauses]
        for k in c.clauses:
            found.setdefault(k.id, (k, []))[1].append(c)
            order.setdefault(k.id, (k.section, ids.index(k.id)))
    return {k: found[k] for k in sorted(found, key=lambda k: (*order[k], k))}


def casebook_html(stamp: Stamp, lang: str) -> str:
    """The casebook as a section of a page, in ``lang``: the disputes by section, then an index by rule.

    Each dispute is listed once under every section it touches, with a button that posts the desk's
    "dispute" operation with its file's name. Every word is the catalogue's, and every text is escaped.
    """
    e = escape.html
    all_cases = cases()
    out = [
        f'<section id="casebook" lang="{e(lang)}"><h2>{e(_say(lang, "heading"))}</h2>',
        f'<p class="meta">{e(_say(lang, "intro"))}</p>',
        f'<h3 id="casebook-sections">{e(_say(lang, "by_section"))}</h3>',
    ]
    for section, listed in by_section(all_cases).items():
        heading = section_title(lang, listed[0].rules, section)
        out.append(f'<h4 id="{e(anchor("casebook-section", section))}">{e(heading)}</h4><ul class="cases">')
        out += [_case_item(c, section, lang, stamp) for c in listed]
        out.append("</ul>")
    out.append(f'<h3 id="casebook-rules">{e(_say(lang, "by_clause"))}</h3><ul class="rules">')
    for clause_id, (clause, listed) in by_clause(all_cases).items():
        title = _clause_title(clause, lang)
        links = ", ".join(f'<a href="#{e(_case_anchor(clause.section, c))}">{e(_title(c, lang))}</a>' for c in listed)
        words = e(_say(lang, "clause", clause=clause_id, title=title))
        out.append(f'<li id="{e(_clause_anchor(clause_id))}">{words}<br>{links}</li>')
    out.append("</ul></section>")
    return "".join(out)


def _clause_title(clause: Clause, lang: str) -> str:
    return " ".join(clause_words(clause, lang)[0].split())  # a profile may write a title over lines


__all__ = ["Case", "by_clause", "by_section", "case_words", "casebook_html", "cases", "cited", "section_title"]
