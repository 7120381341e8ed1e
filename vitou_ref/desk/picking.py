"""Dealing by clicks: each seat's cards picked one by one from the ruleset's pack, or left not recorded; the turn-up."""

from __future__ import annotations

from typing import Any

from ..audit.audit import Words
from ..audit.unknown import UNKNOWN
from ..engine.setup import TURN_UP
from ..engine.tables import Tables, tables_for
from ..present import escape
from ..present.cards import prose
from .forms import Stamp, head
from .state import Checked, Desk
from .words import Quoted, Refused, said, say

FILLS = ("", "seat", "all", "undo")  # a card picked; the seat's other cards not recorded; every other; take back


def hands(t: Tables, picks: tuple[tuple[str, str], ...]) -> dict[str, list[str]]:
    """The cards picked so far, seat by seat, in the ruleset's order of seats; then the turn-up (one card), where the
    rules turn one up."""
    out: dict[str, list[str]] = {s: [] for s in room(t)}
    for seat, card in picks:
        out[seat].append(card)
    return out


def room(t: Tables) -> dict[str, int]:
    """How many cards each place of a deal takes: each seat's hand, and the turn-up where the rules turn one up."""
    return {**{s: t.cards_each for s in t.seat_ids}, **({TURN_UP: 1} if t.turn_up else {})}


def pick(desk: Desk, seat: str, card: str, fill: str) -> bool:
    """One click of the picker. A form the page did not make (a seat or card it did not offer) is refused whole.

    When every seat has its cards, they are the record's next deal, checked as any deal entered is.
    """
    c = desk.check(desk.branch.data)
    t = tables_for(c.rules)
    picks = desk.branch.picks
    held = hands(t, picks)
    places = room(t)
    if fill not in FILLS:
        raise Refused(400, "refused.pick", what=Quoted(fill))
    if fill == "undo":
        desk.branch.picks = picks[:-1]
        return True
    if fill == "all":  # every seat's cards still to pick; the turn-up is public, and is picked
        picks += tuple((s, UNKNOWN) for s in t.seat_ids for _ in range(t.cards_each - len(held[s])))
    else:
        if seat not in held:
            raise Refused(400, "refused.pick", what=Quoted(seat))
        left = places[seat] - len(held[seat])
        if seat == TURN_UP and (fill == "seat" or card == UNKNOWN) and left > 0:
            desk.notice = [said("pick.turn_up_known")]  # offered on the page: said there, and nothing changes
            return False
        if fill == "seat":
            picks += ((seat, UNKNOWN),) * left
        else:
            pack = {t.card(x).text for x in t.deck}
            taken = {cd for _, cd in picks if cd != UNKNOWN}
            if left <= 0 or not (card == UNKNOWN or (card in pack and card not in taken)):
                raise Refused(400, "refused.pick", what=Quoted(card))
            picks += ((seat, card),)
    if len(picks) < sum(places.values()):
        desk.branch.picks = picks
        return True
    deal: dict[str, Any] = dict(hands(t, picks))
    if TURN_UP in deal:  # a deal names its turn-up as one card, not a list
        deal[TURN_UP] = deal[TURN_UP][0]
    if desk.set_deal(len(c.record.deals), deal):
        desk.branch.picks = ()
        return True
    return False


def picker(c: Checked, w: Words, stamp: Stamp, picks: tuple[tuple[str, str], ...]) -> str:
    """The picker: whose card (the first seat short of cards is chosen), the pack, and the cards not recorded."""
    e, lang = escape.html, w.lang
    t = tables_for(c.rules)
    held = hands(t, picks)
    places = room(t)
    current = next((s for s in places if len(held[s]) < places[s]), t.seat_ids[-1])
    names = {**{s: w.seat(s) for s in t.seat_ids}, TURN_UP: say(lang, "pick.turn_up")}
    seats = "".join(
        f'<label class="pick-seat"><input type="radio" name="seat" value="{e(s)}"'
        f"{' checked' if s == current else ''}{' disabled' if len(held[s]) >= n else ''}> "
        f"<b>{e(names[s])}</b> {_held(w, held[s], n)}</label>"
        for s, n in places.items()
    )
    taken = {cd for _, cd in picks if cd != UNKNOWN}
    p = c.rules.params
    pack = {t.card(x).text for x in t.deck}
    rows = "".join(
        '<div class="pack-row">'
        + "".join(
            f'<button name="card" value="{e(code)}" class="card"{" disabled" if code in taken else ""}>'
            f"{prose(code, w.deck)}</button>"
            for code in (r.value + s.suit.value for r in p.rank_order)
            if code in pack
        )
        + "</div>"
        for s in p.suits
    )
    n = len(c.record.deals) + 1
    undo = f'<button name="fill" value="undo">{e(say(lang, "pick.undo"))}</button>' if picks else ""
    return (
        f'<div id="pick"><h3>{e(say(lang, "pick.title", n=n))}</h3>'
        + head(stamp, "pick", ' id="pick-form"')
        + f'<fieldset class="pick-seats"><legend>{e(say(lang, "pick.whose"))}</legend>{seats}</fieldset>'
        + f'<div class="pack" role="group" aria-label="{e(say(lang, "pick.pack"))}">{rows}</div>'
        + f'<p><button name="card" value="{UNKNOWN}">{e(say(lang, "pick.unknown"))}</button>'
        + f'<button name="fill" value="seat">{e(say(lang, "pick.rest_seat"))}</button>'
        + f'<button name="fill" value="all">{e(say(lang, "pick.rest_all"))}</button>{undo}</p></form></div>'
    )


def _held(w: Words, cards: list[str], each: int) -> str:
    shown = [prose(cd, w.deck) if cd != UNKNOWN else "?" for cd in cards]
    shown += ["·"] * (each - len(cards))
    return f'<span class="held">{" ".join(shown)}</span>'


__all__ = ["FILLS", "hands", "pick", "picker"]
