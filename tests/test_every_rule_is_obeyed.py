"""Every rule the interpreter reads, its data changed by a profile, changes play: no rule is words only.

The altered copies of tests/test_data_driven.py show a few rules obeyed;
here each rule of RULES gets a profile of vitou/1.1.0 that rewrites the data
of the clause binding it (same id, same text), and a situation where the
reference's answer under that profile differs from its answer under the
base. A rule whose data change cannot show in play says why, in NOT_SHOWN.

This is the other half of spec check's WORDING_ONLY (a clause no rule binds
changes no play): every clause a rule binds does. It held before that check
existed too; it keeps holding as rules are added, since a new rule fails
test_every_rule_has_a_scenario_or_a_reason until it gets a scenario here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from helpers import acts, deal, errors, events

from vitou_ref import load_rules_text, load_ruleset
from vitou_ref.engine.tables import tables_for
from vitou_ref.protocol.server import run_case
from vitou_ref.rules.model import Ruleset, thaw
from vitou_ref.rules.settings import RULES

BASE = "vitou/1.1.0"
D = "N: 10S 7S QC | E: 7H 10H 9H | S: 8H JS 9S | W: 8D 8C KD"
NS_WIN = "N: 10S 9S QC | E: 7H 8C 10H | S: 8H JS 9H | W: 7D KD AC"  # N 10S then N 9S: NS take two tricks
NS_WIN_PLAY = "N 10S, E 7H, S 8H, W 7D, N 9S, E 8C, S JS, W KD"
ALL_TIED = "N: 10S 9S AS | E: 10H 9H AH | S: 7D 8D 7C | W: 8C 7H 8H"  # each trick's top ranks are N's and E's
ALL_TIED_PLAY = "N 10S, E 10H, S 7D, W 8C, N 9S, E 9H, S 8D, W 7H, N AS, E AH, S 7C, W 8H"
AT_TWENTY = {"NS": 20, "EW": 5}
AT_TWENTY_TWENTY = {"NS": 20, "EW": 20}

# Rules whose data no profile can change in a way play shows, and why.
NOT_SHOWN = {
    # The schema allows one value, "rank": the clause states the comparison, it offers no choice.
    "trick_compare": "the only value the schema allows is 'rank'",
}


def altered(rule: str, change: Callable[[dict[str, Any]], None]) -> Ruleset:
    """A profile of BASE replacing the clause that binds ``rule`` by itself with its data changed by ``change``."""
    clause = load_ruleset(BASE).clause_for_rule(rule)
    data = thaw(clause.data)
    change(data)
    new = {"id": clause.id, "section": clause.section, "title": clause.title, "text": clause.text}
    doc = {
        "format": 1,
        "profile": {"id": "altered", "version": "1.0.0", "title": "One rule altered", "extends": BASE},
        "changelog": [{"version": "1.0.0", "date": "2026-01-01", "changes": [f"{rule} altered"]}],
        "operations": [{"replace": clause.id, "with": {**new, "rule": rule, "data": data}}],
    }
    return load_rules_text(json.dumps(doc), "altered.yaml")


def setting(**values: Any) -> Callable[[dict[str, Any]], None]:
    return lambda data: data.update(values)


def play(rules: Ruleset, actions: str, deals: tuple[str, ...] = (D,), **setup: Any) -> dict[str, Any]:
    setup = {"dealer": "W", **setup}
    if setup["dealer"] is None:
        del setup["dealer"]
    return run_case(tables_for(rules), {"deals": [deal(d) for d in deals], **setup}, acts(actions), 1)


def seats_to_act(r: dict[str, Any]) -> set[str]:
    legal = r["steps"][-1]["legal"] if r.get("steps") else r.get("legal", [])
    return {a.get("seat") or a["side"] for a in legal}


def last_error(r: dict[str, Any]) -> str | None:
    return errors(r)[-1]


def _row_abt_to_b(data: dict[str, Any]) -> None:
    (row,) = [row for row in data["rows"] if row["pattern"] == ["A", "B", "T"]]
    row["winner"] = "B"


def _halved_ladder(data: dict[str, Any]) -> None:
    data["levels"] = [
        {"bid": 2, "value": 2, "refused": 1},
        {"bid": 4, "value": 4, "refused": 2},
        {"bid": 8, "value": 8, "refused": 4},
        {"bid": "baraque", "value": "match", "refused": 8},
    ]


DRAW_TIE = [{"N": "7S", "E": "7H", "S": "AD", "W": "KC"}, {"N": "9C", "E": "JD", "S": "7C", "W": "8C"}]
FOUR_EACH = "N: 10S 7S QC 7D | E: 7H 10H 9H 9D | S: 8H JS 9S 10D | W: 8D 8C KD JD"
PARTNERS_TOP = "N: 10S 7S QC | E: 7H 9H 8H | S: 10H JS 9S | W: 8D 8C KD"
EW_WIN = "N: 7S 8S QC | E: 10H 9H 7H | S: 8H JS 7D | W: 8D 8C KD"

# rule -> (the data change, what to observe of the reference's answer, under the base, under the profile)
SCENARIOS: dict[str, tuple[Callable[[dict[str, Any]], None], Callable[[Ruleset], Any], Any, Any]] = {
    # A pack without clubs: a deal holding a club is no deal of this game.
    "deck": (
        lambda d: d.update(suits=[s for s in d["suits"] if s["id"] != "C"]),
        lambda rs: play(rs, "").get("errored", False),
        False,
        True,
    ),
    "rank_order": (
        setting(highest_first=["7", "10", "9", "A", "K", "Q", "J", "8"]),
        lambda rs: events(play(rs, "N 10S, E 7H, S 8H, W 8D"))[0]["winner"],
        "N",
        "E",
    ),
    # Seats listed N W S E: clockwise, the next after the dealer W is S.
    "seats": (
        lambda d: d.update(seats=[d["seats"][i] for i in (0, 3, 2, 1)]),
        lambda rs: seats_to_act(play(rs, "")),
        {"N"},
        {"S"},
    ),
    "direction": (setting(next="right"), lambda rs: seats_to_act(play(rs, "")), {"N"}, {"S"}),
    "draw": (
        setting(dealer="highest"),
        lambda rs: seats_to_act(play(rs, "", dealer=None, draw=[{"N": "7S", "E": "10H", "S": "AD", "W": "KC"}])),
        {"E"},
        {"S"},
    ),
    # N and E tie: the base has only them draw again (a four-card round is refused); "all" has everyone draw.
    "redraw": (
        setting(who="all"),
        lambda rs: (
            play(rs, "", dealer=None, draw=DRAW_TIE).get("errored")
            or seats_to_act(play(rs, "", dealer=None, draw=DRAW_TIE))
        ),
        True,
        {"W"},
    ),
    "deal": (setting(cards_each=4), lambda rs: play(rs, "", (FOUR_EACH,)).get("errored", False), True, False),
    "dealer_rotation": (
        setting(passes="previous"),
        lambda rs: play(rs, NS_WIN_PLAY, (NS_WIN, NS_WIN))["final"]["dealer"],
        "N",
        "S",
    ),
    "first_lead": (setting(leader="dealer"), lambda rs: seats_to_act(play(rs, "")), {"N"}, {"W"}),
    "trick_tie": (
        setting(same_side="first_played_wins"),
        lambda rs: events(play(rs, "N 10S, E 7H, S 10H, W 8D", (PARTNERS_TOP,)))[0]["winner"],
        None,
        "N",
    ),
    "resolution": (
        _row_abt_to_b,
        lambda rs: events(play(rs, "N 10S, E 7H, S 8H, W 8D, N 7S, E 10H, S JS, W 8C, E 9H, S 9S, W KD, N QC"))[-1][
            "winner"
        ],
        "NS",
        "EW",
    ),
    "ladder": (_halved_ladder, lambda rs: last_error(play(rs, "N r3")), None, "UNKNOWN_BID"),
    "jumps": (setting(allowed=True), lambda rs: last_error(play(rs, "N r3, N 10S, E r12")), "RAISE_JUMP", None),
    "opening": (
        setting(tricks=[1]),
        lambda rs: last_error(play(rs, "N 10S, E 7H, S 8H, W 8D, N r3")),
        None,
        "BID_OUT_OF_TURN",
    ),
    "last_position": (
        setting(bids="allowed"),
        lambda rs: last_error(play(rs, "N 10S, E 7H, S 8H, W r3")),
        "RAISE_FROM_LAST",
        None,
    ),
    "raise_side": (
        setting(by="any"),
        lambda rs: last_error(play(rs, "N r3, N 10S, E 7H, S r6")),
        "RAISE_OWN_SIDE",
        None,
    ),
    "later_raise": (
        setting(allowed=False),
        lambda rs: last_error(play(rs, "N r3, N 10S, E 7H, S 8H, W 8D, N 7S, E r6")) is None,
        True,
        False,
    ),
    "refusal": (
        setting(by="any_opponent"),
        lambda rs: last_error(play(rs, "N r3, N 10S, W refuse")),
        "REFUSE_NOT_FOLLOWER",
        None,
    ),
    "target": (
        setting(points=25),
        lambda rs: any(
            e["event"] == "match"
            for e in events(play(rs, "N r3, " + NS_WIN_PLAY, (NS_WIN, NS_WIN), score={"NS": 19, "EW": 0}))
        ),
        True,
        False,
    ),
    "twenty": (
        setting(enabled=False),
        lambda rs: seats_to_act(play(rs, "", score=AT_TWENTY)),
        {"NS"},
        {"N"},
    ),
    "twenty_bids": (
        setting(bids="open"),
        lambda rs: last_error(play(rs, "NS play_hand, N r3", score=AT_TWENTY)),
        "BID_CLOSED_TWENTY",
        None,
    ),
    "twenty_decline": (
        setting(opponents=2),
        lambda rs: events(play(rs, "NS decline_hand", score=AT_TWENTY))[0]["points"],
        1,
        2,
    ),
    "twenty_play": (
        setting(lose=5),
        lambda rs: events(
            play(rs, "NS play_hand, N 7S, E 10H, S 8H, W 8D, E 9H, S JS, W 8C, N 8S", (EW_WIN,), score=AT_TWENTY)
        )[-1]["points"],
        3,
        5,
    ),
    "twenty_twenty": (
        setting(enabled=False),
        lambda rs: {a["act"] for a in play(rs, "", score=AT_TWENTY_TWENTY)["legal"]},
        {"pass", "play_hand"},
        {"play", "raise"},
    ),
    "twenty_twenty_bids": (
        setting(bids="open"),
        lambda rs: last_error(play(rs, "N play_hand, N r3", score=AT_TWENTY_TWENTY)),
        "BID_CLOSED_TWENTY_TWENTY",
        None,
    ),
    "twenty_twenty_signals": (
        setting(signals="allowed"),
        lambda rs: last_error(play(rs, "N sig:ten", score=AT_TWENTY_TWENTY)),
        "SIGNAL_FORBIDDEN",
        None,
    ),
    "twenty_twenty_ask": (
        setting(first="dealer"),
        lambda rs: seats_to_act(play(rs, "", score=AT_TWENTY_TWENTY)),
        {"N"},
        {"W"},
    ),
    "twenty_twenty_play": (
        setting(leader="first_to_play"),
        lambda rs: seats_to_act(play(rs, "N pass, E play_hand", score=AT_TWENTY_TWENTY)),
        {"N"},
        {"E"},
    ),
    "twenty_twenty_all_pass": (
        setting(dealer="stays"),
        lambda rs: play(rs, "N pass, E pass, S pass, W pass", (D, D), score=AT_TWENTY_TWENTY)["final"]["dealer"],
        "N",
        "W",
    ),
    "twenty_twenty_all_tied": (
        setting(dealer="stays"),
        lambda rs: play(rs, "N play_hand, " + ALL_TIED_PLAY, (ALL_TIED, D), score=AT_TWENTY_TWENTY)["final"]["dealer"],
        "N",
        "W",
    ),
    "signals": (
        lambda d: d.update(gestures=[g for g in d["gestures"] if g["id"] != "none"]),
        lambda rs: last_error(play(rs, "N sig:none")),
        None,
        "SIGNAL_UNKNOWN",
    ),
    "signals_allowed": (
        setting(allowed="never"),
        lambda rs: last_error(play(rs, "N sig:ten")),
        None,
        "SIGNAL_FORBIDDEN",
    ),
}


def test_every_rule_has_a_scenario_or_a_reason() -> None:
    # A rule added to the interpreter must come with a situation that shows it obeyed (or a reason it cannot).
    assert set(SCENARIOS) | set(NOT_SHOWN) == set(RULES)
    assert not set(SCENARIOS) & set(NOT_SHOWN)


@pytest.mark.parametrize("rule", sorted(SCENARIOS))
def test_a_profile_changing_a_rules_data_changes_play(rule: str) -> None:
    change, observe, under_base, under_profile = SCENARIOS[rule]
    assert observe(load_ruleset(BASE)) == under_base
    assert observe(altered(rule, change)) == under_profile


def test_the_deal_s_packet_order_is_data_play_cannot_show() -> None:
    # deal.first (next or previous: who gets the first packet) is obeyed by the
    # dealing of a shuffled pack, but a match given its deals seat by seat, as
    # the protocol and every case give them, holds the same hands either way:
    # no answer of the reference can differ. What can be shown is that the
    # altered profile loads and keeps it.
    rules = altered("deal", setting(first="previous"))
    assert rules.params.deal_first == "previous"
    assert play(rules, NS_WIN_PLAY, (NS_WIN,)) == play(load_ruleset(BASE), NS_WIN_PLAY, (NS_WIN,))
