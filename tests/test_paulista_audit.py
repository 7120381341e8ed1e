"""Truco Paulista records audited: the rules text's worked examples (§8), mistakes with their codes and clauses,
the turn-up, face-down cards and concessions in the notation, in the record and in four languages."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT
from test_desk_i18n import english_words

from vitou_ref import load_ruleset
from vitou_ref.audit.audit import Words, audit
from vitou_ref.audit.auditpage import page
from vitou_ref.audit.grounds import event_clauses
from vitou_ref.audit.notation import parse_notation, to_notation, write_notation
from vitou_ref.audit.record import dump_record, load_record, read_record, record_from_case
from vitou_ref.audit.report import audit_json, audit_text, compare, position_json
from vitou_ref.audit.whatif import what_ifs
from vitou_ref.cli import main
from vitou_ref.engine.events import HandEvent
from vitou_ref.engine.tables import tables_for
from vitou_ref.kit.suite import load_suite
from vitou_ref.rules.errors import InputError

DATA = ROOT / "tests" / "data" / "paulista"
TP = "truco-paulista/1.0.0"
LANGS = ("en", "fr", "pt", "ru")


def _audit(name: str) -> Any:
    record, rules = load_record(str(DATA / name))
    return audit(record, rules, go_on=True)


def _record(deal: dict[str, Any], actions: Any, dealer: str = "B", **header: Any) -> Any:
    head = {"ruleset": TP, "dealer": dealer, **header}
    return read_record(json.dumps({"format": 1, "header": head, "deals": [deal], "actions": actions}), "<test>")


FOLD_DEAL = {"A": ["QS", "3H", "5C"], "B": ["QC", "2S", "4D"], "turn_up": "7D"}


# ------------------------------------------------------------------ the worked examples (§8)


def test_the_first_worked_example_a_fold_gives_b_six() -> None:
    a = _audit("fold.yaml")
    assert all(r.legal for r in a.rulings) and a.stopped_at is None
    (hand,) = a.rulings[-1].events
    assert isinstance(hand, HandEvent) and (hand.winner, hand.points, hand.reason) == ("B", 6, "refusal")
    assert a.final["score"] == {"A": 0, "B": 6} and a.final["winner"] is None
    # A's 3 beats B's 2 (trick 1); the manilha of clubs beats the manilha of spades (trick 2): turn-up 7D, queens.
    assert [e.winner for e in a.rulings[4].events] == ["A"] and [e.winner for e in a.rulings[6].events] == ["B"]
    assert a.rulings[6].allowed_by == "tp.trick"
    said = audit_text(a, "en")
    assert "B raises to 3" in said and "A folds" in said and "B scores 6 on the fold" in said


def test_the_second_worked_example_a_hand_of_eleven_with_a_face_down_card() -> None:
    a = _audit("eleven.yaml")
    assert all(r.legal for r in a.rulings)
    assert a.rulings[0].allowed_by == "tp.eleven_decision"
    assert a.rulings[3].action == {"seat": "A", "act": "play", "card": "4C", "face_down": True}
    assert a.rulings[3].allowed_by == "tp.face_down"
    assert [e.winner for e in a.rulings[4].events] == ["B"]  # 5H face up beats any face-down card
    hand = a.rulings[-1].events[-1]
    assert isinstance(hand, HandEvent) and (hand.winner, hand.points, hand.mode) == ("B", 3, "twenty")
    assert a.final["score"] == {"A": 11, "B": 10}
    said = audit_text(a, "en")
    assert "A plays the hand of eleven" in said and "A plays a card face down  [A _4C]" in said
    # The position before B's answer to the face-down card: the hand of eleven is worth 3; the card is face down,
    # not named (clarification 7), while B's own cards are its options, each named.
    before = position_json(a.rules, a.positions[4], 5, "en")
    assert before["position"]["turn_up"] == "KH" and before["position"]["value"] == 3
    assert before["position"]["played"] == [{"seat": "A", "card": None, "face_down": True}]
    assert "turn-up KH: the manilhas are AD AS AH AC" in before["description"]
    assert "cards played: A a card face down" in " ".join(before["description"])
    assert "B plays 5H face down" in [x["description"] for x in before["position"]["legal"]]


@pytest.mark.parametrize("lang", LANGS)
def test_a_card_played_face_down_is_never_named_by_the_rulings_only_by_the_records_own_notation(lang: str) -> None:
    # Clarification 7: "a record's replay and the desk show the card as face down, not the card". 4C is named by
    # the record's notation, quoted as written ([A _4C]), and nowhere else: not in the ruling, the position of a
    # later ruling, the JSON descriptions or the page's words.
    record, rules = _record(
        {"A": ["AS", "4C", "6D"], "B": ["2C", "3S", "5H"], "turn_up": "KH"},
        "A takes B 3S A AS A _4C A 6D B 2C",
        dealer="A",
        score={"A": 11, "B": 7},
    )
    a = audit(record, rules, go_on=True)
    assert [r.code for r in a.rulings] == [None] * 4 + ["NOT_YOUR_TURN", None]
    text = re.sub(r"\[[^\]]*\]", "", audit_text(a, lang))
    assert "4C" not in text and "6D" in text  # the illegal card, played face up, is named
    j = audit_json(a, lang)
    assert j["rulings"][4]["position"]["played"] == [{"seat": "A", "card": None, "face_down": True}]
    assert "4C" not in json.dumps([r.get("description") for r in j["rulings"]])
    assert "4C" not in json.dumps([r.get("position", {}).get("played") for r in j["rulings"]])
    html = page(a, lang)
    shown = re.sub(r'<code class="notation">[^<]*</code>', "", html.split('id="rulings"', 1)[1])
    assert "4♣" not in shown and "4C" not in shown


# ------------------------------------------------------------------ mistakes, in four languages

MISTAKES = [  # action, code, clause
    (1, "FACE_DOWN_TOO_EARLY", "tp.face_down"),
    (7, "RAISE_OWN_SIDE", "tp.alternating"),
    (8, "CONCEDE_OUT_OF_TURN", "tp.concede_in_turn"),
    (11, "NO_DEAL", "tp.hand"),
]


@pytest.mark.parametrize("lang", LANGS)
def test_each_mistake_gets_its_code_and_clause_in_every_language(lang: str) -> None:
    a = _audit("mistakes.yaml")
    illegal = [(r.n, r.code, r.clause) for r in a.rulings if not r.legal]
    assert illegal == MISTAKES
    assert [c.upheld(False, a.rulings[c.at - 1].code) for c in a.record.claims] == [True, True]
    j = audit_json(a, lang)
    assert [(x["n"], x["code"], x["clause"]["id"]) for x in j["rulings"] if not x["legal"]] == MISTAKES
    text, html = audit_text(a, lang), page(a, lang)
    for n, code, clause in MISTAKES:
        assert code in text and clause in text and f'id="ruling-{n}"' in html
    # The concession after the hand's end rests on what ended the hand: B's face-down card lost trick 2.
    assert j["rulings"][10]["reason"]["key"] == "hand_ended.tricks"
    if lang != "en":
        own = [str(x) for x in a.record.header.values()] + [c.claim for c in a.record.claims]
        for said, what in ((text, "text"), (html, "page"), (json.dumps(j, ensure_ascii=False), "json")):
            assert english_words(_prose(said), lang, own) == [], f"{lang} {what}"


def _prose(said: str) -> str:
    """The words of an audit as a person reads them: its texts, not a JSON audit's keys or identifiers, nor the
    notation a text audit quotes in brackets (the notation's words are the same in every language)."""
    if not said.startswith("{"):
        return re.sub(r"\[[^\]\n]*\]", " ", said)
    texts: list[str] = []

    def walk(v: Any, key: str = "") -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                walk(x, k)
        elif isinstance(v, list):
            for x in v:
                walk(x, key)
        elif isinstance(v, str) and key in ("description", "text", "ruling", "title", "event_descriptions"):
            texts.append(v)

    walk(json.loads(said))
    return "\n".join(texts)


@pytest.mark.parametrize("lang", LANGS)
def test_the_worked_examples_read_in_every_language(lang: str) -> None:
    for name in ("fold.yaml", "eleven.yaml"):
        a = _audit(name)
        text = audit_text(a, lang)
        assert text.count("\n") > len(a.rulings)
        if lang != "en":
            assert english_words(_prose(text), lang, [str(a.record.header["event"])]) == [], name
            assert english_words(page(a, lang), lang, [str(a.record.header["event"])]) == [], name


# ------------------------------------------------------------------ concessions


def test_a_concession_scores_what_its_position_gives() -> None:
    # While A's raise to 3 waits for B: a fold, 1 to A. Before any raise: the stake, 1. After an accepted 3: 3.
    for actions, points, winner in [
        ("A r3 B concede", 1, "A"),
        ("A concede", 1, "B"),
        ("A r3 B accept A 3H B concede", 3, "A"),
        ("A 3H B r3 A r6 B r9 A concede", 6, "B"),
    ]:
        record, rules = _record(FOLD_DEAL, actions)
        a = audit(record, rules)
        hand = a.rulings[-1].events[0]
        assert isinstance(hand, HandEvent) and (hand.reason, hand.winner, hand.points) == ("conceded", winner, points)
        assert a.rulings[-1].allowed_by == "tp.concede"
        assert event_clauses(rules, a.rulings[-1].events) == ["tp.concede"]
        assert "concedes the hand" in audit_text(a, "en")


def test_at_the_decision_of_a_hand_of_eleven_a_concession_gives_one_and_the_other_player_may_not_concede() -> None:
    deal = {"A": ["AS", "4C", "6D"], "B": ["2C", "3S", "5H"], "turn_up": "KH"}
    record, rules = _record(deal, "B concede A concede", dealer="A", score={"A": 11, "B": 7})
    a = audit(record, rules, go_on=True)
    assert (a.rulings[0].code, a.rulings[0].clause) == ("CONCEDE_OUT_OF_TURN", "tp.concede_in_turn")
    assert a.rulings[0].reason is not None and a.rulings[0].reason.key == "concede_not_deciding"
    (hand,) = a.rulings[1].events
    assert isinstance(hand, HandEvent) and (hand.winner, hand.points, hand.reason) == ("B", 1, "conceded")


def test_a_concession_or_a_face_down_card_in_another_game_is_not_a_decision_of_it() -> None:
    vitou = {"N": ["AS", "7H", "8C"], "E": ["9C", "KD", "JH"], "S": ["10H", "QS", "8D"], "W": ["7C", "AD", "9S"]}
    data = {"format": 1, "header": {"ruleset": "vitou/1.0.0", "dealer": "W"}, "deals": [vitou]}
    record, rules = read_record(json.dumps({**data, "actions": "N concede N _AS"}), "<vitou>")
    a = audit(record, rules, go_on=True)
    assert [(r.code, r.clause) for r in a.rulings] == [("ACTION_MALFORMED", rules.error("ACTION_MALFORMED").clause)] * 2
    assert [r.reason.key for r in a.rulings if r.reason] == ["act_not_of_this_game", "face_down_not_of_this_game"]


# ------------------------------------------------------------------ the notation and the record


def test_the_notation_writes_face_down_cards_and_concessions_and_reads_them_back() -> None:
    t = tables_for(load_ruleset(TP))
    actions = [
        {"seat": "A", "act": "play", "card": "4C", "face_down": True},
        {"seat": "B", "act": "play", "card": "?", "face_down": True},
        {"seat": "B", "act": "concede"},
        {"side": "A", "act": "play_hand"},
        {"side": "A", "act": "decline_hand"},
        {"seat": "A", "act": "raise", "to": 3},
    ]
    text = write_notation(actions)
    assert text == "A _4C B _? B concede A takes A declines A r3"
    parsed, problems = parse_notation(text, t)
    assert not problems and [p.action for p in parsed] == actions
    # What no group holds exactly is written as the action itself, so that a canonical record keeps it.
    for odd in (
        {"seat": "A", "act": "play", "card": "4C", "face_down": False},
        {"seat": "A", "act": "play", "card": "4C", "face_down": "yes"},
        {"seat": "A", "act": "play", "card": "4C", "face_down": 1},
        {"seat": "A", "act": "concede", "card": "4C"},
        {"seat": "A", "act": "play", "card": 5, "face_down": True},
    ):
        assert to_notation(odd).startswith("{"), odd
    _, problems = parse_notation("A _8C A _ A concedes A _4C_", t)
    assert [p.code for p in problems] == ["NOTATION_ACTION"] * 4
    assert "did you mean concede?" in problems[1].message or "did you mean concede?" in problems[2].message
    assert "a card face down such as _" in problems[0].message


def test_every_truco_paulista_case_written_as_a_canonical_record_reads_back_the_same() -> None:
    t = tables_for(load_ruleset(TP))
    in_notation = checked = 0
    for case in load_suite().applicable(TP):
        data = record_from_case(case, TP)
        try:
            record, _ = read_record(json.dumps(data), case.id)
        except InputError:
            continue  # an unusable setup: no record of it reads
        written = dump_record(record.to_json(), "yaml")
        again, _ = read_record(written, case.id)
        assert [a.action for a in again.actions] == [a.action for a in record.actions], case.id
        checked += 1
        if isinstance(yaml_actions(written), str):
            in_notation += 1
            parsed, problems = parse_notation(write_notation(data["actions"]), t)
            assert not problems and [p.action for p in parsed] == data["actions"], case.id
    assert checked > 80 and in_notation > 60, (checked, in_notation)


def yaml_actions(text: str) -> Any:
    from vitou_ref.rules.yamlsafe import load_text

    return load_text(text, "<canonical>").data["actions"]


def test_a_canonical_record_keeps_the_turn_up_and_the_face_down_cards(tmp_path: Path) -> None:
    record, _ = load_record(str(DATA / "eleven.yaml"))
    canonical = dump_record(record.to_json(), "yaml")
    assert "turn_up: KH" in canonical and "A _4C" in canonical
    again, _ = read_record(canonical, "<again>")
    assert again.to_json() == record.to_json()
    out = tmp_path / "r.json"
    assert main(["record", str(DATA / "eleven.yaml"), "--to", "json", "-o", str(out)]) == 0
    assert json.loads(out.read_text())["deals"][0]["turn_up"] == "KH"


@pytest.mark.parametrize(
    ("deal", "where", "said"),
    [
        ({**FOLD_DEAL, "turn_up": "ZZ"}, "/deals/0/turn_up", "is not a card"),
        ({**FOLD_DEAL, "turn_up": "8C"}, "/deals/0/turn_up", "not a card of the truco-paulista"),
        ({**FOLD_DEAL, "turn_up": "QS"}, "/deals/0/turn_up", "dealt twice"),
        ({**FOLD_DEAL, "turn_up": "?"}, "/deals/0/turn_up", "the turn-up is public"),
        ({**FOLD_DEAL, "turn_up": ["7D"]}, "/deals/0/turn_up", ""),
        ({**FOLD_DEAL, "turn_up": 7}, "/deals/0/turn_up", ""),
        ({**FOLD_DEAL, "turn_up": "7D\u202e"}, "/deals/0/turn_up", ""),
        ({**FOLD_DEAL, "turn_up": "\x1b[2J"}, "/deals/0/turn_up", ""),
        ({**FOLD_DEAL, "turn_up": "7" * 100_000}, "/deals/0/turn_up", ""),
        ({k: v for k, v in FOLD_DEAL.items() if k != "turn_up"}, "/deals/0", "turns up no card"),
    ],
)
def test_a_turn_up_that_is_not_one_is_refused_where_it_is(deal: dict[str, Any], where: str, said: str) -> None:
    with pytest.raises(InputError) as info:
        _record(deal, "A 3H")
    (problem,) = info.value.problems
    assert problem.code in ("RECORD_SETUP", "SCHEMA") and problem.path.startswith(where), problem
    assert said in problem.message and len(problem.message) < 600
    assert "\u202e" not in str(problem.message) or problem.code == "SCHEMA"


@pytest.mark.parametrize("ruleset", ["vitou/1.0.0", "le-truc/1.1.0"])
def test_a_turn_up_in_a_game_that_turns_none_up_is_refused_at_its_place(ruleset: str) -> None:
    t = tables_for(load_ruleset(ruleset))
    pack = [t.card(c).text for c in t.deck]
    k = t.cards_each
    deal: dict[str, Any] = {s: pack[i * k : (i + 1) * k] for i, s in enumerate(t.seat_ids)}
    deal["turn_up"] = pack[-1]
    data = {"format": 1, "header": {"ruleset": ruleset, "dealer": t.seat_ids[-1]}, "deals": [deal], "actions": []}
    with pytest.raises(InputError) as info:
        read_record(json.dumps(data), "<x>")
    (problem,) = info.value.problems
    assert problem.code == "RECORD_SETUP" and problem.path == "/deals/0/turn_up"
    assert "turns up no card" in problem.message


def test_face_down_given_otherwise_than_true_is_a_malformed_action_ruled_as_such() -> None:
    for value in (False, "yes", 1, None, {"x": 1}):
        actions = ["A 3H", "B 2S", {"seat": "A", "act": "play", "card": "QS", "face_down": value}]
        record, rules = _record(FOLD_DEAL, actions)
        a = audit(record, rules)
        assert a.rulings[-1].code == "ACTION_MALFORMED", value
        assert dump_record(record.to_json(), "yaml").count("face_down") == 1


# ------------------------------------------------------------------ cards not recorded


def test_a_card_played_face_down_and_not_recorded_is_ruled_it_counts_for_nothing() -> None:
    deal = {"A": ["QS", "3H", "5C"], "B": ["?", "?", "?"], "turn_up": "7D"}
    record, rules = _record(deal, "A 3H B r3 A r6 B accept B 2S A QS B _?")
    a = audit(record, rules)
    assert all(r.legal and r.open is None for r in a.rulings)
    hand = a.rulings[-1].events[-1]
    assert isinstance(hand, HandEvent) and (hand.winner, hand.points) == ("A", 6)
    assert "B plays a card face down, not recorded" in audit_text(a, "en")


def test_a_card_not_recorded_is_weighed_with_the_hands_manilhas_and_never_the_turn_up() -> None:
    deal = {"A": ["QC", "3H", "5C"], "B": ["?", "?", "?"], "turn_up": "7D"}
    # The manilha of clubs wins whatever B played; the turn-up is nobody's card: B cannot play it.
    record, rules = _record(deal, "A QC B ? A 3H B 7D")
    a = audit(record, rules, go_on=True)
    assert a.rulings[1].legal and [e.winner for e in a.rulings[1].events] == ["A"]
    assert a.rulings[3].code == "CARD_NOT_HELD"
    # A queen of spades, the second manilha, could lose to a queen of hearts or clubs B may hold: not ruled.
    record, rules = _record({**deal, "A": ["QS", "3H", "5C"]}, "A QS B ?")
    assert audit(record, rules).rulings[1].open is not None


def test_a_what_if_of_a_truco_paulista_mistake_values_every_legal_action() -> None:
    record, rules = load_record(str(DATA / "mistakes.yaml"))
    a = audit(record, rules, go_on=True)
    found = what_ifs(record, rules, [r for r in a.rulings if not r.legal])
    at7 = found[7]
    assert {json.dumps(x.action, sort_keys=True) for x in at7.alternatives} >= {
        json.dumps({"seat": "A", "act": "play", "card": "QS", "face_down": True}, sort_keys=True),
        json.dumps({"seat": "A", "act": "concede"}, sort_keys=True),
    }
    values = {to_notation(x.action): x.outcome for x in at7.alternatives}
    assert values["A QS"] is not None and values["A QS"].winner == "A" and values["A QS"].points == 6
    assert values["A _QS"] is not None and values["A _QS"].winner == "B"
    assert values["A concede"] is not None and values["A concede"].ended and values["A concede"].winner == "B"


def test_the_words_of_a_deal_name_the_turn_up_after_the_hands() -> None:
    for lang in LANGS:
        said = Words(load_ruleset(TP), lang).deal(FOLD_DEAL)
        assert said.endswith("7D") and "Q S" not in said and re.search(r"QS 3H 5C", said)


def test_a_truco_paulista_record_compared_under_a_game_without_a_turn_up_says_why_it_cannot_be() -> None:
    record, rules = load_record(str(DATA / "fold.yaml"))
    with pytest.raises(InputError) as info:
        compare(record, rules, load_ruleset("le-truc/1.1.0"), "en")
    assert "le-truc/1.1.0 turns up no card" in str(info.value)


def test_the_account_of_a_match_names_each_turn_up(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "--ruleset", "truco-paulista", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count("  turn-up: ") >= out.count("\nhand ") > 1
