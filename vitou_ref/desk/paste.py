"""A deal pasted at the desk, as a record writes it or seat by seat, read into each seat's cards (and the turn-up)."""

from __future__ import annotations

import re
from typing import Any

from ..audit.unknown import UNKNOWN
from ..engine.setup import TURN_UP
from ..rules.errors import InputError
from ..rules.problems import Problem
from ..rules.yamlsafe import load_text

_UNKNOWN_WORD = re.compile(r"(?<![^\s:,])\?(?![^\s,])")  # a "?" standing alone among the cards
_STANDS_FOR_UNKNOWN = "_unknown_"


def problem(code: str, message: str, where: str) -> InputError:
    return InputError([Problem(code, message, where)])


def parse_deal(text: str, seats: tuple[str, ...], source: str = "the deal pasted") -> dict[str, Any]:
    """A deal pasted as the record writes it (``{N: [AS, 7H, 8C], ...}``) or seat by seat (``N: AS 7H 8C; E: ...``).

    The card turned up for the hand, where the rules turn one up, is given as the record writes it: ``turn_up: 7D``.

    ``source`` names the paste in the problems, in the desk's language.
    """
    mark = _STANDS_FOR_UNKNOWN
    while mark in text:  # a name the paste does not hold itself: a word typed as it is stays a card to check
        mark += "_"
    if "{" not in text:
        text = "\n".join(part.strip() for part in text.replace(";", "\n").splitlines() if part.strip())
        # A card not recorded, "?", opens a mapping key in YAML: it is read seat by seat under another name.
        text = _UNKNOWN_WORD.sub(mark, text)
    doc = load_text(text, source, max_bytes=64 * 1024)
    if not isinstance(doc.data, dict):
        raise problem("DEAL_PASTED", "a deal is each seat with its cards: N: AS 7H 8C; E: ...", source)
    out: dict[str, Any] = {}
    for seat, given in doc.data.items():
        cards = given.replace(",", " ").split() if isinstance(given, str) else given
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise problem("DEAL_PASTED", f"seat {seat}: its cards are card codes (AS 7H 8C)", source)
        cards = [UNKNOWN if c == mark else c for c in cards]
        # One card turned up is the record's string; anything else is kept for the loader to refuse where it is.
        out[str(seat)] = cards[0] if seat == TURN_UP and len(cards) == 1 else cards
    return out


__all__ = ["parse_deal", "problem"]
