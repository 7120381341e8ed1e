"""``vitou fixtures check``: schema, ids, rule discipline, every case passing on the reference, coverage."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..engine.events import Event
from ..engine.tables import tables_for
from ..protocol.server import run_case
from ..rules.errors import InputError, UnknownRuleset
from ..rules.model import Ruleset, thaw
from ..rules.problems import Problem
from ..rules.registry import load_ruleset
from .coverage import Coverage, new_coverage, record
from .envelope import EnvelopeCase, judge_reference, reference_answers
from .fixtures import Case
from .judge import Difference, compare, shape_problem
from .suite import Suite, load_suite


@dataclass
class CaseFailure:
    case: Case | EnvelopeCase
    ruleset: str
    difference: Difference | None
    message: str

    def describe(self) -> str:
        return f"{self.case.id} [{self.ruleset}] {self.case.source}:{self.case.line}: {self.message}"


@dataclass
class SuiteReport:
    suite: Suite | None
    problems: list[Problem] = field(default_factory=list)
    failures: list[CaseFailure] = field(default_factory=list)
    coverage: dict[str, Coverage] = field(default_factory=dict)
    checked: dict[str, int] = field(default_factory=dict)  # ruleset -> cases run
    exempt: dict[str, dict[str, str]] = field(default_factory=dict)  # ruleset -> unreachable item -> reason

    @property
    def ok(self) -> bool:
        return not self.problems and not self.failures

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "suite": self.suite.root if self.suite else None,
            "cases": len(self.suite.cases) if self.suite else 0,
            "checked": self.checked,
            "problems": [p.to_json() for p in self.problems],
            "failures": [
                {
                    "id": f.case.id,
                    "ruleset": f.ruleset,
                    "message": f.message,
                    "difference": f.difference.to_json() if f.difference else None,
                }
                for f in self.failures
            ],
            "coverage": {k: v.to_json() for k, v in self.coverage.items()},
            "unreachable": self.exempt,
        }


def reference_run(rules: Ruleset, case: Case, actions: Any = None) -> tuple[dict[str, Any], list[Event]]:
    trace: list[Event] = []
    response = run_case(
        tables_for(rules), thaw(case.setup), thaw(case.actions) if actions is None else actions, 1, trace
    )
    return response, trace


def check_suite(
    path: str | None = None,
    rulesets: list[str] | None = None,
    extra: dict[str, Ruleset] | None = None,
    coverage: bool = True,
) -> SuiteReport:
    try:
        suite = load_suite(path)
    except InputError as exc:
        return SuiteReport(None, list(exc.problems))
    report = SuiteReport(suite)
    if suite.rules_files:
        from ..rules.registry import load_rules_file

        try:
            extra = {**{r.name: r for r in map(load_rules_file, suite.rules_files)}, **(extra or {})}
        except InputError as exc:
            report.problems.extend(exc.problems)
            return report
    try:
        unreachable = load_unreachable(path)
    except InputError as exc:
        report.problems.extend(exc.problems)
        return report
    # A ruleset asked for by name is one the suite or the run knows (UnknownRuleset, listing them, otherwise: a
    # usage error, not a finding), by its full name: a bare id is its latest version, as in certify.
    names = list(dict.fromkeys(suite.resolve(r, extra or {}) for r in rulesets)) if rulesets else suite.rulesets()
    loaded: dict[str, Ruleset] = {}
    for name in names:
        if extra and name in extra:
            loaded[name] = extra[name]
            continue
        try:
            loaded[name] = load_ruleset(name)
        except (UnknownRuleset, InputError) as exc:
            report.problems.append(Problem("FIXTURE_RULESET_UNKNOWN", str(exc), suite.root))
    _check_envelope(report, suite, loaded)
    for name, rules in loaded.items():
        cov = new_coverage(rules)
        report.coverage[name] = cov
        cases = suite.applicable(name)
        report.checked[name] = len(cases)
        for case in cases:
            _check_case(report, rules, case, cov)
        if coverage:
            exempt = unreachable.get(name, {})
            for kind, missing in cov.gaps().items():
                for item in missing:
                    if (kind, item) in exempt:
                        continue
                    report.problems.append(
                        Problem("COVERAGE_GAP", f"{name}: no case covers {_kind_word(kind)} {item}", suite.root)
                    )
            for kind, item in exempt:
                covering = getattr(cov, kind, {}).get(item)
                if covering:
                    report.problems.append(
                        Problem(
                            "COVERAGE_EXEMPTION_WRONG",
                            f"{name}: {_kind_word(kind)} {item} is listed as unreachable, yet {covering[0]} reaches it",
                            suite.root,
                        )
                    )
                if covering is None:
                    report.problems.append(
                        Problem("COVERAGE_EXEMPTION_UNKNOWN", f"{name}: no {kind} item {item!r} to exempt", suite.root)
                    )
            report.exempt[name] = {f"{kind}: {item}": why for (kind, item), why in exempt.items()}
    return report


def _check_envelope(report: SuiteReport, suite: Suite, loaded: dict[str, Ruleset]) -> None:
    """Every envelope case served by the reference, in-process, under every checked ruleset, as certify runs it.

    A case that cannot apply under a ruleset (it says why) is not served there; one that applies under none of
    them is not counted as checked.
    """
    if not suite.envelope:
        return
    from ..protocol.server import Server

    server = Server(loaded.values(), {"name": "vitou-ref", "version": "check", "language": "python"})
    n = 0
    for case in suite.envelope:
        filled = [(name, case.under(name, rules)) for name, rules in loaded.items()]
        n += any(not isinstance(f, str) for _, f in filled)
        failed = []  # one failure per case, however many rulesets it fails under: the count is of cases
        for name, under in filled:
            if isinstance(under, str):
                continue
            seq = 1_000_000  # the sentinel's seq: any integer the case's own lines do not use
            answers, status = reference_answers(server, under, name, seq)
            problem = judge_reference(under, answers, seq, status)
            failed += [] if problem is None else [f"under {name}: {problem}"]
        if failed:
            more = f" (and under {len(failed) - 1} more rulesets)" if len(failed) > 1 else ""
            report.failures.append(CaseFailure(case, "envelope", None, failed[0] + more))
    report.checked["envelope"] = n


def _legal_before(response: dict[str, Any], step: int) -> Any:
    """The legal set in force when step ``step`` (1-based) was tried, from the reference's answer."""
    for s in reversed(response.get("steps", [])[: step - 1]):
        if s.get("ok"):
            return s.get("legal")
    return response.get("legal")


def load_unreachable(path: str | None) -> dict[str, dict[tuple[str, str], str]]:
    """The items a suite declares out of reach, per ruleset: conformance/coverage.yaml beside its cases."""

    from ..rules.yamlsafe import load_path
    from .suite import suite_root

    root = suite_root(path or None)
    base = root.parent if root.is_file() or root.name == "cases" else root
    file = base / "coverage.yaml"
    if not file.exists():
        return {}
    doc = load_path(str(file), display=file.name)
    data = doc.data
    kinds = {"clauses", "codes", "rows", "accepted", "refused", "endings"}
    out: dict[str, dict[tuple[str, str], str]] = {}
    entries = data.get("unreachable", {}) if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        raise InputError(
            [
                doc.problem(
                    "COVERAGE_FORMAT", "coverage.yaml holds 'unreachable': ruleset -> list of {kind, item, reason}"
                )
            ]
        )
    for ruleset, items in entries.items():
        if not isinstance(items, list):
            raise InputError(
                [doc.problem("COVERAGE_FORMAT", "a list of {kind, item, reason}", ("unreachable", ruleset))]
            )
        for i, it in enumerate(items):
            ok = (
                isinstance(it, dict)
                and it.get("kind") in kinds
                and isinstance(it.get("item"), str)
                and isinstance(it.get("reason"), str)
            )
            if not ok:
                raise InputError(
                    [
                        doc.problem(
                            "COVERAGE_FORMAT",
                            f"each entry is {{kind, item, reason}}; kind one of {', '.join(sorted(kinds))}",
                            ("unreachable", ruleset, i),
                        )
                    ]
                )
            out.setdefault(ruleset, {})[(it["kind"], it["item"])] = it["reason"]
    return out


def _kind_word(kind: str) -> str:
    return {
        "clauses": "clause",
        "codes": "error code",
        "rows": "resolution row",
        "accepted": "an accepted bid of",
        "refused": "a refused bid of",
        "endings": "the ending:",
    }[kind]


def _check_case(report: SuiteReport, rules: Ruleset, case: Case, cov: Coverage) -> None:
    name = rules.name

    def problem(code: str, message: str) -> None:
        report.problems.append(Problem(code, f"{case.id} [{name}]: {message}", case.source, case.line))

    clause_ids = {c.id for c in rules.clauses}
    declared = {rules.current_clause(c) for c in case.clauses}
    for clause in case.clauses:
        if rules.current_clause(clause) not in clause_ids:
            problem("FIXTURE_CLAUSE_UNKNOWN", f"declares clause {clause!r}, which {name} does not have")
    expect = case.expectation(name)
    codes = {e.code: e.clause for e in rules.errors}
    steps = expect.steps
    for i, step in enumerate(steps, 1):
        if step.error is None:
            continue
        if step.error not in codes:
            problem("FIXTURE_CODE_UNKNOWN", f"step {i} expects {step.error}, which {name} does not define")
            continue
        if codes[step.error] not in declared:
            problem(
                "FIXTURE_CLAUSE_UNDECLARED",
                f"step {i} expects {step.error}, which enforces clause {codes[step.error]}; declare it in 'clauses'",
            )
    response, trace = reference_run(rules, case)
    for i, step in enumerate(steps, 1):
        # A rejected action must be followed by an accepted one, unless the
        # position allows none (the match is over, or no deal is left).
        if step.error is None or any(s.error is None for s in steps[i:]):
            continue
        before = response.get("legal") if i == 1 else _legal_before(response, i)
        if before:
            problem(
                "FIXTURE_NEGATIVE_UNFOLLOWED",
                f"step {i} is rejected but no accepted step follows to show the position unchanged",
            )
    bad_shape = shape_problem(response, len(thaw(case.actions)), expect.errored)
    if bad_shape is not None:
        report.failures.append(CaseFailure(case, name, None, f"the reference cannot run it: {bad_shape}"))
        return
    diff = compare(case, expect, response)
    if diff is not None:
        report.failures.append(CaseFailure(case, name, diff, f"the reference differs at {diff.describe()}"))
        return
    if expect.errored:
        record(cov, rules, case, trace)
        return
    # A rejected action changes nothing: the same case without it gives the same answers.
    actions = thaw(case.actions)
    for i, step in enumerate(steps):
        if step.error is None:
            continue
        without = actions[:i] + actions[i + 1 :]
        again, _ = reference_run(rules, case, without)
        same_steps = again["steps"] == response["steps"][:i] + response["steps"][i + 1 :]
        if not same_steps or again["final"] != response["final"]:
            problem("FIXTURE_NEGATIVE_CHANGES_STATE", f"removing the rejected step {i + 1} changes the other answers")
    record(cov, rules, case, trace)
