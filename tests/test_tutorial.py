"""The walkthroughs of the docs, first-engine.md first, run as a reader runs them: every step in order, in one folder."""

from __future__ import annotations

import ast
import difflib
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
from docexamples import RUN, Example, blocks, example, matches, walkthrough
from helpers import ROOT

TUTORIAL = ROOT / "docs" / "tutorials" / "first-engine.md"
# The pages written by hand, those tests/test_docs.py reads: the rulesets' pages, the CLI's and the schemas' are
# written by the site's build, and hold no step.
GENERATED = {"docs/reference/cli.md", "docs/reference/schemas.md"}
WRITTEN = [ROOT / "README.md"] + [
    p
    for p in sorted((ROOT / "docs").rglob("*.md"))
    if not {"_build", "rulesets"} & set(p.relative_to(ROOT).parts) and p.relative_to(ROOT).as_posix() not in GENERATED
]
WALKTHROUGHS = [p for p in WRITTEN if walkthrough(p)]
STEP_TIMEOUT = 120
# The tutorial promises ten minutes of a reader's time: its commands take seconds (certify runs an engine of the
# reader's through the suite), and a page whose steps took minutes would not keep that promise.
PAGE_SECONDS = 60
_HUNK = re.compile(r"^@@ -(?P<start>\d+)(?:,(?P<old>\d+))? \+\d+(?:,(?P<new>\d+))? @@")


def patched(text: str, diff: str, where: str) -> str:
    """``text`` with a unified diff applied, each hunk exactly where its header says, or AssertionError."""
    lines, body, out = text.splitlines(), diff.splitlines(), []
    done = i = 0  # the lines of ``text`` already copied; the line of the diff being read
    while i < len(body):
        head = _HUNK.match(body[i])
        i += 1
        if not head:  # the --- and +++ lines before a hunk
            continue
        old: list[str] = []
        new: list[str] = []
        while i < len(body) and not body[i].startswith("@@"):
            line = body[i] or " "  # a blank line of context whose space an editor dropped
            i += 1
            if line[0] in " -":
                old.append(line[1:])
            if line[0] in " +":
                new.append(line[1:])
        start = int(head["start"]) - 1
        assert len(old) == int(head["old"] or 1) and len(new) == int(head["new"] or 1), f"{where}: {head[0]} miscounts"
        assert start >= done and lines[start : start + len(old)] == old, f"{where}: {head[0]} is not what the file has"
        out += lines[done:start] + new
        done = start + len(old)
    assert done, f"{where}: the diff has no hunk"
    return "\n".join(out + lines[done:]) + "\n"


def _script(path: Path, text: str) -> None:
    path.write_text("#!/bin/sh\n" + text + "\n", encoding="utf-8")
    path.chmod(0o755)


def _reader(tmp_path: Path) -> dict[str, str]:
    """A reader's shell once the page's skipped install step is done: vitou, python and python3 are this checkout's."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("python", "python3"):
        _script(bin_dir / name, f'exec {shlex.quote(sys.executable)} "$@"')
    _script(bin_dir / "vitou", f'exec {shlex.quote(sys.executable)} -m vitou_ref "$@"')
    home = tmp_path / "home"
    home.mkdir()
    return dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", PYTHONPATH=str(ROOT), HOME=str(home))


def _write(ex: Example, folder: Path) -> str:
    how, name = ex.writes or ("", "")
    target = folder / name
    if how == "file":
        target.write_text(ex.block.code, encoding="utf-8")
        return f"{ex.block.where}: wrote {name}"
    assert target.exists(), f"{ex.block.where}: patch {name}: no earlier step wrote it"
    target.write_text(patched(target.read_text(encoding="utf-8"), ex.block.code, ex.block.where), encoding="utf-8")
    return f"{ex.block.where}: patched {name}"


def _run(ex: Example, folder: Path, env: dict[str, str]) -> str:
    command = [sys.executable, "-c", ex.script] if ex.block.lang == "python" else ["bash", "-e", "-c", ex.script]
    done = subprocess.run(
        command, cwd=folder, env=env, capture_output=True, text=True, timeout=STEP_TIMEOUT, check=False
    )
    said = f"{ex.block.where}:\n{ex.script}\nstdout:\n{done.stdout[-4000:]}\nstderr:\n{done.stderr[-4000:]}"
    assert done.returncode == ex.status, said
    if ex.expected is not None:
        diff = "\n".join(
            difflib.unified_diff(ex.expected.splitlines(), done.stdout.splitlines(), "page", "run", lineterm="")
        )
        assert matches(ex.expected, done.stdout), f"{ex.block.where}: the output is not what the page shows\n{diff}"
    return f"{ex.block.where}: ran"


def walk(page: Path, folder: Path, env: dict[str, str]) -> list[str]:
    """Every step of the page in order, in ``folder``: what each did (a block not run says why)."""
    log = []
    for block in blocks(page):
        ex = example(block)
        if ex.skipped:
            log.append(f"{block.where}: skipped ({ex.skipped})")
        elif ex.writes:
            log.append(_write(ex, folder))
        elif block.lang in RUN:
            log.append(_run(ex, folder, env))
    return log


@pytest.mark.parametrize("page", WALKTHROUGHS, ids=[p.name for p in WALKTHROUGHS])
def test_every_step_runs_in_order_and_prints_what_the_page_shows(page: Path, tmp_path: Path) -> None:
    """The page's blocks, in order, in one empty folder, as a reader types them.

    A block marked ``<!-- doc: file NAME -->`` is written to NAME in the folder, one marked
    ``<!-- doc: patch NAME -->`` is a unified diff applied to NAME (each hunk exactly where its header says), and
    every other ``sh`` or ``python`` block runs there, ending with the status its ``exit`` marker says (0 without
    one) and printing what the page shows under its ``$`` prompts. ``<!-- doc: skip (why) -->`` leaves a block
    unrun: the tutorial's first step makes a virtual environment and installs vitou from the network, which a test
    run offline cannot do and must not do; the shell here stands for the reader's once that step is done, with
    ``vitou``, ``python`` and ``python3`` those of this checkout. tests/test_docs.py runs the blocks of every other
    page one by one, and leaves a walkthrough (a page with a file or patch marker) to this test: its blocks need the
    files its earlier steps write.
    """
    folder = tmp_path / "reader"
    folder.mkdir()
    started = time.monotonic()
    log = walk(page, folder, _reader(tmp_path))
    took = time.monotonic() - started
    assert took < PAGE_SECONDS, f"{page.name}: its steps took {took:.0f} s\n" + "\n".join(log)
    assert any(line.endswith(": ran") for line in log), log


def test_the_first_engine_tutorial_is_a_walkthrough_from_an_empty_folder() -> None:
    """What the tutorial promises: an install step left unrun, an engine written whole, certified, fixed, certified."""
    assert TUTORIAL in WALKTHROUGHS
    examples = [example(b) for b in blocks(TUTORIAL)]
    skipped = [e for e in examples if e.skipped]
    assert len(skipped) == 1 and "pip install" in skipped[0].block.code, [e.block.where for e in skipped]
    assert examples.index(skipped[0]) == 0, "the install step is the first"
    steps = [(e.writes, e.script) for e in examples if not e.skipped]
    writes = [w for w, _ in steps if w]
    assert ("file", "engine.py") in writes and ("patch", "engine.py") in writes, writes
    certify = [i for i, (w, script) in enumerate(steps) if not w and "vitou certify --impl ./engine.py" in script]
    fix = next(i for i, (w, _) in enumerate(steps) if w == ("patch", "engine.py"))
    assert certify and certify[0] < fix < certify[-1], "certify, fix, certify again"
    first = next(e for e in examples if "vitou certify --impl ./engine.py" in e.script and not e.writes)
    assert first.status == 1 and "NOT CONFORMANT" in (first.expected or ""), first.block.where


def test_the_engine_is_an_outsiders_and_short() -> None:
    """The engine imports only the standard library (not vitou), and a reader reads it whole."""
    engine = next(example(b) for b in blocks(TUTORIAL) if example(b).writes == ("file", "engine.py"))
    tree = ast.parse(engine.block.code)
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert imported and imported <= set(sys.stdlib_module_names), imported
    assert engine.block.code.startswith("#!/usr/bin/env python3\n")
    assert engine.block.code.count("\n") <= 190


def test_a_patch_applies_only_where_it_says() -> None:
    text = "a\nb\nc\nd\n"
    assert patched(text, "--- f\n+++ f\n@@ -2,2 +2,3 @@\n b\n-c\n+C\n+c2\n", "t") == "a\nb\nC\nc2\nd\n"
    for wrong in ("@@ -1,2 +1,3 @@\n b\n-c\n+C\n+c2\n", "@@ -2,2 +2,2 @@\n b\n-x\n+C\n", "--- f\n+++ f\n"):
        with pytest.raises(AssertionError):
            patched(text, wrong, "t")
