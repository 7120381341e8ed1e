"""The ``vitou`` command: the parser assembled from the command groups, and exit statuses from errors."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .._version import __version__
from ..kit import outpaths as _out
from ..present.escape import text
from ..present.terminal import escaped_streams
from ..rules.errors import InputError, SetupError, VitouError
from . import adapter, analyze, audit, bench, certify, completion, desk, hunt, report, sim, spec, suite
from . import stop as _stop
from .completion import shipped_by_file

# Each group module imports only argparse and cheap modules at its top, and
# what a command needs inside the function that runs it: building the parser
# (vitou --help, --version, completion) never loads the rules, YAML or schemas.

Command = Callable[[argparse.Namespace], int]

GROUPS = (spec, suite, certify, report, bench, hunt, sim, analyze, audit, desk, adapter)
# The order `vitou --help` lists the commands in, and a usage error names them in.
# It predates the groups, which add their commands together; argparse keeps the
# order of adding, so _in_order puts this one back.
COMMANDS = (
    "spec",
    "rulesets",
    "match",
    "bench",
    "fixtures",
    "profile",
    "simulate",
    "analyze",
    "record",
    "audit",
    "rulebook",
    "desk",
    "fuzz",
    "mutants",
    "certify",
    "report",
    "adapter",
    "completion",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vitou",
        description="The rules of Vitou as data, the reference interpreter, and its conformance kit.",
    )
    parser.add_argument(
        "--version", action=_Version, help="print the versions of vitou, of the rules it ships and of the protocol"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for group in GROUPS:
        group.add_parsers(sub)
    completion.add_parsers(sub, parser)  # written from the whole tree, this parser included
    _in_order(sub, COMMANDS)
    return parser


class _Version(argparse.Action):
    """``--version``: the package, the shipped rulesets and the protocol, each found without loading them."""

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        sys.stdout.write(version_text())  # to stdout, as argparse's own version action does
        parser.exit()


def version_text() -> str:
    from ..protocol.client import PROTOCOL, PROTOCOL_MINOR

    try:
        rules, profiles = shipped_by_file()
        spec = f"{', '.join(rules)} (+ profiles: {', '.join(profiles)})"
    except VitouError as exc:  # an installation without its data still says its version
        spec = str(exc)
    return f"vitou {__version__}\nspec: {spec}\nprotocol: {PROTOCOL}.{PROTOCOL_MINOR}\n"


def _in_order(sub: argparse._SubParsersAction[argparse.ArgumentParser], names: Sequence[str]) -> None:
    """Lists the commands in ``names``' order, any other after them: the help's list and a usage error's choices."""
    rank = {n: i for i, n in enumerate(names)}

    def place(name: str) -> int:
        return rank.get(name, len(rank))

    sub._choices_actions.sort(key=lambda a: place(a.dest))  # stable: unlisted commands keep the order added
    parsers = sorted(sub.choices.items(), key=lambda item: place(item[0]))
    sub.choices.clear()
    sub.choices.update(parsers)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    return build_parser().parse_args(argv)


def main(argv: Sequence[str] | None = None, *, last: bool = False) -> int:
    """Run the vitou command; return its exit status (0 ok, 1 a negative verdict, 2 unusable input).

    ``last``: the process ends when it returns (the ``vitou`` command), so a
    signal after the command ends it at once instead of giving back the
    handlers there were before. Whatever the command prints goes through the
    one text escaper on its way out (``present/terminal.py``).
    """
    with escaped_streams():
        return _main(argv, last=last)


def _main(argv: Sequence[str] | None, *, last: bool) -> int:
    try:
        args = parse_args(argv)
    except SystemExit as exc:  # argparse has printed its message
        return int(exc.code) if isinstance(exc.code, int) else 2
    run: Command = args.run
    problem = _output_problem(args)
    if problem is not None:
        print(f"vitou: {text(problem)}", file=sys.stderr)
        return 2
    restore = _stop.install()
    try:
        return run(args)
    except InputError as exc:  # a message may quote a file's name, a record's or a profile's words: escaped
        for p in exc.problems:
            print(f"vitou: {text(str(p))}", file=sys.stderr)
        return 2
    except (VitouError, SetupError) as exc:
        print(f"vitou: {text(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM, once the command's finally blocks have run
        status, word = _stop.status(exc)
        print(f"vitou: {word}", file=sys.stderr)
        return status
    except Exception as exc:
        if _stop.received():
            # A signal came first: its raise can surface as another error from a library that caught it on the
            # way (hypothesis, fuzzing), and the stop it asked for is the answer, not an internal error.
            status, word = _stop.status(_stop.Stopped(_stop.received()[0]))
            print(f"vitou: {word}", file=sys.stderr)
            return status
        if os.environ.get("VITOU_DEBUG"):
            raise
        said = text(f"{type(exc).__name__}: {exc}")
        print(f"vitou: internal error: {said} (set VITOU_DEBUG=1 for details)", file=sys.stderr)
        return 3
    finally:
        if last:
            _stop.exit_at_once()
        else:  # called in a program (a test): its own handlers come back
            restore()


# The options that name files a command reads: its --output may be none of them.
INPUTS = ("file", "record", "files", "ruleset", "compare_ruleset", "suite", "merge", "rules", "rulebook")


def _output_problem(args: argparse.Namespace) -> str | None:
    """Why ``--output`` cannot be written, checked before any work: a file there is replaced only with
    ``--force``, and an input never is, ``--force`` or not (it would be lost before it is read)."""
    output = getattr(args, "output", None)
    if output is None:
        return None
    inputs: list[str] = []
    for name in INPUTS:
        value = getattr(args, name, None)
        inputs.extend([value] if isinstance(value, str) else value if isinstance(value, list) else [])
    clash = _out.input_clash(output, inputs, "--output")
    return clash or _out.file_problem(output, "--output", force=bool(getattr(args, "force", False)))


def console() -> None:
    sys.exit(main(last=True))


__all__ = ["build_parser", "console", "main", "shipped_by_file", "version_text"]
