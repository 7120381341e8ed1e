"""The ``vitou`` command: argument parsing here, each command's work in its own function."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .._version import __version__
from ..kit import outputs as _out
from ..rules.errors import InputError, OutputFailed, SetupError, VitouError
from . import options as _o

Command = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vitou",
        description="The rules of Vitou as data, the reference interpreter, and its conformance kit.",
    )
    parser.add_argument("--version", action="version", version=f"vitou {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    spec = sub.add_parser("spec", help="check rules and profile files").add_subparsers(
        dest="spec_command", metavar="SUBCOMMAND"
    )
    spec.required = True
    check = spec.add_parser("check", help="validate rules files: schema, then the checks a schema cannot make")
    check.add_argument("files", nargs="+", metavar="FILE")
    check.add_argument("--format", choices=("text", "json"), default="text")
    check.set_defaults(run=cmd_spec_check)

    rulesets = sub.add_parser("rulesets", help="list the rulesets shipped with this package")
    rulesets.set_defaults(run=cmd_rulesets)

    match = sub.add_parser("match", help="play one random match with the reference and print an account")
    match.add_argument("--seed", type=_o.seed, default=None, help="the seed (default: a random one, printed)")
    match.add_argument("--ruleset", default="vitou", help="ruleset id, id/version or file (default: vitou)")
    match.set_defaults(run=cmd_match)

    bench = sub.add_parser("bench", help="measure speed").add_subparsers(dest="bench_command", metavar="SUBCOMMAND")
    bench.required = True
    engine = bench.add_parser("engine", help="hands per second of random play on one core")
    engine.add_argument("--ruleset", default="vitou")
    engine.add_argument("--seconds", type=_o.positive_seconds, default=2.0, help="length of each run (default 2)")
    engine.add_argument("--repeat", type=_o.positive_int, default=5, help="runs; the best is reported (default 5)")
    engine.add_argument("--format", choices=("text", "json"), default="text")
    engine.set_defaults(run=cmd_bench_engine)

    fixtures = sub.add_parser("fixtures", help="the conformance suite").add_subparsers(
        dest="fixtures_command", metavar="SUBCOMMAND"
    )
    fixtures.required = True
    fcheck = fixtures.add_parser(
        "check", help="validate the suite: schema, ids, rule discipline, all pass on the reference, coverage"
    )
    fcheck.add_argument("--suite", metavar="DIR", help="a directory or file of cases (default: the bundled suite)")
    fcheck.add_argument("--ruleset", action="append", metavar="ID", help="check only these rulesets (repeatable)")
    fcheck.add_argument("--no-coverage", action="store_true", help="do not require full coverage")
    fcheck.add_argument(
        "--rules", action="append", metavar="FILE", help="also know this rules or profile file (repeatable)"
    )
    fcheck.add_argument("--format", choices=("text", "json"), default="text")
    fcheck.set_defaults(run=cmd_fixtures_check)
    fexport = fixtures.add_parser(
        "export", help="write the whole suite as one document, for harnesses in other languages"
    )
    fexport.add_argument("--suite", metavar="DIR")
    fexport.add_argument("--format", choices=("json",), default="json")
    fexport.add_argument("--output", "-o", metavar="FILE", help="write here instead of standard output")
    fexport.set_defaults(run=cmd_fixtures_export)

    prof = sub.add_parser("profile", help="variant profiles").add_subparsers(
        dest="profile_command", metavar="SUBCOMMAND"
    )
    prof.required = True
    presolve = prof.add_parser("resolve", help="print the complete ruleset a profile resolves to")
    presolve.add_argument("ruleset", metavar="ID|FILE")
    presolve.add_argument("--format", choices=("yaml", "json"), default="yaml")
    presolve.set_defaults(run=cmd_profile_resolve)
    pdiff = prof.add_parser("diff", help="what differs between two rulesets, clause by clause")
    pdiff.add_argument("a", metavar="A")
    pdiff.add_argument("b", metavar="B")
    pdiff.add_argument("--format", choices=("text", "json"), default="text")
    pdiff.set_defaults(run=cmd_profile_diff)

    sim = sub.add_parser("simulate", help="play random matches and sum them up")
    sim.add_argument("--ruleset", default="vitou", metavar="ID|FILE")
    sim.add_argument("--matches", type=_o.positive_int, default=1000)
    sim.add_argument("--seed", type=_o.seed, default=1)
    sim.add_argument("--format", choices=("text", "json"), default="text")
    sim.add_argument("--progress", action="store_true", help="show progress even when stderr is not a terminal")
    sim.set_defaults(run=cmd_simulate)

    rec = sub.add_parser(
        "record",
        help="convert a game record between YAML, JSON and the compact notation, or write one from a case",
        description="Read a record (YAML or JSON, actions in the notation or as protocol actions), check it, "
        "and write it canonically. Or, with --from-case, write the record of a conformance case.",
    )
    rec.add_argument("file", nargs="?", metavar="RECORD")
    rec.add_argument("--to", choices=("yaml", "json", "notation"), default="yaml")
    rec.add_argument("--from-case", metavar="ID", help="a conformance case id (see --suite, --ruleset)")
    rec.add_argument("--suite", metavar="DIR")
    rec.add_argument("--ruleset", metavar="ID", help="for --from-case: the ruleset (default: the case's first)")
    rec.add_argument("--output", "-o", metavar="FILE")
    rec.set_defaults(run=cmd_record)

    aud = sub.add_parser(
        "audit",
        help="replay a game record and rule on every action, citing the rules",
        description="Replay a record under its ruleset: each action legal or not, the error code, the clause and "
        "its wording, the reason in this position, and what followed.",
    )
    aud.add_argument("record", metavar="RECORD")
    aud.add_argument("--ruleset", metavar="ID|FILE", help="replay under this ruleset instead of the record's")
    aud.add_argument(
        "--continue", dest="go_on", action="store_true", help="go on after an illegal action, treating it as not made"
    )
    aud.add_argument("--at", type=_o.positive_int, metavar="N", help="explain the position before action N instead")
    aud.add_argument("--lang", choices=("en", "fr", "pt", "ru"), default="en")
    aud.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    aud.add_argument(
        "--compare-ruleset", metavar="OTHER", help="replay under this ruleset too and show where the rulings part"
    )
    aud.set_defaults(run=cmd_audit)

    book = sub.add_parser("rulebook", help="render the rules (or a profile) as a rulebook with worked examples")
    book.add_argument("--ruleset", default="vitou", metavar="ID|FILE")
    book.add_argument("--lang", choices=("en", "fr", "pt", "ru"), default="en")
    book.add_argument("--format", choices=("markdown", "html"), default="markdown")
    book.add_argument("--suite", metavar="DIR", help="take the worked examples from this suite")
    book.add_argument("--output", "-o", metavar="FILE")
    book.set_defaults(run=cmd_rulebook)

    fz = sub.add_parser(
        "fuzz",
        help="hunt for divergences between an implementation and the reference with random matches",
        description="Random matches, with a share of illegal actions, played on the reference and sent to the "
        "implementation; on a divergence, the smallest case that shows it is written as a fixture. "
        "Exit status: 0 no divergence, 1 a divergence, 2 the fuzzer could not run.",
    )
    fz.add_argument("--impl", type=_o.command, metavar="COMMAND", help="the implementation (default: the bundled reference)")
    fz.add_argument("--ruleset", default="vitou", metavar="ID")
    fz.add_argument("--examples", type=_o.positive_int, default=2000, metavar="N", help="matches to try (default 2000)")
    fz.add_argument(
        "--seed", type=_o.seed, default=None, metavar="S", help="for a reproducible run (default: random, printed)"
    )
    fz.add_argument(
        "--max-seconds", type=_o.positive_seconds, default=None, metavar="T", help="stop after this long (default: no limit)"
    )
    fz.add_argument("--timeout", type=_o.positive_seconds, default=10.0, metavar="SEC", help="per request (default 10)")
    fz.add_argument(
        "--start-timeout", type=_o.positive_seconds, default=30.0, metavar="SEC", help="for the answer to start (default 30)"
    )
    fz.add_argument(
        "--save",
        metavar="DIR",
        default="fuzz-failures",
        help="where the fixture of a divergence goes, under a name no earlier run has taken (default: fuzz-failures)",
    )
    fz.add_argument(
        "--illegal", type=_o.whole_percent, default=12, metavar="PCT", help="share of illegal actions, in percent (default 12)"
    )
    fz.add_argument("--progress", action="store_true", help="show progress even when stderr is not a terminal")
    fz.set_defaults(run=cmd_fuzz)

    mut = sub.add_parser(
        "mutants",
        help="the suite's mutation score: run the suite (and optionally the fuzzer) against deliberately wrong rules",
    )
    mut.add_argument("--only", action="append", metavar="NAME", help="only these mutants (repeatable)")
    mut.add_argument("--fuzz", action="store_true", help="also fuzz each mutant")
    mut.add_argument("--fuzz-examples", type=_o.positive_int, default=400, metavar="N")
    mut.add_argument("--seed", type=_o.seed, default=1)
    mut.add_argument(
        "--min-score", type=_o.percent, default=95.0, metavar="PCT", help="exit 1 below this score (default 95)"
    )
    mut.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    mut.add_argument("--suite", metavar="DIR", help="the suite to score (default: the bundled one)")
    mut.add_argument("--progress", action="store_true", help="show progress even when stderr is not a terminal")
    mut.set_defaults(run=cmd_mutants)

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
        help="ruleset id or id/version (repeatable; 'all': every ruleset of the suite)",
    )
    cert.add_argument("--suite", metavar="DIR", help="another directory or file of cases")
    cert.add_argument("--only", action="append", metavar="IDS", help="case ids or globs, comma-separated (repeatable)")
    cert.add_argument("--expect", metavar="FILE", help="known failures: a YAML mapping of case id to reason")
    cert.add_argument("--report", metavar="FILE.jsonl", help="write a JSON-lines report as results arrive")
    cert.add_argument("--junit", metavar="FILE.xml", help="write a JUnit XML report")
    cert.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    cert.add_argument("--save-failed", metavar="DIR", help="write each failing case as a standalone fixture")
    cert.add_argument(
        "--validate-protocol", action="store_true", help="check every answer against the protocol's JSON Schemas"
    )
    cert.add_argument("--smoke", action="store_true", help="only the handshake and three basic cases")
    cert.add_argument("--timeout", type=_o.positive_seconds, default=10.0, metavar="SEC", help="per request (default 10)")
    cert.add_argument(
        "--start-timeout", type=_o.positive_seconds, default=30.0, metavar="SEC", help="for the answer to start (default 30)"
    )
    cert.add_argument("--force", action="store_true", help="replace report files and saved cases that exist")
    cert.add_argument(
        "--max-restarts", type=_o.count, default=3, metavar="N", help="restarts after a crash or hang (default 3)"
    )
    cert.add_argument(
        "--rules",
        metavar="FILE",
        help="a rules or profile file of your own: the bundled reference serves it, and reports cite its clauses",
    )
    cert.set_defaults(run=cmd_certify)

    hb = bench.add_parser("harness", help="certification speed: the whole suite, and cases per second through the pipe")
    hb.add_argument(
        "--rounds", type=_o.positive_int, default=5, help="times the suite is sent for the throughput figures (default 5)"
    )
    hb.add_argument("--format", choices=("text", "json"), default="text")
    hb.set_defaults(run=cmd_bench_harness)

    adapter = sub.add_parser("adapter", help="serve the reference over protocol v1 on stdin/stdout")
    adapter.add_argument("--rules", metavar="FILE")
    adapter.set_defaults(run=cmd_adapter)
    return parser


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


def _print_json(obj: Any) -> None:
    from ..protocol.wire import terminal_safe_json

    print(terminal_safe_json(json.dumps(obj, indent=2, ensure_ascii=False)))


# ----------------------------------------------------------------- commands


def cmd_spec_check(args: argparse.Namespace) -> int:
    from ..rules.check import check_file

    results = [check_file(f) for f in args.files]
    if args.format == "json":
        _print_json(
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
    from ..rules.registry import load_ruleset, shipped

    for name, _path in shipped().items():
        rs = load_ruleset(name)
        kind = f"profile of {rs.extends}" if rs.extends else "rules"
        print(f"{name}\t{kind}\t{rs.content_hash}\t{rs.title}")
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    from ..audit.account import account
    from ..engine.match import Match
    from ..rules.registry import load_ruleset

    rules = load_ruleset(args.ruleset)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    match = Match.random(rules, rng)
    print(f"{rules.name}, seed {seed}")
    for line in account(match, rng):
        print(line)
    return 0


def cmd_bench_engine(args: argparse.Namespace) -> int:
    from ..hunt.bench import bench_engine
    from ..rules.registry import load_ruleset

    if args.seconds <= 0 or args.repeat < 1:
        print("vitou: --seconds must be positive and --repeat at least 1", file=sys.stderr)
        return 2
    fig = bench_engine(load_ruleset(args.ruleset), args.seconds, args.repeat)
    if args.format == "json":
        _print_json(fig.__dict__)
    else:
        print(
            f"{fig.ruleset}: {fig.hands_per_second_best:,.0f} hands/s best of {args.repeat} "
            f"(median {fig.hands_per_second_median:,.0f}); {fig.hands:,} hands, {fig.matches:,} matches "
            f"in {fig.seconds:.1f}s; random play, legal actions at every step, one core"
        )
    return 0


def cmd_fixtures_check(args: argparse.Namespace) -> int:
    from ..kit.suitecheck import check_suite
    from ..rules.registry import load_rules_file

    extra = {r.name: r for r in (load_rules_file(f) for f in args.rules or [])}
    report = check_suite(args.suite, args.ruleset, extra=extra, coverage=not args.no_coverage)
    if args.format == "json":
        _print_json(report.to_json())
        return 0 if report.ok else 1
    if report.suite is not None:
        print(f"suite: {report.suite.root} ({len(report.suite.files)} files, {len(report.suite.cases)} cases)")
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
    for f in report.failures:
        print(f"FAIL {f.describe()}")
    for p in report.problems:
        print(str(p))
    print("OK" if report.ok else f"FAILED: {len(report.failures)} failing case(s), {len(report.problems)} problem(s)")
    return 0 if report.ok else 1


def _emit(text: str, output: str | None) -> None:
    """Command output: to the --output file when given, to stdout otherwise."""
    if output:
        try:
            with open(output, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise OutputFailed(f"--output: {output}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(text)


def cmd_fixtures_export(args: argparse.Namespace) -> int:
    from ..kit.export import export_suite

    text = json.dumps(export_suite(args.suite), indent=1, ensure_ascii=False) + "\n"
    _emit(text, args.output)
    return 0


def cmd_profile_resolve(args: argparse.Namespace) -> int:
    from ..rules.registry import load_ruleset

    rules = load_ruleset(args.ruleset)
    doc = rules.to_json()
    if args.format == "json":
        _print_json({"name": rules.name, "hash": rules.content_hash, "ruleset": doc})
    else:
        from ..rules.yamlout import dump

        sys.stdout.write(f"# {rules.name}, resolved; content hash {rules.content_hash}\n")
        sys.stdout.write(dump(doc, flow=False))
    return 0


def cmd_profile_diff(args: argparse.Namespace) -> int:
    from ..rules.diff import diff_rulesets, render_diff
    from ..rules.registry import load_ruleset

    d = diff_rulesets(load_ruleset(args.a), load_ruleset(args.b))
    if args.format == "json":
        _print_json(d.to_json())
    else:
        sys.stdout.write(render_diff(d))
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from ..hunt.simulate import Progress, render_simulation, simulate
    from ..rules.registry import load_ruleset

    if args.matches < 1:
        print("vitou: --matches must be at least 1", file=sys.stderr)
        return 2
    rules = load_ruleset(args.ruleset)
    sim = simulate(rules, args.matches, args.seed, Progress(f"simulating {rules.name}", args.progress))
    if args.format == "json":
        _print_json(sim.to_json())
    else:
        sys.stdout.write(render_simulation(sim))
    return 0


def cmd_record(args: argparse.Namespace) -> int:
    from ..audit.record import dump_record, load_record, record_from_case

    if args.from_case:
        from ..kit.fixtures import load_suite

        try:
            case = load_suite(args.suite).by_id(args.from_case)
        except KeyError:
            print(f"vitou: no case {args.from_case!r} in the suite", file=sys.stderr)
            return 2
        data = record_from_case(case, args.ruleset or case.rulesets[0])
    elif args.file:
        record, _ = load_record(args.file)
        data = record.to_json()
    else:
        print("vitou: give a RECORD file or --from-case ID", file=sys.stderr)
        return 2
    text = dump_record(data, args.to)
    _emit(text, args.output)
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from ..audit.audit import audit, position_before
    from ..audit.record import load_record
    from ..audit.report import audit_json, audit_text, compare, compare_text, position_json, position_text
    from ..rules.registry import load_ruleset

    rules = load_ruleset(args.ruleset) if args.ruleset else None
    record, rules = load_record(args.record, rules)
    if args.compare_ruleset:
        other = load_ruleset(args.compare_ruleset)
        compared = compare(record, rules, other, args.lang)
        if args.format == "json":
            _print_json(compared)
        else:
            sys.stdout.write(compare_text(compared, rules, other, args.lang))
        return 0 if not compared["divergences"] else 1
    if args.at is not None:
        if not 1 <= args.at <= len(record.actions) + 1:
            print(f"vitou: --at takes 1 to {len(record.actions) + 1} for this record", file=sys.stderr)
            return 2
        pos, _ = position_before(record, rules, args.at)
        if args.format == "json":
            _print_json(position_json(rules, pos, args.at, args.lang))
        else:
            sys.stdout.write(position_text(rules, pos, args.at, args.lang, markdown=args.format == "markdown"))
        return 0
    result = audit(record, rules, args.go_on)
    if args.format == "json":
        _print_json(audit_json(result, args.lang))
    else:
        sys.stdout.write(audit_text(result, args.lang, markdown=args.format == "markdown"))
    return 0 if all(r.legal for r in result.rulings) else 1


def cmd_rulebook(args: argparse.Namespace) -> int:
    from ..audit.rulebook import build, markdown, page
    from ..rules.registry import load_ruleset

    rules = load_ruleset(args.ruleset)
    book_ = build(rules, args.lang, args.suite)
    text = page(book_) if args.format == "html" else markdown(book_)
    _emit(text, args.output)
    return 0


def cmd_fuzz(args: argparse.Namespace) -> int:
    import shlex

    from ..hunt.fuzz import Fuzzer
    from ..hunt.simulate import Progress
    from ..kit.certify import REFERENCE_COMMAND
    from ..protocol.connection import Fault, split_command
    from ..rules.registry import load_ruleset

    try:
        argv = split_command(args.impl) if args.impl is not None else list(REFERENCE_COMMAND)
    except ValueError as exc:
        print(f"vitou fuzz: --impl: {exc}", file=sys.stderr)
        return 2
    problem = _out.dir_problem(args.save, "--save")
    if problem is not None:
        print(f"vitou fuzz: {problem}", file=sys.stderr)
        return 2
    rules = load_ruleset(args.ruleset)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    label = args.impl if args.impl is not None else "python -m vitou_ref.adapter"  # named without this machine's paths
    progress = Progress(f"fuzz {rules.name}", args.progress)
    fuzzer = Fuzzer(
        rules, argv, timeout=args.timeout, start_timeout=args.start_timeout, illegal=args.illegal, progress=progress
    )
    try:
        result = fuzzer.run(args.examples, seed, args.max_seconds)
        d = result.divergence
        again = fuzzer.reproduce(d) if d is not None else None
    except Fault as exc:
        progress.finish()
        print(f"vitou fuzz: {exc.message}", file=sys.stderr)
        return 2
    finally:
        fuzzer.close()
    progress.finish()
    print(f"fuzz {rules.name} against {label}, seed {seed}: {result.describe()}")
    if d is None:
        print("no divergence")
        return 0
    shown = again if again is not None else d
    path = _save_fuzz_case(args.save, seed, shown, rules, label, reproduced=again is not None)
    print(f"DIVERGENCE at {shown.describe()}")
    if again is None:
        print("it did not show again on a fresh start of the implementation (flaky?); the case is saved all the same")
    elif again.before:
        print(f"it shows only after {len(again.before)} earlier match(es) on the same process: the file keeps them")
    print(f"smallest case found: {len(shown.case.actions)} action(s), {len(shown.case.setup['deals'])} deal(s): {path}")
    print(f"rerun: vitou certify --impl {shlex.quote(label)} --ruleset {rules.name} --suite {shlex.quote(path)}")
    return 1


def _save_fuzz_case(directory: str, seed: int, d: Any, rules: Any, label: str, *, reproduced: bool) -> str:
    """The fixture of a divergence, under a name no earlier run has taken (never overwritten)."""
    import shlex

    from ..hunt.fuzz import fixture_for
    from ..protocol.wire import printable
    from ..rules.yamlout import dump

    os.makedirs(directory, exist_ok=True)
    for n in range(1, 10_000):
        case_id = f"FZ-{seed % 10000:04d}" + (f"-{n}" if n > 1 else "")
        path = os.path.join(directory, f"{case_id}.yaml")
        rerun = f"vitou certify --impl {shlex.quote(label)} --ruleset {rules.name} --suite {shlex.quote(path)}"
        text = f"# rerun: {printable(rerun, 2000)}\n" + dump(
            fixture_for(d, rules, case_id, label, reproduced=reproduced), width=120
        )
        try:
            _out.write_new(path, text, force=False)
        except FileExistsError:
            continue
        except OSError as exc:
            raise OutputFailed(f"--save: {path}: {exc.strerror or exc}") from None
        return path
    raise OutputFailed(f"--save: {directory} holds 9,999 fixtures for seed {seed}: choose another directory")


def cmd_mutants(args: argparse.Namespace) -> int:
    from ..hunt.mutants import BY_NAME
    from ..hunt.mutation import Row, render_mutation, run_mutation
    from ..hunt.simulate import Progress

    if args.fuzz_examples < 1 or not 0 <= args.min_score <= 100:
        print("vitou mutants: --fuzz-examples must be at least 1 and --min-score between 0 and 100", file=sys.stderr)
        return 2
    unknown = [n for n in args.only or [] if n not in BY_NAME]
    if unknown:
        print(f"vitou mutants: no mutant {', '.join(unknown)} (mutants: {', '.join(BY_NAME)})", file=sys.stderr)
        return 2
    total = len(args.only or BY_NAME)
    progress = Progress("mutants", args.progress)
    done: list[Row] = []

    def note(row: Row) -> None:
        done.append(row)
        progress(len(done), total)

    table = run_mutation(args.only, args.fuzz, args.fuzz_examples, args.seed, suite_path=args.suite, progress=note)
    if args.format == "json":
        _print_json(table.to_json())
    else:
        sys.stdout.write(render_mutation(table, markdown=args.format == "markdown"))
    if any(r.problem is not None for r in table.rows):
        return 2
    return 0 if table.score >= args.min_score else 1


def cmd_certify(args: argparse.Namespace) -> int:
    from .certify import certify

    return certify(args)


def cmd_bench_harness(args: argparse.Namespace) -> int:
    from ..hunt.bench import bench_harness

    if args.rounds < 1:
        print("vitou: --rounds must be at least 1", file=sys.stderr)
        return 2
    fig = bench_harness(args.rounds)
    if args.format == "json":
        _print_json(fig.__dict__)
    else:
        print(
            f"certify the reference on the whole suite ({fig.cases} cases): {fig.certify_seconds:.2f}s wall, process start included"
        )
        print(
            f"through the pipe, the reference answering: {fig.reference_cases_per_second:,.0f} cases/s "
            f"(suite sent {fig.rounds} times, one process)"
        )
        print(f"through the pipe, answers replayed (the harness alone): {fig.harness_cases_per_second:,.0f} cases/s")
    return 0


def cmd_adapter(args: argparse.Namespace) -> int:
    from .adapter import main as adapter_main

    return adapter_main(["--rules", args.rules] if args.rules else [])
