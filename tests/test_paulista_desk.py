"""A Truco Paulista hand at the desk: the deal with its turn-up by clicks, by the grid and pasted, face-down cards and
concessions entered every way, the rulings in four languages, and every new field attacked."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

import pytest
from deskserver import Served, rulings, served
from test_desk_battery import SWEEP, Battery, _marker_files, _probe, _state
from test_desk_i18n import Walk

from vitou_ref.desk.forms import _example
from vitou_ref.desk.ops import FIELDS
from vitou_ref.engine.tables import tables_for
from vitou_ref.rules.registry import load_ruleset

TP = "truco-paulista/1.0.0"
FOLD = {"A": ["QS", "3H", "5C"], "B": ["QC", "2S", "4D"], "turn_up": "7D"}  # §8, the first worked example
ELEVEN = {"A": ["AS", "4C", "6D"], "B": ["2C", "3S", "5H"], "turn_up": "KH"}  # §8, the second


def _problems(html: str) -> str:
    found = re.search(r'<section class="problems".*?</section>', html, re.S)
    return found.group(0) if found else ""


def _game(s: Served, lang: str = "en", dealer: str = "B", **score: str) -> str:
    fields: dict[str, str | list[str]] = {"ruleset": TP, "lang": lang, "dealer": dealer}
    fields.update({f"score-{k}": v for k, v in score.items()})
    status, html = s.post("game", fields)
    assert status == 200 and not _problems(html), _problems(html)
    return html


def _legal(html: str) -> list[str]:
    """The legal actions' buttons, as JSON texts."""
    form = re.search(r'<form[^>]*id="legal".*?</form>', html, re.S)
    assert form is not None
    return [x.replace("&quot;", '"') for x in re.findall(r'<button name="action" value="([^"]*)"', form.group(0))]


def _press(s: Served, html: str, action: str) -> str:
    """The legal action whose JSON is ``action`` pressed, as its button sends it."""
    assert action in _legal(html), (action, _legal(html))
    status, page = s.post("act", {"action": action})
    assert status == 200 and not _problems(page), _problems(page)
    return page


def test_the_first_worked_example_entered_by_clicks_gives_b_six_on_the_fold() -> None:
    with served() as s:
        html = _game(s)
        assert 'value="turn_up"' in html  # the picker offers the turn-up after the two hands
        for seat in ("A", "B"):
            for card in FOLD[seat]:
                s.post("pick", {"seat": seat, "card": card, "fill": ""})
        _, html = s.post("pick", {"seat": "turn_up", "card": "7D", "fill": ""})
        assert s.desk.branch.data["deals"] == [FOLD]
        assert "turn-up 7♦: the manilhas are Q♦ Q♠ Q♥ Q♣" in re.sub(r"<[^>]+>", "", html)
        for action in (
            '{"seat": "A", "act": "play", "card": "3H"}',
            '{"seat": "B", "act": "raise", "to": 3}',
            '{"seat": "A", "act": "raise", "to": 6}',
            '{"seat": "B", "act": "accept"}',
            '{"seat": "B", "act": "play", "card": "2S"}',
            '{"seat": "A", "act": "play", "card": "QS"}',
            '{"seat": "B", "act": "play", "card": "QC"}',
        ):
            html = _press(s, html, action)
        # Trick 2 is in play no more; B leads trick 3: B may raise to 9, play any card face up or face down, concede.
        legal = _legal(html)
        assert '{"seat": "B", "act": "play", "card": "4D", "face_down": true}' in legal
        assert '{"seat": "B", "act": "concede"}' in legal and '{"seat": "B", "act": "raise", "to": 9}' in legal
        html = _press(s, html, '{"seat": "B", "act": "raise", "to": 9}')
        html = _press(s, html, '{"seat": "A", "act": "refuse"}')
        assert [r[1] for r in rulings(html)] == ["legal"] * 9
        text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
        assert "B scores 6 on the fold" in text and "A folds" in text and "rule tp.fold (" in text


def test_the_second_worked_example_by_the_grid_with_a_face_down_card_from_the_menus() -> None:
    with served() as s:
        html = _game(s, dealer="A", A="11", B="7")
        assert 'name="turn_up"' in html  # the grid has the turn-up's choice
        status, html = s.post(
            "deal", {"deal": "0", "paste": "", "card-A": ELEVEN["A"], "card-B": ELEVEN["B"], "turn_up": "KH"}
        )
        assert status == 200 and not _problems(html), _problems(html)
        assert s.desk.branch.data["deals"] == [ELEVEN]
        status, html = s.post("typed", {"text": "A takes B 3S A AS"})
        assert not _problems(html)
        assert ">play a card face down: 4♣<" in html  # the menu's words for "A _4C"
        status, html = s.post("other", {"who": "A", "what": "_4C"})
        assert not _problems(html)
        assert s.desk.branch.data["actions"][-1] == {"seat": "A", "act": "play", "card": "4C", "face_down": True}
        # The ruling and the position show the card as face down, not the card (clarification 7).
        text = re.sub(r"<[^>]+>", "", html)
        assert "cards played: A a card face down" in text and "A plays a card face down" in text
        status, html = s.post("typed", {"text": "B 5H B 2C A 6D"})
        assert [r[1] for r in rulings(html)] == ["legal"] * 7
        assert "B wins the hand and scores 3; score A 11, B 10" in re.sub(r"<[^>]+>", "", html)


def test_a_deal_pasted_with_its_turn_up_and_a_concession_entered_from_its_button() -> None:
    with served() as s:
        _game(s)
        t = tables_for(load_ruleset(TP))
        assert _example(t) == "A: AS KH QD; B: JC 6H 5D; turn_up: 4C"  # the paste box's example, in the game's words
        _, html = s.post("deal", {"deal": "0", "paste": "A: QS 3H 5C; B: QC 2S 4D; turn_up: 7D"})
        assert not _problems(html) and s.desk.branch.data["deals"] == [FOLD]
        html = _press(s, html, '{"seat": "A", "act": "concede"}')
        assert "B scores 1: the hand is conceded" in re.sub(r"<[^>]+>", "", html)
        assert "rule tp.concede (" in html
        _, html = s.post("deal", {"deal": "1", "paste": "{A: [AS, 4C, 6D], B: [2C, 3S, 5H], turn_up: KH}"})
        assert not _problems(html) and s.desk.branch.data["deals"][1] == ELEVEN


@pytest.mark.parametrize(
    ("op", "fields", "said"),
    [
        ("pick", {"seat": "turn_up", "card": "?", "fill": ""}, "the turn-up is public"),
        ("pick", {"seat": "turn_up", "fill": "seat"}, "the turn-up is public"),
        ("deal", {"deal": "0", "paste": "A: QS 3H 5C; B: QC 2S 4D; turn_up: ?"}, "RECORD_SETUP"),
        ("deal", {"deal": "0", "paste": "A: QS 3H 5C; B: QC 2S 4D; turn_up: QS"}, "RECORD_SETUP"),
        ("deal", {"deal": "0", "paste": "A: QS 3H 5C; B: QC 2S 4D; turn_up: 7D 8D"}, "SCHEMA"),
        ("deal", {"deal": "0", "paste": "A: QS 3H 5C; B: QC 2S 4D"}, "RECORD_SETUP"),
        ("deal", {"deal": "0", "card-A": FOLD["A"], "card-B": FOLD["B"], "turn_up": "8C"}, "RECORD_SETUP"),
        ("deal", {"deal": "0", "card-A": FOLD["A"], "card-B": FOLD["B"], "turn_up": "\u202e7D"}, "RECORD_SETUP"),
    ],
)
def test_a_turn_up_the_desk_cannot_take_is_said_and_the_record_kept(op: str, fields: dict[str, Any], said: str) -> None:
    with served() as s:
        _game(s)
        before = copy.deepcopy(s.desk.branch.data)
        status, html = s.post(op, fields)
        assert status == 200 and said in _problems(html), _problems(html) or html[-300:]
        assert s.desk.branch.data == before and "\u202e" not in html


def test_a_turn_up_under_a_game_that_turns_none_up_is_refused_and_never_offered() -> None:
    with served() as s:
        status, html = s.post("game", {"ruleset": "le-truc/1.1.0", "dealer": "B"})
        assert 'value="turn_up"' not in html and 'name="turn_up"' not in html
        status, html = s.post("deal", {"deal": "0", "paste": "A: 7S 8S 9S; B: 7H 8H 9H; turn_up: 7D"})
        assert "RECORD_SETUP" in _problems(html) and s.desk.branch.data["deals"] == []
        status, html = s.post("pick", {"seat": "turn_up", "card": "7D", "fill": ""})
        assert status == 400


# ------------------------------------------------------------------ in four languages


@pytest.mark.parametrize("lang", ["fr", "pt", "ru"])
def test_no_page_of_a_truco_paulista_hand_shows_an_english_word(lang: str) -> None:
    with served() as s:
        w = Walk(s, lang)
        s.desk.lang = lang
        w.post("truco paulista set", "game", {"ruleset": TP, "lang": lang, "dealer": "B"})
        w.post("a card picked", "pick", {"seat": "A", "card": "QS", "fill": ""})
        w.post("the turn-up not recorded", "pick", {"seat": "turn_up", "card": "?", "fill": ""})
        w.post("a deal pasted", "deal", {"deal": "0", "paste": "A: QS 3H 5C; B: QC 2S 4D; turn_up: 7D"})
        w.post("a face-down card in trick 1", "typed", {"text": "A _3H"})
        w.post("the hand played", "typed", {"text": "A 3H B r3 A r6 B accept B 2S A r9 B concede A QS"})
        w.post("a face-down card from the menus", "other", {"who": "B", "what": "_QC"})
        w.post("a concession after the hand", "other", {"who": "A", "what": "concede"})
        w.post("a what-if", "branch", {"at": "2"})
        w.post("back", "switch", {"branch": "0"})
        w.post("a hand of eleven", "new")
        w.post("at 11", "game", {"ruleset": TP, "lang": lang, "dealer": "A", "score-A": "11", "score-B": "7"})
        w.post("its deal", "deal", {"deal": "0", "paste": "A: AS 4C 6D; B: 2C 3S 5H; turn_up: KH"})
        w.post("the hand of eleven played", "typed", {"text": "B concede A takes B 3S A AS A _4C B 5H B 2C A 6D"})
        w.look("the hand of eleven")
    failures = w.failures()
    assert not failures, "\n".join(failures)


# ------------------------------------------------------------------ the new fields attacked


@pytest.fixture(scope="module")
def battery(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Battery]:
    folder = tmp_path_factory.mktemp("paulista-battery")
    with served() as s:
        s.server.RequestHandlerClass.timeout = 2  # type: ignore[attr-defined]
        for op, fields in [
            ("game", {"ruleset": TP, "dealer": "B"}),
            ("deal", {"deal": "0", "paste": "A: QS 3H 5C; B: QC 2S 4D; turn_up: 7D"}),
            ("typed", {"text": "A 3H B r3 A r6 B accept B 2S"}),
        ]:
            status, html = s.post(op, fields)
            assert status == 200 and not _problems(html), (op, _problems(html))
        base: dict[str, dict[str, str | list[str]]] = {
            "deal": {"deal": "1", "paste": "", "card-A": ELEVEN["A"], "card-B": ELEVEN["B"], "turn_up": "KH"},
            "pick": {"seat": "turn_up", "card": "KH", "fill": ""},
            "other": {"who": "A", "what": "_QS"},
            "typed": {"text": "A _QS"},
            "act": {"action": '{"seat": "A", "act": "play", "card": "QS", "face_down": true}'},
            "game": {"ruleset": TP, "lang": "en", "dealer": "B", "score-A": "11", "score-B": "11"},
        }
        yield Battery(s, _marker_files(folder), _state(s), base)


ATTACKS = [
    *SWEEP,
    *("_", "__QS", "_?", "_8C", "concede", "_QS\u202e", "\u2066concede\u2069", "7D\x00", "turn_up", "TURN_UP"),
    *('{"seat": "A", "act": "play", "card": "QS", "face_down": false}', '{"seat": "A", "act": "concede", "x": 1}'),
    *('{"seat": "A", "act": "play", "card": "QS", "face_down": "yes"}', "K" + "H" * 100_000),
]


def test_every_field_of_the_truco_paulista_forms_with_every_hostile_value(battery: Battery) -> None:
    probed = 0
    for op, base in battery.base.items():
        for name in [*base, *(n for n in FIELDS[op] if "*" not in n and n not in base)]:
            for value in ATTACKS:
                _probe(battery, op, name, value)
                probed += 1
    assert probed > 500 and ("deal", "turn_up") in battery.reached and ("pick", "seat") in battery.reached
