"""The wrapped engine of docs/how-to/wrap-an-engine.md is certified, and a bug planted in it or its adapter shows."""

from __future__ import annotations

import importlib.util
import json
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT

from vitou_ref.cli import main
from vitou_ref.kit.suite import load_suite

WRAP = ROOT / "docs" / "examples" / "wrap"
RULESET = "le-truc/1.1.0"
# The engine's cap on raises, as the guide plants the bug: once 12 is the stake, a raise to 14 is offered.
CAP = ("        if basis >= TOP:\n", "        if basis > TOP:\n")
# The adapter's table of the engine's messages, as the guide plants the bug: a card while a raise waits is mapped
# to the code of another rule.
MAPPING = ('(r"raise is waiting", "RAISE_AWAITS_ANSWER")', '(r"raise is waiting", "NOT_YOUR_TURN")')


def _certify(capsys: pytest.CaptureFixture[str], adapter: Path, *args: str) -> tuple[int, dict[str, Any]]:
    impl = shlex.join([sys.executable, str(adapter), *args])
    status = main(["certify", "--ruleset", "le-truc", "--impl", impl, "--format", "json"])
    return status, json.loads(capsys.readouterr().out)


def _rules(doc: dict[str, Any]) -> dict[str, Any]:
    (verdict,) = [v for v in doc["verdicts"] if v["kind"] == "rules"]
    assert isinstance(verdict, dict) and verdict["ruleset"] == RULESET
    return verdict


def _failing(doc: dict[str, Any]) -> set[str]:
    return {c["id"] for c in doc["cases"] if c["outcome"] != "passed"}


def _planted(tmp_path: Path, name: str, change: tuple[str, str]) -> Path:
    """A copy of the example with one change in one file; the adapter of the copy."""
    copy = tmp_path / "wrap"
    shutil.copytree(WRAP, copy)
    path = copy / name
    text = path.read_text(encoding="utf-8")
    assert text.count(change[0]) == 1, f"{name} no longer holds the line the guide changes"
    path.write_text(text.replace(*change), encoding="utf-8")
    return copy / "adapter.py"


def test_the_wrapped_engine_is_certified_at_the_code_level(capsys: pytest.CaptureFixture[str]) -> None:
    status, doc = _certify(capsys, WRAP / "adapter.py")
    verdict = _rules(doc)
    assert status == 0 and verdict["status"] == "conformant" and verdict["certified"] is True
    assert verdict["level"] == "code" and doc["implementation"]["name"] == "cardgame"
    counts = verdict["refusals"]
    assert counts["total"] == counts["engine"] + counts["adapter"]
    assert counts["engine"] > 0 and counts["adapter"] > 0


def test_the_counts_are_the_marks_of_the_answers(capsys: pytest.CaptureFixture[str]) -> None:
    # The adapter's answers, made in this process case by case, hold as many marks of each kind as certify counts.
    spec = importlib.util.spec_from_file_location("wrap_adapter", WRAP / "adapter.py")
    assert spec is not None and spec.loader is not None
    sys.path.insert(0, str(WRAP))
    try:
        adapter = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(adapter)
    finally:
        sys.path.remove(str(WRAP))
    marks = {"engine": 0, "adapter": 0}
    for case in load_suite().applicable(RULESET):
        for step in adapter.run(case.request(1, RULESET)).get("steps", []):
            if step["ok"] is False:
                marks[step["by"]] += 1
    _, doc = _certify(capsys, WRAP / "adapter.py")
    assert _rules(doc)["refusals"] == {"total": sum(marks.values()), **marks}


def test_at_the_outcome_level_the_engine_s_own_words_pass(capsys: pytest.CaptureFixture[str]) -> None:
    status, doc = _certify(capsys, WRAP / "adapter.py", "--outcome")
    verdict = _rules(doc)
    assert status == 0 and verdict["status"] == "conformant" and verdict["level"] == "outcome"


def test_a_bug_planted_in_the_engine_is_not_hidden_by_the_adapter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, doc = _certify(capsys, _planted(tmp_path, "cardgame.py", CAP))
    verdict = _rules(doc)
    assert status == 1 and verdict["levels"] == {"code": "not conformant", "outcome": "not conformant"}
    # The cases of the top of the ladder, as the guide names them: the legal set offers a raise to 14.
    assert {"LT-0110", "LT-0112", "LT-0113"} <= _failing(doc)
    assert not any(c.get("codes_only") for c in doc["cases"])


def test_a_wrong_code_in_the_adapter_s_table_fails_the_code_level_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, doc = _certify(capsys, _planted(tmp_path, "adapter.py", MAPPING))
    verdict = _rules(doc)
    assert status == 1 and verdict["levels"] == {"code": "not conformant", "outcome": "conformant"}
    assert _failing(doc) == {"LT-0126"}


def test_the_guide_names_what_the_test_plants() -> None:
    page = (ROOT / "docs" / "how-to" / "wrap-an-engine.md").read_text(encoding="utf-8")
    for said in ("if basis >= TOP", "if basis > TOP", "LT-0110", "LT-0126", "tests/test_wrap_example.py"):
        assert said in page, said
