"""Reading the JSON-lines reports of ``vitou certify --report``: every line checked, every problem at its file and line."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..kit.judge import CODE, LEVELS
from ..kit.verdicts import rules_text
from ..present import escape
from ..protocol.wire import MAX_DEPTH, WireError, loads
from ..rules.errors import InputError, UnknownRuleset
from ..rules.problems import Problem
from .caseline import CaseLine, case_line

HARNESS = "vitou certify"
MAX_REPORT_BYTES = 1 << 30  # far more than any suite's report; a bigger file is not one


@dataclass
class Report:
    """One report file: its header, its case lines in order, its footer (None when the run was cut short)."""

    path: str
    header: Mapping[str, Any]
    cases: list[CaseLine] = field(default_factory=list)
    footer: Mapping[str, Any] | None = None
    last_line: int = 1
    cut: bool = False  # the last line was cut in the middle, and left out
    footer_line: int = 0
    lines_of: dict[tuple[str, str], int] = field(default_factory=dict, repr=False)  # case key -> its line

    def _impl(self, key: str) -> str:
        impl = self.header.get("implementation")
        value = impl.get(key) if isinstance(impl, dict) else None
        return escape.text(value, 80) if isinstance(value, str) and value else "?"

    @property
    def name(self) -> str:
        return self._impl("name")

    @property
    def version(self) -> str:
        return self._impl("version")

    @property
    def language(self) -> str:
        return self._impl("language")

    @property
    def command(self) -> str:
        command = self.header.get("command")
        return escape.text(command, 300) if isinstance(command, str) else ""

    @property
    def suite_hash(self) -> str | None:
        suite = self.header.get("suite")
        value = suite.get("hash") if isinstance(suite, dict) else None
        return value if isinstance(value, str) else None

    @property
    def spec(self) -> dict[str, str | None]:
        spec = self.header.get("spec")
        if not isinstance(spec, dict):
            return {}
        return {k: (v if isinstance(v, str) else None) for k, v in spec.items()}

    @property
    def rulesets(self) -> list[str]:
        return [r for r in self.header.get("rulesets", []) if isinstance(r, str)]

    @property
    def only(self) -> list[str]:
        only = self.header.get("only")
        return [p for p in only if isinstance(p, str)] if isinstance(only, list) else []

    @property
    def planned(self) -> tuple[dict[str, list[str]], Any] | None:
        """The ids the header plans per ruleset, rules and envelope (a list: it ran once a run); None if it is older."""
        planned = self.header.get("planned")
        if not isinstance(planned, dict):
            return None
        return dict(planned["rules"]), planned["envelope"]  # their types are checked as the header is read

    @property
    def level(self) -> str:
        """The level the run certified: ``code`` for a report written before there were levels."""
        level = self.header.get("level", CODE)
        return level if isinstance(level, str) else CODE

    @property
    def judges_levels(self) -> bool:
        """Whether its run judged the outcome level as well (a report written before there were levels did not)."""
        return "level" in self.header

    @property
    def known_failures(self) -> list[str]:
        known = self.header.get("known_failures")
        return [k for k in known if isinstance(k, str)] if isinstance(known, list) else []

    @property
    def stopped(self) -> str | None:
        """Why the run did not finish (interrupted, cut short), or None for a complete run."""
        if self.footer is None:
            cut = " and its last line is cut short" if self.cut else ""
            return f"no footer{cut}: the run was interrupted after {len(self.cases)} results"
        fatal = self.footer.get("fatal")
        if not self.footer.get("verdicts") and isinstance(fatal, str):
            return f"the run stopped ({escape.text(fatal, 200)}) after {len(self.cases)} results"
        return None

    def notice(self) -> Problem | None:
        """The problem of a report that is used although incomplete."""
        why = self.stopped
        if why is None:
            return None
        return Problem("REPORT_TRUNCATED", f"{why}; they are used as they are", self.path, self.last_line)

    def rules_text(self, ruleset: str) -> Mapping[str, Any]:
        """The ruleset's sections and each clause's section, as the header has them or as this package knows them."""
        texts = self.header.get("rules_text")
        text = texts.get(ruleset) if isinstance(texts, dict) else None
        if isinstance(text, dict) and isinstance(text.get("clauses"), dict):
            return text
        return _known_rules_text(ruleset, self.spec.get(ruleset))


def _known_rules_text(name: str, content_hash: str | None) -> Mapping[str, Any]:
    """For a report whose header predates rules_text: the shipped ruleset of that name, if its hash is the same."""
    from ..rules.registry import load_ruleset

    try:
        ruleset = load_ruleset(name)
    except (UnknownRuleset, InputError, ValueError):
        return {}
    return rules_text(ruleset) if content_hash == ruleset.content_hash else {}


def read_reports(paths: Sequence[str]) -> list[Report]:
    """Every report read; InputError with the problems of all of them, each at its file and line."""
    reports: list[Report] = []
    problems: list[Problem] = []
    for path in dict.fromkeys(paths):  # a file named twice is read once
        try:
            reports.append(read_report(path))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return reports


def read_report(path: str) -> Report:
    """One report file, checked line by line; InputError at the first line that is not what certify writes."""
    data = _read_bytes(path)
    if not data.strip():
        raise InputError([Problem("REPORT_EMPTY", _NOT_A_REPORT + ": the file is empty", path, 1)])
    lines = data.split(b"\n")
    ends_whole = lines[-1] == b""
    if ends_whole:
        lines.pop()
    report: Report | None = None
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        last_and_cut = number == len(lines) and not ends_whole
        try:
            value = loads(raw, max_depth=MAX_DEPTH + 8)  # an answer as deep as the protocol allows, in a case line
        except WireError as exc:
            if last_and_cut and report is not None and report.footer is None:
                report.cut = True  # the run ended in the middle of writing a line: what came before stands
                break
            raise InputError([_not_json(path, number, exc, report is None)]) from None
        if report is None:
            report = Report(path, _header(value, path, number))
        else:
            _add(report, value, number)
        report.last_line = number
    assert report is not None  # the file holds a line that is not blank
    return report


_NOT_A_REPORT = "not a report of vitou certify (vitou certify --report FILE.jsonl writes one)"


def _read_bytes(path: str) -> bytes:
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a directory, a FIFO, a device: never opened
            raise InputError([Problem("REPORT_UNREADABLE", "not a regular file", path)])
        with open(path, "rb") as fh:
            data = fh.read(MAX_REPORT_BYTES + 1)
    except OSError as exc:
        raise InputError([Problem("REPORT_UNREADABLE", f"cannot read it: {exc.strerror or exc}", path)]) from None
    if len(data) > MAX_REPORT_BYTES:
        raise InputError([Problem("REPORT_TOO_BIG", f"over {MAX_REPORT_BYTES >> 20} MiB: {_NOT_A_REPORT}", path)])
    return data


def _not_json(path: str, number: int, exc: WireError, first: bool) -> Problem:
    if first:
        return Problem("REPORT_NOT_VITOU", f"{_NOT_A_REPORT}: {exc.message}", path, number)
    return Problem("REPORT_NOT_JSON", f"the line is not JSON: {escape.text(exc.message, 200)}", path, number)


def _header(value: Any, path: str, number: int) -> dict[str, Any]:
    if isinstance(value, dict) and value.get("type") == "footer" and isinstance(value.get("fatal"), str):
        why = escape.text(value["fatal"], 300)
        raise InputError([Problem("REPORT_NO_RUN", f"the run never started: {why}", path, number)])
    harness = value.get("harness") if isinstance(value, dict) else None
    if not (isinstance(value, dict) and value.get("type") == "header" and isinstance(harness, dict)):
        raise InputError([Problem("REPORT_NOT_VITOU", f"{_NOT_A_REPORT}: the first line is no header", path, number)])
    if harness.get("name") != HARNESS:
        got = escape.text(harness.get("name"), 80)
        raise InputError([Problem("REPORT_NOT_VITOU", f"{_NOT_A_REPORT}: written by {got}", path, number)])
    wrong = _wrong_header_fields(value)
    if wrong is not None:
        where, what = wrong
        raise InputError([Problem("REPORT_MALFORMED", f"the header's {what}", path, number, path=where)])
    return value


def _wrong_header_fields(value: Mapping[str, Any]) -> tuple[str, str] | None:
    rulesets = value.get("rulesets")
    if not isinstance(rulesets, list) or not all(isinstance(r, str) for r in rulesets):
        return "/rulesets", "'rulesets' is not a list of ruleset names"
    spec = value.get("spec")
    if not isinstance(spec, dict) or not all(v is None or isinstance(v, str) for v in spec.values()):
        return "/spec", "'spec' is not a mapping of ruleset names to content hashes"
    suite = value.get("suite")
    if not isinstance(suite, dict) or not isinstance(suite.get("hash", ""), (str, type(None))):
        return "/suite", "'suite' is not an object with a string 'hash'"
    if type(suite.get("cases", 0)) is not int:
        return "/suite/cases", "'suite' has a number of cases that is not a whole number"
    if not isinstance(value.get("implementation"), (dict, type(None))):
        return "/implementation", "'implementation' is not an object"
    if value.get("level", CODE) not in LEVELS:
        return "/level", "'level' is neither 'code' nor 'outcome'"
    planned = value.get("planned", {"rules": {}, "envelope": {}})
    rules = planned.get("rules") if isinstance(planned, dict) else None
    envelope = planned.get("envelope") if isinstance(planned, dict) else None
    if not (_by_ruleset(rules) and (_strings(envelope) or _by_ruleset(envelope))):  # a list: the envelope ran once
        return "/planned", "'planned' is not the case ids of each ruleset, rules and envelope"
    return None


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _by_ruleset(value: Any) -> bool:
    return isinstance(value, dict) and all(_strings(ids) for ids in value.values())


def _add(report: Report, value: Any, number: int) -> None:
    path = report.path
    if report.footer is not None:
        raise InputError([Problem("REPORT_MALFORMED", "a line after the footer", path, number)])
    kind = value.get("type") if isinstance(value, dict) else None
    if kind == "footer":
        if not isinstance(value.get("verdicts", []), list):
            raise InputError([Problem("REPORT_MALFORMED", "the footer's 'verdicts' is not a list", path, number)])
        report.footer = value
        report.footer_line = number
        return
    if kind != "case":
        what = "a header again" if kind == "header" else f"a line of unknown type {escape.text(kind, 40)}"
        what = what if isinstance(value, dict) else "a line that is not a JSON object"
        raise InputError([Problem("REPORT_MALFORMED", what, path, number, path="/type")])
    case = case_line(value, path, number)
    first = report.lines_of.setdefault(case.key, number)
    if first != number:
        what = f"{escape.text(case.id, 60)} under {escape.text(case.key[0], 60)} again (first on line {first})"
        raise InputError([Problem("REPORT_DUPLICATE_CASE", what, path, number)])
    report.cases.append(case)


def short_hash(value: str | None) -> str:
    """A content hash as people read it: its algorithm and first 12 digits; 'none' when the report has none."""
    if not value:
        return "none (a report of an older vitou)"
    algorithm, _, digits = value.partition(":")
    return f"{escape.text(algorithm, 10)}:{escape.text(digits[:12], 12)}" if digits else escape.text(value[:19], 19)


def _full(value: str | None) -> str:
    return escape.text(value, 100) if value else "none (a report of an older vitou)"


def mismatches(reports: Iterable[Report], doing: str = "merged") -> Iterator[Problem]:
    """Each report whose suite, or the spec of a ruleset it shares, differs from the first report to name it."""
    first_suite: Report | None = None
    first_spec: dict[str, Report] = {}
    for r in reports:
        if first_suite is None:
            first_suite = r
        elif r.suite_hash != first_suite.suite_hash:
            yield Problem(
                "REPORT_OTHER_SUITE",
                f"its suite is {_full(r.suite_hash)}, that of {first_suite.path} is "
                f"{_full(first_suite.suite_hash)}: reports of different suites are not {doing}",
                r.path,
                1,
            )
        for name, content in r.spec.items():
            seen = first_spec.setdefault(name, r)
            if seen.spec.get(name) != content:
                yield Problem(
                    "REPORT_OTHER_SPEC",
                    f"its {escape.text(name, 60)} is {_full(content)}, that of {seen.path} is "
                    f"{_full(seen.spec.get(name))}: results under different rules are not {doing}",
                    r.path,
                    1,
                )
