"""The spec as a human rulebook: numbered clauses, clarifications, and worked examples from the conformance cases."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..audit.audit import Words
from ..audit.i18n import (
    clarification_words,
    clause_words,
    decision_words,
    error_when_words,
    error_words,
    row_words,
    ruleset_words,
)
from ..audit.report import final_words
from ..engine.events import Event
from ..engine.reasons import section_titles
from ..engine.tables import tables_for
from ..kit.fixtures import Case
from ..kit.suite import load_suite
from ..present import markdown as md
from ..present.page import anchor
from ..protocol.server import run_case
from ..rules.model import Ruleset, thaw

EXAMPLES_PER_CLAUSE = 2


@dataclass
class Example:
    case: Case
    anchor: str
    deals: list[dict[str, list[str]]]
    setup: dict[str, Any]
    lines: list[tuple[str, list[str]]]  # (action, what followed)
    final: dict[str, Any]


@dataclass
class Book:
    rules: Ruleset
    lang: str
    words: Words
    examples: dict[str, Example] = field(default_factory=dict)
    by_clause: dict[str, list[str]] = field(default_factory=dict)


def _example(rules: Ruleset, case: Case, w: Words) -> Example | None:
    expect = case.expectation(rules.name)
    if expect.errored:
        return None
    from ..engine.events import HandEvent, MatchEvent, TrickEvent

    trace: list[Event] = []
    response = run_case(tables_for(rules), thaw(case.setup), case.plain_actions, 1, trace)
    if "steps" not in response:
        return None
    lines: list[tuple[str, list[str]]] = []
    taken = 0
    for action, step in zip(case.plain_actions, response["steps"]):
        if not step["ok"]:
            lines.append((w.action(action), [f"{w.say('audit', 'illegal')}{w.colon} {step['error']}"]))
            continue
        # The trace holds the events of the accepted steps, in order.
        mine = trace[taken : taken + len(step["events"])]
        taken += len(mine)
        lines.append(
            (w.action(action), [w.event(e) for e in mine if isinstance(e, (TrickEvent, HandEvent, MatchEvent))])
        )
    setup = thaw(case.setup)
    return Example(case, anchor("example", case.id), setup.get("deals", []), setup, lines, response["final"])


def build(rules: Ruleset, lang: str, suite: str | None = None) -> Book:
    w = Words(rules, lang)
    book = Book(rules, lang, w)
    cases = [c for c in load_suite(suite).applicable(rules.name) if c.plain_actions]
    # For each clause, the cases that exercise it first (it heads their list of
    # clauses), then the shortest: the clearest illustrations.
    chosen: dict[str, list[str]] = defaultdict(list)
    for clause in (c.id for c in rules.clauses):
        ranked = sorted(
            (c for c in cases if clause in {rules.current_clause(x) for x in c.clauses}),
            key=lambda c: ([rules.current_clause(x) for x in c.clauses].index(clause), len(c.plain_actions), c.id),
        )
        for case in ranked:
            if len(chosen[clause]) >= EXAMPLES_PER_CLAUSE:
                break
            if case.id not in book.examples:
                ex = _example(rules, case, w)
                if ex is None:
                    continue
                book.examples[case.id] = ex
            chosen[clause].append(case.id)
    book.by_clause = dict(chosen)
    return book


def sections_of(rules: Ruleset) -> list[tuple[str, list[Any]]]:
    out: dict[str, list[Any]] = defaultdict(list)
    for c in rules.clauses:
        out[c.section].append(c)
    return sorted(out.items())


# ------------------------------------------------------------------ markdown


def _md(text: object) -> str:
    """A text of the ruleset, a profile or a catalog as Markdown that shows it as written, on one line."""
    return md.text(" ".join(str(text).split()))


def markdown(book: Book) -> str:
    rules, w, lang = book.rules, book.words, book.lang

    def say(*key: str, **values: object) -> str:
        return _md(w.say(*key, **values))

    rtitle, rsummary = ruleset_words(rules, lang)
    out = [md.heading(1, say("rulebook", "title", title=rtitle)), ""]
    out.append(f"*{say('rulebook', 'version', version=rules.version, hash=rules.content_hash)}*")
    out += ["", _md(rsummary), ""]
    out += _contents_md(book)
    errors_of: dict[str, list[str]] = defaultdict(list)
    for e in rules.errors:
        errors_of[e.clause].append(e.code)
    for sec, clauses in sections_of(rules):
        out += [md.target(anchor("section", sec)), "", md.heading(2, f"§{_md(sec)} {_md(section_title(w, sec))}"), ""]
        for c in clauses:
            out += _clause_md(book, c, errors_of.get(c.id, []))
    out += _clarifications_md(book)
    out += _errors_md(book)
    decisions = thaw(rules.profile).get("decisions", []) if rules.profile else []
    if decisions:
        out += [md.heading(2, say("rulebook", "decisions")), ""]
        for i, d in enumerate(decisions):
            dw = decision_words(rules, i, d, lang)
            out += [md.heading(3, _md(dw["topic"])), "", _md(dw["decision"]), ""]
            out += [f"*{_md(w.say('rulebook', 'reason') + w.colon)}* {_md(dw['reason'])}", ""]
    out += [md.target("examples"), "", md.heading(2, say("rulebook", "examples")), ""]
    for ex in book.examples.values():
        out += _example_md(book, ex)
    return "\n".join(out) + "\n"


def _contents_md(book: Book) -> list[str]:
    w, lang = book.words, book.lang
    out = [md.heading(2, _md(w.say("rulebook", "contents"))), ""]
    for sec, clauses in sections_of(book.rules):
        out.append(md.item(md.link(f"§{_md(sec)} {_md(section_title(w, sec))}", anchor("section", sec))))
        for c in clauses:
            title, _ = clause_words(c, lang)
            out.append(md.item(md.link(f"{_md(c.id)}: {_md(title)}", anchor("clause", c.id)), indent=md.marker_width()))
    out += [md.item(md.link(_md(w.say("rulebook", key)), key)) for key in ("clarifications", "errors", "examples")]
    return [*out, ""]


def _clarifications_md(book: Book) -> list[str]:
    w, lang = book.words, book.lang
    out = [md.target("clarifications"), "", md.heading(2, _md(w.say("rulebook", "clarifications"))), ""]
    for k in book.rules.clarifications:
        title, ruling, reason = clarification_words(k, lang)
        heading = f"{_md(w.say('rulebook', 'clarification', n=k.number))}: {_md(title)}"
        out += [md.target(anchor("clarification", k.number)), "", md.heading(3, heading), ""]
        out += [_md(ruling), "", f"*{_md(w.say('rulebook', 'reason') + w.colon)}* {_md(reason)}", ""]
        out += [", ".join(md.link(_md(x), anchor("clause", x)) for x in k.clauses), ""]
    return out


def _errors_md(book: Book) -> list[str]:
    rules, w, lang = book.rules, book.words, book.lang
    head = [
        _md(w.say("rulebook", "error_code")),
        "",
        _md(w.say("rulebook", "acts")),
        _md(w.say("rulebook", "enforces")),
    ]
    rows = []
    for e in rules.errors:
        words = _md(error_words(rules, e.code, lang))
        when = error_when_words(rules, e.code, lang)
        if when:
            words += f"<br>*{_md(w.say('rulebook', 'when') + w.colon)}* {_md(when)}"
        acts = ", ".join(md.code(a) for a in e.acts)
        rows.append([md.code(e.code), words, acts, md.link(_md(e.clause), anchor("clause", e.clause))])
    return [md.target("errors"), "", md.heading(2, _md(w.say("rulebook", "errors"))), "", *md.table(head, rows), ""]


def resolution_table(book: Book, c: Any) -> tuple[list[str], list[tuple[str, str, str]], str]:
    """The table a resolution clause's text looks its results up in: the heads, each row's pattern, winner and
    text in the book's language, and what A, B and T stand for; no rows for any other clause."""
    if c.rule != "resolution":
        return [], [], ""
    w = book.words
    winners = {"A": "A", "B": "B", "none": w.say("words", "nobody"), "eldest": w.say("rulebook", "rows_eldest")}
    rows = [
        (" ".join(r["pattern"]), winners.get(r["winner"], r["winner"]), row_words(c, r["id"], r["text"], book.lang))
        for r in thaw(c.data)["rows"]
    ]
    heads = [w.say("rulebook", key) for key in ("rows_pattern", "rows_winner", "rows_text")]
    return heads, rows, w.say("rulebook", "rows_legend")


def _clause_md(book: Book, c: Any, codes: list[str]) -> list[str]:
    """One clause: its anchor and heading, its text, then where it comes from and what refers to it."""
    rules, w, lang = book.rules, book.words, book.lang
    title, text = clause_words(c, lang)
    out = [md.target(anchor("clause", c.id)), "", md.heading(3, f"{_md(c.id)}: {_md(title)}"), "", _md(text), ""]
    heads, rows, legend = resolution_table(book, c)
    if rows:
        out += [*md.table([_md(h) for h in heads], [[md.code(p), _md(x), _md(t)] for p, x, t in rows]), ""]
        out += [f"*{_md(legend)}*", ""]
    meta = [_md(w.say("rulebook", "source", section=c.section))]
    if c.quote and lang == "en":
        meta.append(f"{_md(w.say('rulebook', 'quote') + w.colon)} \u201c{_md(c.quote)}\u201d")
    if c.clarifications:
        links = ", ".join(md.link(str(n), anchor("clarification", n)) for n in c.clarifications)
        meta.append(f"{_md(w.say('rulebook', 'clarifications') + w.colon)} {links}")
    if codes:
        meta.append(f"{_md(w.say('rulebook', 'errors') + w.colon)} " + ", ".join(md.code(x) for x in codes))
    if c.origin != rules.name:
        meta.append(_md(c.origin))
    out += ["*" + "; ".join(meta) + "*", ""]
    shown = book.by_clause.get(c.id, [])
    if shown:
        example = "rulebook", "example"
        links = ", ".join(md.link(_md(w.say(*example, id=i)), anchor("example", i)) for i in shown)
        out += [f"{_md(w.say('rulebook', 'examples') + w.colon)} {links}", ""]
    return out


def section_title(w: Words, sec: str) -> str:
    title = section_titles(w.cat, w.rules.id).get(sec, sec)
    try:
        return title.format(at=w.at)  # a title may name the ending's score: the ruleset's own
    except (KeyError, IndexError, ValueError):
        return title


def _example_md(book: Book, ex: Example) -> list[str]:
    w = book.words

    def say(*key: str, **values: object) -> str:
        return _md(w.say(*key, **values))

    out = [md.target(ex.anchor), "", md.heading(3, say("rulebook", "example", id=ex.case.id)), ""]
    if book.lang == "en":  # case titles are written in English only
        out += [f"*{_md(ex.case.title)}*", ""]
    head = []
    if "dealer" in ex.setup:
        head.append(w.say("rulebook", "dealer", seat=w.seat(ex.setup["dealer"])))
    if "score" in ex.setup:
        head.append(w.say("rulebook", "score_start", score=w.score(ex.setup["score"])))
    if head:
        out += [_md("; ".join(head)), ""]
    out += [f"**{say('rulebook', 'deal')}**", ""]
    out += [md.item(_md(w.deal(d)), number=i) for i, d in enumerate(ex.deals, 1)]
    out += ["", f"**{say('rulebook', 'actions')}**", ""]
    for i, (action, said) in enumerate(ex.lines, 1):
        out.append(md.item(_md(action) + (f" \u2014 {_md('; '.join(said))}" if said else ""), number=i))
    final = ex.final
    outcome = _md(final_words(w, final))
    out += ["", f"**{_md(w.say('rulebook', 'outcome') + w.colon)}** {outcome}", ""]
    return out
