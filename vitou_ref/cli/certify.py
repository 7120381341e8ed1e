"""``vitou certify``: turning the command line into a certification run and its reports."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from typing import Any

from ..kit.certify import REFERENCE_COMMAND, SMOKE_IDS, Certifier, HarnessError, Options, Run
from ..kit.fixtures import Case, Suite, cases_matching, load_suite
from ..kit.outputs import dir_problem, file_problem
from ..kit.reports import (
    JsonlReport,
    exit_status,
    render_json,
    render_markdown,
    render_text,
    save_failed,
    verdicts,
    write_junit,
)
from ..protocol.connection import Connection, Fault, split_command
from ..rules.errors import InputError, UnknownRuleset
from ..rules.model import Ruleset
from ..rules.problems import Problem
from ..rules.registry import load_ruleset, resolve_name
from ..rules.yamlsafe import load_path


def load_expect(path: str) -> dict[str, str]:
    doc = load_path(path)
    data = doc.data
    if isinstance(data, dict) and "known_failures" in data:
        data = data["known_failures"]
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise InputError([doc.problem("EXPECT_FORMAT", "known failures are a mapping of case id to reason")])
    return dict(data)


def _rulesets(args: argparse.Namespace, suite: Suite) -> list[str]:
    asked = args.ruleset or ["vitou"]
    if "all" in asked:
        return suite.rulesets()
    names = []
    for r in asked:
        try:
            names.append(resolve_name(r))
        except UnknownRuleset:
            names.append(r)  # a ruleset the suite may know even if this package does not ship it
    return names


def _rules(names: list[str]) -> dict[str, Ruleset | None]:
    out: dict[str, Ruleset | None] = {}
    for n in names:
        try:
            out[n] = load_ruleset(n)
        except (UnknownRuleset, InputError):
            out[n] = None
    return out


def certify(args: argparse.Namespace) -> int:
    try:
        argv = split_command(args.impl) if args.impl is not None else list(REFERENCE_COMMAND)
        if args.rules and args.impl is None:
            argv += ["--rules", args.rules]
    except ValueError as exc:
        print(f"vitou certify: --impl: {exc}", file=sys.stderr)
        return 2
    problem = _output_problem(args)
    if problem is not None:
        print(f"vitou certify: {problem}", file=sys.stderr)
        return 2
    label = args.impl if args.impl is not None else "the bundled reference (python -m vitou_ref.adapter)"
    # The implementation starts while the suite loads: the two overlap.
    early: Connection | None = None
    try:
        early = Connection(argv)
        early.open()
    except Fault:
        early = None  # reported, with its reason, when the run starts
    try:
        return _certify(args, argv, label, early)
    finally:
        if early is not None:
            early.kill()  # a no-op once the run has taken it over and closed it


def _output_problem(args: argparse.Namespace) -> str | None:
    """Every output path checked before the run starts: a run's results are never lost at its end."""
    for path, option in ((args.report, "--report"), (args.junit, "--junit")):
        if path is not None:
            problem = file_problem(path, option, force=args.force)
            if problem is not None:
                return problem
    if args.save_failed is not None:
        return dir_problem(args.save_failed, "--save-failed")
    return None


def _certify(args: argparse.Namespace, argv: list[str], label: str, early: Connection | None) -> int:
    suite = load_suite(args.suite)
    names = _rulesets(args, suite)
    unknown = [n for n in names if not suite.applicable(n)]
    if unknown:
        print(f"vitou certify: no case of the suite applies to {', '.join(unknown)}", file=sys.stderr)
        return 2
    patterns = [p.strip() for chunk in (args.only or []) for p in chunk.split(",")]
    if args.smoke:
        patterns = list(SMOKE_IDS)
    expect = load_expect(args.expect) if args.expect else {}
    missing = sorted(k for k in expect if not any(c.id == k for c in suite.cases))
    if missing:
        raise InputError(
            [Problem("EXPECT_UNKNOWN_CASE", f"{', '.join(missing)}: no such case in the suite", args.expect)]
        )
    cases: dict[str, list[Case]] = {}
    for n in names:
        chosen = cases_matching(suite.applicable(n), patterns)
        if args.smoke and not chosen:
            chosen = suite.applicable(n)[:3]
        cases[n] = chosen
    if not any(cases.values()):
        print("vitou certify: --only matches no case", file=sys.stderr)
        return 2
    rules = _rules(names)
    if args.rules:
        from ..rules.registry import load_rules_file

        own = load_rules_file(args.rules)
        rules[own.name] = own
    options = Options(
        argv=argv,
        label=label,
        rulesets=names,
        only=patterns,
        expect=expect,
        timeout=args.timeout,
        start_timeout=args.start_timeout,
        max_restarts=args.max_restarts,
        validate_protocol=args.validate_protocol,
    )
    if args.save_failed and not args.force:
        taken = sorted(
            f"{c.id}.yaml"
            for cs in cases.values()
            for c in cs
            if os.path.exists(os.path.join(args.save_failed, f"{c.id}.yaml"))
        )
        if taken:
            print(
                f"vitou certify: --save-failed: {args.save_failed} already holds {', '.join(taken[:5])}"
                f"{' ...' if len(taken) > 5 else ''}; give --force to replace them, or another directory",
                file=sys.stderr,
            )
            return 2
    try:
        jsonl = JsonlReport(args.report, suite.root, rules) if args.report else None
    except OSError as exc:
        print(f"vitou certify: --report: {args.report}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    listener = jsonl.listen if jsonl else (lambda kind, payload: None)
    try:
        run = Certifier(suite, cases, options, listener, early).run()
    except HarnessError as exc:
        if jsonl:
            jsonl.abort(str(exc))
        print(f"vitou certify: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if jsonl:
            jsonl.abort("interrupted")
        raise
    vs = verdicts(run, rules)
    _print(args.format, run, vs)  # the verdict first: a file that cannot be written loses nothing else
    lost: list[str] = []
    if jsonl is not None and jsonl.failed:
        lost.append(f"--report: {args.report}: {jsonl.failed}")
    if args.junit:
        try:
            write_junit(args.junit, run, vs)
        except OSError as exc:
            lost.append(f"--junit: {args.junit}: {exc.strerror or exc}")
    if args.save_failed:
        try:
            written = save_failed(args.save_failed, run, args.impl or shlex.join(REFERENCE_COMMAND), force=args.force)
        except OSError as exc:
            lost.append(f"--save-failed: {args.save_failed}: {exc.strerror or exc}")
        else:
            if written:
                print(f"saved {len(written)} failing case(s) under {args.save_failed}", file=sys.stderr)
    for text in lost:
        print(f"vitou certify: could not write {text}", file=sys.stderr)
    return 2 if lost else exit_status(vs)


def _print(fmt: str, run: Run, vs: Any) -> None:
    if fmt == "json":
        print(json.dumps(render_json(run, vs), indent=2, ensure_ascii=False))
    elif fmt == "markdown":
        sys.stdout.write(render_markdown(run, vs))
    else:
        sys.stdout.write(render_text(run, vs))


__all__ = ["certify", "load_expect"]
