"""``vitou certify``: the command line turned into a certification run and its reports."""

from __future__ import annotations

import argparse
import dataclasses
import functools
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..present import escape
from ..rules.errors import InputError, UnknownRuleset
from ..rules.problems import Problem
from . import limits as _limits
from . import options as _o
from . import progress as _p
from .certify_out import Outputs, Refused, open_report, output_problem, print_verdicts, refuse_taken_names, write_files

if TYPE_CHECKING:  # what a run needs is imported when it starts: building the parser stays cheap
    from ..kit.certify import Listener, Options, Run
    from ..kit.envelope import EnvelopeCase
    from ..kit.fixtures import Case
    from ..kit.runfiles import JsonlReport
    from ..kit.suite import Suite
    from ..protocol.connection import Connection
    from ..protocol.limits import Limits
    from ..rules.model import Ruleset


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cert = sub.add_parser(
        "certify",
        help="certify an implementation against the conformance suite (the bundled reference by default)",
        description="Start the implementation once, send it every applicable case over protocol v1, "
        "compare, and report. Exit status: 0 conformant, 1 not conformant, 2 the harness could not run.",
    )
    cert.add_argument(
        "--impl",
        type=_o.command,
        metavar="COMMAND",
        help="the implementation's command line (split like a shell's, never run by one)",
    )
    cert.add_argument(
        "--ruleset",
        action="append",
        metavar="ID",
        help="ruleset id or id/version (repeatable; 'all': every ruleset of the suite; default: vitou, the latest, "
        "or all when the suite has no case for it, or the one ruleset an implementation offers when it offers one)",
    )
    cert.add_argument("--suite", metavar="DIR|NAME", help=_o.SUITE_HELP)
    cert.add_argument("--only", action="append", metavar="IDS", help="case ids or globs, comma-separated (repeatable)")
    cert.add_argument("--expect", metavar="FILE", help="known failures: a YAML mapping of case id to reason")
    cert.add_argument("--report", metavar="FILE.jsonl", help="write a JSON-lines report as results arrive")
    cert.add_argument("--junit", metavar="FILE.xml", help="write a JUnit XML report")
    cert.add_argument(
        "--format", choices=("text", "json", "markdown"), default="text", help="output format (default: text)"
    )
    cert.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print only the verdicts, one line each (every ruleset's, and the protocol envelope's under each); "
        "errors still go to stderr",
    )
    cert.add_argument("--save-failed", metavar="DIR", help="write each failing case as a standalone fixture")
    cert.add_argument(
        "--validate-protocol", action="store_true", help="check every answer against the protocol's JSON Schemas"
    )
    cert.add_argument(
        "--smoke",
        action="store_true",
        help="only the handshake and three basic cases: a smoke test, not a certification",
    )
    cert.add_argument(
        "--timeout", type=_o.positive_seconds, default=10.0, metavar="SEC", help="per request (default 10)"
    )
    cert.add_argument(
        "--start-timeout",
        type=_o.positive_seconds,
        default=30.0,
        metavar="SEC",
        help="for the answer to start (default 30)",
    )
    cert.add_argument(
        "--level",
        choices=("code", "outcome"),
        help=_o.LEVEL_HELP,
    )
    cert.add_argument("--force", action="store_true", help="replace report files and saved cases that exist")
    cert.add_argument("--progress", action="store_true", help=_p.HELP)
    cert.add_argument(
        "--max-restarts", type=_o.count, default=3, metavar="N", help="restarts after a crash or hang (default 3)"
    )
    cert.add_argument(
        "--rules",
        metavar="FILE",
        help="a rules or profile file of your own: the bundled reference serves it, and reports cite its clauses",
    )
    _limits.add_options(cert)
    cert.set_defaults(run=cmd_certify)


def cmd_certify(args: argparse.Namespace) -> int:
    if args.quiet and args.format != "text":
        print(f"vitou certify: --quiet is the short form of the text; --format {args.format} is whole", file=sys.stderr)
        return 2
    return certify(
        args.impl,
        args.ruleset,
        args.suite,
        only=args.only,
        smoke=args.smoke,
        expect=args.expect,
        rules_file=args.rules,
        timeout=args.timeout,
        start_timeout=args.start_timeout,
        max_restarts=args.max_restarts,
        validate_protocol=args.validate_protocol,
        fmt="quiet" if args.quiet else args.format,
        report=args.report,
        junit=args.junit,
        save_failed=args.save_failed,
        force=args.force,
        progress=args.progress,
        limits=_limits.from_args(args),
        level=args.level,
    )


@dataclass(frozen=True)
class _Plan:
    """What the run sends: the suite, the rulesets, each one's cases, and the failures expected."""

    suite: Suite
    names: list[str]
    patterns: list[str]
    cases: dict[str, list[Case]]
    expect: dict[str, str]
    rules: dict[str, Ruleset | None]
    envelope: list[tuple[EnvelopeCase, str]]  # each envelope case with the ruleset its lines name


def load_expect(path: str) -> dict[str, str]:
    from ..rules.yamlsafe import load_path

    doc = load_path(path)
    data = doc.data
    if isinstance(data, dict) and "known_failures" in data:
        data = data["known_failures"]
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise InputError([doc.problem("EXPECT_FORMAT", "known failures are a mapping of case id to reason")])
    return dict(data)


def certify(
    impl: str | None,
    rulesets: list[str] | None,
    suite: str | None,
    *,
    only: list[str] | None,
    smoke: bool,
    expect: str | None,
    rules_file: str | None,
    timeout: float,
    start_timeout: float,
    max_restarts: int,
    validate_protocol: bool,
    fmt: str,
    report: str | None,
    junit: str | None,
    save_failed: str | None,
    force: bool,
    progress: bool = False,
    limits: Limits,
    level: str | None = None,
) -> int:
    from ..kit.certify import REFERENCE_COMMAND, Options, pack_of
    from ..kit.suite import suite_rules_files
    from ..protocol.connection import split_command

    try:
        argv = split_command(impl) if impl is not None else list(REFERENCE_COMMAND)
        if impl is None:
            # The bundled reference serves the suite's own rulesets (its rulesets/ directory) and the --rules file.
            for path in [*suite_rules_files(suite), *([rules_file] if rules_file else [])]:
                argv += ["--rules", path]
    except ValueError as exc:
        print(f"vitou certify: --impl: {escape.text(str(exc))}", file=sys.stderr)
        return 2
    outputs = Outputs(fmt, report, junit, save_failed, force, impl or shlex.join(REFERENCE_COMMAND), progress)
    problem = output_problem(outputs)
    if problem is not None:
        print(f"vitou certify: {escape.text(problem)}", file=sys.stderr)  # a path as given: escaped
        return 2
    label = impl if impl is not None else "the bundled reference (python -m vitou_ref.adapter)"
    early = _early(argv, rulesets, limits)
    try:
        plan = _plan(suite, rulesets, only, smoke, expect, rules_file)
        packs = {n: pack_of(r) for n, r in plan.rules.items() if r is not None} if validate_protocol else {}
        options = Options(
            argv=argv,
            label=label,
            rulesets=plan.names,
            only=plan.patterns,
            expect=plan.expect,
            timeout=timeout,
            start_timeout=start_timeout,
            max_restarts=max_restarts,
            validate_protocol=validate_protocol,
            packs=packs,
            smoke=smoke,
            limits=limits,
            level=level,
            rules=plan.rules,
        )
        refuse_taken_names([*(c for cs in plan.cases.values() for c in cs), *(c for c, _ in plan.envelope)], outputs)
        # No ruleset asked: an implementation that offers one ruleset alone is certified under it.
        again = (
            None
            if rulesets
            else functools.partial(_plan, suite, only=only, smoke=smoke, expect_path=expect, rules_file=rules_file)
        )
        return _run(plan, options, early, outputs, again)
    except Refused as exc:
        print(f"vitou certify: {escape.text(str(exc), lines=True)}", file=sys.stderr)  # its lines laid out as said
        return 2
    finally:
        if early is not None:
            early.kill()  # a no-op once the run has taken it over and closed it


def _early(argv: list[str], asked: list[str] | None, limits: Limits) -> Connection | None:
    """The implementation started while the suite loads, the two overlapping, when every ruleset asked is ``all`` or
    a shipped one; a name only the suite can tell known from mistyped waits for it: nothing starts for a typo."""
    from ..protocol.connection import Connection, Fault
    from ..rules.registry import resolve_name

    try:
        for ref in asked or []:
            if ref != "all":
                resolve_name(ref)
        early = Connection(argv, limits=limits)
        early.open()
        return early
    except UnknownRuleset:
        return None
    except Fault:
        return None  # reported, with its reason, when the run starts


def _plan(
    suite_path: str | None,
    asked: list[str] | None,
    only: list[str] | None,
    smoke: bool,
    expect_path: str | None,
    rules_file: str | None,
) -> _Plan:
    """The cases of each ruleset asked (the default's when none is), and what the run needs to judge them."""
    from ..kit.certify import SMOKE_IDS
    from ..kit.suite import cases_matching, load_suite
    from ..rules.registry import load_rules_file

    suite = load_suite(suite_path)
    own = [load_rules_file(path) for path in [*suite.rules_files, *([rules_file] if rules_file else [])]]
    names = _rulesets(asked, suite, [r.name for r in own])
    unknown = [n for n in names if not suite.applicable(n) and not any(e.applies_to(n) for e in suite.envelope)]
    if unknown:
        raise Refused(f"no case of the suite applies to {', '.join(unknown)}")
    patterns = [p.strip() for chunk in (only or []) for p in chunk.split(",")]
    if smoke:
        patterns = list(SMOKE_IDS)
    expect = _expected_failures(expect_path, suite)
    cases: dict[str, list[Case]] = {}
    for n in names:
        chosen = cases_matching(suite.applicable(n), patterns)
        if smoke and not chosen:
            chosen = suite.applicable(n)[:3]
        cases[n] = chosen
    rules = _rules(names)
    rules.update((r.name, r) for r in own)
    envelope = [] if smoke else _envelope(suite, names, patterns)
    if not any(cases.values()) and not envelope:
        raise Refused("--only matches no case")
    return _Plan(suite, names, patterns, cases, expect, rules, envelope)


def _envelope(suite: Suite, names: list[str], patterns: list[str]) -> list[tuple[EnvelopeCase, str]]:
    """Every envelope case under every ruleset of the run, ruleset by ruleset: the envelope is the protocol's, and
    each ruleset's envelope verdict counts every case (one that cannot apply there is counted skipped, with why)."""
    from ..kit.suite import cases_matching

    chosen = cases_matching(suite.envelope, patterns)
    return [(case, name) for name in names for case in chosen]


def _rulesets(asked: list[str] | None, suite: Suite, own: list[str]) -> list[str]:
    """The rulesets asked, each resolved among those the run knows; a name it does not know is a usage error."""
    from ..rules.registry import resolve_name

    if not asked:
        # The latest vitou; a suite with no case for it (conformance/settings) is run whole.
        asked = ["vitou"] if suite.applicable(resolve_name("vitou")) else ["all"]
    if "all" in asked:
        return suite.rulesets()
    try:
        # Known: the shipped rulesets, those the suite's cases name, and the rules files of the run.
        return list(dict.fromkeys(suite.resolve(r, own) for r in asked))
    except UnknownRuleset as exc:
        raise Refused(str(exc)) from None


def _expected_failures(path: str | None, suite: Suite) -> dict[str, str]:
    if not path:
        return {}
    expect = load_expect(path)
    missing = sorted(k for k in expect if not any(c.id == k for c in suite.cases))
    if missing:
        raise InputError([Problem("EXPECT_UNKNOWN_CASE", f"{', '.join(missing)}: no such case in the suite", path)])
    return expect


def _rules(names: list[str]) -> dict[str, Ruleset | None]:
    from ..rules.registry import load_ruleset

    out: dict[str, Ruleset | None] = {}
    for n in names:
        try:
            out[n] = load_ruleset(n)
        except (UnknownRuleset, InputError):
            out[n] = None
    return out


def _run(plan: _Plan, options: Options, early: Connection | None, outputs: Outputs, again: Replan | None) -> int:
    from ..kit.certify import HarnessError
    from ..kit.verdicts import exit_status, verdicts

    jsonl = open_report(outputs, plan.suite.root, plan.rules)
    total = sum(len(cs) for cs in plan.cases.values()) + len(plan.envelope)
    line = _p.ProgressLine("certify", total, unit="cases", force=outputs.progress)
    listener = _p.certify_listener(line, jsonl.listen if jsonl else None)
    try:
        run, plan = _certified(plan, options, early, listener, again, jsonl)
    except HarnessError as exc:
        if jsonl:
            jsonl.abort(str(exc))
        raise Refused(str(exc)) from None
    except KeyboardInterrupt:
        if jsonl:
            jsonl.abort("interrupted")
        raise
    finally:
        line.close()
    vs = verdicts(run, plan.rules)
    print_verdicts(outputs.fmt, run, vs)  # the verdict first: a file that cannot be written loses nothing else
    lost = write_files(outputs, run, vs, jsonl)
    for text in lost:
        print(f"vitou certify: could not write {escape.text(text)}", file=sys.stderr)
    return 2 if lost else exit_status(vs)


Replan = Callable[[list[str]], "_Plan"]  # the plan of the same run for these rulesets


def _certified(
    plan: _Plan,
    options: Options,
    early: Connection | None,
    listener: Listener,
    again: Replan | None,
    jsonl: JsonlReport | None,
) -> tuple[Run, _Plan]:
    """The run and its plan; with no ruleset asked, an implementation offering one other alone is run under it."""
    from ..kit.certify import Certifier, HarnessError, pack_of
    from ..protocol.client import offers_none

    certifier = Certifier(plan.suite, plan.cases, options, listener, early, plan.envelope)
    try:
        return certifier.run(), plan
    except HarnessError as exc:
        hello = certifier.peer.hello
        if hello is None or not hello.rulesets or offers_none(options.rulesets, hello.rulesets) is None:
            raise
        offered = list(dict.fromkeys(hello.rulesets))
        if again is None or len(offered) != 1 or offered[0] not in plan.suite.rulesets():
            shown = offered[0] if len(offered) == 1 else "with one of them"
            raise HarnessError(f"{exc}; to certify it under a ruleset it offers, give --ruleset {shown}") from None
    plan = again(offered)
    if jsonl is not None:
        jsonl.rules = plan.rules  # its header, written at the start, cites the rulesets run
    packs = {n: pack_of(r) for n, r in plan.rules.items() if r is not None} if options.validate_protocol else {}
    options = dataclasses.replace(options, rulesets=plan.names, packs=packs, rules=plan.rules)
    return Certifier(plan.suite, plan.cases, options, listener, None, plan.envelope).run(), plan


__all__ = ["add_parsers", "certify", "load_expect"]
