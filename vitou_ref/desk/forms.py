"""The desk's forms: the game, a deal by its card grid or pasted, keeping and loading records; and its script."""

from __future__ import annotations

from dataclasses import dataclass

from ..audit.audit import Words
from ..audit.record import MAX_RECORD_BYTES
from ..engine.reasons import catalog
from ..engine.setup import TURN_UP
from ..engine.tables import Tables, tables_for
from ..present import escape
from ..present.cards import prose
from ..rules.data import data_dir
from ..rules.registry import MAX_RULES_BYTES, shipped_names
from .state import LANGS, Checked, Desk
from .words import say, say_html

# The page's one script, served from the desk itself: it reads a chosen file into the text box beside it,
# so that a record or a rules file can be given without typing; without scripts, pasting does the same. A file
# over what the desk reads is said at once, rather than sent to be refused, in the words the page gives it.
SCRIPT = """"use strict";
document.querySelectorAll("input[type=file][data-into]").forEach(function (input) {
  input.addEventListener("change", function () {
    var file = input.files && input.files[0];
    var most = Number(input.dataset.most);
    input.setCustomValidity("");
    if (!file) { return; }
    if (file.size > most) {
      input.setCustomValidity(input.dataset.over);
      input.reportValidity();
      return;
    }
    file.text().then(function (text) {
      var box = input.form.elements[input.dataset.into];
      box.value = text;
      var name = input.form.elements.filename;
      if (name) { name.value = file.name; }
    });
  });
});
"""


@dataclass(frozen=True)
class Stamp:
    """What every form of a page carries: the run's secret, and the revision of the desk the page shows."""

    secret: str
    revision: int


def head(stamp: Stamp, op: str, attrs: str = "") -> str:
    """A form's start: where it posts, the secret, the operation, and the revision it was made at.

    The revision makes a form of a page left open in another tab stale once the desk has changed: its indexes
    (a record, a deal, a claim) and its legal actions were those of the page it was on, not of the desk now.
    """
    e = escape.html
    return (
        f'<form method="post" action="/{e(stamp.secret)}/do"{attrs}>'
        f'<input type="hidden" name="token" value="{e(stamp.secret)}"><input type="hidden" name="op" value="{e(op)}">'
        f'<input type="hidden" name="rev" value="{stamp.revision}">'
    )


def button_form(stamp: Stamp, op: str, fields: dict[str, str], label: str, *, inline: bool = False) -> str:
    """One button that posts one operation with its fields."""
    e = escape.html
    hidden = "".join(f'<input type="hidden" name="{e(k)}" value="{e(v)}">' for k, v in fields.items())
    cls = ' class="inline"' if inline else ""
    return f"{head(stamp, op, cls)}{hidden}<button>{e(label)}</button></form>"


def _options(values: list[str], chosen: str | None, shown: dict[str, str] | None = None, lang: bool = False) -> str:
    """A menu's options; ``lang``: each value is a language, named in its own words and marked as such."""
    e = escape.html
    shown = shown or {}
    marks = [(f' lang="{e(v)}"' if lang else "") + (" selected" if v == chosen else "") for v in values]
    return "".join(f'<option value="{e(v)}"{m}>{e(shown.get(v, v))}</option>' for v, m in zip(values, marks))


def _file_box(lang: str, op: str, most: int) -> str:
    """A file chosen into the text box beside it, by the page's script; a file over ``most`` bytes is said at once."""
    e = escape.html
    label, paste = ("rules.file", "rules.paste") if op == "rules" else ("keep.file_label", "keep.paste")
    over = say(lang, "file.over", mib=most // (1024 * 1024))
    return (
        f'<input type="file" accept=".yaml,.yml,.json" data-into="text" data-most="{most}" data-over="{e(over)}" '
        f'aria-label="{e(say(lang, label))}"><input type="hidden" name="filename" value="">'
        f'<textarea name="text" placeholder="{e(say(lang, paste))}"></textarea>'
    )


def game_form(desk: Desk, c: Checked, stamp: Stamp) -> str:
    """The ruleset, the language, the dealer, the starting score and the event."""
    e = escape.html
    t = tables_for(c.rules)
    w = Words(c.rules, desk.lang)
    lang = desk.lang
    header = c.record.header
    names = [*desk.custom, *(n for n in shipped_names() if n not in desk.custom)]
    score = header.get("score") or {}
    scores = "".join(
        f'<label>{e(w.side(s))} <input name="score-{e(s)}" size="3" maxlength="9" inputmode="numeric" '
        f'value="{e(str(score.get(s, "")))}"></label>'
        for s in t.side_ids
    )
    seats = {s: w.seat(s) for s in t.seat_ids}
    # Each language by its own name, whatever the page's: the one a referee reads is found in any of them.
    own = {x: str(catalog(x).get("language_name", x)) for x in LANGS}
    return (
        head(stamp, "game", ' id="game-form"')
        + f'<label>{e(say(lang, "game.ruleset"))} <select name="ruleset">{_options(names, c.rules.name)}</select>'
        + f'</label><label>{e(say(lang, "game.lang"))} <select name="lang">{_options(list(LANGS), lang, own, True)}'
        + f'</select></label><label>{e(say(lang, "game.dealer"))} <select name="dealer">'
        + f"{_options(list(t.seat_ids), header.get('dealer'), seats)}</select></label>"
        + f"<fieldset><legend>{e(say(lang, 'game.score'))}</legend>{scores}</fieldset>"
        + f'<label>{e(say(lang, "game.event"))} <input name="event" size="30" maxlength="200" '
        + f'value="{e(str(header.get("event", "")))}"></label><label>{e(say(lang, "game.note"))} '
        + f'<input name="note" size="30" maxlength="2000" value="{e(str(header.get("note", "")))}"></label>'
        + f'<button class="primary">{e(say(lang, "game.set"))}</button></form>'
        + head(stamp, "rules_file", ' id="rules-form"')
        + f"<details><summary>{e(say(lang, 'rules.summary'))}</summary>"
        + f'<p class="meta">{say_html(lang, "rules.checked", command="<code>vitou spec check</code>")}</p>'
        + _file_box(lang, "rules", MAX_RULES_BYTES)
        + f"<button>{e(say(lang, 'rules.use'))}</button></details></form>"
    )


def deal_form(c: Checked, w: Words, stamp: Stamp, index: int) -> str:
    """Deal ``index`` (the next one when it is past the last): each seat's cards by clicking, or pasted."""
    e = escape.html
    t = tables_for(c.rules)
    deals = c.record.deals
    deal = deals[index] if index < len(deals) else {}
    lang = w.lang
    title = say(lang, "deal" if index < len(deals) else "deal.next", n=index + 1)
    pack = {t.card(x).text for x in t.deck}
    p = c.rules.params
    # One row per suit, highest rank first: the grid reads as a hand is sorted at the table.
    suits = [[r.value + s.suit.value for r in p.rank_order if r.value + s.suit.value in pack] for s in p.suits]
    seats = []
    for seat in t.seat_ids:
        held = set(deal.get(seat, []))
        rows = "".join(
            '<div class="grid">'
            + "".join(
                f'<label><input type="checkbox" name="card-{e(seat)}" value="{e(code)}"'
                f"{' checked' if code in held else ''}>{prose(code, w.deck)}</label>"
                for code in suit
            )
            + "</div>"
            for suit in suits
        )
        seats.append(f'<fieldset class="seat"><legend>{e(w.seat(seat))}</legend>{rows}</fieldset>')
    if t.turn_up:  # one card, turned up for the hand: one choice among the pack
        up = deal.get(TURN_UP)
        rows = "".join(
            '<div class="grid">'
            + "".join(
                f'<label><input type="radio" name="turn_up" value="{e(code)}"'
                f"{' checked' if code == up else ''}>{prose(code, w.deck)}</label>"
                for code in suit
            )
            + "</div>"
            for suit in suits
        )
        seats.append(f'<fieldset class="seat turn-up"><legend>{e(say(lang, "deal.turn_up"))}</legend>{rows}</fieldset>')
    said = f"<p>{prose(w.deal(deal), w.deck)}</p>" if deal else ""
    drop = button_form(stamp, "drop_deal", {"deal": str(index)}, say(lang, "deal.remove")) if deal else ""
    # Closed: the next deal is picked by clicks in the next action's place (picking.py); the grid and the paste
    # box are for a deal entered whole or changed, and on a phone they are a wall of check boxes.
    opened = ""
    return (
        f'<details class="deal" id="deal-{index + 1}"{opened}><summary>{e(title)}</summary>{said}'
        + head(stamp, "deal")
        + f'<input type="hidden" name="deal" value="{index}"><div class="seats">{"".join(seats)}</div>'
        + f'<label>{e(say(lang, "deal.paste"))} <input name="paste" size="44" maxlength="2000" '
        + f'placeholder="{e(_example(t))}"></label>'
        + f'<button class="primary">{e(say(lang, "deal", n=index + 1))}</button></form>{drop}</details>'
    )


def _example(t: Tables) -> str:
    """A deal as it is pasted, in the game's own seats and pack: Vitou's four hands, or two hands and a turn-up."""
    if t.seat_ids == ("N", "E", "S", "W") and not t.turn_up:
        return "N: AS 7H 8C; E: 9C KD JH; S: 10H QS 8D; W: 7C AD 9S"
    k, n = t.cards_each, t.n
    # Cards spread over the pack, as a shuffle gives them: not one rank dealt to one seat.
    step = max(1, len(t.deck) // (n * k + 1))
    pack = [t.card(t.deck[(i * step + i // 4) % len(t.deck)]).text for i in range(n * k + 1)]
    parts = [f"{s}: {' '.join(pack[i * k : (i + 1) * k])}" for i, s in enumerate(t.seat_ids)]
    if t.turn_up:
        parts.append(f"{TURN_UP}: {pack[n * k]}")
    return "; ".join(parts)


def disputes() -> list[str]:
    """The shipped disputes, by file name: the only files the desk reads on a request's word."""
    return sorted(p.name for p in data_dir("conformance").joinpath("disputes").glob("[0-9]*.yaml"))


def keep_section(desk: Desk, stamp: Stamp, shipped: list[str]) -> str:
    e = escape.html
    s = e(stamp.secret)
    lang = desk.lang
    save_dir = (
        head(stamp, "save", ' class="inline"') + f"<button>{e(say(lang, 'keep.save_dir'))}</button></form>"
        if desk.save_dir
        else ""
    )
    return (
        f'<section id="keep"><h2>{e(say(lang, "keep"))}</h2><p>'
        f'<a id="save" href="/{s}/record.yaml" download>{e(say(lang, "keep.save"))}</a> · '
        f'<a id="export" href="/{s}/audit.html" download>{e(say(lang, "keep.export"))}</a></p>{save_dir}'
        + head(stamp, "dispute", ' id="dispute-form"')
        + f'<label>{e(say(lang, "keep.dispute"))} <select name="name">{_options(shipped, None)}</select></label>'
        + f"<button>{e(say(lang, 'keep.load'))}</button></form>"
        + head(stamp, "load", ' id="load-form"')
        + f"<details><summary>{e(say(lang, 'keep.file'))}</summary>"
        + _file_box(lang, "load", MAX_RECORD_BYTES)
        + f"<button>{e(say(lang, 'keep.load_record'))}</button></details></form></section>"
    )


__all__ = ["SCRIPT", "Stamp", "button_form", "deal_form", "disputes", "game_form", "head", "keep_section"]
