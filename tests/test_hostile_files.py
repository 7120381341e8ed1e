"""Hostile files through every command that reads one: a coded, located error at the documented status, never 3."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT

from vitou_ref.cli import main
from vitou_ref.rules import registry as _registry
from vitou_ref.rules.errors import InputError, UnknownRuleset
from vitou_ref.rules.registry import is_name, load_ruleset, shipped_names
from vitou_ref.rules.yamlsafe import load_text

SMALL_SUITE = str(ROOT / "tests" / "data" / "small_suite.yaml")
CLUB = ROOT / "docs" / "examples" / "club-nice.yaml"
DISPUTE = (ROOT / "conformance" / "disputes" / "03-raise-from-last.yaml").read_text(encoding="utf-8")
PROFILE = (ROOT / "spec" / "profiles" / "vitou-partners-tie-1.0.0.yaml").read_text(encoding="utf-8")
RULES = (ROOT / "spec" / "vitou-1.0.0.yaml").read_text(encoding="utf-8")
DEAL = "  - {N: [AS, 7H, 8C], E: [9C, KD, JH], S: [10H, QS, 8D], W: [7C, AD, 9S]}"
PAULISTA = (  # Truco Paulista's first worked example (§8), its deal with the turn-up
    "format: 1\nheader: {ruleset: truco-paulista/1.0.0, dealer: B}\n"
    "deals:\n  - {A: [QS, 3H, 5C], B: [QC, 2S, 4D], turn_up: 7D}\n"
    'actions: "A 3H B 2S"\n'
)
CLAIMS = 'claims:\n  - {at: 4, by: S, claim: "West is last to the trick and may not bid.", asserts: RAISE_FROM_LAST}\n'

# Each command that reads a file named on its command line, and the status it documents for an unusable one.
COMMANDS: dict[str, tuple[list[str], int]] = {
    "spec": (["spec", "check", "{f}"], 1),
    "resolve": (["profile", "resolve", "{f}"], 2),
    "diff": (["profile", "diff", "vitou", "{f}"], 2),
    "audit": (["audit", "{f}"], 2),
    "record": (["record", "{f}"], 2),
    "fixtures": (["fixtures", "check", "--suite", "{f}"], 1),
    "certify-suite": (["certify", "--suite", "{f}", "--smoke"], 2),
    "certify-expect": (["certify", "--suite", SMALL_SUITE, "--expect", "{f}", "--smoke"], 2),
}
ALL = tuple(COMMANDS)
# A file that cannot be read at all gets no verdict: exit 2 from every command, the checks (1 on a bad file) included.
UNREADABLE = {"FILE_UNREADABLE", "FILE_NOT_REGULAR", "YAML_ENCODING", "SUITE_MISSING"}


def expected_status(command: str, code: str) -> int:
    return 2 if code in UNREADABLE else COMMANDS[command][1]


RULES_CMDS = ("spec", "resolve", "diff")
RECORD_CMDS = ("audit", "record")
SUITE_CMDS = ("fixtures", "certify-suite")
USABLE = {"audit": 1, "record": 0}  # a record that reads: audit rules an action illegal, record rewrites it
LOADERS = ("spec", "audit", "fixtures", "certify-expect")  # one per loader, for the files that are slow to refuse
NOT_A_MAPPING = {"certify-expect": "EXPECT_FORMAT"}  # known failures are checked by hand, not by a schema


@dataclass(frozen=True)
class Hostile:
    name: str
    content: bytes
    code: str  # the stable code every command must name
    line: bool = True  # whether the problem can and must be given a line
    commands: tuple[str, ...] = ALL
    codes: dict[str, str] = field(default_factory=dict)  # a command's own code, where it differs
    exits: dict[str, int] = field(default_factory=dict)  # a command's status, where the file is usable


def _text(name: str, text: str, code: str, **kw: object) -> Hostile:
    return Hostile(name, text.encode("utf-8"), code, **kw)  # type: ignore[arg-type]


LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]\n" for p, c in zip("abcdefgh", "bcdefghi")
)
HUGE_CLAIM = "\x1b[2K" + "y" * 900_000
WRONG_TYPES_RECORD = """format: "1"
header: {event: 1, place: [], date: 2026, round: 3, players: [], ruleset: 1, hash: 0, dealer: 1, score: [], note: {}}
deals: {}
actions: 5
annotations: {}
claims: x
"""
WRONG_TYPES_PROFILE = "format: 1\nprofile: {id: 1, version: [], title: {}, extends: 3}\noperations: x\nchangelog: 5\n"

TABLE = [
    # Encodings and bytes that are not YAML text.
    Hostile("empty.yaml", b"", "YAML_EMPTY", line=False),  # nothing at all
    Hostile("bom-only.yaml", b"\xef\xbb\xbf", "YAML_EMPTY", line=False),  # a byte-order mark and nothing else
    Hostile("latin1.yaml", "format: 1\nnote: Café\n".encode("latin-1"), "YAML_ENCODING", line=False),  # not UTF-8
    Hostile("nul.yaml", b"format: 1\x00\n", "YAML_ENCODING", line=False),  # a NUL byte
    Hostile("utf16.yaml", "format: 1\n".encode("utf-16"), "YAML_ENCODING", line=False),  # UTF-16 with its BOM
    Hostile("bell.yaml", b"format: 1\nnote: ring\x07\n", "YAML_SYNTAX"),  # a raw control character
    # Syntax and structure.
    Hostile("unclosed.yaml", b"format: [1, 2\n", "YAML_SYNTAX"),  # a flow sequence never closed
    Hostile("two-docs.yaml", b"format: 1\n---\nformat: 2\n", "YAML_SYNTAX"),  # two documents in one file
    _text("laughs.yaml", LAUGHS, "YAML_TOO_LARGE", commands=LOADERS),  # billion laughs: 10^9 values by aliases
    _text("deep.yaml", "[" * 10_000 + "]" * 10_000, "YAML_TOO_DEEP"),  # 10,000 nested lists: the composer's recursion
    _text("deep.json", '{"a":' * 10_000 + "1" + "}" * 10_000, "YAML_TOO_DEEP"),  # the same as JSON objects
    Hostile("self-alias.yaml", b"format: &a [1, *a]\n", "YAML_ALIAS_CYCLE"),  # an anchor that contains itself
    Hostile("python-tag.yaml", b"format: !!python/object/apply:os.system [echo pwned]\n", "YAML_TAG"),  # code exec
    Hostile("custom-tag.yaml", b"%TAG ! tag:evil.example,2000:\n---\nformat: !x 1\n", "YAML_TAG"),  # a foreign tag
    Hostile("merge.yaml", b"base: &b {x: 1}\nformat:\n  <<: *b\n", "YAML_MERGE"),  # merge keys hide keys
    # A key given twice: which one wins?
    _text("dup-keys.yaml", DISPUTE.replace("format: 1\n", "format: 1\nformat: 1\n"), "YAML_DUPLICATE_KEY"),
    Hostile("int-key.yaml", b"1: one\n", "YAML_KEY"),  # a key JSON cannot hold
    # Values JSON or Python cannot hold as written.
    _text("big-int.yaml", "format: " + "9" * 5000 + "\n", "YAML_NUMBER_TOO_LARGE"),  # past int()'s 4,300 digits
    _text("big-hex.yaml", "format: 0x" + "f" * 5000 + "\n", "YAML_NUMBER_TOO_LARGE"),  # the same, through hex
    _text("float.yaml", DISPUTE.replace("format: 1", "format: 1.0"), "YAML_FLOAT"),  # a float where an int belongs
    _text("date.yaml", DISPUTE.replace("event: Club evening", "event: 2026-11-20"), "YAML_DATE"),  # a date as a value
    _text("oversize.yaml", "note: '" + "x" * 4_500_000 + "'\n", "YAML_TOO_LARGE", line=False),  # over every bound
    # Valid YAML of the wrong shape.
    Hostile("top-list.yaml", b"- format: 1\n", "SCHEMA", codes=NOT_A_MAPPING),  # a list, not a mapping
    Hostile("top-scalar.yaml", b"just some text\n", "SCHEMA", codes=NOT_A_MAPPING),  # a bare scalar
    Hostile("bool-format.yaml", b"format: true\n", "SCHEMA", codes=NOT_A_MAPPING),  # a boolean where an int belongs
    # Records.
    _text("record-types.yaml", WRONG_TYPES_RECORD, "SCHEMA", commands=RECORD_CMDS),  # every field of the wrong type
    _text(  # a boolean where a score belongs
        "record-bool-score.yaml",
        DISPUTE.replace("dealer: W", "dealer: W\n  score: {NS: true, EW: 0}"),
        "SCHEMA",
        commands=RECORD_CMDS,
    ),
    _text(  # a malformed deal: one card dealt three times
        "record-bad-deal.yaml",
        DISPUTE.replace(DEAL, DEAL.replace("[AS, 7H, 8C]", "[AS, AS, AS]")),
        "RECORD_SETUP",
        commands=RECORD_CMDS,
    ),
    _text(  # a ruleset name that a local file could shadow
        "record-club.yaml",
        DISPUTE.replace("ruleset: vitou/1.0.0", "ruleset: club-nice/1.0.0"),
        "RECORD_RULESET_UNKNOWN",
        commands=RECORD_CMDS,
    ),
    _text(  # a claim asserting a misspelt code
        "record-claim-code.yaml",
        DISPUTE.replace("RAISE_FROM_LAST}", "RAISE_FROM_LST}"),
        "RECORD_CLAIM_CODE",
        commands=RECORD_CMDS,
    ),
    _text(  # 100,001 actions: over the 10,000 a record may hold (MAX_ACTIONS), refused before it is replayed
        "record-100k.yaml",
        DISPUTE.replace("N AS E 9C S 10H W r3", "N AS" + " N AS" * 100_000).replace(CLAIMS, ""),
        "RECORD_TOO_LONG",
        commands=RECORD_CMDS,
    ),
    _text(  # a claim of 900 KB opening with a terminal escape: shown cut and escaped
        "record-huge-claim.yaml",
        DISPUTE.replace("West is last to the trick and may not bid.", HUGE_CLAIM.replace("\x1b", "\\e")),
        "RAISE_FROM_LAST",
        line=False,
        commands=("audit",),
        exits={"audit": 1},
    ),
    # Truco Paulista's turn-up, face-down cards and concessions: each where it cannot be.
    *(
        _text(f"record-turn-up-{name}.yaml", PAULISTA.replace("turn_up: 7D", f"turn_up: {value}"), code, **kw)
        for name, value, code, kw in [
            ("not-a-card", "ZZ", "RECORD_SETUP", {"commands": RECORD_CMDS}),
            ("not-of-the-pack", "8C", "RECORD_SETUP", {"commands": RECORD_CMDS}),
            ("dealt-twice", "QS", "RECORD_SETUP", {"commands": RECORD_CMDS}),
            ("unknown", '"?"', "RECORD_SETUP", {"commands": RECORD_CMDS}),
            ("a-list", "[7D]", "SCHEMA", {"commands": RECORD_CMDS}),
            ("a-number", "7", "SCHEMA", {"commands": RECORD_CMDS}),
            ("bidi", '"7D\u202e\u2066"', "RECORD_SETUP", {"commands": RECORD_CMDS}),
            ("control", r'"\e[2J7D"', "RECORD_SETUP", {"commands": RECORD_CMDS}),
            ("huge", '"' + "7" * 200_000 + '"', "SCHEMA", {"commands": RECORD_CMDS}),
        ]
    ),
    _text(  # a turn-up in a game that turns none up
        "record-turn-up-in-vitou.yaml",
        DISPUTE.replace("W: [7C, AD, 9S]}", "W: [7C, AD, 9S], turn_up: KS}"),
        "RECORD_SETUP",
        commands=RECORD_CMDS,
    ),
    _text(  # face_down given otherwise than true: no group of the notation holds it; the audit rules it malformed
        "record-face-down-false.yaml",
        PAULISTA.replace(
            'actions: "A 3H B 2S"', 'actions: ["A 3H", "B 2S", {seat: A, act: play, card: QS, face_down: false}]'
        ),
        "ACTION_MALFORMED",
        line=False,
        commands=("audit",),
        exits={"audit": 1},
    ),
    _text(  # a concession and a card face down in Vitou, which has neither
        "record-concede-vitou.yaml",
        DISPUTE.replace("N AS E 9C S 10H W r3", "N concede N _AS").replace(CLAIMS, ""),
        "ACTION_MALFORMED",
        line=False,
        commands=("audit",),
        exits={"audit": 1},
    ),
    # A .json file holding YAML: read as YAML, of which JSON is a part, and audited like any record.
    _text("record-yaml.json", DISPUTE, "RAISE_FROM_LAST", line=False, commands=RECORD_CMDS, exits=USABLE),
    # Rules and profiles.
    _text(  # a base that is not shipped
        "profile-unknown-base.yaml",
        PROFILE.replace("extends: vitou/1.0.0", "extends: nowhere/9.9.9"),
        "PROFILE_BASE_UNKNOWN",
        commands=RULES_CMDS,
    ),
    _text(  # a profile extending itself
        "profile-self.yaml",
        PROFILE.replace("extends: vitou/1.0.0", "extends: vitou-partners-tie/1.0.0"),
        "PROFILE_CYCLE",
        commands=RULES_CMDS,
    ),
    _text("profile-types.yaml", WRONG_TYPES_PROFILE, "SCHEMA", commands=RULES_CMDS),  # every field of the wrong type
    _text(  # a boolean where a count belongs
        "rules-bool-count.yaml", RULES.replace("cards_each: 3", "cards_each: true"), "SCHEMA", commands=RULES_CMDS
    ),
    # Fixtures and known failures.
    # Cases of the wrong type.
    Hostile("cases-types.yaml", b"format: 1\ntitle: 7\ncases: {a: 1}\n", "SCHEMA", commands=SUITE_CMDS),
    Hostile("expect-types.yaml", b"VT-0001: [not, a, reason]\n", "EXPECT_FORMAT", commands=("certify-expect",)),
]


def run(argv: list[str], timeout: float = 120.0) -> tuple[int, str]:
    """``vitou ARGV`` in process, bounded in time; (status, stdout and stderr)."""
    out = io.StringIO()
    status: list[int] = []

    def target() -> None:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                status.append(main(argv))
            except SystemExit as exc:  # argparse
                status.append(exc.code if isinstance(exc.code, int) else 2)

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(timeout)
    assert not worker.is_alive(), f"vitou {' '.join(argv)} still running after {timeout}s"
    return status[0], out.getvalue()


def check(status: int, output: str, expected: int, code: str, name: str | None, line: bool = False) -> None:
    """The status, the code, the file's name (and a line), and no trace of a crash."""
    assert "Traceback" not in output and "internal error" not in output, output[-2000:]
    assert status == expected, output[-2000:]
    assert code in output, output[-2000:]
    if name is not None:
        assert name in output, output[-2000:]
    if line:
        assert re.search(re.escape(str(name)) + r":\d+:\d+", output), output[-2000:]


@pytest.mark.parametrize(
    ("row", "command"), [(r, c) for r in TABLE for c in r.commands], ids=lambda x: x if isinstance(x, str) else x.name
)
def test_a_hostile_file_gets_a_located_coded_error(tmp_path: Path, row: Hostile, command: str) -> None:
    path = tmp_path / row.name
    path.write_bytes(row.content)
    argv, _ = COMMANDS[command]
    status, output = run([a.replace("{f}", str(path)) for a in argv])
    refused = command not in row.exits  # else the file is usable, and the status is the command's verdict
    code = row.codes.get(command, row.code)
    expected = expected_status(command, code)
    check(status, output, row.exits.get(command, expected), code, row.name if refused else None, refused and row.line)
    if refused or command == "audit":
        assert len(output) < 200_000  # nothing copied whole from a huge file into a message or a ruling


def _special(kind: str, tmp_path: Path) -> str:
    if kind == "fifo":
        os.mkfifo(tmp_path / "pipe.yaml")  # no writer: open() or read() would wait for ever
        return str(tmp_path / "pipe.yaml")
    if kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(tmp_path / "sock.yaml"))
        sock.close()
        return str(tmp_path / "sock.yaml")
    if kind == "directory":
        (tmp_path / "dir.yaml").mkdir()
        return str(tmp_path / "dir.yaml")
    return "/dev/zero"  # a device that never ends


# A directory is a suite to fixtures check and certify --suite, and a file to read to the others.
SPECIAL = [(k, c) for k in ("fifo", "socket", "device") for c in ALL] + [
    ("directory", c) for c in ALL if c not in SUITE_CMDS
]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX special files")
@pytest.mark.parametrize(("kind", "command"), SPECIAL)
def test_a_special_file_is_refused_before_it_is_read(tmp_path: Path, kind: str, command: str) -> None:
    path = _special(kind, tmp_path)
    argv, _ = COMMANDS[command]
    argv = [a.replace("{f}", path) for a in argv]
    expected = expected_status(command, "FILE_NOT_REGULAR")
    if kind == "fifo":  # in a process of its own, so that a regression fails instead of hanging the suite
        proc = subprocess.run(
            [sys.executable, "-m", "vitou_ref", *argv], capture_output=True, text=True, timeout=20, check=False
        )
        status, output = proc.returncode, proc.stdout + proc.stderr
    else:
        status, output = run(argv, timeout=20)
    check(status, output, expected, "FILE_NOT_REGULAR", os.path.basename(path))


def test_a_huge_integer_is_located_by_line_and_pointer() -> None:
    with pytest.raises(InputError) as err:
        load_text("format: 1\nheader:\n  score: {NS: " + "9" * 4301 + "}\n", "big.yaml")
    (p,) = err.value.problems
    assert (p.code, p.source, p.line, p.path) == ("YAML_NUMBER_TOO_LARGE", "big.yaml", 3, "/header/score/NS")


def _load_all_at_once(names: list[str]) -> tuple[list[BaseException], dict[str, set[int]]]:
    """Load ``names`` from one thread each, all released at once; the failures, and the objects each name got."""
    start = threading.Barrier(len(names))
    failures: list[BaseException] = []
    loaded: dict[str, set[int]] = {name: set() for name in names}

    def load(name: str) -> None:
        start.wait()
        try:
            loaded[name].add(id(load_ruleset(name)))
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=load, args=(n,)) for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return failures, loaded


def test_ruleset_loading_is_thread_safe(monkeypatch: pytest.MonkeyPatch) -> None:
    # vitou mutants --fuzz loads rulesets from a thread pool; a thread must
    # never take another's load in progress for a profile cycle.
    monkeypatch.setattr(_registry, "_LOADED", {})
    for _ in range(5):
        _registry._LOADED.clear()
        failures, loaded = _load_all_at_once(shipped_names() * 4)
        assert not failures, failures[0]
        assert all(len(ids) == 1 for ids in loaded.values())  # one Ruleset per name, shared


def test_a_cycle_among_shipped_profiles_names_its_chain(monkeypatch: pytest.MonkeyPatch) -> None:
    index = dict(_registry._headers())
    docs = {}
    for me, base in (("loop-a", "loop-b"), ("loop-b", "loop-a")):
        text = PROFILE.replace("id: vitou-partners-tie", f"id: {me}").replace("vitou/1.0.0", f"{base}/1.0.0")
        index[f"{me}/1.0.0"] = f"{me}.yaml"
        docs[f"{me}/1.0.0"] = load_text(text, f"spec/profiles/{me}.yaml")
    real_document = _registry._document
    monkeypatch.setattr(_registry, "_headers", lambda: index)
    monkeypatch.setattr(_registry, "_document", lambda name: docs.get(name) or real_document(name))
    monkeypatch.setattr(_registry, "_LOADED", {})
    with pytest.raises(InputError) as err:
        load_ruleset("loop-a/1.0.0")
    (p,) = err.value.problems
    assert p.code == "PROFILE_CYCLE" and "loop-a/1.0.0 -> loop-b/1.0.0 -> loop-a/1.0.0" in p.message
    assert (p.source, p.path) == ("spec/profiles/loop-b.yaml", "/profile/extends") and p.line
    assert not _registry._LOADING  # a failed load leaves nothing behind


def _club_tree(tmp_path: Path) -> None:
    """A working directory holding files named like rulesets: club-nice/1.0.0, and loop-a <-> loop-b."""
    (tmp_path / "club-nice").mkdir()
    shutil.copy(CLUB, tmp_path / "club-nice" / "1.0.0")
    for me, base in (("loop-a", "loop-b"), ("loop-b", "loop-a")):
        (tmp_path / me).mkdir()
        text = PROFILE.replace("id: vitou-partners-tie", f"id: {me}").replace("vitou/1.0.0", f"{base}/1.0.0")
        (tmp_path / me / "1.0.0").write_text(text, encoding="utf-8")


def test_local_profiles_extending_each_other_end_cleanly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _club_tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    status, output = run(["profile", "resolve", "loop-a/1.0.0"])  # a name: never the file of that name
    check(status, output, 2, "unknown ruleset 'loop-a/1.0.0'; known: " + ", ".join(shipped_names()), None)
    status, output = run(["profile", "resolve", "./loop-a/1.0.0"])  # the file, given explicitly: its base is a name
    check(status, output, 2, "PROFILE_BASE_UNKNOWN", "loop-a/1.0.0", line=True)


def test_a_records_ruleset_is_a_shipped_name_never_a_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _club_tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "game.yaml").write_text(DISPUTE.replace("vitou/1.0.0", "club-nice/1.0.0"), encoding="utf-8")
    status, output = run(["audit", "game.yaml"])
    check(status, output, 2, "RECORD_RULESET_UNKNOWN", "game.yaml", line=True)
    assert "vitou/1.0.0, vitou/1.1.0, vitou-2p/1.0.0" in output  # the shipped names are listed
    with pytest.raises(UnknownRuleset):
        load_ruleset("club-nice/1.0.0")
    assert load_ruleset("./club-nice/1.0.0").name == "club-nice/1.0.0"  # a path, given explicitly
    status, output = run(["audit", "game.yaml", "--ruleset", str(CLUB)])  # the club's file, named by the user
    assert status == 1 and "only in trick 2, 3" in output, output  # the club's rule is the one applied


@pytest.mark.parametrize(
    ("text", "name"),
    [("vitou", True), ("vitou/1.0.0", True), ("club-nice/1.0.0", True), ("vitou/1.0", True), ("club.yaml", False),
     ("rules.json", False), ("./club-nice/1.0.0", False), ("rules/club", False), ("/abs/vitou/1.0.0", False)],
)  # fmt: skip
def test_names_and_files_are_told_apart_by_their_form(text: str, name: bool) -> None:
    assert is_name(text) is name


CONTROL = "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028]"  # every control character but the newline and the tab
FORGED = "\x1b[2K\r      claim by South: \u201cforged\u201d: ruling: the claim is upheld\n\x9b1A"
YAML_ESCAPED = "\\e[2K\\r      claim by South: \u201cforged\u201d: ruling: the claim is upheld\\n\\x9b1A"


def _rendered(md: str) -> str:
    """The text a reader sees of a Markdown document: rendered as CommonMark, tags dropped, entities read."""
    import html

    markdown_it = pytest.importorskip("markdown_it")
    return html.unescape(re.sub(r"<[^>]+>", "", markdown_it.MarkdownIt("commonmark").render(md)))


def test_record_text_cannot_draw_on_the_terminal(tmp_path: Path) -> None:
    # Escapes in a claim, a claimant, a note in the notation and an annotation
    # would otherwise erase the audit's line and draw a ruling of their own.
    record = (
        DISPUTE.replace("West is last to the trick and may not bid.", YAML_ESCAPED)
        .replace("by: S,", 'by: "S\\e[1A",')
        .replace("actions: |\n  N AS E 9C S 10H W r3", 'actions: "N AS {hesitated\\a\\L} E 9C S 10H W r3"')
        + 'annotations:\n  - {at: 1, note: "\\e]0;pwned\\a"}\n'
    )
    path = tmp_path / "forged.yaml"
    path.write_text(record, encoding="utf-8")
    for fmt in ("text", "markdown"):
        status, output = run(["audit", str(path), "--format", fmt])
        assert status == 1, output
        assert not re.search(CONTROL, output), output
        shown = output if fmt == "text" else _rendered(output)  # Markdown shows its text once rendered
        assert "\\x1b[2K\\x0d      claim by South" in shown and "\\x9b1A" in shown
        assert sum("the claim is" in line for line in output.splitlines()) == 1  # only the audit's own ruling
    status, output = run(["audit", str(path), "--format", "json"])
    assert json.loads(output)["rulings"][3]["claims"][0]["claim"] == FORGED  # JSON keeps the text exactly
    for to in ("yaml", "json"):  # the canonical record keeps it too, escaped
        status, output = run(["record", str(path), "--to", to])
        assert status == 0 and not re.search(CONTROL, output) and load_text(output).data["claims"][0]["claim"] == FORGED


def test_a_claim_of_an_unknown_code_is_a_located_error(tmp_path: Path) -> None:
    path = tmp_path / "typo.yaml"
    path.write_text(DISPUTE.replace("RAISE_FROM_LAST}", "RAISE_FROM_LST}"), encoding="utf-8")
    status, output = run(["audit", str(path)])
    check(status, output, 2, "RECORD_CLAIM_CODE", "typo.yaml", line=True)
    assert "/claims/0/asserts" in output and "RAISE_FROM_LST" in output
    assert "did you mean RAISE_FROM_LAST?" in output and "NOT_YOUR_TURN" in output  # the known codes are listed


# ---- round two: reports and saved counts. A report is checked against its own header and footer and the suite
# it claims before it is believed (docs/reference/protocol.md's certify report; docs/explanation/verdict.md); saved
# counts are checked against what matches can count (vitou_ref/sim/figures.py): exit 2 with a located code, never 3.

REPORT_CMDS = {
    "report": ["report", "{ref}", "{f}"],
    "diff": ["report", "--diff", "{ref}", "{f}"],
    "badge": ["report", "--badge", "{dir}", "{f}"],
}


@pytest.fixture(scope="module")
def certified(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, object]]]:
    """A real report of the reference, and the lines of a real report of a mutant that fails some cases."""
    d = tmp_path_factory.mktemp("hostile-reports")
    impl = shlex.join([sys.executable, "-m", "vitou_ref.adapter", "--mutant", "refusal-pays-refuser"])
    assert main(["certify", "--report", str(d / "ref.jsonl")]) == 0
    assert main(["certify", "--impl", impl, "--report", str(d / "mutant.jsonl")]) == 1
    text = (d / "mutant.jsonl").read_text(encoding="utf-8")
    return d / "ref.jsonl", [json.loads(x) for x in text.splitlines()]


Lines = list[dict[str, Any]]


def _failing(lines: Lines) -> Lines:
    return [x for x in lines if x["type"] == "case" and x["outcome"] == "failed"]


def _rules_verdict(lines: Lines) -> dict[str, Any]:
    return next(v for v in lines[-1]["verdicts"] if v["kind"] == "rules")


def _without_failing(lines: Lines) -> Lines:
    """The failing case lines deleted, the footer left as it was: 'N/N conformant' to whoever counts lines."""
    return [x for x in lines if x not in _failing(lines)]


def _footer_matched(lines: Lines) -> Lines:
    """The failing lines deleted and the footer rewritten to agree with what is left."""
    out = _without_failing(lines)
    v = _rules_verdict(out)
    v["total"] = v["counts"]["passed"]
    v["counts"] = {"passed": v["counts"]["passed"]}
    v["status"] = "conformant"
    return out


def _plan_matched(lines: Lines) -> Lines:
    """... and the header's plan too: only the suite it claims still knows the deleted cases."""
    out = _footer_matched(lines)
    gone = {x["id"] for x in _failing(lines)}
    plan = out[0]["planned"]["rules"]
    plan["vitou/1.1.0"] = [i for i in plan["vitou/1.1.0"] if i not in gone]
    return out


def _footer_lie(lines: Lines) -> Lines:
    _rules_verdict(lines)["status"] = "conformant"
    return lines


def _count_lie(lines: Lines) -> Lines:
    _rules_verdict(lines)["counts"]["passed"] += 1
    return lines


def _header_lie(lines: Lines) -> Lines:
    lines[0]["suite"]["cases"] = 298  # the suite it claims has more
    return lines


def _duplicate(lines: Lines) -> Lines:
    return [lines[0], lines[1], lines[1], *lines[2:]]


def _other_suite_case(lines: Lines) -> Lines:
    return [*lines[:-1], {**lines[1], "id": "ZZ-9999", "title": "a case of no suite"}, lines[-1]]


def _flipped(lines: Lines) -> Lines:
    """A failed case made to pass, its reason and difference left out; the footer as it was."""
    line = _failing(lines)[0]
    line["outcome"] = "passed"
    line.pop("reason", None)
    line.pop("difference", None)
    return lines


def _clauses_edited(lines: Lines) -> Lines:
    lines[1]["clauses"] = ["deck.cards"]  # the case counts for another section of the rules
    return lines


def _unnamed_ruleset(lines: Lines) -> Lines:
    lines[1]["ruleset"] = "vitou/1.0.0"  # the header's rulesets are vitou/1.1.0 only
    return lines


REPORT_EDITS = [
    ("deleted-failing.jsonl", _without_failing, "REPORT_COUNTS_DISAGREE"),
    ("deleted-and-footer.jsonl", _footer_matched, "REPORT_CASES_MISSING"),
    ("deleted-footer-and-plan.jsonl", _plan_matched, "REPORT_HEADER_DISAGREE"),
    ("footer-lie.jsonl", _footer_lie, "REPORT_VERDICT_DISAGREE"),
    ("count-lie.jsonl", _count_lie, "REPORT_COUNTS_DISAGREE"),
    ("header-lie.jsonl", _header_lie, "REPORT_HEADER_DISAGREE"),
    ("duplicate.jsonl", _duplicate, "REPORT_DUPLICATE_CASE"),
    ("other-suite-case.jsonl", _other_suite_case, "REPORT_CASE_UNKNOWN"),
    ("flipped.jsonl", _flipped, "REPORT_COUNTS_DISAGREE"),
    ("clauses-edited.jsonl", _clauses_edited, "REPORT_CASE_ALTERED"),
    ("unnamed-ruleset.jsonl", _unnamed_ruleset, "REPORT_CASE_UNKNOWN"),
]


@pytest.mark.parametrize(("name", "edit", "code"), REPORT_EDITS, ids=[r[0] for r in REPORT_EDITS])
@pytest.mark.parametrize("command", list(REPORT_CMDS))
def test_an_edited_report_is_refused_with_its_disagreement_located(
    certified: tuple[Path, Lines], tmp_path: Path, name: str, edit: Any, code: str, command: str
) -> None:
    ref, lines = certified
    path = tmp_path / name
    edited = edit(json.loads(json.dumps(lines)))
    path.write_text("".join(json.dumps(x, separators=(",", ":")) + "\n" for x in edited), encoding="utf-8")
    badges = tmp_path / "badges"
    argv = [
        a.replace("{ref}", str(ref)).replace("{f}", str(path)).replace("{dir}", str(badges)) for a in argv_of(command)
    ]
    status, output = run(argv)
    check(status, output, 2, code, name)
    assert re.search(re.escape(name) + r":\d+: " + code, output), output[-2000:]
    assert all(x.startswith("vitou: ") for x in output.splitlines() if x)  # problems only: no table, no verdict
    assert not badges.exists() or not list(badges.iterdir())  # no badge, green or not, for a report not believed


def argv_of(command: str) -> list[str]:
    return REPORT_CMDS[command]


SAVE_EDITS: dict[str, tuple[Any, str]] = {
    # (a change to the first ruleset's counts, the JSON pointer the error must name)
    "ties-over-tricks.json": (lambda c: c.update(tied_tricks=c["tricks"] + 5), "/counts/0/tied_tricks"),
    "count-10e309.json": (lambda c: c.update(tricks=10**309), "/counts/0/tricks"),
    "negative.json": (lambda c: c.update(reached_twenty=-1), "/counts/0/reached_twenty"),
    "bool.json": (lambda c: c.update(first_kind_won=True), "/counts/0/first_kind_won"),
    "results-over-hands.json": (lambda c: c["hand_results"].update(refusal=10**6), "/counts/0/hand_results"),
    "refusals-over-won.json": (lambda c: c["values_by_refusal"].update({"1": 10**6}), "/counts/0/values_by_refusal"),
    "endings-over-matches.json": (lambda c: c["endings"].update({"won at 20": 10**6}), "/counts/0/endings"),
    "hands-1e400.json": (lambda c: c["hands_per_match"].update({"1" + "0" * 400: 1}), "/counts/0/hands_per_match/"),
    "matches-not-hands.json": (lambda c: c["hands_per_match"].update({"3": 10**6}), "/counts/0/hands_per_match"),
}


@pytest.mark.parametrize("name", list(SAVE_EDITS))
def test_a_crafted_save_is_refused_at_its_json_path(tmp_path: Path, name: str) -> None:
    good = tmp_path / "good.json"
    status, output = run(["simulate", "--matches", "20", "--seed", "3", "--save", str(good)])
    assert status == 0, output
    saved = json.loads(good.read_text(encoding="utf-8"))
    change, where = SAVE_EDITS[name]
    change(saved["counts"][0])
    path = tmp_path / name
    path.write_text(json.dumps(saved), encoding="utf-8")
    status, output = run(["simulate", "--merge", str(path)])
    check(status, output, 2, f"SIMULATION_MERGE at {where}", name)
    assert len(output) < 2000


def test_two_saves_each_within_the_maximum_whose_sum_is_not_are_refused(tmp_path: Path) -> None:
    from vitou_ref.sim.figures import MAX_COUNT

    paths = []
    for first in (0, 20):
        path = tmp_path / f"part-{first}.json"
        status, output = run(["simulate", "--matches", "20", "--first", str(first), "--save", str(path)])
        assert status == 0, output
        saved = json.loads(path.read_text(encoding="utf-8"))
        saved["counts"][0]["tricks"] = MAX_COUNT  # each within the maximum (and no tie above it)
        path.write_text(json.dumps(saved), encoding="utf-8")
        paths.append(str(path))
    status, output = run(["simulate", "--merge", *paths])
    check(status, output, 2, "SIMULATION_MERGE at /counts/0", "part-20.json")


# ---- round two: output paths (a link planted where an output goes, a file already there)

FAKE_WRONG = shlex.join([sys.executable, str(ROOT / "tests" / "fakes" / "fake_impl.py"), "wrong", "2"])
# Each output of certify, and where a link or a file there sits: --save-failed's is a failing case's file.
OUTPUTS = {"--junit": "r.xml", "--report": "r.jsonl", "--save-failed": "saved/VT-0002.yaml"}


def _certify_to(tmp_path: Path, option: str, *extra: str) -> tuple[int, str]:
    target = str(tmp_path / "saved") if option == "--save-failed" else str(tmp_path / OUTPUTS[option])
    return run(["certify", "--suite", SMALL_SUITE, "--impl", FAKE_WRONG, option, target, *extra])


@pytest.mark.parametrize("dangling", [False, True], ids=["to-a-file", "dangling"])
@pytest.mark.parametrize("option", list(OUTPUTS))
def test_a_link_at_an_output_path_is_refused_before_the_run(tmp_path: Path, option: str, dangling: bool) -> None:
    (tmp_path / "saved").mkdir()
    victim = tmp_path / "victim.txt"
    if not dangling:
        victim.write_text("precious\n", encoding="utf-8")
    link = tmp_path / OUTPUTS[option]
    link.symlink_to(victim)
    status, output = _certify_to(tmp_path, option)
    assert status == 2 and "CONFORMANT" not in output, output  # refused before any verdict
    assert option in output and "Traceback" not in output
    assert link.is_symlink()
    assert victim.read_text(encoding="utf-8") == "precious\n" if not dangling else not victim.exists()


@pytest.mark.parametrize("dangling", [False, True], ids=["to-a-file", "dangling"])
@pytest.mark.parametrize("option", list(OUTPUTS))
def test_with_force_a_link_at_an_output_path_is_replaced_never_followed(
    tmp_path: Path, option: str, dangling: bool
) -> None:
    (tmp_path / "saved").mkdir()
    victim = tmp_path / "victim.txt"
    if not dangling:
        victim.write_text("precious\n", encoding="utf-8")
    link = tmp_path / OUTPUTS[option]
    link.symlink_to(victim)
    status, output = _certify_to(tmp_path, option, "--force")
    assert status == 1, output  # the verdict on the wrong answers, and every file written
    assert not link.is_symlink() and link.is_file() and link.stat().st_size > 0
    assert victim.read_text(encoding="utf-8") == "precious\n" if not dangling else not victim.exists()


@pytest.mark.parametrize("option", list(OUTPUTS))
def test_a_file_at_an_output_path_is_kept_without_force(tmp_path: Path, option: str) -> None:
    (tmp_path / "saved").mkdir()
    there = tmp_path / OUTPUTS[option]
    there.write_text("an earlier run's\n", encoding="utf-8")
    status, output = _certify_to(tmp_path, option)
    assert status == 2 and "--force" in output, output
    assert there.read_text(encoding="utf-8") == "an earlier run's\n"


@pytest.mark.parametrize(
    "argv",
    [["rulebook", "--ruleset", "vitou"], ["fixtures", "export", "--format", "json"]],
    ids=["rulebook", "fixtures-export"],
)
def test_an_output_file_replaces_a_link_and_never_writes_its_target(tmp_path: Path, argv: list[str]) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    link = tmp_path / "out.txt"
    link.symlink_to(victim)
    status, output = run([*argv, "-o", str(link)])
    assert status == 2 and "--force" in output, output  # a link is something there: kept without --force
    assert link.is_symlink()
    status, output = run([*argv, "-o", str(link), "--force"])
    assert status == 0, output
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert not link.is_symlink() and link.stat().st_size > 0


# ---- round two: markup and controls in the texts of files that read well

MARKUP = "<script>alert(1)</script> <img src=x onerror=alert(1)> *em* [l](http://x) `c` | &amp; ]]> \u202eevil"
CONTROLS = "\x1b[2J\x9b2J\x9d0;t\x07\u2028\u2029\u202e\ufffe\uffff"
HOSTILE_TEXT = MARKUP + " " + CONTROLS
# What no output may hold raw: controls, bidi overrides and isolates, line separators, noncharacters.
RAW_OUT = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffe\uffff]")


def _yaml_string(text: str) -> str:
    """``text`` as a YAML double-quoted scalar, every character YAML refuses raw written as an escape."""
    return json.dumps(text)  # JSON's escapes are YAML's; the hostile texts stay in the BMP


def _markup_record() -> str:
    quoted = _yaml_string(HOSTILE_TEXT)
    record = DISPUTE.replace("event: Club evening", f"event: {quoted}\n  note: {quoted}")
    record = record.replace(
        "  dealer: W\n", f"  dealer: W\n  players: {{N: {quoted}, E: {quoted}, S: {quoted}, W: {quoted}}}\n"
    )
    record = record.replace("W r3", "W r3 {<script>alert(1)</script> *x* `y` | z}")
    record = record.replace('"West is last to the trick and may not bid."', quoted)
    return record + f"annotations:\n  - {{at: 2, note: {quoted}}}\n"


def _markup_profile() -> str:
    quoted = _yaml_string(HOSTILE_TEXT)
    return (
        "format: 1\n"
        f"profile: {{id: club-markup, version: 1.0.0, title: {quoted}, extends: vitou/1.0.0}}\n"
        f'changelog: [{{version: 1.0.0, date: "2026-12-01", changes: [{quoted}]}}]\n'
        f"decisions: [{{topic: {quoted}, decision: {quoted}, reason: {quoted}, clauses: [club.not_last]}}]\n"
        "operations:\n  - replace: bid.not_last\n"
        f"    with: {{id: club.not_last, section: '03', title: {quoted}, text: {quoted}, rule: last_position,"
        " data: {bids: forbidden}}\n"
    )


def _well_formed(fmt: str, out: str) -> None:
    assert not RAW_OUT.findall(out.replace("\n", "")), (fmt, sorted(set(RAW_OUT.findall(out))))
    if fmt == "json":
        json.loads(out)
    if fmt == "markdown":
        markdown_it = pytest.importorskip("markdown_it")
        tokens = markdown_it.MarkdownIt("commonmark").enable("table").parse(out)
        inline = [c for t in tokens for c in (t.children or [])]
        own = re.compile(r'<a id="[A-Za-z0-9_-]+">|</a>|<br>')  # the rulebook's anchors and line breaks
        html = [t for t in [*tokens, *inline] if t.type.startswith("html") and not own.fullmatch(t.content)]
        links = [t for t in inline if t.type == "link_open" and not str(t.attrs.get("href", "")).startswith("#")]
        assert not html and not links and not [t for t in inline if t.type in ("image", "s_open")], out
    if fmt == "html":
        assert "<script" not in out and "<img" not in out and "onerror=" not in out.replace("onerror=alert", "")
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out


def _outputs(tmp_path: Path, argv: list[str], formats: tuple[str, ...], status: int) -> None:
    for fmt in formats:
        out = tmp_path / f"out.{fmt}"
        assert main([*argv, "--format", fmt, "--output", str(out), "--force"]) == status, fmt  # the last run's
        _well_formed(fmt, out.read_text(encoding="utf-8"))


def test_a_record_with_markup_in_its_notes_claims_and_names_renders_as_text(tmp_path: Path) -> None:
    record = tmp_path / "markup.yaml"
    record.write_text(_markup_record(), encoding="utf-8")
    _outputs(tmp_path, ["audit", str(record)], ("text", "markdown", "html", "json"), 1)
    _outputs(tmp_path, ["audit", str(record), "--at", "4"], ("text", "markdown", "json"), 0)
    compared = ["audit", str(record), "--compare-ruleset", "vitou-partners-tie"]
    _outputs(tmp_path, compared, ("text", "markdown", "json"), 0)


def test_a_record_in_json_keeps_its_controls_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "markup.yaml"
    record.write_text(_markup_record(), encoding="utf-8")
    assert main(["record", str(record), "--to", "json"]) == 0
    out = capsys.readouterr().out
    _well_formed("json", out)
    assert json.loads(out)["header"]["event"] == HOSTILE_TEXT


def test_a_profile_with_markup_in_its_texts_renders_as_text(tmp_path: Path) -> None:
    profile = tmp_path / "club-markup.yaml"
    profile.write_text(_markup_profile(), encoding="utf-8")
    _outputs(tmp_path, ["rulebook", "--ruleset", str(profile)], ("markdown", "html"), 0)
    record = tmp_path / "markup.yaml"
    record.write_text(_markup_record(), encoding="utf-8")
    _outputs(tmp_path, ["audit", str(record), "--ruleset", str(profile)], ("text", "markdown", "html", "json"), 1)


def test_a_saved_report_with_markup_renders_as_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A real report of an implementation whose name and answer are markup, then edited by hand as a file can be.
    impl = shlex.join([sys.executable, str(ROOT / "tests" / "fakes" / "hostile_impl.py"), "markup_card"])
    report = tmp_path / "markup.jsonl"
    assert main(["certify", "--impl", impl, "--suite", SMALL_SUITE, "--report", str(report)]) == 1
    lines = [json.loads(x) for x in report.read_text(encoding="utf-8").splitlines()]
    lines[0]["command"] = HOSTILE_TEXT
    lines[0]["implementation"].update(version=HOSTILE_TEXT, language=HOSTILE_TEXT)
    for line in lines[1:-1]:
        line["title"] = HOSTILE_TEXT
        line["reason"] = HOSTILE_TEXT
    report.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    capsys.readouterr()
    _outputs(tmp_path, ["report", "--force", str(report)], ("text", "markdown", "html", "json"), 0)
    again = tmp_path / "again.jsonl"
    again.write_bytes(report.read_bytes())
    _outputs(tmp_path, ["report", "--force", "--diff", str(report), str(again)], ("text", "markdown", "json"), 0)
    assert main(["report", "--badge", str(tmp_path / "badges"), str(report)]) == 0
    for badge in (tmp_path / "badges").iterdir():
        _well_formed("json", badge.read_text(encoding="utf-8"))


# ---- round two: profiles' words (an error code restated with markup, controls and format fields)

FORMAT_FIELDS = " {seat} {0} {__class__} {n:>99999999}"


def _restated_profile() -> str:
    quoted = _yaml_string(HOSTILE_TEXT + FORMAT_FIELDS)
    return (
        "format: 1\n"
        "profile: {id: club-words, version: 1.0.0, title: Club words, extends: vitou-mid-trick/1.0.0}\n"
        'changelog: [{version: 1.0.0, date: "2026-12-02", changes: [Restated.]}]\n'
        "operations:\n"
        f"  - {{restate_error: REFUSE_NO_BID, summary: {quoted}, when: {quoted}, reason: {quoted}}}\n"
        f"  - {{restate_error: BID_OUT_OF_TURN, when: {quoted}}}\n"
    )


def test_a_restated_error_code_with_markup_renders_as_text_in_every_output(tmp_path: Path) -> None:
    # The restated words reach the rulebook's error table in every language verbatim:
    # escaped, never formatted (a format field in them must not be read as one).
    profile = tmp_path / "club-words.yaml"
    profile.write_text(_restated_profile(), encoding="utf-8")
    assert main(["spec", "check", str(profile)]) == 0
    for lang in ("en", "ru"):
        _outputs(tmp_path, ["rulebook", "--ruleset", str(profile), "--lang", lang], ("markdown", "html"), 0)
        assert "{__class__}" in (tmp_path / "out.html").read_text(encoding="utf-8")
    record = tmp_path / "stop.yaml"
    record.write_text(
        "format: 1\nheader: {ruleset: club-words/1.0.0, dealer: W}\n"
        "deals:\n  - {N: [10S, 10H, 7D], E: [7H, 9C, KD], S: [8C, QS, 8D], W: [7C, AD, 9S]}\n"
        "  - {N: [AS, 7S, 8S], E: [9H, KH, JH], S: [QH, QD, JD], W: [JC, AC, KC]}\n"
        "actions: N 10S E 7H S 8C W 7C N r3 N 10H E refuse\n",
        encoding="utf-8",
    )
    # An audit names a code and quotes its clause, not the code's words: it must still run and stay well formed.
    _outputs(tmp_path, ["audit", str(record), "--ruleset", str(profile)], ("text", "markdown", "json"), 1)
