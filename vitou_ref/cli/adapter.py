"""The reference implementation served over protocol v1: ``python -m vitou_ref.adapter`` and ``vitou adapter``."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import TYPE_CHECKING

from .._version import __version__
from ..rules.errors import VitouError

if TYPE_CHECKING:
    from ..protocol.server import Server

DESCRIPTION = (
    "Serve the reference implementation over protocol v1: one JSON request a line on stdin, one answer a line on "
    "stdout, until a stop request or the end of the input. It serves every shipped ruleset; vitou certify starts "
    "the same server (python -m vitou_ref.adapter) when given no --impl."
)


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options of ``vitou adapter`` and of ``python -m vitou_ref.adapter``: one parser for both."""
    parser.add_argument(
        "--rules",
        action="append",
        metavar="FILE",
        help="also serve this rules or profile file, under its own id (repeatable; default: the shipped rulesets only)",
    )
    parser.add_argument(
        "--mutant",
        metavar="NAME",
        help="serve every version of vitou (or of le-truc, for its mutants) with one deliberate mistake that vitou mutants lists "
        "(default: none, the reference as it is)",
    )
    return parser


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    adapter = sub.add_parser(
        "adapter", help="serve the reference over protocol v1 on stdin/stdout", description=DESCRIPTION
    )
    add_arguments(adapter).set_defaults(run=cmd_adapter)


def cmd_adapter(args: argparse.Namespace) -> int:
    # An empty --rules has always meant no extra file here.
    return serve([f for f in args.rules or [] if f], args.mutant)


def build_server(rules_files: list[str] | None = None, mutant: str | None = None) -> Server:
    from ..protocol.server import Server
    from ..rules.registry import load_rules_file, load_ruleset, shipped_names

    rulesets = {name: load_ruleset(name) for name in shipped_names()}
    for path in rules_files or []:
        extra = load_rules_file(path)
        rulesets[extra.name] = extra  # a file with a shipped name replaces it
    if mutant is not None:
        from ..hunt.mutants import BY_NAME, build_mutant

        game = BY_NAME[mutant].game
        for name in [n for n in rulesets if n.partition("/")[0] == game]:
            # A deliberate mistake in every version of its game (vitou, le-truc), each served under its own name.
            rulesets[name] = build_mutant(rulesets[name], mutant)
    return Server(rulesets.values(), {"name": "vitou-ref", "version": __version__, "language": "python"})


def main(argv: list[str] | None = None) -> int:
    parser = add_arguments(argparse.ArgumentParser(prog="python -m vitou_ref.adapter", description=DESCRIPTION))
    return cmd_adapter(parser.parse_args(argv))


def serve(rules_files: list[str] | None, mutant: str | None) -> int:
    """Answer requests on stdin until it ends; 2 if the server cannot be built."""
    if mutant is not None:
        from ..hunt.mutants import BY_NAME

        if mutant not in BY_NAME:
            print(f"vitou adapter: no mutant {mutant!r} (mutants: {', '.join(BY_NAME)})", file=sys.stderr)
            return 2
    try:
        server = build_server(rules_files, mutant)
    except VitouError as exc:  # a file's name, a profile's words: escaped
        from ..present.escape import text

        print(f"vitou adapter: {text(str(exc))}", file=sys.stderr)
        return 2
    # Bytes in, bytes out: the server itself checks the encoding and bounds each line.
    try:
        return server.serve(sys.stdin.buffer, sys.stdout.buffer)
    except ConnectionError:  # BrokenPipeError, ConnectionResetError: the harness went away
        _drop_stdout()
        return 0
    except KeyboardInterrupt:
        return 0


def _drop_stdout() -> None:
    # The answer that could not be written is still buffered; at exit Python
    # would flush it again and print the failure. Point stdout at /dev/null.
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


__all__ = ["build_server", "main", "serve"]
