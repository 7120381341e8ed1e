"""Every option of vitou that takes a value, read from the parser, fed a battery of hostile values.

Each run must end (bounded in time), exit 0, 1 or 2 (3 is a bug in vitou), print no traceback and no raw
control character, and write nothing but where an output option pointed. A value outside an option's choices,
and a number in non-ASCII digits, must be refused (2). The default run feeds every option a few values of the
battery in turn; the slow run feeds every option all of them. Runs are in process, through the entry point that
maps errors to exit statuses, in a sandbox of their own; a few are run again as processes to show that the two
agree.
"""

from __future__ import annotations

import argparse
import copy
import functools
import shlex
import time

import pytest
from cli_battery_checks import BATTERY, CONTROL_NAME, HOSTILE_FILES, Failure, Value, problems, report, show
from cli_battery_parser import Target, context, coverage_problems, fill, good_values, named_outputs, parsers, targets
from cli_battery_run import Hang, Outcome, run_in_process, run_process, sandbox, snapshot, strays
from cli_battery_table import TABLE, Cmd, Opt, Role
from helpers import ROOT

from vitou_ref.cli import build_parser

PARSER = build_parser()
TARGETS = targets(PARSER)
COMMANDS = sorted({t.command for t in TARGETS} | {c for c in TABLE if TABLE[c].opts})
TIMEOUT = 20.0  # seconds per run: the slowest good run (bench harness, the whole suite certified) takes about 3
FAST = 3  # values of the battery per option in the default run, taken in turn along the options


@functools.cache
def materials() -> dict[str, bytes]:
    """The files a context names, in every run's working directory; the saved counts and report made once."""
    rules = (ROOT / "spec" / "vitou-1.1.0.yaml").read_bytes()
    made = {
        "rules.yaml": rules,
        "old.yaml": (ROOT / "spec" / "vitou-1.0.0.yaml").read_bytes(),
        "profile.yaml": (ROOT / "spec" / "profiles" / "vitou-partners-tie-1.0.0.yaml").read_bytes(),
        "record.yaml": (ROOT / "conformance" / "disputes" / "03-raise-from-last.yaml").read_bytes(),
        "suite.yaml": (ROOT / "tests" / "data" / "small_suite.yaml").read_bytes(),
        "expect.yaml": b"VT-0002: a known failure\n",
        "rulebook.html": b"<!doctype html><title>rulebook</title>\n",
        CONTROL_NAME: rules,
    }
    for argv, name in (
        (["simulate", "--matches", "2", "--save", "counts.json"], "counts.json"),
        (["certify", "--only", "VT-0001", "--report", "report.jsonl"], "report.jsonl"),
    ):
        with sandbox(made, HOSTILE_FILES) as box:
            outcome = run_in_process(box, argv, [name], TIMEOUT)
            assert outcome.status == 0, outcome
            made[name] = (box.work / name).read_bytes()
    return made


def _run(target: Target, values: list[str], value: Value | None) -> Failure | None:
    """The target's context run with ``values``: the battery's ``value``, or (None) a good one."""
    opt = TABLE[target.command].opts[target.key]
    return _judge(target.command, context(target, TABLE), values, opt.role, value, opt.good_status)


def _judge(
    command: str, words: list[str], values: list[str], role: Role, value: Value | None, good: tuple[int, ...]
) -> Failure | None:
    with sandbox(materials(), HOSTILE_FILES) as box:
        argv = fill(words, [box.expand(v) for v in values])
        outcome = run_in_process(box, argv, named_outputs(argv, command, PARSER, TABLE), TIMEOUT)
    kinds = problems(outcome, role, value, TIMEOUT)
    if value is None and outcome.status not in good:
        kinds.append(f"the good value exits {outcome.status}, not {' or '.join(map(str, good))}")
    return Failure(outcome, tuple(kinds), value.label if value else "good value") if kinds else None


def _battery(command: str, pick: int | None) -> None:
    """Every option of the command fed the battery (``pick`` values of it each, in turn, or all); fails naming
    every failing run."""
    failures: list[Failure] = []
    runs, start = 0, time.monotonic()
    for i, target in enumerate(TARGETS):
        if target.command != command or not _covered(target):
            continue
        chosen = BATTERY if pick is None else [BATTERY[(i * pick + j) % len(BATTERY)] for j in range(pick)]
        for value in chosen:
            failure = _run(target, [value.text], value)
            runs += 1
            if failure is not None:
                failures.append(failure)
    print(f"vitou {command}: {runs} runs in {time.monotonic() - start:.1f}s, {len(failures)} failed")
    _fail_naming(failures)


def _fail_naming(failures: list[Failure]) -> None:
    """The failing runs grouped by kind, one argv a line: the message, without pytest's dump of the values."""
    if failures:
        pytest.fail(report(failures), pytrace=False)


def _covered(target: Target) -> bool:
    """In the table: the others fail the coverage test, not the battery."""
    return target.key in TABLE.get(target.command, Cmd("")).opts


def test_the_battery_reaches_every_option_that_takes_a_value(capsys: pytest.CaptureFixture[str]) -> None:
    missing = coverage_problems(PARSER, TABLE)
    covered = sum(1 for t in TARGETS if _covered(t))
    with capsys.disabled():
        print(
            f"\ncli battery: {covered} of {len(TARGETS)} options that take a value covered, in {len(COMMANDS)} commands"
        )
    assert not missing, "\n".join(missing)
    assert covered == len(TARGETS)


def test_an_option_added_without_an_entry_fails_the_coverage_check() -> None:
    parser = copy.deepcopy(build_parser())
    before = set(coverage_problems(parser, TABLE))  # compared with, so that this test says only what it adds
    sub = {c: p for c, p, _ in parsers(parser)}
    sub["simulate"].add_argument("--frobnicate", metavar="N", help="an option added tomorrow")
    sub["profile diff"].add_argument("--width", type=int, help="a nested one")
    sub["audit"].add_argument("--tone", choices=("calm", "stern"), help="a choices one")
    assert sorted(set(coverage_problems(parser, TABLE)) - before) == [
        "vitou audit --tone: takes a value but is not in the battery's table",
        "vitou profile diff --width: takes a value but is not in the battery's table",
        "vitou simulate --frobnicate: takes a value but is not in the battery's table",
    ]
    assert set(coverage_problems(build_parser(), TABLE)) == before  # the copy changed, never the parser under test


def test_a_command_added_or_an_entry_that_lies_fails_the_coverage_check() -> None:
    parser = copy.deepcopy(build_parser())
    before = set(coverage_problems(parser, TABLE))
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    subs.add_parser("newthing").add_argument("thing")
    table = dict(TABLE)
    table["audit"] = Cmd(TABLE["audit"].base, {**TABLE["audit"].opts, "--lang": Opt(Role.TEXT, "en")})
    table["gone"] = Cmd("")
    assert sorted(set(coverage_problems(parser, table)) - before) == [
        "vitou audit --lang: argparse choices ('en', 'fr', 'pt', 'ru'), but the table says text",
        "vitou gone: in the battery's table, but the parser has no such command",
        "vitou newthing thing: takes a value but is not in the battery's table",
        "vitou newthing: a command with no context in the battery's table",
    ]


@pytest.mark.parametrize("command", sorted(TABLE))
def test_every_command_runs_its_base(command: str) -> None:
    # A base refused for a reason of its own would make its options' battery pass for nothing.
    words = shlex.split(f"{command} {TABLE[command].base}")
    failure = _judge(command, words, [], Role.TEXT, None, (0, 1))
    _fail_naming([failure] if failure else [])


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
def test_every_context_runs_with_a_good_value(command: str) -> None:
    # The same for each option's own context: the value under test is the only thing wrong in its runs.
    failures = []
    for target in TARGETS:
        if target.command == command and _covered(target):
            opt = TABLE[command].opts[target.key]
            failure = _run(target, good_values(target, opt), None)
            failures += [failure] if failure else []
    _fail_naming(failures)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_refuses_hostile_values_cleanly(command: str) -> None:
    _battery(command, FAST)


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_refuses_the_whole_battery_cleanly(command: str) -> None:
    _battery(command, None)


# In process and as a process, the same runs end alike: the same status, output, files and failures.
AGREE = [
    ["record", "record.yaml", "--to", "json"],
    ["spec", "check", "latin1.yaml"],
    ["simulate", "--matches", "2", "--seed", "١٢"],
    ["simulate", "--matches", "2", "--scheduler", ""],
    ["profile", "resolve", "\x1b]0;x\x07"],
    ["report", "fifo"],
    ["certify", "--only", "VT-0001", "--report", "link-out"],
    ["audit", "record.yaml", "--output", CONTROL_NAME],
]


@pytest.mark.parametrize("argv", AGREE, ids=[show(" ".join(a), 40) for a in AGREE])
def test_a_run_in_process_ends_as_the_process_does(argv: list[str]) -> None:
    outcomes: list[Outcome] = []
    texts: list[tuple[bytes, bytes]] = []
    for runner in (run_in_process, run_process):
        with sandbox(materials(), HOSTILE_FILES) as box:
            outcome = runner(box, argv, named_outputs(argv, argv[0], PARSER, TABLE), TIMEOUT)
            root = str(box.root).encode()
            texts.append((outcome.out.replace(root, b"<sandbox>"), outcome.err.replace(root, b"<sandbox>")))
        outcomes.append(outcome)
    inner, outer = outcomes
    assert (inner.status, inner.stray) == (outer.status, outer.stray), texts
    assert texts[0] == texts[1]
    assert problems(inner, Role.TEXT, None, TIMEOUT) == problems(outer, Role.TEXT, None, TIMEOUT)


# ------------------------------------------------------------------ the harness itself


def test_the_checks_see_each_kind_of_failure() -> None:
    bad = Outcome(("x",), 3, "\x1b]0;t\x07 \u202e".encode(), b"Traceback (most recent call last):\n", 0.1, ("work/x",))
    assert problems(bad, Role.NUMBER, BATTERY[1], TIMEOUT) == [
        "exit status 3",
        "raw controls on stdout (U+0007, U+001B, U+202E)",
        "a traceback on stderr",
        "a file written, changed or removed outside the named outputs",
    ]
    accepted = Outcome(("x",), 0, b"", b"", 0.1, ())
    assert problems(accepted, Role.NUMBER, BATTERY[1], TIMEOUT) == ["a number in non-ASCII digits accepted"]
    assert problems(accepted, Role.CHOICE, BATTERY[5], TIMEOUT) == ["a value outside its choices accepted"]
    assert problems(Outcome(("x",), None, b"", b"", 20, ()), Role.TEXT, None, 20) == ["no end within 20s"]


def test_the_snapshot_sees_a_write_through_a_link_but_allows_a_named_output() -> None:
    with sandbox(materials(), HOSTILE_FILES) as box:
        before = snapshot(box.root)
        (box.work / "link-out").write_text("changed")  # follows the link: the outside file changes
        (box.work / "out.txt").write_text("named")
        assert strays(before, snapshot(box.root), ["work/out.txt"]) == ["outside/target.yaml"]


def test_a_run_blocked_on_a_fifo_is_ended_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def blocks(argv: object) -> int:
        with open("fifo", "rb") as f:  # no writer ever comes
            f.read()
        return 0

    monkeypatch.setattr("cli_battery_run.main", blocks)
    with sandbox(materials(), HOSTILE_FILES) as box:
        outcome = run_in_process(box, ["anything"], [], 0.5)
    assert outcome.status is None and outcome.seconds < 5
    assert Hang.__mro__[1] is BaseException  # no command's except Exception can swallow the deadline
