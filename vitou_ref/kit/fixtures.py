"""Conformance cases: loaded once from YAML (or JSON), validated, and turned into typed, frozen cases."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..protocol.wire import canonical
from ..rules.errors import InputError
from ..rules.model import freeze, thaw
from ..rules.plurals import counted
from ..rules.problems import Problem
from ..rules.registry import shipped_names
from ..rules.versions import Ref, concrete_names, parse_ref

if TYPE_CHECKING:
    from ..rules.yamlsafe import Document

MAX_FIXTURE_BYTES = 4 * 1024 * 1024


STATED, REFERENCE = "case", "reference"  # who gives a legal set that is compared: the case, or the reference
# JSON text in the order given: two values with the same text are the same JSON, types, order and all.
in_order = json.JSONEncoder(separators=(",", ":")).encode


@dataclass(frozen=True)
class StepExpect:
    """One step's expectation: rejected with ``error``, or accepted with ``events`` and, compared, ``legal``."""

    error: str | None
    events: Any = ()  # frozen list of events when accepted
    legal: Any = None  # frozen list of actions, or None when not compared
    legal_from: str = STATED  # REFERENCE: the case leaves it unstated, and the reference's set stands for it
    unchecked: str | None = None  # why the case leaves this step's legal set unchecked (legal_unchecked)

    @functools.cached_property
    def plain_events(self) -> list[Any]:
        return thaw(self.events)  # type: ignore[no-any-return]

    @functools.cached_property
    def plain_legal_set(self) -> list[Any] | None:
        return None if self.legal is None else sorted(thaw(self.legal), key=canonical)

    @functools.cached_property
    def legal_canon(self) -> list[str] | None:
        """The legal set as sorted canonical texts: what an answer's set is compared with."""
        return None if self.legal is None else sorted(canonical(a) for a in thaw(self.legal))

    @functools.cached_property
    def legal_text(self) -> str | None:
        """The legal set as JSON text in its order: an answer that sends that text sends the same set."""
        return None if self.legal is None else in_order(thaw(self.legal))

    def to_json(self) -> dict[str, Any]:
        if self.error is not None:
            return {"error": self.error}  # the fixture schema's form of a rejected step
        out: dict[str, Any] = {"ok": True, "events": thaw(self.events)}
        if self.legal is not None and self.legal_from == STATED:
            out["legal"] = thaw(self.legal)
        if self.unchecked is not None:
            out["legal_unchecked"] = self.unchecked
        return out


@dataclass(frozen=True)
class Expectation:
    legal: Any  # frozen list, or None when not compared
    steps: tuple[StepExpect, ...]
    final: Any  # frozen mapping
    errored: bool = False  # the request itself must be answered as errored
    legal_from: str = STATED  # REFERENCE: the case leaves the first legal set unstated, and the reference's stands

    @functools.cached_property
    def plain_final(self) -> Any:
        return thaw(self.final)

    @functools.cached_property
    def plain_legal_set(self) -> list[Any] | None:
        return None if self.legal is None else sorted(thaw(self.legal), key=canonical)

    @functools.cached_property
    def legal_canon(self) -> list[str] | None:
        """The legal set as sorted canonical texts: what an answer's set is compared with."""
        return None if self.legal is None else sorted(canonical(a) for a in thaw(self.legal))

    @functools.cached_property
    def legal_text(self) -> str | None:
        """The legal set as JSON text in its order: an answer that sends that text sends the same set."""
        return None if self.legal is None else in_order(thaw(self.legal))

    def to_json(self) -> dict[str, Any]:
        if self.errored:
            return {"errored": True}
        out: dict[str, Any] = {}
        if self.legal is not None and self.legal_from == STATED:
            out["legal"] = thaw(self.legal)
        out["steps"] = [s.to_json() for s in self.steps]
        out["final"] = thaw(self.final)
        return out


@dataclass(frozen=True)
class Case:
    """One conformance case; ``expectation(ruleset)`` gives what that ruleset must answer.

    ``rulesets`` and ``expect_for`` keys are references ``ID/RANGE`` (``vitou/^1.0.0``); the methods take a
    concrete name (``vitou/1.0.0``).
    """

    id: str
    title: str
    clauses: tuple[str, ...]
    rulesets: tuple[str, ...]
    setup: Any
    actions: Any
    expect: Expectation | None
    expect_for: Mapping[str, Expectation]
    source: str  # file it came from
    line: int | None
    group: str  # the file's stem: a family of cases
    note: str | None = None
    raw: Any = field(default=None, compare=False, repr=False)  # the frozen source form
    legal_unchecked: str | None = None  # why no legal set the case leaves unstated is taken from the reference
    rules_files: tuple[str, ...] = field(default=(), compare=False, repr=False)  # its suite's own rulesets

    @functools.cached_property
    def refs(self) -> tuple[Ref, ...]:
        return tuple(parse_ref(r) for r in self.rulesets)  # the loader has checked that each one parses

    @functools.cached_property
    def _expect_refs(self) -> tuple[tuple[Ref, Expectation], ...]:
        return tuple((parse_ref(k), e) for k, e in self.expect_for.items())

    def applies_to(self, ruleset: str) -> bool:
        """Whether a reference selects the concrete name and the case has an answer for it.

        A range may admit a version (a file given with --rules) that no expect_for key selects."""
        if not any(r.matches(ruleset) for r in self.refs):
            return False
        return self.expect is not None or any(r.matches(ruleset) for r, _ in self._expect_refs)

    def concrete_rulesets(self) -> list[str]:
        """The concrete rulesets the case applies to: shipped ones its ranges select, and the exact names it gives."""
        return concrete_names(self.refs, shipped_names())

    def expectation(self, ruleset: str) -> Expectation:
        """What ``ruleset`` must answer: the first ``expect_for`` entry whose key selects it, else ``expect``."""
        exp = next((e for r, e in self._expect_refs if r.matches(ruleset)), self.expect)
        if exp is None:  # the loader refuses such cases
            raise KeyError(f"{self.id} has no expectation for {ruleset}")
        return exp

    def request(self, seq: int, ruleset: str) -> dict[str, Any]:
        """The protocol request for this case, expectations removed."""
        return {"cmd": "run", "seq": seq, "ruleset": ruleset, "setup": thaw(self.setup), "actions": thaw(self.actions)}

    def request_line(self, seq: int, ruleset: str) -> bytes:
        """The request as one JSON line; everything after the seq is serialized once per ruleset."""
        tail = self._tails.get(ruleset)
        if tail is None:
            body = {"ruleset": ruleset, "setup": thaw(self.setup), "actions": thaw(self.actions)}
            tail = self._tails[ruleset] = (
                "," + json.dumps(body, separators=(",", ":"), ensure_ascii=False)[1:] + "\n"
            ).encode()
        return b'{"cmd":"run","seq":' + str(seq).encode() + tail

    @functools.cached_property
    def _tails(self) -> dict[str, bytes]:
        return {}

    @functools.cached_property
    def judged_cache(self) -> dict[str, Any]:
        """Per ruleset, the expectation with the reference's legal sets (kit/legalsets.py), made once."""
        return {}

    @functools.cached_property
    def plain_actions(self) -> list[Any]:
        return thaw(self.actions)  # type: ignore[no-any-return]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "title": self.title,
            "clauses": list(self.clauses),
            "rulesets": list(self.rulesets),
            "setup": thaw(self.setup),
            "actions": thaw(self.actions),
        }
        if self.expect is not None:
            out["expect"] = self.expect.to_json()
        if self.expect_for:
            out["expect_for"] = {k: v.to_json() for k, v in self.expect_for.items()}
        if self.note:
            out["note"] = self.note
        if self.legal_unchecked is not None:
            out["legal_unchecked"] = self.legal_unchecked
        return out


def _step(raw: Any) -> StepExpect:
    if raw == "ok":
        return StepExpect(None, (), None)
    if "error" in raw:
        return StepExpect(raw["error"])
    legal = freeze(raw["legal"]) if "legal" in raw else None
    return StepExpect(None, freeze(raw.get("events", [])), legal, unchecked=raw.get("legal_unchecked"))


def _expectation(raw: Mapping[str, Any]) -> Expectation:
    if raw.get("errored"):
        return Expectation(None, (), None, errored=True)
    return Expectation(
        freeze(raw["legal"]) if "legal" in raw else None,
        tuple(_step(s) for s in raw["steps"]),
        freeze(raw["final"]),
    )


def load_cases_file(path: str | os.PathLike[str], display: str | None = None) -> list[Case]:
    """The cases of one fixture file; InputError listing every located problem."""
    name = display or os.fspath(path)
    return cases_of(load_fixture_doc(path, name), path, name)


def load_fixture_doc(path: str | os.PathLike[str], name: str) -> Document:
    from ..rules.yamlsafe import load_path

    return load_path(os.fspath(path), max_bytes=MAX_FIXTURE_BYTES, display=name)


def cases_of(doc: Document, path: str | os.PathLike[str], name: str) -> list[Case]:
    """The cases of a loaded fixture file; InputError listing every located problem."""
    # The schemas are imported here: a suite read back from the disk cache needs none of them.
    from ..rules.schema import shallow_fixture_validator, validate_items, validate_with

    problems = validate_with(doc, shallow_fixture_validator())
    if not problems:
        problems = validate_items(doc, list(_expected_items(doc.data)))
    if problems:
        raise InputError(problems)
    group = Path(os.fspath(path)).stem
    shipped = shipped_names()
    cases: list[Case] = []
    for i, raw in enumerate(doc.data["cases"]):
        where = ("cases", i)
        n_actions = len(raw["actions"])
        expects: list[tuple[str, Mapping[str, Any], tuple[object, ...]]] = []
        if "expect" in raw:
            expects.append(("expect", raw["expect"], (*where, "expect")))
        for rs, e in raw.get("expect_for", {}).items():
            expects.append((rs, e, (*where, "expect_for", rs)))
        problems.extend(_ruleset_problems(doc, raw, where, shipped))
        for label, e, at in expects:
            if not e.get("errored") and len(e["steps"]) != n_actions:
                problems.append(
                    doc.problem(
                        "FIXTURE_STEPS",
                        f"{raw['id']}: {counted(n_actions, 'action', 'actions')} but "
                        f"{counted(len(e['steps']), 'expected step', 'expected steps')} in {label}",
                        (*at, "steps"),
                    )
                )
        line, _ = doc.locate(where)
        cases.append(
            Case(
                id=raw["id"],
                title=raw["title"],
                clauses=tuple(raw["clauses"]),
                rulesets=tuple(raw["rulesets"]),
                setup=freeze(raw["setup"]),
                actions=freeze(raw["actions"]),
                expect=_expectation(raw["expect"]) if "expect" in raw else None,
                expect_for=freeze({k: _expectation(v) for k, v in raw.get("expect_for", {}).items()}),
                source=name,
                line=line,
                group=group,
                note=raw.get("note"),
                raw=freeze(raw),
                legal_unchecked=raw.get("legal_unchecked"),
            )
        )
    if problems:
        raise InputError(problems)
    return cases


def _ruleset_problems(
    doc: Document, raw: Mapping[str, Any], where: tuple[object, ...], shipped: list[str]
) -> list[Problem]:
    """A case's references: each parses, expect_for selects only what the case applies to, none lacks an expectation."""
    problems: list[Problem] = []
    refs: dict[tuple[object, ...], Ref] = {}
    texts = [((*where, "rulesets", k), r) for k, r in enumerate(raw["rulesets"])]
    for at, text in [*texts, *(((*where, "expect_for", k), k) for k in raw.get("expect_for", {}))]:
        try:
            refs[at] = parse_ref(text)
        except ValueError as exc:
            problems.append(doc.problem("FIXTURE_RULESET", str(exc), at))
    if problems:
        return problems  # the checks below would only repeat what is already wrong
    applies = [r for at, r in refs.items() if at[2] == "rulesets"]
    keys = [(at, r) for at, r in refs.items() if at[2] == "expect_for"]
    for j, (at, key) in enumerate(keys):
        selected = [key.exact] if key.exact is not None else key.select(shipped)
        outside = [n for n in selected if not any(r.matches(n) for r in applies)]
        if not selected:
            problems.append(doc.problem("FIXTURE_RULESET", f"expect_for {key} selects no shipped ruleset", at))
        elif all(any(k.matches(n) for _, k in keys[:j]) for n in selected):  # the first key that selects wins
            problems.append(doc.problem("FIXTURE_RULESET", f"expect_for {key} is never used: keys above it win", at))
        elif outside:
            message = (
                f"expect_for names {key}, which the case does not apply to"
                if key.exact is not None
                else f"expect_for {key} selects {', '.join(outside)}, which the case does not apply to"
            )
            problems.append(doc.problem("FIXTURE_RULESET", message, at))
    if "expect" not in raw:
        missing = [n for n in concrete_names(applies, shipped) if not any(k.matches(n) for _, k in keys)]
        if missing:
            problems.append(
                doc.problem("FIXTURE_RULESET", f"{raw['id']}: no expectation for {', '.join(missing)}", where)
            )
    return problems


def _expected_items(data: Any) -> Iterable[tuple[str, tuple[object, ...], Any]]:
    """Every expected event and legal action of a fixture file, with its path."""
    for i, case in enumerate(data["cases"]):
        expects: list[tuple[tuple[object, ...], Any]] = []
        if "expect" in case:
            expects.append((("cases", i, "expect"), case["expect"]))
        for rs, e in case.get("expect_for", {}).items():
            expects.append((("cases", i, "expect_for", rs), e))
        for at, e in expects:
            for k, a in enumerate(e.get("legal", [])):
                yield "action", (*at, "legal", k), a
            for j, step in enumerate(e.get("steps", [])):
                if not isinstance(step, dict):
                    continue
                for k, ev in enumerate(step.get("events", [])):
                    yield "event", (*at, "steps", j, "events", k), ev
                for k, a in enumerate(step.get("legal", [])):
                    yield "action", (*at, "steps", j, "legal", k), a
