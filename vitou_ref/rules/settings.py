"""From the clauses' data to the interpreter's parameters, rule family by rule family, with the checks each needs."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from .bidchecks import check_answer, check_ladder
from .cards import Rank, Suit
from .conditions import VITOU_ACTS
from .model import Gesture, LadderLevel, Params, ResolutionRow, SeatSpec, SideSpec, SuitSpec
from .paulista import family_fields
from .problems import Problem
from .resolution import check_resolution

Path = tuple[object, ...]
Locate = Callable[[str, str, Path], Problem]  # (code, message, path) -> located Problem
DataOf = Callable[[str], tuple[Any, Path]]  # rule -> (the data of the clause that sets it, where that data is)
Bad = Callable[[str, str, Path], None]  # records one located problem
Fields = dict[str, Any]  # one family's share of the Params fields

RULES = (
    "deck",
    "rank_order",
    "seats",
    "direction",
    "draw",
    "redraw",
    "deal",
    "dealer_rotation",
    "first_lead",
    "trick_compare",
    "trick_tie",
    "resolution",
    "ladder",
    "jumps",
    "opening",
    "last_position",
    "raise_side",
    "later_raise",
    "refusal",
    "target",
    "twenty",
    "twenty_bids",
    "twenty_decline",
    "twenty_play",
    "twenty_twenty",
    "twenty_twenty_bids",
    "twenty_twenty_signals",
    "twenty_twenty_ask",
    "twenty_twenty_play",
    "twenty_twenty_all_pass",
    "twenty_twenty_all_tied",
    "signals",
    "signals_allowed",
)
"""The rules every ruleset binds, each to one clause (RULE_MISSING otherwise)."""

# Rules a ruleset may leave unbound, each with the data that stands in for a
# clause then: the behaviour of the rulesets written before the rule existed,
# which keep their meaning (and their content hash) unchanged.
OPTIONAL_RULES: Mapping[str, Any] = MappingProxyType(
    {
        "bid_timing": MappingProxyType({"by": "seat_in_turn"}),
        # When a hand stops: judged at the end of each trick (the base), or as soon as the cards still to come
        # to the trick in play can no longer change the result (clarification 3 of Vitou 1.1.0, the other reading).
        # cut_short_answer matters only to a hand that stops mid-trick: a bid awaiting its answer then.
        "hand_stop": MappingProxyType({"at": "end_of_trick", "cut_short_answer": "stands_accepted"}),
        # When and how a bid is answered: Vitou's way, after the bidder's card and by playing; a raise
        # given as the answer accepts the bid it answers and proposes the next level, in either way.
        "bid_answer": MappingProxyType(
            {"when": "after_bidders_card", "accept": "by_playing", "raise_again": "accepts_and_proposes"}
        ),
        # Truco Paulista's: no card turned up (every card's strength is its rank's), and no card face down.
        "turn_up": MappingProxyType({"circle": (), "suits_lowest_first": ()}),
        "face_down": MappingProxyType({"from_trick": 0}),
    }
)

# Rules that exist only in a game with their acts, each with those acts and the data that stands in for it
# in a game without them: a game with no decision at twenty, no 20-20 question or no gestures (Le Truc) need
# not speak of them, and they are off. A game with the acts must bind the rule (RULE_MISSING).
_DECIDE = frozenset({"decide_play", "decide_decline"})
ACT_RULES: Mapping[str, tuple[frozenset[str], Any]] = MappingProxyType(
    {
        "twenty": (_DECIDE, MappingProxyType({"enabled": False, "at": 0})),
        "twenty_twenty": (frozenset({"call_pass", "call_play"}), MappingProxyType({"enabled": False})),
        "signals": (frozenset({"signal"}), MappingProxyType({"gestures": ()})),
        "signals_allowed": (frozenset({"signal"}), MappingProxyType({"allowed": "never"})),
        "concede": (frozenset({"concede"}), MappingProxyType({"by": "nobody"})),
    }
)

# Every rule a clause may bind, in the order the docs list them: the ones every ruleset binds, the optional ones,
# then the ones only a game with their acts has that are neither.
BINDABLE: tuple[str, ...] = (*RULES, *OPTIONAL_RULES, *(r for r in ACT_RULES if r not in RULES))

# The rules of the 20-20 question, which a game without its acts (call_pass, call_play) need not bind even where
# both sides can share the special score: such a game plays that hand at once (twenty_twenty's question: none),
# and a game without signals has none to forbid.
QUESTION_RULES: Mapping[str, tuple[frozenset[str], Any]] = MappingProxyType(
    {
        "twenty_twenty_ask": (frozenset({"call_pass", "call_play"}), MappingProxyType({"first": "next_to_dealer"})),
        "twenty_twenty_all_pass": (frozenset({"call_pass", "call_play"}), MappingProxyType({"dealer": "passes"})),
        "twenty_twenty_all_tied": (frozenset({"call_pass", "call_play"}), MappingProxyType({"dealer": "passes"})),
        "twenty_twenty_signals": (frozenset({"signal"}), MappingProxyType({"signals": "forbidden"})),
    }
)

# The rules of an ending a ruleset can switch off, each with the rule whose
# ``enabled: false`` switches it off and the data that stands in for its
# clause once removed: a variant without the ending may drop the clauses that
# describe it. What stands in is never read, since the ending never starts.
ENDING_RULES: Mapping[str, tuple[str, Any]] = MappingProxyType(
    {
        "twenty_bids": ("twenty", {"bids": "closed"}),
        "twenty_decline": ("twenty", {"opponents": 0}),
        "twenty_play": ("twenty", {"win": 0, "win_takes_match": False, "lose": 0}),
        "twenty_twenty_bids": ("twenty_twenty", {"bids": "closed"}),
        "twenty_twenty_signals": ("twenty_twenty", {"signals": "forbidden"}),
        "twenty_twenty_ask": ("twenty_twenty", {"first": "next_to_dealer"}),
        "twenty_twenty_play": ("twenty_twenty", {"win": 0, "leader": "next_to_dealer"}),
        "twenty_twenty_all_pass": ("twenty_twenty", {"dealer": "passes"}),
        "twenty_twenty_all_tied": ("twenty_twenty", {"dealer": "passes"}),
    }
)


def stand_in(rule: str, bound: Callable[[str], Any], acts: frozenset[str] = VITOU_ACTS) -> Any:
    """The data read for a rule no clause sets (``bound``: rule -> its clause's data, or None), None if one must.

    ``acts`` are the game's acts (conditions.game_acts).
    """
    if rule in OPTIONAL_RULES:
        return OPTIONAL_RULES[rule]
    if rule in ACT_RULES and not ACT_RULES[rule][0] & acts:
        return ACT_RULES[rule][1]
    if rule in QUESTION_RULES and not QUESTION_RULES[rule][0] & acts:
        return QUESTION_RULES[rule][1]
    if rule in ENDING_RULES:
        switch, off = ENDING_RULES[rule]
        data = bound(switch)
        if data is None:
            data = stand_in(switch, bound, acts)
        if isinstance(data, Mapping) and data.get("enabled") is False:
            return MappingProxyType(off)
    return None


def params_from(data_of: DataOf, locate: Locate, problems: list[Problem], strict: bool) -> Params | None:
    """The interpreter's parameters, or None with every problem found appended to ``problems``.

    ``strict=False`` skips the ladder's consistency checks (used only to build deliberate mutants).
    """

    def bad(code: str, message: str, path: Path) -> None:
        problems.append(locate(code, message, path))

    # The families run in this order so that problems are reported in it, and
    # each one's figures are there for the checks of those after it.
    deck = _deck(data_of, bad)
    table = _table(data_of, bad, problems)
    dealing = _dealing(data_of, bad, len(deck["ranks"]) * len(deck["suits"]), len(table["seats"]))
    tricks = _tricks(data_of, bad, dealing["cards_each"])
    bids = _bids(data_of, bad, strict, tricks["tricks"])
    endings = _endings(data_of, bad)
    signals = _signals(data_of, bad)
    family = family_fields(data_of, bad, deck, table, dealing, tricks["tricks"])
    if problems:
        return None
    return Params(**deck, **table, **dealing, **tricks, **bids, **endings, **signals, **family)


def _deck(data_of: DataOf, bad: Bad) -> Fields:
    deck = data_of("deck")[0]
    ranks = tuple(Rank(r) for r in deck["ranks"])
    suits = tuple(SuitSpec(Suit(s["id"]), s["name"], s["symbol"]) for s in deck["suits"])
    order_data, order_at = data_of("rank_order")
    order = tuple(Rank(r) for r in order_data["highest_first"])
    if sorted(r.value for r in order) != sorted(r.value for r in ranks):
        bad(
            "RANK_ORDER_MISMATCH",
            f"the rank order {[r.value for r in order]} must list exactly the pack's ranks {[r.value for r in ranks]}",
            order_at + ("highest_first",),
        )
    return {"suits": suits, "ranks": ranks, "rank_order": order}


def _table(data_of: DataOf, bad: Bad, problems: list[Problem]) -> Fields:
    seats_data, seats_at = data_of("seats")
    seats = tuple(SeatSpec(s["id"], s["name"]) for s in seats_data["seats"])
    sides = tuple(SideSpec(s["id"], s["name"], tuple(s["seats"])) for s in seats_data["sides"])
    seat_ids = [s.id for s in seats]
    for i, sid in enumerate(seat_ids):
        if seat_ids.index(sid) != i:
            bad("SEAT_DUPLICATE", f"seat {sid!r} is listed twice", seats_at + ("seats", i, "id"))
    side_ids = [s.id for s in sides]
    for i, sid in enumerate(side_ids):
        if side_ids.index(sid) != i:
            bad("SIDE_DUPLICATE", f"side {sid!r} is listed twice", seats_at + ("sides", i, "id"))
    owner: dict[str, str] = {}
    for i, side in enumerate(sides):
        for j, seat in enumerate(side.seats):
            if seat not in seat_ids:
                bad(
                    "SIDES_PARTITION",
                    f"side {side.id!r} names seat {seat!r}, which is not at the table",
                    seats_at + ("sides", i, "seats", j),
                )
            elif seat in owner:
                bad(
                    "SIDES_PARTITION",
                    f"seat {seat!r} belongs to both {owner[seat]!r} and {side.id!r}",
                    seats_at + ("sides", i, "seats", j),
                )
            else:
                owner[seat] = side.id
    for seat in seat_ids:
        if seat not in owner:
            bad("SIDES_PARTITION", f"seat {seat!r} belongs to no side", seats_at + ("sides",))
    if len(sides) != 2:
        bad("SIDES_COUNT", f"the game is played by exactly two sides, not {len(sides)}", seats_at + ("sides",))
    elif not problems:
        # Seat order is judged only on a sound table: with any problem so far
        # (the pack's included), its verdict would be noise.
        sizes = {len(s.seats) for s in sides}
        if len(sizes) != 1:
            bad("SEATS_ORDER", "the two sides must have as many seats each", seats_at + ("sides",))
        for i, seat in enumerate(seat_ids):
            nxt = seat_ids[(i + 1) % len(seat_ids)]
            if owner.get(seat) == owner.get(nxt):
                bad(
                    "SEATS_ORDER",
                    f"partners sit side by side: {seat!r} and the next seat {nxt!r} are both in {owner.get(seat)!r}; partnerships and seat order disagree",
                    seats_at + ("seats", i),
                )
                break
    return {"seats": seats, "sides": sides, "next_is": data_of("direction")[0]["next"]}


def _dealing(data_of: DataOf, bad: Bad, deck_size: int, players: int) -> Fields:
    deal, deal_at = data_of("deal")
    if deal["cards_each"] * players > deck_size:
        bad(
            "DEAL_TOO_LARGE",
            f"{deal['cards_each']} cards to each of {players} players needs more than the {deck_size} cards of the pack",
            deal_at + ("cards_each",),
        )
    return {
        "draw_dealer": data_of("draw")[0]["dealer"],
        "redraw_who": data_of("redraw")[0]["who"],
        "cards_each": deal["cards_each"],
        "deal_first": deal["first"],
        "dealer_passes": data_of("dealer_rotation")[0]["passes"],
        "first_leader": data_of("first_lead")[0]["leader"],
    }


def _tricks(data_of: DataOf, bad: Bad, cards_each: int) -> Fields:
    res, res_at = data_of("resolution")
    rows = tuple(ResolutionRow(r["id"], tuple(r["pattern"]), r["winner"], r["text"]) for r in res["rows"])
    if res["tricks"] > cards_each:
        bad(
            "RESOLUTION_TRICKS",
            f"a hand of {cards_each} cards cannot have {res['tricks']} tricks",
            res_at + ("tricks",),
        )
    check_resolution(rows, res["tricks"], res_at, bad)
    tie = data_of("trick_tie")[0]
    return {
        "tie_same_side": tie["same_side"],
        "tie_next_leader": tie["next_leader"],
        "tricks": res["tricks"],
        "resolution": rows,
        "hand_stop": data_of("hand_stop")[0]["at"],
        # Absent, the reading of vitou-mid-trick/1.0.0 (clarification 302): the cut-short bid stands accepted.
        "stop_answer": data_of("hand_stop")[0].get("cut_short_answer", "stands_accepted"),
    }


def _bids(data_of: DataOf, bad: Bad, strict: bool, tricks: int) -> Fields:
    lad, lad_at = data_of("ladder")
    ladder = (LadderLevel(None, lad["base"], None),) + tuple(
        LadderLevel(lv["bid"], lv["value"], lv["refused"]) for lv in lad["levels"]
    )
    check_ladder(ladder, lad_at, bad, strict)
    opening, opening_at = data_of("opening")
    tricks_open = None if opening["tricks"] == "any" else frozenset(opening["tricks"])
    if tricks_open is not None and max(tricks_open) > tricks:
        bad(
            "OPENING_TRICKS",
            f"a hand has {tricks} tricks; opening cannot be allowed in trick {max(tricks_open)}",
            opening_at + ("tricks",),
        )
    refusal = data_of("refusal")[0]
    answer, answer_at = data_of("bid_answer")
    check_answer(answer, answer_at, refusal, data_of("bid_timing")[0], bad)
    return {
        "ladder": ladder,
        "jumps_allowed": data_of("jumps")[0]["allowed"],
        "opening_tricks": tricks_open,
        "last_position_bids": data_of("last_position")[0]["bids"] == "allowed",
        "raise_by": data_of("raise_side")[0]["by"],
        "later_raise": data_of("later_raise")[0]["allowed"],
        "refusal_by": refusal["by"],
        "refusal_pays": refusal["pays"],
        "bid_timing": data_of("bid_timing")[0]["by"],
        "answer_when": answer["when"],
        "answer_accept": answer["accept"],
    }


def _endings(data_of: DataOf, bad: Bad) -> Fields:
    target = data_of("target")[0]["points"]
    twenty, twenty_at = data_of("twenty")
    if twenty["enabled"] and twenty["at"] >= target:
        bad(
            "TWENTY_AT_TARGET",
            f"the twenty-point ending at {twenty['at']} must come below the target {target}",
            twenty_at + ("at",),
        )
    tp = data_of("twenty_play")[0]
    ttp = data_of("twenty_twenty_play")[0]
    return {
        "target": target,
        "twenty_enabled": twenty["enabled"],
        "twenty_at": twenty["at"],
        "twenty_bids_closed": data_of("twenty_bids")[0]["bids"] == "closed",
        "twenty_decline": data_of("twenty_decline")[0]["opponents"],
        "twenty_win": tp["win"],
        "twenty_win_takes_match": tp["win_takes_match"],
        "twenty_lose": tp["lose"],
        "tt_enabled": data_of("twenty_twenty")[0]["enabled"],
        "tt_bids_closed": data_of("twenty_twenty_bids")[0]["bids"] == "closed",
        "tt_signals_forbidden": data_of("twenty_twenty_signals")[0]["signals"] == "forbidden",
        "tt_first": data_of("twenty_twenty_ask")[0]["first"],
        "tt_win": ttp["win"],
        "tt_leader": ttp["leader"],
        "tt_all_pass_dealer": data_of("twenty_twenty_all_pass")[0]["dealer"],
        "tt_all_tied_dealer": data_of("twenty_twenty_all_tied")[0]["dealer"],
    }


def _signals(data_of: DataOf, bad: Bad) -> Fields:
    sig, sig_at = data_of("signals")
    gestures = tuple(Gesture(g["id"], g["gesture"], g["means"]) for g in sig["gestures"])
    gids = [g.id for g in gestures]
    for i, gid in enumerate(gids):
        if gids.index(gid) != i:
            bad("GESTURE_DUPLICATE", f"gesture {gid!r} is listed twice", sig_at + ("gestures", i, "id"))
    return {"gestures": gestures, "signals_allowed": data_of("signals_allowed")[0]["allowed"] == "always"}
