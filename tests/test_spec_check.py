"""`vitou spec check`: the shipped spec passes; broken copies fail with located messages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import ROOT, SPEC

from vitou_ref import InputError, load_rules_text
from vitou_ref.cli import main

TEXT = SPEC.read_text(encoding="utf-8")


def test_the_shipped_spec_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spec", "check", str(SPEC)]) == 0
    out = capsys.readouterr().out
    assert "ok:" in out and "vitou/1.0.0" in out and "sha256:" in out


# Each entry: a shipped file, a text replaced in it, the code spec check must report (none: it must pass), and
# the line it points at.
BROKEN = yaml.safe_load((ROOT / "tests" / "data" / "broken_rules.yaml").read_text(encoding="utf-8"))


def _line_of(text: str, needle: str) -> int:
    index = text.index(needle)
    return text.count("\n", 0, index) + 1


@pytest.mark.parametrize("entry", BROKEN, ids=[b["name"] for b in BROKEN])
def test_a_broken_copy_fails_with_a_located_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], entry: dict[str, Any]
) -> None:
    old, code, anchor = entry["replace"], entry["code"], entry["anchor"]
    text = (ROOT / entry["file"]).read_text(encoding="utf-8")
    assert text.count(old) >= 1, entry["name"]
    broken = text.replace(old, entry["with"], 1)
    path = tmp_path / "broken.yaml"
    path.write_text(broken, encoding="utf-8")
    if code is None:  # a copy that is not broken: it must pass
        assert main(["spec", "check", str(path)]) == 0, capsys.readouterr().out
        return
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
    assert main(["spec", "check", "no/such/file.yaml"]) == 2  # no verdict on a file that cannot be read
    assert "FILE_UNREADABLE" in capsys.readouterr().err  # what went wrong is no finding: stderr


def test_the_quick_rules_validation_gives_the_full_verdict() -> None:
    # validate_rules checks each distinct clause once per process; its verdict must be validate's, problems and all.
    import copy

    from vitou_ref.rules.schema import validate, validate_rules
    from vitou_ref.rules.yamlsafe import Document

    data = yaml.safe_load(TEXT)
    good = Document(data, "good.yaml", {})
    assert validate_rules(good) == [] == validate(good, "rules")
    for change in (
        lambda d: d["clauses"][6]["data"].update(cards_each="three"),  # a clause wrong inside
        lambda d: d["clauses"].append({"id": "x.y"}),  # a clause without text
        lambda d: d.update(extra=1),  # wrong outside the clauses
        lambda d: d["clauses"].clear(),  # too few clauses
    ):
        broken = copy.deepcopy(data)
        change(broken)
        doc = Document(broken, "broken.yaml", {})
        assert validate_rules(doc) == validate(doc, "rules") != []


def test_removing_the_clause_of_any_required_rule_is_rule_missing(tmp_path: Path) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("code_mutants_broken", ROOT / "tools" / "code_mutants_broken.py")
    assert spec is not None and spec.loader is not None
    broken = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(broken)
    copies = broken.rule_missing_copies()
    from vitou_ref.rules.settings import RULES

    assert sorted(rule for rule, _ in copies) == sorted(RULES)
    for rule, text in copies:
        with pytest.raises(InputError) as info:
            load_rules_text(text, f"{rule}.yaml")
        assert any(p.code == "RULE_MISSING" and repr(rule) in p.message for p in info.value.problems), rule
