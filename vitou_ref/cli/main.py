"""The ``vitou`` command: the parser assembled from the command groups, and exit statuses from errors."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .._version import __version__
from ..kit import outputs as _out
from ..rules.errors import InputError, SetupError, VitouError
from . import adapter, audit, bench, certify, hunt, report, spec, suite

Command = Callable[[argparse.Namespace], int]

GROUPS = (spec, suite, certify, report, bench, hunt, audit, adapter)
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
    "record",
    "audit",
    "rulebook",
    "fuzz",
    "mutants",
    "certify",
    "report",
    "adapter",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vitou",
        description="The rules of Vitou as data, the reference interpreter, and its conformance kit.",
    )
    parser.add_argument("--version", action="version", version=f"vitou {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for group in GROUPS:
        group.add_parsers(sub)
    _in_order(sub, COMMANDS)
    return parser


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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the vitou command; return its exit status (0 ok, 1 a negative verdict, 2 unusable input)."""
    try:
        args = parse_args(argv)
    except SystemExit as exc:  # argparse has printed its message
        return int(exc.code) if isinstance(exc.code, int) else 2
    run: Command = args.run
    output = getattr(args, "output", None)
    if output is not None:  # a generated document may replace its earlier self, but must have somewhere to go
        problem = _out.file_problem(output, "--output", overwrite_ok=True)
        if problem is not None:
            print(f"vitou: {problem}", file=sys.stderr)
            return 2
    _terminate_cleanly()
    try:
        return run(args)
    except InputError as exc:
        for p in exc.problems:
            print(f"vitou: {p}", file=sys.stderr)
        return 2
    except (VitouError, SetupError) as exc:
        print(f"vitou: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("vitou: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if os.environ.get("VITOU_DEBUG"):
            raise
        print(f"vitou: internal error: {type(exc).__name__}: {exc} (set VITOU_DEBUG=1 for details)", file=sys.stderr)
        return 3


def _terminate_cleanly() -> None:
    """SIGTERM ends the command through its ``finally`` blocks, so implementations it started end with it."""
    import signal
    import threading

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, stop)


def console() -> None:
    sys.exit(main())


__all__ = ["build_parser", "console", "main"]
