"""Long commands show a progress line on a terminal's stderr, rewritten in place and erased; a pipe gets none."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from vitou_ref.cli.progress import ProgressLine

COMMANDS = {
    "certify": ["certify", "--only", "VT-00*"],
    "fuzz": ["fuzz", "--examples", "40", "--seed", "3"],
    "mutants": ["mutants", "--only", "rank-natural"],
}


def _run(args: list[str], *, terminal: bool, cwd: str) -> tuple[str, str]:
    """The command's stdout (a pipe) and stderr, on a pseudo-terminal or a pipe."""
    command = [sys.executable, "-m", "vitou_ref", *args]
    if not terminal:
        proc = subprocess.run(command, capture_output=True, text=True, check=False, timeout=300, cwd=cwd)
        return proc.stdout, proc.stderr
    controller, stderr = pty.openpty()
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, cwd=cwd) as proc:
        os.close(stderr)
        seen = b""
        while True:  # read as it comes, so that a full pseudo-terminal never holds the command up
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # EIO: the command has closed its end
                break
            if not chunk:
                break
            seen += chunk
        out = proc.stdout.read() if proc.stdout else b""
        proc.wait(timeout=300)
    os.close(controller)
    return out.decode(), seen.decode()


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_terminal_sees_the_progress_line_and_then_a_clean_line(name: str, tmp_path: Path) -> None:
    out, err = _run(COMMANDS[name], terminal=True, cwd=str(tmp_path))
    assert out, err
    first = err.split("\r")[1]
    assert first.startswith(name) and "/" in first, err
    assert ", 0 " in first  # failures so far
    # The last write erases the line: blanks over it, and the cursor back at its start.
    assert err.endswith("\r") and err.rstrip("\r").split("\r")[-1].strip() == "", repr(err[-200:])


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_pipe_gets_no_progress(name: str, tmp_path: Path) -> None:
    out, err = _run(COMMANDS[name], terminal=False, cwd=str(tmp_path))
    assert out
    assert err == ""


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_line_counts_failures_rewrites_itself_and_fits_the_terminal() -> None:
    stream = _Terminal()
    with ProgressLine("certify", 3, unit="cases", stream=stream) as line:
        line.advance()
        line.advance(failed=True)  # a new failure is shown at once, whatever the time since the last redraw
        shown = stream.getvalue().split("\r")[-1]
        assert shown == "certify: 2/3 cases (66%), 1 failed, 0:00 elapsed"
    assert stream.getvalue().endswith("\r" + " " * len(shown) + "\r")


def test_forced_progress_without_a_terminal_writes_whole_lines_and_keeps_the_last() -> None:
    stream = io.StringIO()
    with ProgressLine("fuzz vitou/1.1.0", 10, unit="matches", failed="diverged", force=True, stream=stream) as line:
        for _ in range(10):
            line.advance()
    lines = stream.getvalue().splitlines()
    assert "\r" not in stream.getvalue()
    assert lines[0] == "fuzz vitou/1.1.0: 1/10 matches (10%), 0 diverged, 0:00 elapsed"
    assert lines[-1] == "fuzz vitou/1.1.0: 10/10 matches (100%), 0 diverged, 0:00 elapsed"


def test_nothing_is_written_to_a_stream_that_is_not_a_terminal() -> None:
    stream = io.StringIO()
    with ProgressLine("mutants", 2, unit="mutants", stream=stream) as line:
        line.advance(failed=True)
    assert stream.getvalue() == ""


def test_the_line_shows_the_time_gone_and_the_time_left_at_the_pace_so_far() -> None:
    now = [100.0]
    stream = _Terminal()
    line = ProgressLine("certify", 300, unit="cases", stream=stream, clock=lambda: now[0])
    assert line.text() == "certify: 0/300 cases (0%), 0 failed, 0:00 elapsed"  # nothing done: no estimate yet
    now[0] += 12.0
    line.update(40)
    # 40 cases in 12 s: 0.3 s a case, and 260 left: 78 s, 1:18.
    assert line.text() == "certify: 40/300 cases (13%), 0 failed, 0:12 elapsed, 1:18 left"
    now[0] += 3600.0 - 12.0 + 5.0
    line.update(299)
    # 299 cases in 3605 s: the one left takes 3605/299 = 12.06 s, 0:12.
    assert line.text() == "certify: 299/300 cases (99%), 0 failed, 1:00:05 elapsed, 0:12 left"
    line.update(300)
    assert line.text() == "certify: 300/300 cases (100%), 0 failed, 1:00:05 elapsed"
    line.close()
