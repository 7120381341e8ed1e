"""vitou report: real reports of certify compared, diffed, badged and shown as a page, and bad reports refused clearly."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from vitou_ref.cli import main
from vitou_ref.rules.schema import validator

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "conformance" / "cases"
MUTANT = "refusal-pays-refuser"  # pays a refusal to the side that refused: a few dozen cases fail
KNOWN = ("VT-0001", "VT-0002")  # listed as known failures of the reference, which passes them: XPASS
SUBSET = "VT-00*"


def adapter(*extra: str) -> str:
    return shlex.join([sys.executable, "-m", "vitou_ref.adapter", *extra])


@dataclass(frozen=True)
class Runs:
    dir: Path
    ref: Path  # the bundled reference
    mutant: Path  # a mutant of it, through --impl
    expect: Path  # the reference with --expect: known failures that pass
    only: Path  # the reference, --only a subset
    other: Path  # the reference on a copy of the suite with one case file changed: another suite hash


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    d = tmp_path_factory.mktemp("reports")
    (d / "expect.yaml").write_text("".join(f"{k}: listed to show XPASS\n" for k in KNOWN), encoding="utf-8")
    suite = d / "suite" / "cases"
    shutil.copytree(SUITE, suite)
    first = sorted(suite.rglob("*.yaml"))[0]
    first.write_text(first.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    r = Runs(d, d / "ref.jsonl", d / "mutant.jsonl", d / "expect.jsonl", d / "only.jsonl", d / "other.jsonl")
    assert main(["certify", "--report", str(r.ref)]) == 0
    assert main(["certify", "--impl", adapter("--mutant", MUTANT), "--report", str(r.mutant)]) == 1
    assert main(["certify", "--expect", str(d / "expect.yaml"), "--report", str(r.expect)]) == 1
    assert main(["certify", "--only", SUBSET, "--report", str(r.only)]) == 0
    assert main(["certify", "--suite", str(suite), "--only", SUBSET, "--report", str(r.other)]) == 0
    return r


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def cases(path: Path) -> list[dict[str, Any]]:
    return [x for x in lines(path) if x["type"] == "case"]


def passed(case: dict[str, Any]) -> bool:
    return case["outcome"] in ("passed", "xpass")


def behaviour(case: dict[str, Any]) -> str:
    if case["outcome"] == "xpass":
        return "passed"
    if case["outcome"] == "xfail":
        return "errored" if case.get("fault") else "failed"
    return str(case["outcome"])


def key(case: dict[str, Any]) -> tuple[str, str]:
    """A case as vitou report compares it: its ruleset (an envelope case's, the envelope under it) and its id."""
    under = f"envelope under {case['ruleset']}" if case.get("section") == "envelope" else case["ruleset"]
    return (under, case["id"])


def report_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["report", "--format", "json", *args]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


# ----------------------------------------------------------------- header


def test_the_header_names_the_suite_by_its_hash_and_a_changed_case_file_changes_it(runs: Runs) -> None:
    ref, only, other = (lines(p)[0] for p in (runs.ref, runs.only, runs.other))
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", ref["suite"]["hash"])
    assert only["suite"]["hash"] == ref["suite"]["hash"]  # --only runs part of the same suite
    assert other["suite"]["hash"] != ref["suite"]["hash"]
    assert ref["spec"] == {"vitou/1.1.0": ref["spec"]["vitou/1.1.0"]} and ref["spec"]["vitou/1.1.0"].startswith(
        "sha256:"
    )
    text = ref["rules_text"]["vitou/1.1.0"]
    assert text["sections"]["04"] == "The 20-point ending" and text["clauses"]["bid.refusal"] == "03"
    assert lines(runs.expect)[0]["known_failures"] == list(KNOWN) and only["only"] == [SUBSET]


def test_a_copy_of_the_suite_elsewhere_has_the_same_hash(runs: Runs, tmp_path: Path) -> None:
    copy = tmp_path / "elsewhere" / "mycases"
    shutil.copytree(SUITE, copy)
    out = tmp_path / "copy.jsonl"
    assert main(["certify", "--suite", str(copy), "--only", "VT-0001", "--report", str(out)]) == 0
    assert lines(out)[0]["suite"]["hash"] == lines(runs.ref)[0]["suite"]["hash"]


# ---------------------------------------------------------------- summary


def test_the_summary_counts_what_the_reports_hold_and_agrees_with_certify(
    runs: Runs, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [runs.ref, runs.mutant, runs.expect, runs.only]
    out = report_json(capsys, *map(str, files))
    assert [r["file"] for r in out["reports"]] == list(map(str, files))
    assert len({r["label"] for r in out["reports"]}) == 4  # told apart although all say vitou-ref 1.0.0
    for row, path in zip(out["summary"], files):
        raw = [c for c in cases(path) if c.get("section") != "envelope"]
        footer = lines(path)[-1]
        (rules,) = [v for v in footer["verdicts"] if v["kind"] == "rules"]
        assert row["ruleset"] == "vitou/1.1.0" and row["total"] == len(raw) == rules["total"]
        assert row["passed"] == sum(c["outcome"] == "passed" for c in raw) == rules["counts"].get("passed", 0)
        assert row["clauses"] == rules["clauses"]  # recounted from the case lines with the header's clauses
        assert row["verdict"] == rules["status"]
        envelope = [v for v in footer["verdicts"] if v["kind"] == "envelope"]
        if envelope:
            assert row["envelope"]["passed"] == envelope[0]["counts"]["passed"]
            assert row["envelope"]["verdict"] == envelope[0]["status"]
        else:
            assert row["envelope"] is None  # --only VT-00* runs no envelope case
    verdicts = [row["verdict"] for row in out["summary"]]
    assert verdicts == ["conformant", "not conformant", "not conformant", "conformant"]


def test_the_matrix_holds_exactly_the_cases_where_the_implementations_differ(
    runs: Runs, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [runs.ref, runs.mutant, runs.expect]
    out = report_json(capsys, *map(str, files))
    by_file = [{key(c): c for c in cases(p)} for p in files]
    keys = set().union(*by_file)
    differ = {k for k in keys if len({behaviour(f[k]) for f in by_file if k in f}) > 1}
    assert differ  # the mutant fails some
    (rules, envelope) = out["groups"]
    assert {("vitou/1.1.0", d["id"]) for d in rules["differing"]} | {
        ("envelope under vitou/1.1.0", d["id"]) for d in envelope["differing"]
    } == differ
    keys = [r["key"] for r in out["reports"]]  # every table is indexed by the report's key, never its label
    for d in rules["differing"]:
        assert d["outcomes"] == {k: by_file[i][("vitou/1.1.0", d["id"])]["outcome"] for i, k in enumerate(keys)}
    # by section and clause, the same numbers as certify's footer
    footer = next(v for v in lines(runs.mutant)[-1]["verdicts"] if v["kind"] == "rules")
    mutant = keys[1]
    got = {c["clause"]: c["by"][mutant] for c in rules["clauses"] if mutant in c["by"]}
    assert got == footer["by_clause"]


def test_text_and_markdown_show_rows_and_the_differing_cases(runs: Runs, capsys: pytest.CaptureFixture[str]) -> None:
    files = list(map(str, [runs.ref, runs.mutant, runs.expect]))
    assert main(["report", *files]) == 0
    text = capsys.readouterr().out
    failing = sorted(c["id"] for c in cases(runs.mutant) if not passed(c))
    n = len(cases(runs.ref)) - sum(c.get("section") == "envelope" for c in cases(runs.ref))
    assert re.search(rf"A\s+vitou-ref\s+1\.0\.0\s+python\s+vitou/1\.1\.0\s+{n}/{n}\s+\d+/\d+\s+conformant", text)
    assert re.search(rf"B\s+vitou-ref .* {n - len(failing)}/{n} .*not conformant \({len(failing)} failed\)", text)
    assert f"vitou/1.1.0: {len(failing)} cases where the implementations differ (of {n})" in text
    for case_id in failing:
        assert re.search(rf"^  {case_id}\s+passed\s+FAILED\s+(passed|XPASS)\s", text, flags=re.M)
    assert main(["report", "--format", "markdown", *files]) == 0
    md = capsys.readouterr().out
    assert "| implementation | version | language | ruleset | passed | clauses | verdict | level | envelope |" in md
    assert all(f"| {i} " in md for i in failing)


def test_each_report_is_named_once_its_label_then_where_it_comes_from_without_repeating_it(
    runs: Runs, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(runs.ref), str(runs.mutant)]) == 0
    text = capsys.readouterr().out
    # The two commands tell the reports apart: the label carries the command, so the line adds only the file.
    assert f"  A  vitou-ref 1.0.0 ({REFERENCE_LABEL}): {runs.ref}\n" in text
    assert text.count(REFERENCE_LABEL) == 1
    assert (
        main(["report", "--format", "html", "-o", str(runs.dir / "labels.html"), str(runs.ref), str(runs.mutant)]) == 0
    )
    page = (runs.dir / "labels.html").read_text(encoding="utf-8")
    summary = re.search(r'<section id="summary">.*?</section>', page, flags=re.S)
    assert summary and summary.group().count(REFERENCE_LABEL) == 1  # in the row's label, not again under it
    assert f"vitou-ref 1.0.0 ({REFERENCE_LABEL})" in summary.group()
    # Two runs of one command are told apart by their files: the line then gives the command, not the file again.
    assert main(["report", str(runs.ref), str(runs.only)]) == 0
    text = capsys.readouterr().out
    assert f"  A  vitou-ref 1.0.0 (ref.jsonl): {REFERENCE_LABEL}\n" in text


def test_reports_of_another_suite_are_refused_unless_forced_and_then_kept_apart(
    runs: Runs, capsys: pytest.CaptureFixture[str]
) -> None:
    ref_hash, other_hash = (lines(p)[0]["suite"]["hash"] for p in (runs.ref, runs.other))
    assert main(["report", str(runs.ref), str(runs.other)]) == 2
    err = capsys.readouterr().err
    assert f"{runs.other}:1: REPORT_OTHER_SUITE" in err and ref_hash in err and other_hash in err
    assert "--force" in err and "Traceback" not in err
    out = report_json(capsys, "--force", str(runs.ref), str(runs.other))
    assert [g["ruleset"].startswith("vitou/1.1.0 (spec ") for g in out["groups"] if not g["envelope"]] == [True, True]
    assert all(len(g["implementations"]) == 1 for g in out["groups"])


# ------------------------------------------------------------------- diff


def diff_json(capsys: pytest.CaptureFixture[str], old: Path, new: Path, status: int, *more: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["report", "--diff", "--format", "json", *more, str(old), str(new)]) == status
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def changes(out: dict[str, Any], kind: str) -> set[tuple[str, str]]:
    return {(c["ruleset"], c["id"]) for c in out["changes"] if c["kind"] == kind}


def test_diff_names_exactly_the_cases_that_changed_and_exits_1_only_on_a_regression(
    runs: Runs, capsys: pytest.CaptureFixture[str]
) -> None:
    worse = {key(c) for c in cases(runs.mutant) if not passed(c)}
    out = diff_json(capsys, runs.ref, runs.mutant, 1)
    assert changes(out, "newly failing") == worse and out["regressed"] is True
    assert {(c["ruleset"], c["id"]) for c in out["changes"]} == worse  # nothing else changed
    out = diff_json(capsys, runs.mutant, runs.ref, 0)
    assert changes(out, "newly passing") == worse and len(out["changes"]) == len(worse)
    # passed -> xpass: another outcome, the same behaviour: no regression
    out = diff_json(capsys, runs.ref, runs.expect, 0)
    assert (
        changes(out, "changed outcome")
        == {("vitou/1.1.0", k) for k in KNOWN}
        == {(c["ruleset"], c["id"]) for c in out["changes"]}
    )
    # a subset of OLD's cases, run whole: what it left out is missing in NEW (below)
    assert main(["report", "--diff", str(runs.ref), str(runs.mutant)]) == 1
    text = capsys.readouterr().out
    assert text.splitlines()[-1].startswith(
        f"REGRESSED: {len(cases(runs.ref))} cases in both, {len(worse)} newly failing"
    )


def test_diff_refuses_another_suite_unless_forced(runs: Runs, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--diff", str(runs.only), str(runs.other)]) == 2
    err = capsys.readouterr().err
    assert "REPORT_OTHER_SUITE" in err and lines(runs.other)[0]["suite"]["hash"] in err
    assert lines(runs.only)[0]["suite"]["hash"] in err
    out = diff_json(capsys, runs.only, runs.other, 0, "--force")
    assert out["changes"] == []


def test_a_cut_short_new_report_regresses_on_what_it_did_not_run(
    runs: Runs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = tmp_path / "cut.jsonl"
    text = runs.ref.read_text(encoding="utf-8").splitlines(keepends=True)
    cut.write_text("".join(text[:11]), encoding="utf-8")  # the header and 10 cases; no footer
    capsys.readouterr()
    assert main(["report", "--diff", "--format", "json", str(runs.ref), str(cut)]) == 2
    captured = capsys.readouterr()
    assert len(changes(json.loads(captured.out), "missing in NEW")) == len(cases(runs.ref)) - 10
    assert f"{cut}:11: REPORT_TRUNCATED: no footer: the run was interrupted after 10 results" in captured.err


# ----------------------------------------------------------------- badges


def test_badges_are_shields_endpoints_one_per_implementation_and_ruleset(
    runs: Runs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "badges"
    assert main(["report", "--badge", str(out), str(runs.ref), str(runs.mutant), str(runs.expect)]) == 0
    written = capsys.readouterr().out.split()
    assert sorted(written) == sorted(str(p) for p in out.iterdir()) and len(written) == 6  # 3 rulesets, 3 envelopes
    check = validator("shields-endpoint")
    docs = {Path(p).name: json.loads(Path(p).read_text(encoding="utf-8")) for p in written}
    for doc in docs.values():
        assert list(check.iter_errors(doc)) == []
    n = len([c for c in cases(runs.ref) if c.get("section") != "envelope"])
    bad = len([c for c in cases(runs.mutant) if not passed(c)])
    assert docs["vitou-ref-1.0.0-vitou-1.1.0.json"] == {
        "schemaVersion": 1,
        "label": "conformance",
        "message": f"{n}/{n} vitou 1.1.0",
        "color": "brightgreen",
    }
    assert docs["vitou-ref-1.0.0-vitou-1.1.0-mutant.json"]["message"] == f"{n - bad}/{n} vitou 1.1.0"
    assert docs["vitou-ref-1.0.0-vitou-1.1.0-mutant.json"]["color"] == "red"


def test_the_badge_schema_holds_shields_rules() -> None:
    check = validator("shields-endpoint")
    type(check).check_schema(check.schema)
    good = {"schemaVersion": 1, "label": "", "message": "ok"}
    assert check.is_valid(good) and check.is_valid({**good, "color": "red", "cacheSeconds": 300, "style": "flat"})
    for bad in (
        {"schemaVersion": 2, "label": "a", "message": "b"},
        {"label": "a", "message": "b"},
        {"schemaVersion": 1, "label": "a", "message": ""},
        {"schemaVersion": 1, "label": "a", "message": "b", "colour": "red"},
        {"schemaVersion": 1, "label": "a", "message": "b", "namedLogo": "x", "logoSvg": "<svg/>"},
        {"schemaVersion": 1, "label": "a", "message": "b", "isError": "yes"},
    ):
        assert not check.is_valid(bad), bad


# --------------------------------------------------------------- bad input


def _bad(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def test_unusable_reports_are_errors_at_their_file_and_line(
    runs: Runs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref = runs.ref.read_bytes()
    first, *rest = ref.splitlines(keepends=True)
    older = json.loads(first)
    del older["suite"]["hash"]
    cases_ = [
        (_bad(tmp_path, "text.jsonl", b"hello\n"), ":1: REPORT_NOT_VITOU"),
        (_bad(tmp_path, "empty.jsonl", b""), ":1: REPORT_EMPTY"),
        (_bad(tmp_path, "blank.jsonl", b"\n\n"), ":1: REPORT_EMPTY"),
        (_bad(tmp_path, "other.jsonl", b'{"a": 1}\n'), ":1: REPORT_NOT_VITOU"),
        (_bad(tmp_path, "garbage.jsonl", first + rest[0] + b"{not json\n" + b"".join(rest[1:])), ":3: REPORT_NOT_JSON"),
        (_bad(tmp_path, "binary.jsonl", first + b"\xff\xfe\n"), ":2: REPORT_NOT_JSON"),
        (_bad(tmp_path, "after.jsonl", ref + rest[0]), f":{len(rest) + 2}: REPORT_MALFORMED: a line after the footer"),
        (_bad(tmp_path, "twice.jsonl", first + rest[0] + rest[0]), ":3: REPORT_DUPLICATE_CASE"),
        (
            _bad(tmp_path, "outcome.jsonl", first + rest[0].replace(b'"passed"', b'"great"') + b"".join(rest[1:])),
            ":2: REPORT_MALFORMED at /outcome",
        ),
        (
            _bad(tmp_path, "header.jsonl", first.replace(b'"rulesets":[', b'"rulesets":[1,') + rest[-1]),
            ":1: REPORT_MALFORMED",
        ),
        (
            _bad(tmp_path, "no-run.jsonl", b'{"type":"footer","fatal":"no handshake","verdicts":[]}\n'),
            ":1: REPORT_NO_RUN",
        ),
        (str(tmp_path / "missing.jsonl"), "missing.jsonl: REPORT_UNREADABLE"),
        (str(tmp_path), f"{tmp_path}: REPORT_UNREADABLE"),
        (_bad(tmp_path, "older.jsonl", json.dumps(older).encode() + b"\n" + b"".join(rest)), ":1: REPORT_OTHER_SUITE"),
    ]
    for path, where in cases_:
        for args in (["report", str(runs.ref), path], ["report", "--diff", str(runs.ref), path]):
            capsys.readouterr()
            assert main(args) == 2, (args, where)
            err = capsys.readouterr().err
            assert where in err, (where, err)
            assert "Traceback" not in err and "internal error" not in err


def test_a_report_cut_short_is_used_said_so_and_exits_2(
    runs: Runs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = runs.mutant.read_text(encoding="utf-8").splitlines(keepends=True)
    no_footer = _bad(tmp_path, "no-footer.jsonl", "".join(whole[:-1]).encode())
    mid_line = _bad(tmp_path, "mid-line.jsonl", "".join(whole[:-1]).encode() + whole[-1][:40].encode())
    for path, why in ((no_footer, "no footer"), (mid_line, "no footer and its last line is cut short")):
        capsys.readouterr()
        assert main(["report", "--format", "json", str(runs.ref), path]) == 2
        captured = capsys.readouterr()
        out = json.loads(captured.out)
        n = len(whole) - 2
        assert f"{path}:{n + 1}: REPORT_TRUNCATED: {why}: the run was interrupted after {n} results" in captured.err
        assert out["reports"][1]["results"] == n and out["reports"][1]["incomplete"]
        assert out["summary"][1]["verdict"] == "not conformant"  # it had failed cases before it stopped
    interrupted = _bad(
        tmp_path,
        "stopped.jsonl",
        "".join(whole[:5]).encode() + b'{"type":"footer","fatal":"interrupted","verdicts":[]}\n',
    )
    assert main(["report", str(interrupted)]) == 2
    captured = capsys.readouterr()
    assert "REPORT_TRUNCATED: the run stopped (interrupted) after 4 results" in captured.err
    assert "incomplete" in captured.out


def test_usage_errors(runs: Runs, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    ref = str(runs.ref)
    assert main(["report", "--diff", ref]) == 2
    assert main(["report", "--diff", ref, ref]) == 2
    assert main(["report", "--diff", "--badge", str(tmp_path), ref, ref]) == 2
    assert main(["report", "--rulebook", ref, ref]) == 2
    assert main(["report", "--format", "html", "--rulebook", str(tmp_path / "none.html"), ref]) == 2
    assert main(["report", "-o", str(tmp_path), ref]) == 2  # text goes to a file, not a directory
    assert main(["report", "--badge", str(tmp_path / "no" / "such"), ref]) == 2
    assert "Traceback" not in capsys.readouterr().err


# --------------------------------------------------------------------- CI


def test_the_ci_script_passes_the_reference_and_fails_on_a_mutant(runs: Runs, tmp_path: Path) -> None:
    script = ROOT / "docs" / "examples" / "ci.sh"
    env = {
        **os.environ,
        "VITOU": shlex.join([sys.executable, "-m", "vitou_ref"]),
        "VITOU_OUT": str(tmp_path / "out"),
        "VITOU_ARGS": f"--only {SUBSET}",
    }

    def ci(impl: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["sh", str(script)],
            check=False,
            env={**env, "VITOU_IMPL": impl},
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=600,
        )

    first = ci(adapter())
    assert first.returncode == 0, first.stdout + first.stderr
    assert "nothing to compare with yet" in first.stdout
    out = tmp_path / "out"
    assert {"report.jsonl", "junit.xml", "report.html", "badges", "last.jsonl", "certify.txt"} <= set(os.listdir(out))
    last = (out / "last.jsonl").read_bytes()
    worse = ci(adapter("--mutant", MUTANT))
    assert worse.returncode == 1, worse.stdout + worse.stderr
    assert "REGRESSED" in worse.stdout and "regression" in worse.stderr
    assert (out / "last.jsonl").read_bytes() == last  # a regression does not become the last report
    again = ci(adapter())
    assert again.returncode == 0, again.stdout + again.stderr
    assert "no regression" in again.stdout


# ------------------------------------------------------------------ the page


HOSTILE = '<script>document.title="owned"</script><img src=x onerror="document.title=1">' + "x" * 300


def _hostile(runs: Runs, tmp_path: Path) -> Path:
    """The mutant's report with an implementation name, a reason and an answer that try to break the page."""
    header, *rest = lines(runs.mutant)
    header["implementation"]["name"] = HOSTILE
    header["implementation"]["version"] = "<b>9</b>"
    for line in rest:
        if line["type"] == "case" and line["outcome"] == "failed":
            line["reason"] = HOSTILE
            line["difference"]["actual"] = {"say": HOSTILE}
            break
    path = tmp_path / "hostile.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in [header, *rest]), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def page_dir(runs: Runs, tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("page")
    assert main(["rulebook", "--format", "html", "-o", str(d / "rulebook.html")]) == 0
    files = [str(runs.ref), str(runs.mutant), str(runs.expect), str(_hostile(runs, d))]
    assert main(["report", "--format", "html", "-o", str(d), *files]) == 0
    return d


def test_the_page_is_self_contained(page_dir: Path) -> None:
    text = (page_dir / "index.html").read_text(encoding="utf-8")
    assert "<script" not in text.replace("&lt;script", "")  # the hostile name is escaped, never a tag
    # no tag fetches anything (the hostile name's src= is text, between tags, never in one)
    assert not re.search(
        r"<(link|img|iframe|object|embed)\b|<[^>]*\b(src|href)=[\"']?(https?:|//)|url\(|@import", text, flags=re.I
    )
    assert "http://" not in text and "https://" not in text


def test_the_rendered_page_shows_every_implementation_case_and_link(runs: Runs, page_dir: Path) -> None:
    from browser import page

    with page(page_dir / "index.html", 1280) as p:
        assert p.evaluate("document.title") == "Vitou conformance results"  # the hostile scripts never ran
        assert p.evaluate("document.querySelectorAll('script, img').length") == 0
        rows = p.evaluate(
            "[...document.querySelectorAll('#summary tbody tr')].map(r => [...r.cells].map(c => c.innerText))"
        )
        details = p.evaluate(
            "Object.fromEntries([...document.querySelectorAll('details[id]')].map(d => "
            "[d.id, d.querySelector('summary').innerText]))"
        )
        links = p.evaluate("[...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'))")
        ids = set(p.evaluate("[...document.querySelectorAll('[id]')].map(e => e.id)"))
        differing = p.evaluate("[...document.querySelectorAll('#g0 table')].at(-1).querySelectorAll('tbody th').length")
    n = len([c for c in cases(runs.ref) if c.get("section") != "envelope"])
    bad = [c for c in cases(runs.mutant) if c["outcome"] not in ("passed", "skipped")]
    names = [r[0] for r in rows]
    assert names[0].startswith("A") and "vitou-ref" in names[0] and HOSTILE[:40] in names[3]
    assert [r[1] for r in rows] == ["1.0.0", "1.0.0", "1.0.0", "<b>9</b>"]  # versions, shown as text
    assert [r[4].split()[0] for r in rows] == [
        f"{n}/{n}",
        f"{n - len(bad)}/{n}",
        f"{n - len(KNOWN)}/{n}",
        f"{n - len(bad)}/{n}",
    ]
    assert [r[6] for r in rows][:2] == ["conformant", f"not conformant ({len(bad)} failed)"]
    by_file = [{key(c): c for c in cases(f)} for f in (runs.ref, runs.mutant, runs.expect)]
    differ = {k[1] for k in by_file[0] if k[0] != "envelope" and len({behaviour(f[k]) for f in by_file if k in f}) > 1}
    assert differing == len(differ)
    # every failing case of every report is in the page, to expand; those in the matrix are linked from it
    failing = {
        c["id"]
        for f in (runs.ref, runs.mutant, runs.expect)
        for c in cases(f)
        if c["outcome"] not in ("passed", "skipped")
    }
    assert failing and failing <= {s.split()[0] for s in details.values()}
    linked = {h[1:] for h in links if h.startswith("#")}
    assert linked and linked <= ids
    assert {d for d, s in details.items() if s.split()[0] in differ} <= linked
    # clause ids link to the rulebook beside the page, and every anchor they name exists there
    book = [h for h in links if h.startswith("rulebook.html#")]
    assert len(book) >= 45
    with page(page_dir / "rulebook.html", 1280) as p:
        anchors = set(p.evaluate("[...document.querySelectorAll('[id]')].map(e => e.id)"))
    assert {h.split("#", 1)[1] for h in book} <= anchors


@pytest.mark.parametrize("width", [390, 1280])
def test_the_page_fits_its_width_and_tables_scroll_in_their_box(
    page_dir: Path, width: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from browser import page

    shots = tmp_path_factory.mktemp("report-screenshots")
    with page(page_dir / "index.html", width) as p:
        assert p.scroll_width() <= width
        p.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        assert p.scroll_width() <= width  # a failing case opened, long JSON and all, still fits
        wide = p.evaluate(
            "[...document.querySelectorAll('table')].filter(t => t.scrollWidth > t.parentElement.clientWidth)"
            ".every(t => getComputedStyle(t.parentElement).overflowX === 'auto')"
        )
        assert wide
        p.screenshot(shots / f"report-{width}.png")
    print(f"screenshots in {shots}")


def test_clause_ids_link_to_the_rulebook_named_else_to_the_one_beside_else_nowhere(
    runs: Runs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    book = tmp_path / "book" / "rules.html"
    book.parent.mkdir()
    assert main(["rulebook", "--format", "html", "-o", str(book)]) == 0
    anchors = set(re.findall(r'id="([^"]+)"', book.read_text(encoding="utf-8")))
    site = tmp_path / "site"  # not there yet: made, and the page is its index.html
    assert main(["report", "--format", "html", "-o", str(site), "--rulebook", str(book), str(runs.ref)]) == 0
    links = re.findall(r'href="\.\./book/rules\.html#([^"]+)"', (site / "index.html").read_text(encoding="utf-8"))
    assert len(links) >= 45 and set(links) <= anchors
    alone = tmp_path / "alone.html"
    assert main(["report", "--format", "html", "-o", str(alone), str(runs.ref)]) == 0
    assert "rules.html" not in alone.read_text(encoding="utf-8") and "--rulebook FILE" in alone.read_text(
        encoding="utf-8"
    )


# ---- round two: reports keyed by position; checked before they are believed; missing cases regress

HOSTILE_IMPL = ROOT / "tests" / "fakes" / "hostile_impl.py"
REFERENCE_LABEL = "the bundled reference (python -m vitou_ref.adapter)"  # certify's command for its reference


@pytest.fixture(scope="module")
def forged(runs: Runs) -> tuple[Path, Path]:
    """Certify runs of two implementations that name themselves so as to pass for the reference's run."""
    out = []
    for mode in ("forge_label", "mimic_reference"):
        path = runs.dir / f"{mode}.jsonl"
        impl = shlex.join([sys.executable, str(HOSTILE_IMPL), mode])
        assert main(["certify", "--impl", impl, "--report", str(path)]) == 1
        out.append(path)
    return out[0], out[1]


def footer_rules(path: Path) -> dict[str, Any]:
    return next(v for v in lines(path)[-1]["verdicts"] if v["kind"] == "rules")


def test_a_version_forging_another_reports_label_never_takes_its_column(
    runs: Runs, forged: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    forger = forged[0]
    assert lines(forger)[0]["implementation"]["version"] == f"1.0.0 ({REFERENCE_LABEL})"
    files = [runs.ref, runs.mutant, forger]
    out = report_json(capsys, *map(str, files))
    labels = [r["label"] for r in out["reports"]]
    # The forger's words equal the reference run's label: both labels then say which report they are.
    assert len(set(labels)) == 3 and labels[0] == f"vitou-ref 1.0.0 ({REFERENCE_LABEL}) [report A]"
    assert labels[2] == f"vitou-ref 1.0.0 ({REFERENCE_LABEL}) [report C]"
    keys = [r["key"] for r in out["reports"]]
    assert keys == ["A", "B", "C"]
    (rules, _envelope) = out["groups"]
    assert rules["implementations"] == keys
    # By section and clause, each report's own footer's numbers (the forger's 0/139-like §01 never shows as A's).
    for k, path in zip(keys, files):
        footer = footer_rules(path)
        got = {c["clause"]: c["by"][k] for c in rules["clauses"] if k in c["by"]}
        assert got == footer["by_clause"], k
    by_file = [{key(c): c for c in cases(p)} for p in files]
    for d in rules["differing"]:
        assert d["outcomes"] == {k: by_file[i][("vitou/1.1.0", d["id"])]["outcome"] for i, k in enumerate(keys)}
    # The page: each column of the section table holds its own report's numbers.
    page = tmp_path / "page.html"
    assert main(["report", "--format", "html", "-o", str(page), *map(str, files)]) == 0
    html_text = page.read_text(encoding="utf-8")
    section = html_text.split('<section id="g0">', 1)[1].split("</section>", 1)[0]
    rows = re.findall(r'<tr class="section"><th scope="row">§(\d+) .*?</th>(.*?)</tr>', section)
    assert rows
    for number, cells in rows:
        shown = re.findall(r">(\d+)/(\d+)<span", cells)
        want = [footer_rules(p)["by_section"].get(number) for p in files]
        assert [(int(a), int(b)) for a, b in shown] == [(w["passed"], w["cases"]) for w in want if w], number
    # The text's differing cases: the forger's cell under C, the reference's under A.
    assert main(["report", *map(str, files)]) == 0
    text = capsys.readouterr().out
    errored = sorted(c["id"] for c in cases(forger) if c["outcome"] == "errored" and c.get("section") != "envelope")
    assert errored and re.search(rf"^  {errored[0]}\s+passed\s+\S+\s+ERRORED\s", text, flags=re.M)
    # Markdown and badges: the same keys, one badge each, the reference's with the reference's numbers.
    assert main(["report", "--format", "markdown", *map(str, files)]) == 0
    # Brackets escaped, so that the label renders as written and never as a link.
    assert f"| A: vitou-ref 1.0.0 ({REFERENCE_LABEL}) \\[report A\\] |" in capsys.readouterr().out
    badges = tmp_path / "badges"
    assert main(["report", "--badge", str(badges), *map(str, files)]) == 0
    docs = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in badges.iterdir()}
    n = footer_rules(runs.ref)["total"]
    assert docs["vitou-ref-1.0.0-vitou-1.1.0.json"]["message"] == f"{n}/{n} vitou 1.1.0"
    forged_passed = footer_rules(forger)["counts"]["passed"]
    assert sorted(d["message"] for d in docs.values() if d["message"].endswith("1.1.0"))[0].startswith(
        f"{forged_passed}/{n}"
    )


def test_a_name_mimicking_the_reference_is_told_apart_by_its_command(
    runs: Runs, forged: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    mimic = forged[1]
    assert lines(mimic)[0]["implementation"] == lines(runs.ref)[0]["implementation"]
    out = report_json(capsys, str(runs.ref), str(mimic))
    (a, b) = out["summary"]
    assert (a["report"], a["passed"], a["verdict"]) == ("A", footer_rules(runs.ref)["counts"]["passed"], "conformant")
    assert (b["report"], b["passed"]) == ("B", footer_rules(mimic)["counts"]["passed"])
    assert b["verdict"] == "not conformant" and a["implementation"] != b["implementation"]
    assert "hostile_impl.py mimic_reference" in b["implementation"]


def test_diff_counts_a_case_that_passed_in_old_and_has_no_line_in_new_as_a_regression(
    runs: Runs, capsys: pytest.CaptureFixture[str]
) -> None:
    out = diff_json(capsys, runs.ref, runs.only, 1)  # a complete run of a subset: the rest may fail now
    missing = {key(c) for c in cases(runs.ref)} - {key(c) for c in cases(runs.only)}
    assert missing and changes(out, "missing in NEW") == missing and out["regressed"] is True
    # A case that did not pass in OLD and has no line in NEW loses nothing that passed: listed, no regression.
    assert main(["report", "--diff", str(runs.ref), str(runs.only)]) == 1
    assert f"{len(missing)} passing in OLD and missing in NEW" in capsys.readouterr().out


def test_the_header_plans_exactly_the_cases_the_run_sends(runs: Runs) -> None:
    for path in (runs.ref, runs.only, runs.mutant):
        header, run = lines(path)[0], cases(path)
        rules = [c["id"] for c in run if c.get("section") != "envelope"]
        envelope = [c["id"] for c in run if c.get("section") == "envelope"]
        # The envelope's ids per ruleset, as the rules' are.
        planned_envelope = {"vitou/1.1.0": envelope} if envelope else {}
        assert header["planned"] == {"rules": {"vitou/1.1.0": rules}, "envelope": planned_envelope}
    assert len(lines(runs.only)[0]["planned"]["rules"]["vitou/1.1.0"]) < len(cases(runs.ref))
