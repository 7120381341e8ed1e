"""Profiles that say what they do: words without behaviour, stale figures, left-over clarifications, located slips.

Each test that failed before these checks existed says why ("Fails before");
the others guard the other side of the same line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import ROOT

from vitou_ref import load_ruleset
from vitou_ref.cli import main
from vitou_ref.rules.schema import first_error

BASE = "vitou/1.1.0"
PROFILE = """format: 1
profile: {{id: house, version: 1.0.0, title: A house rule, extends: {base}}}
changelog:
  - {{version: 1.0.0, date: "2026-11-29", changes: [First.]}}
operations:
{ops}
"""
DESCRIPTIVE = [c.id for c in load_ruleset(BASE).clauses if c.descriptive]


def write(tmp_path: Path, ops: str, base: str = BASE) -> tuple[str, str]:
    text = PROFILE.format(base=base, ops=ops)
    path = tmp_path / "house.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path), text


def line_of(text: str, anchor: str) -> int:
    return text[: text.index(anchor)].count("\n") + 1


def check(capsys: pytest.CaptureFixture[str], path: str) -> tuple[int, str]:
    status = main(["spec", "check", path])
    return status, capsys.readouterr().out


def reworded(clause_id: str, text: str, title: str = "Reworded") -> str:
    c = load_ruleset(BASE).clause(clause_id)
    return f"  - replace: {c.id}\n    with:\n      id: {c.id}\n      section: '{c.section}'\n      title: {title}\n      text: {text}\n"


def rebound(rule: str, text: str, **data: object) -> str:
    """A replacement of the clause binding ``rule``, with ``text`` and its data changed by ``data``."""
    from vitou_ref.rules.model import thaw

    c = load_ruleset(BASE).clause_for_rule(rule)
    body = {**thaw(c.data), **data}
    return (
        f"  - replace: {c.id}\n    with:\n      id: {c.id}\n      section: '{c.section}'\n      title: {c.title}\n"
        f"      text: {json.dumps(text)}\n      rule: {rule}\n      data: {json.dumps(body)}\n"
    )


# ------------------------------------------------------------------ 1. descriptive clauses


def test_twelve_clauses_of_1_1_0_bind_no_rule() -> None:
    # Fails before: the model had no notion of a descriptive clause (Clause.descriptive did not exist).
    assert len(DESCRIPTIVE) == 12 and "bid.turn" in DESCRIPTIVE and "score.add" in DESCRIPTIVE
    assert not load_ruleset(BASE).clause("score.target").descriptive


@pytest.mark.parametrize("clause_id", DESCRIPTIVE)
def test_a_rewritten_descriptive_clause_is_reported_as_wording_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], clause_id: str
) -> None:
    # Fails before: spec check said only "ok", and profile diff showed the new
    # text as if it were a change of the rules, though play stays the base's.
    path, text = write(tmp_path, reworded(clause_id, "Any player may do anything at any moment."))
    status, out = check(capsys, path)
    assert status == 0  # a warning never fails the check
    (warning,) = [x for x in out.splitlines() if "WORDING_ONLY" in x]
    assert warning.startswith(f"{path}:{line_of(text, 'text: Any player')}:")
    assert (
        ": warning: WORDING_ONLY at /operations/0/with/text: wording only: no behaviour bound to this clause changes"
        in warning
    )
    assert main(["profile", "diff", BASE, path]) == 0
    assert f"~ {clause_id}  (wording only: no behaviour bound to this clause changes)" in capsys.readouterr().out
    assert main(["profile", "diff", BASE, path, "--format", "json"]) == 0
    (change,) = json.loads(capsys.readouterr().out)["clauses"]
    assert change["wording_only"] is True
    assert main(["spec", "check", "--format", "json", path]) == 0
    (result,) = json.loads(capsys.readouterr().out)
    assert result["ok"] is True and [w["code"] for w in result["warnings"]].count("WORDING_ONLY") == 1


def test_a_bound_clause_whose_data_changes_is_not_wording_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The other side of the line: a clause whose data changes is behaviour, not words.
    path, _ = write(tmp_path, rebound("opening", "Opening at 3 is allowed in the first trick only.", tricks=[1]))
    status, out = check(capsys, path)
    assert status == 0 and "WORDING_ONLY" not in out and "TEXT_FIGURE_STALE" not in out
    assert main(["profile", "diff", BASE, path]) == 0
    assert "wording only" not in capsys.readouterr().out


RECORD = """format: 1
header: {ruleset: vitou/1.1.0, dealer: W}
deals:
  - {N: [AS, 7H, 8C], E: [9C, KD, JH], S: [10H, QS, 8D], W: [7C, AD, 9S]}
actions: N AS S r3
"""


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_an_audit_never_quotes_a_reworded_clause_against_what_it_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    # Fails before: the ruling BID_OUT_OF_TURN quoted the profile's "Any player
    # may bid at any moment" as its ground. The profile's words bind nothing:
    # the ruling applies the base's bid.turn, so it quotes that and says why.
    ops = reworded("bid.turn", "Any player may bid at any moment, in turn or not.").replace(
        "      id: bid.turn", "      id: club.turn"
    )
    path, _ = write(tmp_path, ops)
    record = tmp_path / "game.yaml"
    record.write_text(RECORD, encoding="utf-8")
    main(["audit", str(record), "--ruleset", path, "--lang", lang])
    text = capsys.readouterr().out
    assert "any moment" not in text and "club.turn" in text
    main(["audit", str(record), "--ruleset", path, "--lang", lang, "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert first_error(out, "audit") is None
    ruling = out["rulings"][1]
    assert ruling["code"] == "BID_OUT_OF_TURN" and ruling["clause"]["id"] == "club.turn"
    from vitou_ref.audit.i18n import clause_words

    assert (ruling["clause"]["title"], ruling["clause"]["text"]) == clause_words(
        load_ruleset(BASE).clause("bid.turn"), lang
    )
    assert ruling["clause"]["origin"] == BASE and ruling["clause"]["wording_only"]["quoted"] == "bid.turn"
    assert ruling["clause"]["wording_only"]["note"] in text


def test_a_profile_that_changes_play_keeps_its_own_words_in_an_audit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A profile that changes a rule may reword a descriptive clause to describe
    # that change; the base's wording would then be the wrong one to quote.
    ops = reworded("bid.turn", "A bid comes before the bidder's card, from any position.") + rebound(
        "last_position", load_ruleset(BASE).clause("bid.not_last").text, bids="allowed"
    )
    path, _ = write(tmp_path, ops)
    record = tmp_path / "game.yaml"
    record.write_text(RECORD, encoding="utf-8")
    main(["audit", str(record), "--ruleset", path, "--format", "json"])
    clause = json.loads(capsys.readouterr().out)["rulings"][1]["clause"]
    assert clause["text"] == "A bid comes before the bidder's card, from any position." and "wording_only" not in clause


# ------------------------------------------------------------------ 2. text and data agree

FIGURES = [
    # (rule, the data changed, the figure the unchanged text still states)
    ("target", {"points": 31}, "21"),
    ("twenty", {"at": 18}, "20"),
    ("twenty_decline", {"opponents": 2}, "1"),
    ("twenty_play", {"lose": 5}, "3"),
]


@pytest.mark.parametrize(("rule", "data", "figure"), FIGURES, ids=[f[0] for f in FIGURES])
def test_a_changed_figure_the_text_still_states_is_warned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rule: str, data: dict[str, object], figure: str
) -> None:
    # Fails before: a 31-point profile whose text still says 21 passed without a word.
    text = load_ruleset(BASE).clause_for_rule(rule).text
    path, doc = write(tmp_path, rebound(rule, text, **data))
    status, out = check(capsys, path)
    assert status == 0
    # The replaced clause's own text; other texts stating the figure are warned too (test_profile_words_data.py).
    (warning,) = [x for x in out.splitlines() if "TEXT_FIGURE_STALE" in x and "the text still states" in x]
    assert f"the text still states {figure}," in warning
    assert warning.startswith(f"{path}:{line_of(doc, '      text:')}:")
    # Saying the new figure settles it.
    new = str(next(iter(data.values())))
    path, _ = write(tmp_path, rebound(rule, text.replace(figure, new), **data))
    assert "the text still states" not in check(capsys, path)[1]


def test_a_new_ladder_under_the_old_words_names_each_stale_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    levels = [
        {"bid": 2, "value": 2, "refused": 1},
        {"bid": 4, "value": 4, "refused": 2},
        {"bid": 8, "value": 8, "refused": 4},
        {"bid": "baraque", "value": "match", "refused": 8},
    ]
    path, _ = write(tmp_path, rebound("ladder", load_ruleset(BASE).clause("bid.ladder").text, levels=levels))
    warned = [x for x in check(capsys, path)[1].splitlines() if "the text still states" in x]
    assert [w.split("the text still states ")[1].split(",")[0] for w in warned] == ["3", "6", "12"]


# ------------------------------------------------------------------ 3. errors inside a replacement

SLIPS = [
    (
        "an unknown rule",
        "      rule: openingg\n      data: {tricks: [2, 3]}\n",
        "rule: openingg",
        "'openingg' is not one of",
    ),
    (
        "data without a rule",
        "      data: {tricks: [2, 3]}\n",
        "id: club.open",
        "'data' is given, but the clause sets no 'rule'",
    ),
    ("a rule without data", "      rule: opening\n", "rule: opening", "binds the rule 'opening' but gives no 'data'"),
    (
        "data written as text",
        "      rule: opening\n      data: tricks [2, 3]\n",
        "data:",
        "'tricks [2, 3]' is not of type 'object'",
    ),
    (
        "data left empty by indentation",
        "      rule: opening\n      data:\n      tricks: [2, 3]\n",
        "tricks:",
        "'tricks' was unexpected",
    ),
]


@pytest.mark.parametrize(("name", "tail", "anchor", "message"), SLIPS, ids=[s[0] for s in SLIPS])
def test_a_slip_inside_a_replacement_is_named_where_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, tail: str, anchor: str, message: str
) -> None:
    # Fails before: every one of these read "Additional properties are not
    # allowed ('replace', 'with' were unexpected)" at the operation's first
    # line: the schema's oneOf was judged by the wrong branch.
    head = "  - replace: bid.open\n    with:\n      id: club.open\n      section: '03'\n      title: t\n      text: t\n"
    path, text = write(tmp_path, head + tail)
    status, out = check(capsys, path)
    assert status == 1
    assert "'replace', 'with' were unexpected" not in out and "'add' is a required property" not in out
    located = [x for x in out.splitlines() if message in x]
    assert located, out
    assert located[0].startswith(f"{path}:{line_of(text, anchor)}:"), (located, line_of(text, anchor))


# ------------------------------------------------------------------ 4. clarifications left on a replaced clause

CLUB = ROOT / "docs" / "examples" / "club-nice.yaml"


def test_the_readme_example_no_longer_contradicts_itself(capsys: pytest.CaptureFixture[str]) -> None:
    # Fails before: club-nice confined opening to tricks 2 and 3 but kept
    # clarification 5 ("Opening at 3 is allowed in any trick"), which its
    # rulebook printed.
    status, out = check(capsys, str(CLUB))
    assert status == 0 and "warning" not in out
    assert main(["rulebook", "--ruleset", str(CLUB)]) == 0
    book = capsys.readouterr().out
    assert "in any trick" not in book and "Opening from the second trick, raising at any later turn" in book
    assert load_ruleset(str(CLUB)).clarifications[4].clauses == ("club.open", "bid.later_raise")


def test_a_kept_clarification_on_a_replaced_clause_is_warned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Fails before: nothing said that clarification 5 still ruled on the clause club.open replaced.
    text = CLUB.read_text(encoding="utf-8")
    kept = text[: text.index("  # Vitou 1.0.0's clarification 5")]
    path = tmp_path / "club.yaml"
    path.write_text(kept, encoding="utf-8")
    status, out = check(capsys, str(path))
    assert status == 0
    (warning,) = [x for x in out.splitlines() if "CLARIFICATION_ON_REPLACED" in x]
    assert warning.startswith(f"{path}:{line_of(kept, 'replace: bid.open')}:")
    assert warning.endswith(
        "clarification 5 rules on bid.open, which this profile replaced by club.open: remove it or replace it"
    )


# ------------------------------------------------------------------ 5. an ending switched off loses its clauses

NO_ENDINGS = """  - replace: twenty.trigger
    with:
      id: club.no_twenty
      section: '04'
      title: No twenty-point ending
      text: A side at exactly 20 points plays on like any other; every hand is an ordinary hand.
      rule: twenty
      data: {enabled: false, at: 20}
  - replace: tt.trigger
    with:
      id: club.no_tt
      section: '04'
      title: No 20-20 ending
      text: Two sides at 20 points play on; every hand is an ordinary hand.
      rule: twenty_twenty
      data: {enabled: false}
  - {remove: twenty.no_bids}
  - {remove: twenty.decision}
  - {remove: twenty.decline}
  - {remove: twenty.play}
  - {remove: tt.no_bids}
  - {remove: tt.no_signals}
  - {remove: tt.ask}
  - {remove: tt.play}
  - {remove: tt.all_pass}
  - {remove: tt.all_tied}
  - {rebind_error: SIGNAL_FORBIDDEN, clause: signals.when}
  - {rebind_error: BID_CLOSED_TWENTY, clause: club.no_twenty}
  - {rebind_error: BID_CLOSED_TWENTY_TWENTY, clause: club.no_tt}
  - {rebind_error: DECISION_WRONG_SIDE, clause: turn.decisions}
  - {rebind_error: CALL_OUT_OF_TURN, clause: turn.decisions}
  - {remove_clarification: 8}
  - {remove_clarification: 9}
  - {remove_clarification: 14}
  - {remove_clarification: 15}
  - {remove_clarification: 16}
  - {remove_clarification: 24}
  - {remove_clarification: 29}
  - replace_clarification: 10
    with: {number: 10, title: Signals, clauses: [signals.gestures, signals.when], ruling: Signals are allowed at every moment of a hand., reason: No ending forbids them.}
  - replace_clarification: 11
    with: {number: 11, title: The dealer passes after every hand, clauses: [deal.rotation], ruling: After every hand the next player deals., reason: Every hand is an ordinary hand.}
"""


def test_a_switched_off_ending_can_lose_its_clauses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Fails before: removing twenty.* and tt.* was RULE_MISSING for each rule
    # they bound, even with both endings switched off, so such a variant's
    # rulebook had to describe endings that never happen.
    from helpers import deal

    from vitou_ref import Match

    path, _ = write(tmp_path, NO_ENDINGS)
    status, out = check(capsys, path)
    assert status == 0 and "warning" not in out, out
    rules = load_ruleset(path)
    assert not [c.id for c in rules.clauses if c.id.startswith(("twenty.", "tt."))]
    # At exactly 20, and at 20-20, a hand is an ordinary one: the leader may open.
    for score in ({"NS": 20, "EW": 5}, {"NS": 20, "EW": 20}):
        m = Match(
            rules, dealer="W", deals=[deal("N: AS 7H 8C | E: 9C KD JH | S: 10H QS 8D | W: 7C AD 9S")], score=score
        )
        assert m.turn == "N" and "raise" in {a.act for a in m.legal_actions()}
    assert main(["simulate", "--ruleset", path, "--matches", "30", "--seed", "2"]) == 0
    capsys.readouterr()
    assert main(["rulebook", "--ruleset", path]) == 0
    book = capsys.readouterr().out
    assert "clause-twenty-" not in book and "clause-tt-" not in book and "club.no_twenty" in book


def test_an_ending_still_on_keeps_its_clauses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    on = NO_ENDINGS.replace("data: {enabled: false, at: 20}", "data: {enabled: true, at: 20}")
    path, _ = write(tmp_path, on)
    status, out = check(capsys, path)
    assert status == 1
    missing = [x for x in out.splitlines() if "RULE_MISSING" in x]
    assert len(missing) == 3  # twenty_bids, twenty_decline, twenty_play; the 20-20 ending is still off
    assert "may be removed only while it is switched off (the rule 'twenty' with enabled: false)" in missing[0]
