"""What certification reports: verdicts, pass rates by section and clause, and the text, Markdown and JSON forms."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from .._version import __version__
from ..engine.reasons import catalog, section_titles
from ..present import escape
from ..present import markdown as mdown
from ..protocol.client import IDENTITY
from ..rules.model import Ruleset
from ..rules.plurals import counted
from .caseresult import ENVELOPE, ERRORED, FAILED, PASSED, SKIPPED, XFAIL, XPASS, CaseResult, outcome_level
from .certify import Run
from .envelope import EnvelopeCase, envelope_under
from .judge import CODE, OUTCOME
from .notrun import not_run
from .refusals import Refusals, shown


def section_title(section: str, at: int, ruleset: str = "vitou") -> str:
    """A section's title as the rulebook names it (the English catalogue), for any ruleset's text: "Raise, accept or refuse".

    ``at``: the ruleset's own score of its twenty-point ending, which a title may name.
    """
    title = section_titles(catalog("en"), ruleset).get(section, "")
    with contextlib.suppress(KeyError, IndexError, ValueError):
        title = title.format(at=at)
    return title


def status_of(counts: Mapping[str, int], total: int) -> str:
    """The status the outcomes of ``total`` cases give: conformant, known failures only, not conformant, not offered."""
    if total and counts.get(SKIPPED, 0) == total:
        return "not offered"
    if any(counts.get(k, 0) for k in (FAILED, ERRORED, XPASS)):
        return "not conformant"
    if counts.get(XFAIL, 0):
        return "known failures only"
    return "conformant"


class _Faulted(Protocol):
    @property
    def fault(self) -> str | None: ...
    @property
    def reason(self) -> str | None: ...


def changed_identity(cases: Iterable[_Faulted]) -> str | None:
    """How the implementation changed its identity during a run: the reason of its case whose fault says so, or None.

    certify gives it to every verdict of the run from its results, and ``vitou report`` from the report's case lines.
    """
    return next((c.reason or "" for c in cases if c.fault == IDENTITY), None)


def counts_of(outcomes: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o] = counts.get(o, 0) + 1
    return counts


@dataclass
class Verdict:
    ruleset: str
    counts: dict[str, int]
    total: int
    clauses_passed: int
    clauses_total: int
    sections: dict[str, tuple[int, int]] = field(default_factory=dict)  # section -> (passed, cases)
    clauses: dict[str, tuple[int, int]] = field(default_factory=dict)
    twenty_at: int = 20  # the score of the ruleset's twenty-point ending, named in the title of §04
    kind: str = "rules"  # or ENVELOPE: the protocol's lines, judged apart (sections are then topics)
    smoke: bool = False  # a smoke test (--smoke): a few cases, which certify nothing
    level: str = CODE  # the level certified (docs/reference/protocol.md, Levels)
    at_outcome: dict[str, int] | None = None  # a code-level run's counts at the outcome level, if they differ
    changed: str | None = None  # how the implementation changed its identity during the run, if it did
    suite: str | None = None  # the suite run, when it is not one vitou ships: cases of one's own certify nothing
    only: bool = False  # cases chosen with --only: a part of the suite certifies nothing
    refusals: Refusals | None = None  # who decided the refusals, when the answers mark them: counted, never judged

    def section_title(self, section: str) -> str:
        return section_title(section, self.twenty_at, self.ruleset)

    def _status(self, counts: Mapping[str, int]) -> str:
        # Answers given under two identities are no run of one implementation: no case of it can certify.
        return "not conformant" if self.changed is not None else status_of(counts, self.total)

    @property
    def status(self) -> str:
        return self._status(self.counts)

    @property
    def levels(self) -> dict[str, str]:
        """The status at each level judged: a run at the code level judges the outcome level too."""
        if self.level == OUTCOME:
            return {OUTCOME: self.status}
        return {CODE: self.status, OUTCOME: self._status(self.outcome_counts)}

    @property
    def outcome_counts(self) -> dict[str, int]:
        """The counts at the outcome level (at the code level, a failure on codes alone counts as a pass)."""
        return self.counts if self.at_outcome is None else self.at_outcome

    @property
    def ok(self) -> bool:
        return self.status in ("conformant", "known failures only")

    @property
    def certified(self) -> bool:
        """Whether this verdict certifies: a conformant run of a shipped suite, never a smoke test."""
        return self.status == "conformant" and not self.smoke and self.suite is None and not self.only

    def line(self) -> str:
        passed = self.counts.get(PASSED, 0)
        if self.smoke:
            head = "SMOKE OK" if self.ok else "SMOKE FAILED"
        else:
            head = "CONFORMANT" if self.status == "conformant" else "NOT CONFORMANT"
        # What became of the cases that did not pass, right after the cases they are counted among.
        extra = [f"{self.counts[k]} {k}" for k in (FAILED, ERRORED, SKIPPED, XFAIL, XPASS) if self.counts.get(k)]
        how = f" ({', '.join(extra)})" if extra else ""
        of_cases = f"{passed}/{self.total} cases{self._of()}{how}"
        if self.kind == ENVELOPE:
            text = f"{head} envelope (protocol lines, under {self.ruleset}): {of_cases}"
        else:
            # The level is named when it is the outcome level, or when the two levels' verdicts differ.
            named = self.level == OUTCOME or self.at_outcome is not None
            text = f"{head}{f' at the {self.level} level' if named else ''} {self.ruleset}: {of_cases}"
            text += f", {self.clauses_passed}/{self.clauses_total} clauses"
        if self.status == "known failures only":
            text += "; every failure is a listed known failure"
        if self.status == "not offered":
            text += "; the implementation does not offer this ruleset"
        if self.at_outcome is not None and self.kind != ENVELOPE:
            text += f"; {self._outcome_words()}"
        if self.changed is not None:
            text += f"; no case of this run counts: {self.changed}"
        if self.smoke:
            text += "; a smoke test, not a certification"
        elif self.suite is not None:
            text += "; not the conformance suite: no certification"
        elif self.only:
            text += "; cases chosen with --only: no certification"
        return text

    def _of(self) -> str:
        return "" if self.suite is None or self.smoke else f" of {escape.text(self.suite, 200)}"

    def _outcome_words(self) -> str:
        status = self.levels[OUTCOME]
        head = "CONFORMANT" if status == "conformant" else "NOT CONFORMANT"
        passed = self.outcome_counts.get(PASSED, 0)
        also = "also " if status == "conformant" and self.status == "conformant" else ""
        differ = self.outcome_counts.get(PASSED, 0) - self.counts.get(PASSED, 0)
        return (
            f"{also}{head} at the outcome level: {passed}/{self.total} cases"
            f" ({counted(differ, 'case differs', 'cases differ')} only in error codes)"
        )

    def to_json(self) -> dict[str, Any]:
        changed = {} if self.changed is None else {"identity_changed": self.changed}
        refusals = {} if self.refusals is None else {"refusals": self.refusals.to_json()}
        return {
            **changed,
            **refusals,
            "ruleset": self.ruleset,
            "kind": self.kind,
            "status": self.status,
            "certified": self.certified,
            "smoke": self.smoke,
            "line": self.line(),
            "level": self.level,
            "levels": self.levels,
            "counts": self.counts,
            "total": self.total,
            "clauses": {"passed": self.clauses_passed, "total": self.clauses_total},
            ("by_topic" if self.kind == ENVELOPE else "by_section"): {
                s: {"passed": a, "cases": b} for s, (a, b) in sorted(self.sections.items())
            },
            "by_clause": {c: {"passed": a, "cases": b} for c, (a, b) in sorted(self.clauses.items())},
        }


def verdicts(run: Run, rules: Mapping[str, Ruleset | None]) -> list[Verdict]:
    out = []
    for name in run.options.rulesets:
        results = run.for_ruleset(name)
        counts = counts_of([r.outcome for r in results])
        ruleset = rules.get(name)
        section_of = {c.id: c.section for c in ruleset.clauses} if ruleset else {}
        by_clause: dict[str, list[bool]] = {}
        by_section: dict[str, list[bool]] = {}
        for r in results:
            if r.outcome == SKIPPED:
                continue
            good = r.outcome == PASSED
            seen_sections = set()
            for declared in r.case.clauses:
                clause = ruleset.current_clause(declared) if ruleset else declared
                by_clause.setdefault(clause, []).append(good)
                seen_sections.add(section_of.get(clause, "?"))
            for s in seen_sections:
                by_section.setdefault(s, []).append(good)
        twenty_at = ruleset.params.twenty_at if ruleset else 20
        v = tallied(name, counts, len(results), by_clause, by_section, twenty_at=twenty_at)
        v.refusals = shown(run.refusals, name)
        if run.level == CODE and any(r.codes_only for r in results):
            v.at_outcome = counts_of([outcome_level(r.outcome, r.codes_only) for r in results])
        out.append(v)
    # The envelope's verdicts after the rules', one per ruleset it ran under, each on every envelope case.
    out += [_envelope_verdict(n, envelope_results(run, n)) for n in run.options.rulesets if envelope_results(run, n)]
    changed = changed_identity(run.results)
    for v in out:
        v.smoke = run.options.smoke
        v.level = run.level  # an envelope case's steps were judged at the run's level, its errored answers at both
        v.changed = changed
        v.suite = None if run.suite.published else run.suite.root
        v.only = bool(run.options.only)
    return out


def tallied(
    name: str,
    counts: dict[str, int],
    total: int,
    by_clause: Mapping[str, list[bool]],
    by_section: Mapping[str, list[bool]],
    *,
    twenty_at: int = 20,
    kind: str = "rules",
) -> Verdict:
    """A verdict from the cases' outcomes, each clause and section with the passes of the cases that declare it."""
    clauses = {c: (sum(v), len(v)) for c, v in by_clause.items()}
    return Verdict(
        name,
        counts,
        total,
        sum(1 for a, b in clauses.values() if a == b),
        len(clauses),
        {s: (sum(v), len(v)) for s, v in by_section.items()},
        clauses,
        twenty_at,
        kind,
    )


def envelope_results(run: Run, ruleset: str) -> list[CaseResult]:
    """The envelope cases' results under one ruleset: what its envelope verdict (and JUnit suite) counts."""
    return [r for r in run.envelope() if r.ruleset == ruleset]


def _envelope_verdict(ruleset: str, results: list[CaseResult]) -> Verdict:
    counts = counts_of([r.outcome for r in results])
    topics: dict[str, list[bool]] = {}
    for r in results:
        if r.outcome != SKIPPED and isinstance(r.case, EnvelopeCase):
            topics.setdefault(r.case.topic, []).append(r.outcome == PASSED)
    sections = {t: (sum(v), len(v)) for t, v in topics.items()}
    return Verdict(ruleset, counts, len(results), 0, 0, sections, kind=ENVELOPE)


def rules_text(ruleset: Ruleset) -> dict[str, Any]:
    """For a report's header: the ruleset's sections with their titles, each clause's section, the ids replaced."""
    titles = {s: section_title(s, ruleset.params.twenty_at, ruleset.id) for s in {c.section for c in ruleset.clauses}}
    clauses = {c.id: c.section for c in ruleset.clauses}
    return {"sections": dict(sorted(titles.items())), "clauses": clauses, "replaced": dict(ruleset.replaced)}


def exit_status(vs: list[Verdict]) -> int:
    return 0 if vs and all(v.ok for v in vs) else 1


# ------------------------------------------------------------------ text


COUNTS_IN_EACH = "a case counts in each section its clauses touch, so the sections add up to more cases than ran"


def render_text(run: Run, vs: list[Verdict]) -> str:
    lines: list[str] = []
    impl = run.implementation or {}
    lines.append(
        f"implementation: {_field(impl, 'name')} {_field(impl, 'version')} ({_field(impl, 'language')}); "
        f"protocol 1.{run.protocol_minor}; offers {escape.text(', '.join(run.offered), 500) or 'nothing'}"
    )
    cases = counted(len(run.suite.cases), "case", "cases")
    if run.suite.envelope:
        cases += f" and {counted(len(run.suite.envelope), 'envelope case', 'envelope cases')}"
    sent = sum(1 for r in run.results if r.outcome != SKIPPED)
    lines.append(f"suite: {cases}; {sent} run in {run.seconds:.2f}s")
    why = not_run(run)
    if why:
        lines.append(f"not run: {why}")
    if run.restarts:
        lines.append(f"restarts: {run.restarts}")
    if run.fatal:
        lines.append(f"stopped early: {escape.text(run.fatal, 2000)}")
    lines += [line for r in run.results if r.outcome in (FAILED, ERRORED, XPASS) for line in r.text_lines()]
    for v in vs:
        lines.append("")
        if v.kind == ENVELOPE:
            head = f"{envelope_under(v.ruleset)} by topic"
            lines.append(f"{head} (docs/reference/protocol.md, lines that are not proper requests):")
            lines.extend(f"  {t}: {a}/{b} cases" for t, (a, b) in sorted(v.sections.items()))
            continue
        # A case declares clauses of one section or several, and counts in each: the sections' cases add up to
        # more than the run's, and the heading says so before anyone adds them.
        lines.append(f"{v.ruleset} by rules-text section ({COUNTS_IN_EACH}):")
        for s, (a, b) in sorted(v.sections.items()):
            lines.append(f"  §{s} {v.section_title(s)}: {a}/{b} cases")
        weak = {c: ab for c, ab in v.clauses.items() if ab[0] != ab[1]}
        lines.append(f"{v.ruleset} by clause: {v.clauses_passed}/{v.clauses_total} clauses pass every case")
        for c, (a, b) in sorted(weak.items()):
            lines.append(f"  {c}: {a}/{b} cases")
        if v.refusals is not None:
            lines.append(v.refusals.words(v.ruleset))
    lines.append("")
    lines.extend(f"{v.line()}; {attribution(run, v)}" for v in vs)
    return "\n".join(lines) + "\n"


def _field(impl: Mapping[str, Any], key: str) -> str:
    value = impl.get(key)
    return escape.text(value, 60) if isinstance(value, str) else "?"


def attribution(run: Run, v: Verdict) -> str:
    """Who the verdict is about: the implementation as it named itself, and the command that started it.

    ``certified:`` only for a verdict that certifies; ``tested:`` for every
    other (not conformant, known failures, a smoke test).
    """
    impl = run.implementation or {}
    name = " ".join(escape.text(impl.get(k), 60) for k in ("name", "version") if isinstance(impl.get(k), str))
    word = "certified" if v.certified else "tested"
    return f"{word}: {name or 'an unnamed implementation'} ({escape.text(run.options.label, 200)})"


def render_markdown(run: Run, vs: list[Verdict]) -> str:
    impl, md, code = run.implementation or {}, mdown.text, mdown.code
    what = "Smoke test" if run.options.smoke else "Certification" if all(v.certified for v in vs) else "Test"
    out = [mdown.heading(1, f"{what} of {md(_field(impl, 'name'))} {md(_field(impl, 'version'))}"), ""]
    for v in vs:
        out += [f"**{md(v.line())}**", ""]
        if v.kind == ENVELOPE:
            topics = [[md(t), f"{a}/{b}"] for t, (a, b) in sorted(v.sections.items())]
            out += [*mdown.table(["envelope topic", "cases passed"], topics), ""]
            continue
        sections = [[f"§{md(s)} {md(v.section_title(s))}", f"{a}/{b}"] for s, (a, b) in sorted(v.sections.items())]
        out += [
            *mdown.table(["§section", "cases passed"], sections),
            "",
            md(COUNTS_IN_EACH[0].upper() + COUNTS_IN_EACH[1:] + "."),
        ]
        out += [
            "",
            *mdown.table(
                ["clause", "cases passed"], [[code(c), f"{a}/{b}"] for c, (a, b) in sorted(v.clauses.items())]
            ),
        ]
        if v.refusals is not None:
            out += ["", md(v.refusals.words(v.ruleset))]
        out.append("")
    bad = [r for r in run.results if r.outcome in (FAILED, ERRORED, XPASS)]
    if bad:
        rows = [[md(r.case.id), md(r.ruleset), r.outcome, md(r.reason or "", 2000)] for r in bad]
        out += [
            mdown.heading(2, "Divergences"),
            "",
            *mdown.table(["case", "ruleset", "outcome", "first difference"], rows),
        ]
        out.append("")
    return "\n".join(out)


def render_json(run: Run, vs: list[Verdict]) -> dict[str, Any]:
    return {
        "harness": {"name": "vitou certify", "version": __version__},
        "smoke": run.options.smoke,
        "implementation": run.implementation,
        "protocol": f"1.{run.protocol_minor}",
        "level": run.level,
        "offered": run.offered,
        "seconds": round(run.seconds, 3),
        "restarts": run.restarts,
        "fatal": run.fatal,
        "verdicts": [v.to_json() for v in vs],
        "cases": [r.to_json() for r in run.results],
    }
