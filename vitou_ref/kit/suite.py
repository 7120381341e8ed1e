"""A suite: every case file under a directory, ids checked across files, and the rules files it brings."""

from __future__ import annotations

import dataclasses
import errno
import fnmatch
import functools
import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ..rules.cache import memo
from ..rules.data import data_dir
from ..rules.errors import InputError
from ..rules.files import read_path
from ..rules.model import freeze
from ..rules.problems import Problem
from ..rules.registry import resolve_among, shipped_names, spec_digest
from ..rules.versions import concrete_names
from .envelope import EnvelopeCase, envelope_cases
from .fixtures import MAX_FIXTURE_BYTES, Case, cases_of

C = TypeVar("C", Case, EnvelopeCase)

RULESETS_DIR = "rulesets"
"""A suite directory's subdirectory of rules and profile files that its cases name and no package ships."""


@dataclass(frozen=True)
class Suite:
    root: str
    files: tuple[str, ...]
    cases: tuple[Case, ...]
    retired: Mapping[str, str]
    rules_files: tuple[str, ...] = ()  # the suite's own rulesets (its rulesets/ directory), served beside the shipped
    envelope: tuple[EnvelopeCase, ...] = ()  # cases of raw protocol lines, run once per certification
    published: bool = True  # one of the suites vitou ships, whole: only its verdicts certify

    def applicable(self, ruleset: str) -> list[Case]:
        return [c for c in self.cases if c.applies_to(ruleset)]

    def rulesets(self) -> list[str]:
        """The concrete rulesets some case applies to: shipped ones first, in shipped order, then exact names.

        An envelope case that names none runs under every ruleset: a suite of such cases alone, the shipped ones.
        """
        every: list[Case | EnvelopeCase] = [*self.cases, *self.envelope]
        names = concrete_names([r for c in every for r in c.refs], shipped_names())
        return names or (shipped_names() if any(not e.refs for e in self.envelope) else [])

    def known_rulesets(self, also: Iterable[str] = ()) -> list[str]:
        """Every ruleset a run of this suite may ask for: the shipped ones, those its cases name, and ``also``."""
        return list(dict.fromkeys([*shipped_names(), *self.rulesets(), *also]))

    def resolve(self, ref: str, also: Iterable[str] = ()) -> str:
        """The full name ``ref`` gives among the known rulesets; UnknownRuleset, listing them, otherwise.

        A version no case and no rules file names is a mistyped name, not a
        ruleset to test: the cases' ranges would accept ``vitou/1.2.0``.
        """
        return resolve_among(ref, self.known_rulesets(also))

    def by_id(self, case_id: str) -> Case:
        for c in self.cases:
            if c.id == case_id:
                return c
        raise KeyError(case_id)


def default_suite_dir() -> Path:
    return data_dir("conformance") / "cases"


# The suites vitou ships, by name, for an installation that has no checkout
# to give a path into. A name is never a path, whatever the working
# directory holds, as a ruleset's name (rules/registry.py): a directory of
# cases called ``settings`` is ``./settings``.
SHIPPED_SUITES = {"bundled": "cases", "settings": "settings"}


def suite_root(ref: str | os.PathLike[str] | None) -> Path:
    """The directory or file of a suite: the bundled one for None, a shipped one by name, else the path."""
    if ref is None:
        return default_suite_dir()
    if isinstance(ref, str) and ref in SHIPPED_SUITES:
        return data_dir("conformance") / SHIPPED_SUITES[ref]
    if not os.fspath(ref):  # Path("") is the working directory: an empty value is a mistake, not a wish to read it
        raise InputError(
            [Problem("SUITE_MISSING", "an empty path names no suite; give a directory, a file or a name", "--suite")]
        )
    return Path(os.fspath(ref))


def _kind_of(root: Path) -> str:
    """``directory``, ``file`` (anything else that exists), or why there is nothing to read at ``root``.

    One stat, whatever it raises: pathlib's is_dir() and exists() let some errors through (a name too long).
    """
    try:
        mode = root.stat().st_mode
    except OSError as exc:
        return "no such file or directory" if exc.errno in (errno.ENOENT, errno.ENOTDIR) else exc.strerror or str(exc)
    except ValueError:  # a NUL in the path
        return "not a usable path"
    return "directory" if stat.S_ISDIR(mode) else "file"


def _retired(root: Path) -> dict[str, str]:
    path = root / "retired.yaml"
    if not path.exists():
        path = root.parent / "retired.yaml"
        if not path.exists():
            return {}
    from ..rules.yamlsafe import load_path

    doc = load_path(os.fspath(path), display=path.name)
    data = doc.data
    if not isinstance(data, dict) or not isinstance(data.get("retired", []), list):
        raise InputError([doc.problem("RETIRED_FORMAT", "retired.yaml holds 'retired': a list of {id, reason}")])
    out: dict[str, str] = {}
    for i, item in enumerate(data.get("retired", [])):
        if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not isinstance(item.get("reason"), str):
            raise InputError([doc.problem("RETIRED_FORMAT", "each retired entry is {id, reason}", ("retired", i))])
        out[item["id"]] = item["reason"]
    return out


def suite_rules_files(path: str | os.PathLike[str] | None) -> list[str]:
    """The rules files a suite directory brings (none for the bundled suite, or a single file), without loading it."""
    if path is None or not os.fspath(path):  # an empty path is refused by load_suite, never read as "."
        return []
    own = suite_root(path) / RULESETS_DIR  # a shipped suite by name brings its rulesets as by its path
    return [os.fspath(p) for p in sorted(own.glob("*.yaml"))] if _kind_of(own) == "directory" else []


def load_suite(path: str | os.PathLike[str] | None = None) -> Suite:
    """Every case under a directory (or in one file): ids unique, none retired; InputError otherwise."""
    root = suite_root(path)
    kind = _kind_of(root)
    if kind == "directory":
        own = root / RULESETS_DIR
        files = sorted(
            p
            for p in root.rglob("*")
            if p.suffix in (".yaml", ".yml", ".json") and p.name != "retired.yaml" and own not in p.parents
        )
        rules_files = suite_rules_files(root)
        base = root
    elif kind == "file":  # a file; one that is not regular (a FIFO, a device) is refused by the loader, unread
        files = [root]
        rules_files = []
        base = root.parent
    else:
        shipped = ", ".join(SHIPPED_SUITES)
        why = f"{kind} (the shipped suites, by name: {shipped})"
        raise InputError([Problem("SUITE_MISSING", why, os.fspath(root))])
    cases: list[Case] = []
    envelope: list[EnvelopeCase] = []
    problems: list[Problem] = []
    for f in files:
        display = _display(f, base)
        try:
            raw = read_path(os.fspath(f), max_bytes=MAX_FIXTURE_BYTES, display=display)
            # A file's cases are a function of its bytes, its name and the shipped
            # rules: parsed and validated once, then read back from the disk cache.
            parts: list[bytes | str] = [spec_digest(), display, f.stem, raw]
            found = memo("cases", parts, functools.partial(_file_cases, raw, f, display), tuple)
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        for c in found:
            if isinstance(c, EnvelopeCase):
                envelope.append(c)
            else:
                cases.append(c)
    if rules_files:  # a case's legal sets under the suite's own rulesets come from the reference under them
        cases = [dataclasses.replace(c, rules_files=tuple(rules_files)) for c in cases]
    retired = _retired(base) if kind == "directory" else {}
    seen: dict[str, Case | EnvelopeCase] = {}
    every: list[Case | EnvelopeCase] = [*cases, *envelope]
    for c in every:
        if c.id in seen:
            problems.append(
                Problem(
                    "CASE_DUPLICATE_ID", f"{c.id} is also the id of a case in {seen[c.id].source}", c.source, c.line
                )
            )
        else:
            seen[c.id] = c
        if c.id in retired:
            problems.append(
                Problem(
                    "CASE_RETIRED_ID", f"{c.id} was retired ({retired[c.id]}); ids are never reused", c.source, c.line
                )
            )
    if not files:
        # A directory with no case in it certifies nothing: most likely the wrong directory.
        # (A case file holds at least one case: the fixture schema says so.)
        message = "no case file (.yaml, .yml or .json) under it; a suite needs at least one case"
        problems.append(Problem("SUITE_EMPTY", message, os.fspath(root)))
    if problems:
        raise InputError(problems)
    return Suite(
        os.fspath(root),
        tuple(_display(f, base) for f in files),
        tuple(cases),
        freeze(retired),
        tuple(rules_files),
        # A case that ends with stop ends the process it runs on: after every other, in every runner.
        tuple(sorted(envelope, key=lambda c: c.stops)),
        _published(root),
    )


def _published(root: Path) -> bool:
    """Whether ``root`` is a suite vitou ships, by name or by path, rather than cases of one's own or a part."""
    try:
        real = root.resolve()
        return any(real == (data_dir("conformance") / d).resolve() for d in SHIPPED_SUITES.values())
    except (OSError, RuntimeError):
        return False


def _file_cases(raw: bytes, path: Path, display: str) -> tuple[Case | EnvelopeCase, ...]:
    """The cases of one fixture file: envelope cases if its top level has ``envelope``, else conformance cases."""
    from ..rules.yamlsafe import load_text  # only on a miss of the disk cache

    doc = load_text(raw, display, max_bytes=MAX_FIXTURE_BYTES)
    if isinstance(doc.data, dict) and "envelope" in doc.data:
        return tuple(envelope_cases(doc, display))
    return tuple(cases_of(doc, path, display))


def _display(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base.parent).as_posix()
    except ValueError:
        return path.as_posix()


def cases_matching(cases: Iterable[C], patterns: Iterable[str] | None) -> list[C]:
    """The cases whose id matches one of the glob patterns (all cases when there is none)."""
    pats = [p for p in (patterns or []) if p]
    if not pats:
        return list(cases)
    return [c for c in cases if any(fnmatch.fnmatchcase(c.id, p) for p in pats)]
