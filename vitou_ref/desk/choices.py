"""Any action as the table made it, legal or not, chosen by clicks: who, then what, from the notation's own words."""

from __future__ import annotations

from ..audit.audit import Words
from ..audit.notation import FACE_DOWN, vocabulary
from ..audit.unknown import UNKNOWN
from ..engine.tables import Tables, tables_for
from ..present import escape
from .forms import Stamp, head
from .state import Checked, Desk
from .words import Quoted, Refused, said, say

# A verb of the notation and the catalogue's words for its act (acts: in the catalogue).
_ACT_OF = {
    "refuse": "refuse",
    "accept": "accept",
    "pass": "call_pass",
    "play": "call_play",
    "takes": "decide_play",
    "declines": "decide_decline",
    "concede": "concede",
}


def offered(t: Tables, who: str) -> list[str]:
    """What ``who`` may be recorded as doing: every card of the pack, a card not recorded, each face down where the
    rules let a card be played face down, and the notation's words."""
    cards = [t.card(x).text for x in t.deck] + [UNKNOWN] if who in t.seat_ids else []
    down = [FACE_DOWN + c for c in cards] if t.face_down_from else []
    return cards + down + vocabulary(who, t)


def other_action(desk: Desk, who: str, what: str) -> bool:
    """The action chosen, entered as the same words typed in the notation would be; a choice not offered is refused."""
    t = tables_for(desk.check(desk.branch.data).rules)
    players = (*t.seat_ids, *t.side_ids)
    if who not in players or not any(what in offered(t, p) for p in players):  # not a choice the page made
        raise Refused(400, "refused.pick", what=Quoted(f"{who} {what}"))
    if what not in offered(t, who):  # a side's choice made for a seat, or the other way round: said on the page
        desk.notice = [said("other.mismatch")]
        return False
    return desk.add_typed(f"{who} {what}")


def _words(w: Words, t: Tables, what: str) -> str:
    """A choice in words: "play a card: A♠", "bid: 6", "refuse", "signal: pursed lips (an ace)"."""
    acts = w.cat.get("acts", {})
    if what == UNKNOWN:
        return say(w.lang, "pick.unknown")
    if what[:1] == FACE_DOWN:  # a card face down: "play a card face down: 4♣"
        card = say(w.lang, "pick.unknown") if what[1:] == UNKNOWN else _card(w, what[1:])
        return f"{acts.get('play_down', 'play_down')}{w.colon} {card}"
    if what in _ACT_OF:
        return str(acts.get(_ACT_OF[what], what))
    if what.startswith("~"):
        gesture = w.cat.get("names", {}).get("gestures", {}).get(what[1:], what[1:])
        return f"{acts.get('signal', 'signal')}{w.colon} {gesture}"
    if what.startswith("r") and what[1:] in {str(b) for b in t.bid_tokens[1:]}:
        return f"{acts.get('raise', 'raise')}{w.colon} {what[1:]}"
    return f"{acts.get('play', 'play')}{w.colon} {_card(w, what)}"


def _card(w: Words, code: str) -> str:
    """A card by its rank and its suit's symbol: 4♣."""
    symbols = dict(w.deck.suits)
    return f"{code[:-1]}{symbols.get(code[-1], code[-1])}"


def other_form(c: Checked, w: Words, stamp: Stamp) -> str:
    """Who and what, each a menu: what the legal actions' buttons do not offer (an illegal action the table made)."""
    e, lang = escape.html, w.lang
    t = tables_for(c.rules)
    players = [*t.seat_ids, *(s for s in t.side_ids if s not in t.seat_ids)]
    who = "".join(f'<option value="{e(p)}">{e(w.seat(p) if p in t.seat_ids else w.side(p))}</option>' for p in players)
    whats = dict.fromkeys(x for p in players for x in offered(t, p))
    what = "".join(f'<option value="{e(x)}">{e(_words(w, t, x))}</option>' for x in whats)
    return (
        head(stamp, "other", ' id="other-form"')
        + f"<p>{e(say(lang, 'other.title'))}</p>"
        + f'<label>{e(say(lang, "other.who"))} <select name="who">{who}</select></label>'
        + f'<label>{e(say(lang, "other.what"))} <select name="what">{what}</select></label>'
        + f"<button>{e(say(lang, 'other.enter'))}</button></form>"
    )


__all__ = ["offered", "other_action", "other_form"]
