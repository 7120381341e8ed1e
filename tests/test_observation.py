"""What a seat may see: the same whatever the cards it has not seen, different when its own cards differ.

Modelled on OpenSpiel's information-state test: at many points of many matches, for every shipped
ruleset and every seat, the cards the seat has not seen (the other seats' unplayed cards, less the
partners' cards shown at twenty) are dealt again among the other seats' hidden places, the same
actions are replayed on that deal, and the seat's observation must not change.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from vitou_ref import Card, Match, load_ruleset
from vitou_ref.engine.actions import Action, Play, Raise, Signal
from vitou_ref.engine.events import Event
from vitou_ref.engine.observation import Mode, Observation, RecordedMatch, asking_order, observe
from vitou_ref.engine.tables import Tables, tables_for
from vitou_ref.players.arena import play_match
from vitou_ref.players.base import make_player
from vitou_ref.rules.errors import IllegalAction
from vitou_ref.rules.registry import shipped_names

RULESETS = shipped_names()


def _tables(name: str) -> Tables:
    return tables_for(load_ruleset(name))


def _hidden(m: Match, seat: str) -> dict[str, list[int]]:
    """The unplayed cards of every other seat that ``seat`` has not been shown, by seat.

    Judged here from the rules text, not from the observation: at twenty, the side at twenty shows
    its cards to each other (§04), and that is all a seat is ever shown.
    """
    t = m.tables
    side = t.side_of[t.seat_index[seat]]
    at_twenty = m.mode_name == "twenty" and m.twenty_side == side and not m.is_over
    shown = {x for x in t.seat_ids if at_twenty and t.side_of[t.seat_index[x]] == side}
    return {x: list(m.hands[t.seat_index[x]]) for x in t.seat_ids if x != seat and x not in shown}


def _replay(t: Tables, first_dealer: str, deals: list[Any], actions: list[Action], events: list[Any]) -> Match | None:
    """The same actions on other deals; None when they do not give the same public events (a world not consistent)."""
    m = RecordedMatch(t, dealer=first_dealer, deals=deals)
    for action, expected in zip(actions, events):
        try:
            got = m.apply(action)
        except IllegalAction:
            return None
        if got != expected:
            return None
    return m


def _redeal(t: Tables, dealt: Any, swap: dict[int, int], turn_up: Card | None = None) -> dict[str, Any]:
    deal: dict[str, Any] = {s: [t.card(swap.get(c, c)) for c in dealt[i]] for i, s in enumerate(t.seat_ids)}
    if turn_up is not None:  # the card turned up for the hand, where the rules turn one up (setup.TURN_UP)
        deal["turn_up"] = turn_up
    return deal


def _cards_in(value: Any) -> set[int]:
    """Every card held anywhere in an observation's fields (the compiled rules aside)."""
    if isinstance(value, Card):
        return {value.id}
    if isinstance(value, (tuple, list)):
        return set().union(*(_cards_in(v) for v in value)) if value else set()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return set().union(
            *(_cards_in(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name != "tables")
        )
    return set()


def _played_matches(name: str, seeds: range) -> Any:
    """Matches between random and rule-of-thumb players (these signal), with everything needed to replay them."""
    t = _tables(name)
    for seed in seeds:
        kinds = ["random", "heuristic"] if seed % 2 else ["heuristic", "random"]
        players = {s: make_player(kinds[i % 2], seed=seed * 10 + i) for i, s in enumerate(t.seat_ids)}
        actions: list[Action] = []
        events: list[tuple[Event, ...]] = []
        deals: list[Any] = []
        for m, action, evs in play_match(t, players, seed=seed):
            actions.append(action)
            events.append(evs)
            if m.hand_number > len(deals) and not m.is_over and m.phase_name != "no_deal":
                deals.append(_redeal(t, m.dealt, {}, m.turn_up))
            yield t, m, actions, events, deals


@pytest.mark.parametrize("name", RULESETS)
def test_an_observation_does_not_change_when_the_unseen_cards_are_dealt_otherwise(name: str) -> None:
    rng = random.Random(name)
    checked = same = differs = 0
    for t, m, actions, events, deals in _played_matches(name, range(10)):
        if m.is_over or rng.random() > 0.3:
            continue
        first = t.seat_ids[m.first_dealer]
        for seat in t.seat_ids:
            obs = observe(m, seat)
            hidden = _hidden(m, seat)
            cards = [c for cs in hidden.values() for c in cs]
            assert not (_cards_in(obs) & set(cards)), f"{seat} sees a hidden card"
            permuted = cards[:]
            rng.shuffle(permuted)
            redeal = _redeal(t, m.dealt, dict(zip(cards, permuted)), m.turn_up)
            other = _replay(t, first, [*deals[:-1], redeal], actions, events)
            checked += 1
            if other is not None:
                same += 1
                assert observe(other, seat) == obs, f"{name}: {seat}'s observation depends on cards it has not seen"
            own = [c for c in m.hands[t.seat_index[seat]]]
            up = m.turn_up.id if m.turn_up is not None else -1
            outside = [c for c in t.deck if not any(c in d for d in m.dealt) and c != up]
            if own and obs.hand and outside:
                swap = {own[0]: outside[0], outside[0]: own[0]}
                mine = _replay(t, first, [*deals[:-1], _redeal(t, m.dealt, swap, m.turn_up)], actions, events)
                if mine is not None:
                    differs += 1
                    assert observe(mine, seat) != obs, f"{name}: {seat}'s observation ignores its own cards"
    assert checked > 100 and same > checked * 0.8 and differs > 20, (checked, same, differs)


def test_the_rules_text_decides_what_is_public() -> None:
    t = _tables("vitou/1.1.0")
    deal = {"N": ["10S", "9S", "AS"], "E": ["KS", "QS", "JS"], "S": ["8S", "7S", "10H"], "W": ["9H", "AH", "KH"]}
    m = RecordedMatch(t, dealer="W", deals=[deal])
    m.apply(Signal("S", "ten"))
    m.apply(Raise("N", 3))
    m.apply(Play("N", Card.parse("10S")))
    east = observe(m, "E")
    assert east.hand == tuple(Card.parse(c) for c in deal["E"])
    assert east.signals == (Signal("S", "ten"),)  # a gesture is seen by the opponents too
    assert east.bids == (Raise("N", 3),) and east.bidder == "N" and east.bid == 3
    assert east.played == ((1, "N", Card.parse("10S")),)
    assert [type(a) for a in east.legal] == [Play, Play, Play, Raise, type(east.legal[-1])]
    assert east.must_act and observe(m, "S").legal == () and not observe(m, "S").must_act
    assert asking_order(m) == ("E",)


def test_at_twenty_the_side_sees_its_partners_cards_and_the_others_do_not() -> None:
    t = _tables("vitou/1.1.0")
    deal = {"N": ["10S", "9S", "AS"], "E": ["KS", "QS", "JS"], "S": ["8S", "7S", "10H"], "W": ["9H", "AH", "KH"]}
    m = RecordedMatch(t, dealer="W", deals=[deal], score={"NS": 20, "EW": 3})
    north, east = observe(m, "N"), observe(m, "E")
    assert north.mode is Mode.TWENTY and north.deciding_side == "NS"
    assert north.shown == (("S", tuple(Card.parse(c) for c in deal["S"])),)
    assert east.shown == () and north.must_act and not observe(m, "S").must_act
    assert asking_order(m) == ("N",)


def test_at_twenty_twenty_a_seat_not_yet_asked_holds_no_card() -> None:
    t = _tables("vitou/1.1.0")
    deal = {"N": ["10S", "9S", "AS"], "E": ["KS", "QS", "JS"], "S": ["8S", "7S", "10H"], "W": ["9H", "AH", "KH"]}
    m = RecordedMatch(t, dealer="W", deals=[deal], score={"NS": 20, "EW": 20})
    assert observe(m, "N").hand and observe(m, "E").hand == () and observe(m, "N").gestures == ()


def test_observe_needs_the_recorded_history_and_a_clone_keeps_it() -> None:
    t = _tables("vitou/1.1.0")
    with pytest.raises(TypeError, match="RecordedMatch"):
        observe(Match(t, seed=1), "N")
    m = RecordedMatch(t, seed=1)
    m.apply(m.legal_actions()[0])
    c = m.clone()
    assert isinstance(c, RecordedMatch) and observe(c, "N") == observe(m, "N") and c.history == m.history
    c.apply(c.legal_actions()[0])
    assert c.history != m.history
    assert isinstance(observe(m, "N"), Observation)
