"""The Python API: the verify/can/act triples, frozen records, and the error classes."""

from __future__ import annotations

import dataclasses

import pytest
from helpers import deal

from vitou_ref import (
    ILLEGAL_BY_CODE,
    Card,
    IllegalAction,
    Match,
    Rank,
    SetupError,
    Suit,
    Transition,
    load_ruleset,
)
from vitou_ref.engine.match import CHECKED_CODES
from vitou_ref.rules.errors import ENGINE_CODES, NotYourTurn, RaiseFromLast

D05 = deal("N: AS 7H 8C | E: 9C KD JH | S: 10H QS 8D | W: 7C AD 9S")


def test_enums_parse_their_written_form() -> None:
    assert Rank("A") is Rank.ACE and Suit("C") is Suit.CLUBS
    assert Card.parse("10S") == Card(Rank.TEN, Suit.SPADES)
    assert str(Card.parse("9C")) == "9C"
    with pytest.raises(ValueError, match="not a card"):
        Card.parse("1S")


def test_each_action_has_a_verify_can_act_triple() -> None:
    m = Match(load_ruleset("vitou"), dealer="W", deals=[D05])
    assert m.can_raise("N", 3) and not m.can_raise("E", 3)
    with pytest.raises(NotYourTurn) as info:
        m.verify_play("E", "9C")
    assert info.value.code == "NOT_YOUR_TURN" and info.value.clause == "play.turn_order"
    assert "N is due to play, not E" in str(info.value)
    t = m.raise_bid("N", 3)
    assert isinstance(t, Transition) and t.events == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.events = ()  # type: ignore[misc]
    m.play("N", "AS")
    m.raise_bid("E", 6)
    m.play("E", Card.parse("9C"))
    assert m.can_refuse("S") and not m.can_refuse("W")
    t = m.refuse("S")
    assert t.events[0].to_json()["points"] == 3  # type: ignore[union-attr]


def test_illegal_action_messages_show_the_action_and_the_position() -> None:
    m = Match(load_ruleset("vitou"), dealer="W", deals=[D05])
    m.play("N", "AS")
    m.play("E", "9C")
    m.play("S", "10H")
    with pytest.raises(RaiseFromLast) as info:
        m.raise_bid("W", 3)
    text = str(info.value)
    assert "W bids 3" in text and "last to play to trick 1" in text and "N:AS E:9C S:10H" in text


def test_every_code_the_interpreter_reports_has_a_class_and_a_check() -> None:
    assert CHECKED_CODES == ENGINE_CODES == set(ILLEGAL_BY_CODE)
    for code, cls in ILLEGAL_BY_CODE.items():
        assert issubclass(cls, IllegalAction) and cls.code == code


def test_every_error_code_of_the_spec_names_a_clause() -> None:
    from vitou_ref import shipped_names
    from vitou_ref.rules.load import reachable_codes

    # Each shipped ruleset defines every code its game can reach, each tied to one of its own clauses.
    for name in shipped_names():
        rules = load_ruleset(name)
        acts = frozenset(next(e.acts for e in rules.errors if e.code == "ACTION_MALFORMED"))
        assert reachable_codes(rules.params, acts) <= {e.code for e in rules.errors}, name
        for e in rules.errors:
            rules.clause(e.clause)
    # Vitou defines every code but those of a raise answered before any card, of a card played face down and
    # of a conceded hand, which its game never reaches.
    before_any_card = {"RAISE_AWAITS_ANSWER", "RAISE_OWN_WAITING", "ACCEPT_NO_RAISE", "ACCEPT_NOT_ANSWERER"}
    paulista = {"FACE_DOWN_TOO_EARLY", "CONCEDE_OUT_OF_TURN"}
    assert {e.code for e in load_ruleset("vitou/1.0.0").errors} == ENGINE_CODES - before_any_card - paulista
    # Truco Paulista defines every code but those of Vitou's gestures, its 20-20 question and its bids.
    tp = {e.code for e in load_ruleset("truco-paulista").errors}
    assert ENGINE_CODES - tp == {"SIGNAL_UNKNOWN", "SIGNAL_FORBIDDEN", "CALL_OUT_OF_TURN", "RAISE_FROM_LAST"}


def test_a_bad_setup_raises_setup_error_and_builds_nothing() -> None:
    rules = load_ruleset("vitou")
    with pytest.raises(SetupError, match="dealt twice"):
        Match(rules, dealer="W", deals=[{**D05, "W": ["7C", "AD", "AS"]}])
    with pytest.raises(SetupError, match="first dealer"):
        Match(rules, deals=[D05])
    with pytest.raises(SetupError, match="either a dealer or a draw"):
        Match(rules, dealer="W", draw=[{"N": "7S", "E": "8S", "S": "9S", "W": "10S"}], deals=[D05])


def test_a_seeded_match_is_reproducible_and_draws_its_dealer() -> None:
    rules = load_ruleset("vitou")
    a, b = Match.random(rules, 5), Match.random(rules, 5)
    assert a.state_key() == b.state_key() and a.draw_rounds == b.draw_rounds
    assert a.draw_rounds  # the dealer was drawn
