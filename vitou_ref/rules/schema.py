"""JSON Schema validation of loaded documents, with located problems."""

from __future__ import annotations

import functools
import json
import reprlib
from collections.abc import Callable, Iterator
from typing import Any

import jsonschema
import referencing
import referencing.jsonschema

from .data import data_dir
from .problems import Problem
from .versions import VERSION_PATTERN, parse_version
from .yamlsafe import Document

MAX_PROBLEMS = 50


@functools.cache
def _registry(pack: tuple[str, ...] | None = None, codes: bool = True) -> referencing.Registry[Any]:
    """Every shipped schema; with ``pack``, the protocol's card is one of those cards alone.

    The protocol's schemas take any card of the French 52-card pack; a ruleset in force plays its
    own pack, so that answers about it are held to its cards (``first_error(..., pack=...)``).
    Without ``codes`` (the outcome level), a rejected step is held to the schema's ``outcome-refusal``
    instead of an error code: at that level a refusal passes whatever its ``error`` holds.
    """
    resources = []
    for path in sorted(data_dir("schema").rglob("*.schema.json")):
        contents = json.loads(path.read_text(encoding="utf-8"))
        if contents["$id"] == schema_id("protocol/types"):
            contents = _protocol_types(contents, pack, codes)
        resources.append((contents["$id"], referencing.jsonschema.DRAFT202012.create_resource(contents)))
    return referencing.Registry().with_resources(resources)


def _protocol_types(contents: dict[str, Any], pack: tuple[str, ...] | None, codes: bool) -> dict[str, Any]:
    """The protocol's types schema as a run holds answers to it: the cards of ``pack``, the refusals of its level."""
    defs = dict(contents["$defs"])
    if pack is not None:
        defs["card"] = dict(defs["card"], enum=list(pack))
    if not codes:
        step = defs["step"]
        branch = dict(step["allOf"][0], **{"else": defs["outcome-refusal"]})
        defs["step"] = dict(step, allOf=[branch, *step["allOf"][1:]])
    return dict(contents, **{"$defs": defs})


def schema_id(name: str) -> str:
    """The $id of a shipped schema, by file stem (``rules`` -> rules.schema.json)."""
    return f"https://vitou.invalid/schema/{name}.schema.json"


@functools.lru_cache(maxsize=64)
def validator(name: str, pack: tuple[str, ...] | None = None, codes: bool = True) -> jsonschema.protocols.Validator:
    registry = _registry(pack, codes)
    schema = registry.contents(schema_id(name))
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, registry=registry)


def _leaves(error: jsonschema.ValidationError) -> Iterator[jsonschema.ValidationError]:
    # For oneOf/anyOf, the useful messages are those of the branch the
    # instance is written for; failing that, the deepest matching branch's.
    if error.context:
        fitting = _fitting_branch(error.context)
        if fitting is not None:
            for err in fitting:
                yield from _leaves(err)
            return
        best = jsonschema.exceptions.best_match(error.context)
        if best is not None:
            yield from _leaves(best)
            return
    yield error


def _fitting_branch(context: list[jsonschema.ValidationError]) -> list[jsonschema.ValidationError] | None:
    """The errors of the one branch whose shape the instance has, or None.

    A branch fits when it finds nothing wrong with the instance itself (its
    keys, its type), only deeper down: a profile operation with ``replace``
    and ``with`` is a replacement whatever its clause gets wrong, and the
    other branches' complaints (``'add' is a required property``, ...) only
    hide the real problem inside it.
    """
    branches: dict[object, list[jsonschema.ValidationError]] = {}
    for err in context:
        branches.setdefault(err.relative_schema_path[0], []).append(err)
    fitting = [errs for errs in branches.values() if all(err.relative_path for err in errs)]
    return fitting[0] if len(fitting) == 1 else None


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
    if err.validator == "required" and _unbound_rule(err) is not None:
        return f"the clause binds the rule {_unbound_rule(err)!r} but gives no 'data' for it"
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
        version = _version_problem(err)
        return version or f"{inst} does not match the pattern {err.validator_value!r}"
    msg = err.message
    return msg if len(msg) <= 200 else msg[:197] + "..."


def _version_problem(err: jsonschema.ValidationError) -> str | None:
    """What is wrong with a version (or the version of a name) the schema's version pattern refused, in words."""
    if not isinstance(err.instance, str) or not str(err.validator_value).endswith(f"{VERSION_PATTERN}$"):
        return None
    try:
        parse_version(err.instance.rpartition("/")[2])
    except ValueError as exc:
        return str(exc)
    return None  # the version reads: what the pattern refused is the id before it


def _unbound_rule(err: jsonschema.ValidationError) -> str | None:
    """The rule of a clause that names one but gives no data for it, when that is what ``err`` says."""
    if err.validator == "required" and err.validator_value == ["data"] and isinstance(err.instance, dict):
        rule = err.instance.get("rule")
        return rule if isinstance(rule, str) else None
    return None


def _where(err: jsonschema.ValidationError) -> tuple[object, ...]:
    path = tuple(err.absolute_path)
    # A rule without data is shown on the rule (data without a rule, on the clause).
    if _unbound_rule(err) is not None:
        return (*path, "rule")
    # An unexpected key is best shown on its own line, not on its object's; but
    # not at the top of the document, where the key is no place of its own (a
    # game record given to spec check: its header is not in the rules, and
    # "at /header" would send the reader into it).
    if err.validator == "additionalProperties" and isinstance(err.instance, dict) and path:
        schema = err.schema if isinstance(err.schema, dict) else {}
        allowed = set(schema.get("properties", {}))
        extra = [k for k in err.instance if k not in allowed]
        if extra:
            return (*path, extra[0])
    return path


def validate(doc: Document, name: str, code: str = "SCHEMA") -> list[Problem]:
    """Problems of ``doc`` against the schema ``name``; empty when valid."""
    problems: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    errors = sorted(validator(name).iter_errors(doc.data), key=lambda e: list(map(str, e.absolute_path)))
    for top in errors:
        for err in _leaves(top):
            p = doc.problem(code, _message(err), _where(err))
            if (p.path, p.message) in seen:
                continue
            seen.add((p.path, p.message))
            problems.append(p)
            if len(problems) >= MAX_PROBLEMS:
                return problems
    return problems


def validate_rules(doc: Document) -> list[Problem]:
    """``validate(doc, "rules")``, checking each distinct clause once per process.

    The rules schema checks every clause on its own (``clauses.items`` is
    ``$defs/clause``, and nothing else looks inside a clause), so a document
    that passes the schema with its clauses taken as plain objects, and whose
    every clause passes the clause's schema, is valid. A profile's resolved
    ruleset shares most clauses with its base: this is what makes loading
    many profiles cheap. Any other document gets the full validation, which
    locates its problems.
    """
    data = doc.data
    clauses = data.get("clauses") if isinstance(data, dict) else None
    if (
        isinstance(clauses, list)
        and _shallow_rules_validator().is_valid(data)
        and all(_clause_is_valid(json.dumps(c, sort_keys=True, separators=(",", ":"))) for c in clauses)
    ):
        return []
    return validate(doc, "rules")


def _shallow(name: str, loosen: Callable[[dict[str, Any]], None]) -> jsonschema.protocols.Validator:
    """A validator of a copy of the shipped schema ``name``, loosened where its items are checked apart.

    ``loosen`` edits the copy so that those places take any object; the loader checks each distinct value
    there once instead (validate_rules, validate_items): the same verdict, without the repeats.
    """
    import copy

    registry = _registry()
    schema = copy.deepcopy(registry.contents(schema_id(name)))
    schema["$id"] = schema_id(f"{name}-shallow")
    loosen(schema)
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, registry=registry)


@functools.cache
def _shallow_rules_validator() -> jsonschema.protocols.Validator:
    return _shallow("rules", lambda s: s["properties"]["clauses"].update(items={"type": "object"}))


@functools.lru_cache(maxsize=4096)
def _clause_is_valid(canonical: str) -> bool:
    return bool(item_validator("clause", "rules").is_valid(json.loads(canonical)))


@functools.cache
def shallow_fixture_validator() -> jsonschema.protocols.Validator:
    """The fixture schema with expected events and actions checked only as objects.

    The loader checks each distinct event and action once against the
    protocol's schemas instead (validate_items): the same verdict as the full
    schema, without validating the same action hundreds of times.
    """

    def loosen(schema: dict[str, Any]) -> None:
        objects = {"type": "array", "items": {"type": "object"}}
        props = schema["$defs"]["step"]["then"]["properties"]
        props["events"] = props["legal"] = schema["$defs"]["expect"]["oneOf"][0]["properties"]["legal"] = objects

    return _shallow("fixture", loosen)


@functools.cache
def item_validator(kind: str, within: str = "protocol/types") -> jsonschema.protocols.Validator:
    """A validator for one item defined in a shipped schema: a protocol ``event`` or ``action``, a ``clause``."""
    registry = _registry()
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": schema_id(within) + f"#/$defs/{kind}",
    }
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, registry=registry)


def validate_with(doc: Document, validator_: jsonschema.protocols.Validator, code: str = "SCHEMA") -> list[Problem]:
    problems: list[Problem] = []
    errors = sorted(validator_.iter_errors(doc.data), key=lambda e: list(map(str, e.absolute_path)))
    for top in errors:
        for err in _leaves(top):
            problems.append(doc.problem(code, _message(err), _where(err)))
            if len(problems) >= MAX_PROBLEMS:
                return problems
    return problems


def validate_items(doc: Document, items: list[tuple[str, tuple[object, ...], Any]]) -> list[Problem]:
    """Check (kind, path, value) items against the protocol's item schemas, each distinct value once."""
    seen: dict[str, str | None] = {}
    problems: list[Problem] = []
    for kind, path, value in items:
        key = kind + json.dumps(value, sort_keys=True, separators=(",", ":"))
        if key not in seen:
            err = jsonschema.exceptions.best_match(item_validator(kind).iter_errors(value))
            seen[key] = None if err is None else _message(err)
        message = seen[key]
        if message is not None:
            problems.append(doc.problem("SCHEMA", f"not a protocol {kind}: {message}", path))
            if len(problems) >= MAX_PROBLEMS:
                break
    return problems


def is_valid(data: Any, name: str) -> bool:
    return bool(validator(name).is_valid(data))


def first_error(data: Any, name: str, pack: tuple[str, ...] | None = None, codes: bool = True) -> str | None:
    """A one-line account of why ``data`` is invalid, or None; ``pack``: the only cards it may name.

    ``codes``: whether a rejected step must carry an error code (the code level); False at the outcome level.
    """
    err = jsonschema.exceptions.best_match(validator(name, pack, codes).iter_errors(data))
    if err is None:
        return None
    where = "/".join(str(p) for p in err.absolute_path)
    return f"{where or '(top)'}: {err.message}"
