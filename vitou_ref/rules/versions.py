"""Ruleset versions (MAJOR.MINOR.PATCH) and the npm-style ranges a conformance case selects them with."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from . import reader

Version = tuple[int, int, int]

# A version is three whole numbers without leading zeros, as semver writes them, of at most 9 digits each
# (reader.MAX_VERSION_DIGITS); the rules schema's pattern is this one.
VERSION_PATTERN = r"(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})"
_VERSION = re.compile(VERSION_PATTERN)
_LOOSE_VERSION = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+")
_ID = re.compile(r"[a-z][a-z0-9-]*")
_OPS = (">=", "<=", ">", "<", "=")  # the two-character operators first, so that ">=" is not read as ">"
_MAX_REF = 200  # no ruleset reference is longer; a longer text is refused before it is read
_FORMS = (
    "a version (1.0.0), a caret range (^1.0.0), or comparators >=, >, <=, <, = each with a version (>=1.0.0 <2.0.0)"
)


def parse_version(text: str) -> Version:
    """The integer triple of ``MAJOR.MINOR.PATCH``; ValueError saying what is wrong otherwise.

    Each number is at most 9 digits (the reader's bound): a longer one is refused here, before any int().
    """
    if _LOOSE_VERSION.fullmatch(text):
        return reader.version(text)  # no leading zeros, at most 9 digits a number, or ReadError (a ValueError)
    if re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+[-+].*", text, flags=re.DOTALL):
        raise ValueError(
            f"{reader.shown(text)}: pre-release and build tags are not supported; a version is MAJOR.MINOR.PATCH"
        )
    raise ValueError(f"{reader.shown(text)} is not a version: give MAJOR.MINOR.PATCH, three whole numbers (1.0.0)")


def version_key(version: str) -> Version:
    """The sort key of a version: its numbers compared as integers, so that 1.10.0 comes after 1.9.0."""
    return parse_version(version)


def format_version(version: Version) -> str:
    return ".".join(str(n) for n in version)


@dataclass(frozen=True)
class Comparator:
    """One condition on a version: ``op`` (one of >=, >, <=, <, =) and the version it compares with."""

    op: str
    version: Version

    def admits(self, v: Version) -> bool:
        w = self.version
        if self.op == ">=":
            return v >= w
        if self.op == ">":
            return v > w
        if self.op == "<=":
            return v <= w
        if self.op == "<":
            return v < w
        return v == w

    def __str__(self) -> str:
        return self.op + format_version(self.version)


@dataclass(frozen=True)
class Range:
    """A set of versions: those every comparator admits; ``text`` is the range as written."""

    text: str
    comparators: tuple[Comparator, ...]

    def admits(self, v: Version) -> bool:
        return all(c.admits(v) for c in self.comparators)

    @property
    def exact(self) -> Version | None:
        """The one version of a range written as a version (``1.0.0`` or ``=1.0.0``), else None."""
        if len(self.comparators) == 1 and self.comparators[0].op == "=":
            return self.comparators[0].version
        return None

    def satisfiable(self) -> bool:
        """Whether some version is in the range (``>=2.0.0 <1.0.0`` holds none).

        Versions are integer triples, so the least version above ``V`` is
        ``V`` with its patch plus one. The versions admitted by the lower
        bounds start at their greatest such least version; the upper bounds
        each admit every version below one they admit; so the range holds a
        version exactly when it holds that least one (or, with an ``=``, that
        version).
        """
        candidate: Version = (0, 0, 0)
        for c in self.comparators:
            least = (c.version[0], c.version[1], c.version[2] + 1) if c.op == ">" else c.version
            if c.op in (">=", ">"):
                candidate = max(candidate, least)
        pinned = [c.version for c in self.comparators if c.op == "="]
        return self.admits(pinned[0] if pinned else candidate)

    def __str__(self) -> str:
        return self.text


def _caret(text: str, body: str) -> tuple[Comparator, ...]:
    """``^V``: V and what follows it up to the next change of its left-most non-zero number (npm's caret)."""
    low = _version_in(text, body)
    major, minor, patch = low
    if major > 0:
        high = (major + 1, 0, 0)
    elif minor > 0:
        high = (0, minor + 1, 0)
    else:
        high = (0, 0, patch + 1)
    return Comparator(">=", low), Comparator("<", high)


def _version_in(text: str, body: str) -> Version:
    try:
        return parse_version(body)
    except ValueError as exc:
        raise ValueError(f"range {text!r}: {exc}") from None


def _comparator(text: str, term: str) -> Comparator:
    for op in _OPS:
        if term == op:
            raise ValueError(f"range {text!r}: {op} is followed by its version, with no space between ({op}1.0.0)")
        if term.startswith(op):
            return Comparator(op, _version_in(text, term[len(op) :]))
    if reader.looks_numeric(term[:1]):
        raise ValueError(
            f"range {text!r}: in a list of comparators each version has its operator (>=, >, <=, <, =): {term!r}"
        )
    raise ValueError(f"range {text!r}: {term!r} is not a comparator; a range is {_FORMS}")


def parse_range(text: str) -> Range:
    """A range in npm's style, limited to an exact version, a caret, or comparators that must all hold.

    ValueError, with a message saying what is wrong, for anything else and
    for comparators that no version satisfies.
    """
    if not text:
        raise ValueError(f"the range is empty; a range is {_FORMS}")
    if "||" in text:
        raise ValueError(f"range {text!r}: alternatives (||) are not supported; list each range as its own reference")
    terms = text.split(" ")
    if "" in terms:
        raise ValueError(f"range {text!r}: comparators are separated by one space, with none before or after")
    if len(terms) == 1 and reader.looks_numeric(terms[0][:1]):
        return Range(text, (Comparator("=", _version_in(text, terms[0])),))
    if terms[0].startswith("^"):
        if len(terms) > 1:
            raise ValueError(f"range {text!r}: a caret range stands alone, with no comparator beside it")
        return Range(text, _caret(text, terms[0][1:]))
    if any(t.startswith("^") for t in terms):
        raise ValueError(f"range {text!r}: a caret range stands alone, with no comparator beside it")
    rng = Range(text, tuple(_comparator(text, t) for t in terms))
    if not rng.satisfiable():
        raise ValueError(f"range {text!r} admits no version: its comparators cannot all hold")
    return rng


@dataclass(frozen=True)
class Ref:
    """A reference to the versions of one ruleset: ``ID/RANGE`` (``vitou/^1.0.0``, ``vitou-2p/1.0.0``)."""

    id: str
    range: Range

    @property
    def text(self) -> str:
        return f"{self.id}/{self.range.text}"

    @property
    def exact(self) -> str | None:
        """The concrete name of a reference to one version (``vitou/1.0.0``), else None."""
        v = self.range.exact
        return None if v is None else f"{self.id}/{format_version(v)}"

    def matches(self, name: str) -> bool:
        """Whether the concrete ruleset name ``id/X.Y.Z`` is one this reference selects."""
        split = split_name(name)
        return split is not None and split[0] == self.id and self.range.admits(split[1])

    def select(self, names: Iterable[str]) -> list[str]:
        """The names this reference matches, in their order."""
        return [n for n in names if self.matches(n)]

    def __str__(self) -> str:
        return self.text


@functools.lru_cache(maxsize=4096)  # asked for every case and ruleset of a suite
def split_name(name: str) -> tuple[str, Version] | None:
    """The id and version of a concrete ruleset name ``id/X.Y.Z``; None for anything else."""
    rid, sep, version = name.partition("/")
    if not sep or _ID.fullmatch(rid) is None or _VERSION.fullmatch(version) is None:
        return None
    return rid, parse_version(version)


def parse_ref(text: str) -> Ref:
    """A ruleset reference ``ID/RANGE``; ValueError with a message saying what is wrong otherwise."""
    if len(text) > _MAX_REF:
        raise ValueError(f"a ruleset reference is at most {_MAX_REF} characters; this one has {len(text)}")
    rid, sep, rng = text.partition("/")
    if not sep:
        raise ValueError(f"{text!r} is not a ruleset reference: give ID/RANGE, as in vitou/^1.0.0 or vitou/1.0.0")
    if _ID.fullmatch(rid) is None:
        raise ValueError(
            f"{text!r}: a ruleset id is lower-case letters, digits and '-', starting with a letter; not {rid!r}"
        )
    return Ref(rid, parse_range(rng))


def concrete_names(refs: Iterable[Ref], shipped: Iterable[str]) -> list[str]:
    """The concrete rulesets the references select, each once.

    First the shipped names some reference matches, in shipped order; then
    the exact names of references to rulesets not shipped, as they come.
    """
    refs = list(refs)
    shipped = list(shipped)
    out = {n: None for n in shipped if any(r.matches(n) for r in refs)}
    for r in refs:
        if r.exact is not None:
            out.setdefault(r.exact, None)
    return list(out)
