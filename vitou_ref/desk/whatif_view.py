"""What the rules would have given instead of an illegal action, as an HTML fragment for its ruling at the desk."""

from __future__ import annotations

from ..audit.audit import Ruling, Words
from ..audit.record import Record
from ..audit.report import shown
from ..audit.whatif import Alternative, Unsolved, WhatIf, what_if
from ..engine.reasons import Ref
from ..engine.tables import tables_for
from ..present import escape
from ..present.cards import prose


def whatif_fragment(w: Words, result: WhatIf) -> str:
    """Each legal action of the position and the hand's value after it, in ``w``'s language, every text escaped."""
    e = escape.html
    out = [
        f'<div class="whatif" id="whatif-{result.at}">',
        f"<p><strong>{e(_say(w, 'title', n=result.at))}</strong></p>",
    ]
    if result.unsolved is not None:
        out.append(f"<p>{e(unsolved_words(w, result.unsolved, result.bound))}</p>")
        return "".join([*out, "</div>"])
    rows = "".join(
        f"<tr><td>{prose(shown(w.action(a.action, option=True)), w.deck)}</td><td>{e(value_words(w, a, result.bound))}</td></tr>"
        for a in result.alternatives
    )
    how = [_say(w, "how")]
    if tables_for(w.rules).face_down_from:  # what best play makes of a card face down, and what it never shows
        how.append(_say(w, "face_down"))
    out += [
        *(f'<p class="meta">{e(x)}</p>' for x in how),
        f'<table class="whatif-values"><thead><tr><th>{e(_say(w, "action"))}</th><th>{e(_say(w, "value"))}</th>'
        f"</tr></thead><tbody>{rows}</tbody></table>",
        f'<p class="meta">{e(_say(w, "actions", n=len(result.alternatives)))}</p>',
        "</div>",
    ]
    return "".join(out)


def whatif_for(w: Words, record: Record, ruling: Ruling) -> str:
    """The fragment for one ruling of ``w``'s ruleset: empty unless the action was ruled illegal.

    It replays ``record`` up to the ruling; a page with many illegal rulings should rather call
    :func:`vitou_ref.audit.whatif.what_ifs` once and :func:`whatif_fragment` for each.
    """
    if ruling.legal or ruling.code is None:
        return ""  # legal, or not ruled (a card the record leaves unknown): nothing was refused
    return whatif_fragment(w, what_if(record, w.rules, ruling))


def value_words(w: Words, a: Alternative, bound: int) -> str:
    """The hand's value after one alternative, in words: who wins it, what it scores, the match; or why not."""
    o = a.outcome
    if o is None:
        return unsolved_words(w, a.unsolved or Unsolved("no_action"), bound)
    how = "ended" if o.ended else "solved"
    if o.winner is None:
        return _say(w, f"{how}_nobody")
    side = Ref("side", o.winner)
    if isinstance(o.points, str):  # a bid that wins the match (Vitou's baraque)
        return _say(w, f"{how}_bid", side=side, bid=o.points)
    key = f"{how}_match" if o.match_winner is not None else how
    return _say(w, key, side=side, points=_say(w, "points", n=o.points))


def unsolved_words(w: Words, u: Unsolved, bound: int) -> str:
    """Why no value is given, in words."""
    key = f"unsolved.{u.why}"
    if u.why == "card_unknown":
        return _say(w, key, seats=Ref("seats", u.detail))
    if u.why == "over_bound":
        return _say(w, key, n=bound)
    if u.why == "no_action":
        phase = w.say("audit", f"phase.{u.detail[0]}", at=w.at) if u.detail else ""
        return _say(w, key, phase=phase)
    return _say(w, key, at=w.at)


def _say(w: Words, key: str, /, **params: object) -> str:
    return w.say("whatif", key, **params)


__all__ = ["unsolved_words", "value_words", "whatif_for", "whatif_fragment"]
