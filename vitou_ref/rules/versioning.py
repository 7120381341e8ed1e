"""How big a change between two rulesets is (MAJOR, MINOR, PATCH) and whether a version number says enough."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from .diff import ClauseChange, RulesetDiff, diff_rulesets
from .errors import InputError
from .model import Clause, Ruleset, thaw
from .problems import Problem
from .registry import MAX_RULES_BYTES, load_ruleset, shipped
from .versions import parse_version
from .yamlsafe import Document, load_path


class Level(Enum):
    """How far a change reaches, ordered: NONE < PATCH < MINOR < MAJOR."""

    NONE = "NONE"
    PATCH = "PATCH"
    MINOR = "MINOR"
    MAJOR = "MAJOR"

    @property
    def rank(self) -> int:
        return _RANK[self.value]

    def __lt__(self, other: object) -> bool:
        return self.rank < other.rank if isinstance(other, Level) else NotImplemented

    def __le__(self, other: object) -> bool:
        return self.rank <= other.rank if isinstance(other, Level) else NotImplemented

    def __gt__(self, other: object) -> bool:
        return self.rank > other.rank if isinstance(other, Level) else NotImplemented

    def __ge__(self, other: object) -> bool:
        return self.rank >= other.rank if isinstance(other, Level) else NotImplemented


_RANK = {"NONE": 0, "PATCH": 1, "MINOR": 2, "MAJOR": 3}
MAJOR, MINOR, PATCH, NONE = Level.MAJOR, Level.MINOR, Level.PATCH, Level.NONE

# The versioning policy as data: what a change to each field can change.
# MAJOR: a match can get another answer; MINOR: what the rules say or settle;
# PATCH: words only. A clause's data is MAJOR when the clause binds a rule,
# MINOR otherwise; clauses, clarifications and codes added or removed are
# judged where they are found.
RULESET_FIELDS = {"id": MAJOR, "title": PATCH, "summary": PATCH, "source": PATCH}
DOCUMENT_FIELDS = {"versioning": PATCH, "changelog": PATCH, "profile": PATCH}
CLAUSE_FIELDS = {
    "rule": MAJOR,
    "clarifications": MINOR,
    "section": PATCH,
    "title": PATCH,
    "text": PATCH,
    "quote": PATCH,
}
CLARIFICATION_FIELDS = {"clauses": MINOR, "ruling": MINOR, "title": PATCH, "reason": PATCH}
ERROR_FIELDS = {"acts": MAJOR, "condition": MAJOR, "clause": MINOR, "summary": PATCH, "when": PATCH}
_PROSE = {"text", "quote", "summary", "source", "reason", "ruling", "when", "versioning"}


@dataclass(frozen=True, slots=True)
class Change:
    """One change: its level, where it is (``clauses[deck.rank_order].data.highest_first``) and what it is."""

    level: Level
    where: str
    what: str

    def to_json(self) -> dict[str, str]:
        return {"level": self.level.value, "where": self.where, "what": self.what}


@dataclass(frozen=True, slots=True)
class Classification:
    """The highest level among the changes (NONE when there are none), and the changes."""

    level: Level
    changes: tuple[Change, ...]


def classify(a: Ruleset, b: Ruleset) -> Classification:
    """How the change from ``a`` to ``b`` is classified by the versioning policy, change by change."""
    d = diff_rulesets(a, b)
    changes = [*_header(a, b), *_clauses(d), *_clarifications(d), *_errors(a, b)]
    return Classification(max((c.level for c in changes), default=NONE), tuple(changes))


def _show(value: Any) -> str:
    value = thaw(value)
    if isinstance(value, list) and all(isinstance(v, (str, int)) for v in value):
        text = "[" + ", ".join(str(v) for v in value) + "]"
    else:
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _was_now(field: str, x: Any, y: Any) -> str:
    """A field's change in a few words: its two values, or for prose whether it is reworded or (no longer) stated."""
    if field in _PROSE and x and y:
        return "changed" if field == "ruling" else "worded differently"
    if field in _PROSE:
        return "now stated" if y else "no longer stated"
    return f"{_show(x)} -> {_show(y)}"


def _header(a: Ruleset, b: Ruleset) -> list[Change]:
    out = [
        Change(level, f"ruleset.{f}", _was_now(f, getattr(a, f), getattr(b, f)))
        for f, level in RULESET_FIELDS.items()
        if getattr(a, f) != getattr(b, f)
    ]
    if a.versioning != b.versioning:
        out.append(Change(PATCH, "versioning", "the policy is worded differently"))
    if a.changelog != b.changelog:
        new = [e.version for e in b.changelog if e.version not in {x.version for x in a.changelog}]
        what = f"entries for {', '.join(new)} added" if new else "worded differently"
        out.append(Change(PATCH, "changelog", what))
    pa, pb = a.to_json().get("profile") or {}, b.to_json().get("profile") or {}
    for key in sorted(set(pa) | set(pb), key=lambda k: (k != "extends", k)):
        if pa.get(key) != pb.get(key):
            what = f"the base: {pa.get(key, 'none')} -> {pb.get(key, 'none')}" if key == "extends" else "changed"
            out.append(Change(DOCUMENT_FIELDS["profile"], f"profile.{key}", what))
    return out


def _clauses(d: RulesetDiff) -> list[Change]:
    a, b = d.a, d.b
    out: list[Change] = []
    for c in d.clauses:
        ca = a.clause(c.a) if c.a is not None else None
        cb = b.clause(c.b) if c.b is not None else None
        if ca is None or cb is None:
            out.append(_clause_presence(ca, cb))
        else:
            out += _clause_changes(c, ca, cb)
    return out


def _clause_presence(ca: Clause | None, cb: Clause | None) -> Change:
    """A clause added or removed: MAJOR if it binds a rule (a match reads it), MINOR otherwise."""
    clause = cb or ca
    assert clause is not None
    verb = "added" if cb is not None else "removed"
    if clause.rule is not None:
        return Change(MAJOR, f"clauses[{clause.id}]", f"clause {verb}, binding the rule {clause.rule!r}")
    return Change(MINOR, f"clauses[{clause.id}]", f"clause {verb} ({_show(clause.title)}; it binds no rule)")


def _clause_changes(c: ClauseChange, ca: Clause, cb: Clause) -> list[Change]:
    where = f"clauses[{cb.id}]"
    out: list[Change] = []
    bound = ca.rule is not None or cb.rule is not None
    if ca.id != cb.id:  # the pair the differ matched: a profile's replacement, or one rule moved to a new clause
        if bound:
            rules = sorted({r for r in (ca.rule, cb.rule) if r is not None})
            what = f"replaces clause {ca.id}: the rule {', '.join(map(repr, rules))} is bound to another clause"
            out.append(Change(MAJOR, where, what))
        else:
            out.append(Change(MINOR, where, f"replaces clause {ca.id} (neither binds a rule)"))
    for field in c.fields:
        x, y = getattr(ca, field), getattr(cb, field)
        if x != y:  # the model's values: an absent list and an empty one are the same
            out.append(Change(CLAUSE_FIELDS[field], f"{where}.{field}", _clause_field(field, x, y)))
    for key, (x, y) in c.data.items():
        level = MAJOR if bound else MINOR
        path = key.removesuffix(" (order)")
        if path != key:
            what = f"the order: {_show(x)} -> {_show(y)}"
        elif x is None or y is None:
            what = f"added: {_show(y)}" if x is None else f"removed (was {_show(x)})"
        else:
            what = f"{_show(x)} -> {_show(y)}"
        out.append(Change(level, f"{where}.data" + ("" if path == "." else f".{path}"), what))
    return out


def _clause_field(field: str, x: Any, y: Any) -> str:
    if field == "rule":
        return f"binds {x or 'no rule'} -> {y or 'no rule'}"
    return _was_now(field, x, y)


def _clarifications(d: RulesetDiff) -> list[Change]:
    ka = {k.number: k for k in d.a.clarifications}
    kb = {k.number: k for k in d.b.clarifications}
    out: list[Change] = []
    for entry in d.clarifications:
        n = entry["number"]
        where = f"clarifications[{n}]"
        if entry["kind"] != "changed":
            out.append(Change(MINOR, where, f"clarification {entry['kind']}: {_show(entry['title'])}"))
            continue
        for field in entry.get("fields", ()):
            if field not in CLARIFICATION_FIELDS:
                continue
            x, y = getattr(ka[n], field), getattr(kb[n], field)
            out.append(Change(CLARIFICATION_FIELDS[field], f"{where}.{field}", _was_now(field, x, y)))
    return out


def _errors(a: Ruleset, b: Ruleset) -> list[Change]:
    ea = {e.code: e for e in a.errors}
    eb = {e.code: e for e in b.errors}
    out: list[Change] = []
    for e in b.errors:
        where = f"errors[{e.code}]"
        old = ea.get(e.code)
        if old is None:
            out.append(Change(MAJOR, where, f"code added, judging {', '.join(e.acts)}, citing clause {e.clause}"))
            continue
        for field, level in ERROR_FIELDS.items():
            x, y = getattr(old, field), getattr(e, field)
            if x != y:
                what = f"judges {', '.join(x)} -> {', '.join(y)}" if field == "acts" else _was_now(field, x, y)
                out.append(Change(level, f"{where}.{field}", what))
    out += [Change(MAJOR, f"errors[{e.code}]", "code removed") for e in a.errors if e.code not in eb]
    seq_a = [e.code for e in a.errors if e.code in eb]
    seq_b = [e.code for e in b.errors if e.code in ea]
    if seq_a != seq_b:
        i = next(i for i, (x, y) in enumerate(zip(seq_a, seq_b)) if x != y)
        what = f"the order of precedence: {seq_b[i]} now comes before {seq_a[i]}"
        out.append(Change(MAJOR, "errors", what))
    return out


# -- version numbers ---------------------------------------------------------


def bump_level(old_version: str, new_version: str) -> Level:
    """MAJOR if the major number grew, MINOR if it is equal and the minor grew, PATCH if only the patch grew."""
    old, new = parse_version(old_version), parse_version(new_version)
    if new[0] > old[0]:
        return MAJOR
    if new[0] == old[0] and new[1] > old[1]:
        return MINOR
    if new[:2] == old[:2] and new[2] > old[2]:
        return PATCH
    return NONE


def bump_phrase(old_version: str, new_version: str, level: Level) -> str:
    """The bump in words and whether it is enough: ``the version goes 1.0.0 -> 1.1.0, a MINOR bump: enough``."""
    bump = bump_level(old_version, new_version)
    if old_version == new_version:
        said = f"the version stays {new_version},"
    elif bump is NONE:
        said = f"the version goes {old_version} -> {new_version}, not a bump,"
    else:
        said = f"the version goes {old_version} -> {new_version}, a {bump.value} bump"
    if bump >= level:
        return said.rstrip(",") + ": enough"
    return f"{said}{' which' if said.endswith(',') else ''} understates a {level.value} change"


def render_classification(a: Ruleset, b: Ruleset, cls: Classification, show: Callable[[str], str] = str) -> str:
    """Each change with its level, grouped clause by clause (code by code...), then the verdict; ``show`` makes
    each line safe for where it goes (a terminal's escaper)."""
    lines: list[str] = []
    group = None
    for c in cls.changes:
        head = _group(c.where)
        if head != group:
            lines.append(head)
            group = head
        rest = c.where[len(head) :].lstrip(".")
        lines.append(f"  {c.level.value:<5}  {rest + ': ' if rest else ''}{c.what}")
    if not cls.changes:
        lines.append("no change")
    lines.append(f"{a.name} -> {b.name}: {cls.level.value} ({bump_phrase(a.version, b.version, cls.level)})")
    return "\n".join(show(line) for line in lines) + "\n"


def _group(where: str) -> str:
    if "[" in where.split(".", 1)[0]:
        return where[: where.index("]") + 1]
    return where.split(".", 1)[0]


# -- spec check --------------------------------------------------------------


def version_problems(path: str, rules: Ruleset, doc: Document | None = None) -> tuple[Problem, ...]:
    """VERSION_REUSED or VERSION_UNDERSTATED for a valid rules file, against the shipped versions of its id.

    Located at the file's ``ruleset.version`` (``profile.version``), in ``doc``
    when the file came as content (an upload) rather than at ``path``. A
    problem of a shipped file needed for the comparison is reported as it is.
    """
    try:
        mine = parse_version(rules.version)
    except ValueError:
        return ()  # the schema refuses such a version
    try:
        versions = _shipped_versions(rules.id)
        doc = load_path(path, max_bytes=MAX_RULES_BYTES) if doc is None else doc
        head = "ruleset" if isinstance(doc.data, dict) and "ruleset" in doc.data else "profile"
        if rules.name in versions:
            published = load_ruleset(rules.name)
            if published.content_hash != rules.content_hash:
                message = (
                    f"{rules.name} is already published with hash {published.content_hash}; "
                    "a changed ruleset needs a new version"
                )
                return (doc.problem("VERSION_REUSED", message, (head, "version")),)
        lower = [n for n, v in versions.items() if v < mine]
        if not lower:
            return ()
        previous = load_ruleset(max(lower, key=lambda n: versions[n]))
    except InputError as exc:
        return exc.problems
    understated = _understated(previous, rules)
    return () if understated is None else (doc.problem("VERSION_UNDERSTATED", understated, (head, "version")),)


def _shipped_versions(ruleset_id: str) -> dict[str, tuple[int, int, int]]:
    """The shipped rulesets of an id, by name, with their versions as numbers."""
    versions = {}
    for name in shipped():
        rid, _, version = name.partition("/")
        if rid == ruleset_id:
            try:
                versions[name] = parse_version(version)
            except ValueError:
                continue  # not a version: loading it says why, if it is ever asked for
    return versions


def _understated(previous: Ruleset, rules: Ruleset, shown: int = 3) -> str | None:
    cls = classify(previous, rules)
    bump = bump_level(previous.version, rules.version)
    if bump >= cls.level:
        return None
    needed = sorted((c for c in cls.changes if c.level > bump), key=lambda c: -c.level.rank)  # the biggest first
    listed = "; ".join(f"{c.where}: {c.what} ({c.level.value})" for c in needed[:shown])
    more = f"; and {len(needed) - shown} more" if len(needed) > shown else ""
    return (
        f"{rules.name} follows {previous.name} with a {bump.value} bump ({previous.version} -> {rules.version}), "
        f"but the change is {cls.level.value} and needs a {cls.level.value} bump: {listed}{more}"
    )


__all__ = [
    "Change",
    "Classification",
    "Level",
    "bump_level",
    "bump_phrase",
    "classify",
    "render_classification",
    "version_problems",
]
