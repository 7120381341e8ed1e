"""Hostile inputs to Truco Paulista's new rules: setups, actions, rules files and profiles, and mutant names."""

from __future__ import annotations

import functools
import json
import re
from typing import Any

import pytest

from vitou_ref.adapter import build_server
from vitou_ref.cli import main
from vitou_ref.protocol.server import Server
from vitou_ref.rules.data import data_dir
from vitou_ref.rules.errors import InputError
from vitou_ref.rules.registry import load_rules_text

TP = "truco-paulista/1.0.0"
HANDS: dict[str, Any] = {"A": ["QS", "3H", "5C"], "B": ["QC", "2S", "4D"]}
TRICK_1 = [{"seat": "A", "act": "play", "card": "3H"}, {"seat": "B", "act": "play", "card": "2S"}]
LE_TRUC: dict[str, Any] = {"dealer": "A", "deals": [{"A": ["7S", "JS", "QS"], "B": ["7H", "JH", "QH"]}]}
VITOU_HANDS = {"N": ["7S", "8S", "9S"], "E": ["7H", "8H", "9H"], "S": ["7C", "8C", "9C"], "W": ["7D", "8D", "9D"]}
VITOU: dict[str, Any] = {"dealer": "N", "deals": [VITOU_HANDS]}
RAW_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


@functools.cache
def _server() -> Server:
    return build_server()


def _run(setup: dict[str, Any], actions: list[Any], ruleset: str = TP) -> dict[str, Any]:
    request = {"cmd": "run", "seq": 7, "ruleset": ruleset, "setup": setup, "actions": actions}
    answer = _server().handle(json.dumps(request))
    assert isinstance(answer, dict)
    return answer


def _deal(**extra: Any) -> dict[str, Any]:
    return {"dealer": "B", "deals": [{**HANDS, **extra}]}


def _errors(answer: dict[str, Any]) -> list[Any]:
    return [step.get("error") for step in answer["steps"]]


@pytest.mark.parametrize(
    "turn_up",
    [
        None,
        7,
        ["7D"],
        {"r": "7"},
        True,
        "",
        "7d",
        "10D",
        "8D",
        "7D ",
        "QS",
        "4D",
        "７D",
        "\u202e7D\x1b[31m",
        "X" * 100_000,
    ],
)
def test_an_unusable_turn_up_gets_an_errored_answer_naming_it(turn_up: Any) -> None:
    answer = _run(_deal(turn_up=turn_up), [])
    assert answer.get("errored") is True, answer
    message = answer["message"]
    assert "deals/0/turn_up" in message and not message.startswith("internal error")
    assert len(message) <= 1000 and not RAW_CONTROL.search(message)


def test_a_deal_without_its_turn_up_is_unusable_and_other_games_have_none() -> None:
    assert "turns up no card" in _run(_deal(), [])["message"]
    for ruleset, setup in (("le-truc/1.1.0", LE_TRUC), ("vitou/1.1.0", VITOU)):
        deal = {**setup["deals"][0], "turn_up": "KD"}
        answer = _run({**setup, "deals": [deal]}, [], ruleset)
        assert answer.get("errored") is True and "'turn_up' is not a seat" in answer["message"]


@pytest.mark.parametrize("value", [False, 1, 0, "true", None, {}, [], 1.0])
def test_face_down_other_than_true_is_malformed_in_every_trick(value: Any) -> None:
    down = {"seat": "A", "act": "play", "card": "3H", "face_down": value}
    assert _errors(_run(_deal(turn_up="7D"), [down])) == ["ACTION_MALFORMED"]
    later = {"seat": "A", "act": "play", "card": "QS", "face_down": value}
    assert _errors(_run(_deal(turn_up="7D"), [*TRICK_1, later]))[-1] == "ACTION_MALFORMED"


def test_face_down_and_concede_are_no_acts_of_the_other_games() -> None:
    for ruleset, setup, seat, card in (("le-truc/1.1.0", LE_TRUC, "B", "7H"), ("vitou/1.1.0", VITOU, "E", "7H")):
        actions = [{"seat": seat, "act": "play", "card": card, "face_down": True}, {"seat": seat, "act": "concede"}]
        assert _errors(_run(setup, actions, ruleset)) == ["ACTION_MALFORMED", "ACTION_MALFORMED"]


def test_a_concession_out_of_place_or_malformed_is_refused() -> None:
    setup = {"dealer": "B", "score": {"A": 11, "B": 11}, "deals": [_deal(turn_up="7D")["deals"][0]] * 2}
    actions = [
        {"seat": "B", "act": "concede"},
        {"seat": "A", "act": "concede", "why": 1},
        {"side": "A", "act": "concede"},
    ]
    actions += [{"seat": "A", "act": "concede"}, {"seat": "B", "act": "concede"}]
    answer = _run(setup, actions)
    assert _errors(answer) == ["CONCEDE_OUT_OF_TURN", "ACTION_MALFORMED", "ACTION_MALFORMED", None, "MATCH_OVER"]
    assert answer["final"] == {"score": {"A": 11, "B": 12}, "dealer": "A", "winner": "B"}


def _paulista(old: str, new: str) -> str:
    text = (data_dir("spec") / "truco-paulista-1.0.0.yaml").read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new, 1).replace("\n  id: truco-paulista\n", "\n  id: tp-hostile\n", 1)


def _profile(extends: str, operation: str) -> str:
    head = f"format: 1\nprofile: {{id: tp-prof, version: 1.0.0, title: hostile, extends: {extends}}}\n"
    return head + 'changelog: [{version: 1.0.0, date: "2026-12-05", changes: [x]}]\noperations:\n' + operation


def _clause(cid: str, rule: str = "", data: str = "") -> str:
    bound = f"      rule: {rule}\n      data: {data}\n" if rule else ""
    return f'      id: {cid}\n      section: "1"\n      title: t\n      text: t\n' + bound


def _refused(text: str) -> None:
    """The rules are refused as input, for what they say rather than for how they are written."""
    with pytest.raises(InputError) as refusal:
        load_rules_text(text)
    codes = [p.code for p in refusal.value.problems]
    assert not [c for c in codes if c == "SCHEMA" or c.startswith(("PROFILE_", "YAML"))], refusal.value


def test_the_hostile_files_are_well_formed_but_for_what_each_test_changes() -> None:
    assert load_rules_text(_paulista("from_trick: 2", "from_trick: 3")).name == "tp-hostile/1.0.0"
    for base in ("le-truc/1.1.0", "vitou/1.1.0"):
        assert load_rules_text(_profile(base, "  - add:\n" + _clause("x.note"))).name == "tp-prof/1.0.0"


def test_a_ruleset_whose_acts_include_concede_without_the_concede_rule_is_refused_not_a_crash() -> None:
    # was: TypeError, exit status 3 from every command that reads the file
    _refused(_paulista("    rule: concede\n    data:\n      by: seat_to_act\n", ""))


def test_a_seat_named_turn_up_is_refused_where_a_card_is_turned_up() -> None:
    text = _paulista("- {id: B, name: B}", "- {id: turn_up, name: B}")
    with pytest.raises(
        InputError
    ):  # was: accepted, and no deal of it can be written (the reference fails the envelope)
        load_rules_text(text.replace("- {id: B, name: B, seats: [B]}", "- {id: B, name: B, seats: [turn_up]}", 1))


def test_the_question_at_eleven_eleven_is_refused_in_a_game_without_its_acts() -> None:
    # was: accepted; pass and play_hand were legal at 11-11 and malformed elsewhere
    _refused(_paulista("question: none", "question: asked"))


def test_the_concede_rule_is_refused_in_a_game_without_the_act() -> None:
    text = _profile("le-truc/1.1.0", "  - add:\n" + _clause("x.concede", "concede", "{by: seat_to_act}"))
    _refused(text)  # was: accepted; concede was in every legal set and refused ACTION_MALFORMED


def test_the_turn_up_counts_against_the_pack() -> None:
    deal = "  - replace: deal.packet\n    with:\n" + _clause("deal.packet", "deal", "{cards_each: 8, first: next}")
    circle = '{circle: ["7", "8", "9", "10", "J", "Q", "K", "A"], suits_lowest_first: [D, S, H, C]}'
    turn_up = "  - add:\n" + _clause("x.turn_up", "turn_up", circle)
    _refused(_profile("vitou/1.1.0", deal + turn_up))  # was: accepted; 33 cards from 32: simulate exit 3


@pytest.mark.parametrize("name", ["truc-weaker-wins", "rank-natural"])
def test_a_mutant_of_another_game_is_refused(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    # was: exit 1 with "mutation score 0.0%: 0 of 0 mutants", and silently dropped beside a name of the game
    assert main(["mutants", "--ruleset", "truco-paulista", "--only", name]) == 2
    assert name in capsys.readouterr().err
