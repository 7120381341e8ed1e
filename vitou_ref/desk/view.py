"""The desk's page: the game, the deals, the rulings as they come, the next action, claims, what-ifs, keep."""

from __future__ import annotations

from typing import Any

from .._version import __version__
from ..audit.audit import Position, Ruling, Words, audit
from ..audit.auditpage import CSS as AUDIT_CSS
from ..audit.auditpage import cited_clauses, ruling_item
from ..audit.report import compare, compare_text, final_words, shown
from ..engine.tables import tables_for
from ..present import escape
from ..present.cards import prose
from ..present.page import document
from ..rules.errors import InputError, UnknownRuleset
from .forms import Stamp, button_form, deal_form, disputes, game_form, head, keep_section
from .state import Checked, Desk

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
"""
)


def render(desk: Desk, secret: str) -> str:
    """The whole page, from the desk's state alone: every request re-renders it from the records."""
    stamp = Stamp(secret, desk.revision)
    checked = desk.check(desk.branch.data)
    w = Words(checked.rules, desk.lang)
    body = [
        *_notice(desk),
        *_branches(desk, stamp),
        '<section id="game"><h2>The game</h2>',
        game_form(desk, checked, stamp),
        "</section>",
        '<section id="deals"><h2>The deals</h2>',
        *(deal_form(checked, w, stamp, i) for i in range(len(checked.record.deals) + 1)),
        "</section>",
        *_rulings(desk, checked, w, stamp),
        *_next(checked, w, stamp),
        *_claims(checked, w, stamp),
        *_compare(desk, checked, stamp),
        keep_section(desk, stamp, disputes()),
    ]
    return document(
        lang=desk.lang,
        title=f"Referee's desk: {desk.branch.name}",
        kind="Referee's desk",
        heading=f"Referee's desk: {desk.branch.name}",
        provenance=[w.say("audit", "ruleset", name=checked.rules.name, hash=checked.rules.content_hash)],
        body=body,
        footer=f"vitou {__version__}: the rulings are the audit's, as `vitou audit --continue` gives them",
        css=CSS,
        intro=[f'<script src="/{escape.html(secret)}/desk.js" defer></script>'],
    )


def _notice(desk: Desk) -> list[str]:
    if not desk.notice:
        return [f'<p class="summary" id="info">{escape.html(desk.info)}</p>'] if desk.info else []
    items = "".join(f"<li>{escape.html(p)}</li>" for p in desk.notice)
    head = "Not entered; the record is kept as it was:"
    return [f'<section class="problems" id="problems" role="alert"><p>{head}</p><ul>{items}</ul></section>']


def _branches(desk: Desk, stamp: Stamp) -> list[str]:
    e = escape.html
    out = ['<nav class="branches" id="branches" aria-label="records">']
    for i, b in enumerate(desk.branches):
        if i == desk.current:
            out.append(f'<span class="here">{e(b.name)}</span>')
        else:
            out.append(button_form(stamp, "switch", {"branch": str(i)}, b.name))
        if len(desk.branches) > 1 and i:
            out.append(button_form(stamp, "drop_branch", {"branch": str(i)}, "drop"))
    out.append("</nav>")
    return out


def _allowed(rules_w: Words, pos: Position, action: Any) -> str:
    """The clause that allowed a legal action, with its words: the ground of a ruling of legal."""
    clause = next((c for a, c in pos.legal if a == action), None)
    if clause is None:
        return ""
    title, text = rules_w.clause(clause)
    rule = rules_w.say("audit", "rule", clause=clause, title=title)
    words = prose(text, rules_w.deck)
    return f'<details class="allowed"><summary>{escape.html(rule)}</summary><blockquote>{words}</blockquote></details>'


def _rulings(desk: Desk, c: Checked, w: Words, stamp: Stamp) -> list[str]:
    e = escape.html
    out = [f'<section id="rulings"><h2>{e(w.say("audit", "page.rulings"))}</h2>']
    legal = sum(1 for r in c.audit.rulings if r.legal)
    summary = [w.summary(legal, len(c.audit.rulings) - legal, len(c.record.actions))]
    summary.append(final_words(w, c.audit.final))
    out.append('<div class="summary" id="summary">' + "".join(f"<p>{e(x)}</p>" for x in summary) + "</div>")
    out.append('<ol class="rulings">')
    for r in c.audit.rulings:
        out.append(_one(c, w, r, stamp))
    out += ["</ol>", "</section>", *cited_clauses(c.audit, w)]  # the clauses an illegal ruling links to, in full
    return out


def _one(c: Checked, w: Words, r: Ruling, stamp: Stamp) -> str:
    item = ruling_item(w, r)  # the audit page's own item: what the kit hands over is what the desk shows
    extra = _allowed(w, c.positions[r.n - 1], r.action) if r.legal else ""
    extra += button_form(stamp, "branch", {"at": str(r.n)}, f"What if, from action {r.n}")
    cut = item.rfind("</li>")
    return f'{item[:cut]}<div class="ruling-desk" id="desk-{r.n}">{extra}</div></li>'


def _next(c: Checked, w: Words, stamp: Stamp) -> list[str]:
    """The position now, the legal actions as buttons, and any other action typed in."""
    e = escape.html
    pos = c.positions[-1]
    n = len(c.record.actions) + 1
    out = [
        f'<section id="next"><h2>Action {n}</h2>',
        *(f'<p class="meta">{prose(x, w.deck)}</p>' for x in w.position(pos)),
    ]
    if pos.legal:
        buttons = "".join(
            f'<button name="action" value="{e(escape.json_dumps(a))}">{prose(shown(w.action(a)), w.deck)}'
            f" <small>({e(clause or '')})</small></button>"
            for a, clause in pos.legal
        )
        out.append(
            head(stamp, "act", ' class="legal-actions" id="legal"') + f"<p>The legal actions now:</p>{buttons}</form>"
        )
    out.append(
        head(stamp, "typed", ' id="typed"')
        + "<label>Any other action, in the notation (<code>E refuse</code>, <code>S r12</code>): "
        '<input name="text" size="24" maxlength="2000" autocomplete="off"></label>'
        "<button>Enter</button></form>"
    )
    if c.record.actions:
        out.append(button_form(stamp, "undo", {}, f"Take back action {n - 1}"))
    out.append("</section>")
    return out


def _claims(c: Checked, w: Words, stamp: Stamp) -> list[str]:
    e = escape.html
    t = tables_for(c.rules)
    out = ['<section id="claims"><h2>Claims</h2>']
    for k, claim in enumerate(c.record.claims):
        who = w.seat(claim.by) if claim.by else "?"
        out.append(
            f"<p>{e(claim.at)}. {e(who)}: \u201c{e(shown(claim.claim))}\u201d "
            f"{button_form(stamp, 'drop_claim', {'claim': str(k)}, 'drop', inline=True)}</p>"
        )
    if not c.record.actions:
        out.append('<p class="meta">A claim is on an action: enter the actions first.</p></section>')
        return out
    seats = "".join(f'<option value="{e(s)}">{e(w.seat(s))}</option>' for s in t.seat_ids)
    codes = "".join(f'<option value="{e(x.code)}">{e(x.code)}</option>' for x in c.rules.errors)
    out.append(
        head(stamp, "claim", ' id="claim-form"')
        + f'<label>On action <input name="at" type="number" min="1" max="{len(c.record.actions)}" '
        f'value="{len(c.record.actions)}"></label>'
        f'<label>by <select name="by"><option value="">-</option>{seats}</select></label>'
        '<label>says <input name="claim" size="40" maxlength="2000" required></label>'
        '<label>asserting <select name="asserts"><option value="">nothing checkable</option>'
        f'<option value="legal">legal</option><option value="illegal">illegal</option>{codes}</select></label>'
        "<button>Enter the claim</button></form></section>"
    )
    return out


def _compare(desk: Desk, c: Checked, stamp: Stamp) -> list[str]:
    """The same record under another ruleset, side by side, with where the rulings part (--compare-ruleset)."""
    e = escape.html
    out = ['<section id="compare"><h2>Compare under another ruleset</h2>']
    names = [*desk.custom, *(n for n in _names() if n not in desk.custom)]
    opts = "".join(
        f'<option value="{e(n)}"{" selected" if n == desk.compare_with else ""}>{e(n)}</option>' for n in names
    )
    out.append(
        head(stamp, "compare", ' id="compare-form"')
        + f'<label>Ruleset <select name="ruleset"><option value="">none</option>{opts}</select></label>'
        "<button>Compare</button></form>"
    )
    if desk.compare_with is None or not c.record.actions:
        return [*out, "</section>"]
    try:
        other = desk.named(desk.compare_with)
        compared = compare(c.record, c.rules, other, desk.lang)
        theirs = audit(c.record, other, go_on=True)
    except UnknownRuleset as exc:
        return [*out, f'<p class="problems">{e(exc)}</p>', "</section>"]
    except InputError as exc:
        return [*out, *(f'<p class="problems">{e(p)}</p>' for p in exc.problems), "</section>"]
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
    if r.legal:
        return e(w.say("audit", "legal")) + "".join(f"<br>{prose(w.event(ev), w.deck)}" for ev in r.events)
    return f"{e(w.say('audit', 'illegal'))}: {e(r.code)} ({e(r.clause)})"


def _names() -> list[str]:
    from ..rules.registry import shipped_names

    return shipped_names()


__all__ = ["CSS", "render"]
