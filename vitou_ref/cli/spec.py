"""``vitou spec check``, ``vitou rulesets`` and ``vitou profile resolve|diff``: the rules files and what they resolve to."""

from __future__ import annotations

import argparse
import sys

from .output import print_json


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    spec = sub.add_parser("spec", help="check rules and profile files").add_subparsers(
        dest="spec_command", metavar="SUBCOMMAND"
    )
    spec.required = True
    check = spec.add_parser("check", help="validate rules files: schema, then the checks a schema cannot make")
    check.add_argument("files", nargs="+", metavar="FILE", help="rules or profile files to check")
    check.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text: a line per file and per problem; json: one document for all (default: text)",
    )
    check.set_defaults(run=cmd_spec_check)

    rulesets = sub.add_parser("rulesets", help="list the rulesets shipped with this package")
    rulesets.set_defaults(run=cmd_rulesets)

    prof = sub.add_parser("profile", help="variant profiles").add_subparsers(
        dest="profile_command", metavar="SUBCOMMAND"
    )
    prof.required = True
    presolve = prof.add_parser("resolve", help="print the complete ruleset a profile resolves to")
    presolve.add_argument("ruleset", metavar="ID|FILE", help="a shipped ruleset (id or id/version) or a file")
    presolve.add_argument(
        "--format",
        choices=("yaml", "json"),
        default="yaml",
        help="yaml: the ruleset as a rules file; json: with its name and hash alongside (default: yaml)",
    )
    presolve.set_defaults(run=cmd_profile_resolve)
    pdiff = prof.add_parser("diff", help="what differs between two rulesets, clause by clause")
    pdiff.add_argument("a", metavar="A", help="the first ruleset: id, id/version or file")
    pdiff.add_argument("b", metavar="B", help="the second ruleset: id, id/version or file")
    pdiff.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    pdiff.set_defaults(run=cmd_profile_diff)


def cmd_spec_check(args: argparse.Namespace) -> int:
    return spec_check(args.files, args.format)


def spec_check(files: list[str], fmt: str) -> int:
    from ..rules.check import check_file

    results = [check_file(f) for f in files]
    if fmt == "json":
        print_json(
            [
                {
                    "file": r.path,
                    "ok": r.ok,
                    "ruleset": r.ruleset.name if r.ruleset else None,
                    "hash": r.ruleset.content_hash if r.ruleset else None,
                    "problems": [p.to_json() for p in r.problems],
                }
                for r in results
            ]
        )
    else:
        for r in results:
            if r.ok and r.ruleset is not None:
                rs = r.ruleset
                print(
                    f"ok: {r.path}: {rs.name}, {len(rs.clauses)} clauses, {len(rs.errors)} error codes, {rs.content_hash}"
                )
            else:
                for p in r.problems:
                    print(str(p))
                print(f"FAILED: {r.path}: {len(r.problems)} problem(s)")
    return 0 if all(r.ok for r in results) else 1


def cmd_rulesets(args: argparse.Namespace) -> int:
    return list_rulesets()


def list_rulesets() -> int:
    from ..rules.registry import load_ruleset, shipped

    for name, _path in shipped().items():
        rs = load_ruleset(name)
        kind = f"profile of {rs.extends}" if rs.extends else "rules"
        print(f"{name}\t{kind}\t{rs.content_hash}\t{rs.title}")
    return 0


def cmd_profile_resolve(args: argparse.Namespace) -> int:
    return profile_resolve(args.ruleset, args.format)


def profile_resolve(ruleset: str, fmt: str) -> int:
    from ..rules.registry import load_ruleset

    rules = load_ruleset(ruleset)
    doc = rules.to_json()
    if fmt == "json":
        print_json({"name": rules.name, "hash": rules.content_hash, "ruleset": doc})
    else:
        from ..rules.yamlout import dump

        sys.stdout.write(f"# {rules.name}, resolved; content hash {rules.content_hash}\n")
        sys.stdout.write(dump(doc, flow=False))
    return 0


def cmd_profile_diff(args: argparse.Namespace) -> int:
    return profile_diff(args.a, args.b, args.format)


def profile_diff(a: str, b: str, fmt: str) -> int:
    from ..rules.diff import diff_rulesets, render_diff
    from ..rules.registry import load_ruleset

    d = diff_rulesets(load_ruleset(a), load_ruleset(b))
    if fmt == "json":
        print_json(d.to_json())
    else:
        sys.stdout.write(render_diff(d))
    return 0


__all__ = ["add_parsers", "list_rulesets", "profile_diff", "profile_resolve", "spec_check"]
