"""The options under test, read from the vitou parser itself, and the check that the battery's table reaches each.

Every parser of the tree is visited, nested subcommands included; an action takes a value unless its nargs is
0 (flags, --help, --version) or it is a parser of subcommands. A value-taking action is named by its longest
option string, or by its dest for a positional.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Iterator
from dataclasses import dataclass

from cli_battery_table import Cmd, Opt, Role

SLOT = "{}"


@dataclass(frozen=True)
class Target:
    command: str  # the command's words: "simulate", "spec check"
    key: str  # "--output", or a positional's dest
    action: argparse.Action

    @property
    def slots(self) -> int:
        """How many times the value is given: twice for nargs=2, once for any other."""
        return self.action.nargs if isinstance(self.action.nargs, int) else 1

    def __str__(self) -> str:
        return f"vitou {self.command} {self.key}"


def parsers(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[str, argparse.ArgumentParser, bool]]:
    """Each parser of the tree: its command's words, the parser, and whether it runs a command (has no subcommands)."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    yield " ".join(path), parser, not subs
    for sub in subs:
        for name, child in sub.choices.items():
            yield from parsers(child, (*path, name))


def key_of(action: argparse.Action) -> str:
    return max(action.option_strings, key=len) if action.option_strings else action.dest


def targets(parser: argparse.ArgumentParser) -> list[Target]:
    """Every action that takes a value, in every parser of the tree."""
    found = []
    for command, p, _ in parsers(parser):
        for action in p._actions:
            if action.nargs == 0 or isinstance(action, argparse._SubParsersAction):
                continue
            found.append(Target(command, key_of(action), action))
    return found


def _numeric(action: argparse.Action) -> bool:
    """Whether the option's type reads numbers: what it makes of "1" is an int or a float."""
    if action.type is None or not callable(action.type):
        return False
    try:
        value = action.type("1")
    except (argparse.ArgumentTypeError, ValueError, TypeError):
        return False
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def context(target: Target, table: dict[str, Cmd]) -> list[str]:
    """The command line of a target's runs, in words, with SLOT where each of its values goes."""
    cmd = table[target.command]
    opt = cmd.opts[target.key]
    text = opt.context or " ".join(
        w for w in (target.command, cmd.base, target.key, " ".join([SLOT] * target.slots)) if w
    )
    return shlex.split(text.replace("{python}", sys.executable))


def fill(words: list[str], values: list[str]) -> list[str]:
    """The context's slots filled in order; one value fills them all."""
    out, given = [], iter(values)
    for w in words:
        out.append((next(given) if len(values) > 1 else values[0]) if w == SLOT else w)
    return out


def good_values(target: Target, opt: Opt) -> list[str]:
    if opt.role is Role.CHOICE:
        return [str(next(iter(target.action.choices or ["?"])))] * target.slots
    return shlex.split(opt.good.replace("{python}", sys.executable))


def coverage_problems(parser: argparse.ArgumentParser, table: dict[str, Cmd]) -> list[str]:
    """Why the battery does not reach every command and option that takes a value; empty when it does."""
    problems = []
    found = targets(parser)
    commands = {command for command, _, runs in parsers(parser) if runs and command}
    for command in sorted(commands - table.keys()):
        problems.append(f"vitou {command}: a command with no context in the battery's table")
    for t in found:
        opt = table.get(t.command, Cmd("")).opts.get(t.key)
        if opt is None:
            problems.append(f"{t}: takes a value but is not in the battery's table")
            continue
        problems += [f"{t}: {p}" for p in _entry_problems(t, opt, table)]
    known = {(t.command, t.key) for t in found}
    for command, cmd in table.items():
        if command not in commands and not any(c == command for c, _ in known):
            problems.append(f"vitou {command}: in the battery's table, but the parser has no such command")
        for key in cmd.opts:
            if (command, key) not in known:
                problems.append(f"vitou {command} {key}: in the battery's table, but the parser has no such option")
    return problems


def _entry_problems(t: Target, opt: Opt, table: dict[str, Cmd]) -> list[str]:
    """A table entry that does not say what the parser says, or whose context cannot carry the value."""
    problems = []
    if (t.action.choices is not None) != (opt.role is Role.CHOICE):
        problems.append(f"argparse choices {t.action.choices!r}, but the table says {opt.role.value}")
    if _numeric(t.action) and opt.role is not Role.NUMBER:
        problems.append(f"its type reads numbers, but the table says {opt.role.value}")
    words = context(t, table)
    if words.count(SLOT) != t.slots:
        problems.append(f"its context has {words.count(SLOT)} slots for {t.slots} values: {words}")
    if len(good_values(t, opt)) not in (1, t.slots):
        problems.append(f"its good value {opt.good!r} is not {t.slots} words")
    return problems


def named_outputs(argv: list[str], command: str, parser: argparse.ArgumentParser, table: dict[str, Cmd]) -> list[str]:
    """The paths the command line names for output (each OUTPUT option's value, or its default when left out)."""
    opts = table[command].opts if command in table else {}
    outputs = [t.action for t in targets(parser) if t.command == command and t.key in opts]
    outputs = [a for a in outputs if opts[key_of(a)].role is Role.OUTPUT]  # one missing: the coverage test says so
    named: list[str] = []
    for action in outputs:
        given = [argv[i + 1] for i, w in enumerate(argv[:-1]) if w in action.option_strings]
        default = [action.default] if isinstance(action.default, str) else []
        named += given or default
    return named
