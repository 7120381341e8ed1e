"""Engines that read a setup loosely, one way per mode: each plays a setup the protocol says cannot be used.

Usage: python loose_setups.py MODE      (python loose_setups.py --list: the modes)
It answers like the reference adapter, except that MODE reads the setup of a run as a sloppy reader would: where
that reading finds a setup it can play, the engine plays it instead of answering errored. Each mode is a
mistake an engine could plausibly make; tests/test_unusable_setups.py checks that the cases of the setups
that cannot be used catch each one, under Vitou and under Le Truc.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from vitou_ref.adapter import build_server
from vitou_ref.engine import match as match_module
from vitou_ref.engine.tables import Tables
from vitou_ref.protocol.server import Server
from vitou_ref.rules.cards import Card

Setup = dict[str, Any]

MODES = {
    "none": "no mistake: the reference itself, through the same loop",
    "hand-iterable": "a hand is any collection of cards: an object's keys are its cards",
    "deal-twice": "a card dealt twice in one deal is not noticed",
    "draw-twice": "a card drawn twice in one round of the draw is not noticed",
    "no-target": "a starting score is not held below the target",
    "fill-missing": "a seat a deal leaves out, or gives null, is dealt from the cards the deal leaves",
    "unknown-keys": "a key of a deal, a draw round or a score that names no seat or side is ignored",
    "substring-seats": 'a name is looked up in the names joined ("NESW"): "" passes, and a dealer "" is the first seat',
    "dealer-loose": "a dealer is read leniently: a list as its first item, a name in any case, no seat as the first",
    "dealer-and-draw": "a setup with both a dealer and a draw is played with the dealer",
    "first-seat-deals": "no dealer (missing or null) and no draw (missing, null or empty): the first seat deals",
    "deals-loose": "deals missing are no deals, and deals that are an object are its values",
    "positional": "a deal, a draw round or a score that is an array is read in the order of the seats or sides",
    "cards-loose": "a card is read in any case, and a card of the French pack outside the ruleset's is dealt as another",
    "draw-seats-loose": "a round's seats are not checked: the seats it names draw, and its one lowest card settles it",
    "score-loose": 'points are read as numbers: true is 1, "3" is 3',
}


def _deals(setup: Setup) -> list[Any]:
    deals = setup.get("deals")
    return deals if isinstance(deals, list) else []


def _rounds(setup: Setup) -> list[Any]:
    draw = setup.get("draw")
    return draw if isinstance(draw, list) else []


def _card(t: Tables, text: Any) -> Card | None:
    """The card ``text`` names in the ruleset's pack, or None."""
    try:
        card = Card.parse(text)
    except (ValueError, TypeError, AttributeError):
        return None
    return card if t.strength[card.id] >= 0 else None


def _pack(t: Tables) -> list[str]:
    return [str(t.card(c)) for c in t.deck]


def _another(t: Tables, like: Any, taken: set[str]) -> str:
    """A card of the pack not in ``taken``, of the rank of ``like`` when there is one: the draw reads ranks only."""
    card = _card(t, like)
    spare = [c for c in _pack(t) if c not in taken]
    same = [c for c in spare if card is not None and _card(t, c) is not None and c[:-1] == str(card)[:-1]]
    return (same or spare)[0]


def _without_twice(t: Tables, cards: list[Any], taken: set[str]) -> list[Any]:
    seen: set[str] = set()
    out = []
    for value in cards:
        card = _another(t, value, taken | seen) if isinstance(value, str) and value in seen else value
        if isinstance(card, str):
            seen.add(card)
        out.append(card)
    return out


def hand_iterable(t: Tables, setup: Setup) -> Setup:
    for deal in _deals(setup):
        if isinstance(deal, dict):
            for seat, hand in deal.items():
                if isinstance(hand, dict):
                    deal[seat] = list(hand)
    return setup


def deal_twice(t: Tables, setup: Setup) -> Setup:
    for deal in _deals(setup):
        if not isinstance(deal, dict) or not all(isinstance(h, list) for h in deal.values()):
            continue
        seats = list(deal)
        flat = [c for seat in seats for c in deal[seat]]
        taken = {c for c in flat if isinstance(c, str)}
        flat = _without_twice(t, flat, taken)
        for seat in seats:
            n = len(deal[seat])
            deal[seat], flat = flat[:n], flat[n:]
    return setup


def draw_twice(t: Tables, setup: Setup) -> Setup:
    for rnd in _rounds(setup):
        if isinstance(rnd, dict):
            seats = list(rnd)
            taken = {c for c in rnd.values() if isinstance(c, str)}
            rnd.update(zip(seats, _without_twice(t, [rnd[s] for s in seats], taken)))
    return setup


def fill_missing(t: Tables, setup: Setup) -> Setup:
    for deal in _deals(setup):
        if isinstance(deal, dict):
            taken = {c for h in deal.values() if isinstance(h, list) for c in h if isinstance(c, str)}
            spare = [c for c in _pack(t) if c not in taken]
            for seat in t.seat_ids:
                if deal.get(seat) is None:
                    deal[seat], spare = spare[: t.cards_each], spare[t.cards_each :]
    return setup


def unknown_keys(t: Tables, setup: Setup, known: Callable[[Tables, Any], bool] | None = None) -> Setup:
    ignored = known or (lambda t, k: True)  # which names that are no seat or side the reader lets through
    for mapping in [*_deals(setup), *_rounds(setup)]:
        if isinstance(mapping, dict):
            for key in [k for k in mapping if k not in t.seat_index and ignored(t, k)]:
                del mapping[key]
    score = setup.get("score")
    if isinstance(score, dict):
        for key in [k for k in score if k not in t.side_index and ignored(t, k)]:
            del score[key]
    return setup


def substring_seats(t: Tables, setup: Setup) -> Setup:
    dealer = setup.get("dealer")
    if isinstance(dealer, str) and dealer not in t.seat_index and dealer in "".join(t.seat_ids):
        setup["dealer"] = t.seat_ids[0]  # "NESW".index("") is 0
    return unknown_keys(t, setup, lambda t, k: isinstance(k, str) and k in "".join(t.seat_ids + t.side_ids))


def dealer_loose(t: Tables, setup: Setup) -> Setup:
    dealer = setup.get("dealer")
    if isinstance(dealer, list) and dealer:
        dealer = dealer[0]
    if isinstance(dealer, str):
        by_case = {s.lower(): s for s in t.seat_ids}
        setup["dealer"] = by_case.get(dealer.lower(), t.seat_ids[0])
    return setup


def dealer_and_draw(t: Tables, setup: Setup) -> Setup:
    if "dealer" in setup and "draw" in setup:
        del setup["draw"]
    return setup


def first_seat_deals(t: Tables, setup: Setup) -> Setup:
    if setup.get("dealer") is None and not setup.get("draw"):
        setup.pop("draw", None)
        setup["dealer"] = t.seat_ids[0]
    return setup


def deals_loose(t: Tables, setup: Setup) -> Setup:
    deals = setup.get("deals")
    if "deals" not in setup:
        setup["deals"] = []
    elif isinstance(deals, dict):
        setup["deals"] = list(deals.values())
    return setup


def positional(t: Tables, setup: Setup) -> Setup:
    if isinstance(setup.get("deals"), list):
        setup["deals"] = [dict(zip(t.seat_ids, d)) if isinstance(d, list) else d for d in setup["deals"]]
    if isinstance(setup.get("draw"), list):
        setup["draw"] = [dict(zip(t.seat_ids, r)) if isinstance(r, list) else r for r in setup["draw"]]
    if isinstance(setup.get("score"), list):
        setup["score"] = dict(zip(t.side_ids, setup["score"]))
    return setup


def cards_loose(t: Tables, setup: Setup) -> Setup:
    for deal in _deals(setup):
        if isinstance(deal, dict) and all(isinstance(h, list) for h in deal.values()):
            taken = {c for h in deal.values() for c in h if isinstance(c, str)}
            for seat, hand in deal.items():
                deal[seat] = [_loose_card(t, c, taken) for c in hand]
    for rnd in _rounds(setup):
        if isinstance(rnd, dict):
            taken = {c for c in rnd.values() if isinstance(c, str)}
            for seat, value in rnd.items():
                rnd[seat] = _loose_card(t, value, taken)
    return setup


def _loose_card(t: Tables, value: Any, taken: set[str]) -> Any:
    if not isinstance(value, str) or _card(t, value) is not None:
        return value
    if _card(t, value.upper()) is not None:
        return value.upper()
    try:
        Card.parse(value.upper())
    except ValueError:
        return value  # no card of any pack: not this mistake
    card = _another(t, None, taken)
    taken.add(card)
    return card


def draw_seats_loose(t: Tables, setup: Setup) -> Setup:
    dealer = None
    for rnd in _rounds(setup):
        if not isinstance(rnd, dict):
            return setup
        cards = {s: _card(t, c) for s, c in rnd.items() if s in t.seat_index}
        if not cards or None in cards.values():
            return setup
        strengths = {s: t.strength[c.id] for s, c in cards.items() if c is not None}
        low = min(strengths.values()) if t.draw_lowest else max(strengths.values())
        tied = [s for s, v in strengths.items() if v == low]
        if len(tied) == 1:
            dealer = tied[0]
            break
    if dealer is not None:
        del setup["draw"]
        setup["dealer"] = dealer
    return setup


def score_loose(t: Tables, setup: Setup) -> Setup:
    score = setup.get("score")
    if isinstance(score, dict):
        for side, points in score.items():
            if isinstance(points, bool) or (isinstance(points, str) and points.strip().isdigit()):
                score[side] = int(points)
    return setup


def no_target() -> None:
    read = match_module.read_score  # type: ignore[attr-defined]

    def patched(t: Tables, score: Any, path: str = "score") -> list[int]:
        target = t.target
        t.target = 10**9  # read as the reference reads it, with no target to stay below
        try:
            return read(t, score, path)
        finally:
            t.target = target

    match_module.read_score = patched  # type: ignore[attr-defined]


REWRITE: dict[str, Callable[[Tables, Setup], Setup]] = {
    "none": lambda t, setup: setup,
    "hand-iterable": hand_iterable,
    "deal-twice": deal_twice,
    "draw-twice": draw_twice,
    "fill-missing": fill_missing,
    "unknown-keys": unknown_keys,
    "substring-seats": substring_seats,
    "dealer-loose": dealer_loose,
    "dealer-and-draw": dealer_and_draw,
    "first-seat-deals": first_seat_deals,
    "deals-loose": deals_loose,
    "positional": positional,
    "cards-loose": cards_loose,
    "draw-seats-loose": draw_seats_loose,
    "score-loose": score_loose,
}


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "--list":
        print("\n".join(f"{name:18} {what}" for name, what in MODES.items()))
        return 0
    if mode not in MODES:
        print(f"loose_setups.py: no mode {mode!r} (modes: {', '.join(MODES)})", file=sys.stderr)
        return 2
    server = build_server()
    if mode == "no-target":
        no_target()
    else:
        rewrite, run = REWRITE[mode], Server._run

        def loose_run(self: Server, req: dict[str, Any], seq: int | None) -> dict[str, Any]:
            name = req.get("ruleset")
            t = self.tables.get(name) if isinstance(name, str) else None
            if t is not None and isinstance(req.get("setup"), dict):
                req = {**req, "setup": rewrite(t, req["setup"])}
            return run(self, req, seq)

        Server._run = loose_run  # type: ignore[method-assign]
    return server.serve(sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    raise SystemExit(main())
