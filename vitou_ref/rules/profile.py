"""Profiles: a base ruleset changed clause by clause, resolved into a complete ruleset of its own.

A profile never merges anything silently. Each operation names what it does:
``replace`` a clause (its error codes and the clarifications that cite it
move to the replacement), ``add`` one, ``remove`` one (codes and
clarifications citing it must then be dealt with explicitly),
``add_clarification``, ``replace_clarification``, ``remove_clarification``,
``rebind_error``. The result is checked exactly like a base ruleset.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from .errors import InputError
from .load import build_ruleset
from .model import Ruleset, content_hash
from .problems import Problem
from .schema import validate
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
    problems = validate(schema_doc, "rules")
    if problems:
        raise InputError([locate(p.code, p.message, _parse_pointer(p.path)) for p in problems])
    rules = build_ruleset(resolved, locate, origins=origins, extends=base.name, profile=data, strict=strict)
    rules.inherit_replacements(base.replaced)
    return rules


def _parse_pointer(pointer: str) -> Path:
    parts: list[object] = []
    for raw in pointer.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        parts.append(int(part) if part.isdigit() else part)
    return tuple(parts)


def _apply(doc: Document, base: Ruleset, name: str) -> tuple[dict[str, Any], list[str], dict[str, dict[int, Path]]]:
    data = doc.data
    base_doc = base.to_json()
    clauses: list[dict[str, Any]] = []
    for raw in base_doc["clauses"]:
        clauses.append({"origin": base.name, **raw})
    clause_from: list[Path | None] = [None] * len(clauses)
    clars: list[dict[str, Any]] = []
    for raw in base_doc["clarifications"]:
        clars.append({"origin": base.name, **raw})
    clar_from: list[Path | None] = [None] * len(clars)
    errors: list[dict[str, Any]] = [dict(e) for e in base_doc["errors"]]
    error_from: list[Path | None] = [None] * len(errors)
    problems: list[Problem] = []

    def index(clause_id: str) -> int | None:
        for i, c in enumerate(clauses):
            if c["id"] == clause_id:
                return i
        return None

    def clar_index(number: int) -> int | None:
        for i, k in enumerate(clars):
            if k["number"] == number:
                return i
        return None

    def retarget(old: str, new: str) -> None:
        for e in errors:
            if e["clause"] == old:
                e["clause"] = new
        for k in clars:
            k["clauses"] = [new if c == old else c for c in k["clauses"]]

    def unknown(at: Path, op: dict[str, Any], key: str) -> None:
        problems.append(
            doc.problem(
                "PROFILE_CLAUSE_UNKNOWN",
                f"{key} names clause {op[key]!r}, not among {base.name}'s clauses as changed so far",
                (*at, key),
            )
        )

    for n, op in enumerate(data["operations"]):
        at: Path = ("operations", n)
        if "replace" in op:
            i = index(op["replace"])
            new = dict(op["with"], origin=name)
            if i is None:
                unknown(at, op, "replace")
                continue
            if new["id"] != op["replace"] and index(new["id"]) is not None:
                problems.append(
                    doc.problem(
                        "CLAUSE_DUPLICATE", f"the replacement's id {new['id']!r} is already used", (*at, "with", "id")
                    )
                )
                continue
            clauses[i] = new
            clause_from[i] = (*at, "with")
            retarget(op["replace"], new["id"])
        elif "add" in op:
            new = dict(op["add"], origin=name)
            if index(new["id"]) is not None:
                problems.append(
                    doc.problem("CLAUSE_DUPLICATE", f"clause id {new['id']!r} is already used", (*at, "add", "id"))
                )
                continue
            pos = len(clauses)
            if "after" in op:
                j = index(op["after"])
                if j is None:
                    unknown(at, op, "after")
                    continue
                pos = j + 1
            clauses.insert(pos, new)
            clause_from.insert(pos, (*at, "add"))
        elif "remove" in op:
            i = index(op["remove"])
            if i is None:
                unknown(at, op, "remove")
                continue
            del clauses[i]
            del clause_from[i]
            for j, e in enumerate(errors):
                if e["clause"] == op["remove"]:
                    error_from[j] = (*at, "remove")
            for j, k in enumerate(clars):
                if op["remove"] in k["clauses"]:
                    clar_from[j] = (*at, "remove")
        elif "add_clarification" in op:
            new = dict(op["add_clarification"], origin=name)
            if clar_index(new["number"]) is not None:
                problems.append(
                    doc.problem(
                        "CLARIFICATION_DUPLICATE",
                        f"clarification {new['number']} already exists; numbers are never reused",
                        (*at, "add_clarification", "number"),
                    )
                )
                continue
            clars.append(new)
            clar_from.append((*at, "add_clarification"))
        elif "replace_clarification" in op:
            i = clar_index(op["replace_clarification"])
            if i is None:
                problems.append(
                    doc.problem(
                        "PROFILE_CLARIFICATION_UNKNOWN",
                        f"there is no clarification {op['replace_clarification']}",
                        (*at, "replace_clarification"),
                    )
                )
                continue
            clars[i] = dict(op["with"], origin=name)
            clar_from[i] = (*at, "with")
        elif "remove_clarification" in op:
            i = clar_index(op["remove_clarification"])
            if i is None:
                problems.append(
                    doc.problem(
                        "PROFILE_CLARIFICATION_UNKNOWN",
                        f"there is no clarification {op['remove_clarification']}",
                        (*at, "remove_clarification"),
                    )
                )
                continue
            del clars[i]
            del clar_from[i]
        elif "rebind_error" in op:
            found = [j for j, e in enumerate(errors) if e["code"] == op["rebind_error"]]
            if not found:
                problems.append(
                    doc.problem(
                        "PROFILE_ERROR_UNKNOWN", f"there is no error code {op['rebind_error']}", (*at, "rebind_error")
                    )
                )
                continue
            errors[found[0]]["clause"] = op["clause"]
            error_from[found[0]] = (*at, "clause")
    if problems:
        raise InputError(problems)
    # Clauses no longer cite clarifications that the profile removed.
    numbers = {k["number"] for k in clars}
    for i, c in enumerate(clauses):
        # A base clause drops its citation of a clarification the profile removed.
        if clause_from[i] is None and any(n not in numbers for n in c.get("clarifications", [])):
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
        "clauses": clauses,
        "clarifications": clars,
        "errors": errors,
    }
    where = {
        "clauses": {i: p for i, p in enumerate(clause_from) if p is not None},
        "clarifications": {i: p for i, p in enumerate(clar_from) if p is not None},
        "errors": {i: p for i, p in enumerate(error_from) if p is not None},
    }
    return resolved, [c["origin"] for c in clauses], where


def resolved_hash(rules: Ruleset) -> str:
    return content_hash(rules.to_json())
