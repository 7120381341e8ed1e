"""The rulebook as one standalone HTML page: contents, clauses, clarifications, error codes and worked examples."""

from __future__ import annotations

from collections import defaultdict

from .._version import __version__
from ..audit.i18n import clarification_words, clause_words, decision_words, error_when_words, error_words, ruleset_words
from ..audit.report import final_words
from ..present import escape
from ..present.cards import notation, prose
from ..present.page import anchor, document
from ..rules.model import Clause, thaw
from .book import Book, Example, resolution_table, section_title, sections_of

# The contents: two columns on a wide screen, each section's list whole in one of them; one column on a phone.
CSS = """
nav>ul{columns:2;column-gap:2rem;font-size:.92rem;padding-left:1.2rem}
nav>ul>li{break-inside:avoid;margin-bottom:.4rem}
nav ul ul{padding-left:1.2rem}
.example{background:#f8f3ea;border-left:4px solid #c9a66b;padding:.5rem 1rem;margin:1rem 0}
.clar{border-left:4px solid #8fa6b8;padding-left:1rem}
.resolution td:first-child{white-space:nowrap}
@media (max-width:40rem){nav>ul{columns:auto}#errors table,#errors tbody,#errors tr,#errors td{display:block}#errors tr:first-child{display:none}#errors tr{border:1px solid var(--line);margin-bottom:.6rem}#errors td{border:none}}
@media print{nav{display:none}.example,.clar,article{break-inside:avoid}}
"""


def page(book: Book) -> str:
    rules, w, lang = book.rules, book.words, book.lang
    say, deck = w.say, w.deck
    e = escape.html
    rtitle, rsummary = ruleset_words(rules, lang)
    parts = [f"<p>{prose(rsummary, deck)}</p>", *_contents(book)]
    errors_of: dict[str, list[str]] = defaultdict(list)
    for err in rules.errors:
        errors_of[err.clause].append(err.code)
    for sec, clauses in sections_of(rules):
        parts.append(f'<section id="{anchor("section", sec)}"><h2>§{e(sec)} {e(section_title(w, sec))}</h2>')
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
                f"<h3>{e(dw['topic'])}</h3><p>{prose(dw['decision'], deck)}</p>"
                f"<p><em>{e(say('rulebook', 'reason') + w.colon)}</em> {prose(dw['reason'], deck)}</p>"
            )
        parts.append("</section>")
    parts.append(f'<section id="examples"><h2>{e(say("rulebook", "examples"))}</h2>')
    for ex in book.examples.values():
        parts.append(_example_html(book, ex))
    parts.append("</section>")
    title = say("rulebook", "title", title=rtitle)
    return document(
        lang=lang,
        title=title,
        kind=say("rulebook", "kind"),
        heading=title,
        provenance=[say("rulebook", "version", version=rules.version, hash=rules.content_hash)],
        body=parts,
        footer=f"{rules.name} · vitou {__version__}",
        css=CSS,
    )


def _contents(book: Book) -> list[str]:
    w, lang, say = book.words, book.lang, book.words.say
    e = escape.html
    parts = [f"<nav><h2>{e(say('rulebook', 'contents'))}</h2><ul>"]
    for sec, clauses in sections_of(book.rules):
        parts.append(f'<li><a href="#{anchor("section", sec)}">§{e(sec)} {e(section_title(w, sec))}</a><ul>')
        for c in clauses:
            title, _ = clause_words(c, lang)
            parts.append(f'<li><a href="#{anchor("clause", c.id)}">{e(c.id)}: {e(title)}</a></li>')
        parts.append("</ul></li>")
    for target, key in (("clarifications", "clarifications"), ("errors", "errors"), ("examples", "examples")):
        parts.append(f'<li><a href="#{target}">{e(say("rulebook", key))}</a></li>')
    parts.append("</ul></nav>")
    return parts


def _clause_html(book: Book, c: Clause, codes: list[str]) -> str:
    """One clause's article: its text, then a line of where it comes from and what refers to it."""
    rules, say, lang = book.rules, book.words.say, book.lang
    deck, colon = book.words.deck, book.words.colon
    e = escape.html
    title, text = clause_words(c, lang)
    # The clause that binds the deck defines how a card is written: its codes are the notation, not cards in play.
    body = notation(text, deck) if c.rule == "deck" else prose(text, deck)
    parts = [f'<article id="{anchor("clause", c.id)}"><h3>{e(c.id)}: {e(title)}</h3><p>{body}</p>']
    heads, rows, legend = resolution_table(book, c)
    if rows:
        parts.append(
            '<div class="scroll"><table class="resolution"><thead><tr>'
            + "".join(f'<th scope="col">{e(h)}</th>' for h in heads)
            + "</tr></thead><tbody>"
            + "".join(f"<tr><td><code>{e(p)}</code></td><td>{e(x)}</td><td>{e(t)}</td></tr>" for p, x, t in rows)
            + f'</tbody></table></div><p class="meta">{e(legend)}</p>'
        )
    meta = [e(say("rulebook", "source", section=c.section))]
    if c.quote and lang == "en":
        meta.append(f"{e(say('rulebook', 'quote') + colon)} \u201c{e(c.quote)}\u201d")
    if c.clarifications:
        meta.append(
            e(say("rulebook", "clarifications") + colon)
            + " "
            + ", ".join(f'<a href="#{anchor("clarification", n)}">{n}</a>' for n in c.clarifications)
        )
    if codes:
        meta.append(e(say("rulebook", "errors") + colon) + " " + ", ".join(f"<code>{e(x)}</code>" for x in codes))
    if c.origin != rules.name:
        meta.append(e(c.origin))
    parts.append(f'<p class="meta">{"; ".join(meta)}</p>')
    shown = book.by_clause.get(c.id, [])
    if shown:
        links = ", ".join(f'<a href="#{anchor("example", i)}">{e(say("rulebook", "example", id=i))}</a>' for i in shown)
        parts.append(f'<p class="meta">{e(say("rulebook", "examples") + colon)} {links}</p>')
    parts.append("</article>")
    return "\n".join(parts)


def _clarifications_html(book: Book) -> list[str]:
    rules, say, lang = book.rules, book.words.say, book.lang
    deck = book.words.deck
    e = escape.html
    parts = [f'<section id="clarifications"><h2>{e(say("rulebook", "clarifications"))}</h2>']
    for k in rules.clarifications:
        title, ruling, reason = clarification_words(k, lang)
        links = ", ".join(f'<a href="#{anchor("clause", x)}">{e(x)}</a>' for x in k.clauses)
        parts.append(
            f'<div class="clar" id="{anchor("clarification", k.number)}">'
            f"<h3>{e(say('rulebook', 'clarification', n=k.number))}: {e(title)}</h3>"
            f"<p>{prose(ruling, deck)}</p><p><em>{e(say('rulebook', 'reason') + book.words.colon)}</em> {prose(reason, deck)}</p>"
            f'<p class="meta">{links}</p></div>'
        )
    parts.append("</section>")
    return parts


def _errors_html(book: Book) -> list[str]:
    """The error codes in their order of precedence; their conditions speak of strings on the wire, left as written."""
    rules, say, lang = book.rules, book.words.say, book.lang
    e = escape.html
    parts = [
        f'<section id="errors"><h2>{e(say("rulebook", "errors"))}</h2><table>',
        f"<tr><th>{e(say('rulebook', 'error_code'))}</th><th></th><th>{e(say('rulebook', 'acts'))}</th>"
        f"<th>{e(say('rulebook', 'enforces'))}</th></tr>",
    ]
    for err in rules.errors:
        when = error_when_words(rules, err.code, lang)
        words = e(error_words(rules, err.code, lang))
        if when:
            words += f"<br><em>{e(say('rulebook', 'when') + book.words.colon)}</em> {e(when)}"
        acts = ", ".join(f"<code>{e(a)}</code>" for a in err.acts)
        parts.append(
            f"<tr><td><code>{e(err.code)}</code></td><td>{words}</td><td>{acts}</td>"
            f'<td><a href="#{anchor("clause", err.clause)}">{e(err.clause)}</a></td></tr>'
        )
    parts.append("</table></section>")
    return parts


def _example_html(book: Book, ex: Example) -> str:
    w = book.words
    deck = w.deck
    say = w.say
    e = escape.html
    head = []
    if "dealer" in ex.setup:
        head.append(say("rulebook", "dealer", seat=w.seat(ex.setup["dealer"])))
    if "score" in ex.setup:
        head.append(say("rulebook", "score_start", score=w.score(ex.setup["score"])))
    deals = "".join(f"<li>{prose(w.deal(d), deck)}</li>" for d in ex.deals)
    steps = "".join(
        f"<li>{prose(action, deck)}" + (f" \u2014 {prose('; '.join(said), deck)}" if said else "") + "</li>"
        for action, said in ex.lines
    )
    final = ex.final
    outcome = final_words(w, final)
    return (
        f'<div class="example" id="{ex.anchor}"><h3>{e(say("rulebook", "example", id=ex.case.id))}</h3>'
        + (f"<p><em>{prose(ex.case.title, deck)}</em></p>" if book.lang == "en" else "")
        + (f'<p class="meta">{e("; ".join(head))}</p>' if head else "")
        + f"<p><strong>{e(say('rulebook', 'deal'))}</strong></p><ol>{deals}</ol>"
        f"<p><strong>{e(say('rulebook', 'actions'))}</strong></p><ol>{steps}</ol>"
        f"<p><strong>{e(say('rulebook', 'outcome') + w.colon)}</strong> {e(outcome)}</p></div>"
    )


__all__ = ["page"]
