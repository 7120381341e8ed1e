"""The docs that the tests run: every shell and Python example of README.md and the docs' pages, every stated hash and count.

How an example runs, and how a page marks what varies or is not run, is
README's "Examples the tests run" (Development).
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from docexamples import RUN, Example, blocks, example, matches, walkthrough
from helpers import ROOT

from vitou_ref import load_ruleset
from vitou_ref.hunt.mutants import MUTANTS
from vitou_ref.kit.provenance import suite_hash
from vitou_ref.kit.suite import load_suite

# The site's pages, those written by hand: the generated reference pages hold no example and state no figure.
GENERATED = {"cli.md", "schemas.md"}
PAGES = [
    ROOT / "README.md",
    *sorted(
        p
        for p in (ROOT / "docs").rglob("*.md")
        if "_build" not in p.parts
        and "rulesets" not in p.parts
        and not (p.parent.name == "reference" and p.name in GENERATED)
    ),
]
# A walkthrough (a page that writes files, as docs/tutorials/first-engine.md does) is run step by step, in order, by
# tests/test_tutorial.py: its blocks need the files its earlier steps write, so none of them is run here alone.
EXAMPLES: list[Example] = [example(b) for page in PAGES if not walkthrough(page) for b in blocks(page) if b.lang in RUN]
# What every example finds in its directory: the repository's files, as in a checkout (read, never written).
LINKED = ("spec", "schema", "conformance", "docs", "tools")
TIMEOUT = 300
MOST_SKIPPED = 10  # whole blocks not run: each is a cost or a template, and says so at the block


def _script(path: Path, text: str) -> None:
    path.write_text("#!/bin/sh\n" + text + "\n", encoding="utf-8")
    path.chmod(0o755)


def _sh(cwd: Path, env: dict[str, str], command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-e", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )


def _truc_example() -> str:
    """write-a-ruleset.md's case LTX-0001 in a file of its own, as the page says to write it."""
    text = (ROOT / "docs" / "how-to" / "write-a-ruleset.md").read_text(encoding="utf-8")
    found = re.search(r"```yaml\n(  - id: LTX-0001\n.*?)```", text, re.S)
    assert found, "write-a-ruleset.md: the yaml block of case LTX-0001 is missing"
    return "format: 1\ntitle: Le Truc, the worked example\ncases:\n" + textwrap.dedent(found.group(1))


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The files the examples name, made once: the commands, adapters, a record, reports, a fuzz find."""
    base = tmp_path_factory.mktemp("docs-base")
    (base / "bin").mkdir()
    # `vitou` and `python` are this checkout's, run by the interpreter of the tests.
    _script(base / "bin" / "python", f'exec {shlex.quote(sys.executable)} "$@"')
    _script(base / "bin" / "vitou", f'exec {shlex.quote(sys.executable)} -m vitou_ref "$@"')
    files = base / "files"
    files.mkdir()
    for name in LINKED:
        (files / name).symlink_to(ROOT / name)
    for adapter in ("my-adapter", "my-truc-adapter"):  # the reference stands for the reader's engine
        _script(files / adapter, 'exec python -m vitou_ref.adapter "$@"')
    shutil.copy(ROOT / "conformance" / "disputes" / "03-raise-from-last.yaml", files / "game.yaml")
    (files / "le-truc-example.yaml").write_text(_truc_example(), encoding="utf-8")
    env = dict(os.environ, PATH=f"{base / 'bin'}{os.pathsep}{os.environ['PATH']}", PYTHONPATH=str(ROOT))
    made = _sh(
        files,
        env,
        "vitou certify --report a.jsonl >/dev/null && vitou certify --ruleset vitou/1.0.0 --report b.jsonl >/dev/null"
        " && vitou certify --ruleset le-truc --report c.jsonl >/dev/null && cp a.jsonl last.jsonl"
        " && cp a.jsonl new.jsonl"
        ' && { vitou fuzz --impl "python -m vitou_ref.adapter --mutant rank-9-above-10" --seed 11 >/dev/null'
        " || [ $? -eq 1 ]; } && test -f fuzz-failures/FZ-0001.yaml",
    )
    assert made.returncode == 0, made.stdout[-2000:] + made.stderr[-2000:]
    return files, env


def _fresh(workspace: tuple[Path, dict[str, str]], tmp_path: Path, script: str) -> tuple[Path, dict[str, str]]:
    files, env = workspace
    work = tmp_path / "work"
    # The fuzz find is there for the examples that certify one; one that runs the fuzzer starts without it.
    find = "--suite fuzz-failures/" in script
    shutil.copytree(files, work, symlinks=True, ignore=None if find else shutil.ignore_patterns("fuzz-failures"))
    home = tmp_path / "home"  # the README's completion lines write under ~
    for sub in (".zfunc", ".config/fish/completions"):
        (home / sub).mkdir(parents=True)
    return work, dict(env, HOME=str(home))


@pytest.mark.parametrize("ex", EXAMPLES, ids=[e.block.where for e in EXAMPLES])
def test_the_example_runs_and_prints_what_the_page_shows(
    ex: Example, workspace: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    if ex.skipped:
        pytest.skip(f"{ex.block.where}: not run: {ex.skipped}")
    work, env = _fresh(workspace, tmp_path, ex.script)
    script = tmp_path / ("example.py" if ex.block.lang == "python" else "example.sh")
    script.write_text(ex.script, encoding="utf-8")
    command = [sys.executable, str(script)] if ex.block.lang == "python" else ["bash", "-e", str(script)]
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    said = f"{ex.block.where}:\n{ex.script}\nstdout:\n{done.stdout[-4000:]}\nstderr:\n{done.stderr[-4000:]}"
    assert done.returncode == ex.status, said
    if ex.expected is not None:
        diff = "\n".join(difflib.unified_diff(ex.expected.splitlines(), done.stdout.splitlines(), "page", "run"))
        assert matches(ex.expected, done.stdout), f"{ex.block.where}: the output is not what the page shows\n{diff}"


def test_few_examples_are_left_unrun_and_each_says_why() -> None:
    skipped = [e for e in EXAMPLES if e.skipped]
    assert len(skipped) <= MOST_SKIPPED, [e.block.where for e in skipped]
    assert all(len(e.skipped or "") >= 10 for e in skipped)  # a reason, not a word
    assert len(EXAMPLES) - len(skipped) >= 25  # the pages are read: a broken parser would find nothing


# --- the figures the pages state ---------------------------------------------------------------

STATED = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", ROOT / "conformance" / "README.md", *PAGES[1:]]
HASH = re.compile(r"sha256:([0-9a-f]{8,64})")
WORDS = {"Seventeen": 17, "Eighteen": 18, "Nineteen": 19, "Twenty": 20}


def _pages_text() -> dict[str, str]:
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in STATED}


@pytest.fixture(scope="module")
def hashes(workspace: tuple[Path, dict[str, str]]) -> set[str]:
    files, env = workspace
    listed = _sh(files, env, "vitou rulesets")
    assert listed.returncode == 0, listed.stderr
    found = set(HASH.findall(listed.stdout))
    found.add(str(suite_hash(load_suite())).removeprefix("sha256:"))
    header = json.loads((files / "a.jsonl").read_text(encoding="utf-8").split("\n", 1)[0])
    assert HASH.search(json.dumps(header)), "the report's header names no hash"
    return found | set(HASH.findall(json.dumps(header)))


def test_every_stated_hash_is_the_hash_of_today(hashes: set[str]) -> None:
    stale = [
        f"{page}:{text.count(chr(10), 0, m.start()) + 1}: sha256:{m.group(1)}"
        for page, text in _pages_text().items()
        for m in HASH.finditer(text)
        if not any(h.startswith(m.group(1)) for h in hashes)
    ]
    assert not stale, f"hashes no shipped ruleset or suite has (vitou rulesets; a report's header): {stale}"


def _counts() -> dict[str, int]:
    suite = load_suite()
    out: dict[str, int] = {}
    for name in ("vitou/1.1.0", "vitou/1.0.0", "le-truc/1.0.0", "truco-paulista/1.0.0"):
        rules = load_ruleset(name)
        cases = suite.applicable(name)
        mutants = [m for m in MUTANTS if m.applies_to(rules.version)]
        out[f"cases {name}"] = len(cases)
        out[f"clauses {name}"] = len({c for case in cases for c in case.clauses})
        out[f"envelope {name}"] = sum(1 for e in suite.envelope if e.applies_to(name))
        out[f"clarifications {name}"] = len(rules.clarifications)
        out[f"mutants {name}"] = len(mutants)
        out[f"counted {name}"] = sum(1 for m in mutants if not m.equivalent)
        out[f"equivalent {name}"] = sum(1 for m in mutants if m.equivalent)
    out["disputes"] = len([p for p in (ROOT / "conformance" / "disputes").glob("*.yaml") if p.name != "expected.yaml"])
    return out


def _n(text: str) -> int:
    return WORDS.get(text) or int(text.replace(",", ""))


V11, V10 = "vitou/1.1.0", "vitou/1.0.0"
# Each stated figure: where it is said (a pattern, \s+ where a line may break) and what it must be.
FIGURES: list[tuple[str, Callable[[dict[str, int], re.Match[str]], list[tuple[int, int]]]]] = [
    (
        r"CONFORMANT(?: at the outcome level| at the code level)? (vitou/1\.[01]\.0|le-truc/1\.0\.0|truco-paulista/1\.0\.0):\s+"
        r"\d+/(\d+)\s+cases(?:\s+\([^)]*\))?,\s+(?:\d+/(\d+)\s+clauses)?"
        # A run of some cases only (--only, a smoke test, one's own suite) counts what it ran, not the suite.
        r"(?![^\n]*(?:chosen\s+with\s+--only|a\s+smoke\s+test|not\s+the\s+conformance\s+suite))",
        lambda c, m: [(int(m[2]), c[f"cases {m[1]}"])] + ([(int(m[3]), c[f"clauses {m[1]}"])] if m[3] else []),
    ),
    (
        r"CONFORMANT\s+envelope\s+\(protocol\s+lines,\s+under\s+(vitou/1\.[01]\.0)\):\s+\d+/(\d+)\s+cases",
        lambda c, m: [(int(m[2]), c[f"envelope {m[1]}"])],
    ),
    (r"(\d+)\s+cases\s+of\s+(vitou/1\.[01]\.0)", lambda c, m: [(int(m[1]), c[f"cases {m[2]}"])]),
    (r"the\s+(\d+)\s+(vitou/1\.[01]\.0)\s+cases", lambda c, m: [(int(m[1]), c[f"cases {m[2]}"])]),
    (r"then\s+the\s+(\d+)\s+envelope\s+cases", lambda c, m: [(int(m[1]), c[f"envelope {V11}"])]),
    (r"(\d+)\s+of\s+them\s+in\s+1\.1\.0", lambda c, m: [(int(m[1]), c[f"clarifications {V11}"])]),
    (
        r"\(`(le-truc|truco-paulista)\.md`\)[^\n]*?(\d+)\s+clarifications\s+where\s+it\s+is\s+silent",
        lambda c, m: [(int(m[2]), c[f"clarifications {m[1]}/1.0.0"])],
    ),
    (r"certifies\s+(\d+)\s+deliberately\s+wrong", lambda c, m: [(int(m[1]), c[f"mutants {V11}"])]),
    (r"the\s+score\s+counts\s+the\s+other\s+(\d+)", lambda c, m: [(int(m[1]), c[f"counted {V11}"])]),
    (r"against\s+the\s+(\d+)\s+mistakes", lambda c, m: [(int(m[1]), c[f"counted {V10}"] + c[f"equivalent {V10}"])]),
    (r"each\s+of\s+the\s+(\d+)\s+mutants\s+of\s+vitou/1\.1\.0", lambda c, m: [(int(m[1]), c[f"mutants {V11}"])]),
    (r"vitou/1\.0\.0\s+and\s+its\s+(\d+)\s+mutants", lambda c, m: [(int(m[1]), c[f"mutants {V10}"])]),
    (
        r"(\d+)\s+of\s+(\d+)\s+mutants\s+killed\s+by\s+the\s+(\d+)\s+(vitou/1\.[01]\.0)\s+cases",
        lambda c, m: [(int(m[2]), c[f"counted {m[4]}"]), (int(m[3]), c[f"cases {m[4]}"])],
    ),
    (
        r"(\d+)\s+of\s+(\d+)\s+killed\s+by\s+the\s+(\d+)\s+(vitou/1\.[01]\.0)\s+cases",
        lambda c, m: [(int(m[2]), c[f"counted {m[4]}"]), (int(m[3]), c[f"cases {m[4]}"])],
    ),
    (
        r"(\d+)\s+of\s+(\d+)\s+\(100%\)\s+for\s+1\.1\.0,\s+(\d+)\s+of\s+(\d+)\s+\(100%\)\s+for\s+1\.0\.0",
        lambda c, m: [(int(m[2]), c[f"counted {V11}"]), (int(m[4]), c[f"counted {V10}"])],
    ),
    (
        r"(\d+)\s+mutants\s+of\s+vitou/1\.1\.0,\s+two\s+at\s+a\s+time\s+\|\s+\*\*100%\*\*\s+\((\d+)\s+of\s+(\d+)\s+"
        r"killed,\s+(\d+)\s+equivalent\)",
        lambda c, m: [
            (int(m[1]), c[f"mutants {V11}"]),
            (int(m[3]), c[f"counted {V11}"]),
            (int(m[4]), c[f"equivalent {V11}"]),
        ],
    ),
    (
        r"its\s+(\d+)\s+mutants\s+\|\s+\*\*100%\*\*\s+\((\d+)\s+of\s+(\d+)\s+killed,\s+(\d+)\s+equivalent\)",
        lambda c, m: [
            (int(m[1]), c[f"mutants {V10}"]),
            (int(m[3]), c[f"counted {V10}"]),
            (int(m[4]), c[f"equivalent {V10}"]),
        ],
    ),
    (r"of\s+the\s+(\d+)\s+found\s+by\s+fuzzing", lambda c, m: [(int(m[1]), c[f"counted {V11}"])]),
    (r"(\w+)\s+disputes\s+the\s+rules\s+text\s+raises", lambda c, m: [(_n(m[1]), c["disputes"])]),
]


def test_every_stated_count_is_the_count_of_today() -> None:
    counts = _counts()
    wrong: list[str] = []
    unused: list[str] = []
    for pattern, expect in FIGURES:
        seen = 0
        for page, text in _pages_text().items():
            for m in re.finditer(pattern, text):
                seen += 1
                line = text.count("\n", 0, m.start()) + 1
                wrong += [
                    f"{page}:{line}: {m[0]!r} says {said}, today {real}"
                    for said, real in expect(counts, m)
                    if said != real
                ]
        if not seen:
            unused.append(pattern)
    assert not wrong, wrong
    assert not unused, f"figures no page states any more (drop them from FIGURES): {unused}"


def _table_rows(text: str, heading: str) -> list[list[str]]:
    """The body rows of every table in the section under ``heading``: a table's head is the row above its |---."""
    lines = text.split(heading, 1)[1].split("\n## ", 1)[0].splitlines()
    rows = [
        line
        for line, below in zip(lines, [*lines[1:], ""])
        if line.startswith("| ") and not line.startswith("|---") and not below.startswith("|---")
    ]
    return [[cell.strip() for cell in re.split(r"(?<!\\)\|", row)[1:-1]] for row in rows]


def test_every_measured_figure_says_the_command_that_gives_it() -> None:
    for heading in ("## Speed\n", "How strong the players are"):
        pages = [(p, t) for p, t in _pages_text().items() if heading in t]
        assert pages, f"no page has {heading.strip()!r} any more"
        for page, text in pages:
            rows = _table_rows(text, heading)
            assert rows, f"{page}: {heading.strip()}"
            for row in rows:
                assert re.search(r"`[^`]*(vitou|python|pytest)[^`]*`", row[-1]), (
                    f"{page} {heading.strip()}: {row[0]!r} names no command"
                )
