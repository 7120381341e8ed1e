"""Every command's stdout and stderr pass through the one escaper, whatever the command escaped itself."""

from __future__ import annotations

import io
import sys

import pytest

from vitou_ref.cli.main import main
from vitou_ref.cli.progress import ProgressLine
from vitou_ref.present.terminal import Escaping, escaped_streams

HOSTILE = "\x1b[2J\x1b]0;owned\x07\u202eevil\u2028\ud800"


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _raw_controls(s: str) -> list[str]:
    return [c for c in s if (ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F or c in "\u202e\u2028"]


def test_the_stream_escapes_what_a_terminal_obeys_and_keeps_lines_and_tabs() -> None:
    inner = io.StringIO()
    stream = Escaping(inner)
    assert stream.write("a\tb\n" + HOSTILE) == 4 + len(HOSTILE)
    assert inner.getvalue() == "a\tb\n\\x1b[2J\\x1b]0;owned\\x07\\u202eevil\\u2028\\ud800"


def test_the_streams_are_put_back_as_they_were() -> None:
    out, err = sys.stdout, sys.stderr
    with escaped_streams():
        assert isinstance(sys.stdout, Escaping) and isinstance(sys.stderr, Escaping)
        with escaped_streams():  # nested: not wrapped twice
            assert sys.stdout.unescaped is out  # type: ignore[attr-defined]
    assert (sys.stdout, sys.stderr) == (out, err)


@pytest.mark.parametrize(
    "argv",
    [
        # Each of these printed the value it was given raw: the message wrote it without escaping.
        ["mutants", "--only", HOSTILE],
        ["fixtures", "check", "--suite", HOSTILE],
        ["adapter", "--rules", HOSTILE],
    ],
)
def test_a_message_that_quotes_a_value_cannot_drive_the_terminal(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert _raw_controls(out + err) == []
    assert "\\x1b[2J" in out + err  # said, as an escape


def test_the_progress_line_still_rewrites_itself_on_a_terminal() -> None:
    tty = _Tty()
    with escaped_streams():
        line = ProgressLine("fuzz \x1b[31mx", 2, unit="matches", stream=Escaping(tty))  # type: ignore[arg-type]
        line.update(1)
        line.close()
    shown = tty.getvalue()
    assert shown.startswith("\rfuzz \\x1b[31mx: 1/2 matches")  # its own \r reaches the terminal, its label escaped
    assert shown.endswith("\r")
