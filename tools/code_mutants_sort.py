"""The four kinds every mutant the suite lets through is sorted into, and the code of the reference's own limits.

tools/code_mutants.py kills a mutant with the suite (certify's verdicts) or, failing that, with the probe. What the
suite lets through is one of four kinds, decided in this order:

1. **equivalent**: listed in tools/code_mutants_equivalent.yaml, with why no answer of the adapter can change;
2. **the reference's own limits**: its change lies wholly in code that enforces a limit protocol.md calls the
   reference adapter's own ("the limits (16 MiB, 64 levels, 4,300 digits) are its own, and another
   implementation may choose others"); an envelope line that only such a limit decides carries no seq, so that it
   is errored on either side of any limit, and no certification of another engine can tell a limit moved;
3. **visible only outside the protocol**: the probe kills it (an audit ruling, spec check on a broken rules file,
   the words of an errored answer's message), and no answer of the protocol, as certify judges it, shows it;
4. **visible through the protocol**: everything else. A survivor of this kind is a miss of the suite: some case
   could kill it.

The suite's own score is over the last kind alone: the mutants a certification of a third-party engine could see.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

EQUIVALENT, LIMITS, OUTSIDE, THROUGH = "equivalent", "own limits", "outside the protocol", "through the protocol"
KINDS = (EQUIVALENT, LIMITS, OUTSIDE, THROUGH)


@dataclass(frozen=True)
class OwnLimit:
    """Code that enforces one of the reference's own limits: a function whole, or the statements naming ``names``."""

    module: str  # under vitou_ref/
    scope: str  # a function's qualified name, or <module> for module-level assignments
    names: tuple[str, ...]  # () for the whole function; else only the statements and tests naming one of these
    why: str


# The one list of the code of the reference's own limits (docs/reference/protocol.md, lines that are not proper
# requests: 16 MiB a request line, 64 levels, 4,300 digits). Everything else, the errored answers' bound of
# 1,000 characters included, is the protocol's (strictness.md, Answers) or the rules'.
OWN_LIMITS = (
    OwnLimit("protocol/server.py", "<module>", ("MAX_LINE", "CHUNK"), "16 MiB a request line, and its chunks past it"),
    OwnLimit("protocol/server.py", "read_lines", ("limit", "CHUNK", "chunk"), "a line over 16 MiB: cut and skipped"),
    OwnLimit("protocol/server.py", "Server.serve", ("MAX_LINE",), "the errored answer to a line over 16 MiB"),
    OwnLimit("protocol/wire.py", "<module>", ("MAX_DEPTH", "MAX_DIGITS", "_STRINGS", "_BRACKETS"), "the bounds"),
    OwnLimit("protocol/wire.py", "_int", (), "4,300 digits a JSON integer"),
    OwnLimit("protocol/wire.py", "depth_within", (), "64 levels of nesting"),
    OwnLimit("protocol/wire.py", "depth_of", (), "how deep a line nests, which the refusal of a line too deep names"),
    OwnLimit("protocol/wire.py", "loads", ("RecursionError", "depth_within", "depth_of"), "a line too deep refused"),
)


class _Mutant(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def module(self) -> str: ...
    @property
    def qualname(self) -> str: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function by its qualified name, as the mutants' ids name it (Class.method)."""
    out: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}

    def walk(body: Iterable[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out[prefix + node.name] = node
                walk(node.body, prefix + node.name + ".")
            elif isinstance(node, ast.ClassDef):
                walk(node.body, prefix + node.name + ".")

    walk(tree.body, "")
    return out


_COMPOUND = (ast.If, ast.While, ast.For, ast.With, ast.Try, ast.FunctionDef, ast.ClassDef, ast.Match)


def _partial(body: Sequence[ast.stmt], names: set[str]) -> list[ast.AST]:
    """The nodes of a function that name one of ``names``: simple statements, tests, and handlers of such errors."""
    found: list[ast.AST] = []
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if isinstance(node, ast.ExceptHandler) and node.type is not None and _names(node.type) & names:
            found.append(node)  # the handler whole: it runs only for that error
        elif isinstance(node, (ast.If, ast.While)):
            found += _operands(node.test, names)
        elif isinstance(node, ast.stmt) and not isinstance(node, _COMPOUND) and _names(node) & names:
            found.append(node)
    return found


def _operands(test: ast.expr, names: set[str]) -> list[ast.expr]:
    """The parts of a test that name a limit: of ``a or b``, the operand that does, unless both do (then the test)."""
    if isinstance(test, ast.BoolOp) and not all(_names(v) & names for v in test.values):
        return [part for value in test.values for part in _operands(value, names)]
    return [test] if _names(test) & names else []


def limit_spans(module: str, source: bytes) -> list[tuple[int, int]]:
    """The byte spans of ``source`` (module ``module``) that are the code of the reference's own limits."""
    limits = [lim for lim in OWN_LIMITS if lim.module == module]
    if not limits:
        return []
    tree = ast.parse(source)
    starts = [0] + [i + 1 for i, b in enumerate(source) if b == 0x0A]

    def span(node: ast.AST) -> tuple[int, int]:
        a = starts[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]
        return a, starts[node.end_lineno - 1] + node.end_col_offset  # type: ignore[attr-defined]

    functions = _functions(tree)
    nodes: list[ast.AST] = []
    for lim in limits:
        if lim.scope == "<module>":
            nodes += [
                s for s in tree.body if isinstance(s, (ast.Assign, ast.AnnAssign)) and _targets(s) & set(lim.names)
            ]
        elif lim.scope in functions:
            fn = functions[lim.scope]
            nodes += _partial(fn.body, set(lim.names)) if lim.names else [fn]
    return [span(n) for n in nodes]


def _targets(node: ast.Assign | ast.AnnAssign) -> set[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return {t.id for t in targets if isinstance(t, ast.Name)}


def is_own_limit(mutant: _Mutant, spans: Sequence[tuple[int, int]]) -> bool:
    """Whether the mutant's change lies wholly inside code of the reference's own limits."""
    return any(a <= mutant.start and mutant.end <= b for a, b in spans)


def sort_survivor(listed: bool, own_limit: bool, probe_killed: bool) -> str:
    """The kind of a mutant the suite lets through (killed by the probe, or by nothing)."""
    if listed:
        return EQUIVALENT
    if own_limit:
        return LIMITS
    return OUTSIDE if probe_killed else THROUGH


class _Outcome(Protocol):
    id: str
    status: str  # killed, survived or equivalent
    case: str | None  # the killing case; "probe" when only the probe killed it
    sort: str | None


def kind_of(o: _Outcome) -> str:
    """The kind of an outcome: as sorted, or, unsorted, as its status says (no code counted as a limit's)."""
    return _kind(o.sort, o.status, o.case)


def _kind(sort: str | None, status: str, case: str | None) -> str:
    if sort is not None:
        return sort
    if status == "equivalent":
        return EQUIVALENT
    return OUTSIDE if status == "killed" and case == "probe" else THROUGH


def _row_kind(row: Mapping[str, Any]) -> str:
    return _kind(row.get("sort"), row["status"], row.get("case"))


def sort_outcomes(outcomes: Iterable[_Outcome], limits: set[str]) -> None:
    """Sort every outcome: a kill by the suite is seen through the protocol; the rest by ``sort_survivor``."""
    for o in outcomes:
        if o.status == "killed" and o.case != "probe":
            o.sort = THROUGH
        else:
            o.sort = sort_survivor(o.status == "equivalent", o.id in limits, o.status == "killed")


def sorted_counts(doc: Mapping[str, Any]) -> str:
    """The run's mutants by kind, in one line."""
    k = doc["sorted"]
    through = f"{k[THROUGH]} visible through the protocol ({doc['protocol_killed']} killed by the suite, "
    return (
        f"sorted: {doc['mutants']} mutants, {k[EQUIVALENT]} equivalent, {k[OUTSIDE]} visible only outside the "
        f"protocol (killed by the probe alone), {k[LIMITS]} of the reference's own limits "
        f"({doc['limits_killed_by_probe']} of them killed by the probe), "
        + through
        + f"{k[THROUGH] - doc['protocol_killed']} missed)"
    )


def sorted_lines(doc: Mapping[str, Any]) -> list[str]:
    """The mutants the suite let through, by kind: the misses whole, the limits' and the probe's one a line."""
    rows = [r for r in doc["mutants_run"] if r["status"] != "equivalent"]
    missed = [r for r in rows if _row_kind(r) == THROUGH and r["status"] != "killed"]
    lines = ["survivors visible through the protocol (a case could kill each):" if missed else "survivors: none"]
    for row in missed:
        lines.append(f"  {row['id']}  {row['description']}")
        lines += [f"    - {x}" for x in row["before"].splitlines()]
        lines += [f"    + {x}" for x in row["after"].splitlines() or ["(deleted)"]]
    limits = [r for r in rows if _row_kind(r) == LIMITS]
    if limits:
        lines.append("the reference's own limits, not counted (docs/reference/protocol.md: its own):")
        lines += [f"  {r['id']}  {r['description']}  [{_fate(r)}]" for r in limits]
    outside = [r for r in rows if _row_kind(r) == OUTSIDE]
    if outside:
        lines.append("visible only outside the protocol, not counted (killed by the probe alone):")
        lines += [f"  {r['id']}  {r['description']}  [{_fate(r)}]" for r in outside]
    return lines


def _fate(row: Mapping[str, Any]) -> str:
    if row["status"] != "killed":
        return "survived"
    reason = str(row.get("reason") or "")
    return "probe: " + (reason if len(reason) <= 90 else reason[:60] + "..." + reason[-27:])


def own_limit_ids(mutants: Iterable[_Mutant], sources: Mapping[str, bytes]) -> set[str]:
    """The ids of the mutants whose change lies wholly in code of the reference's own limits."""
    spans = {module: limit_spans(module, raw) for module, raw in sources.items()}
    return {m.id for m in mutants if is_own_limit(m, spans.get(m.module, []))}


__all__ = [
    "EQUIVALENT",
    "KINDS",
    "LIMITS",
    "OUTSIDE",
    "OWN_LIMITS",
    "THROUGH",
    "OwnLimit",
    "is_own_limit",
    "kind_of",
    "limit_spans",
    "own_limit_ids",
    "sort_outcomes",
    "sort_survivor",
    "sorted_counts",
    "sorted_lines",
]
