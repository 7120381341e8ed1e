"""``vitou record``, ``vitou audit`` and ``vitou rulebook``: game records, rulings on them, and the rules as a book."""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from . import options as _o
from .output import emit, json_text

if TYPE_CHECKING:
    from ..kit.fixtures import Case

LANGS = ("en", "fr", "pt", "ru")
FORCE_HELP = "replace the --output file if it exists (a link there is replaced, never its target)"
# The bounds of a record, vitou_ref.audit.record's MAX_RECORD_BYTES and MAX_ACTIONS (stated here so that building
# the parser loads no engine).
RECORD_BYTES, RECORD_ACTIONS = 1024 * 1024, 10_000
RECORD_BOUNDS = (
    f"at most {RECORD_BYTES // (1024 * 1024)} MiB, holding at most {RECORD_ACTIONS:,} actions, and as many claims and "
    "annotations; a longer one is refused (RECORD_TOO_LONG) before it is replayed"
)


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rec = sub.add_parser(
        "record",
        help="convert a game record between YAML, JSON and the compact notation, or write one from a case",
        description="Read a record (YAML or JSON, actions in the notation or as protocol actions), check it, "
        "and write it canonically. Or, with --from-case, write the record of a conformance case.",
    )
    rec.add_argument(
        "file", nargs="?", metavar="RECORD", help=f"the record to read (or give --from-case): {RECORD_BOUNDS}"
    )
    rec.add_argument(
        "--to",
        choices=("yaml", "json", "notation"),
        default="yaml",
        help="write the record as YAML or JSON, or only its actions in the notation (default: yaml)",
    )
    rec.add_argument("--from-case", metavar="ID", help="a conformance case id (see --suite, --ruleset)")
    rec.add_argument("--suite", metavar="DIR|NAME", help="for --from-case: " + _o.SUITE_HELP)
    rec.add_argument("--ruleset", metavar="ID", help="for --from-case: the ruleset (default: the case's first)")
    rec.add_argument("--output", "-o", metavar="FILE", help="write here instead of standard output")
    rec.add_argument("--force", action="store_true", help=FORCE_HELP)
    rec.set_defaults(run=cmd_record)

    aud = sub.add_parser(
        "audit",
        help="replay a game record and rule on every action, citing the rules",
        description="Replay a record under its ruleset: each action legal or not, the error code, the clause and "
        "its wording, the reason in this position, and what followed.",
    )
    aud.add_argument("record", nargs="?", metavar="RECORD", help=f"the record to replay: YAML or JSON, {RECORD_BOUNDS}")
    aud.add_argument(
        "--dispute",
        metavar="ID",
        help="replay a dispute vitou ships instead of a RECORD file, by its number (03) or name "
        "(03-raise-from-last); see --list-disputes",
    )
    aud.add_argument(
        "--list-disputes", action="store_true", help="list the disputes vitou ships, with what each is about"
    )
    aud.add_argument("--ruleset", metavar="ID|FILE", help="replay under this ruleset instead of the record's")
    aud.add_argument(
        "--continue", dest="go_on", action="store_true", help="go on after an illegal action, treating it as not made"
    )
    aud.add_argument("--at", type=_o.positive_int, metavar="N", help="explain the position before action N instead")
    aud.add_argument("--lang", choices=LANGS, default="en", help="the language of the rulings (default: en)")
    aud.add_argument(
        "--format",
        choices=("text", "json", "markdown", "html"),
        default="text",
        help="output format; html: one standalone, printable page of the rulings (default: text)",
    )
    aud.add_argument("--output", "-o", metavar="FILE", help="write here instead of standard output")
    aud.add_argument("--force", action="store_true", help=FORCE_HELP)
    aud.add_argument(
        "--compare-ruleset", metavar="OTHER", help="replay under this ruleset too and show where the rulings part"
    )
    aud.set_defaults(run=cmd_audit)

    book = sub.add_parser(
        "rulebook",
        help="render the rules (or a profile) as a rulebook with worked examples",
        description="Render a ruleset or a profile as a rulebook: its numbered clauses and clarifications, with "
        "worked examples from the conformance cases, in English, French, Portuguese or Russian; as Markdown or as "
        "one standalone HTML page.",
    )
    book.add_argument(
        "--ruleset", default="vitou", metavar="ID|FILE", help="ruleset id, id/version or file (default: vitou)"
    )
    book.add_argument("--lang", choices=LANGS, default="en", help="the language of the rulebook (default: en)")
    book.add_argument(
        "--format",
        choices=("markdown", "html"),
        default="markdown",
        help="markdown, or html: one standalone page (default: markdown)",
    )
    book.add_argument("--suite", metavar="DIR|NAME", help="take the worked examples from this suite: " + _o.SUITE_HELP)
    book.add_argument("--output", "-o", metavar="FILE", help="write here instead of standard output")
    book.add_argument("--force", action="store_true", help=FORCE_HELP)
    book.set_defaults(run=cmd_rulebook)


def cmd_record(args: argparse.Namespace) -> int:
    return convert_record(args.file, args.to, args.from_case, args.suite, args.ruleset, args.output, args.force)


def convert_record(
    file: str | None,
    to: str,
    from_case: str | None,
    suite: str | None,
    ruleset: str | None,
    output: str | None,
    force: bool = False,
) -> int:
    from ..audit.record import dump_record, load_record, record_from_case

    if from_case:
        from ..kit.suite import load_suite

        try:
            case = load_suite(suite).by_id(from_case)
        except KeyError:
            print(f"vitou: no case {from_case!r} in the suite", file=sys.stderr)
            return 2
        names = case.concrete_rulesets()  # a case names ranges; a record, one ruleset
        if ruleset:
            names = [_case_ruleset(case, ruleset, names)]
        if not names:
            print(f"vitou: {from_case} applies to no shipped ruleset; give --ruleset", file=sys.stderr)
            return 2
        data = record_from_case(case, names[0])
    elif file:
        record, _ = load_record(file)
        data = record.to_json()
    else:
        print("vitou: give a RECORD file or --from-case ID", file=sys.stderr)
        return 2
    text = dump_record(data, to)
    emit(text, output, force=force)
    return 0


def _case_ruleset(case: Case, asked: str, names: list[str]) -> str:
    """The full name of ``--ruleset`` for a case: one the case applies to, or InputError naming it."""
    from ..rules.errors import InputError, UnknownRuleset
    from ..rules.problems import Problem
    from ..rules.registry import resolve_name

    shipped = True
    try:
        name = resolve_name(asked)  # a bare id is its latest version, as everywhere else
    except UnknownRuleset:
        name, shipped = asked, False  # perhaps a ruleset the suite brings in its rulesets/ directory
    if case.applies_to(name):
        return name
    where = ", ".join(names) or "no shipped ruleset"
    if shipped:
        message = f"{case.id} does not apply to {name}; it applies to {where}"
    else:
        message = f"unknown ruleset {asked!r}: not shipped, and not named by {case.id}, which applies to {where}"
    raise InputError([Problem("RECORD_RULESET", message, "--ruleset")])


def cmd_audit(args: argparse.Namespace) -> int:
    if args.list_disputes:
        return list_disputes()
    if (args.record is None) == (args.dispute is None):
        print("vitou audit: give a RECORD file or --dispute ID (one of them)", file=sys.stderr)
        return 2
    path = args.record if args.dispute is None else dispute_path(args.dispute)
    return audit_record(
        path,
        args.ruleset,
        # A shipped dispute is named as in a checkout, never by where this installation keeps it.
        name=None if args.dispute is None else f"conformance/disputes/{Path(path).name}",
        go_on=args.go_on,
        at=args.at,
        lang=args.lang,
        fmt=args.format,
        compare_ruleset=args.compare_ruleset,
        output=args.output,
        force=args.force,
    )


def audit_record(
    path: str,
    ruleset: str | None,
    *,
    go_on: bool,
    at: int | None,
    lang: str,
    fmt: str,
    compare_ruleset: str | None,
    output: str | None = None,
    force: bool = False,
    name: str | None = None,
) -> int:
    from ..audit.audit import audit, position_before
    from ..audit.record import MAX_RECORD_BYTES, read_record
    from ..audit.report import audit_json, audit_text, compare, compare_text, position_json, position_text
    from ..rules.files import read_path
    from ..rules.registry import load_ruleset

    if fmt == "html" and (compare_ruleset or at is not None):
        print(
            "vitou audit: --format html is the page of the rulings; --at and --compare-ruleset write text, "
            "markdown or json",
            file=sys.stderr,
        )
        return 2
    rules = load_ruleset(ruleset) if ruleset else None
    record, rules = read_record(read_path(path, max_bytes=MAX_RECORD_BYTES), name or path, rules)
    if compare_ruleset:
        other = load_ruleset(compare_ruleset)
        compared = compare(record, rules, other, lang)
        text = compare_text(compared, rules, other, lang, markdown=fmt == "markdown")
        emit(json_text(compared) if fmt == "json" else text, output, force=force)
        return 0 if not compared["divergences"] else 1
    if at is not None:
        if not 1 <= at <= len(record.actions) + 1:
            print(f"vitou: --at takes 1 to {len(record.actions) + 1} for this record", file=sys.stderr)
            return 2
        pos, _ = position_before(record, rules, at)
        if fmt == "json":
            emit(json_text(position_json(rules, pos, at, lang)), output, force=force)
        else:
            emit(position_text(rules, pos, at, lang, markdown=fmt == "markdown"), output, force=force)
        return 0
    result = audit(record, rules, go_on)
    if fmt == "json":
        emit(json_text(audit_json(result, lang)), output, force=force)
    elif fmt == "html":
        from ..audit.auditpage import page

        emit(page(result, lang), output, force=force)
    else:
        emit(audit_text(result, lang, markdown=fmt == "markdown"), output, force=force)
    return 0 if all(r.legal for r in result.rulings) else 1


def _disputes() -> dict[str, str]:
    """The shipped disputes: each file's name without .yaml, and its path."""
    from ..rules.data import data_dir

    directory = data_dir("conformance") / "disputes"
    return {p.stem: str(p) for p in sorted(directory.glob("*.yaml")) if p.name != "expected.yaml"}


def dispute_path(ref: str) -> str:
    """The file of a shipped dispute, by name (``03-raise-from-last``) or number (``03``, ``3``)."""
    from ..rules import reader
    from ..rules.errors import InputError
    from ..rules.problems import Problem

    known = _disputes()
    names = ", ".join(known)
    number = None
    if reader.looks_numeric(ref):  # a number, in the digits 0-9: "٣" is not dispute 03
        try:
            number = f"{reader.whole(ref, what='a dispute number', max_digits=4):02d}"
        except reader.ReadError as exc:
            raise InputError([Problem("DISPUTE_UNKNOWN", f"{exc}; shipped: {names}", "--dispute")]) from None
    found = [path for stem, path in known.items() if ref == stem or number == stem.split("-", 1)[0]]
    if len(found) != 1:
        message = f"no shipped dispute {reader.shown(ref)}; shipped: {names}"
        raise InputError([Problem("DISPUTE_UNKNOWN", message, "--dispute")])
    return found[0]


def list_disputes() -> int:
    """Each shipped dispute's name and the comment that opens its file: what it is about."""
    from ..present.escape import text

    for stem, path in _disputes().items():
        with open(path, encoding="utf-8") as fh:
            lines = list(itertools.takewhile(lambda line: line.startswith("#"), fh))
        about = " ".join(line.lstrip("#").strip() for line in lines)
        print(f"{stem}  {text(about, 110)}".rstrip())
    return 0


def cmd_rulebook(args: argparse.Namespace) -> int:
    return rulebook(args.ruleset, args.lang, args.format, args.suite, args.output, args.force)


def rulebook(ruleset: str, lang: str, fmt: str, suite: str | None, output: str | None, force: bool = False) -> int:
    from ..rulebook.book import build, markdown
    from ..rulebook.page import page
    from ..rules.registry import load_ruleset

    rules = load_ruleset(ruleset)
    book = build(rules, lang, suite)
    text = page(book) if fmt == "html" else markdown(book)
    emit(text, output, force=force)
    return 0


__all__ = ["add_parsers", "audit_record", "convert_record", "rulebook"]
