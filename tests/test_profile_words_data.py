"""A profile's words follow its data: restated error codes, every text checked for stale figures, who answers a bid.

Each test says why it failed before the change ("Fails before").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import ROOT

from vitou_ref import load_ruleset
from vitou_ref.cli import main
from vitou_ref.rules.model import thaw

BASE = "vitou/1.1.0"
HEAD = """format: 1
profile: {{id: house, version: 1.0.0, title: A house rule, extends: {base}}}
changelog:
  - {{version: 1.0.0, date: "2026-11-29", changes: [First.]}}
operations:
{ops}
"""
# Under à la volée any player may bid (volee.turn), and a bid is answered by
# the first player of the other side to play after it (volee.answer): the
# base's words for these two codes say otherwise.
VOLEE_BID_SUMMARY = "A bid is made only while no bid awaits its answer and no bidder owes its card."
VOLEE_TURN_WHEN = (
    "The seat playing a card is not the one due to play: the next player of the trick; after a bid in turn, "
    "the bidder, who owes its card; a bid out of turn changes nobody's turn."
)
RESTATED = f"""  - restate_error: BID_OUT_OF_TURN
    summary: {json.dumps(VOLEE_BID_SUMMARY)}
    reason: Any player may bid under bids à la volée.
  - restate_error: NOT_YOUR_TURN
    when: {json.dumps(VOLEE_TURN_WHEN)}
"""


def write(tmp_path: Path, ops: str, base: str = BASE) -> str:
    path = tmp_path / "house.yaml"
    path.write_text(HEAD.format(base=base, ops=ops), encoding="utf-8")
    return str(path)


def check(capsys: pytest.CaptureFixture[str], path: str) -> tuple[int, str]:
    status = main(["spec", "check", path])
    return status, capsys.readouterr().out


# ------------------------------------------------------------------ 6. an error code in the profile's words


@pytest.mark.parametrize("lang", ["en", "fr", "pt", "ru"])
def test_a_profile_restates_an_error_codes_summary_and_when(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    # Fails before: the profile schema had no restate_error, so spec check
    # refused the profile, and under vitou-volee the rulebook kept saying "a
    # bid is made only by the player whose turn it is".
    path = write(tmp_path, RESTATED, base="vitou-volee/1.0.0")
    status, out = check(capsys, path)
    assert status == 0, out
    rules = load_ruleset(path)
    base = load_ruleset("vitou-volee/1.0.0")
    bid, turn = rules.error("BID_OUT_OF_TURN"), rules.error("NOT_YOUR_TURN")
    assert bid.summary == VOLEE_BID_SUMMARY and bid.when == base.error("BID_OUT_OF_TURN").when
    assert turn.when == VOLEE_TURN_WHEN and turn.summary == base.error("NOT_YOUR_TURN").summary
    assert bid.clause == base.error("BID_OUT_OF_TURN").clause  # words only: the code stays where it was
    assert main(["rulebook", "--ruleset", path, "--lang", lang]) == 0
    book = capsys.readouterr().out
    # The catalogs translate the base's words; the profile's stand in every language.
    assert VOLEE_BID_SUMMARY in book and "a bid awaits its answer, the immediate follower" not in book
    assert "nobody's turn" in book
    if lang == "en":
        assert base.error("BID_OUT_OF_TURN").summary not in book


def test_profile_diff_shows_a_restated_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Words are a difference: "no difference" would hide the restated code from a reader of the diff.
    path = write(tmp_path, RESTATED, base="vitou-volee/1.0.0")
    assert main(["profile", "diff", "vitou-volee/1.0.0", path]) == 0
    out = capsys.readouterr().out
    assert "~ error BID_OUT_OF_TURN: its words differ (summary)" in out
    assert "~ error NOT_YOUR_TURN: its words differ (when)" in out
    assert "no difference" not in out


def test_restating_an_unknown_code_or_nothing_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "  - {restate_error: BID_SOMETIMES, summary: Never.}\n")
    status, out = check(capsys, path)
    assert status == 1 and "PROFILE_ERROR_UNKNOWN" in out and "BID_SOMETIMES" in out
    path = write(tmp_path, "  - {restate_error: BID_OUT_OF_TURN, reason: Nothing to say.}\n")
    status, out = check(capsys, path)
    assert status == 1 and "SCHEMA" in out


def test_shipped_rulesets_keep_their_hashes_without_an_origin_on_their_codes() -> None:
    for name in ("vitou/1.1.0", "vitou-volee/1.0.0", "vitou-mid-trick/1.0.0"):
        assert all(e.origin == "" for e in load_ruleset(name).errors)
        assert all("origin" not in e for e in load_ruleset(name).to_json()["errors"])


# ------------------------------------------------------------------ 7. every text against the data in force


def rebound(rule: str, **data: object) -> str:
    """A replacement of the clause binding ``rule`` with its base text kept and its data changed by ``data``."""
    c = load_ruleset(BASE).clause_for_rule(rule)
    body = {**thaw(c.data), **data}
    return (
        f"  - replace: {c.id}\n    with:\n      id: {c.id}\n      section: '{c.section}'\n      title: {c.title}\n"
        f"      text: {json.dumps(c.text)}\n      rule: {rule}\n      data: {json.dumps(body)}\n"
    )


def stale(out: str) -> list[str]:
    return [x for x in out.splitlines() if "TEXT_FIGURE_STALE" in x]


def test_a_31_point_profile_is_warned_of_every_text_still_saying_20(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Fails before: only the text of the clause whose data changed was read,
    # so "While a side has exactly 20 points, nobody bids" (twenty.no_bids)
    # and the error list's BID_CLOSED_TWENTY passed without a word.
    path = write(tmp_path, rebound("target", points=31) + rebound("twenty", at=30))
    status, out = check(capsys, path)
    assert status == 0
    warned = stale(out)
    base = load_ruleset(BASE)
    assert "exactly 20 points" in base.clause("twenty.no_bids").text
    assert any("clause twenty.no_bids's text still states 20" in w for w in warned)
    assert any("BID_CLOSED_TWENTY's when still states 20" in w for w in warned)
    assert any("clarification 7's ruling still states 21" in w for w in warned)
    # Located at the data that dropped the figure, and saying what changed.
    line = next(w for w in warned if "twenty.no_bids" in w)
    assert "/operations/1/with/data" in line and "twenty.trigger at: 20 -> 30" in line


def test_a_new_ladder_is_warned_where_a_text_still_raises_3_to_6(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Fails before: bid.no_jumps ("a hand at 3 can only be raised to 6") was not read.
    levels = [
        {"bid": 2, "value": 2, "refused": 1},
        {"bid": 4, "value": 4, "refused": 2},
        {"bid": 8, "value": 8, "refused": 4},
        {"bid": 16, "value": 16, "refused": 8},
    ]
    path = write(tmp_path, rebound("ladder", levels=levels))
    warned = stale(check(capsys, path)[1])
    for figure in ("3", "6", "12"):
        assert any(f"clause bid.no_jumps's text still states {figure}," in w for w in warned)


def test_figures_the_data_still_holds_and_citations_are_never_stale(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The other side: the data in force holds 20 and 21 again once the texts say
    # so; clarification numbers ("clarification 13 says") are not figures.
    path = write(tmp_path, rebound("target", points=21))
    assert stale(check(capsys, path)[1]) == []
    for name in ("volee", "mid-trick", "2p", "last-bids"):
        status, out = check(capsys, str(ROOT / "spec" / "profiles" / f"vitou-{name}-1.0.0.yaml"))
        assert status == 0 and stale(out) == [], name


def test_a_profiles_own_words_stating_the_new_and_old_figure_are_not_stale(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A clarification the profile writes may name the old figure to contrast it:
    # only words the base's text also stated in that place are stale.
    clar = (
        "  - add_clarification: {number: 101, title: Thirty-one, clauses: [score.target],"
        " ruling: 'The match is played to 31, not 21.', reason: Longer evenings.}\n"
    )
    path = write(tmp_path, rebound("target", points=31) + clar)
    assert not any("clarification 101" in w for w in stale(check(capsys, path)[1]))


# ------------------------------------------------------------------ 8. who answers a bid: fixed, and said so


def test_rewording_who_answers_a_bid_is_told_it_is_fixed_for_each_way_of_answering(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Fails before: rewording bid.answer so that the bidder's partner answers
    # earned only the generic WORDING_ONLY, as if some data could make it so.
    c = load_ruleset(BASE).clause("bid.answer")
    ops = (
        f"  - replace: bid.answer\n    with:\n      id: bid.answer\n      section: '{c.section}'\n"
        "      title: Partners answer\n      text: The bidder's partner answers the bid, and two bids may await.\n"
    )
    status, out = check(capsys, write(tmp_path, ops))
    assert status == 0
    (warning,) = [x for x in out.splitlines() if "WORDING_ONLY" in x]
    assert "who answers a bid is fixed for each way of answering, not data" in warning and "bid_answer" in warning
    assert "one bid awaits its answer at a time" in warning and "REFUSE_NOT_FOLLOWER" in warning
    # A descriptive clause that no such fact stands behind keeps the plain warning.
    d = load_ruleset(BASE).clause("bid.turn")
    ops = f"  - replace: bid.turn\n    with:\n      id: bid.turn\n      section: '{d.section}'\n      title: T\n      text: Anyone bids.\n"
    (warning,) = [x for x in check(capsys, write(tmp_path, ops))[1].splitlines() if "WORDING_ONLY" in x]
    assert "fixed for each way" not in warning


# ------------------------------------------------------------------ 9. the mid-trick stop and a cut-short answer

STOP_RECORD = """format: 1
header: {{ruleset: {ruleset}, dealer: W}}
deals:
  - {{N: [10S, 10H, 7D], E: [7H, 9C, KD], S: [8C, QS, 8D], W: [7C, AD, 9S]}}
actions: N 10S E 7H S 8C W 7C N r3 N 10H E refuse
claims:
  - {{at: 7, by: E, claim: "I was never given the chance to refuse", asserts: legal}}
"""
STOP_ANSWER = ROOT / "conformance" / "settings" / "rulesets" / "setting-stop-answer-1.0.0.yaml"


def audit_stop(tmp_path: Path, capsys: pytest.CaptureFixture[str], ruleset: str, *extra: str) -> str:
    record = tmp_path / "stop.yaml"
    name = "setting-stop-answer/1.0.0" if ruleset == str(STOP_ANSWER) else ruleset
    record.write_text(STOP_RECORD.format(ruleset=name), encoding="utf-8")
    args = ["audit", str(record), *extra]
    if name != ruleset:  # a ruleset that is not shipped: its file
        args += ["--ruleset", ruleset]
    main(args)
    return capsys.readouterr().out


def test_the_audit_says_when_and_why_a_hand_stopped_inside_a_trick(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Fails before: the ruling on N's 10H gave only the hand event, and East's
    # claim was rejected with NO_DEAL, nothing saying that the hand had stopped
    # inside trick 2 (mt.stop) with East's answer to the 3 cut short.
    out = json.loads(audit_stop(tmp_path, capsys, "vitou-mid-trick/1.0.0", "--format", "json"))
    stop_ruling, refusal = out["rulings"][5], out["rulings"][6]
    # mt.stop: N's 10H cannot be beaten or tied, so every way trick 2 ends is N's (row AA).
    assert stop_ruling["stop"]["trick"] == 2 and stop_ruling["stop"]["winner"] == "NS"
    assert stop_ruling["stop"]["clause"] == "mt.stop"
    # bid.answer: the next player after the bidder's card, E, answers; the stop came first.
    assert stop_ruling["stop"]["answer_cut_short"] == {"seat": "E", "bid": 3}
    assert refusal["legal"] is False and refusal["after_stop"]["at"] == 6
    assert refusal["claims"][0]["upheld"] is False
    text = audit_stop(tmp_path, capsys, "vitou-mid-trick/1.0.0")
    assert "the hand stopped inside trick 2, on this card" in text and "gives the hand to" in text
    assert "had yet to answer the bid of 3" in text
    assert "the hand stopped at action 6, inside trick 2, before its answer" in text


@pytest.mark.parametrize("lang", ["fr", "pt", "ru"])
def test_the_stop_is_explained_in_every_language(tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str) -> None:
    from vitou_ref.engine.reasons import catalog

    def fragment(key: str) -> str:
        """The longest run of the catalog's words for ``key`` with no parameter in it."""
        parts = [p.split("}")[-1].strip(" :,") for p in str(catalog(lang)["audit"][key]).split("{")]
        return max(parts, key=len)

    text = audit_stop(tmp_path, capsys, "vitou-mid-trick/1.0.0", "--lang", lang)
    for key in ("stop_inside", "stop_cut_short", "after_stop"):
        assert len(fragment(key)) > 10 and fragment(key) in text, key
    assert main(["audit", str(tmp_path / "stop.yaml"), "--lang", lang, "--format", "html"]) == 1
    page = capsys.readouterr().out
    assert fragment("stop_inside").replace("’", "") in page.replace("’", "").replace("&#x27;", "")


def test_a_table_that_lets_the_answer_be_given_upholds_easts_claim(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Fails before: no data could keep the answer's moment, so under the mid-trick
    # stop East's refusal was always refused (setting-stop-answer: cut_short_answer).
    out = json.loads(audit_stop(tmp_path, capsys, str(STOP_ANSWER), "--format", "json"))
    stop_ruling, refusal = out["rulings"][5], out["rulings"][6]
    assert "stop" not in stop_ruling and stop_ruling["events"] == []
    assert refusal["legal"] is True and refusal["claims"][0]["upheld"] is True
    # bid.refusal_value: a refused 3 gives the bidders 1.
    assert refusal["events"] == [
        {"event": "hand", "winner": "NS", "points": 1, "reason": "refusal", "score": {"NS": 1, "EW": 0}}
    ]


def test_a_clause_added_in_the_place_of_a_removed_one_keeps_the_base_texts_figures_in_view(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The other side of reading every text: the base's score.target (MATCH_OVER's clause, cited by
    # clarifications 7 and 28) is removed and club.target added for the same rule, its text still saying 21.
    c = load_ruleset(BASE).clause("score.target")
    ops = (
        "  - {remove: score.target, reason: Renamed.}\n"
        f"  - add:\n      id: club.target\n      section: '{c.section}'\n      title: {c.title}\n"
        f"      text: {json.dumps(c.text)}\n      rule: target\n      data: {{points: 31}}\n"
        "  - {rebind_error: MATCH_OVER, clause: club.target}\n"
        "  - {remove_clarification: 7, reason: Renamed.}\n"
        "  - {remove_clarification: 28, reason: Renamed.}\n"
    )
    status, out = check(capsys, write(tmp_path, ops))
    assert status == 0, out
    (own,) = [w for w in stale(out) if "the text still states 21" in w]
    assert "/operations/1/add/text" in own
