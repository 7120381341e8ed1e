"""vitou report and the outcome level: each output says the level each verdict was certified at (docs/reference/protocol.md, Levels)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from vitou_ref.cli import main

FAKE = Path(__file__).parent / "fakes" / "fake_impl.py"
SMALL = str(Path(__file__).parent / "data" / "small_suite.yaml")  # VT-0001..VT-0004, VT-0003 with a rejected step
REJECTED = "VT-0003"


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One report per run: a no-codes engine at the code level and at the outcome level, and the reference."""
    out = tmp_path_factory.mktemp("reports")
    made = {}
    for mode in ("nocodes", "nocodes-hello", "good"):
        path = out / f"{mode}.jsonl"
        impl = f"{sys.executable} {FAKE} {mode} 1"
        status = main(["certify", "--suite", SMALL, "--timeout", "5", "--impl", impl, "--report", str(path)])
        assert status == (1 if mode == "nocodes" else 0)
        made[mode] = path
    return made


def report(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    status = main(["report", *args])
    return status, capsys.readouterr().out


def summary_rows(text: str) -> dict[str, dict[str, str]]:
    """The summary's rows of the text output, by their report letter, each cell under its column's name."""
    lines = text.split("summary (one row per implementation and ruleset):\n", 1)[1].split("\n\n", 1)[0].splitlines()
    head = ["letter", *re.split(r"\s{2,}", lines[0].strip())]
    cells = [re.split(r"\s{2,}", line.strip()) for line in lines[1:]]
    return {row[0]: dict(zip(head, row)) for row in cells}


def test_the_text_summary_says_each_level(reports: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    status, out = report(capsys, *(str(reports[m]) for m in ("nocodes", "nocodes-hello", "good")))
    assert status == 0
    rows = summary_rows(out)
    # A code-level run that fails only on codes: not conformant at the code level, conformant at the outcome level.
    assert rows["A"]["verdict"] == "not conformant (1 failed)"
    assert rows["A"]["level"] == "code; conformant at the outcome level"
    assert (rows["B"]["verdict"], rows["B"]["level"]) == ("conformant", "outcome")
    # A code-level run that passes passes at the outcome level too, and the summary says both.
    assert (rows["C"]["verdict"], rows["C"]["level"]) == ("conformant", "code and outcome")
    assert f"{REJECTED}  FAILED (codes only)  passed  passed" in out


def test_the_markdown_summary_says_each_level(reports: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    status, out = report(capsys, str(reports["nocodes"]), str(reports["good"]), "--format", "markdown")
    assert status == 0
    head, _rule, a, c = [line for line in out.splitlines() if line.startswith("|")][:4]
    columns = [x.strip() for x in head.strip("|").split("|")]
    level = columns.index("level")
    assert [x.strip() for x in a.strip("|").split("|")][level] == "code; conformant at the outcome level"
    assert [x.strip() for x in c.strip("|").split("|")][level] == "code and outcome"


def test_the_json_summary_gives_the_level_and_the_verdict_at_each(
    reports: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    paths = [str(reports[m]) for m in ("nocodes", "nocodes-hello", "good")]
    status, out = report(capsys, *paths, "--format", "json")
    doc = json.loads(out)
    assert status == 0
    assert [r["level"] for r in doc["reports"]] == ["code", "outcome", "code"]
    by = {row["report"]: row for row in doc["summary"]}
    assert (by["A"]["level"], by["A"]["verdict"]) == ("code", "not conformant")
    assert by["A"]["levels"] == {"code": "not conformant", "outcome": "conformant"}
    assert by["B"]["levels"] == {"outcome": "conformant"}
    assert by["C"]["levels"] == {"code": "conformant", "outcome": "conformant"}
    (differing,) = doc["groups"][0]["differing"]
    # The no-codes engine's refusal differs only in its codes in both its runs; it passes at the outcome level.
    assert differing["id"] == REJECTED and differing["codes_only"] == ["A", "B"]
    assert differing["outcomes"] == {"A": "failed", "B": "passed", "C": "passed"}


def test_the_page_says_each_level(reports: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    status, page = report(capsys, str(reports["nocodes"]), str(reports["nocodes-hello"]), "--format", "html")
    assert status == 0
    summary = page.split('<section id="summary">', 1)[1].split("</section>", 1)[0]
    assert '<th scope="col">level</th>' in summary
    assert "<td>code; conformant at the outcome level</td>" in summary
    assert "<td>outcome</td>" in summary
    failing = page.split('<section id="failing">', 1)[1]
    assert "Only its error codes differ: it passes at the outcome level." in failing


def test_a_report_written_before_levels_claims_the_code_level_alone(
    reports: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [json.loads(x) for x in reports["nocodes"].read_text().splitlines()]
    del lines[0]["level"]
    for line in lines[1:-1]:
        line.pop("codes_only", None)
    for v in lines[-1]["verdicts"]:
        del v["level"], v["levels"]
    old = tmp_path / "old.jsonl"
    old.write_text("".join(json.dumps(x) + "\n" for x in lines))
    status, out = report(capsys, str(old), "--format", "json")
    (row,) = json.loads(out)["summary"]
    assert status == 0
    assert row["level"] == "code" and row["levels"] == {"code": "not conformant"}  # its outcome level is unknown


@pytest.mark.parametrize("level", ["Outcome", "none", 1, None, ["outcome"]])
def test_a_report_header_with_no_known_level_is_unusable(
    reports: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], level: object
) -> None:
    lines = reports["nocodes-hello"].read_text().splitlines()
    header = json.loads(lines[0])
    header["level"] = level
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    capsys.readouterr()
    assert main(["report", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "REPORT_MALFORMED" in err and "'level'" in err


def test_a_diff_across_levels_says_the_levels_differ(
    reports: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = str(reports["nocodes"]), str(reports["nocodes-hello"])
    status, text = report(capsys, "--diff", old, new)
    assert status == 0  # the case failing on codes alone passes at the outcome level: nothing passing was lost
    assert "at the code level" in text.splitlines()[0] and "at the outcome level" in text.splitlines()[1]
    assert text.splitlines()[2].startswith("THE LEVELS DIFFER: OLD was certified at the code level, NEW at the outcome")
    _, md = report(capsys, "--diff", old, new, "--format", "markdown")
    assert "**THE LEVELS DIFFER: OLD was certified at the code level" in md
    _, js = report(capsys, "--diff", old, new, "--format", "json")
    doc = json.loads(js)
    assert doc["levels_differ"] is True and (doc["old"]["level"], doc["new"]["level"]) == ("code", "outcome")


def test_a_diff_at_one_level_says_nothing_of_levels(
    reports: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    status, text = report(capsys, "--diff", str(reports["good"]), str(reports["nocodes"]))
    assert status == 1  # the rejected step's code is lost: a regression at the code level
    assert "LEVELS DIFFER" not in text
    _, js = report(capsys, "--diff", str(reports["good"]), str(reports["nocodes"]), "--format", "json")
    assert json.loads(js)["levels_differ"] is False
