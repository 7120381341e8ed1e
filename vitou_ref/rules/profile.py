"""Profiles: a base ruleset changed clause by clause, resolved into a complete ruleset of its own.

A profile never merges anything silently. Each operation names what it does:
``replace`` a clause (its error codes and the clarifications that cite it
move to the replacement), ``add`` one, ``remove`` one (codes and
clarifications citing it must then be dealt with explicitly),
``add_clarification``, ``replace_clarification``, ``remove_clarification``,
``rebind_error``, ``restate_error`` (a code's summary or ``when`` in the
profile's words). The result is checked exactly like a base ruleset.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import reader
from .errors import InputError
from .load import build_ruleset
from .model import Ruleset, content_hash
from .problems import Problem
from .schema import validate, validate_rules
from .yamlsafe import Document

Path = tuple[object, ...]


LoadBase = Callable[[str, Callable[[str], Problem]], Ruleset]


def resolve_profile(doc: Document, load_named: LoadBase, *, strict: bool = True) -> Ruleset:
    """The complete ruleset a profile document describes; InputError with located problems otherwise.

    ``load_named`` finds the base by its full name (the registry's, passed in
    so that profiles need not know where rulesets come from).
    """
    problems = validate(doc, "profile")
    if problems:
        raise InputError(problems)
    data = doc.data
    head = data["profile"]
    name = f"{head['id']}/{head['version']}"
    if head["extends"] == name:
        raise InputError(
            [doc.problem("PROFILE_CYCLE", f"{name} -> {name}: a profile cannot extend itself", ("profile", "extends"))]
        )
    # A base is a shipped ruleset, never a file: a chain of profiles ends in
    # the shipped rules, and a cycle among shipped ones is PROFILE_CYCLE.
    base = load_named(head["extends"], lambda m: doc.problem("PROFILE_BASE_UNKNOWN", m, ("profile", "extends")))
    resolved, origins, where = _apply(doc, base, name)
    resolved["profile"] = {"extends": base.name, "base_hash": base.content_hash}
    if data.get("decisions"):
        resolved["profile"]["decisions"] = copy.deepcopy(data["decisions"])

    def locate(code: str, message: str, path: Path) -> Problem:
        # Problems found in the resolved ruleset point back at the profile:
        # at the operation that put the offending part there, if any.
        if len(path) >= 2 and isinstance(path[1], int) and path[0] in where:
            origin = where[path[0]].get(path[1])
            if origin is not None:
                return doc.problem(code, message, origin + path[2:])
            return doc.problem(code, f"(in {base.name} {path[0]} {path[1]}) {message}", ("operations",))
        return doc.problem(code, message, ("operations",))

    schema_doc = Document(resolved, doc.source, {})
    problems = validate_rules(schema_doc)
    if problems:
        raise InputError([locate(p.code, p.message, _parse_pointer(p.path)) for p in problems])
    rules = build_ruleset(resolved, locate, origins=origins, extends=base.name, profile=data, strict=strict)
    rules.inherit_replacements(base.replaced)
    return rules


def _parse_pointer(pointer: str) -> Path:
    parts: list[object] = []
    for raw in pointer.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        parts.append(reader.whole(part) if reader.is_whole(part) else part)  # a list's index; a key in any other form
    return tuple(parts)


@dataclass
class _Draft:
    """The base's clauses, clarifications and errors as the operations change them, each with where it came from.

    A ``*_from`` entry is the profile path of the operation that wrote or
    orphaned the item, None for an untouched item of the base: problems
    found later in the resolved ruleset point back there.
    """

    doc: Document
    base: Ruleset
    name: str
    clauses: list[dict[str, Any]]
    clars: list[dict[str, Any]]
    errors: list[dict[str, Any]]
    clause_from: list[Path | None] = field(init=False)
    clar_from: list[Path | None] = field(init=False)
    error_from: list[Path | None] = field(init=False)
    problems: list[Problem] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.clause_from = [None] * len(self.clauses)
        self.clar_from = [None] * len(self.clars)
        self.error_from = [None] * len(self.errors)

    def index(self, clause_id: str) -> int | None:
        for i, c in enumerate(self.clauses):
            if c["id"] == clause_id:
                return i
        return None

    def clar_index(self, number: int) -> int | None:
        for i, k in enumerate(self.clars):
            if k["number"] == number:
                return i
        return None

    def retarget(self, old: str, new: str) -> None:
        for e in self.errors:
            if e["clause"] == old:
                e["clause"] = new
        for k in self.clars:
            k["clauses"] = [new if c == old else c for c in k["clauses"]]

    def bad(self, code: str, message: str, path: Path) -> None:
        self.problems.append(self.doc.problem(code, message, path))

    def unknown(self, at: Path, op: dict[str, Any], key: str) -> None:
        self.bad(
            "PROFILE_CLAUSE_UNKNOWN",
            f"{key} names clause {op[key]!r}, not among {self.base.name}'s clauses as changed so far",
            (*at, key),
        )


def _replace(d: _Draft, at: Path, op: dict[str, Any]) -> None:
    i = d.index(op["replace"])
    new = dict(op["with"], origin=d.name)
    if i is None:
        d.unknown(at, op, "replace")
        return
    if new["id"] != op["replace"] and d.index(new["id"]) is not None:
        d.bad("CLAUSE_DUPLICATE", f"the replacement's id {new['id']!r} is already used", (*at, "with", "id"))
        return
    d.clauses[i] = new
    d.clause_from[i] = (*at, "with")
    d.retarget(op["replace"], new["id"])


def _add(d: _Draft, at: Path, op: dict[str, Any]) -> None:
    new = dict(op["add"], origin=d.name)
    if d.index(new["id"]) is not None:
        d.bad("CLAUSE_DUPLICATE", f"clause id {new['id']!r} is already used", (*at, "add", "id"))
        return
    pos = len(d.clauses)
    if "after" in op:
        j = d.index(op["after"])
        if j is None:
            d.unknown(at, op, "after")
            return
        pos = j + 1
    d.clauses.insert(pos, new)
    d.clause_from.insert(pos, (*at, "add"))


def _remove(d: _Draft, at: Path, op: dict[str, Any]) -> None:
    i = d.index(op["remove"])
    if i is None:
        d.unknown(at, op, "remove")
        return
    del d.clauses[i]
    del d.clause_from[i]
    # Codes and clarifications left citing the removed clause are the
    # profile's to deal with: their problems point at this operation.
    for j, e in enumerate(d.errors):
        if e["clause"] == op["remove"]:
            d.error_from[j] = (*at, "remove")
    for j, k in enumerate(d.clars):
        if op["remove"] in k["clauses"]:
            d.clar_from[j] = (*at, "remove")


def _add_clarification(d: _Draft, at: Path, op: dict[str, Any]) -> None:
    new = dict(op["add_clarification"], origin=d.name)
    if d.clar_index(new["number"]) is not None:
        d.bad(
            "CLARIFICATION_DUPLICATE",
            f"clarification {new['number']} already exists; numbers are never reused",
            (*at, "add_clarification", "number"),
        )
        return
    d.clars.append(new)
    d.clar_from.append((*at, "add_clarification"))


def _replace_clarification(d: _Draft, at: Path, op: dict[str, Any]) -> None:
    i = d.clar_index(op["replace_clarification"])
    if i is None:
        d.bad(
            "PROFILE_CLARIFICATION_UNKNOWN",
            f"there is no clarification {op['replace_clarification']}",
            (*at, "replace_clarification"),
        )
        return
    d.clars[i] = dict(op["with"], origin=d.name)
    d.clar_from[i] = (*at, "with")


def _remove_clarification(d: _Draft, at: Path, op: dict[str, Any]) -> None:
    i = d.clar_index(op["remove_clarification"])
    if i is None:
        d.bad(
            "PROFILE_CLARIFICATION_UNKNOWN",
            f"there is no clarification {op['remove_clarification']}",
            (*at, "remove_clarification"),
        )
        return
    del d.clars[i]
    del d.clar_from[i]


def _rebind_error(d: _Draft, at: Path, op: dict[str, Any]) -> None:
    found = [j for j, e in enumerate(d.errors) if e["code"] == op["rebind_error"]]
    if not found:
        d.bad("PROFILE_ERROR_UNKNOWN", f"there is no error code {op['rebind_error']}", (*at, "rebind_error"))
        return
    d.errors[found[0]]["clause"] = op["clause"]
    d.error_from[found[0]] = (*at, "clause")


def _restate_error(d: _Draft, at: Path, op: dict[str, Any]) -> None:
    found = [j for j, e in enumerate(d.errors) if e["code"] == op["restate_error"]]
    if not found:
        d.bad("PROFILE_ERROR_UNKNOWN", f"there is no error code {op['restate_error']}", (*at, "restate_error"))
        return
    e = d.errors[found[0]]
    e.update({k: op[k] for k in ("summary", "when") if k in op})
    # The words are the profile's now: translations of the base's no longer say them.
    e["origin"] = d.name
    d.error_from[found[0]] = at


# Each operation is named by the key that introduces it; the first key of this
# table that an operation has decides its kind.
_OPERATIONS: dict[str, Callable[[_Draft, Path, dict[str, Any]], None]] = {
    "replace": _replace,
    "add": _add,
    "remove": _remove,
    "add_clarification": _add_clarification,
    "replace_clarification": _replace_clarification,
    "remove_clarification": _remove_clarification,
    "rebind_error": _rebind_error,
    "restate_error": _restate_error,
}


def _apply(doc: Document, base: Ruleset, name: str) -> tuple[dict[str, Any], list[str], dict[str, dict[int, Path]]]:
    data = doc.data
    base_doc = base.to_json()
    d = _Draft(
        doc,
        base,
        name,
        clauses=[{"origin": base.name, **raw} for raw in base_doc["clauses"]],
        clars=[{"origin": base.name, **raw} for raw in base_doc["clarifications"]],
        errors=[dict(e) for e in base_doc["errors"]],
    )
    for n, op in enumerate(data["operations"]):
        kind = next((k for k in _OPERATIONS if k in op), None)
        if kind is not None:
            _OPERATIONS[kind](d, ("operations", n), op)
    if d.problems:
        raise InputError(d.problems)
    numbers = {k["number"] for k in d.clars}
    for i, c in enumerate(d.clauses):
        # A base clause drops its citation of a clarification the profile removed.
        if d.clause_from[i] is None and any(n not in numbers for n in c.get("clarifications", [])):
            c["clarifications"] = [n for n in c["clarifications"] if n in numbers]
    head = data["profile"]
    resolved: dict[str, Any] = {
        "format": 1,
        "ruleset": {
            "id": head["id"],
            "version": head["version"],
            "title": head["title"],
            "summary": head.get("summary", base.summary or head["title"]),
            "source": f"Profile of {base.name} ({base.content_hash}).",
        },
        "versioning": data.get("versioning", base.versioning),
        "changelog": copy.deepcopy(data["changelog"]),
        "clauses": d.clauses,
        "clarifications": d.clars,
        "errors": d.errors,
    }
    where = {
        "clauses": {i: p for i, p in enumerate(d.clause_from) if p is not None},
        "clarifications": {i: p for i, p in enumerate(d.clar_from) if p is not None},
        "errors": {i: p for i, p in enumerate(d.error_from) if p is not None},
    }
    return resolved, [c["origin"] for c in d.clauses], where


def resolved_hash(rules: Ruleset) -> str:
    return content_hash(rules.to_json())
