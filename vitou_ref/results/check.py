"""A report checked against its own header and footer, and against the suite it claims, before anything believes it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..kit.caseresult import ENVELOPE, outcome_level
from ..kit.certify import SMOKE_IDS
from ..kit.envelope import EnvelopeCase, envelope_under
from ..kit.fixtures import Case
from ..kit.suite import Suite, cases_matching
from ..kit.verdicts import Verdict, changed_identity, tallied
from ..present import escape
from ..rules.errors import InputError
from ..rules.problems import Problem, pointer
from .caseline import CaseLine
from .read import Report

SHOWN = 8  # ids named in one problem; the rest are counted

# The codes, one per way a report contradicts itself or its suite (each at its file, line and JSON pointer):
UNKNOWN = "REPORT_CASE_UNKNOWN"  # a case line its header did not plan, or not in the suite it claims
ALTERED = "REPORT_CASE_ALTERED"  # a case line whose title or clauses are not its case's in the claimed suite
MISSING = "REPORT_CASES_MISSING"  # a complete run without the lines of cases its header or suite says it ran
COUNTS = "REPORT_COUNTS_DISAGREE"  # the footer's counts are not those of the case lines
VERDICT = "REPORT_VERDICT_DISAGREE"  # the footer's verdict is not the one its case lines give
HEADER = "REPORT_HEADER_DISAGREE"  # the header's plan or count of cases is not the claimed suite's


def check_reports(reports: Sequence[Report]) -> None:
    """InputError with every problem of every report that disagrees with itself or with the suite it claims.

    The suite a report claims is known when its hash is the bundled suite's: then each case line is checked
    against its case, and the cases the run had to send against the lines.
    """
    suite = _bundled(reports)
    found = [p for r in reports for p in problems(r, suite[1] if suite and r.suite_hash == suite[0] else None)]
    if found:
        raise InputError(found)


def _bundled(reports: Sequence[Report]) -> tuple[str, Suite] | None:
    """The bundled suite and its hash, loaded only for reports that may claim it; None if it cannot be loaded."""
    from ..kit.provenance import suite_hash
    from ..kit.suite import load_suite

    if not any(r.suite_hash for r in reports):
        return None
    try:
        suite = load_suite(None)
    except InputError:
        return None
    content = suite_hash(suite)
    return (content, suite) if content else None


def problems(report: Report, suite: Suite | None = None) -> list[Problem]:
    """Every way the report disagrees with itself, and with ``suite`` (the suite its header claims, if known)."""
    out = list(_unnamed_rulesets(report))
    declared = _declared(report)
    plan, whose = declared, "its header's plan"
    if suite is not None:
        out += _against_suite(report, suite)
        plan, whose = _plan_of(suite, report), "the suite it claims"
        if declared is not None and _normal(declared) != _normal(plan):
            out.append(_at(report, HEADER, "its plan of cases is not what the suite it claims gives", 1, "/planned"))
    if plan is not None:
        flagged = {p.line for p in out}
        out += _against_plan(report, plan, whose, flagged)
    if report.stopped is None:
        out += _against_footer(report)
    return out


def _at(report: Report, code: str, message: str, line: int | None, where: str = "") -> Problem:
    return Problem(code, message, report.path, line, path=where)


def _ids(ids: Sequence[str]) -> str:
    shown = ", ".join(escape.text(i, 40) for i in ids[:SHOWN])
    return shown + (f" and {len(ids) - SHOWN} more" if len(ids) > SHOWN else "")


def _unnamed_rulesets(report: Report) -> Iterator[Problem]:
    named = set(report.rulesets)
    for case in report.cases:
        if case.ruleset not in named:
            what = f"{escape.text(case.id, 40)} is run under {escape.text(case.ruleset, 60)}, which its header does not name"
            yield _at(report, UNKNOWN, what, case.line, "/ruleset")


Plan = tuple[dict[str, list[str]], dict[str, list[str]]]  # the case ids per ruleset: the rules', the envelope's


def _normal(plan: Plan) -> Plan:
    return {k: v for k, v in plan[0].items() if v}, {k: v for k, v in plan[1].items() if v}


def _declared(report: Report) -> Plan | None:
    """The header's plan; where the envelope ran once a run (a list of its ids), each id under the ruleset its
    case line names, or the run's first when it has none."""
    planned = report.planned
    if planned is None or isinstance(planned[1], dict):
        return planned
    ran = {c.id: c.ruleset for c in report.cases if c.envelope}
    envelope: dict[str, list[str]] = {}
    for case_id in planned[1]:
        envelope.setdefault(ran.get(case_id, next(iter(report.rulesets), "")), []).append(case_id)
    return planned[0], envelope


def _plan_of(suite: Suite, report: Report) -> Plan:
    """The ids certify sends for the header's rulesets and --only patterns, as the suite has them."""
    only = report.only
    rules: dict[str, list[str]] = {}
    for name in report.rulesets:
        chosen = cases_matching(suite.applicable(name), only)
        if not chosen and only == list(SMOKE_IDS):  # --smoke: the first three cases of a ruleset without them
            chosen = suite.applicable(name)[:3]
        rules[name] = [c.id for c in chosen]
    ids = [c.id for c in cases_matching(suite.envelope, only)]  # every one, under every ruleset: certify's plan
    envelope = {name: list(ids) for name in report.rulesets}
    return rules, envelope


def _against_suite(report: Report, suite: Suite) -> Iterator[Problem]:
    declared = report.header.get("suite", {}).get("cases")
    if declared is not None and declared != len(suite.cases):
        what = f"its header says the suite has {declared} cases; the suite it claims has {len(suite.cases)}"
        yield _at(report, HEADER, what, 1, "/suite/cases")
    every: list[Case | EnvelopeCase] = [*suite.cases, *suite.envelope]
    known = {c.id: c for c in every}
    for line in report.cases:
        case = known.get(line.id)
        if case is None:
            what = f"{escape.text(line.id, 40)} is not a case of the suite its header claims"
            yield _at(report, UNKNOWN, what, line.line, "/id")
        elif (line.title, line.clauses) != (case.title, tuple(case.clauses)):
            where = "/title" if line.title != case.title else "/clauses"
            what = f"{escape.text(line.id, 40)}'s {where[1:]} are not those of the case in the suite its header claims"
            yield _at(report, ALTERED, what, line.line, where)


def _against_plan(report: Report, plan: Plan, whose: str, flagged: set[int | None]) -> Iterator[Problem]:
    rules, envelope = plan
    wanted: dict[tuple[str, str], None] = {(n, i): None for n, ids in rules.items() for i in ids}
    wanted.update({(envelope_under(n), i): None for n, ids in envelope.items() for i in ids})
    for line in report.cases:
        if line.key not in wanted and line.line not in flagged:
            what = f"{escape.text(line.id, 40)} under {escape.text(line.key[0], 60)} is not in {whose}"
            yield _at(report, UNKNOWN, what, line.line, "/id")
    if report.stopped is None:  # a run cut short lacks the rest by nature: it is said so, and flagged
        gone = [f"{i} ({n})" for n, i in wanted if (n, i) not in report.lines_of]
        if gone:
            what = f"{len(gone)} cases of {whose} have no line, although the run ended: {_ids(gone)}"
            yield _at(report, MISSING, what, report.footer_line)


def _against_footer(report: Report) -> Iterator[Problem]:
    footer = report.footer or {}
    lines: dict[tuple[str, str], list[CaseLine]] = {}
    for case in report.cases:
        lines.setdefault((ENVELOPE if case.envelope else "rules", case.ruleset), []).append(case)
    seen = set()
    for i, v in enumerate(footer.get("verdicts", [])):
        where = pointer(["verdicts", i])
        if not _verdict_shape(v):
            yield _at(
                report, "REPORT_MALFORMED", "the footer's verdict is not one certify writes", report.footer_line, where
            )
            continue
        # An envelope verdict is on the lines under its ruleset; one of a run that ran the envelope once, on the
        # lines under each of the rulesets it names ("vitou/1.0.0, le-truc/1.0.0").
        names = v["ruleset"].split(", ") if v["kind"] == ENVELOPE else [v["ruleset"]]
        keys = [(v["kind"], n) for n in names]
        seen.update(keys)
        yield from _one_verdict(report, v, [c for k in keys for c in lines.get(k, [])], where)
    for kind, name in lines.keys() - seen:
        of = envelope_under(name) if kind == ENVELOPE else name
        what = f"the footer gives no verdict on the {len(lines[(kind, name)])} cases of {escape.text(of, 80)}"
        yield _at(report, COUNTS, what, report.footer_line, "/verdicts")


def _verdict_shape(v: Any) -> bool:
    return (
        isinstance(v, dict)
        and isinstance(v.get("ruleset"), str)
        and v.get("kind") in ("rules", ENVELOPE)
        and isinstance(v.get("status"), str)
        and type(v.get("total")) is int
        and isinstance(v.get("counts"), dict)
        and all(type(n) is int for n in v["counts"].values())
    )


def _one_verdict(report: Report, v: Mapping[str, Any], cases: list[CaseLine], where: str) -> Iterator[Problem]:
    counts: dict[str, int] = {}
    for case in cases:
        counts[case.outcome] = counts.get(case.outcome, 0) + 1
    name = (
        f"the envelope under {escape.text(v['ruleset'], 200)}"
        if v["kind"] == ENVELOPE
        else escape.text(v["ruleset"], 60)
    )
    said = {k: n for k, n in v["counts"].items() if n}
    if v["total"] != len(cases) or said != counts:
        what = f"the footer counts {v['total']} cases of {name} ({_counts(said)}); its lines hold {len(cases)} ({_counts(counts)})"
        yield _at(report, COUNTS, what, report.footer_line, where)
    status = _tallied(report, v, counts, len(cases)).status
    if v["status"] != status:
        what = f"the footer's verdict on {name} is {escape.text(v['status'], 40)}; its case lines give {status}"
        yield _at(report, VERDICT, what, report.footer_line, where + "/status")
    yield from _levels(report, v, cases, name, where)


def _levels(report: Report, v: Mapping[str, Any], cases: list[CaseLine], name: str, where: str) -> Iterator[Problem]:
    """The verdict's level is its header's, and its status at each level is the one its case lines give."""
    level = v.get("level", "code")  # a report written before there were levels is at the code level
    if level != report.level or level not in ("code", "outcome"):
        said = escape.text(level, 20)
        what = f"the footer's verdict on {name} is at the {said} level; its header says {escape.text(report.level, 20)}"
        yield _at(report, VERDICT, what, report.footer_line, where + "/level")
        return
    if "levels" not in v:
        return  # written before there were levels
    lenient = [outcome_level(c.outcome, c.codes_only) if level == "code" else c.outcome for c in cases]
    counts: dict[str, int] = {}
    for o in lenient:
        counts[o] = counts.get(o, 0) + 1
    want = {"outcome": _tallied(report, v, counts, len(cases)).status}
    if level == "code":
        want = {"code": v["status"], **want}
    if v["levels"] != want:
        given = ", ".join(f"{k} level {st}" for k, st in want.items())
        what = f"the footer's verdicts by level on {name} are not those its case lines give ({given})"
        yield _at(report, VERDICT, what, report.footer_line, where + "/levels")


def _tallied(report: Report, v: Mapping[str, Any], counts: dict[str, int], total: int) -> Verdict:
    """The verdict certify gives these counts in this report: none conformant when the identity changed."""
    verdict = tallied(v["ruleset"], counts, total, {}, {}, kind=v["kind"])
    verdict.changed = changed_identity(report.cases)
    return verdict


def _counts(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{n} {escape.text(k, 20)}" for k, n in sorted(counts.items())) or "none"
