"""``vitou fixtures check|export``: the conformance suite checked on the reference, or written as one document."""

from __future__ import annotations

import argparse

from ..rules.plurals import counted
from . import options as _o
from .output import check_status, emit, print_json


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    fixtures = sub.add_parser(
        "fixtures",
        help="the conformance suite",
        description="The conformance suite: checked on the reference, or written as one document.",
    ).add_subparsers(dest="fixtures_command", metavar="SUBCOMMAND")
    fixtures.required = True
    fcheck = fixtures.add_parser(
        "check",
        help="validate the suite: schema, ids, rule discipline, all pass on the reference, coverage",
        description="Validate a suite: each file against its schema, ids across files, the rule discipline, "
        "every case passing on the reference, and coverage of the clauses, error codes and events. Exit status: "
        "0 valid, 1 a case fails or a problem is found, 2 the suite or one of its files cannot be read.",
    )
    fcheck.add_argument("--suite", metavar="DIR|NAME", help=_o.SUITE_HELP)
    fcheck.add_argument("--ruleset", action="append", metavar="ID", help="check only these rulesets (repeatable)")
    fcheck.add_argument("--no-coverage", action="store_true", help="do not require full coverage")
    fcheck.add_argument(
        "--rules", action="append", metavar="FILE", help="also know this rules or profile file (repeatable)"
    )
    fcheck.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    fcheck.set_defaults(run=cmd_fixtures_check)
    fexport = fixtures.add_parser(
        "export",
        help="write the whole suite as one document, for harnesses in other languages",
        description="Write the whole suite as one JSON document: every case with its setup, actions and "
        "expected answers, for harnesses in other languages.",
    )
    fexport.add_argument("--suite", metavar="DIR|NAME", help=_o.SUITE_HELP)
    fexport.add_argument("--format", choices=("json",), default="json", help="the document's format (default: json)")
    fexport.add_argument("--output", "-o", metavar="FILE", help="write here instead of standard output")
    fexport.add_argument(
        "--force",
        action="store_true",
        help="replace the --output file if it exists (a link there is replaced, never its target)",
    )
    fexport.set_defaults(run=cmd_fixtures_export)


def cmd_fixtures_check(args: argparse.Namespace) -> int:
    return fixtures_check(args.suite, args.ruleset, args.rules, coverage=not args.no_coverage, fmt=args.format)


def fixtures_check(
    suite: str | None, rulesets: list[str] | None, rules: list[str] | None, *, coverage: bool, fmt: str
) -> int:
    from ..kit.suitecheck import check_suite
    from ..present.escape import text
    from ..rules.registry import load_rules_file

    extra = {r.name: r for r in (load_rules_file(f) for f in rules or [])}
    report = check_suite(suite, rulesets, extra=extra, coverage=coverage)
    status = check_status(report.ok, (p.code for p in report.problems))
    if fmt == "json":
        print_json(report.to_json())
        return status
    if report.suite is not None:
        files, cases = (
            counted(len(report.suite.files), "file", "files"),
            counted(len(report.suite.cases), "case", "cases"),
        )
        print(text(f"suite: {report.suite.root} ({files}, {cases})"))
    for name, n in report.checked.items():
        failed = sum(1 for f in report.failures if f.ruleset == name)
        print(f"{name}: {n - failed}/{n} cases pass on the reference")
        cov = report.coverage.get(name)
        if cov is not None:
            parts = ", ".join(f"{kind} {a}/{b}" for kind, (a, b) in cov.summary().items())
            print(f"  coverage: {parts}")
            for item, why in report.exempt.get(name, {}).items():
                short = why if len(why) <= 90 else why[:87].rsplit(" ", 1)[0] + "..."
                print(f"  out of reach by the rules: {item} ({short})")
    for f in report.failures:  # a case's words and a path: escaped
        print(text(f"FAIL {f.describe()}"))
    for p in report.problems:
        print(text(str(p)))
    failing = counted(len(report.failures), "failing case", "failing cases")
    print("OK" if report.ok else f"FAILED: {failing}, {counted(len(report.problems), 'problem', 'problems')}")
    return status


def cmd_fixtures_export(args: argparse.Namespace) -> int:
    return fixtures_export(args.suite, args.output, args.force)


def fixtures_export(suite: str | None, output: str | None, force: bool = False) -> int:
    from ..kit.export import export_suite
    from ..present.escape import json_dumps

    text = json_dumps(export_suite(suite), indent=1) + "\n"  # a suite's texts come from its files
    emit(text, output, force=force)
    return 0


__all__ = ["add_parsers", "fixtures_check", "fixtures_export"]
