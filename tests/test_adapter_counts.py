"""Who decided a refusal: certify counts the "by" marks of rejected steps, whatever they hold, and judges nothing by them."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from vitou_ref.adapter import build_server
from vitou_ref.cli import main
from vitou_ref.kit.refusals import Refusals, shown
from vitou_ref.kit.suite import load_suite

RULESET = "le-truc/1.1.0"
HUGE = "adapter" * 20_000
DEEP: Any = "adapter"
for _ in range(40):
    DEEP = [DEEP]

# The reference, with a "by" put on the steps of its answers: MODE says which values, in turn.
FAKE = """
import itertools, json, sys
from vitou_ref.adapter import build_server

with open(sys.argv[2], encoding="utf-8") as f:
    VALUES = json.load(f)
ON_ACCEPTED = sys.argv[1] == "on-accepted"
server = build_server()
handle = server.handle
marks = itertools.cycle(VALUES)


def marked(line):
    answer = handle(line)
    for step in answer.get("steps", []) if isinstance(answer, dict) else []:
        if step["ok"] is False:
            step["by"] = next(marks)
        elif ON_ACCEPTED:
            step["by"] = "adapter"
    return answer


server.handle = marked
sys.exit(server.serve(sys.stdin.buffer, sys.stdout.buffer))
"""


def _refusals() -> int:
    """How many rejected steps the reference answers under the ruleset's cases."""
    server = build_server()
    total = 0
    for case in load_suite().applicable(RULESET):
        answer = server.handle(json.dumps(case.request(1, RULESET)))
        steps = answer.get("steps", []) if answer else []
        total += sum(1 for s in steps if s["ok"] is False)
    return total


TOTAL = _refusals()


def _certify(capsys: pytest.CaptureFixture[str], impl: list[str], fmt: str = "json") -> tuple[int, str]:
    capsys.readouterr()
    status = main(["certify", "--ruleset", "le-truc", "--impl", shlex.join(impl), "--format", fmt])
    return status, capsys.readouterr().out


def _fake(tmp_path: Path, mode: str, values: list[Any]) -> list[str]:
    script, given = tmp_path / "marking.py", tmp_path / "values.json"
    script.write_text(FAKE, encoding="utf-8")
    given.write_text(json.dumps(values), encoding="utf-8")  # JSON of any size, in a file: nothing to quote
    return [sys.executable, str(script), mode, str(given)]


def _verdicts(text: str) -> list[dict[str, Any]]:
    return [{k: v for k, v in d.items() if k != "refusals"} for d in json.loads(text)["verdicts"]]


def test_the_suite_has_refusals_to_count() -> None:
    assert TOTAL > 50


def test_answers_that_mark_nothing_say_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    status, text = _certify(capsys, [sys.executable, "-m", "vitou_ref.adapter"], "text")
    assert status == 0 and "refusals" not in text
    status, doc = _certify(capsys, [sys.executable, "-m", "vitou_ref.adapter"])
    assert status == 0 and all("refusals" not in v for v in json.loads(doc)["verdicts"])


def test_marks_are_counted_in_every_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    impl = _fake(tmp_path, "refusals", ["engine", "adapter", "adapter"])
    adapter = sum(1 for i in range(TOTAL) if i % 3)
    said = f"{RULESET}: {TOTAL} refusals, {TOTAL - adapter} by the engine, {adapter} by the adapter"
    status, text = _certify(capsys, impl, "text")
    assert status == 0 and f"\n{said} (as the answers mark them)\n" in text
    assert text.rstrip("\n").split("\n")[-2].startswith(f"CONFORMANT {RULESET}")  # the verdicts stay last
    status, markdown = _certify(capsys, impl, "markdown")
    assert status == 0 and said in markdown
    status, doc = _certify(capsys, impl)
    (rules,) = [v for v in json.loads(doc)["verdicts"] if v["kind"] == "rules"]
    assert rules["refusals"] == {"total": TOTAL, "engine": TOTAL - adapter, "adapter": adapter}


def test_the_report_footer_carries_the_counts_and_vitou_report_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "run.jsonl"
    impl = _fake(tmp_path, "refusals", ["adapter"])
    assert main(["certify", "--ruleset", "le-truc", "--impl", shlex.join(impl), "--report", str(report)]) == 0
    footer = json.loads(report.read_text(encoding="utf-8").strip().split("\n")[-1])
    (rules,) = [v for v in footer["verdicts"] if v["kind"] == "rules"]
    assert rules["refusals"] == {"total": TOTAL, "engine": 0, "adapter": TOTAL}
    capsys.readouterr()
    assert main(["report", str(report)]) == 0


HOSTILE: list[Any] = [1, True, None, [], {"by": "adapter"}, "ADAPTER", "adapter ", HUGE, DEEP, 1e300, "engine"]


@pytest.mark.parametrize("mode", ["refusals", "on-accepted"])
def test_hostile_marks_change_no_verdict(mode: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, reference = _certify(capsys, [sys.executable, "-m", "vitou_ref.adapter"])
    assert status == 0
    status, doc = _certify(capsys, _fake(tmp_path, mode, HOSTILE))
    assert status == 0 and _verdicts(doc) == _verdicts(reference)
    (rules,) = [v for v in json.loads(doc)["verdicts"] if v["kind"] == "rules"]
    # Only "engine" is a mark among them: every refusal is the engine's, and a mark on an accepted step is none.
    assert rules["refusals"] == {"total": TOTAL, "engine": TOTAL, "adapter": 0}


def test_values_that_are_no_mark_show_no_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, text = _certify(capsys, _fake(tmp_path, "on-accepted", HOSTILE[:-1]), "text")
    assert status == 0 and "refusals" not in text


@pytest.mark.parametrize(
    "answer",
    [
        None,
        [],
        "steps",
        {"steps": None},
        {"steps": "ok"},
        {"steps": {"ok": False}},
        {"steps": [None, 1, "x", [], {"ok": "false", "by": "adapter"}, {"ok": 0, "by": "adapter"}]},
        {"steps": [{"ok": True, "by": "adapter"}, {"by": "adapter"}]},
    ],
)
def test_an_answer_of_any_shape_adds_no_refusal(answer: Any) -> None:
    counts = Refusals()
    counts.add(answer)
    assert (counts.total, counts.marked) == (0, False)


def test_each_kind_of_mark() -> None:
    counts = Refusals()
    steps = [{"ok": False, "by": by} for by in ("adapter", "engine", None, HUGE, DEEP, {"adapter": 1})]
    counts.add({"steps": [*steps, {"ok": False}]})
    assert (counts.engine, counts.adapter, counts.marked) == (6, 1, True)
    assert counts.to_json() == {"total": 7, "engine": 6, "adapter": 1}
    assert (
        counts.words("r/1.0.0") == "r/1.0.0: 7 refusals, 6 by the engine, 1 by the adapter (as the answers mark them)"
    )
    assert shown({"r/1.0.0": counts}, "r/1.0.0") is counts and shown({"r/1.0.0": counts}, "other/1.0.0") is None
    unmarked = Refusals()
    unmarked.add({"steps": [{"ok": False, "by": "Adapter"}]})
    assert shown({"r": unmarked}, "r") is None
    one = Refusals()
    one.add({"steps": [{"ok": False, "by": "adapter"}]})
    assert one.words("r") == "r: 1 refusal, 0 by the engine, 1 by the adapter (as the answers mark them)"
