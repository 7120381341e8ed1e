"""A word the notation does not know is a located notation problem with the nearest word; a match not won goes on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from deskserver import SECTION_05, served
from helpers import ROOT

from vitou_ref.audit.notation import parse_notation
from vitou_ref.cli import main
from vitou_ref.engine.tables import tables_for
from vitou_ref.rules.registry import load_ruleset

SECTION_05_RECORD = ROOT / "conformance" / "disputes" / "01-section-05-refusal.yaml"
DEAL = "  - {N: [AS, 7H, 8C], E: [9C, KD, JH], S: [10H, QS, 8D], W: [7C, AD, 9S]}\n"


def _read(text: str, ruleset: str = "vitou/1.0.0") -> tuple[list[dict[str, Any]], list[Any]]:
    parsed, problems = parse_notation(text, tables_for(load_ruleset(ruleset)))
    return [p.action for p in parsed], problems


def _record(tmp_path: Path, actions: str) -> str:
    path = tmp_path / "typo.yaml"
    path.write_text(
        f"format: 1\nheader: {{ruleset: vitou/1.0.0, dealer: W}}\ndeals:\n{DEAL}actions: |\n  {actions}\n",
        encoding="utf-8",
    )
    return str(path)


# ------------------------------------------------------------------ a word the notation does not know

# Rules text §03: "the next player may accept by playing without raising, raise if entitled, or refuse and
# concede the hand". Refusing is its own act, never a raise: "S refuses" is South's refusal misspelt, not a
# raise to a level named "efuses". The notation (docs/reference/records.md) spells the act "refuse", so the group is a
# notation problem at the word, naming the word it is nearest, and no action is recorded for it.


def test_refuses_is_not_a_raise_but_a_located_typo_naming_refuse() -> None:
    actions, problems = _read("N r3 N AS E r6 E 9C S refuses")
    assert actions == [
        {"seat": "N", "act": "raise", "to": 3},
        {"seat": "N", "act": "play", "card": "AS"},
        {"seat": "E", "act": "raise", "to": 6},
        {"seat": "E", "act": "play", "card": "9C"},
    ]
    (p,) = problems
    assert (p.code, p.line, p.column) == ("NOTATION_ACTION", 1, 23)
    assert "'refuses'" in p.message and "did you mean refuse?" in p.message


def test_audit_refuses_the_record_at_the_typo_and_rules_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _record(tmp_path, "N r3 N AS E r6 E 9C S refuses")
    assert main(["audit", path]) == 2  # unusable input: nothing is ruled, nothing recorded
    err = capsys.readouterr().err
    assert f"{path}:6:25: NOTATION_ACTION" in err and "did you mean refuse?" in err
    assert "UNKNOWN_BID" not in err


def test_the_desk_keeps_the_record_as_it_was_and_says_the_nearest_word() -> None:
    with served() as s:
        assert s.post("game", {"ruleset": "vitou/1.0.0", "lang": "en", "dealer": "W"})[0] == 200
        assert s.post("deal", {"deal": "0", "paste": SECTION_05})[0] == 200
        assert s.post("typed", {"text": "N r3 N AS E r6 E 9C"})[0] == 200
        before = s.desk.branch.data
        status, html = s.post("typed", {"text": "S refuses"})
        assert s.desk.branch.data == before
    assert status == 200
    assert "the action typed:1:3: NOTATION_ACTION" in html and "did you mean refuse?" in html


# Rules text §03: "you may open at 3. Further raises follow 6, 12, then baraque". A referee writes the raise as
# the table said it, "raise 3", as often as "r3": the level after the word can be neither a seat nor a side
# (docs/reference/records.md: seats and sides are the ruleset's letters), so "raise 3" and "r 3" are the same group as
# "r3", and the canonical writer still writes "r3".


@pytest.mark.parametrize("spelling", ["W raise 3", "W r 3", "W raise  3"])
def test_raise_and_its_level_apart_are_the_same_bid_as_r3(spelling: str) -> None:
    assert _read(spelling) == _read("W r3") == ([{"seat": "W", "act": "raise", "to": 3}], [])


def test_raise_baraque_apart_is_rbaraque_and_the_game_goes_on() -> None:
    assert _read("N raise baraque S 10H") == _read("N rbaraque S 10H")
    assert _read("A raise 4 B accept", "le-truc/1.0.0")[0] == [
        {"seat": "A", "act": "raise", "to": 4},
        {"seat": "B", "act": "accept"},
    ]


def test_raise_without_a_level_says_how_to_write_it_and_reads_on() -> None:
    actions, problems = _read("W raise N AS")
    assert actions == [{"seat": "N", "act": "play", "card": "AS"}]  # the next group is still read
    (p,) = problems
    assert (p.code, p.column) == ("NOTATION_ACTION", 3)
    assert "write W r3" in p.message


def test_raise_apart_before_digits_of_another_script_is_one_problem() -> None:
    # As "r\u0661\u0662" is (tests/test_one_reader.py): a level is written in the digits 0-9, never guessed.
    actions, problems = _read("W raise \u0661\u0662 N AS")
    assert actions == [{"seat": "N", "act": "play", "card": "AS"}]
    (p,) = problems
    assert p.column == 3 and "digits 0-9" in p.message


def test_a_misspelt_raise_before_a_level_suggests_the_short_form() -> None:
    actions, problems = _read("W raize 6 N AS")
    assert actions == [{"seat": "N", "act": "play", "card": "AS"}]
    (p,) = problems
    assert p.column == 3 and "write W r6" in p.message


@pytest.mark.parametrize(
    ("ruleset", "text", "near"),
    [
        ("vitou/1.0.0", "S refus", "refuse"),
        ("vitou/1.0.0", "S Refuse", "refuse"),
        ("vitou/1.0.0", "E pas", "pass"),
        ("vitou/1.0.0", "NS take", "takes"),
        ("vitou/1.0.0", "S \uff52\uff45\uff46\uff55\uff53\uff45", "refuse"),  # fullwidth letters
        ("le-truc/1.0.0", "B acept", "accept"),
    ],
)
def test_each_near_miss_names_the_word_of_the_notation(ruleset: str, text: str, near: str) -> None:
    actions, problems = _read(text, ruleset)
    assert actions == []
    (p,) = problems
    assert p.code == "NOTATION_ACTION" and f"did you mean {near}?" in p.message


def test_le_truc_has_no_pass_to_suggest() -> None:
    # Le Truc's acts (spec): play, raise, accept, refuse; no 20-20 question, so "pass" is not its word.
    _, (p,) = _read("B pas", "le-truc/1.0.0")
    assert "did you mean pass" not in p.message


# ------------------------------------------------------------------ what the notation accepts today, kept


def test_bids_and_gestures_off_the_ladder_are_still_actions_the_rules_judge() -> None:
    # A raise to a level no ladder has, or a gesture no table knows, is what the table did: the audit rules it
    # (UNKNOWN_BID and the like), so the notation keeps it; only a word nearest another act is a typo.
    actions, problems = _read("E rthree E r24 W ~wink N rBaraque")
    assert problems == []
    assert [a.get("to", a.get("signal")) for a in actions] == ["three", 24, "wink", "Baraque"]


# ------------------------------------------------------------------ hostile words


def test_a_look_alike_letter_is_shown_escaped() -> None:
    # A Cyrillic "е" (U+0435) in "refuse": the word printed as typed would look right; its escape shows why not.
    _, (p,) = _read("S r\u0435fuse")
    assert "\\u0435" in p.message and "did you mean refuse?" in p.message


def test_a_control_character_in_a_word_is_quoted_escaped() -> None:
    _, (p,) = _read("S re\x1b[2Jfuse")
    assert "\x1b" not in p.message and "\\x1b" in p.message


def test_a_five_thousand_letter_word_gives_a_short_message_at_its_place() -> None:
    _, (p,) = _read("N r3 S " + "z" * 5000 + " W 7C")
    assert (p.code, p.column) == ("NOTATION_ACTION", 8) and len(p.message) < 400


# ------------------------------------------------------------------ "winner: nobody" after a hand was won

# Rules text §04: "first to reach 21 wins". Section 05's hand gives East-West 3: a hand won, and the match not
# (0-3), so it goes on. "winner nobody" read as if nobody had won the hand; the line says the match goes on.
GOES_ON = {
    "en": "the match goes on",
    "fr": "le match continue",
    "pt": "a partida continua",
    "ru": "матч продолжается",
}


@pytest.mark.parametrize("lang", sorted(GOES_ON))
def test_a_hand_won_in_a_match_not_won_says_the_match_goes_on(lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(SECTION_05_RECORD), "--lang", lang]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert GOES_ON[lang] in last
    nobody = {"en": "nobody", "fr": "personne", "pt": "ninguém", "ru": "никто"}[lang]
    assert nobody not in last


@pytest.mark.parametrize("fmt", ["markdown", "html"])
def test_the_page_and_the_markdown_say_it_too(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(SECTION_05_RECORD), "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert "the match goes on" in out and "winner nobody" not in out


def test_the_json_still_says_winner_null(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(SECTION_05_RECORD), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["final"]["winner"] is None


def test_the_desk_says_the_match_goes_on() -> None:
    with served() as s:
        assert s.post("game", {"ruleset": "vitou/1.0.0", "lang": "en", "dealer": "W"})[0] == 200
        assert s.post("deal", {"deal": "0", "paste": SECTION_05})[0] == 200
        html = s.post("typed", {"text": "N r3 N AS E r6 E 9C S refuse"})[1]
    assert "the match goes on" in html
