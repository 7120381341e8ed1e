"""The placeholders of envelope lines: the seats, sides, cards, deals, draws and names of the ruleset run under."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..rules.cards import ALL_CARDS

if TYPE_CHECKING:
    from ..engine.tables import Tables
    from ..rules.model import Ruleset

# A placeholder is $ then a lower-case word, and a variant of it after a dot: $deal, $deal.short_hand. In a json
# line a string that is exactly one is replaced by its value, whatever its type, as a value or (a string's) as a
# key; in a text line each one is replaced by its value's text: a string's characters, any other value's JSON.
PATTERN = re.compile(r"\$[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)?")


class CannotFill(Exception):
    """The ruleset has no value for a placeholder: ``why`` says so, in words a verdict can show.

    ``partial``: the placeholder is one some ruleset of the family lacks, and the rules are at hand: the case's
    own cannot_apply says why, rather than ``why``.
    """

    def __init__(self, why: str, partial: bool = False) -> None:
        super().__init__(why)
        self.why = why
        self.partial = partial


class _Rules:
    """What the placeholders are made of: one ruleset's names and pack, and a deal and a draw of it."""

    def __init__(self, name: str, tables: Tables | None) -> None:
        self.name = name
        self._tables = tables

    @property
    def t(self) -> Tables:
        if self._tables is None:  # never partial: no case can say why, since it is no property of the rules
            raise CannotFill(f"the rules of {self.name} are not at hand, so neither are its seats, sides and cards")
        return self._tables

    @functools.cached_property
    def seats(self) -> list[str]:
        return list(self.t.seat_ids)

    @functools.cached_property
    def dealer(self) -> int:
        return self.t.prev_seat[0]  # the seat before the first: the first seat leads, where the one after leads

    @functools.cached_property
    def leader(self) -> int:
        return self.t.first_leader[self.dealer]

    @functools.cached_property
    def deck(self) -> list[str]:
        return [ALL_CARDS[c].text for c in self.t.deck]

    @functools.cached_property
    def deal(self) -> dict[str, Any]:
        k = self.t.cards_each
        out: dict[str, Any] = {s: self.deck[i * k : (i + 1) * k] for i, s in enumerate(self.seats)}
        if self.t.turn_up:  # where the rules turn a card up, the deal names it: the pack's last card
            out["turn_up"] = self.deck[-1]
        return out

    @functools.cached_property
    def spare(self) -> list[str]:
        """The cards of the pack no seat holds in $deal, and not turned up."""
        return self.deck[len(self.seats) * self.t.cards_each : len(self.deck) - self.t.turn_up]

    def stranger(self, base: str) -> str:
        """``base``, or it numbered, so that no seat and no side of the ruleset has the name."""
        taken = {*self.t.seat_ids, *self.t.side_ids}
        return next(n for n in (base, *(f"{base}{i}" for i in range(1, 100))) if n not in taken)

    def first_hand(self, *cards: Any) -> dict[str, Any]:
        """$deal with the first seat's hand replaced by ``cards``."""
        return {**self.deal, self.seats[0]: list(cards)}

    def card_after(self, replaced: Any) -> dict[str, Any]:
        """$deal with the first seat's first card replaced."""
        return self.first_hand(replaced, *self.deal[self.seats[0]][1:])

    def unheld(self) -> str:
        """A card no seat holds in $deal; a held one when the deal takes the whole pack (the line is wrong twice)."""
        return (self.spare or self.deal[self.seats[1]])[0]

    def extra_hand(self) -> dict[str, Any]:
        k = self.t.cards_each
        return {**self.deal, self.stranger("X"): (self.spare if len(self.spare) >= k else self.deck)[:k]}

    # ---------------------------------------------------------------- draws

    @functools.cached_property
    def _draw_order(self) -> tuple[list[str], list[str]]:
        """The cards that win the deal in a draw (the rank the ruleset says deals: lowest or highest), and the rest."""
        from ..engine.setup import draw_key

        t = self.t
        keys = {ALL_CARDS[c].text: draw_key(t, c) for c in t.deck}
        first = min(keys.values())
        return [c for c in self.deck if keys[c] == first], [c for c in self.deck if keys[c] != first]

    def round(self, seats: list[str], winners: int = 1, avoid: Iterable[str] = ()) -> dict[str, str]:
        """A round of ``seats``, the first ``winners`` of them drawing the rank that deals and the others another
        (with no winner, any cards), none of the cards ``avoid`` holds: a later round draws no card again."""
        drawn = set(avoid)
        deals, others = ([c for c in cards if c not in drawn] for cards in self._draw_order)
        if winners > len(deals):
            raise CannotFill(f"the pack of {self.name} has one card of each rank: no two seats can tie in a draw")
        pool = others if winners else [*others, *deals]
        if len(seats) - winners > len(pool):
            raise CannotFill(f"the pack of {self.name} has too few cards for a round of {len(seats)} seats")
        return dict(zip(seats, [*deals[:winners], *pool[: len(seats) - winners]], strict=True))

    @functools.cached_property
    def settling(self) -> dict[str, str]:
        """One round that settles $dealer: it alone draws the rank that deals."""
        drawn = self.round(self.seats[self.dealer :] + self.seats[: self.dealer])
        return {s: drawn[s] for s in self.seats}

    def extra_draw(self) -> list[dict[str, str]]:
        undrawn = [c for c in self.deck if c not in self.settling.values()]
        return [{**self.settling, self.stranger("X"): (undrawn or self.deck)[0]}]

    @functools.cached_property
    def tie(self) -> dict[str, str]:
        """One round in which the first two seats tie for the deal."""
        return self.round(self.seats, winners=2)

    @functools.cached_property
    def redrawing(self) -> list[str]:
        """Who draws again after $draw.tie's round: every seat, or the two tied, as the ruleset says."""
        return list(self.seats) if self.t.redraw_all else self.seats[:2]

    def redraw_extra(self) -> list[dict[str, str]]:
        idle = [s for s in self.seats if s not in self.redrawing]
        return [self.tie, self.round([*self.redrawing, idle[0] if idle else self.stranger("X")], 0, self.tie.values())]

    # ---------------------------------------------------------------- names

    def other_case(self) -> str:
        taken = {*self.t.seat_ids, *self.t.side_ids}
        order = self.seats[self.dealer :] + self.seats[: self.dealer]
        found = next((s.swapcase() for s in order if s.swapcase() not in taken), None)
        if found is None:
            raise CannotFill(f"every seat of {self.name} has its name in the other case as a seat or side too")
        return found

    def version_parts(self) -> tuple[str, list[str]]:
        rid, _, version = self.name.partition("/")
        parts = version.split(".")
        if len(parts) != 3:
            raise CannotFill(f"{self.name} is not written id/MAJOR.MINOR.PATCH")
        return rid, parts

    def outside_pack(self) -> str:
        card = next((c.text for c in ALL_CARDS if self.t.strength[c.id] < 0), None)
        if card is None:
            raise CannotFill(f"the pack of {self.name} is the whole French pack: no card of that pack is outside it")
        return card


@dataclass(frozen=True)
class Placeholder:
    name: str
    what: str  # what it stands for, in one line: the README's table says the same
    make: Callable[[_Rules], Any]
    key: bool = False  # its value is a name (a string): it may stand as a key of a json line's object
    partial: bool = False  # some ruleset of the family has none: a case that uses it says why (cannot_apply)


def _deal_with(seat: int, hand: Callable[[_Rules], Any]) -> Callable[[_Rules], Any]:
    """$deal with one seat's hand (the first: 0, the last: -1) replaced by what ``hand`` makes."""
    return lambda r: {**r.deal, r.seats[seat]: hand(r)}


def _first(r: _Rules) -> list[str]:
    return list(r.deal[r.seats[0]])


def _setup(r: _Rules) -> dict[str, Any]:
    return {"dealer": r.seats[r.dealer], "deals": [r.deal]}


def _major_minor(r: _Rules) -> str:
    rid, parts = r.version_parts()
    return f"{rid}/{parts[0]}.{parts[1]}"


_P = Placeholder
_NAMES = (
    _P("$ruleset", "the ruleset's name, id/version (vitou/1.1.0, le-truc/1.1.0)", lambda r: r.name, key=True),
    _P("$ruleset.other_case", "the name in capitals (LE-TRUC/1.1.0)", lambda r: r.name.upper(), key=True),
    _P("$ruleset.id", "the id alone, without the version (le-truc)", lambda r: r.version_parts()[0], key=True),
    _P("$ruleset.major_minor", "the id and the version's first two numbers (le-truc/1.1)", _major_minor, key=True),
    _P("$ruleset.trailing_space", "the name and a space after it", lambda r: f"{r.name} ", key=True),
    _P(
        "$dealer",
        "the first dealer: the seat before the first in the ruleset's order (W, B)",
        lambda r: r.seats[r.dealer],
        key=True,
    ),
    _P(
        "$dealer.other_case", "a seat's name in the other case, which names no seat (w, b)", _Rules.other_case, key=True
    ),
    _P(
        "$leader",
        "the seat that leads the first trick when $dealer deals (N, A)",
        lambda r: r.seats[r.leader],
        key=True,
    ),
    _P("$lead_card", "the first card of $leader's hand in $deal", lambda r: r.deal[r.seats[r.leader]][0], key=True),
    _P("$lead_side", "$leader's side (NS, A)", lambda r: r.t.side_ids[r.t.side_of[r.leader]], key=True),
    _P("$side1", "the ruleset's first side (NS, A)", lambda r: r.t.side_ids[0], key=True),
    _P("$side2", "the ruleset's second side (EW, B)", lambda r: r.t.side_ids[1], key=True),
    _P("$not_a_seat", "a name that no seat and no side has (X)", lambda r: r.stranger("X"), key=True),
    _P("$not_a_side", "another name that no seat and no side has (XY)", lambda r: r.stranger("XY"), key=True),
    _P("$target", "the points that win the match (21, 12)", lambda r: r.t.target),
    _P("$target.below", "one point below the target, the most a side may have (20, 11)", lambda r: r.t.target - 1),
    _P("$target.above", "one point above the target (22, 13)", lambda r: r.t.target + 1),
)
_DEALS = (
    _P("$setup", 'a setup that can be used: {"dealer":$dealer,"deals":[$deal]}', _setup),
    _P("$deal", "a deal: each seat, in order, the ruleset's number of cards, in the pack's order", lambda r: r.deal),
    _P("$deal.extra_seat", "$deal, and $not_a_seat dealt a hand of cards no seat holds", _Rules.extra_hand),
    _P(
        "$deal.seat_left_out",
        "$deal without its last seat",
        lambda r: {s: h for s, h in r.deal.items() if s != r.seats[-1]},
    ),
    _P("$deal.seat_null", "$deal with the last seat's hand null", _deal_with(-1, lambda r: None)),
    _P(
        "$deal.hand_text",
        "$deal with the first seat's hand one string, its cards spaced",
        _deal_with(0, lambda r: " ".join(_first(r))),
    ),
    _P("$deal.hand_object", "$deal with the first seat's hand {}", _deal_with(0, lambda r: {})),
    _P("$deal.short_hand", "$deal with the first seat's hand one card short", _deal_with(0, lambda r: _first(r)[:-1])),
    _P(
        "$deal.long_hand",
        "$deal with the first seat's hand one card over, a card no seat holds",
        _deal_with(0, lambda r: [*_first(r), r.unheld()]),
    ),
    _P(
        "$deal.no_card",
        '$deal with the first seat\'s first card "1S", which names no card',
        lambda r: r.card_after("1S"),
    ),
    _P(
        "$deal.lower_case",
        "$deal with the first seat's first card in lower case (10s)",
        lambda r: r.card_after(_first(r)[0].lower()),
    ),
    _P("$deal.number_card", "$deal with the first seat's first card the number 10", lambda r: r.card_after(10)),
    _P("$deal.null_card", "$deal with the first seat's first card null", lambda r: r.card_after(None)),
    _P(
        "$deal.card_twice",
        "$deal with the first seat's last card the second seat's first",
        _deal_with(0, lambda r: [*_first(r)[:-1], r.deal[r.seats[1]][0]]),
    ),
    _P(
        "$deal.card_twice_in_hand",
        "$deal with the first seat's first card twice in its hand",
        _deal_with(0, lambda r: [*_first(r)[: max(1, r.t.cards_each - 1)], _first(r)[0]]),
    ),
    _P(
        "$deal.off_pack",
        "$deal with the first seat's first card one of the French pack that the ruleset's lacks (6S)",
        lambda r: r.card_after(r.outside_pack()),
        partial=True,
    ),
)
_DRAWS = (
    _P("$draw", "a draw of one round that settles $dealer: it alone draws the rank that deals", lambda r: [r.settling]),
    _P(
        "$draw.seat_left_out",
        "$draw's round without its last seat",
        lambda r: [{s: c for s, c in r.settling.items() if s != r.seats[-1]}],
    ),
    _P("$draw.extra_seat", "$draw's round, and $not_a_seat drawing too", _Rules.extra_draw),
    _P(
        "$draw.after_settled",
        "$draw's round, then a round of every seat",
        lambda r: [r.settling, r.round(r.seats, 0, r.settling.values())],
    ),
    _P(
        "$draw.card_twice",
        "$draw's round with the second seat drawing the first seat's card",
        lambda r: [{**r.settling, r.seats[1]: r.settling[r.seats[0]]}],
    ),
    _P(
        "$draw.no_card",
        '$draw\'s round with the last seat drawing "11S", which names no card',
        lambda r: [{**r.settling, r.seats[-1]: "11S"}],
    ),
    _P(
        "$draw.tie",
        "one round in which the first two seats tie for the deal, and no more",
        lambda r: [r.tie],
        partial=True,
    ),
    _P(
        "$draw.redraw_extra_seat",
        "$draw.tie, then a round of the seats that draw again and of one that does not",
        _Rules.redraw_extra,
        partial=True,
    ),
    _P(
        "$draw.redraw_seat_left_out",
        "$draw.tie, then a round of the seats that draw again, but the last",
        lambda r: [r.tie, r.round(r.redrawing[:-1], 0, r.tie.values())],
        partial=True,
    ),
)
VOCABULARY: tuple[Placeholder, ...] = (*_NAMES, *_DEALS, *_DRAWS)
BY_NAME = {p.name: p for p in VOCABULARY}


def values_for(name: str, rules: Ruleset | None) -> dict[str, Any]:
    """Each placeholder's value under the ruleset ``name`` (``rules``: its rules, or None), or the CannotFill why not.

    A shipped ruleset is loaded by its name when ``rules`` is not given; the names of $ruleset need no rules.
    """
    from ..engine.tables import tables_for

    if rules is None:
        from ..rules.errors import InputError, UnknownRuleset
        from ..rules.registry import load_ruleset

        try:
            rules = load_ruleset(name)
        except (UnknownRuleset, InputError, ValueError):
            rules = None
    made = _Rules(name, tables_for(rules) if rules is not None and rules.name == name else None)
    out: dict[str, Any] = {}
    for p in VOCABULARY:
        try:
            out[p.name] = p.make(made)
        except CannotFill as exc:
            out[p.name] = CannotFill(f"{p.name}: {exc.why}", p.partial and made._tables is not None)
    return out


__all__ = ["BY_NAME", "PATTERN", "VOCABULARY", "CannotFill", "Placeholder", "values_for"]
