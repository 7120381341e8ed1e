"""The setups that cannot be used, under Vitou and under Le Truc: a case for each, one fault each, each one caught.

protocol.md's table of setups that cannot be used ("What is a rejected step, what is an errored request") holds
under every ruleset. KINDS names, for each of its kinds, the cases that pin it under each shipped ruleset, and
every errored case of those rulesets is in it. REPAIR is, for each of those cases, the one change that makes its
setup usable: the reference answers the repaired setup, so the case breaks one rule and keeps every other field
right, and reaches the check it is about. CAUGHT_BY holds each sloppy reading of a setup (a fake engine,
tests/fakes/loose_setups.py) to the cases that must fail it: certified on them alone, it is NOT CONFORMANT and
every one of them is named.
"""

from __future__ import annotations

import copy
import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from vitou_ref.cli import main
from vitou_ref.engine.tables import tables_for
from vitou_ref.kit.suite import load_suite
from vitou_ref.protocol.server import run_case
from vitou_ref.rules.model import thaw
from vitou_ref.rules.registry import load_ruleset

FAKE = Path(__file__).parent / "fakes" / "loose_setups.py"
RULESETS = {"VT": "vitou/1.1.0", "LT": "le-truc/1.1.0"}  # the latest of each shipped game
DELETE = object()

# protocol.md's kinds of setups that cannot be used, and the cases that pin each under (Vitou, Le Truc).
KINDS: dict[str, tuple[list[str], list[str]]] = {
    "a score at the target": (["VT-0395"], ["LT-0015"]),
    "a score past the target": (["VT-0396"], ["LT-0050"]),
    "a card twice in one hand": (["VT-0087", "VT-0393"], ["LT-0048"]),
    "a card twice across hands": (["VT-0004", "VT-0086", "VT-0392"], ["LT-0013"]),
    "a card twice in a later deal": (["VT-0093", "VT-0394"], ["LT-0049"]),
    "a deal to a seat the ruleset does not have": (
        ["VT-0088", "VT-0397", "VT-0398", "VT-0902"],
        ["LT-0012", "LT-0051", "LT-0902"],
    ),
    "a deal leaving a seat out": (["VT-0092"], ["LT-0052"]),
    "the empty string as the dealer": (["VT-0413"], ["LT-0053"]),
    "the empty string as a seat of a deal": (["VT-0414"], ["LT-0054"]),
    "the empty string as a seat of a draw round": (["VT-0415"], ["LT-0055"]),
    "the empty string as a side of the score": (["VT-0416"], ["LT-0056"]),
    "a hand as an object of cards": (["VT-0412"], ["LT-0047"]),
    "a hand of the wrong length": (["VT-0090", "VT-0091", "VT-0399"], ["LT-0011"]),
    "both a dealer and a draw": (["VT-0402"], ["LT-0057"]),
    "neither a dealer nor a draw": (["VT-0403"], ["LT-0058"]),
    "a dealer of null without a draw": (["VT-0418"], ["LT-0059"]),
    "a dealer that is not a string": (["VT-0417"], ["LT-0060"]),
    "a dealer naming no seat": (["VT-0427", "VT-0901"], ["LT-0061", "LT-0073", "LT-0901"]),
    "deals that are not an array": (["VT-0419"], ["LT-0062"]),
    "deals missing": (["VT-0420"], ["LT-0063"]),
    "a deal that is not an object": (["VT-0421"], ["LT-0064"]),
    "a card naming no card": (["VT-0005"], ["LT-0065"]),
    "a card not of the ruleset's pack": (["VT-0422"], ["LT-0010"]),
    "an empty draw": (["VT-0423"], ["LT-0066"]),
    "a draw round that is not an object": (["VT-0424"], ["LT-0068"]),
    "a draw round with the wrong seats": (["VT-0080", "VT-0081", "VT-0082", "VT-0089"], ["LT-0067"]),
    "a card drawn twice in one round": (["VT-0084", "VT-0085"], ["LT-0069"]),
    "a drawn card that is not a card of the pack": (["VT-0006"], ["LT-0009"]),
    "a draw that ends unsettled": (["VT-0078", "VT-0079"], ["LT-0007"]),
    "a draw that goes on once settled": (["VT-0083"], ["LT-0008"]),
    "a score that is not an object": (["VT-0425"], ["LT-0070"]),
    "a score naming a side the ruleset does not have": (["VT-0406"], ["LT-0014"]),
    "points that are not a JSON integer": (["VT-0405", "VT-0426"], ["LT-0071", "LT-0072"]),
    "negative points": (["VT-0404"], ["LT-0016"]),
}

DEAL_A = {"N": ["AS", "7H", "8C"], "E": ["9C", "KD", "JH"], "S": ["10H", "QS", "8D"], "W": ["7C", "AD", "9S"]}
DEAL_P = {"A": ["3S", "2H", "4C"], "B": ["2D", "AS", "5H"]}

# The one change (a JSON pointer and the value it gets, or DELETE) that makes each case's setup usable.
REPAIR: dict[str, list[tuple[str, Any]]] = {
    "VT-0004": [("/deals/0/W/2", "9S")],
    "VT-0005": [("/deals/0/N/0", "AS")],
    "VT-0006": [("/draw/0/N", "7S")],
    "VT-0078": [("/draw/0/S", "9D")],
    "VT-0079": [("/draw/1/E", "KD")],
    "VT-0080": [("/draw/1/S", DELETE), ("/draw/1/E", "JD")],  # the round's seats: S for E
    "VT-0081": [("/draw/1/W", DELETE)],
    "VT-0082": [("/draw/0/W", "KC")],
    "VT-0083": [("/draw/1", DELETE)],
    "VT-0084": [("/draw/0/S", "KD")],
    "VT-0085": [("/draw/1/E", "9D")],
    "VT-0086": [("/deals/0/S/0", "KH")],
    "VT-0087": [("/deals/0/E/2", "JS")],
    "VT-0088": [("/deals/0/X", DELETE)],
    "VT-0089": [("/draw/0/X", DELETE)],
    "VT-0090": [("/deals/0/S", ["KH", "7C", "AD"])],
    "VT-0091": [("/deals/0/E", ["7D", "QC", "JS"])],
    "VT-0092": [("/deals/0/W", ["8H", "JC", "QS"])],
    "VT-0093": [("/deals/1/W/2", "7S")],
    "VT-0392": [("/deals/0/W/2", "QS")],
    "VT-0393": [("/deals/0/N/1", "9D")],
    "VT-0394": [("/deals/1/W/1", "JC")],
    "VT-0395": [("/score/NS", 20)],
    "VT-0396": [("/score/EW", 20)],
    "VT-0397": [("/deals/0/X", DELETE), ("/deals/0/W", ["7H", "JC", "QS"])],  # the packet's seat: X for W
    "VT-0398": [("/deals/0/X", DELETE)],
    "VT-0399": [("/deals/0/W", ["7H", "JC", "QS"])],
    "VT-0402": [("/draw", DELETE)],
    "VT-0403": [("/dealer", "W")],
    "VT-0404": [("/score/NS", 0)],
    "VT-0405": [("/score/NS", 3)],
    "VT-0406": [("/score/NE", DELETE)],
    "VT-0412": [("/deals/0/N", ["AS", "7H", "8C"])],
    "VT-0413": [("/dealer", "W")],
    "VT-0414": [("/deals/0/", DELETE)],
    "VT-0415": [("/draw/0/", DELETE)],
    "VT-0416": [("/score/", DELETE)],
    "VT-0417": [("/dealer", "W")],
    "VT-0418": [("/dealer", "W")],
    "VT-0419": [("/deals", [])],
    "VT-0420": [("/deals", [])],
    "VT-0421": [("/deals/0", DEAL_A)],
    "VT-0422": [("/deals/0/N/0", "AS")],
    "VT-0423": [("/draw", [{"N": "7S", "E": "9H", "S": "KD", "W": "QC"}])],
    "VT-0424": [("/draw/0", {"N": "7S", "E": "9H", "S": "KD", "W": "QC"})],
    "VT-0425": [("/score", {"NS": 3, "EW": 5})],
    "VT-0426": [("/score/NS", 1)],
    "VT-0427": [("/dealer", "W")],
    "VT-0901": [("/dealer", "W")],  # a dealer of 1,100 characters (cases/protocol_answers.yaml)
    "VT-0902": [("/deals/0/" + "X" * 1100, DELETE)],  # a fifth key of 1,100 characters
    "LT-0007": [("/draw/0/B", "5D")],
    "LT-0008": [("/draw/1", DELETE)],
    "LT-0009": [("/draw/0/A", "4S")],
    "LT-0010": [("/deals/0/A/1", "2H")],
    "LT-0011": [("/deals/0/A", ["3S", "2H", "4C"])],
    "LT-0012": [("/deals/0", DEAL_P)],  # the deal's seats: N and S for A and B
    "LT-0013": [("/deals/0/B/0", "2D")],
    "LT-0014": [("/score", {"A": 3, "B": 5})],  # the score's sides: NS and EW for A and B
    "LT-0015": [("/score/A", 11)],
    "LT-0016": [("/score/B", 0)],
    "LT-0047": [("/deals/0/A", ["3S", "2H", "4C"])],
    "LT-0048": [("/deals/0/A/1", "2H")],
    "LT-0049": [("/deals/1/B/1", "7S")],
    "LT-0050": [("/score/B", 11)],
    "LT-0051": [("/deals/0/N", DELETE)],
    "LT-0052": [("/deals/0/B", ["2D", "AS", "5H"])],
    "LT-0053": [("/dealer", "B")],
    "LT-0054": [("/deals/0/", DELETE)],
    "LT-0055": [("/draw/0/", DELETE)],
    "LT-0056": [("/score/", DELETE)],
    "LT-0057": [("/draw", DELETE)],
    "LT-0058": [("/dealer", "B")],
    "LT-0059": [("/dealer", "B")],
    "LT-0060": [("/dealer", "B")],
    "LT-0061": [("/dealer", "B")],
    "LT-0062": [("/deals", [])],
    "LT-0063": [("/deals", [])],
    "LT-0064": [("/deals/0", DEAL_P)],
    "LT-0065": [("/deals/0/A/0", "3S")],
    "LT-0066": [("/draw", [{"A": "4S", "B": "3H"}])],
    "LT-0067": [("/draw/0/B", "3H")],
    "LT-0068": [("/draw/0", {"A": "4S", "B": "3H"})],
    "LT-0069": [("/draw/0/B", "5H")],
    "LT-0070": [("/score", {"A": 3, "B": 5})],
    "LT-0071": [("/score/A", 1)],
    "LT-0072": [("/score/A", 3)],
    "LT-0073": [("/dealer", "B")],
    "LT-0901": [("/dealer", "B")],
    "LT-0902": [("/deals/0/" + "X" * 1100, DELETE)],
}

# Each sloppy reading, and the cases it must fail (every case added for the setups, and some of the older ones).
CAUGHT_BY: dict[str, list[str]] = {
    "hand-iterable": ["VT-0412", "LT-0047"],
    "deal-twice": ["VT-0392", "VT-0393", "VT-0394", "LT-0013", "LT-0048", "LT-0049"],
    "draw-twice": ["VT-0084", "VT-0085", "LT-0069"],
    "no-target": ["VT-0395", "VT-0396", "LT-0015", "LT-0050"],
    "fill-missing": ["VT-0092", "LT-0052"],
    "unknown-keys": ["VT-0398", "VT-0414", "LT-0051", "LT-0054"],
    "substring-seats": ["VT-0413", "VT-0414", "VT-0415", "VT-0416", "LT-0053", "LT-0054", "LT-0055", "LT-0056"],
    "dealer-loose": ["VT-0417", "VT-0427", "LT-0060", "LT-0061", "LT-0073"],
    "dealer-and-draw": ["VT-0402", "LT-0057"],
    "first-seat-deals": ["VT-0403", "VT-0418", "VT-0423", "LT-0058", "LT-0059", "LT-0066"],
    "deals-loose": ["VT-0419", "VT-0420", "LT-0062", "LT-0063"],
    "positional": ["VT-0421", "VT-0424", "VT-0425", "LT-0064", "LT-0068", "LT-0070"],
    "cards-loose": ["VT-0422", "LT-0010", "LT-0065"],
    "draw-seats-loose": ["VT-0082", "LT-0067"],
    "score-loose": ["VT-0405", "VT-0426", "LT-0071", "LT-0072"],
}
ADDED = [f"VT-{n:04}" for n in range(412, 428)] + [f"LT-{n:04}" for n in range(47, 74)]


def ruleset_of(case_id: str) -> str:
    return RULESETS[case_id.split("-", maxsplit=1)[0]]


def patched(setup: dict[str, Any], ops: list[tuple[str, Any]]) -> dict[str, Any]:
    out = copy.deepcopy(setup)
    for pointer, value in ops:
        *path, last = pointer.split("/")[1:]
        parent: Any = out
        for part in path:
            parent = parent[int(part)] if isinstance(parent, list) else parent[part]
        key: Any = int(last) if isinstance(parent, list) else last
        if value is DELETE:
            del parent[key]
        else:
            parent[key] = copy.deepcopy(value)
    return out


def fake(mode: str) -> str:
    return shlex.join([sys.executable, str(FAKE), mode])


@pytest.fixture(scope="module")
def cases() -> dict[str, Any]:
    return {c.id: c for c in load_suite().cases}


def test_every_kind_is_pinned_under_each_ruleset(cases: dict[str, Any]) -> None:
    for kind, per_game in KINDS.items():
        for ids, ruleset in zip(per_game, RULESETS.values()):
            assert ids, f"{kind}: no case under {ruleset}"
            for case_id in ids:
                case = cases[case_id]
                assert case.applies_to(ruleset) and case.expectation(ruleset).errored, (kind, case_id)


def test_every_errored_case_is_a_kind_and_has_its_repair(cases: dict[str, Any]) -> None:
    listed = {case_id for per_game in KINDS.values() for ids in per_game for case_id in ids}
    for ruleset in RULESETS.values():
        errored = {c.id for c in cases.values() if c.applies_to(ruleset) and c.expectation(ruleset).errored}
        assert errored <= listed, f"errored cases of {ruleset} in no kind: {sorted(errored - listed)}"
    assert listed == set(REPAIR) and set(ADDED) <= listed


@pytest.mark.parametrize("case_id", sorted(REPAIR))
def test_one_fault_each(case_id: str, cases: dict[str, Any]) -> None:
    t = tables_for(load_ruleset(ruleset_of(case_id)))
    setup = thaw(cases[case_id].to_json()["setup"])
    assert run_case(t, setup, []).get("errored") is True, f"{case_id}: the setup is usable"
    repaired = run_case(t, patched(setup, REPAIR[case_id]), [])
    assert "errored" not in repaired, f"{case_id}: repaired, the setup is still unusable: {repaired.get('message')}"


def certify(mode: str, ids: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    games = sorted({ruleset_of(i).partition("/")[0] for i in ids})
    argv = ["certify", "--impl", fake(mode), "--only", ",".join(ids), "--format", "json"]
    status = main([*argv, *(x for g in games for x in ("--ruleset", g))])
    return status, json.loads(capsys.readouterr().out)


def test_every_added_case_is_caught_by_a_sloppy_reading() -> None:
    caught = {case_id for ids in CAUGHT_BY.values() for case_id in ids}
    assert set(ADDED) <= caught, sorted(set(ADDED) - caught)


def test_the_reference_through_the_fake_passes_them(capsys: pytest.CaptureFixture[str]) -> None:
    status, doc = certify("none", sorted(REPAIR), capsys)
    assert status == 0 and all(v["status"] == "conformant" for v in doc["verdicts"] if v["kind"] == "rules")


@pytest.mark.parametrize("mode", list(CAUGHT_BY))
def test_a_sloppy_reading_is_not_conformant(mode: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, doc = certify(mode, CAUGHT_BY[mode], capsys)
    failing = {c["id"] for c in doc["cases"] if c["outcome"] != "passed"}
    assert status == 1 and failing == set(CAUGHT_BY[mode]), (mode, sorted(failing))
    failed_rulesets = {c["ruleset"] for c in doc["cases"] if c["outcome"] != "passed"}
    for verdict in doc["verdicts"]:
        if verdict["kind"] == "rules" and verdict["ruleset"] in failed_rulesets:
            assert verdict["status"] == "not conformant", (mode, verdict)


def test_the_verdict_names_the_cases(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "--impl", fake("hand-iterable"), "--ruleset", "le-truc", "--only", "LT-0047"]) == 1
    out = capsys.readouterr().out
    assert "FAILED LT-0047" in out and "NOT CONFORMANT le-truc/1.1.0" in out


def test_the_fake_lists_its_modes_and_refuses_another() -> None:
    listed = subprocess.run([sys.executable, str(FAKE), "--list"], check=True, capture_output=True, text=True)
    assert {line.split()[0] for line in listed.stdout.splitlines()} == {"none", *CAUGHT_BY}
    proc = subprocess.run([sys.executable, str(FAKE), "nope"], check=False, capture_output=True, text=True)
    assert proc.returncode == 2 and "no mode 'nope'" in proc.stderr


def test_no_le_truc_case_draws_a_card_again_in_a_later_round(cases: dict[str, Any]) -> None:
    # protocol.md, a card drawn twice: under Le Truc, a card of an earlier round drawn again is open.
    for case in cases.values():
        draw = thaw(case.to_json()["setup"]).get("draw")
        if not case.applies_to(RULESETS["LT"]) or not isinstance(draw, list):
            continue
        rounds = [set(r.values()) for r in draw if isinstance(r, dict)]
        for k, later in enumerate(rounds):
            again = later & set().union(*rounds[:k])
            assert not again, f"{case.id} draws {sorted(again)} again in round {k + 1}"


def test_protocol_md_names_every_case_of_the_setups() -> None:
    text = " ".join((Path(__file__).parent.parent / "docs" / "reference" / "protocol.md").read_text().split())
    spans = {
        "VT": [(4, 6), (78, 93), (392, 399), (402, 406), (412, 427), (901, 902)],
        "LT": [(7, 16), (47, 73), (901, 902)],
    }
    named = {f"{game}-{n:04}" for game, pairs in spans.items() for lo, hi in pairs for n in range(lo, hi + 1)}
    for game, pairs in spans.items():
        for lo, hi in pairs:
            assert f"{game}-{lo:04} to {game}-{hi:04}" in text
    assert named == set(REPAIR)
