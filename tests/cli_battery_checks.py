"""The battery's hostile values, and what every run fed one must and must not do.

argv cannot carry NUL (execve takes C strings, so no user can pass one), and no file name can hold it: NUL is
covered by a file whose content has one (``nul.yaml``), named to every option. Control characters, which a
name can hold, are fed both as a name of nothing and as the name of a file that exists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cli_battery_run import Outcome
from cli_battery_table import Role

# A file that exists under a name full of controls: a valid rules file, so that a command reading it goes on to
# print its name in what it says.
CONTROL_NAME = "\x1b[2J\x1b]0;x\x07\u202ename.yaml"
HOSTILE_FILES = {
    "latin1.yaml": "format: 1\nnote: Café\n".encode("latin-1"),  # not UTF-8
    "nul.yaml": b"format: 1\x00\n",  # a NUL byte
}


@dataclass(frozen=True)
class Value:
    label: str
    text: str  # {outside} is the sandbox's outside directory
    digits: bool = False  # Unicode digits: no number option may read them


BATTERY = (
    Value("superscript", "²", digits=True),
    Value("arabic-indic", "١٢", digits=True),
    Value("fullwidth", "１２", digits=True),
    Value("5000 digits", "9" * 5000),
    Value("negative", "-1"),
    Value("zero", "0"),
    Value("empty", ""),
    Value("NUL inside", "nul.yaml"),
    Value("ESC CSI", "\x1b[31mred\x1b[0m"),
    Value("OSC title", "\x1b]0;x\x07"),
    Value("RLO", "\u202eevil"),
    Value("line separator", "a\u2028b"),
    Value("control-named file", CONTROL_NAME),
    Value("directory", "dir"),
    Value("FIFO", "fifo"),
    Value("symlink outside", "link-out"),
    Value("dangling symlink", "dangling"),
    Value("non-UTF-8", "latin1.yaml"),
    Value("outside file", "{outside}/target.yaml"),
)

# What no output may hold raw: C0 but newline and tab (tables use tabs), DEL, C1, the bidirectional controls, the
# line and paragraph separators and the noncharacters, as escape.text() escapes them: a terminal obeys them (a
# title set, a screen cleared, a line shown reversed). Bytes that are not UTF-8 are looked for on their own.
RAW = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff\ufffe\uffff]"
)
TRACEBACK = "Traceback (most recent call last)"


def problems(outcome: Outcome, role: Role, value: Value | None, timeout: float) -> list[str]:
    """What is wrong with one run, each as a short kind of failure (the keys the report groups by)."""
    found = []
    if outcome.status is None:
        found.append(f"no end within {timeout:.0f}s")
    elif outcome.status not in (0, 1, 2):
        found.append(f"exit status {outcome.status}")
    for name, data in (("stdout", outcome.out), ("stderr", outcome.err)):
        text = data.decode("utf-8", "surrogateescape")
        if TRACEBACK in text:
            found.append(f"a traceback on {name}")
        raw = sorted({f"U+{ord(c):04X}" for c in RAW.findall(text)})
        if raw:
            found.append(f"raw controls on {name} ({', '.join(raw)})")
        if any("\udc80" <= c <= "\udcff" for c in text):
            found.append(f"bytes that are not UTF-8 on {name}")
    if outcome.stray:
        found.append("a file written, changed or removed outside the named outputs")
    if value is not None and outcome.status in (0, 1):
        if role is Role.CHOICE:
            found.append("a value outside its choices accepted")
        elif role is Role.NUMBER and value.digits:
            found.append("a number in non-ASCII digits accepted")
    return found


def show(text: str, limit: int = 60) -> str:
    """A word or a line as the failure message may print it: controls escaped, long values cut."""
    if len(text) > limit:
        text = f"{text[: limit // 2]}…({len(text)} chars)"
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text)


def show_argv(argv: tuple[str, ...] | list[str]) -> str:
    # Escaped and cut first, then quoted where a shell would need it: what is printed is never the raw word.
    words = [show(w, 40) for w in argv]
    return "vitou " + " ".join(w if re.fullmatch(r"[\w@%+=:,./…()-]+", w) else f"'{w}'" for w in words)


def excerpt(outcome: Outcome) -> str:
    """The line that says most: an internal error's, a traceback's last, else the first of stderr or stdout."""
    # split("\n"), not splitlines(): a U+2028 or a raw \x1c would cut the line where a terminal does not.
    lines = [ln for ln in outcome.err.decode("utf-8", "replace").split("\n") if ln.strip()]
    lines = lines or [ln for ln in outcome.out.decode("utf-8", "replace").split("\n") if ln.strip()]
    pick = next((ln for ln in lines if "internal error" in ln), None)
    if pick is None and any(TRACEBACK in ln for ln in lines):
        pick = lines[-1]
    return show(pick or (lines[0] if lines else ""), 160)


@dataclass(frozen=True)
class Failure:
    outcome: Outcome
    kinds: tuple[str, ...]
    value: str  # the battery value's label, or "good value"

    def line(self) -> str:
        status = "no end" if self.outcome.status is None else str(self.outcome.status)
        stray = f" [{', '.join(show(p) for p in self.outcome.stray[:3])}]" if self.outcome.stray else ""
        raw = "".join(f" {k[k.index('(') :]}" for k in self.kinds if k.startswith("raw controls"))
        return f"{show_argv(self.outcome.argv)} -> {status}: {excerpt(self.outcome)}{stray}{raw}"


def report(failures: list[Failure]) -> str:
    """The failures grouped by kind, each argv on one line."""
    groups: dict[str, list[Failure]] = {}
    for f in failures:
        for kind in f.kinds:
            groups.setdefault(kind.split(" (")[0], []).append(f)  # "raw controls on stdout (U+001B)": by kind
    out = [f"{len(failures)} runs failed:"]
    for kind, items in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        out.append(f"== {kind} ({len(items)})")
        out += [f"  {f.line()}" for f in items]
    return "\n".join(out)
