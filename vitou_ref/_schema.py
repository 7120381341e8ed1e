"""JSON Schema validation of loaded documents, with located problems."""

from __future__ import annotations

import functools
import json
import reprlib
from collections.abc import Iterator
from typing import Any

import jsonschema
import referencing
import referencing.jsonschema

from ._data import data_dir
from ._problems import Problem
from ._yamlsafe import Document

MAX_PROBLEMS = 50


@functools.cache
def _registry() -> referencing.Registry[Any]:
    resources = []
    for path in sorted(data_dir("schema").rglob("*.schema.json")):
        contents = json.loads(path.read_text(encoding="utf-8"))
        resources.append((contents["$id"], referencing.jsonschema.DRAFT202012.create_resource(contents)))
    return referencing.Registry().with_resources(resources)


def schema_id(name: str) -> str:
    """The $id of a shipped schema, by file stem (``rules`` -> rules.schema.json)."""
    return f"https://vitou.invalid/schema/{name}.schema.json"


@functools.cache
def validator(name: str) -> jsonschema.protocols.Validator:
    registry = _registry()
    schema = registry.contents(schema_id(name))
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, registry=registry)


def _leaves(error: jsonschema.ValidationError) -> Iterator[jsonschema.ValidationError]:
    # For oneOf/anyOf, the useful message is the deepest matching branch's.
    if error.context:
        best = jsonschema.exceptions.best_match(error.context)
        if best is not None:
            yield from _leaves(best)
            return
    yield error


def _message(err: jsonschema.ValidationError) -> str:
    # jsonschema prints the whole offending instance, which for a clause is
    # a page of text; say what is wrong in a line instead.
    short = reprlib.Repr()
    short.maxstring = 40
    short.maxother = 40
    short.maxdict = 4
    short.maxlist = 4
    inst = short.repr(err.instance)
    if err.validator == "not" and err.validator_value == {"required": ["data"]}:
        return "'data' is given, but the clause sets no 'rule' to bind it to"
    if err.validator == "required":
        return err.message
    if err.validator == "additionalProperties":
        return err.message
    if err.validator == "type":
        return f"{inst} is not of type {err.validator_value!r}"
    if err.validator in ("enum", "const"):
        value: Any = err.validator_value
        allowed = list(value) if err.validator == "enum" else [value]
        return f"{inst} is not one of {', '.join(map(repr, allowed))}"
    if err.validator == "pattern":
        return f"{inst} does not match the pattern {err.validator_value!r}"
    msg = err.message
    return msg if len(msg) <= 200 else msg[:197] + "..."


def validate(doc: Document, name: str, code: str = "SCHEMA") -> list[Problem]:
    """Problems of ``doc`` against the schema ``name``; empty when valid."""
    problems: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    errors = sorted(validator(name).iter_errors(doc.data), key=lambda e: list(map(str, e.absolute_path)))
    for top in errors:
        for err in _leaves(top):
            path = tuple(err.absolute_path)
            p = doc.problem(code, _message(err), path)
            if (p.path, p.message) in seen:
                continue
            seen.add((p.path, p.message))
            problems.append(p)
            if len(problems) >= MAX_PROBLEMS:
                return problems
    return problems


def is_valid(data: Any, name: str) -> bool:
    return bool(validator(name).is_valid(data))


def first_error(data: Any, name: str) -> str | None:
    """A one-line account of why ``data`` is invalid, or None."""
    err = jsonschema.exceptions.best_match(validator(name).iter_errors(data))
    if err is None:
        return None
    where = "/".join(str(p) for p in err.absolute_path)
    return f"{where or '(top)'}: {err.message}"
