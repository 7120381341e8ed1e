"""The reference implementation served over protocol v1: ``python -m vitou_ref.adapter``."""

from __future__ import annotations

import argparse
import io
import sys

from . import __version__
from ._errors import VitouError
from ._protocol import Server
from ._registry import load_rules_file, load_ruleset, shipped_names


def build_server(rules_file: str | None = None) -> Server:
    rulesets = {name: load_ruleset(name) for name in shipped_names()}
    if rules_file is not None:
        extra = load_rules_file(rules_file)
        rulesets[extra.name] = extra  # a file with a shipped name replaces it
    return Server(rulesets.values(), {"name": "vitou-ref", "version": __version__, "language": "python"})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vitou_ref.adapter", description=__doc__)
    parser.add_argument("--rules", metavar="FILE", help="also serve this rules or profile file, under its own id")
    args = parser.parse_args(argv)
    try:
        server = build_server(args.rules)
    except VitouError as exc:
        print(f"vitou adapter: {exc}", file=sys.stderr)
        return 2
    inp = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", write_through=False)
    try:
        return server.serve(inp, out)
    except (BrokenPipeError, KeyboardInterrupt):
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
