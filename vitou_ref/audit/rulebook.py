"""The spec as a human rulebook: numbered clauses, clarifications, and worked examples from the conformance cases."""

from __future__ import annotations

import html
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..engine.events import Event
from ..engine.tables import tables_for
from ..kit.fixtures import Case
from ..kit.suite import load_suite
from ..protocol.server import run_case
from ..rules.model import Clause, Ruleset, thaw
from .audit import Words
from .i18n import (
    clarification_words,
    clause_words,
    decision_words,
    error_when_words,
    error_words,
    ruleset_words,
)

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


def anchor(kind: str, ident: str | int) -> str:
    return f"{kind}-{ident}".replace(".", "-").replace("/", "-")


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
            lines.append((w.action(action), [f"{w.say('audit', 'illegal')}: {step['error']}"]))
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


def _sections(rules: Ruleset) -> list[tuple[str, list[Any]]]:
    out: dict[str, list[Any]] = defaultdict(list)
    for c in rules.clauses:
        out[c.section].append(c)
    return sorted(out.items())


# ------------------------------------------------------------------ markdown


def markdown(book: Book) -> str:
    rules, w, lang = book.rules, book.words, book.lang
    say = w.say
    rtitle, rsummary = ruleset_words(rules, lang)
    out = [f"# {say('rulebook', 'title', title=rtitle)}", ""]
    out.append(f"*{say('rulebook', 'version', version=rules.version, hash=rules.content_hash)}*")
    out += ["", rsummary, ""]
    sections = _sections(rules)
    out += [f"## {say('rulebook', 'contents')}", ""]
    for sec, clauses in sections:
        out.append(f"- [§{sec} {_section_title(w, sec)}](#{anchor('section', sec)})")
        for c in clauses:
            title, _ = clause_words(c, lang)
            out.append(f"  - [{c.id}: {title}](#{anchor('clause', c.id)})")
    out.append(f"- [{say('rulebook', 'clarifications')}](#clarifications)")
    out.append(f"- [{say('rulebook', 'errors')}](#errors)")
    out.append(f"- [{say('rulebook', 'examples')}](#examples)")
    out.append("")
    errors_of: dict[str, list[str]] = defaultdict(list)
    for e in rules.errors:
        errors_of[e.clause].append(e.code)
    for sec, clauses in sections:
        out += [f'<a id="{anchor("section", sec)}"></a>', "", f"## §{sec} {_section_title(w, sec)}", ""]
        for c in clauses:
            title, text = clause_words(c, lang)
            out += [f'<a id="{anchor("clause", c.id)}"></a>', "", f"### {c.id}: {title}", ""]
            out += [text, ""]
            meta = [say("rulebook", "source", section=c.section)]
            if c.quote and lang == "en":
                meta.append(f"{say('rulebook', 'quote')}: \u201c{c.quote}\u201d")
            if c.clarifications:
                links = ", ".join(f"[{n}](#{anchor('clarification', n)})" for n in c.clarifications)
                meta.append(f"{say('rulebook', 'clarifications')}: {links}")
            if errors_of.get(c.id):
                meta.append(f"{say('rulebook', 'errors')}: " + ", ".join(f"`{x}`" for x in errors_of[c.id]))
            if c.origin != rules.name:
                meta.append(c.origin)
            out += ["*" + "; ".join(meta) + "*", ""]
            shown = book.by_clause.get(c.id, [])
            if shown:
                links = ", ".join(f"[{say('rulebook', 'example', id=i)}](#{anchor('example', i)})" for i in shown)
                out += [f"{say('rulebook', 'examples')}: {links}", ""]
    out += ['<a id="clarifications"></a>', "", f"## {say('rulebook', 'clarifications')}", ""]
    for k in rules.clarifications:
        title, ruling, reason = clarification_words(k, lang)
        out += [
            f'<a id="{anchor("clarification", k.number)}"></a>',
            "",
            f"### {say('rulebook', 'clarification', n=k.number)}: {title}",
            "",
        ]
        out += [ruling, "", f"*{say('rulebook', 'reason')}:* {reason}", ""]
        out += [", ".join(f"[{x}](#{anchor('clause', x)})" for x in k.clauses), ""]
    out += ['<a id="errors"></a>', "", f"## {say('rulebook', 'errors')}", ""]
    out += [
        f"| {say('rulebook', 'error_code')} | | {say('rulebook', 'acts')} | {say('rulebook', 'enforces')} |",
        "|---|---|---|---|",
    ]
    for e in rules.errors:
        words = error_words(rules, e.code, lang)
        when = error_when_words(rules, e.code, lang)
        if when:
            words += f"<br>*{say('rulebook', 'when')}:* {when}"
        acts = ", ".join(f"`{a}`" for a in e.acts)
        out.append(f"| `{e.code}` | {words} | {acts} | [{e.clause}](#{anchor('clause', e.clause)}) |")
    out.append("")
    decisions = thaw(rules.profile).get("decisions", []) if rules.profile else []
    if decisions:
        out += [f"## {say('rulebook', 'decisions')}", ""]
        for i, d in enumerate(decisions):
            dw = decision_words(rules, i, d, lang)
            out += [f"### {dw['topic']}", "", dw["decision"], "", f"*{say('rulebook', 'reason')}:* {dw['reason']}", ""]
    out += ['<a id="examples"></a>', "", f"## {say('rulebook', 'examples')}", ""]
    for ex in book.examples.values():
        out += _example_md(book, ex)
    return "\n".join(out) + "\n"


def _section_title(w: Words, sec: str) -> str:
    titles = w.cat.get("rulebook", {}).get("sections", {})
    title = str(titles.get(sec, sec))
    try:
        return title.format(at=w.at)  # a title may name the ending's score: the ruleset's own
    except (KeyError, IndexError, ValueError):
        return title


def _deal_line(w: Words, deal: dict[str, list[str]]) -> str:
    return "; ".join(f"{w.seat(s)}: {' '.join(cards)}" for s, cards in deal.items())


def _example_md(book: Book, ex: Example) -> list[str]:
    w = book.words
    say = w.say
    out = [f'<a id="{ex.anchor}"></a>', "", f"### {say('rulebook', 'example', id=ex.case.id)}", ""]
    if book.lang == "en":  # case titles are written in English only
        out += [f"*{ex.case.title}*", ""]
    head = []
    if "dealer" in ex.setup:
        head.append(say("rulebook", "dealer", seat=w.seat(ex.setup["dealer"])))
    if "score" in ex.setup:
        head.append(say("rulebook", "score_start", score=w.score(ex.setup["score"])))
    if head:
        out += ["; ".join(head), ""]
    out += [f"**{say('rulebook', 'deal')}**", ""]
    out += [f"{i}. {_deal_line(w, d)}" for i, d in enumerate(ex.deals, 1)]
    out += ["", f"**{say('rulebook', 'actions')}**", ""]
    for i, (action, said) in enumerate(ex.lines, 1):
        out.append(f"{i}. {action}" + (f" \u2014 {'; '.join(said)}" if said else ""))
    final = ex.final
    winner = w.side(final["winner"]) if final["winner"] else w.say("words", "nobody")
    out += [
        "",
        f"**{say('rulebook', 'outcome')}:** {say('audit', 'final', score=w.score(final['score']), winner=winner)}",
        "",
    ]
    return out


# ------------------------------------------------------------------ html

CSS = """
body{font-family:Georgia,'Times New Roman',serif;max-width:52rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#222;background:#fffdf8}
h1,h2,h3{font-family:'Helvetica Neue',Arial,sans-serif;color:#5a1f1f}
h2{border-bottom:2px solid #e6d9c3;padding-bottom:.2rem;margin-top:2.5rem}
h3{margin-top:1.6rem}
.meta{font-size:.9rem;color:#6b5d4f}
nav ul{columns:2;font-size:.92rem}
code{background:#f3ede2;padding:0 .25rem;border-radius:3px}
table{border-collapse:collapse;font-size:.92rem}
td,th{border:1px solid #e6d9c3;padding:.25rem .5rem;text-align:left;vertical-align:top}
.example{background:#f8f3ea;border-left:4px solid #c9a66b;padding:.5rem 1rem;margin:1rem 0}
.clar{border-left:4px solid #8fa6b8;padding-left:1rem}
a{color:#7b2d26}
@media (max-width:40rem){#errors table,#errors tbody,#errors tr,#errors td{display:block}#errors tr:first-child{display:none}#errors tr{border:1px solid #e6d9c3;margin-bottom:.6rem}#errors td{border:none}}
"""


def page(book: Book) -> str:
    rules, w, lang = book.rules, book.words, book.lang
    say = w.say
    e = html.escape
    rtitle, rsummary = ruleset_words(rules, lang)
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="{e(lang)}"><head><meta charset="utf-8">',
        f"<title>{e(say('rulebook', 'title', title=rtitle))}</title>",
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{CSS}</style></head><body>',
        f"<h1>{e(say('rulebook', 'title', title=rtitle))}</h1>",
        f'<p class="meta">{e(say("rulebook", "version", version=rules.version, hash=rules.content_hash))}</p>',
        f"<p>{e(rsummary)}</p>",
    ]
    sections = _sections(rules)
    parts.append(f"<nav><h2>{e(say('rulebook', 'contents'))}</h2><ul>")
    for sec, clauses in sections:
        parts.append(f'<li><a href="#{anchor("section", sec)}">§{e(sec)} {e(_section_title(w, sec))}</a><ul>')
        for c in clauses:
            title, _ = clause_words(c, lang)
            parts.append(f'<li><a href="#{anchor("clause", c.id)}">{e(c.id)}: {e(title)}</a></li>')
        parts.append("</ul></li>")
    for target, key in (("clarifications", "clarifications"), ("errors", "errors"), ("examples", "examples")):
        parts.append(f'<li><a href="#{target}">{e(say("rulebook", key))}</a></li>')
    parts.append("</ul></nav>")
    errors_of: dict[str, list[str]] = defaultdict(list)
    for err in rules.errors:
        errors_of[err.clause].append(err.code)
    for sec, clauses in sections:
        parts.append(f'<section id="{anchor("section", sec)}"><h2>§{e(sec)} {e(_section_title(w, sec))}</h2>')
        parts += [_clause_html(book, c, errors_of.get(c.id, [])) for c in clauses]
        parts.append("</section>")
    parts += _clarifications_html(book)
    parts += _errors_html(book)
    decisions = thaw(rules.profile).get("decisions", []) if rules.profile else []
    if decisions:
        parts.append(f"<section><h2>{e(say('rulebook', 'decisions'))}</h2>")
        for i, d in enumerate(decisions):
            dw = decision_words(rules, i, d, lang)
            parts.append(
                f"<h3>{e(dw['topic'])}</h3><p>{e(dw['decision'])}</p><p><em>{e(say('rulebook', 'reason'))}:</em> {e(dw['reason'])}</p>"
            )
        parts.append("</section>")
    parts.append(f'<section id="examples"><h2>{e(say("rulebook", "examples"))}</h2>')
    for ex in book.examples.values():
        parts.append(_example_html(book, ex))
    parts.append("</section></body></html>")
    return "\n".join(parts) + "\n"


def _clause_html(book: Book, c: Clause, codes: list[str]) -> str:
    """One clause's article: its text, then a line of where it comes from and what refers to it."""
    rules, say, lang = book.rules, book.words.say, book.lang
    e = html.escape
    title, text = clause_words(c, lang)
    parts = [f'<article id="{anchor("clause", c.id)}"><h3>{e(c.id)}: {e(title)}</h3><p>{e(text)}</p>']
    meta = [e(say("rulebook", "source", section=c.section))]
    if c.quote and lang == "en":
        meta.append(f"{e(say('rulebook', 'quote'))}: \u201c{e(c.quote)}\u201d")
    if c.clarifications:
        meta.append(
            e(say("rulebook", "clarifications"))
            + ": "
            + ", ".join(f'<a href="#{anchor("clarification", n)}">{n}</a>' for n in c.clarifications)
        )
    if codes:
        meta.append(e(say("rulebook", "errors")) + ": " + ", ".join(f"<code>{e(x)}</code>" for x in codes))
    if c.origin != rules.name:
        meta.append(e(c.origin))
    parts.append(f'<p class="meta">{"; ".join(meta)}</p>')
    shown = book.by_clause.get(c.id, [])
    if shown:
        links = ", ".join(f'<a href="#{anchor("example", i)}">{e(say("rulebook", "example", id=i))}</a>' for i in shown)
        parts.append(f'<p class="meta">{e(say("rulebook", "examples"))}: {links}</p>')
    parts.append("</article>")
    return "\n".join(parts)


def _clarifications_html(book: Book) -> list[str]:
    rules, say, lang = book.rules, book.words.say, book.lang
    e = html.escape
    parts = [f'<section id="clarifications"><h2>{e(say("rulebook", "clarifications"))}</h2>']
    for k in rules.clarifications:
        title, ruling, reason = clarification_words(k, lang)
        links = ", ".join(f'<a href="#{anchor("clause", x)}">{e(x)}</a>' for x in k.clauses)
        parts.append(
            f'<div class="clar" id="{anchor("clarification", k.number)}"><h3>{e(say("rulebook", "clarification", n=k.number))}: {e(title)}</h3>'
            f'<p>{e(ruling)}</p><p><em>{e(say("rulebook", "reason"))}:</em> {e(reason)}</p><p class="meta">{links}</p></div>'
        )
    parts.append("</section>")
    return parts


def _errors_html(book: Book) -> list[str]:
    rules, say, lang = book.rules, book.words.say, book.lang
    e = html.escape
    parts = [
        f'<section id="errors"><h2>{e(say("rulebook", "errors"))}</h2><table>',
        f"<tr><th>{e(say('rulebook', 'error_code'))}</th><th></th><th>{e(say('rulebook', 'acts'))}</th>"
        f"<th>{e(say('rulebook', 'enforces'))}</th></tr>",
    ]
    for err in rules.errors:
        when = error_when_words(rules, err.code, lang)
        words = e(error_words(rules, err.code, lang))
        if when:
            words += f"<br><em>{e(say('rulebook', 'when'))}:</em> {e(when)}"
        acts = ", ".join(f"<code>{e(a)}</code>" for a in err.acts)
        parts.append(
            f"<tr><td><code>{e(err.code)}</code></td><td>{words}</td><td>{acts}</td>"
            f'<td><a href="#{anchor("clause", err.clause)}">{e(err.clause)}</a></td></tr>'
        )
    parts.append("</table></section>")
    return parts


def _example_html(book: Book, ex: Example) -> str:
    w = book.words
    say = w.say
    e = html.escape
    head = []
    if "dealer" in ex.setup:
        head.append(say("rulebook", "dealer", seat=w.seat(ex.setup["dealer"])))
    if "score" in ex.setup:
        head.append(say("rulebook", "score_start", score=w.score(ex.setup["score"])))
    deals = "".join(f"<li>{e(_deal_line(w, d))}</li>" for d in ex.deals)
    steps = "".join(
        f"<li>{e(action)}" + (f" \u2014 {e('; '.join(said))}" if said else "") + "</li>" for action, said in ex.lines
    )
    final = ex.final
    winner = w.side(final["winner"]) if final["winner"] else w.say("words", "nobody")
    outcome = say("audit", "final", score=w.score(final["score"]), winner=winner)
    return (
        f'<div class="example" id="{ex.anchor}"><h3>{e(say("rulebook", "example", id=ex.case.id))}</h3>'
        + (f"<p><em>{e(ex.case.title)}</em></p>" if book.lang == "en" else "")
        + (f'<p class="meta">{e("; ".join(head))}</p>' if head else "")
        + f"<p><strong>{e(say('rulebook', 'deal'))}</strong></p><ol>{deals}</ol>"
        f"<p><strong>{e(say('rulebook', 'actions'))}</strong></p><ol>{steps}</ol>"
        f"<p><strong>{e(say('rulebook', 'outcome'))}:</strong> {e(outcome)}</p></div>"
    )
