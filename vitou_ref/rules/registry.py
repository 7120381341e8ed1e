"""Finding and loading rulesets: by name (``vitou/1.0.0``), by id (latest version), or from a file."""

from __future__ import annotations

import functools
import hashlib
import os
import re
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import reader
from .cache import memo
from .data import data_dir
from .errors import InputError, UnknownRuleset
from .model import Ruleset
from .problems import Problem

if TYPE_CHECKING:
    from .yamlsafe import Document

# The YAML reader, the schemas and the builder are imported where a document
# is read: a start that finds its rulesets in the disk cache never needs them.

MAX_RULES_BYTES = 1024 * 1024


def _locator(doc: Document) -> Any:
    def locate(code: str, message: str, path: tuple[object, ...]) -> Problem:
        return doc.problem(code, message, path)

    return locate


def ruleset_from_document(doc: Document, *, strict: bool = True) -> Ruleset:
    """A checked Ruleset from a loaded rules or profile document; InputError with located problems otherwise."""
    if isinstance(doc.data, dict) and "profile" in doc.data and "ruleset" not in doc.data:
        from .profile import resolve_profile  # a profile resolves against its base

        return resolve_profile(doc, load_named, strict=strict)
    from .load import build_ruleset
    from .schema import validate_rules

    problems = validate_rules(doc)
    if problems:
        raise InputError(problems)
    return build_ruleset(doc.data, _locator(doc), strict=strict)


def load_rules_file(path: str | os.PathLike[str], *, display: str | None = None, strict: bool = True) -> Ruleset:
    from .yamlsafe import load_path

    return ruleset_from_document(load_path(os.fspath(path), max_bytes=MAX_RULES_BYTES, display=display), strict=strict)


def load_rules_text(text: str | bytes, source: str = "<rules>", *, strict: bool = True) -> Ruleset:
    from .yamlsafe import load_text

    return ruleset_from_document(load_text(text, source, max_bytes=MAX_RULES_BYTES), strict=strict)


def _display(path: Path) -> str:
    spec = data_dir("spec")
    try:
        return "spec/" + path.relative_to(spec).as_posix()
    except ValueError:
        return path.name


def _spec_files() -> list[Path]:
    spec = data_dir("spec")
    return sorted(spec.glob("*.yaml")) + sorted((spec / "profiles").glob("*.yaml"))


@functools.cache
def spec_digest() -> bytes:
    """A digest of every shipped rules file and schema: what a loaded ruleset or case depends on besides its own bytes."""
    h = hashlib.sha256()
    for path in [*_spec_files(), *sorted(data_dir("schema").rglob("*.json"))]:
        data = path.read_bytes()
        h.update(f"{path.parent.name}/{path.name}|{len(data)}|".encode() + data)
    return h.digest()


@functools.cache
def _headers() -> dict[str, str]:
    """The shipped rulesets' names and their files, base rules first; read once, then kept in the disk cache."""
    return memo("spec-index", [spec_digest()], _read_headers, dict)


def _read_headers() -> dict[str, str]:
    found: dict[str, str] = {}
    for path in _spec_files():
        doc = _document_at(path)
        head = doc.data.get("ruleset") or doc.data.get("profile") if isinstance(doc.data, dict) else None
        if (
            not isinstance(head, dict)
            or not isinstance(head.get("id"), str)
            or not isinstance(head.get("version"), str)
        ):
            raise InputError(
                [
                    doc.problem(
                        "RULESET_HEADER", "a rules file starts with 'ruleset' (or 'profile') naming id and version"
                    )
                ]
            )
        # Relative: the same spec may be installed in more than one place, and share an entry.
        found[f"{head['id']}/{head['version']}"] = path.relative_to(data_dir("spec")).as_posix()
    return found


@functools.cache
def _document_at(path: Path) -> Document:
    from .yamlsafe import load_path

    return load_path(os.fspath(path), max_bytes=MAX_RULES_BYTES, display=_display(path))


def _document(name: str) -> Document:
    return _document_at(data_dir("spec") / _headers()[name])


_LOADED: dict[str, Ruleset] = {}
# One lock for every load: threads (vitou mutants --fuzz) share the cache, and
# a thread must never take another thread's load in progress for a cycle. It
# is reentrant because a profile loads its base while its own load holds it.
_LOCK = threading.RLock()
_LOADING: list[str] = []  # the names this thread is loading, outermost first; only touched under _LOCK


def _load_shipped(name: str) -> Ruleset:
    rules = _LOADED.get(name)
    if rules is not None:
        return rules
    with _LOCK:
        rules = _LOADED.get(name)
        if rules is not None:  # another thread loaded it while this one waited
            return rules
        if name in _LOADING:
            chain = " -> ".join([*_LOADING[_LOADING.index(name) :], name])
            # Located at the 'extends' that closes the cycle.
            closing = _document(_LOADING[-1])
            raise InputError(
                [
                    closing.problem(
                        "PROFILE_CYCLE",
                        f"{chain}: a profile cannot extend itself, directly or through others",
                        ("profile", "extends"),
                    )
                ]
            )
        _LOADING.append(name)
        try:
            # The compiled ruleset is kept on disk: a start reads it back instead of
            # parsing and validating the YAML again (a profile loads its base the same way).
            rules = memo(
                "ruleset",
                [spec_digest(), name, _headers()[name]],
                lambda: ruleset_from_document(_document(name)),
                Ruleset,
            )
        finally:
            _LOADING.pop()
        _LOADED[name] = rules
    return rules


def shipped() -> dict[str, Path]:
    """Every ruleset shipped with the package, by name, base rules first."""
    spec = data_dir("spec")
    return {name: spec / path for name, path in _headers().items()}


def shipped_names() -> list[str]:
    return list(shipped())


def _version_key(name: str) -> tuple[int, ...]:
    # A name _VERSIONED matched: digits and dots, each number at most 9 digits (shipped and loaded names have
    # three; a name of another form, never loadable, sorts by what its numbers say).
    return tuple(
        reader.whole(x, what="a number of a version", max_digits=reader.MAX_VERSION_DIGITS)
        for x in name.split("/", 1)[1].split(".")
    )


def resolve_name(ref: str) -> str:
    """The full name of a shipped ruleset from ``id/version`` or a bare ``id`` (its latest version)."""
    return resolve_among(ref, shipped())


def resolve_among(ref: str, names: Iterable[str]) -> str:
    """The full name among ``names`` that ``ref`` gives (``id/version``, or a bare ``id``: its latest version).

    UnknownRuleset, listing ``names``, otherwise: every command says
    ``unknown ruleset 'x'; known: ...`` in the same words.
    """
    names = list(names)
    if ref in names:
        return ref
    matching = [n for n in names if n.split("/", 1)[0] == ref and _is_versioned(n)]
    if matching:
        return max(matching, key=_version_key)
    raise UnknownRuleset(ref, names)


def _is_versioned(name: str) -> bool:
    return _VERSIONED.fullmatch(name) is not None


# ``id/version``: a ruleset's full name. A version is digits and dots, so
# that ``vitou/1.0`` is still read as a (wrong) name, not as a file.
_FULL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*/[0-9]+(\.[0-9]+)*")
# A name whose version can be compared: each number at most 9 digits, as a version's (reader.MAX_VERSION_DIGITS).
_VERSIONED = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*/[0-9]{1,9}(\.[0-9]{1,9})*")
_RULES_SUFFIXES = (".yaml", ".yml", ".json")


def is_name(text: str) -> bool:
    """Whether ``text`` names a shipped ruleset (``id/version`` or a bare ``id``) rather than a file."""
    if _FULL_NAME.fullmatch(text):
        return True
    separators = {"/", os.sep, os.altsep or "/"}
    return not any(sep in text for sep in separators) and not text.endswith(_RULES_SUFFIXES)


def load_named(name: str, problem: Callable[[str], Problem]) -> Ruleset:
    """The shipped ruleset a document names by its full id; InputError with ``problem(message)`` otherwise.

    A name in a document (a record's ruleset, a profile's base) is only ever
    looked up among the shipped rulesets, never as a path: the same record
    must get the same ruling wherever it is audited.
    """
    try:
        rules = _load_shipped(resolve_name(name)) if is_name(name) else None
    except UnknownRuleset as exc:
        raise InputError([problem(str(exc))]) from None
    if rules is None:
        raise InputError([problem(f"{name!r} is not a ruleset name (id/version); a file cannot be named here")])
    if rules.name != name:  # a document pins one version: a bare id would drift
        raise InputError([problem(f"{name} resolves to {rules.name}; give the ruleset's full id")])
    return rules


def load_ruleset(ref: str | os.PathLike[str]) -> Ruleset:
    """A shipped ruleset by name or id, or a rules or profile file given explicitly.

    A string of the form ``id/version`` (``vitou/1.0.0``) or a bare ``id``
    (``vitou-2p``: its latest version) always names a shipped ruleset, never
    a file, whatever files the working directory holds; an unknown one
    raises UnknownRuleset, which lists the shipped names. Anything else is a
    file: a string ending in ``.yaml``, ``.yml`` or ``.json``, or one with a
    path separator that is not of the ``id/version`` form (``./club/1.0.0``
    for a file that happens to be named like a ruleset), or a path object.
    """
    if not isinstance(ref, str):
        return load_rules_file(ref)
    if is_name(ref):
        return _load_shipped(resolve_name(ref))
    return load_rules_file(ref)
