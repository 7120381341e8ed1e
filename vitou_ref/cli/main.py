"""The ``vitou`` command: the parser assembled from the command groups, and exit statuses from errors."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .._version import __version__
from ..kit import outpaths as _out
from ..rules.errors import InputError, SetupError, VitouError
from . import adapter, analyze, audit, bench, certify, completion, hunt, report, sim, spec, suite

# Each group module imports only argparse and cheap modules at its top, and
# what a command needs inside the function that runs it: building the parser
# (vitou --help, --version, completion) never loads the rules, YAML or schemas.

Command = Callable[[argparse.Namespace], int]

GROUPS = (spec, suite, certify, report, bench, hunt, sim, analyze, audit, adapter)
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


def shipped_by_file() -> tuple[list[str], list[str]]:
    """The shipped rules and profiles by name, from their files' names (``vitou-2p-1.0.0.yaml``: ``vitou-2p/1.0.0``).

    The registry reads each file's header, which takes YAML; a test holds the
    two to the same names.
    """
    from ..rules.data import data_dir

    spec = data_dir("spec")

    def names(directory: Path) -> list[str]:
        stems = sorted(p.name.removesuffix(".yaml") for p in directory.glob("*.yaml"))
        return ["/".join(stem.rsplit("-", 1)) for stem in stems]

    return names(spec), names(spec / "profiles")


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


__all__ = ["build_parser", "console", "main", "shipped_by_file", "version_text"]
