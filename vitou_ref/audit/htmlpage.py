"""What the referee's HTML pages share: a self-contained page, its style, and cards shown with their suit symbols."""

from __future__ import annotations

import re
from functools import lru_cache

from ..present import escape
from ..rules.model import Ruleset

RED = frozenset("♥♦♡♢")  # the suits printed in red, by their symbol

CSS = """
*,*::before,*::after{box-sizing:border-box}
body{font-family:Georgia,'Times New Roman',serif;max-width:52rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#222;background:#fffdf8;overflow-wrap:break-word}
h1,h2,h3{font-family:'Helvetica Neue',Arial,sans-serif;color:#5a1f1f;line-height:1.25}
h2{border-bottom:2px solid #e6d9c3;padding-bottom:.2rem;margin-top:2.5rem}
h3{margin-top:1.6rem}
.meta{font-size:.9rem;color:#6b5d4f}
code{background:#f3ede2;padding:0 .25rem;border-radius:3px}
a{color:#7b2d26}
.card{white-space:nowrap;font-family:'DejaVu Sans','Segoe UI Symbol','Noto Sans Symbols2',sans-serif;font-size:.95em}
.card.red{color:#b3261e}
@media print{body{background:#fff;margin:0;max-width:none;font-size:11pt}a{color:inherit;text-decoration:none}h2,h3{break-after:avoid}}
"""


@lru_cache(maxsize=32)
def _cards(ranks: tuple[str, ...], suits: tuple[tuple[str, str], ...]) -> tuple[re.Pattern[str], dict[str, str]]:
    rank = "|".join(re.escape(r) for r in sorted(ranks, key=len, reverse=True))
    suit = "|".join(re.escape(s) for s, _ in suits)
    # A card code stands alone: not inside a longer word or number (10S, not 110S or 10Sx).
    return re.compile(rf"(?<![\w])({rank})({suit})(?![\w])"), dict(suits)


def card_pattern(rules: Ruleset) -> tuple[re.Pattern[str], dict[str, str]]:
    """The pattern of the ruleset's card codes (rank then suit), and each suit letter's symbol, from its deck data."""
    p = rules.params
    return _cards(tuple(r.value for r in p.ranks), tuple((s.suit.value, s.symbol) for s in p.suits))


def card(code: str, rank: str, symbol: str) -> str:
    """One card as a reader expects it (10♠), its code (10S) kept in the title."""
    red = " red" if symbol in RED else ""
    return f'<span class="card{red}" title="{escape.html(code)}">{escape.html(rank)}{escape.html(symbol)}</span>'


def prose(text: object, rules: Ruleset) -> str:
    """Text escaped for HTML, with every card code in it shown with its suit symbol."""
    pattern, symbols = card_pattern(rules)
    s = str(text)
    out, at = [], 0
    for m in pattern.finditer(s):
        out.append(escape.html(s[at : m.start()], lines=True))
        out.append(card(m.group(0), m.group(1), symbols[m.group(2)]))
        at = m.end()
    out.append(escape.html(s[at:], lines=True))
    return "".join(out)


def notation(text: object, rules: Ruleset) -> str:
    """Text escaped for HTML, with every card code in it marked as code: for the text that defines the notation."""
    pattern, _ = card_pattern(rules)
    s = str(text)
    out, at = [], 0
    for m in pattern.finditer(s):
        out += [escape.html(s[at : m.start()], lines=True), f"<code>{escape.html(m.group(0))}</code>"]
        at = m.end()
    out.append(escape.html(s[at:], lines=True))
    return "".join(out)


def document(lang: str, title: str, css: str, body: list[str]) -> str:
    """A whole page: no script, no file or address outside it, so that it can be mailed, archived or printed."""
    e = escape.html
    head = [
        "<!DOCTYPE html>",
        f'<html lang="{e(lang)}"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(title)}</title>",
        f"<style>{CSS}{css}</style></head><body>",
    ]
    return "\n".join([*head, *body, "</body></html>"]) + "\n"


__all__ = ["CSS", "card", "card_pattern", "document", "notation", "prose"]
