"""An audit as one page a referee can hand over: the game, every ruling, and the text of every clause cited."""

from __future__ import annotations

import os

from .._version import __version__
from ..present import escape
from ..present.cards import prose
from ..present.page import anchor, document
from ..rules.model import Clause, Ruleset
from ..rules.wording import wording_ground
from .audit import Audit, Ruling, Words, deck_of
from .i18n import clarification_words, clause_words
from .report import claim_ruling, counts, final_line, shown
from .stops import after_stop_line, stop_lines

CSS = """
.game{margin:0 0 1rem;padding:0}
.game div{display:flex;flex-wrap:wrap;gap:0 .5rem}
.game dt{font-weight:bold}.game dt::after{content:":"}.game dd{margin:0}
.deals{margin:.2rem 0 1rem}
.summary{border:2px solid var(--line);border-radius:4px;padding:.5rem 1rem}
.summary p{margin:.3rem 0}
ol.rulings{padding-left:2.2rem}
ol.rulings>li{margin:.3rem 0;padding:.1rem .4rem}
ol.rulings p{margin:.35rem 0}
ol.rulings>li.illegal{border-left:4px solid #b3261e;background:#fbeeee;padding:.4rem .8rem;margin:1rem 0}
ol.rulings>li.open{border-left:4px dashed #8a6d00;background:#fdf6e0;padding:.4rem .8rem;margin:1rem 0}
.verdict{font-weight:bold}.illegal .verdict{color:#b3261e}.open .verdict{color:#6b5500}
.notation{font-size:.85em}
blockquote{font-style:italic}
.details{margin:.3rem 0;padding-left:1.1rem}
.cited article{border-left:4px solid #8fa6b8;padding-left:1rem;margin:1rem 0}
@media print{ol.rulings>li,.cited article,.summary{break-inside:avoid}ol.rulings>li.illegal{background:none}}
"""

HEADER_WORDS = ("event", "place", "date", "round")


def page(a: Audit, lang: str) -> str:
    """The audit as a standalone page: no script and nothing outside it, printable as it stands."""
    w = Words(a.rules, lang)
    e = escape.html
    # The record by its file's name: a page handed over names no folder of the machine that made it.
    title = w.say("audit", "title", record=shown(os.path.basename(a.record.source) or a.record.source))
    parts = [
        *_game(a, w),
        *_summary(a, w),
        f'<section id="rulings"><h2>{e(w.say("audit", "page.rulings"))}</h2><ol class="rulings">',
        *(ruling_item(w, r) for r in a.rulings),
        "</ol></section>",
        *cited_clauses(a, w),
    ]
    return document(
        lang=lang,
        title=title,
        kind=w.say("audit", "page.kind"),
        heading=title,
        provenance=[w.say("audit", "ruleset", name=a.rules.name, hash=a.rules.content_hash)],
        body=parts,
        footer=w.say("audit", "page.footer", version=__version__),
        css=CSS,
    )


def _game(a: Audit, w: Words) -> list[str]:
    """What the record says of the game: where and when, who sat where, the dealer, the deals."""
    e = escape.html
    header = a.record.header
    rows = [(w.say("audit", f"page.{k}"), str(header[k])) for k in HEADER_WORDS if k in header]
    players = header.get("players")
    if isinstance(players, dict) and players:
        names = ", ".join(f"{w.seat(seat)}{w.colon} {name}" for seat, name in players.items())
        rows.append((w.say("audit", "page.players"), names))
    if "note" in header:
        rows.append((w.say("audit", "page.note"), str(header["note"])))
    out = []
    if rows:
        items = "".join(f"<div><dt>{e(k)}</dt><dd>{e(shown(v))}</dd></div>" for k, v in rows)
        out.append(f'<dl class="game">{items}</dl>')
    setup = a.record.setup()
    start = []
    if "dealer" in setup:
        start.append(w.say("rulebook", "dealer", seat=w.seat(setup["dealer"])))
    if "score" in setup:
        start.append(w.say("rulebook", "score_start", score=w.score(setup["score"])))
    if start:
        out.append(f'<p class="meta">{e(f"{w.semicolon} ".join(start))}</p>')
    deals = setup.get("deals") or []
    if deals:
        items = "".join(f"<li>{prose(w.deal(d), w.deck)}</li>" for d in deals)
        out.append(f'<p><strong>{e(w.say("rulebook", "deal"))}</strong></p><ol class="deals">{items}</ol>')
    return out


def _summary(a: Audit, w: Words) -> list[str]:
    e = escape.html
    lines = [w.summary(*counts(a), len(a.record.actions)), final_line(w, a)]
    if a.stopped_at is not None:
        lines.append(w.say("audit", "stopped_page"))  # a page's reader has no command-line option to give
    return ['<section class="summary">', *(f"<p>{e(x)}</p>" for x in lines), "</section>"]


def ruling_item(w: Words, r: Ruling) -> str:
    """One action: what was done, legal or not; for an illegal one, the code, the clause quoted, why, and where."""
    e = escape.html
    what = prose(shown(w.action(r.action)), w.deck)
    notation = f'<code class="notation">{e(shown(r.notation))}</code>'
    if r.open is not None:  # not ruled: the cards it depends on are not recorded
        head = f'<p>{what} {notation}: <span class="verdict">{e(w.say("audit", "not_ruled"))}</span></p>'
        why = f"<p>{prose(shown(w.reason(r.open)), w.deck)}</p>"
        return f'<li value="{r.n}" class="open" id="ruling-{r.n}">{head}{why}{_remarks(w, r)}</li>'
    if r.legal:
        head = f'<p>{what} {notation}: <span class="verdict">{e(w.say("audit", "legal"))}</span></p>'
        details = [prose(w.event(ev), w.deck) for ev in r.events]
        details += [prose(x, w.deck) for x in stop_lines(w.say, r.stop)] if r.stop is not None else []
        return f'<li value="{r.n}" class="legal">{head}{_details(details)}{_remarks(w, r)}</li>'
    assert r.clause is not None and r.reason is not None
    ground = w.ground(r.clause)
    cited = ground.quoted or r.clause
    rule = w.say("audit", "rule", clause=r.clause, title=ground.title)
    parts = [
        f'<p>{what} {notation}: <span class="verdict">{e(w.say("audit", "illegal"))}</span></p>',
        f'<p>{e(w.say("audit", "code", code=r.code) + w.semicolon)} <a href="#{anchor("cited", cited)}">{e(rule)}</a></p>',
        f"<blockquote>{prose(ground.text, w.deck)}</blockquote>",
    ]
    if ground.note is not None:
        parts.append(f'<p class="meta">{e(ground.note)}</p>')
    parts.append(
        f"<p><strong>{e(w.say('audit', 'reason') + w.colon)}</strong> {prose(shown(w.reason(r.reason)), w.deck)}</p>"
    )
    if r.position is not None:
        where = f"{w.semicolon} ".join(w.position(r.position))
        parts.append(f"<p><strong>{e(w.say('audit', 'position') + w.colon)}</strong> {prose(where, w.deck)}</p>")
    if r.after_stop is not None:
        parts.append(f"<p>{prose(after_stop_line(w.say, *r.after_stop), w.deck)}</p>")
    if r.not_made:
        parts.append(f'<p class="meta">{e(w.say("audit", "not_made"))}</p>')
    return f'<li value="{r.n}" class="illegal" id="ruling-{r.n}">{"".join(parts)}{_remarks(w, r)}</li>'


def _details(lines: list[str]) -> str:
    return f'<ul class="details">{"".join(f"<li>{x}</li>" for x in lines)}</ul>' if lines else ""


def _remarks(w: Words, r: Ruling) -> str:
    """The record's notes on an action, and each claim made about it with the ruling on the claim."""
    e = escape.html
    out = [f'<p class="meta">{prose(shown(note), w.deck)}</p>' for note in r.notes]
    for c in r.claims:
        who, verdict = claim_ruling(w, r, c)
        out.append(
            f"<p>{e(w.say('audit', 'claim', by=who) + w.colon)} {w.quoted(prose(shown(c.claim), w.deck))}{e(w.colon)} "
            f"<strong>{e(w.say('audit', 'ruling') + w.colon)} {e(verdict)}</strong></p>"
        )
    return "".join(out)


def cited_clauses(a: Audit, w: Words) -> list[str]:
    """Each clause the rulings rest on, once, with its whole text, where it comes from and its clarifications."""
    e = escape.html
    seen: dict[str, tuple[Clause, Ruleset]] = {}
    for r in a.rulings:
        if r.clause is not None:
            found = wording_ground(a.rules, r.clause)  # a profile's reworded clause rests on its base's words
            clause, rules = (found[1], found[0]) if found is not None else (a.rules.clause(r.clause), a.rules)
            seen.setdefault(clause.id, (clause, rules))
    if not seen:
        return []
    out = [f'<section id="cited" class="cited"><h2>{e(w.say("audit", "page.cited"))}</h2>']
    out += [_citation(w, clause, rules) for clause, rules in seen.values()]
    out.append("</section>")
    return out


def _citation(w: Words, clause: Clause, rules: Ruleset) -> str:
    e = escape.html
    title, text = clause_words(clause, w.lang)
    meta = [w.say("rulebook", "source", section=clause.section), clause.origin]
    parts = [
        f'<article id="{anchor("cited", clause.id)}"><h3>{e(clause.id)}: {e(title)}</h3>',
        f"<p>{prose(text, deck_of(rules))}</p>",
        f'<p class="meta">{e(f"{w.semicolon} ".join(meta))}</p>',
    ]
    by_number = {k.number: k for k in rules.clarifications}
    for n in clause.clarifications:
        if n in by_number:
            k_title, ruling, _ = clarification_words(by_number[n], w.lang)
            heading = f"{w.say('rulebook', 'clarification', n=n)}{w.colon} {k_title}"
            parts.append(f"<p><strong>{e(heading)}.</strong> {prose(ruling, deck_of(rules))}</p>")
    parts.append("</article>")
    return "".join(parts)


__all__ = ["page"]
