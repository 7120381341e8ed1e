"""`vitou spec check`: the shipped spec passes; broken copies fail with located messages."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import SPEC

from vitou_ref import InputError, load_rules_text
from vitou_ref.cli import main

TEXT = SPEC.read_text(encoding="utf-8")


def test_the_shipped_spec_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spec", "check", str(SPEC)]) == 0
    out = capsys.readouterr().out
    assert "ok:" in out and "vitou/1.0.0" in out and "sha256:" in out


ROW_TTT = """        - id: TTT
          pattern: [T, T, T]
          winner: none
          text: All three tricks tied; nobody scores and the next dealer deals.
          quote: With all tricks tied, nobody scores and the next dealer deals.
"""

# (name, text replaced, replacement, expected code, text whose line the problem must point at)
BROKEN = [
    ("yaml syntax", "  id: vitou\n", "  id: [vitou\n", "YAML_SYNTAX", None),
    ("unquoted date", 'date: "2026-11-29"', "date: 2026-11-29", "YAML_DATE", "date: 2026-11-29"),
    ("wrong type", "      cards_each: 3", "      cards_each: three", "SCHEMA", "cards_each: three"),
    ("unknown key", "      cards_each: 3", "      cards_each: 3\n      cards_eech: 3", "SCHEMA", None),
    ("unknown rank", '      highest_first: ["10", "9"', '      highest_first: ["11", "9"', "SCHEMA", "highest_first"),
    ("incomplete table", ROW_TTT, "", "RESOLUTION_INCOMPLETE", "        - id: AA\n"),
    (
        "ambiguous table",
        ROW_TTT,
        ROW_TTT + ROW_TTT.replace("id: TTT", "id: TTT2").replace("winner: none", "winner: A"),
        "RESOLUTION_AMBIGUOUS",
        "id: TTT2",
    ),
    (
        "unreachable row",
        ROW_TTT,
        ROW_TTT + "        - {id: AAB, pattern: [A, A, B], winner: B, text: never}\n",
        "RESOLUTION_UNREACHABLE",
        "id: AAB",
    ),
    (
        "ladder not increasing",
        "{bid: 12, value: 12, refused: 6}",
        "{bid: 12, value: 5, refused: 6}",
        "LADDER_NOT_INCREASING",
        "{bid: 12, value: 5",
    ),
    (
        "refusal not an earlier level",
        "{bid: 12, value: 12, refused: 6}",
        "{bid: 12, value: 12, refused: 7}",
        "REFUSAL_NOT_EARLIER",
        "refused: 7",
    ),
    (
        "partners side by side",
        "{id: NS, name: North-South, seats: [N, S]}\n        - {id: EW, name: East-West, seats: [E, W]}",
        "{id: NS, name: North-South, seats: [N, E]}\n        - {id: EW, name: East-West, seats: [S, W]}",
        "SEATS_ORDER",
        "- {id: N, name: North}",
    ),
    (
        "seat in no side",
        "seats: [E, W]}",
        "seats: [E]}",
        "SIDES_PARTITION",
        "        - {id: NS",
    ),
    (
        "error code names no clause",
        "    clause: bid.no_jumps\n",
        "    clause: bid.no_jump\n",
        "ERROR_CLAUSE_UNKNOWN",
        "clause: bid.no_jump\n",
    ),
    ("error code unknown", "  - code: RAISE_JUMP\n", "  - code: RAISE_HOP\n", "ERROR_CODE_UNKNOWN", "code: RAISE_HOP"),
    ("rule missing", "    rule: target\n    data:\n      points: 21\n", "", "RULE_MISSING", "  - id: deck.cards"),
    ("data without a rule", "    rule: target\n", "", "SCHEMA", "  - id: score.target"),
    ("clause id reused", "  - id: bid.no_jumps\n", "  - id: bid.ladder\n", "CLAUSE_DUPLICATE", None),
    (
        "precedence out of order",
        "  - code: NOT_YOUR_TURN\n    clause: play.turn_order\n",
        "  - code: NOT_YOUR_TURN\n    clause: play.turn_order\n  - code: ZZZ\n",
        "SCHEMA",
        None,
    ),
    (
        "rank order not the pack's ranks",
        '      highest_first: ["10", "9", "A", "K", "Q", "J", "8", "7"]',
        '      highest_first: ["10", "9", "A", "K", "Q", "J", "8"]',
        "RANK_ORDER_MISMATCH",
        "highest_first",
    ),
    ("twenty at the target", "      at: 20\n", "      at: 21\n", "TWENTY_AT_TARGET", "at: 21"),
    (
        "clarification cites unknown clause",
        "    clauses: [trick.tie]\n",
        "    clauses: [trick.ties]\n",
        "CLAUSE_UNKNOWN",
        "clauses: [trick.ties]",
    ),
]


def _line_of(text: str, needle: str) -> int:
    index = text.index(needle)
    return text.count("\n", 0, index) + 1


@pytest.mark.parametrize(("name", "old", "new", "code", "anchor"), BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_copy_fails_with_a_located_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, old: str, new: str, code: str, anchor: str | None
) -> None:
    assert TEXT.count(old) >= 1, name
    broken = TEXT.replace(old, new, 1)
    path = tmp_path / "broken.yaml"
    path.write_text(broken, encoding="utf-8")
    assert main(["spec", "check", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"FAILED: {path}" in out
    lines = [line for line in out.splitlines() if f": {code}" in line]
    assert lines, out
    assert all(line.startswith(f"{path}:") for line in lines)
    if anchor is not None:
        expected = _line_of(broken, anchor)
        assert any(line.startswith(f"{path}:{expected}:") for line in lines), (expected, lines)
    assert "Traceback" not in out


def test_error_precedence_must_keep_structural_checks_first() -> None:
    # Moving WRONG_PHASE after NOT_YOUR_TURN would let the turn check run in a phase it cannot judge.
    moved = TEXT.replace(
        "  - code: WRONG_PHASE\n    clause: turn.decisions\n    summary: The action belongs to another stage of the hand.\n",
        "",
    ).replace(
        "  - code: CARD_NOT_HELD\n",
        "  - code: WRONG_PHASE\n    clause: turn.decisions\n    summary: moved\n  - code: CARD_NOT_HELD\n",
    )
    with pytest.raises(InputError) as info:
        load_rules_text(moved, "moved.yaml")
    assert {p.code for p in info.value.problems} == {"ERROR_ORDER"}


def test_check_reports_every_problem_not_just_the_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = TEXT.replace("    clause: bid.no_jumps\n", "    clause: bid.no_jump\n").replace(
        "    clause: bid.ladder\n", "    clause: bid.ladders\n"
    )
    path = tmp_path / "two.yaml"
    path.write_text(broken, encoding="utf-8")
    assert main(["spec", "check", str(path), str(SPEC)]) == 1
    out = capsys.readouterr().out
    assert out.count("ERROR_CLAUSE_UNKNOWN") == 3  # bid.ladder is cited twice
    assert "ok: " in out  # the good file is still reported as good


def test_json_output_is_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    path = tmp_path / "b.yaml"
    path.write_text(TEXT.replace("      at: 20\n", "      at: 21\n"), encoding="utf-8")
    assert main(["spec", "check", "--format", "json", str(path)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report[0]["ok"] is False
    problem = report[0]["problems"][0]
    assert problem["code"] == "TWENTY_AT_TARGET"
    assert problem["path"].startswith("/clauses/") and problem["path"].endswith("/data/at")
    assert isinstance(problem["line"], int)


def test_a_missing_file_is_reported_not_raised(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spec", "check", "no/such/file.yaml"]) == 1
    assert "FILE_UNREADABLE" in capsys.readouterr().out
