"""A hand nobody wins although not every trick tied is "void" (protocol 1.1), apart from an all-tied hand.

The ruleset is vitou/1.1.0 whose resolution row ABT (split tricks, a tied
third) gives no winner: a house rule that discards such a hand. A peer of
protocol 1.0 reports the void hand as tied, and the harness accepts that from
it, and only from it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, acts, deal, events

from vitou_ref import load_rules_text, load_ruleset
from vitou_ref.audit.audit import Words
from vitou_ref.audit.i18n import LANGUAGES
from vitou_ref.cli import main
from vitou_ref.engine.events import HandEvent
from vitou_ref.engine.tables import tables_for
from vitou_ref.hunt.fuzzcases import Case as FuzzCase
from vitou_ref.hunt.fuzzcases import compare as fuzz_compare
from vitou_ref.kit.judge import compare
from vitou_ref.kit.suite import load_suite
from vitou_ref.protocol.client import handshake_problem
from vitou_ref.protocol.server import run_case
from vitou_ref.rules.schema import first_error
from vitou_ref.sim.compare import report
from vitou_ref.sim.run import Lineup
from vitou_ref.sim.shards import simulate
from vitou_ref.sim.textout import render

SPEC_11 = ROOT / "spec" / "vitou-1.1.0.yaml"
ABT_ROW = "          pattern: [A, B, T]\n          winner: A\n"
NAME = "vitou-discard/1.1.0"

# N takes trick 1 (10S), E trick 2 (10H), trick 3 ties (9H, 9S): row ABT.
SPLIT = "N: 10S 7S QC | E: 7H 10H 9H | S: 8H JS 9S | W: 8D 8C KD"
SPLIT_PLAY = "N 10S, E 7H, S 8H, W 8D, N 7S, E 10H, S JS, W 8C, E 9H, S 9S, W KD, N QC"
# Every trick ties: 10s, then 9s, then aces. Row TTT.
ALL_TIED = "N: 10S 9S AS | E: 10H 9H AH | S: 7C 8C JC | W: 7D 8D JD"
ALL_TIED_PLAY = "N 10S, E 10H, S 7C, W 7D, N 9S, E 9H, S 8C, W 8D, N AS, E AH, S JC, W JD"


def discard_text() -> str:
    text = SPEC_11.read_text(encoding="utf-8")
    assert text.count(ABT_ROW) == 1
    text = text.replace(ABT_ROW, "          pattern: [A, B, T]\n          winner: none\n")
    return text.replace("  id: vitou\n", "  id: vitou-discard\n")


@pytest.fixture(scope="module")
def discard() -> Any:
    return load_rules_text(discard_text(), "discard.yaml")


def hand_of(rules: Any, d: str, play: str) -> tuple[dict[str, Any], dict[str, Any]]:
    r = run_case(tables_for(rules), {"dealer": "W", "deals": [deal(d)]}, acts(play), 1)
    assert first_error(r, "protocol/run-response") is None
    return events(r)[-1], r


def test_a_row_without_a_winner_is_void_and_all_tied_tricks_are_tied(discard: Any) -> None:
    void, r = hand_of(discard, SPLIT, SPLIT_PLAY)
    assert void == {"event": "hand", "winner": None, "points": 0, "reason": "void", "score": {"NS": 0, "EW": 0}}
    assert r["final"] == {"score": {"NS": 0, "EW": 0}, "dealer": "N", "winner": None}  # the deal passes on
    tied, _ = hand_of(discard, ALL_TIED, ALL_TIED_PLAY)
    assert tied == {"event": "hand", "winner": None, "points": 0, "reason": "tied", "score": {"NS": 0, "EW": 0}}


def test_the_same_hand_under_vitou_1_1_0_is_won_as_before() -> None:
    won, _ = hand_of(load_ruleset("vitou/1.1.0"), SPLIT, SPLIT_PLAY)
    assert (won["winner"], won["reason"]) == ("NS", "tricks")


def test_no_shipped_ruleset_has_a_void_hand() -> None:
    # Only a hand of tied tricks is won by nobody, so protocol 1.0 and 1.1 answer alike under all of them.
    from vitou_ref import shipped_names

    for name in shipped_names():
        nobody = {row.pattern for row in load_ruleset(name).params.resolution if row.winner == "none"}
        assert all(set(p) == {"T"} for p in nobody), name


def test_void_is_worded_apart_from_tied_in_every_language(discard: Any) -> None:
    score = (("NS", 0), ("EW", 0))
    for lang in LANGUAGES:
        w = Words(discard, lang)
        void = w.event(HandEvent(None, 0, "void", score))
        assert void != w.event(HandEvent(None, 0, "tied", score)), lang
        assert void != w.event(HandEvent(None, 0, "passed", score)), lang
        if lang != "en":
            assert void != Words(discard, "en").event(HandEvent(None, 0, "void", score)), lang  # translated


def test_simulate_counts_void_hands_apart(discard: Any) -> None:
    rep = report(simulate([tables_for(discard)], Lineup(), 1, 0, 300))
    (j,) = rep["rulesets"]
    void, tied = j["hand_results"]["void"], j["hand_results"].get("tied", {"count": 0, "share": 0})
    assert void["count"] > 0 and void["of"] == j["hands"]
    assert void["share"] > tied["share"]
    assert tied["share"] == round(tied["count"] / j["hands"], 4)
    assert "\n  void " in render(rep)


# ------------------------------------------------------------------ protocol 1.0 and 1.1


def test_the_reference_says_it_speaks_protocol_1_1() -> None:
    from vitou_ref.adapter import build_server

    hello = build_server().handle(json.dumps({"cmd": "start", "protocol": 1}))
    assert hello is not None and hello["protocol"] == 1 and hello["protocol_minor"] == 1
    assert first_error(hello, "protocol/start-response") is None


@pytest.mark.parametrize("minor", [None, 1.0, "1", -1, True, [1]])
def test_a_protocol_minor_that_is_not_a_whole_number_is_an_unusable_handshake(minor: Any) -> None:
    hello = {"protocol": 1, "protocol_minor": minor, "implementation": {}, "rulesets": []}
    assert "'protocol_minor'" in (handshake_problem(hello) or "")
    assert handshake_problem({**hello, "protocol_minor": 0}) is None
    del hello["protocol_minor"]
    assert handshake_problem(hello) is None


def _suite(tmp_path: Path, discard: Any) -> Path:
    _, r = hand_of(discard, SPLIT, SPLIT_PLAY)
    case = {
        "id": "VT-9001",
        "title": "a void hand",
        "clauses": ["hand.resolution"],
        "rulesets": ["vitou-discard/^1.1.0"],
        "setup": {"dealer": "W", "deals": [deal(SPLIT)]},
        "actions": acts(SPLIT_PLAY),
        "expect": {"steps": [{"ok": True, "events": s["events"]} for s in r["steps"]], "final": r["final"]},
    }
    path = tmp_path / "void_suite.yaml"
    path.write_text(json.dumps({"format": 1, "title": "void", "cases": [case]}), encoding="utf-8")
    return path


def test_the_harness_compares_a_1_0_peer_s_tied_with_void_and_holds_a_1_1_peer_to_void(
    tmp_path: Path, discard: Any
) -> None:
    (case,) = load_suite(str(_suite(tmp_path, discard))).applicable(NAME)
    expect = case.expectation(NAME)
    _, right = hand_of(discard, SPLIT, SPLIT_PLAY)
    as_1_0 = json.loads(json.dumps(right).replace('"reason": "void"', '"reason": "tied"'))
    assert compare(case, expect, right) is None
    assert compare(case, expect, as_1_0, 0) is None
    d = compare(case, expect, as_1_0, 1)
    assert d is not None and d.where == "step 12" and d.what == "events"
    assert compare(case, expect, right, 0) is not None  # a 1.0 peer has no "void" to say
    # The fuzzer's comparison with the reference's answer does the same.
    fc = FuzzCase({"dealer": "W", "deals": [deal(SPLIT)]}, acts(SPLIT_PLAY))
    assert fuzz_compare(fc, right, as_1_0, 0) is None
    assert fuzz_compare(fc, right, as_1_0) is not None


PEER = """
import json, sys
from vitou_ref.adapter import build_server
server = build_server([sys.argv[1]])
for line in sys.stdin:
    answer = server.handle(line)
    if answer is None:
        break
    if sys.argv[2] == "1.0":
        answer.pop("protocol_minor", None)
    text = json.dumps(answer)
    if sys.argv[2] in ("1.0", "1.1-tied"):
        text = text.replace('"reason": "void"', '"reason": "tied"')
    sys.stdout.write(text + "\\n")
    sys.stdout.flush()
"""


@pytest.mark.parametrize(("speaks", "status", "protocol"), [("1.0", 0, "1.0"), ("1.1-tied", 1, "1.1")])
def test_certify_end_to_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], discard: Any, speaks: str, status: int, protocol: str
) -> None:
    rules = tmp_path / "discard.yaml"
    rules.write_text(discard_text(), encoding="utf-8")
    peer = tmp_path / "peer.py"
    peer.write_text(PEER, encoding="utf-8")
    suite = _suite(tmp_path, discard)
    argv = ["certify", "--suite", str(suite), "--ruleset", NAME, "--rules", str(rules), "--format", "json"]
    assert main([*argv, "--impl", f"{sys.executable} {peer} {rules} {speaks}"]) == status
    report = json.loads(capsys.readouterr().out)
    assert report["protocol"] == protocol
    assert [c["outcome"] for c in report["cases"]] == ["passed" if status == 0 else "failed"]
