"""Certify names every place a failing case's answer differs, not the first alone: one bug must not hide another.

The engine is tests/fakes/truc_mistakes.py with two mistakes of Le Truc at once: suits break equal ranks (so no
trick is spoilt) and the dealer deals every hand (so the deal never alternates).

LT-0029, derived from Le Truc's text: dealer B, A leads 3S, 5S, JS and B follows 3H, 5H, JH. §2: cards of equal
rank spoil the trick, whatever their suits, so the three tricks are spoilt (row TTT): nobody wins or scores. §1:
the deal passes after every hand, so B's hand over, A deals the next: the final dealer is A.

The first mistake shows first: at step 2, 3S against 3H is won (spades above hearts) where it is spoilt. The second
shows only at the end: the dealer is still B. Reported to the first difference alone, the run would name the
first mistake and hide the second.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from vitou_ref.cli import main

FAKE = Path(__file__).parent / "fakes" / "truc_mistakes.py"


def engine(modes: str) -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKE))} {modes}"


def certify(modes: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, dict[str, object]]:
    report = tmp_path / f"{modes}.jsonl"
    argv = ["certify", "--impl", engine(modes), "--ruleset", "le-truc", "--only", "LT-0029", "--report", str(report)]
    assert main(argv) == 1
    text = capsys.readouterr().out
    lines = [json.loads(x) for x in report.read_text(encoding="utf-8").splitlines()]
    (case,) = [x for x in lines if x.get("type") == "case" and x["id"] == "LT-0029"]
    return text, case


def test_a_case_names_each_bug_of_an_engine_with_two(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text, case = certify("suits-count+dealer-stays", tmp_path, capsys)
    first = case["difference"]
    assert (first["where"], first["what"]) == ("step 2", "events")
    assert first["actual"] == [{"event": "trick", "trick": 1, "winner": "A"}]  # 3S over 3H: the suits counted
    more = case["more_differences"]
    final = more[-1]
    assert final["where"] == "final"
    assert (final["expected"]["dealer"], final["actual"]["dealer"]) == ("A", "B")  # the dealer stayed
    # The text keeps the first difference whole and says how many more, and where.
    shown = f"and {len(more)} more places differ after it: " + ", ".join(f"{d['where']} ({d['what']})" for d in more)
    assert shown in text


def test_the_second_bug_is_the_second_mistakes_own(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # With the suits' mistake alone the deal still passes: the dealer of the final state is the case's.
    _, case = certify("suits-count", tmp_path, capsys)
    final = [d for d in case.get("more_differences", []) if d["where"] == "final"]
    assert not final or final[0]["actual"]["dealer"] == "A"


def test_the_page_shows_every_difference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    certify("suits-count+dealer-stays", tmp_path, capsys)
    page = tmp_path / "page.html"
    assert main(["report", str(tmp_path / "suits-count+dealer-stays.jsonl"), "--format", "html", "-o", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert "First difference: <strong>step 2</strong>" in html
    assert "<strong>final</strong>" in html and "Then, difference" in html


@pytest.mark.parametrize("value", ["step 3", [1, 2], {"where": "final"}, None])
def test_a_report_whose_further_differences_are_not_objects_is_named(tmp_path: Path, value: object) -> None:
    from vitou_ref.results.caseline import case_line
    from vitou_ref.rules.errors import InputError

    line = {"id": "LT-0029", "title": "t", "ruleset": "le-truc/1.1.0", "outcome": "failed", "clauses": []}
    with pytest.raises(InputError) as caught:
        case_line({**line, "more_differences": value}, "r.jsonl", 3)
    assert "'more_differences' is not a list of objects" in str(caught.value)
