"""The desk's page: the game, the deals, the rulings as they come, the next action, claims, what-ifs, keep."""

from __future__ import annotations

from .._version import __version__
from ..audit.audit import Position, Ruling, Words, audit
from ..audit.auditpage import CSS as AUDIT_CSS
from ..audit.auditpage import cited_clauses, ruling_item
from ..audit.grounds import event_clauses
from ..audit.i18n import error_words
from ..audit.report import compare, compare_text, counts, final_words, shown
from ..audit.whatif import WhatIf, what_ifs
from ..engine.tables import tables_for
from ..present import escape
from ..present.cards import prose
from ..present.page import document
from ..rules.errors import InputError, UnknownRuleset
from .casebook import casebook_html
from .choices import other_form
from .forms import Stamp, button_form, deal_form, disputes, game_form, head, keep_section
from .picking import picker
from .state import Checked, Desk
from .whatif_view import whatif_fragment
from .words import note_words, quote, say, say_html, unknown_ruleset

CSS = (
    AUDIT_CSS
    + """
:root{--measure:64rem}
form{margin:.4rem 0}
fieldset{border:1px solid var(--line);border-radius:4px;margin:.5rem 0;padding:.3rem .6rem}
legend{font-weight:600}
label{margin-right:.6rem}
input,select,textarea,button{font:inherit;max-width:100%}
textarea{width:100%;min-height:3.2rem}
button{margin:.15rem .1rem;padding:.25rem .6rem;border:1px solid #8a8a8a;border-radius:4px;background:#f7f7f5;
cursor:pointer}
button.primary{background:var(--accent);color:#fff;border-color:var(--accent)}
.grid{display:flex;flex-wrap:wrap;gap:.15rem;margin:.15rem 0}
.grid label{margin:0;padding:.1rem .3rem;border:1px solid var(--line);border-radius:3px;white-space:nowrap}
.grid input{margin:0 .2rem 0 0}
.problems{border:2px solid #b3261e;background:#fbeeee;padding:.4rem 1rem;border-radius:4px}
.branches{display:flex;flex-wrap:wrap;gap:.3rem;align-items:center}
.branches .here{font-weight:bold}
.legal-actions button{display:inline-block}
.seats{display:grid;grid-template-columns:1fr;gap:0 .8rem}
@media (min-width:50rem){.seats{grid-template-columns:1fr 1fr}}
tr.parted td{background:#fff4d6}
.inline{display:inline}
details.allowed{border:0;margin:.1rem 0;padding:0}details.allowed[open]{background:none}
.ruling-desk button{font-size:.85rem;padding:.1rem .5rem}
.pack-row{display:flex;gap:.25rem;margin:.25rem 0;max-width:32rem}
.pack-row button.card{flex:1 1 0;min-width:0;margin:0;padding:.55rem 0;font-size:1.05rem}
.pick-seats label{display:inline-block;margin:.15rem .8rem .15rem 0}
.pick-seats .held{font-family:monospace}
ol.last{margin-top:0}
.last-caption{margin:.2rem 0 0;font-weight:600}
"""
)


def render(desk: Desk, secret: str) -> str:
    """The whole page, from the desk's state alone: every request re-renders it from the records."""
    stamp = Stamp(secret, desk.revision)
    checked = desk.check(desk.branch.data)
    w = Words(checked.rules, desk.lang)
    lang, e = desk.lang, escape.html
    body = [
        *_notice(desk),
        *_branches(desk, stamp),
        f'<section id="game"><h2>{e(say(lang, "game"))}</h2>',
        game_form(desk, checked, stamp),
        "</section>",
        f'<section id="deals"><h2>{e(say(lang, "deals"))}</h2>',
        *(deal_form(checked, w, stamp, i) for i in range(len(checked.record.deals) + 1)),
        "</section>",
        *_rulings(desk, checked, w, stamp),
        *_next(checked, w, stamp, desk.branch.picks),
        *_claims(checked, w, stamp),
        *_compare(desk, checked, stamp),
        keep_section(desk, stamp, disputes()),
        casebook_html(stamp, lang),  # the shipped disputes by section and rule, each opening as a record to change
    ]
    title = say(lang, "title", record=desk.branch.label(lang))
    return document(
        lang=lang,
        title=title,
        kind=say(lang, "kind"),
        heading=title,
        provenance=[w.say("audit", "ruleset", name=checked.rules.name, hash=checked.rules.content_hash)],
        body=body,
        footer=say(lang, "footer", version=__version__),
        css=CSS,
        intro=[f'<script src="/{escape.html(secret)}/desk.js" defer></script>'],
    )


def _notice(desk: Desk) -> list[str]:
    e, lang = escape.html, desk.lang
    if not desk.notice:
        info = "; ".join(note_words(lang, x) for x in desk.info)
        return [f'<p class="summary" id="info">{e(info)}</p>'] if info else []
    items = "".join(f"<li>{e(note_words(lang, p))}</li>" for p in desk.notice)
    head = e(say(lang, "notice"))
    return [f'<section class="problems" id="problems" role="alert"><p>{head}</p><ul>{items}</ul></section>']


def _branches(desk: Desk, stamp: Stamp) -> list[str]:
    e, lang = escape.html, desk.lang
    out = [f'<nav class="branches" id="branches" aria-label="{e(say(lang, "records"))}">']
    for i, b in enumerate(desk.branches):
        if i == desk.current:
            out.append(f'<span class="here">{e(b.label(lang))}</span>')
        else:
            out.append(button_form(stamp, "switch", {"branch": str(i)}, b.label(lang)))
        if len(desk.branches) > 1 and i:
            out.append(button_form(stamp, "drop_branch", {"branch": str(i)}, say(lang, "drop")))
    out.append(button_form(stamp, "new", {}, say(lang, "new")))  # an empty record for the next hand, beside these
    out.append("</nav>")
    return out


def _grounds(w: Words, pos: Position, r: Ruling) -> str:
    """The clauses a legal ruling rests on, each with its words: the one that allowed the action in its position,
    then those that give what it brought about (a trick's winner, a hand's score, the match)."""
    allowed = next((c for a, c in pos.legal if a == r.action), None) or r.allowed_by
    out = []
    for clause in dict.fromkeys([*([allowed] if allowed else []), *event_clauses(w.rules, r.events)]):
        title, text = w.clause(clause)
        rule = escape.html(w.say("audit", "rule", clause=clause, title=title))
        out.append(f'<details class="allowed"><summary>{rule}</summary><blockquote>{prose(text, w.deck)}</blockquote>')
        out.append("</details>")
    return "".join(out)


def _rulings(desk: Desk, c: Checked, w: Words, stamp: Stamp) -> list[str]:
    e = escape.html
    out = [f'<section id="rulings"><h2>{e(w.say("audit", "page.rulings"))}</h2>']
    summary = [w.summary(*counts(c.audit), len(c.record.actions)), final_words(w, c.audit.final)]
    out.append('<div class="summary" id="summary">' + "".join(f"<p>{e(x)}</p>" for x in summary) + "</div>")
    out.append('<ol class="rulings">')
    illegal = [r for r in c.audit.rulings if not r.legal and r.open is None]
    whatifs = what_ifs(c.record, c.rules, illegal) if illegal else {}
    for r in c.audit.rulings:
        out.append(_one(c, w, r, stamp, whatifs))
    out += ["</ol>", "</section>", *cited_clauses(c.audit, w)]  # the clauses an illegal ruling links to, in full
    return out


def _one(c: Checked, w: Words, r: Ruling, stamp: Stamp, whatifs: dict[int, WhatIf]) -> str:
    item = ruling_item(w, r)  # the audit page's own item: what the kit hands over is what the desk shows
    extra = _grounds(w, c.positions[r.n - 1], r) if r.legal else ""
    if r.n in whatifs:  # what the rules would have given had the player made a legal action instead
        extra += whatif_fragment(w, whatifs[r.n])
    extra += button_form(stamp, "branch", {"at": str(r.n)}, say(w.lang, "what_if", n=r.n))
    cut = item.rfind("</li>")
    return f'{item[:cut]}<div class="ruling-desk" id="desk-{r.n}">{extra}</div></li>'


def _next(c: Checked, w: Words, stamp: Stamp, desk_picks: tuple[tuple[str, str], ...] = ()) -> list[str]:
    """The position now, the legal actions as buttons, and any other action typed in."""
    e, lang = escape.html, w.lang
    pos = c.positions[-1]
    n = len(c.record.actions) + 1
    out = [f'<section id="next"><h2>{e(say(lang, "next", n=n))}</h2>']
    if c.audit.rulings:  # the ruling of the action just entered, where it was entered (on a phone, the page's top)
        last = _one(c, w, c.audit.rulings[-1], stamp, {}).replace("<li ", '<li id="last" ', 1)
        last = last.replace(' id="ruling-', ' data-n="').replace(' id="desk-', ' data-desk="')
        out.append(f'<p class="last-caption">{e(say(lang, "next.last"))}</p><ol class="rulings last">{last}</ol>')
    out += [f'<p class="meta">{prose(x, w.deck)}</p>' for x in w.position(pos)]
    if pos.blind is not None:
        out.append(f'<p class="meta" id="blind">{prose(w.reason(pos.blind), w.deck)}</p>')
    if pos.phase == "no_deal":
        out.append(picker(c, w, stamp, desk_picks))
    if pos.legal:
        buttons = "".join(
            f'<button name="action" value="{e(escape.json_dumps(a))}">{prose(shown(w.action(a, option=True)), w.deck)}'
            f" <small>({e(clause or '')})</small></button>"
            for a, clause in pos.legal
        )
        out.append(
            head(stamp, "act", ' class="legal-actions" id="legal"')
            + f"<p>{e(say(lang, 'next.legal'))}</p>{buttons}</form>"
        )
    out.append(other_form(c, w, stamp))  # a card once the hand is over too: what the table did is recorded
    examples = "<code>E refuse</code>, <code>S r12</code>"  # the notation's words, the same in every language
    out.append(
        head(stamp, "typed", ' id="typed"') + f"<label>{say_html(lang, 'next.typed', examples=examples)} "
        '<input name="text" size="24" maxlength="2000" autocomplete="off"></label>'
        f"<button>{e(say(lang, 'next.enter'))}</button></form>"
    )
    if c.record.actions:
        out.append(button_form(stamp, "undo", {}, say(lang, "next.undo", n=n - 1)))
    out.append("</section>")
    return out


def _claims(c: Checked, w: Words, stamp: Stamp) -> list[str]:
    """The claims entered, in the order of the actions they are on, and the form that enters one."""
    e, lang = escape.html, w.lang
    t = tables_for(c.rules)
    out = [f'<section id="claims"><h2>{e(say(lang, "claims"))}</h2>']
    # By the action each is on; claims on one action stay as entered. ``k`` is still the claim's place in the record.
    for k, claim in sorted(enumerate(c.record.claims), key=lambda kc: kc[1].at):
        who = w.seat(claim.by) if claim.by else "?"
        line = say(lang, "claims.line", at=claim.at, who=who, claim=quote(lang, shown(claim.claim)))
        drop = button_form(stamp, "drop_claim", {"claim": str(k)}, say(lang, "drop"), inline=True)
        out.append(f"<p>{e(line)} {drop}</p>")
    if not c.record.actions:
        out.append(f'<p class="meta">{e(say(lang, "claims.first"))}</p></section>')
        return out
    seats = "".join(f'<option value="{e(s)}">{e(w.seat(s))}</option>' for s in t.seat_ids)
    codes = "".join(
        f'<option value="{e(x.code)}">{e(say(lang, "claims.code", words=error_words(c.rules, x.code, lang)))}</option>'
        for x in c.rules.errors
    )
    n = len(c.record.actions)
    out.append(
        head(stamp, "claim", ' id="claim-form"')
        + f'<label>{e(say(lang, "claims.at"))} <input name="at" type="number" min="1" max="{n}" value="{n}"></label>'
        + f'<label>{e(say(lang, "claims.by"))} <select name="by"><option value="">-</option>{seats}</select></label>'
        + f'<label>{e(say(lang, "claims.says"))} <input name="claim" size="40" maxlength="2000" required></label>'
        + f'<label>{e(say(lang, "claims.asserting"))} <select name="asserts">'
        + f'<option value="">{e(say(lang, "claims.nothing"))}</option>'
        + f'<option value="legal">{e(say(lang, "claims.legal"))}</option>'
        + f'<option value="illegal">{e(say(lang, "claims.illegal"))}</option>{codes}</select></label>'
        + f"<button>{e(say(lang, 'claims.enter'))}</button></form></section>"
    )
    return out


def _compare(desk: Desk, c: Checked, stamp: Stamp) -> list[str]:
    """The same record under another ruleset, side by side, with where the rulings part (--compare-ruleset)."""
    e, lang = escape.html, desk.lang
    out = [f'<section id="compare"><h2>{e(say(lang, "compare"))}</h2>']
    names = [*desk.custom, *(n for n in _names() if n not in desk.custom)]
    opts = "".join(
        f'<option value="{e(n)}"{" selected" if n == desk.compare_with else ""}>{e(n)}</option>' for n in names
    )
    out.append(
        head(stamp, "compare", ' id="compare-form"')
        + f'<label>{e(say(lang, "compare.ruleset"))} <select name="ruleset">'
        + f'<option value="">{e(say(lang, "compare.none"))}</option>{opts}</select></label>'
        + f"<button>{e(say(lang, 'compare.button'))}</button></form>"
    )
    if desk.compare_with is None or not c.record.actions:
        return [*out, "</section>"]
    try:
        other = desk.named(desk.compare_with)
        compared = compare(c.record, c.rules, other, desk.lang)
        theirs = audit(c.record, other, go_on=True)
    except UnknownRuleset as exc:
        return [*out, f'<p class="problems">{e(unknown_ruleset(exc).words(lang))}</p>', "</section>"]
    except InputError as exc:
        return [*out, *(f'<p class="problems">{e(note_words(lang, p))}</p>' for p in exc.problems), "</section>"]
    said = compare_text(compared, c.rules, other, desk.lang).splitlines()
    out += [f'<p class="verdicts">{e(line)}</p>' for line in said[:1]]
    parted = {d["n"] for d in compared["divergences"]}
    wa, wb = Words(c.rules, desk.lang), Words(other, desk.lang)
    rows = "".join(
        f"<tr{' class=parted' if x.n in parted else ''}><td>{x.n}</td><td><code>{e(shown(x.notation))}</code></td>"
        f"<td>{_cell(wa, x)}</td><td>{_cell(wb, y)}</td></tr>"
        for x, y in zip(c.audit.rulings, theirs.rulings)
    )
    finals = (
        f"<tr><td></td><td></td><td>{e(wa.score(c.audit.final['score']))}</td>"
        f"<td>{e(wb.score(theirs.final['score']))}</td></tr>"
    )
    out.append(
        f'<div class="scroll"><table id="side-by-side"><thead><tr><th>#</th><th></th><th>{e(c.rules.name)}</th>'
        f"<th>{e(other.name)}</th></tr></thead><tbody>{rows}{finals}</tbody></table></div>"
    )
    out += [f'<p class="meta">{e(line)}</p>' for line in said[1:]]
    return [*out, "</section>"]


def _cell(w: Words, r: Ruling) -> str:
    e = escape.html
    if r.open is not None:
        return e(w.say("audit", "not_ruled"))
    if r.legal:
        return e(w.say("audit", "legal")) + "".join(f"<br>{prose(w.event(ev), w.deck)}" for ev in r.events)
    return f"{e(w.say('audit', 'illegal'))}: {e(r.code)} ({e(r.clause)})"


def _names() -> list[str]:
    from ..rules.registry import shipped_names

    return shipped_names()


__all__ = ["CSS", "render"]
