"""``vitou spec check|diff``, ``vitou rulesets``, ``vitou profile resolve|diff``: rules files, what they resolve to."""

from __future__ import annotations

import argparse
import sys

from ..rules.plurals import counted
from .output import UNREADABLE, check_status, print_json


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    spec = sub.add_parser(
        "spec",
        help="check rules and profile files",
        description="Check rules and profile files, and classify the change between two versions of the rules.",
    ).add_subparsers(dest="spec_command", metavar="SUBCOMMAND")
    spec.required = True
    check = spec.add_parser(
        "check",
        help="validate rules files: schema, then the checks a schema cannot make",
        description="Validate rules and profile files: the JSON Schema, then the checks a schema cannot make, "
        "then the version number against the shipped rulesets. Exit status: 0 every file is valid, 1 a file is "
        "not, 2 a file cannot be read (missing, not a regular file, not UTF-8).",
    )
    check.add_argument("files", nargs="+", metavar="FILE", help="rules or profile files to check")
    check.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text: a line per file and per problem; json: one document for all (default: text)",
    )
    check.set_defaults(run=cmd_spec_check)
    sdiff = spec.add_parser(
        "diff",
        help="classify the change between two versions as MAJOR, MINOR or PATCH, and judge the version bump",
        description="Classify the change from OLD to NEW as MAJOR, MINOR or PATCH by the spec's versioning policy, "
        "change by change, and say whether NEW's version number states it. A report: exit status 0 whatever "
        "the level.",
    )
    sdiff.add_argument("old", metavar="OLD", help="the earlier ruleset: id, id/version or file")
    sdiff.add_argument("new", metavar="NEW", help="the later ruleset: id, id/version or file")
    sdiff.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text: the changes clause by clause, then the verdict; json: one document (default: text)",
    )
    sdiff.set_defaults(run=cmd_spec_diff)

    rulesets = sub.add_parser(
        "rulesets",
        help="list the rulesets shipped with this package",
        description="List the rulesets shipped with this package, a line each: name, kind (rules, or the profile "
        "of a base), content hash and title.",
    )
    rulesets.set_defaults(run=cmd_rulesets)

    prof = sub.add_parser(
        "profile",
        help="variant profiles",
        description="Variant profiles: the complete ruleset a profile resolves to, and what differs between two.",
    ).add_subparsers(dest="profile_command", metavar="SUBCOMMAND")
    prof.required = True
    presolve = prof.add_parser(
        "resolve",
        help="print the complete ruleset a profile resolves to",
        description="Print the complete ruleset a profile (or any ruleset) resolves to: as a rules file, or as "
        "JSON with its name and content hash.",
    )
    presolve.add_argument("ruleset", metavar="ID|FILE", help="a shipped ruleset (id or id/version) or a file")
    presolve.add_argument(
        "--format",
        choices=("yaml", "json"),
        default="yaml",
        help="yaml: the ruleset as a rules file; json: with its name and hash alongside (default: yaml)",
    )
    presolve.set_defaults(run=cmd_profile_resolve)
    pdiff = prof.add_parser(
        "diff",
        help="what differs between two rulesets, clause by clause",
        description="What differs between two rulesets (versions, profiles or files), clause by clause.",
    )
    pdiff.add_argument("a", metavar="A", help="the first ruleset: id, id/version or file")
    pdiff.add_argument("b", metavar="B", help="the second ruleset: id, id/version or file")
    pdiff.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    pdiff.set_defaults(run=cmd_profile_diff)


def cmd_spec_check(args: argparse.Namespace) -> int:
    return spec_check(args.files, args.format)


def spec_check(files: list[str], fmt: str) -> int:
    import dataclasses

    from ..rules.check import check_file, warning_line
    from ..rules.versioning import version_problems

    results = []
    for f in files:
        r = check_file(f)
        if r.ok and r.ruleset is not None:  # a valid file: does its version say enough against the shipped ones?
            r = dataclasses.replace(r, problems=version_problems(f, r.ruleset))
        results.append(r)
    if fmt == "json":
        print_json(
            [
                {
                    "file": r.path,
                    "ok": r.ok,
                    "ruleset": r.ruleset.name if r.ruleset else None,
                    "hash": r.ruleset.content_hash if r.ruleset else None,
                    "problems": [p.to_json() for p in r.problems],
                    "warnings": [p.to_json() for p in r.warnings],
                }
                for r in results
            ]
        )
    else:
        from ..present.escape import text

        for r in results:  # a file's name, a profile's words: every line escaped
            for w in r.warnings:  # a warning never fails the check: the file is valid, its words say more than it does
                print(text(warning_line(w)))
            if r.ok and r.ruleset is not None:
                rs = r.ruleset
                said = f"{rs.name}, {len(rs.clauses)} clauses, {len(rs.errors)} error codes, {rs.content_hash}"
                print(text(f"ok: {r.path}: {said}"))
            else:  # a file that could not be read has no findings: what went wrong goes to stderr
                out = sys.stderr if any(p.code in UNREADABLE for p in r.problems) else sys.stdout
                for p in r.problems:
                    print(text(str(p)), file=out)
                print(text(f"FAILED: {r.path}: {counted(len(r.problems), 'problem', 'problems')}"), file=out)
    return check_status(all(r.ok for r in results), (p.code for r in results for p in r.problems))


def cmd_spec_diff(args: argparse.Namespace) -> int:
    return spec_diff(args.old, args.new, args.format)


def spec_diff(old: str, new: str, fmt: str) -> int:
    """The change from OLD to NEW classified; a report, so 0 whatever the level."""
    from ..rules.registry import load_ruleset
    from ..rules.versioning import bump_level, classify, render_classification

    a, b = load_ruleset(old), load_ruleset(new)
    cls = classify(a, b)
    if fmt == "json":
        bump = bump_level(a.version, b.version)
        print_json(
            {
                "a": {"name": a.name, "hash": a.content_hash},
                "b": {"name": b.name, "hash": b.content_hash},
                "level": cls.level.value,
                "bump": bump.value,
                "changes": [c.to_json() for c in cls.changes],
                "understated": bump < cls.level,
            }
        )
    else:
        from ..present.escape import text

        sys.stdout.write(render_classification(a, b, cls, text))
    return 0


def cmd_rulesets(args: argparse.Namespace) -> int:
    return list_rulesets()


def list_rulesets() -> int:
    from ..present.escape import text
    from ..rules.registry import load_ruleset, shipped

    for name, _path in shipped().items():
        rs = load_ruleset(name)
        kind = f"profile of {rs.extends}" if rs.extends else "rules"
        print("\t".join(text(field) for field in (name, kind, rs.content_hash, rs.title)))  # tabs between, none in
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
        from ..present.escape import text

        sys.stdout.write(render_diff(d, text))
    return 0


__all__ = ["add_parsers", "list_rulesets", "profile_diff", "profile_resolve", "spec_check", "spec_diff"]
