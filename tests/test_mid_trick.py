"""The stop rule as data: hand_stop, the optional rule that lets a hand stop in the middle of a trick.

Every test here fails on the code before the rule existed; each says why.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from helpers import ROOT, deal, events

from vitou_ref import IllegalAction, Match, load_rules_text, load_ruleset
from vitou_ref.engine.actions import Malformed, Play, action_from_json
from vitou_ref.engine.events import Event, HandEvent, TrickEvent
from vitou_ref.engine.tables import tables_for
from vitou_ref.kit.suite import load_suite
from vitou_ref.protocol.server import match_from_setup, run_case
from vitou_ref.rules.errors import SetupError
from vitou_ref.rules.model import thaw

BASE_TEXT = (ROOT / "spec" / "vitou-1.1.0.yaml").read_text(encoding="utf-8")
STOP_CLAUSE = """  - id: hand.stop
    section: "02"
    title: Stop as soon as the result is determined
    text: After each card, the hand ends at once if the cards still to come cannot change its result.
    rule: hand_stop
    data:
      at: as_soon_as_determined

"""
# Clarification 3's counter-example: NS win trick 1 (N's 10S), and N leads its
# other 10 to trick 2; nobody else holds a 10, so nothing can beat it.
TEN_LED = "N: 10S 10H 7D | E: 7H 9C KD | S: 8C QS 8D | W: 7C AD 9S"
TEN_LED_PLAY = [("N", "10S"), ("E", "7H"), ("S", "8C"), ("W", "7C"), ("N", "10H")]


def with_stop() -> Any:
    """Vitou 1.1.0 with one clause added that binds hand_stop to the mid-trick reading."""
    anchor = "  # ---- §03 Raise, accept or refuse"
    assert BASE_TEXT.count(anchor) == 1
    text = BASE_TEXT.replace(anchor, STOP_CLAUSE + anchor).replace("  id: vitou\n", "  id: vitou-stop\n")
    return load_rules_text(text, "stop.yaml")


def play_out(rules: Any, plays: list[tuple[str, str]]) -> list[list[dict[str, Any]]]:
    m = Match(rules, dealer="W", deals=[deal(TEN_LED)])
    return [[e.to_json() for e in m.play(seat, card).events] for seat, card in plays]


def test_a_ruleset_binding_hand_stop_stops_on_the_ten_led_to_trick_two() -> None:
    # Before hand_stop existed the clause's rule was unknown to the schema, and no
    # interpreter read it: the hand always went on to the end of trick 2.
    rules = with_stop()
    assert rules.params.hand_stop == "as_soon_as_determined"
    steps = play_out(rules, TEN_LED_PLAY)
    assert steps[3] == [{"event": "trick", "trick": 1, "winner": "N"}]
    # No trick 2 event: the trick never completes; the hand is NS's, on tricks.
    assert steps[4] == [{"event": "hand", "winner": "NS", "points": 1, "reason": "tricks", "score": {"NS": 1, "EW": 0}}]


def test_the_base_rules_bind_nothing_to_hand_stop_and_finish_every_trick() -> None:
    # The base behaviour is what an unbound optional rule stands for; before the
    # rule, Params had no hand_stop and Tables no card_check_from.
    for name in ("vitou/1.0.0", "vitou/1.1.0"):
        rules = load_ruleset(name)
        assert "hand_stop" not in rules.bindings and rules.params.hand_stop == "end_of_trick"
        t = tables_for(rules)
        assert not t.stop_mid_trick and t.card_check_from == t.n  # the hot path's quick branch, unchanged
        steps = play_out(rules, [*TEN_LED_PLAY, ("E", "9C"), ("S", "QS"), ("W", "9S")])
        assert steps[4] == [] and steps[7][0] == {"event": "trick", "trick": 2, "winner": "N"}
    assert load_ruleset("vitou-mid-trick").params.hand_stop == "as_soon_as_determined"


# ------------------------------------------------------------------- an oracle
# What "determined" means, computed from the base rules alone: play every way
# the trick in play can end on a copy of the base match, and read its hand event.


def oracle(base: Match) -> tuple[str | None, str] | str | None:
    """(winner, reason) if every way the trick in play ends gives that hand result on the base rules.

    None if some way leaves the hand open; "split" if two ways give different results.
    """
    t = base.tables
    seats, s = [], base.turn
    assert s is not None
    for _ in range(t.n - len(base.trick())):
        seats.append(s)
        s = t.seat_ids[t.next_seat[t.seat_index[s]]]
    found: set[tuple[str | None, str]] = set()
    for cards in itertools.product(*(base.hand(x) for x in seats)):
        copy = base.clone()
        last: tuple[Event, ...] = ()
        for seat, card in zip(seats, cards):
            last = copy.apply(Play(seat, card))
        hands = [e for e in last if isinstance(e, HandEvent)]
        if not hands:
            return None
        found.add((hands[0].winner, hands[0].reason))
    return found.pop() if len(found) == 1 else "split"


def random_deal(rng: random.Random) -> dict[str, list[str]]:
    cards = [f"{r}{s}" for r in ("10", "9", "A", "K", "Q", "J", "8", "7") for s in "SHDC"]
    picked = rng.sample(cards, 12)
    return {seat: picked[3 * i : 3 * i + 3] for i, seat in enumerate("NESW")}


def twin_hand(rng: random.Random, score: dict[str, int]) -> int:
    """One random hand played on the profile and on its base side by side; returns the stops met."""
    dealt, dealer = random_deal(rng), rng.choice("NESW")
    mine = Match(load_ruleset("vitou-mid-trick"), dealer=dealer, deals=[dealt], score=score)
    base = Match(load_ruleset("vitou/1.1.0"), dealer=dealer, deals=[dealt], score=score)
    while mine.hand_number == 1 and mine.legal_actions():
        action = rng.choice(mine.legal_actions())
        got, want = mine.apply(action), base.apply(action)
        if not isinstance(action, Play):
            assert got == want
        elif any(isinstance(e, TrickEvent) for e in want):  # the trick's last card: the base's answer
            assert got == want
            if any(isinstance(e, HandEvent) for e in want):
                return 0
        elif got:  # a stop: the oracle must say the result was determined, and which
            (hand,) = [e for e in got if isinstance(e, HandEvent)]
            assert oracle(base) == (hand.winner, hand.reason), base.describe()
            assert hand.points == (base.value if hand.winner else 0) or mine.mode_name != "normal"
            return 1
        else:  # no stop: the oracle must leave the result open
            assert oracle(base) in (None, "split"), base.describe()
    return 0


@pytest.mark.parametrize("score", [{"NS": 0, "EW": 0}, {"NS": 20, "EW": 7}, {"NS": 20, "EW": 20}])
def test_the_profile_stops_exactly_when_every_way_the_trick_ends_decides_the_hand_alike(score: dict[str, int]) -> None:
    # Random hands, bids and answers included, checked card by card against the
    # oracle above, which knows nothing of hand_stop: before the rule the profile
    # did not exist, and no hand stopped before a trick's last card.
    rng = random.Random(20261202)
    stops = sum(twin_hand(rng, score) for _ in range(150))
    assert stops > 20  # the stop is met often, not only in corner cases


def test_the_base_cases_the_profile_shares_never_decide_a_hand_before_a_tricks_last_card() -> None:
    # A base case applies to vitou-mid-trick only if its answers hold there: none
    # of its hands may be decided before the last card of a trick. The oracle
    # checks each position on the base rules, independently of the profile's code.
    suite = load_suite()
    shared = [c for c in suite.applicable("vitou-mid-trick/1.0.0") if c.applies_to("vitou/1.1.0")]
    assert len(shared) > 150
    base = tables_for(load_ruleset("vitou/1.1.0"))
    for case in shared:
        replay = case_positions(base, case)
        for position in replay:
            assert oracle(position) in (None, "split"), f"{case.id}: {position.describe()}"


def case_positions(t: Any, case: Any) -> list[Match]:
    """The base match after every accepted card that leaves its trick unfinished, in one case."""
    try:
        m = match_from_setup(t, thaw(case.setup))
    except SetupError:
        return []  # a case whose setup is refused plays no card
    out = []
    for raw in thaw(case.actions):
        try:
            action = action_from_json(raw)
            m.apply(action)
        except (Malformed, IllegalAction):
            continue  # a rejected step changes nothing
        if isinstance(action, Play) and m.trick():
            out.append(m.clone())
    return out


def test_the_profile_cases_run_on_the_reference() -> None:
    # The shipped profile and its cases: absent before.
    r = run_case(
        tables_for(load_ruleset("vitou-mid-trick")),
        {"dealer": "W", "deals": [deal(TEN_LED)]},
        [{"seat": s, "act": "play", "card": c} for s, c in TEN_LED_PLAY],
        1,
    )
    assert events(r)[-1]["event"] == "hand" and r["final"]["score"] == {"NS": 1, "EW": 0}
