"""The rules Truco Paulista brought, from the clauses' data: a turned-up card, face-down cards, conceding."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .cards import Rank, Suit
from .model import SeatSpec

Path = tuple[object, ...]
DataOf = Callable[[str], tuple[Any, Path]]  # rule -> (the data of the clause that sets it, where that data is)
Bad = Callable[[str, str, Path], None]  # records one located problem
Fields = dict[str, Any]  # one family's share of the Params fields


def family_fields(data_of: DataOf, bad: Bad, deck: Fields, table: Fields, dealing: Fields, tricks: int) -> Fields:
    # The rules Truco Paulista brought: a turned-up card and its manilhas, face-down cards, conceding the hand,
    # scores that stop at the target, and the hand both sides at the special score play at once.
    ranks, suits = deck["ranks"], deck["suits"]
    turn, turn_at = data_of("turn_up")
    if turn["circle"]:
        _check_turn_up(turn_at, bad, len(ranks) * len(suits), table["seats"], dealing["cards_each"])
    circle = tuple(Rank(r) for r in turn["circle"])
    manilha = tuple(Suit(s) for s in turn["suits_lowest_first"])
    if circle and sorted(r.value for r in circle) != sorted(r.value for r in ranks):
        bad(
            "TURN_UP_CIRCLE",
            f"the turn-up's circle {[r.value for r in circle]} must list exactly the pack's ranks "
            f"{[r.value for r in ranks]}",
            turn_at + ("circle",),
        )
    if circle and sorted(s.value for s in manilha) != sorted(s.suit.value for s in suits):
        bad(
            "TURN_UP_SUITS",
            f"the manilhas' suits {[s.value for s in manilha]} must list exactly the pack's suits "
            f"{[s.suit.value for s in suits]}",
            turn_at + ("suits_lowest_first",),
        )
    down, down_at = data_of("face_down")
    if down["from_trick"] > tricks:
        bad(
            "FACE_DOWN_TRICK",
            f"a hand has {tricks} tricks; a card cannot be played face down from trick {down['from_trick']}",
            down_at + ("from_trick",),
        )
    if down["from_trick"] and data_of("hand_stop")[0]["at"] != "end_of_trick":
        # A hand that stops mid-trick is judged from the cards still held, which a face-down card would hide.
        bad("FACE_DOWN_STOP", "a card played face down needs hands judged at the end of a trick", down_at)
    concede, concede_at = data_of("concede")
    if concede["by"] == "seat_to_act" and data_of("bid_answer")[0]["when"] != "before_any_card":
        # The seat due to act is one seat only where a raise is answered at once, before any card.
        bad("CONCEDE_ANSWER", "conceding the hand needs raises answered before any card (bid_answer)", concede_at)
    return {
        "turn_up_circle": circle,
        "manilha_suits": manilha,
        "face_down_from": down["from_trick"],
        "concede": concede["by"] == "seat_to_act",
        "scores_stop": data_of("target")[0].get("scores", "pass") == "stop",
        "tt_question": data_of("twenty_twenty")[0].get("question", "asked") == "asked",
    }


def _check_turn_up(at: Path, bad: Bad, pack: int, seats: tuple[SeatSpec, ...], each: int) -> None:
    """A card turned up after the hands needs one card more than they take, and a deal's key of its own."""
    if each * len(seats) + 1 > pack:
        bad(
            "DEAL_TOO_LARGE",
            f"{each} cards to each of {len(seats)} players and one turned up need more than the {pack} cards of the pack",
            at,
        )
    for seat in seats:
        if seat.id == "turn_up":  # a deal names its turn-up under that key (engine/setup.py TURN_UP)
            bad("SEAT_TURN_UP", "no seat may be named 'turn_up' where a card is turned up: a deal names it so", at)
