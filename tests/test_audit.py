"""Records, the notation, the audit of the shipped disputes in four languages, and the rulebook."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import ROOT

from vitou_ref import load_ruleset
from vitou_ref.audit.i18n import clause_words
from vitou_ref.audit.notation import parse_notation, write_notation
from vitou_ref.cli import main
from vitou_ref.engine.reasons import catalog
from vitou_ref.engine.tables import tables_for
from vitou_ref.kit.suite import load_suite
from vitou_ref.rules.schema import first_error
from vitou_ref.rules.yamlsafe import load_path

DISPUTES = ROOT / "conformance" / "disputes"
EXPECTED = load_path(str(DISPUTES / "expected.yaml")).data["disputes"]
LANGS = ["en", "fr", "pt", "ru"]
NORTH = {"en": "North", "fr": "Nord", "pt": "Norte", "ru": "Север"}


def audit_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    main(["audit", *args, "--format", "json"])
    return json.loads(capsys.readouterr().out)


def test_at_least_fifteen_disputes_are_shipped() -> None:
    files = sorted(p.name for p in DISPUTES.glob("[0-9]*.yaml"))
    assert len(files) >= 15 and sorted(EXPECTED) == files


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_dispute_is_ruled_as_expected_in_every_language(
    capsys: pytest.CaptureFixture[str], name: str, lang: str
) -> None:
    expected = EXPECTED[name]
    out = audit_json(capsys, str(DISPUTES / name), "--continue", "--lang", lang)
    assert first_error(out, "audit") is None
    assert out["language"] == lang
    ruling = out["rulings"][expected["ruling"]["at"] - 1]
    if expected["ruling"].get("legal"):
        assert ruling["legal"] is True
        if "trick_winner" in expected["ruling"]:
            tricks = [e for e in ruling["events"] if e["event"] == "trick"]
            assert tricks and tricks[-1]["winner"] == expected["ruling"]["trick_winner"]
    else:
        assert ruling["legal"] is False
        assert ruling["code"] == expected["ruling"]["code"]
        assert ruling["clause"]["id"] == expected["ruling"]["clause"]
        # The clause is cited in the reader's language, with its own wording.
        rules = load_ruleset(out["ruleset"]["name"])
        title, text = clause_words(rules.clause(ruling["clause"]["id"]), lang)
        assert (ruling["clause"]["title"], ruling["clause"]["text"]) == (title, text)
        if lang != "en":
            assert text != rules.clause(ruling["clause"]["id"]).text
        assert ruling["reason"]["text"] and ruling["reason"]["key"]
    assert out["final"]["score"] == expected["final"]["score"]
    assert out["final"]["winner"] == expected["final"]["winner"]
    seat_descriptions = [r["description"] for r in out["rulings"] if r["action"].get("seat") == "N"]
    assert all(NORTH[lang] in d for d in seat_descriptions)


@pytest.mark.parametrize("lang", LANGS)
def test_the_text_ruling_is_in_the_readers_language(capsys: pytest.CaptureFixture[str], lang: str) -> None:
    assert main(["audit", str(DISPUTES / "03-raise-from-last.yaml"), "--lang", lang]) == 1
    out = capsys.readouterr().out
    rules = load_ruleset("vitou/1.0.0")
    title, text = clause_words(rules.clause("bid.not_last"), lang)
    assert title in out and text in out
    assert catalog(lang)["names"]["seats"]["W"] in out
    assert "RAISE_FROM_LAST" in out and "bid.not_last" in out
    if lang != "en":
        assert "is last to play" not in out  # the English ruling sentence is not what a French reader gets


def test_markdown_and_stopping(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(DISPUTES / "03-raise-from-last.yaml"), "--format", "markdown"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("# Audit of") and "**ILLEGAL**" in out and "stops at the first illegal action" in out


def test_continue_treats_an_illegal_action_as_not_made(capsys: pytest.CaptureFixture[str]) -> None:
    out = audit_json(capsys, str(DISPUTES / "02-refusal-not-follower.yaml"))
    assert out["stopped_at"] == 3 and out["summary"]["ruled"] == 3
    out = audit_json(capsys, str(DISPUTES / "16-refusal-after-acceptance.yaml"), "--continue")
    assert out["stopped_at"] is None and out["rulings"][4]["not_made"] is True


def test_claims_are_upheld_or_rejected(capsys: pytest.CaptureFixture[str]) -> None:
    out = audit_json(capsys, str(DISPUTES / "03-raise-from-last.yaml"))
    assert out["rulings"][3]["claims"][0]["upheld"] is True
    out = audit_json(capsys, str(DISPUTES / "15-wink-then-refusal.yaml"))
    assert out["rulings"][3]["claims"][0]["upheld"] is False


def test_at_explains_the_position_with_the_clause_allowing_each_action(capsys: pytest.CaptureFixture[str]) -> None:
    main(["audit", str(DISPUTES / "01-section-05-refusal.yaml"), "--at", "5", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    pos = out["position"]
    assert pos["turn"] == "S" and pos["bid"] == 6 and pos["bidder"] == "E" and pos["bidder_side"] == "EW"
    assert pos["may_refuse"] == ["S"] and pos["may_bid"] == ["S"]
    clauses = {a["action"]["act"]: a["clause"] for a in pos["legal"]}
    assert clauses == {"play": "bid.answer", "raise": "bid.answer", "refuse": "bid.refusal"}
    assert main(["audit", str(DISPUTES / "01-section-05-refusal.yaml"), "--at", "1", "--lang", "fr"]) == 0
    text = capsys.readouterr().out
    assert "Nord" in text and "bid.open" in text
    assert main(["audit", str(DISPUTES / "01-section-05-refusal.yaml"), "--at", "99"]) == 2


def test_compare_ruleset_shows_where_and_why_rulings_part(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(DISPUTES / "08-partners-tie.yaml")
    assert main(["audit", path, "--compare-ruleset", "vitou-partners-tie", "--format", "json"]) == 1
    out = json.loads(capsys.readouterr().out)
    (d,) = out["divergences"]
    assert d["n"] == 4 and "pt.tie" in d["because"]
    base, other = d["vitou/1.0.0"], d["vitou-partners-tie/1.0.0"]
    assert base["events"] == [{"event": "trick", "trick": 1, "winner": None}]
    assert other["events"] == [{"event": "trick", "trick": 1, "winner": "N"}]
    assert main(["audit", path, "--compare-ruleset", "vitou"]) == 0


def test_a_profile_ruling_cites_the_profiles_clause(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "2p.yaml"
    record.write_text(
        "format: 1\nheader: {ruleset: vitou-2p/1.0.0, dealer: S}\n"
        "deals:\n  - {N: [AS, 7H, 8C], S: [9C, KD, JH]}\nactions: N AS S r3\n",
        encoding="utf-8",
    )
    out = audit_json(capsys, str(record), "--lang", "pt")
    ruling = out["rulings"][1]
    assert ruling["code"] == "RAISE_FROM_LAST" and ruling["clause"]["id"] == "2p.not_last"
    assert ruling["clause"]["origin"] == "vitou-2p/1.0.0"


# ------------------------------------------------------------------ bad input

BAD = [
    ("truncated", "format: 1\nheader: {ruleset: vitou/1.0.0, dealer: W\n", "YAML_SYNTAX", 3),
    ("no header", "format: 1\ndeals: []\nactions: ''\n", "SCHEMA", 1),
    (
        "unknown ruleset",
        "format: 1\nheader: {ruleset: vitou/9.9.9, dealer: W}\ndeals: []\nactions: ''\n",
        "RECORD_RULESET_UNKNOWN",
        2,
    ),
    (
        "hash mismatch",
        "format: 1\nheader:\n  ruleset: vitou/1.0.0\n  hash: sha256:"
        + "0" * 64
        + "\n  dealer: W\ndeals: []\nactions: ''\n",
        "RECORD_HASH_MISMATCH",
        4,
    ),
    (
        "notation typo",
        "format: 1\nheader: {ruleset: vitou/1.0.0, dealer: W}\n"
        "deals:\n  - {N: [AS, 7H, 8C], E: [9C, KD, JH], S: [10H, QS, 8D], W: [7C, AD, 9S]}\n"
        "actions: |\n  N r3 N AS\n  E A5 S refuse\n",
        "NOTATION_ACTION",
        7,
    ),
    (
        "bad card in a deal",
        "format: 1\nheader: {ruleset: vitou/1.0.0, dealer: W}\n"
        "deals:\n  - {N: [AS, 7H, 8C], E: [9C, KD, JH], S: [10H, QS, 8D], W: [7C, AD, 9X]}\nactions: ''\n",
        "RECORD_SETUP",
        4,
    ),
    (
        "a date unquoted",
        "format: 1\nheader: {ruleset: vitou/1.0.0, dealer: W, date: 2026-11-20}\ndeals: []\nactions: ''\n",
        "YAML_DATE",
        2,
    ),
]


@pytest.mark.parametrize(("name", "text", "code", "line"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_record_gets_a_located_message_and_no_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, code: str, line: int
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    assert main(["audit", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{line}" in err and code in err, err
    assert "Traceback" not in err


def test_a_typo_is_located_to_its_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "typo.yaml"
    path.write_text(
        "format: 1\nheader: {ruleset: vitou/1.0.0, dealer: W}\n"
        "deals:\n  - {N: [AS, 7H, 8C], E: [9C, KD, JH], S: [10H, QS, 8D], W: [7C, AD, 9S]}\n"
        "actions: |\n  N r3 N AS\n  E A5 S refuse X 9C\n",
        encoding="utf-8",
    )
    assert main(["audit", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:7:5: NOTATION_ACTION" in err and "'A5'" in err
    assert f"{path}:7:17: NOTATION_WHO" in err  # every problem, not just the first


def test_oversized_records_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "big.yaml"
    path.write_text(
        "format: 1\nheader: {ruleset: vitou/1.0.0, dealer: W}\ndeals: []\nactions: '" + "N AS " * 300_000 + "'\n"
    )
    assert main(["audit", str(path)]) == 2
    assert "YAML_TOO_LARGE" in capsys.readouterr().err


# ------------------------------------------------------------------ notation and records


def test_the_notation_round_trips_every_case_of_the_suite() -> None:
    t = tables_for(load_ruleset("vitou/1.0.0"))
    for case in load_suite().applicable("vitou/1.0.0"):
        actions = case.plain_actions
        readable = [a for a in actions if isinstance(a, dict) and _writable(a)]
        if len(readable) != len(actions):
            continue
        parsed, problems = parse_notation(write_notation(actions), t)
        assert not problems, (case.id, problems)
        assert [p.action for p in parsed] == actions, case.id


def _writable(a: dict) -> bool:
    seat_ok = a.get("seat") in ("N", "E", "S", "W") or a.get("side") in ("NS", "EW")
    who = "side" if "side" in a else "seat"
    known = {"play": {"card"}, "raise": {"to"}, "signal": {"signal"}}
    fields = {who, "act", *known.get(str(a.get("act")), set())}
    card_ok = a.get("act") != "play" or bool(re.match(r"^(10|[9AKQJ87])[SHDC]$", str(a.get("card"))))
    signal_ok = a.get("act") != "signal" or bool(re.match(r"^[a-z]+$", str(a.get("signal"))))
    to = a.get("to")
    # "r3" reads back as the number 3: a bid written as the text "3" has no notation.
    to_ok = (
        a.get("act") != "raise" or isinstance(to, int) or (isinstance(to, str) and to.isalnum() and not to.isdigit())
    )
    acts = {"play", "raise", "refuse", "pass", "play_hand", "decline_hand", "signal"}
    side_act = a.get("act") in ("play_hand", "decline_hand") and "side" in a
    who_ok = ("side" in a) != ("seat" in a) and (side_act or ("seat" in a and a.get("act") != "decline_hand"))
    return seat_ok and who_ok and set(a) == fields and card_ok and signal_ok and to_ok and a.get("act") in acts


def test_record_conversions_are_canonical(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = DISPUTES / "02-refusal-not-follower.yaml"
    assert main(["record", str(src), "--to", "json", "-o", str(tmp_path / "r.json")]) == 0
    data = json.loads((tmp_path / "r.json").read_text())
    assert first_error(data, "record") is None
    assert list(data["header"]) == ["event", "place", "date", "players", "ruleset", "dealer"]
    assert data["actions"][2] == {"seat": "W", "act": "refuse"}
    assert main(["record", str(tmp_path / "r.json"), "-o", str(tmp_path / "r.yaml")]) == 0
    assert main(["record", str(tmp_path / "r.yaml"), "-o", str(tmp_path / "r2.yaml")]) == 0
    assert (tmp_path / "r.yaml").read_text() == (tmp_path / "r2.yaml").read_text()
    assert main(["record", str(src), "--to", "notation"]) == 0
    assert capsys.readouterr().out.strip() == "N r3 N AS W refuse"


def test_a_record_from_a_case_replays_to_the_cases_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["record", "--from-case", "VT-0001", "-o", str(tmp_path / "c.yaml")]) == 0
    out = audit_json(capsys, str(tmp_path / "c.yaml"))
    assert out["final"] == {"score": {"NS": 0, "EW": 3}, "dealer": "N", "winner": None}


# ------------------------------------------------------------------ rulebook


@pytest.mark.parametrize("lang", LANGS)
def test_the_rulebook_is_a_readable_self_contained_page(tmp_path: Path, lang: str) -> None:
    out = tmp_path / "book.html"
    assert main(["rulebook", "--lang", lang, "--format", "html", "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and f'<html lang="{lang}">' in page
    assert "http://" not in page and "https://" not in page and "<script" not in page and "<link" not in page
    rules = load_ruleset("vitou/1.0.0")
    for clause in rules.clauses:
        title, _ = clause_words(clause, lang)
        assert f'id="clause-{clause.id.replace(".", "-")}"' in page
        assert title.replace("'", "&#x27;").replace('"', "&quot;") in page.replace("&amp;", "&")
    anchors = set(re.findall(r'id="([^"]+)"', page))
    links = set(re.findall(r'href="#([^"]+)"', page))
    assert links <= anchors  # every link leads somewhere
    assert any(a.startswith("example-VT-") for a in anchors)


def test_the_rulebook_of_a_profile_shows_its_decisions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rulebook", "--ruleset", "vitou-2p", "--lang", "fr"]) == 0
    md = capsys.readouterr().out
    assert "2p.not_last" in md and "103" in md
    assert catalog("fr")["rulebook"]["decisions"] in md


@pytest.mark.parametrize("lang", ["fr", "pt", "ru"])
def test_every_text_is_translated_from_todays_english(lang: str) -> None:
    from vitou_ref import shipped_names
    from vitou_ref.audit.i18n import missing

    todo = list(missing([load_ruleset(n) for n in shipped_names()], lang))
    assert not todo, todo[:5]
