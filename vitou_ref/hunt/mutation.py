"""The suite's mutation score: every mutant certified through the protocol, and optionally fuzzed."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..kit.caseresult import ERRORED, FAILED
from ..kit.certify import Certifier, HarnessError, Options
from ..kit.suite import Suite, load_suite
from ..present import markdown as mdown
from ..rules.plurals import counted
from ..rules.registry import load_ruleset
from .mutantops import Mutant
from .mutants import BY_NAME, MUTANTS


def mutant_command(name: str) -> list[str]:
    return [sys.executable, "-m", "vitou_ref.adapter", "--mutant", name]


@dataclass
class FuzzFinding:
    found: bool
    matches: int
    seconds: float
    where: str | None = None
    actions: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"found": self.found, "matches": self.matches, "seconds": round(self.seconds, 2)}
        if self.found:
            out.update(where=self.where, actions=self.actions)
        return out


@dataclass
class Row:
    mutant: Mutant
    killed_by: list[str] = field(default_factory=list)
    problem: str | None = None  # the mutant could not be certified at all
    fuzz: FuzzFinding | None = None

    @property
    def killed(self) -> bool:
        return bool(self.killed_by)

    @property
    def status(self) -> str:
        if self.problem is not None:
            return "not run"
        if self.killed:
            return "killed"
        return "equivalent" if self.mutant.equivalent else "survived"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "mutant": self.mutant.name,
            "mistake": self.mutant.mistake,
            "status": self.status,
            "killed_by": self.killed_by,
        }
        if self.mutant.equivalent:
            out["equivalent"] = self.mutant.equivalent
        if self.problem:
            out["problem"] = self.problem
        if self.fuzz is not None:
            out["fuzz"] = self.fuzz.to_json()
        return out


@dataclass
class Table:
    rows: list[Row]
    cases: int
    seconds: float
    base: str  # the ruleset the mutants are made from, and the cases run under

    @property
    def counted(self) -> list[Row]:
        """The mutants the score counts: all but those shown equivalent (unless something kills them anyway)."""
        return [r for r in self.rows if not r.mutant.equivalent or r.killed]

    @property
    def score(self) -> float:
        counted = self.counted
        if not counted:
            return 0.0
        return 100.0 * sum(r.killed for r in counted) / len(counted)

    @property
    def anomalies(self) -> list[str]:
        """What contradicts the table's own claims: an "equivalent" mutant caught, a mutant that would not run."""
        out = []
        for r in self.rows:
            if r.problem is not None:
                out.append(f"{r.mutant.name}: {r.problem}")
            elif r.mutant.equivalent and (r.killed or (r.fuzz is not None and r.fuzz.found)):
                out.append(f"{r.mutant.name} is documented as equivalent but something tells it apart")
        return out

    def to_json(self) -> dict[str, Any]:
        counted = self.counted
        return {
            "type": "mutation",
            "ruleset": self.base,
            "cases": self.cases,
            "mutants": len(self.rows),
            "equivalent": sum(1 for r in self.rows if r.status == "equivalent"),
            "killed": sum(r.killed for r in counted),
            "score": round(self.score, 1),
            "seconds": round(self.seconds, 1),
            "anomalies": self.anomalies,
            "rows": [r.to_json() for r in self.rows],
        }


def _certify_mutant(suite: Suite, mutant: Mutant, timeout: float, base: str) -> Row:
    cases = suite.applicable(base)
    options = Options(argv=mutant_command(mutant.name), label=mutant.name, rulesets=[base], timeout=timeout)
    try:
        run = Certifier(suite, {base: cases}, options).run()
    except HarnessError as exc:
        return Row(mutant, problem=str(exc))
    if run.fatal is not None:
        return Row(mutant, problem=run.fatal)
    # An errored case counts as a kill: the mutant refused a setup that is valid under the true rules
    # (a draw that settles the dealer differently, say), and that is the suite telling it apart.
    return Row(mutant, killed_by=[r.case.id for r in run.results if r.outcome in (FAILED, ERRORED)])


def _fuzz_mutant(mutant: Mutant, examples: int, seed: int, base: str) -> FuzzFinding:
    from ..protocol.connection import Fault
    from .fuzz import Fuzzer

    fuzzer = Fuzzer(load_ruleset(base), mutant_command(mutant.name))
    try:
        result = fuzzer.run(examples, seed, None)
    except Fault as exc:
        return FuzzFinding(False, 0, 0.0, where=f"could not run: {exc.message}")
    finally:
        fuzzer.close()
    d = result.divergence
    if d is None:
        return FuzzFinding(False, result.matches, result.seconds)
    return FuzzFinding(True, result.matches, result.seconds, d.where, len(d.case.actions))


def run_mutation(
    base: str,
    only: Sequence[str] | None = None,
    fuzz: bool = False,
    fuzz_examples: int = 400,
    seed: int = 1,
    *,
    suite_path: str | None = None,
    workers: int = 2,
    timeout: float = 10.0,
    progress: Callable[[Row], None] | None = None,
) -> Table:
    """Certify the suite's cases for ``base`` (a version of vitou, le-truc or truco-paulista) against each of its mutants, and fuzz
    them if asked.

    KeyError for an unknown mutant name; a mutant that cannot be made in ``base``'s game and version is left out.
    """
    game, _, version = base.partition("/")
    chosen = [m for m in ([BY_NAME[n] for n in only] if only else MUTANTS) if m.applies_to(version, game)]
    suite = load_suite(suite_path)
    t0 = time.perf_counter()

    def one(m: Mutant) -> Row:
        row = _certify_mutant(suite, m, timeout, base)
        if fuzz and row.problem is None:
            row.fuzz = _fuzz_mutant(m, fuzz_examples, seed, base)
        if progress is not None:
            progress(row)
        return row

    # Each mutant is its own process; two at a time keeps both cores of a small machine busy.
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        rows = list(pool.map(one, chosen))
    return Table(rows, len(suite.applicable(base)), time.perf_counter() - t0, base)


def _killers(row: Row, most: int = 3) -> str:
    if not row.killed_by:
        return "-"
    shown = ", ".join(row.killed_by[:most])
    more = len(row.killed_by) - most
    return shown + (f" (+{more})" if more > 0 else "")


def _fuzz_cell(row: Row) -> str:
    f = row.fuzz
    if f is None:
        return ""
    if not f.found:
        return f"nothing in {counted(f.matches, 'match', 'matches')}" if f.where is None else f.where
    return f"found at {f.where}, {counted(f.actions or 0, 'action', 'actions')}"


def render_mutation(table: Table, markdown: bool = False) -> str:
    fuzzed = any(r.fuzz is not None for r in table.rows)
    head = ["mutant"] + (["mistake"] if markdown else []) + ["result", "killed by"] + (["fuzz"] if fuzzed else [])
    body = []
    for r in table.rows:
        cells = [r.mutant.name] + ([r.mutant.mistake] if markdown else []) + [r.status, _killers(r)]
        body.append(cells + ([_fuzz_cell(r)] if fuzzed else []))
    j = table.to_json()
    mutants = counted(j["mutants"] - j["equivalent"], "mutant", "mutants")
    cases = counted(table.cases, f"{table.base} case", f"{table.base} cases")
    summary = (
        f"mutation score {j['score']}%: {j['killed']} of {mutants} killed by the {cases} "
        f"({j['equivalent']} equivalent, not counted) in {j['seconds']}s"
    )
    lines: list[str] = []
    if markdown:
        lines += mdown.table(head, [[mdown.text(c) for c in cells] for cells in body])
    else:
        widths = [max(len(x) for x in col) for col in zip(head, *body)]
        lines.append("  ".join(h.ljust(w) for h, w in zip(head, widths)).rstrip())
        lines += ["  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip() for cells in body]
    lines.append("")
    lines.append(summary)
    if fuzzed:
        only_fuzz = [r.mutant.name for r in table.rows if not r.killed and r.fuzz is not None and r.fuzz.found]
        only_cases = [
            r.mutant.name
            for r in table.rows
            if r.killed and r.fuzz is not None and not r.fuzz.found and r.fuzz.where is None
        ]
        lines.append("found by fuzzing but by no case: " + (", ".join(only_fuzz) if only_fuzz else "none"))
        lines.append("found by the cases but not by fuzzing: " + (", ".join(only_cases) if only_cases else "none"))
    for r in table.rows:
        if r.status == "equivalent":
            lines.append(f"equivalent: {r.mutant.name}: {r.mutant.equivalent}")
    for a in table.anomalies:
        lines.append(f"WARNING: {a}")
    return "\n".join(lines) + "\n"
