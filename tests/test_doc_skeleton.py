"""The skeleton adapter of docs/how-to/implementers.md, copied out of the page as it is, is certified on rules and envelope."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from helpers import ROOT

DOC = ROOT / "docs" / "how-to" / "implementers.md"
# The page's `python skeleton.py`, with the interpreter running the tests (the one with vitou's dependencies).
IMPL = f"{shlex.quote(sys.executable)} skeleton.py"
FAKES = ROOT / "tests" / "fakes"  # my_engine.py: the engine the skeleton imports, played by the reference


def skeleton() -> str:
    text = DOC.read_text(encoding="utf-8")
    found = re.search(r"^## A skeleton[^\n]*\n+(?:<!--[^\n]*-->\n)?```python\n(.*?)^```$", text, re.S | re.M)
    assert found, f"{DOC.name}: no ```python block under '## A skeleton'"
    return found.group(1)


def pytest_example() -> str:
    text = DOC.read_text(encoding="utf-8")
    found = re.search(r"^```python\n(# test_conformance.py\n.*?)^```$", text, re.S | re.M)
    assert found, f"{DOC.name}: the pytest example (# test_conformance.py) is missing"
    return found.group(1)


def shown_verdicts() -> list[str]:
    """The two last lines the page says a run of the skeleton ends with."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(r"it is certified on both: the run ends with\n+```\n(.*?)^```$", text, re.S | re.M)
    assert found, f"{DOC.name}: the run the skeleton's section shows is missing"
    return found.group(1).splitlines()


def certify(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "skeleton.py").write_text(skeleton(), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(FAKES), str(ROOT)]))
    return subprocess.run(
        [sys.executable, "-m", "vitou_ref", "certify", "--impl", IMPL, *args],
        check=False,
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_skeleton_as_written_is_conformant_on_rules_and_envelope(tmp_path: Path) -> None:
    done = certify(tmp_path)
    last = done.stdout.splitlines()[-2:]  # the verdicts: the rules cases, then the envelope cases
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert last == [line.replace("(python skeleton.py)", f"({IMPL})") for line in shown_verdicts()]
    assert last[0].startswith("CONFORMANT vitou/1.1.0: ") and "certified:" in last[0]
    assert last[1].startswith("CONFORMANT envelope (protocol lines, under vitou/1.1.0): ") and "certified:" in last[1]


def test_the_skeleton_is_conformant_under_the_first_edition_too(tmp_path: Path) -> None:
    # It lists both editions in its handshake, as the page tells an adapter to.
    ruleset = "vitou/1.0.0"
    done = certify(tmp_path, "--ruleset", ruleset)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.splitlines()[-2].startswith(f"CONFORMANT {ruleset}: ")
    assert done.stdout.splitlines()[-1].startswith(f"CONFORMANT envelope (protocol lines, under {ruleset}): ")


def test_the_pytest_example_runs_the_suite_through_the_skeleton(tmp_path: Path) -> None:
    (tmp_path / "my_adapter.py").write_text(skeleton(), encoding="utf-8")
    (tmp_path / "test_conformance.py").write_text(pytest_example(), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(FAKES), str(ROOT)]))
    # The plugin is named with -p, as in a checkout that is not installed; an installed one loads it once all the same.
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "vitou_ref.pytest_plugin",
            "test_conformance.py",
        ],
        check=False,
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    passed = re.search(r"(\d+) passed", done.stdout)
    assert passed and int(passed.group(1)) >= 298, done.stdout[-1000:]  # a test per case at least: 1.1.0's 298
    assert "failed" not in done.stdout and "error" not in done.stdout.lower(), done.stdout[-2000:]
