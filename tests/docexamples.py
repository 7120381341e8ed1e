"""The shell and Python examples of the Markdown docs, read out of the pages with their markers and shown output."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

# A fence opens with ``` and a language, possibly indented (inside a list item), and closes at the same indent.
_FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w-]*)\s*$")
# <!-- doc: skip (why) -->, <!-- doc: skip lines with "TEXT" (why) -->, <!-- doc: exit N (why) -->, before the fence.
_MARKER = re.compile(r"^\s*<!--\s*doc:\s*(?P<body>.*?)\s*-->\s*$")
_SKIP = re.compile(r"^skip \((?P<why>[^)]+)\)$")
_SKIP_LINES = re.compile(r'^skip lines with "(?P<text>[^"]+)" \((?P<why>[^)]+)\)$')
_EXIT = re.compile(r"^exit (?P<status>\d+) \((?P<why>[^)]+)\)$")
# <!-- doc: file NAME -->: the block is the whole text of the file NAME; <!-- doc: patch NAME -->: a unified diff of it.
# A page that holds either is a walkthrough: its steps build on each other, and tests/test_tutorial.py runs them in order.
_WRITE = re.compile(r"^(?P<how>file|patch) (?P<name>\w[\w.-]*)$")
PROMPT = "$ "
# In shown output, … stands for any text within a line; a line of … alone, for any lines (none included).
ANY = "…"
RUN = ("sh", "python")


class DocError(Exception):
    """A page's example or marker that the runner cannot read: names the file and line."""


@dataclass
class Block:
    path: Path
    line: int  # of the opening fence, 1-based
    lang: str
    code: str
    markers: list[str] = field(default_factory=list)
    shown: str | None = None  # the output the page shows for the block, when it does

    @property
    def where(self) -> str:
        return f"{self.path.name}:{self.line}"


@dataclass
class Example:
    """One runnable example: a script, what it must print (or None), and why parts of it are not run."""

    block: Block
    script: str
    expected: str | None
    skipped: str | None = None  # the reason the whole block is not run
    left_out: list[str] = field(default_factory=list)  # lines not run, each with its reason
    status: int = 0  # the exit status the block ends with
    writes: tuple[str, str] | None = None  # ("file" or "patch", the file's name): the block is a file, not run


def blocks(path: Path) -> list[Block]:
    """Every fenced block of a page, in order; a plain block right after a shell block is that block's output."""
    lines = path.read_text(encoding="utf-8").split("\n")
    found: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, start = m.group("indent"), i
        i += 1
        while i < len(lines) and lines[i].rstrip() != indent + "```":
            i += 1
        if i == len(lines):
            raise DocError(f"{path.name}:{start + 1}: a fence that is never closed")
        code = textwrap.dedent("\n".join(lines[start + 1 : i])) + "\n"
        block = Block(path, start + 1, m.group("lang"), code, _markers(lines, start))
        previous = found[-1] if found else None
        if block.lang == "" and previous is not None and previous.lang == "sh" and _adjacent(lines, previous, start):
            previous.shown = code
        else:
            found.append(block)
        i += 1
    return found


def _markers(lines: list[str], fence: int) -> list[str]:
    out: list[str] = []
    j = fence - 1
    while j >= 0 and (not lines[j].strip() or _MARKER.match(lines[j])):
        m = _MARKER.match(lines[j])
        if m:
            out.append(m.group("body"))
        j -= 1
    return out


def _adjacent(lines: list[str], previous: Block, start: int) -> bool:
    end = previous.line + previous.code.count("\n")  # the index of the previous block's closing fence
    return all(not line.strip() for line in lines[end + 1 : start])


def example(block: Block) -> Example:
    """The example a block makes, with its markers read; DocError for a marker the runner does not know."""
    skipped: str | None = None
    status = 0
    writes: tuple[str, str] | None = None
    dropped: list[tuple[str, str]] = []
    for body in block.markers:
        if m := _SKIP.match(body):
            skipped = m.group("why")
        elif m := _SKIP_LINES.match(body):
            dropped.append((m.group("text"), m.group("why")))
        elif m := _EXIT.match(body):
            status = int(m.group("status"))
        elif m := _WRITE.match(body):
            writes = (m.group("how"), m.group("name"))
        else:
            raise DocError(
                f'{block.where}: unknown marker "{body}"'
                ' (skip (WHY); skip lines with "TEXT" (WHY); exit N (WHY); file NAME; patch NAME)'
            )
    code = block.code
    left_out: list[str] = []
    for text, why in dropped:
        kept = [line for line in code.split("\n") if text not in line]
        gone = code.count("\n") + 1 - len(kept)
        if not gone:
            raise DocError(f'{block.where}: skip lines with "{text}": no line of the block holds it')
        left_out += [f"{line.strip()} ({why})" for line in code.split("\n") if text in line]
        code = "\n".join(kept)
    script, expected = code, block.shown
    if block.lang == "sh" and code.lstrip().startswith(PROMPT):
        script, expected = _session(code)
    return Example(block, script, expected, skipped, left_out, status, writes)


def walkthrough(path: Path) -> bool:
    """Whether a page writes files (a ``file`` or ``patch`` marker): its blocks then run in order, not one by one."""
    return any(_WRITE.match(body) for b in blocks(path) for body in b.markers)


def _session(code: str) -> tuple[str, str]:
    """The commands of a ``$ ``-prompted block, and the output shown under them."""
    commands: list[str] = []
    shown: list[str] = []
    for line in code.rstrip("\n").split("\n"):
        if line.startswith(PROMPT):
            commands.append(line[len(PROMPT) :])
        else:
            shown.append(line)
    return "\n".join(commands) + "\n", "\n".join(shown) + "\n"


def matches(expected: str, actual: str) -> bool:
    """Whether output matches what a page shows: line by line, trailing spaces aside, with … as above."""
    pattern = []
    for line in expected.rstrip("\n").split("\n"):
        if line.strip() == ANY:
            pattern.append(r"(?:[^\n]*\n)*?")
        else:
            pattern.append("[^\n]*?".join(re.escape(part) for part in line.rstrip().split(ANY)) + "\n")
    text = "\n".join(line.rstrip() for line in actual.rstrip("\n").split("\n")) + "\n"
    return re.fullmatch("".join(pattern), text) is not None
