"""A readable account of a match: deals, bids and answers, tricks, results and the running score."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from ..engine.actions import (
    Accept,
    Action,
    CallPlay,
    Concede,
    DeclineHand,
    Pass,
    Play,
    PlayHand,
    Raise,
    Refuse,
    Signal,
)
from ..engine.events import Event, HandEvent, MatchEvent, TrickEvent
from ..engine.match import Match
from ..engine.randomplay import play_out
from ..engine.tables import Tables


def _cards(t: Tables, ids: Any) -> str:
    return " ".join(str(t.card(c)) for c in ids)


def _seat(t: Tables, seat: str) -> str:
    return f"{t.seat_names[t.seat_index[seat]]} ({seat})"


def describe_action(t: Tables, a: Action) -> str:
    if isinstance(a, Play):
        return f"{_seat(t, a.seat)} plays {a.card}{' face down' if a.down else ''}"
    if isinstance(a, Concede):
        return f"{_seat(t, a.seat)} concedes the hand"
    if isinstance(a, Raise):
        first = t.bid_tokens[1]
        return f"{_seat(t, a.seat)} {'opens at' if a.to == first else 'raises to'} {a.to}"
    if isinstance(a, Accept):
        return f"{_seat(t, a.seat)} accepts"
    if isinstance(a, Refuse):
        return f"{_seat(t, a.seat)} refuses"
    if isinstance(a, PlayHand):
        return f"{a.side} decide to play the hand"
    if isinstance(a, DeclineHand):
        return f"{a.side} decline the hand"
    if isinstance(a, Pass):
        return f"{_seat(t, a.seat)} passes"
    if isinstance(a, CallPlay):
        return f"{_seat(t, a.seat)} says play"
    if isinstance(a, Signal):
        return f"{_seat(t, a.seat)} signals {a.signal}"
    return str(a)  # pragma: no cover


def describe_event(t: Tables, e: Event) -> str:
    if isinstance(e, TrickEvent):
        return f"trick {e.trick}: " + (f"won by {_seat(t, e.winner)}" if e.winner else "tied")
    if isinstance(e, HandEvent):
        score = ", ".join(f"{s} {p}" for s, p in e.score)
        if e.winner is None:
            what = {
                "tied": "all tricks tied, nobody scores",
                "void": "the tricks give no winner, nobody scores",
                "passed": "everybody passed, nobody scores",
            }.get(e.reason, "nobody scores")
        elif isinstance(e.points, str):
            what = f"{e.winner} win the hand at {e.points} and with it the match"
        else:
            how = {"tricks": "on tricks", "refusal": "by refusal", "decline": "by decline", "conceded": "conceded"}.get(
                e.reason, e.reason
            )
            what = f"{e.winner} score {e.points} {how}"
        return f"hand over: {what}; score {score}"
    if isinstance(e, MatchEvent):
        return f"{e.winner} win the match"
    return str(e)  # pragma: no cover


def account(match: Match, rng: random.Random) -> Iterator[str]:
    """Play ``match`` out at random and yield the lines of its account."""
    t = match.tables
    if match.draw_rounds:
        for i, rnd in enumerate(match.draw_rounds, 1):
            drawn = ", ".join(f"{s} {t.card(c)}" for s, c in rnd.items())
            yield f"draw round {i}: {drawn}"
    yield f"{_seat(t, t.seat_ids[match.first_dealer])} deals first"
    yield from _deal_lines(match)
    for action, events in play_out(match, rng):
        yield "  " + describe_action(t, action)
        for e in events:
            yield "  " + describe_event(t, e)
            if isinstance(e, HandEvent) and not match.is_over and match.phase_name != "no_deal":
                yield from _deal_lines(match)
    yield f"final score: {', '.join(f'{s} {p}' for s, p in match.score.items())}; winner: {match.winner}"


def _deal_lines(match: Match) -> Iterator[str]:
    t = match.tables
    yield ""
    at = t.twenty_at
    mode = {"twenty": f", {match.deciding_side} at {at}", "twenty_twenty": f", {at}-{at}"}.get(match.mode_name, "")
    yield f"hand {match.hand_number}: dealer {_seat(t, match.dealer)}{mode}"
    for i, seat in enumerate(t.seat_ids):
        yield f"  {seat}: {_cards(t, match.dealt[i])}"
    if match.turn_up is not None:  # the card turned up for the hand, whose next rank makes the manilhas
        yield f"  turn-up: {match.turn_up}"
