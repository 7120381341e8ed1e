"""What one seat sees of Truco Paulista: the turn-up, and never which card the other player played face down."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from vitou_ref import Card, load_ruleset
from vitou_ref.engine.actions import Action, Play, PlayHand
from vitou_ref.engine.observation import FaceDown, RecordedMatch, observe
from vitou_ref.engine.tables import tables_for
from vitou_ref.players.arena import play_match
from vitou_ref.players.base import make_player
from vitou_ref.players.search import sample_worlds

TP = "truco-paulista/1.0.0"
# The rules text's second worked example (§8): A at 11 plays the hand of eleven; turn-up KH, so the aces are
# the manilhas; A leads 4C face down in the second trick.
DEAL = {"A": ["AS", "4C", "6D"], "B": ["2C", "3S", "5H"], "turn_up": "KH"}


def _cards(value: Any) -> set[int]:
    """Every card anywhere in an observation's fields (the compiled rules aside)."""
    if isinstance(value, Card):
        return {value.id}
    if isinstance(value, (tuple, list)):
        return set().union(*(_cards(v) for v in value)) if value else set()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return set().union(*(_cards(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name != "tables"))
    return set()


def _after_face_down(card: str) -> RecordedMatch:
    deal = dict(DEAL)
    if card != "4C":  # the same hand, A holding ``card`` where it held 4C
        deal["A"] = [card if c == "4C" else c for c in DEAL["A"]]
    m = RecordedMatch(tables_for(load_ruleset(TP)), dealer="A", deals=[deal], score={"A": 11, "B": 7})
    actions: list[Action] = [
        PlayHand("A"),
        Play("B", Card.parse("3S")),
        Play("A", Card.parse("AS")),
        Play("A", Card.parse(card), True),
    ]
    for a in actions:
        m.apply(a)
    return m


def test_the_other_player_never_sees_a_card_played_face_down() -> None:
    m = _after_face_down("4C")
    b, a = observe(m, "B"), observe(m, "A")
    four = Card.parse("4C")
    assert four.id not in _cards(b), "B sees the card A played face down"
    assert b.trick == (("A", None),) and b.trick_down == (True,) and b.trick_powers == (0,)
    assert FaceDown("A") in [s.action for s in b.acts]
    assert b.played == ((1, "B", Card.parse("3S")), (1, "A", Card.parse("AS")))
    # The player who played it knows it.
    assert a.trick == (("A", four),) and a.trick_down == (True,) and Play("A", four, True) in [s.action for s in a.acts]
    # Whichever card A played face down, B sees the same: its observation does not depend on it.
    for other in ("5S", "JS", "7H"):
        assert observe(_after_face_down(other), "B") == b


def test_the_turn_up_is_seen_by_both_and_makes_the_manilhas() -> None:
    m = _after_face_down("4C")
    for seat in ("A", "B"):
        obs = observe(m, seat)
        assert obs.turn_up == Card.parse("KH")
        # Turn-up K: the aces are the manilhas, above the 3, ordered by suit (diamonds, spades, hearts, clubs).
        s = obs.strength
        assert s(Card.parse("AD")) < s(Card.parse("AS")) < s(Card.parse("AH")) < s(Card.parse("AC"))
        assert s(Card.parse("3S")) < s(Card.parse("AD")) and s(Card.parse("3S")) == s(Card.parse("3H"))


def test_a_search_samples_worlds_where_the_face_down_card_is_any_unseen_card() -> None:
    obs = observe(_after_face_down("4C"), "B")
    worlds = sample_worlds(obs, 40, random.Random(3))
    assert worlds, "no world consistent with what B saw"
    four, up = Card.parse("4C").id, Card.parse("KH").id
    downs = set()
    for w in worlds:
        assert w.face_down() == (True,) and w.turn_up == Card.parse("KH")
        assert up not in w.tcards and all(up not in h for h in w.hands)
        downs.add(w.tcards[0])
    assert len(downs) > 5 and four not in {c for w in worlds for c in w.hands[1]}


@pytest.mark.parametrize("kind", ["random", "heuristic", "search", "solver"])
def test_every_kind_of_player_plays_truco_paulista_to_the_end(kind: str) -> None:
    t = tables_for(load_ruleset(TP))
    for seed in range(3):
        players = {s: make_player(kind if i == 0 else "heuristic", seed=seed + i) for i, s in enumerate(t.seat_ids)}
        steps = list(play_match(t, players, seed=seed))
        assert steps and steps[-1][0].is_over
