"""``vitou report``: the JSON-lines reports of ``vitou certify`` compared, as a summary, a page, a diff or badges."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from ..kit.outpaths import dir_problem, file_problem, input_clash
from ..rules.errors import InputError, OutputFailed
from ..rules.problems import Problem
from .output import emit

if TYPE_CHECKING:  # the reading and comparing is imported when a command runs: building the parser stays cheap
    from ..results.matrix import Comparison
    from ..results.read import Report

FORMATS = ("text", "markdown", "json", "html")


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rep = sub.add_parser(
        "report",
        help="compare the reports of vitou certify --report: a summary, an HTML page, a diff, badges",
        description="Read the JSON-lines reports that vitou certify --report writes (several implementations, "
        "rulesets and runs) and compare them. Exit status: 0 done; 1 with --diff, a case that passed in OLD "
        "does not in NEW; 2 a report is not usable, or incomplete (then what it has is used all the same).",
    )
    rep.add_argument("files", nargs="+", metavar="FILE.jsonl", help="reports of vitou certify --report")
    rep.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    rep.add_argument(
        "-o",
        "--output",
        dest="out",
        metavar="FILE_OR_DIR",
        help="write there instead of standard output; for html, a directory gets index.html",
    )
    rep.add_argument(
        "--rulebook",
        metavar="FILE",
        help="html: the page of vitou rulebook --format html that clause ids link to "
        "(default: rulebook.html beside the page, if there is one)",
    )
    rep.add_argument("--diff", action="store_true", help="compare two reports, OLD NEW, case by case")
    rep.add_argument("--badge", metavar="DIR", help="write a shields.io endpoint badge per implementation and ruleset")
    rep.add_argument(
        "--force",
        action="store_true",
        help="replace the --output file if it exists; and compare reports of different suites or rules "
        "(kept apart, never merged)",
    )
    rep.set_defaults(run=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    if args.diff and args.badge:
        return _usage("--diff and --badge cannot go together")
    if args.diff:
        if len(args.files) != 2:
            return _usage(f"--diff compares two reports, OLD and NEW; {len(args.files)} given")
        if args.format == "html" or args.rulebook:
            return _usage("--diff writes text, markdown or json")
        return report_diff(args.files[0], args.files[1], args.format, args.out, args.force)
    if args.badge:
        return report_badges(args.badge, args.files, args.force)
    if args.rulebook and args.format != "html":
        return _usage("--rulebook is for --format html")
    return report(args.files, args.format, args.out, args.rulebook, args.force)


def _usage(message: str) -> int:
    from ..present import escape

    print(f"vitou report: {escape.text(message)}", file=sys.stderr)  # a path as given: escaped
    return 2


def _read(files: list[str], force: bool, doing: str) -> list[Report]:
    """The reports, each checked against itself and the suite it claims; refused (InputError) when one disagrees,
    or when their suites or rules differ, unless forced; then said on stderr."""
    from ..results.check import check_reports
    from ..results.read import mismatches, read_reports

    reports = read_reports(files)
    check_reports(reports)
    problems = list(mismatches(reports, doing))
    if problems and not force:
        hint = Problem(
            "REPORT_FORCE", f"give --force to have them {doing} all the same, each kept apart", "vitou report"
        )
        raise InputError([*problems, hint])
    from ..present import escape

    for p in problems:
        print(f"vitou report: note (--force): {escape.text(str(p))}", file=sys.stderr)
    return reports


def _file_problem(path: str, inputs: list[str], force: bool) -> str | None:
    """Why ``--output`` cannot take the file: one of the reports read (never, even forced), or a file already there
    (unless forced)."""
    return input_clash(path, inputs, "--output") or file_problem(path, "--output", force=force)


def _incomplete(reports: list[Report]) -> bool:
    """Each incomplete report said on stderr; True if there is one (the exit status is then 2)."""
    notices = [n for n in (r.notice() for r in reports) if n is not None]
    from ..present import escape

    for n in notices:
        print(f"vitou report: {escape.text(str(n))}", file=sys.stderr)
    return bool(notices)


def report(files: list[str], fmt: str, out: str | None, rulebook: str | None, force: bool) -> int:
    """The summary of the reports, then where they differ; exit 2 if one is incomplete (it is still used)."""
    from ..results.matrix import compare

    page, make_dir = _target(out, fmt == "html")
    if out is not None:
        problem = dir_problem(out, "--output") if make_dir else None
        if problem is None and page is not None and (not make_dir or os.path.isdir(out)):
            problem = _file_problem(page, [*files, *([rulebook] if rulebook else [])], force)
        if problem is not None:
            return _usage(problem)
    if rulebook is not None and not os.path.isfile(rulebook):
        return _usage(f"--rulebook: {rulebook}: no such file")
    reports = _read(files, force, "merged")
    text = _render(compare(reports), fmt, page, rulebook)
    if make_dir and out is not None:
        try:
            os.makedirs(out, exist_ok=True)
        except OSError as exc:
            raise OutputFailed(f"--output: {out}: {exc.strerror or exc}") from None
    emit(text, page, force=force)
    if page is not None:
        from ..present import escape

        print(f"wrote {escape.text(page)}", file=sys.stderr)
    return 2 if _incomplete(reports) else 0


def _target(out: str | None, html: bool) -> tuple[str | None, bool]:
    """Where the output goes, and whether it goes into a directory (an html page given a directory: index.html)."""
    if out is None:
        return None, False
    if html and (os.path.isdir(out) or out.endswith(("/", os.sep)) or not out.lower().endswith((".html", ".htm"))):
        return os.path.join(out, "index.html"), True
    return out, False


def _render(c: Comparison, fmt: str, page: str | None, rulebook: str | None) -> str:
    if fmt == "html":
        from ..results.page import RULEBOOK_NAME, render_page
        from ..results.page import rulebook as load_rulebook

        if rulebook is None and page is not None:
            beside = os.path.join(os.path.dirname(os.path.abspath(page)), RULEBOOK_NAME)
            rulebook = beside if os.path.isfile(beside) else None
        book = load_rulebook(rulebook, page) if rulebook else None
        if rulebook and (book is None or not any(a.startswith("clause-") for a in book.anchors)):
            from ..present import escape

            said = f"--rulebook: {rulebook} has no clause to link to"
            print(f"vitou report: {escape.text(said)}", file=sys.stderr)
        return render_page(c, book)
    from ..present.escape import json_dumps
    from ..results import text as results_text

    if fmt == "json":
        return json_dumps(results_text.render_json(c), indent=2, ascii=True) + "\n"
    if fmt == "markdown":
        return results_text.render_markdown(c)
    return results_text.render_text(c)


def report_diff(old: str, new: str, fmt: str, out: str | None, force: bool) -> int:
    """OLD against NEW case by case: exit 1 when a case that passed in OLD does not in NEW, 2 if one is incomplete."""
    from ..present.escape import json_dumps
    from ..results import diff as results_diff

    if out is not None:
        problem = _file_problem(out, [old, new], force)
        if problem is not None:
            return _usage(problem)
    if os.path.realpath(old) == os.path.realpath(new):
        return _usage("--diff: OLD and NEW are the same file")
    before, after = _read([old, new], force, "compared")
    d = results_diff.diff(before, after)
    if fmt == "json":
        text = json_dumps(results_diff.render_json(d), indent=2, ascii=True) + "\n"
    else:
        text = results_diff.render_markdown(d) if fmt == "markdown" else results_diff.render_text(d)
    emit(text, out, force=force)
    if _incomplete([before, after]):
        return 2
    return 1 if d.regressed else 0


def report_badges(directory: str, files: list[str], force: bool) -> int:
    """A shields.io endpoint badge per implementation and ruleset, written under ``directory``."""
    from ..results.badges import write_badges
    from ..results.matrix import compare

    problem = dir_problem(directory, "--badge")
    if problem is not None:
        return _usage(problem)
    reports = _read(files, force, "merged")
    try:
        written = write_badges(directory, compare(reports))
    except OSError as exc:
        raise OutputFailed(f"--badge: {directory}: {exc.strerror or exc}") from None
    from ..present import escape

    for path in written:
        print(escape.text(path))  # under the --badge directory, as given
    return 2 if _incomplete(reports) else 0


__all__ = ["add_parsers", "report", "report_badges", "report_diff"]
