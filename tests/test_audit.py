"""Records, the notation, the audit of the shipped disputes in four languages, and the rulebook."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT

from vitou_ref import load_ruleset
from vitou_ref.audit.audit import Words
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
    if "claim" in expected:  # a claim is answered with what the rules give and the clause that gives it
        (claim,) = ruling["claims"]
        assert claim["clauses"] == expected["claim"]["clauses"]
        assert all(f"{c} (" in claim["ruling"] for c in claim["clauses"])
        if "upheld" in expected["claim"]:
            assert claim["upheld"] is expected["claim"]["upheld"]
        if "points" in expected["claim"]:
            (hand,) = [e for e in ruling["events"] if e["event"] == "hand"]
            assert hand["points"] == expected["claim"]["points"]
    if "won_by" in expected:
        main(["audit", str(DISPUTES / name), "--continue", "--lang", lang])
        last = capsys.readouterr().out.splitlines()[-1]
        rules = load_ruleset(out["ruleset"]["name"])
        title = clause_words(rules.clause(expected["won_by"]), lang)[0]
        assert last.endswith(f"{expected['won_by']} ({title})"), last
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


def test_french_sets_a_space_before_every_colon_as_its_own_entries_do(capsys: pytest.CaptureFixture[str]) -> None:
    # The catalog writes "cartes jouées : {cards}"; the labels the code joins to their text said "motif: ...".
    for fmt in ("text", "markdown"):
        main(["audit", str(DISPUTES / "02-refusal-not-follower.yaml"), "--lang", "fr", "--format", fmt])
        out = capsys.readouterr().out
        assert "motif : " in out and "situation : " in out and "cartes jouées : " in out
        assert not re.search(r"[^\s:]: ", out), re.findall(r".{20}[^\s:]: .{10}", out)
    assert main(["rulebook", "--lang", "fr", "--ruleset", "vitou/1.0.0"]) == 0
    book = capsys.readouterr().out
    assert "**Résultat :**" in book and "Nord : " in book
    # Headings and the contents say "id: title"; a malformed action is shown as the record wrote it, in braces.
    prose = [x for x in book.splitlines() if not x.lstrip().startswith(("- [", "#")) and "{" not in x]
    assert not [x for x in prose if re.search(r"[^\s:]: ", x)][:3]


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


# ------------------------------------------------------------------ Markdown that renders as meant


def commonmark_problems(md: str) -> list[str]:
    """The lines CommonMark would not read as the audit means them, without a Markdown parser.

    An indented line is meant as an item of a list nested in the item above
    it: CommonMark reads it so only when it starts with a marker exactly at
    the text of an open item ("3. " is three wide, "- " two). Anywhere else,
    four spaces start code (after a blank line), or the line runs on into
    the paragraph above.
    """
    problems, columns, blank = [], [], False
    for no, line in enumerate(md.splitlines(), 1):
        if not line.strip():
            blank = True
            continue
        indent = len(line) - len(line.lstrip(" "))
        marker = re.match(r" *(?:\d{1,9}\.|-) ", line)
        if line[indent:].startswith("\t"):
            problems.append(f"line {no}: a tab: {line!r}")
        elif indent == 0:
            columns = [marker.end()] if marker else []
        elif blank or marker is None or indent not in columns:
            problems.append(f"line {no}: indented outside a nested item: {line!r}")
        else:
            columns = [*columns[: columns.index(indent) + 1], marker.end()]
        blank = False
    return problems


def test_the_check_sees_what_commonmark_would_misread() -> None:
    assert commonmark_problems("1. a\n   - b\n     - c\n2. d\n\n- e\n  - f\n") == []
    assert commonmark_problems("intro\n    because\n")  # runs on into the paragraph
    assert commonmark_problems("1. a\n   - “x\n\n    y”\n")  # code after a blank line
    assert commonmark_problems("1. a\n    - b\n")  # not at the item's text


def _markdown_parsed(md: str) -> list[Any]:
    markdown_it = pytest.importorskip("markdown_it")  # optional: the structural check stands without it
    return list(markdown_it.MarkdownIt("commonmark").parse(md))


# A profile may write a clause with line breaks, a blank line and an indented line among them.
PROFILE = """format: 1
profile: {id: club-lines, version: 1.0.0, title: Lines, extends: vitou/1.0.0}
changelog: [{version: 1.0.0, date: "2026-12-01", changes: [First edition.]}]
decisions: [{topic: Last, decision: Worded in lines., reason: Ours., clauses: [club.not_last]}]
operations:
  - replace: bid.not_last
    with:
      id: club.not_last
      section: "03"
      title: Never last
      text: |
        A player last to the trick:

            may not open
        - nor raise.
      rule: last_position
      data: {bids: forbidden}
"""


def test_a_markdown_audit_keeps_every_detail_in_its_item(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Fails before: the clause's lines were printed as they stood, so its indented line became code
    # and the ruling's other details fell out of its item.
    profile = tmp_path / "club-lines.yaml"
    profile.write_text(PROFILE, encoding="utf-8")
    record = str(DISPUTES / "03-raise-from-last.yaml")
    for lang in LANGS:
        assert main(["audit", record, "--ruleset", str(profile), "--format", "markdown", "--lang", lang]) == 1
        md = capsys.readouterr().out
        assert commonmark_problems(md) == [], md
        # The profile's own words, on one line, between the quotation marks of the audit's language.
        marks = {"en": ("\u201c", "\u201d"), "fr": ("\u00ab\u00a0", "\u00a0\u00bb")}.get(lang, ("\u00ab", "\u00bb"))
        assert f"{marks[0]}A player last to the trick: may not open - nor raise.{marks[1]}" in md
    assert main(["audit", record, "--ruleset", str(profile)]) == 1  # the text form gives the clause one line too
    assert "      \u201cA player last to the trick: may not open - nor raise.\u201d\n" in capsys.readouterr().out
    tokens = _markdown_parsed(md)
    assert not [t for t in tokens if t.type in ("code_block", "fence")]
    assert sum(t.type == "list_item_open" and t.level == 1 for t in tokens) == 4  # the four actions, one list


def test_a_markdown_comparison_nests_each_reason_under_its_action(capsys: pytest.CaptureFixture[str]) -> None:
    # Fails before: --format markdown printed the text form, "    because ..." run into one paragraph.
    args = ["audit", str(DISPUTES / "08-partners-tie.yaml"), "--compare-ruleset", "vitou-partners-tie"]
    for lang in LANGS:
        assert main([*args, "--format", "markdown", "--lang", lang]) == 1
        md = capsys.readouterr().out
        assert commonmark_problems(md) == [], md
        assert re.search(r"^- .*\n  - .*pt\.tie, trick\.tie$", md, re.M), md
    tokens = _markdown_parsed(md)
    assert not [t for t in tokens if t.type in ("code_block", "fence")]
    assert [t.level for t in tokens if t.type == "list_item_open"] == [1, 3]  # the action, its reason within


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_shipped_dispute_audits_to_markdown_that_renders(capsys: pytest.CaptureFixture[str], name: str) -> None:
    main(["audit", str(DISPUTES / name), "--continue", "--format", "markdown", "--lang", "ru"])
    assert commonmark_problems(capsys.readouterr().out) == []
    main(["audit", str(DISPUTES / name), "--at", "1", "--format", "markdown"])
    assert commonmark_problems(capsys.readouterr().out) == []


# ------------------------------------------------------------------ where a position is in the match

# Dispute 01: South's refusal, the fifth and last action, ends hand 1 (dealer West); the dealer passes
# to North (deal.rotation), and the record holds no deal for hand 2.
BETWEEN_HANDS = {
    "en": "hand 1 is over; hand 2, dealer North, has not been dealt; score North-South 0, East-West 3",
    "fr": "la main 1 est terminée ; la main 2, donneur Nord, n’a pas été donnée ; score Nord-Sud 0, Est-Ouest 3",
    "pt": "a mão 1 terminou; a mão 2, dador Norte, ainda não foi dada; marcador Norte-Sul 0, Este-Oeste 3",
    "ru": "рука 1 окончена; рука 2, сдающий Север, ещё не сдана; счёт Север-Юг 0, Восток-Запад 3",
}
# Dispute 11: hand 2 ends the match (an accepted baraque); no hand, and so no dealer, comes after it.
MATCH_OVER = {
    "en": "hand 2 is over; score North-South 0, East-West 12",
    "fr": "la main 2 est terminée ; score Nord-Sud 0, Est-Ouest 12",
    "pt": "a mão 2 terminou; marcador Norte-Sul 0, Este-Oeste 12",
    "ru": "рука 2 окончена; счёт Север-Юг 0, Восток-Запад 12",
}


@pytest.mark.parametrize("lang", LANGS)
def test_a_position_after_a_hand_belongs_to_the_next_hand(capsys: pytest.CaptureFixture[str], lang: str) -> None:
    # Fails before: "hand 1, dealer North": hand 1's number with hand 2's dealer.
    refusal = str(DISPUTES / "01-section-05-refusal.yaml")
    assert main(["audit", refusal, "--at", "6", "--lang", lang]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "  " + BETWEEN_HANDS[lang]
    assert lines[2] == "  " + catalog(lang)["audit"]["phase.no_deal"]
    assert main(["audit", refusal, "--at", "5", "--lang", lang]) == 0  # within hand 1, as before
    hand_1 = catalog(lang)["audit"]["hand"].format(n=1, dealer=catalog(lang)["names"]["seats"]["W"])
    semicolon = catalog(lang)["words"]["semicolon"]  # French sets a space before it
    assert capsys.readouterr().out.splitlines()[1].startswith(f"  {hand_1}{semicolon} ")
    main(["audit", str(DISPUTES / "11-baraque-refused-and-accepted.yaml"), "--at", "23", "--lang", lang])
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "  " + MATCH_OVER[lang] and lines[2] == "  " + catalog(lang)["audit"]["phase.match_over"]


def test_an_action_after_the_last_deal_is_ruled_in_the_hand_not_dealt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The audit's own position of a NO_DEAL ruling, and --at's JSON, say it as --at's text does.
    record = tmp_path / "after.yaml"
    text = (DISPUTES / "01-section-05-refusal.yaml").read_text(encoding="utf-8")
    record.write_text(text.replace("S refuse\n", "S refuse N 7H\n"), encoding="utf-8")
    out = audit_json(capsys, str(record))
    ruling = out["rulings"][5]
    assert ruling["code"] == "NO_DEAL"
    main(["audit", str(record)])
    assert f"position: {BETWEEN_HANDS['en']}; no deal is left in the record" in capsys.readouterr().out
    description = audit_json(capsys, str(record), "--at", "6")["description"]
    assert description == [BETWEEN_HANDS["en"], "no deal is left in the record"]  # once each


@pytest.mark.parametrize(
    ("lang", "folds", "accepts", "raises"),
    [
        ("en", "B folds", "A accepts", "A raises to 2"),  # le-truc.md §3: accepts, folds, raises
        ("fr", "B se couche", "A tient", "A relance à 2"),  # the French catalogue's Le Truc: tenir, se coucher
        ("pt", "B desiste", "A aceita", "A aumenta para 2"),
        ("ru", "B сдаётся", "A принимает", "A повышает до 2"),
    ],
)
def test_le_truc_s_acts_are_said_in_le_truc_s_own_words(lang: str, folds: str, accepts: str, raises: str) -> None:
    # A raise from the stake of 1 is a raise like any other in Le Truc, and refusing a raise is folding: the
    # audit speaks the game's words, not Vitou's "opens at" and "refuses".
    rules = load_ruleset("le-truc")
    w = Words(rules, lang)
    assert w.action({"seat": "A", "act": "raise", "to": 2}) == raises
    assert w.action({"seat": "A", "act": "accept"}) == accepts
    assert w.action({"seat": "B", "act": "refuse"}) == folds
    vitou = Words(load_ruleset("vitou"), lang)
    assert vitou.action({"seat": "S", "act": "refuse"}) != w.action({"seat": "S", "act": "refuse"})
