"""Many reports side by side: a tally per implementation and ruleset, by section and clause, and the cases where they differ."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..kit.caseresult import ENVELOPE, PASSED, SKIPPED, outcome_level
from ..kit.envelope import envelope_under
from ..kit.judge import CODE, OUTCOME
from ..kit.verdicts import Verdict, changed_identity, counts_of, tallied
from .caseline import CaseLine
from .read import Report, short_hash

INCOMPLETE = "incomplete"  # a run cut short that had failed nothing so far: no verdict can be given


@dataclass(frozen=True)
class Entrant:
    """One report: an implementation as it named itself in one run, with a label no other entrant has.

    Every table indexes results by ``key``, the report's position as a letter (A, B, ... AA), never by text the
    implementation gave: a name or version made to look like another report's label cannot take its column.
    """

    report: Report
    label: str  # for people: the implementation's words, made unique; shown, never looked up
    letter: str
    told_by: str = ""  # what the label adds to tell the report apart: "command", "file" or "path" (or nothing)

    def whence(self) -> list[str]:
        """Where the report comes from, its file then its command, leaving out what the label already says."""
        r = self.report
        out = [] if self.told_by in ("file", "path") else [r.path]
        return out if self.told_by == "command" else [*out, r.command or "command not recorded"]

    @property
    def key(self) -> str:
        return self.letter


@dataclass(frozen=True)
class Tally:
    """One entrant's results on one ruleset (or on the envelope), and the verdict they give."""

    entrant: Entrant
    ruleset: str
    results: Mapping[str, CaseLine]  # case id -> its result, in the order run
    verdict: Verdict

    @property
    def status(self) -> str:
        return self._as_read(self.verdict.status)

    def _as_read(self, status: str) -> str:
        if self.entrant.report.stopped is not None and status != "not conformant":
            return INCOMPLETE
        return "no cases" if not self.verdict.total else status

    @property
    def levels(self) -> dict[str, str]:
        """The status at each level the run judged: a code-level run judges both, an older report the code level."""
        if not self.entrant.report.judges_levels:
            return {CODE: self.status}
        return {level: self._as_read(status) for level, status in self.verdict.levels.items()}

    def level_text(self) -> str:
        """The level certified, and the outcome level's verdict where a code-level run's differs from it."""
        levels = self.levels
        if len(levels) == 1:
            return next(iter(levels))
        if levels[OUTCOME] == levels[CODE]:
            return "code and outcome"  # the same verdict at both: what passes at the code level passes at both
        return f"code; {levels[OUTCOME]} at the outcome level"

    @property
    def passed(self) -> int:
        return self.verdict.counts.get(PASSED, 0)

    def verdict_text(self) -> str:
        extra = [f"{n} {k}" for k, n in sorted(self.verdict.counts.items()) if k != PASSED and n]
        return self.status + (f" ({', '.join(extra)})" if extra else "")


@dataclass
class Group:
    """A ruleset as its hashes tell it (or the envelope under one): the tallies of the entrants that ran it."""

    name: str
    envelope: bool
    spec_hash: str | None
    suite_hash: str | None
    label: str = ""
    tallies: list[Tally] = field(default_factory=list)
    sections: dict[str, str] = field(default_factory=dict)  # section -> its title
    clause_section: dict[str, str] = field(default_factory=dict)  # clause -> its section, in the spec's order
    replaced: dict[str, str] = field(default_factory=dict)  # clause ids a profile replaced -> their replacements

    def differing(self) -> list[tuple[CaseLine, dict[str, CaseLine]]]:
        """Each case whose outcome differs between the entrants that ran it (or, run by one, that it did not pass)."""
        ids: dict[str, CaseLine] = {}  # by id, as people look cases up
        for t in self.tallies:
            for case_id, case in t.results.items():
                ids.setdefault(case_id, case)
        out = []
        for case_id, first in sorted(ids.items()):
            row = {t.entrant.key: t.results[case_id] for t in self.tallies if case_id in t.results}
            behaviours = {c.behaviour for c in row.values()}
            if len(behaviours) > 1 or (len(self.tallies) == 1 and behaviours != {PASSED}):
                out.append((first, row))
        return out

    def clause_rows(self) -> list[tuple[str, str, dict[str, tuple[int, int]]]]:
        """(section, clause, entrant key -> (passed, cases)) for every clause a case exercised, by section."""
        seen: dict[str, None] = dict.fromkeys(self.clause_section)
        for t in self.tallies:
            seen.update(dict.fromkeys(sorted(t.verdict.clauses)))
        rows = [
            (
                self.clause_section.get(c, "?"),
                c,
                {t.entrant.key: t.verdict.clauses[c] for t in self.tallies if c in t.verdict.clauses},
            )
            for c in seen
        ]
        return sorted((r for r in rows if r[2]), key=lambda r: r[0])  # stable: the spec's order within a section

    def differing_clauses(self) -> list[tuple[str, str, dict[str, tuple[int, int]]]]:
        """The clause rows whose pass rates differ between the entrants (all of one ruleset's cases, or some)."""
        if len(self.tallies) == 1:
            return [row for row in self.clause_rows() if any(a != b for a, b in row[2].values())]
        return [row for row in self.clause_rows() if len({Fraction(a, b) for a, b in row[2].values() if b}) > 1]

    def section_rows(self) -> list[tuple[str, dict[str, tuple[int, int]]]]:
        sections = sorted({s for t in self.tallies for s in t.verdict.sections})
        return [
            (s, {t.entrant.key: t.verdict.sections[s] for t in self.tallies if s in t.verdict.sections})
            for s in sections
        ]

    def title(self, section: str) -> str:
        return self.sections.get(section, "")


@dataclass
class Comparison:
    entrants: list[Entrant]
    groups: list[Group]  # the rulesets in the order first run, then the envelope under each

    def rows(self) -> list[tuple[Entrant, Tally, Tally | None]]:
        """The summary: per entrant, per ruleset it ran, its tally and the envelope's under that ruleset, if it ran."""
        out = []
        for e in self.entrants:
            envelope = {t.ruleset: t for g in self.groups if g.envelope for t in g.tallies if t.entrant is e}
            for g in self.groups:
                for t in g.tallies:
                    if t.entrant is e and not g.envelope:
                        out.append((e, t, envelope.get(t.ruleset)))
        return out

    @property
    def suite_hashes(self) -> list[str | None]:
        return list(dict.fromkeys(e.report.suite_hash for e in self.entrants))


def compare(reports: Sequence[Report]) -> Comparison:
    """The reports side by side; reports of other suites or other rules stay apart, in groups of their own."""
    entrants = _entrants(reports)
    groups: dict[tuple[str, str | None, str | None], Group] = {}
    for e in entrants:
        r = e.report
        by_ruleset: dict[str, dict[str, CaseLine]] = {name: {} for name in r.rulesets}
        envelope: dict[str, dict[str, CaseLine]] = {}  # the envelope under each ruleset it ran under
        for case in r.cases:
            (envelope if case.envelope else by_ruleset).setdefault(case.ruleset, {})[case.id] = case
        for name, results in by_ruleset.items():
            if not results and name not in envelope:
                continue  # a ruleset of the run that no case was asked for (--only)
            key = (name, r.spec.get(name), r.suite_hash)
            group = groups.get(key) or groups.setdefault(key, _group(r, name))
            verdict = _verdict(name, results, group, level=r.level, changed=changed_identity(r.cases))
            group.tallies.append(Tally(e, name, results, verdict))
        for name, results in envelope.items():
            key = (envelope_under(name), None, r.suite_hash)
            group = groups.get(key) or groups.setdefault(key, Group(envelope_under(name), True, None, r.suite_hash))
            verdict = _verdict(name, results, group, kind=ENVELOPE, level=r.level, changed=changed_identity(r.cases))
            group.tallies.append(Tally(e, name, results, verdict))
    ordered = sorted(groups.values(), key=lambda g: g.envelope)  # stable: the rulesets in order, the envelope last
    _label_groups(ordered)
    return Comparison(entrants, ordered)


def _group(report: Report, name: str) -> Group:
    text = report.rules_text(name)
    sections, clauses, replaced = (text.get(k) for k in ("sections", "clauses", "replaced"))
    return Group(
        name,
        False,
        report.spec.get(name),
        report.suite_hash,
        sections=_strings(sections),
        clause_section=_strings(clauses),
        replaced=_strings(replaced),
    )


def _strings(value: Any) -> dict[str, str]:
    return (
        {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(value, dict) else {}
    )


def _verdict(
    name: str,
    results: Mapping[str, CaseLine],
    group: Group,
    kind: str = "rules",
    level: str = CODE,
    changed: str | None = None,
) -> Verdict:
    """The verdict of a ruleset, as certify gives it, from the report's case lines (so a cut-short run gets one too).

    At the code level, the case lines that differ only in their error codes give the outcome level's verdict too;
    ``changed``, the change of identity the report's lines record, leaves no verdict of it conformant.
    """
    counts: dict[str, int] = {}
    by_clause: dict[str, list[bool]] = {}
    by_section: dict[str, list[bool]] = {}
    for case in results.values():
        counts[case.outcome] = counts.get(case.outcome, 0) + 1
        if case.outcome == SKIPPED or kind == ENVELOPE:
            continue
        sections = set()
        for declared in case.clauses:
            clause = _current(declared, group.replaced)
            by_clause.setdefault(clause, []).append(case.outcome == PASSED)
            sections.add(group.clause_section.get(clause, "?"))
        for s in sections:
            by_section.setdefault(s, []).append(case.outcome == PASSED)
    verdict = tallied(name, counts, len(results), by_clause, by_section, kind=kind)
    verdict.level = level
    verdict.changed = changed
    if level == CODE and any(c.codes_only for c in results.values()):
        verdict.at_outcome = counts_of([outcome_level(c.outcome, c.codes_only) for c in results.values()])
    return verdict


def _current(clause: str, replaced: Mapping[str, str]) -> str:
    seen = set()
    while clause in replaced and clause not in seen:
        seen.add(clause)
        clause = replaced[clause]
    return clause


def _entrants(reports: Sequence[Report]) -> list[Entrant]:
    """A label for each report: name and version, and where others have the same, the command or else the file.

    The words come from the implementation, so a version may be written to equal another report's label once
    disambiguated ("1.0 (cmdA)"): any label still shared then ends in its report's letter, until none is.
    """
    base = [f"{r.name} {r.version}" for r in reports]
    labels = list(base)
    told = [""] * len(reports)
    details: list[tuple[str, Callable[[Report], str]]] = [
        ("command", lambda r: r.command),
        ("file", lambda r: os.path.basename(r.path)),
        ("path", lambda r: r.path),
    ]
    for label in dict.fromkeys(base):
        same = [i for i, b in enumerate(base) if b == label]
        if len(same) < 2:
            continue
        by, detail = next((d for d in details if len({d[1](reports[i]) for i in same}) == len(same)), details[-1])
        for i in same:
            labels[i] = f"{label} ({detail(reports[i])})"
            told[i] = by
    while len(set(labels)) < len(labels):  # each round lengthens every shared label by a letter no other has
        shared = {x for x in labels if labels.count(x) > 1}
        labels = [f"{x} [report {_letter(i)}]" if x in shared else x for i, x in enumerate(labels)]
    return [Entrant(r, label, _letter(i), told[i]) for i, (label, r) in enumerate(zip(labels, reports))]


def _letter(i: int) -> str:
    out = ""
    i += 1
    while i:
        i, rest = divmod(i - 1, 26)
        out = chr(ord("A") + rest) + out
    return out


def _label_groups(groups: Sequence[Group]) -> None:
    """A group's label is its ruleset's name, with its hashes when another group has the same name."""
    names: dict[str, int] = {}
    for g in groups:
        names[g.name] = names.get(g.name, 0) + 1
    for g in groups:
        if names[g.name] > 1:
            spec = "" if g.envelope else f"spec {short_hash(g.spec_hash)}, "
            g.label = f"{g.name} ({spec}suite {short_hash(g.suite_hash)})"
        else:
            g.label = g.name
