"""Cards on a page: a card code in a text (10S) shown as a reader expects it (10♠), from the deck's plain data."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from . import escape

RED = frozenset("♥♦♡♢")  # the suits printed in red, by their symbol


@dataclass(frozen=True)
class Deck:
    """What a page needs of a deck: its ranks as written, and each suit's letter with its symbol."""

    ranks: tuple[str, ...]
    suits: tuple[tuple[str, str], ...]


@lru_cache(maxsize=32)
def _pattern(deck: Deck) -> tuple[re.Pattern[str], dict[str, str]]:
    rank = "|".join(re.escape(r) for r in sorted(deck.ranks, key=len, reverse=True))
    suit = "|".join(re.escape(s) for s, _ in deck.suits)
    # A card code stands alone: not inside a longer word or number (10S, not 110S or 10Sx).
    return re.compile(rf"(?<![\w])({rank})({suit})(?![\w])"), dict(deck.suits)


def card(code: str, rank: str, symbol: str) -> str:
    """One card as a reader expects it (10♠), its code (10S) kept in the title."""
    red = " red" if symbol in RED else ""
    return f'<span class="card{red}" title="{escape.html(code)}">{escape.html(rank)}{escape.html(symbol)}</span>'


def prose(text: object, deck: Deck) -> str:
    """Text escaped for HTML, with every card code in it shown with its suit symbol."""
    pattern, symbols = _pattern(deck)
    s = str(text)
    out, at = [], 0
    for m in pattern.finditer(s):
        out.append(escape.html(s[at : m.start()], lines=True))
        out.append(card(m.group(0), m.group(1), symbols[m.group(2)]))
        at = m.end()
    out.append(escape.html(s[at:], lines=True))
    return "".join(out)


def notation(text: object, deck: Deck) -> str:
    """Text escaped for HTML, with every card code in it marked as code: for the text that defines the notation."""
    pattern, _ = _pattern(deck)
    s = str(text)
    out, at = [], 0
    for m in pattern.finditer(s):
        out += [escape.html(s[at : m.start()], lines=True), f"<code>{escape.html(m.group(0))}</code>"]
        at = m.end()
    out.append(escape.html(s[at:], lines=True))
    return "".join(out)


__all__ = ["RED", "Deck", "card", "notation", "prose"]
