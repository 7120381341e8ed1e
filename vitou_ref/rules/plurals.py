"""Plural forms: CLDR's plural rules, quoted in each spec/i18n catalog, choose the form of an entry that takes a count."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import reader
from .errors import InputError
from .problems import Problem

if TYPE_CHECKING:
    from .yamlsafe import Document

# CLDR's plural categories, in CLDR's order (TR35, "Language Plural Rules").
CATEGORIES = ("zero", "one", "two", "few", "many", "other")
CODE = "CATALOG_PLURAL"


@dataclass(frozen=True)
class PluralRules:
    """A language's plural rules for counts: the categories a count can take, and the condition of each but other."""

    lang: str
    source: str
    categories: tuple[str, ...]
    conditions: tuple[tuple[str, Callable[[int], bool]], ...]

    def category(self, n: int) -> str:
        """The category of the count ``n``: the first whose condition holds, else other (CLDR's order)."""
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"a count is a whole number, not {n!r}")
        for name, holds in self.conditions:
            if holds(abs(n)):
                return name
        return "other"


class Forms(dict[str, str]):
    """A catalog entry that takes a count: its text for each plural category of the language it is written in.

    That language chooses the form (``reasons.plural(forms.lang, n)``): English
    filling a gap in Russian is English, and takes English's categories.
    """

    __slots__ = ("lang",)

    def __init__(self, lang: str, forms: Mapping[str, str]) -> None:
        super().__init__(forms)
        self.lang = lang


def counted(n: int, one: str, other: str) -> str:
    """``n`` and the English noun that agrees with it ("1 action", "0 actions"), for the messages only in English."""
    return f"{n} {one if _english_one(abs(n)) else other}"


# ------------------------------------------------------------------ CLDR's rule syntax

# TR35's syntax as CLDR writes its rules today: condition = and_condition ("or"
# and_condition)*; and_condition = relation ("and" relation)*; relation =
# operand ("%" value)? ("=" | "!=") range_list; range_list = (value |
# value".."value) ("," ...)*. Counts are whole numbers, written without
# decimals or exponent, so n = i and v, w, f, t, c, e are 0.
_TOKEN = re.compile(r"\s*(?:(\d+\.\.\d+)|(\d+)|(!=|=|%|,)|([a-z]+))")
_OPERANDS = frozenset("nivwftce")


def compile_condition(text: str) -> Callable[[int], bool]:
    """A CLDR plural condition as a test of a whole number; ValueError says where the text leaves the syntax."""
    tokens = _tokens(text)
    alternatives: list[list[Callable[[int], bool]]] = [[]]
    pos = 0
    while True:
        relation, pos = _relation(tokens, pos, text)
        alternatives[-1].append(relation)
        if pos == len(tokens):
            break
        if tokens[pos] == "or":
            alternatives.append([])
        elif tokens[pos] != "and":
            raise ValueError(f"expected and, or or the end in {text!r}, found {tokens[pos]!r}")
        pos += 1
    return lambda n: any(all(r(n) for r in both) for both in alternatives)


def _tokens(text: str) -> list[str]:
    out, pos = [], 0
    while pos < len(text.rstrip()):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise ValueError(f"not CLDR plural syntax at {text[pos:].strip()[:20]!r} in {text!r}")
        out.append(m.group().strip())
        pos = m.end()
    return out


def _relation(tokens: list[str], pos: int, text: str) -> tuple[Callable[[int], bool], int]:
    def take() -> str:
        nonlocal pos
        if pos == len(tokens):
            raise ValueError(f"{text!r} ends in the middle of a relation")
        pos += 1
        return tokens[pos - 1]

    operand = take()
    if operand not in _OPERANDS:
        raise ValueError(f"{operand!r} is not a CLDR operand (n i v w f t c e) in {text!r}")
    modulus = 0
    sign = take()
    if sign == "%":
        modulus = _value(take(), text)
        sign = take()
    if sign not in ("=", "!="):
        raise ValueError(f"expected = or != in {text!r}, found {sign!r}")
    ranges = [_range(take(), text)]
    while pos < len(tokens) and tokens[pos] == ",":
        pos += 1
        ranges.append(_range(take(), text))
    whole = operand in ("n", "i")  # the others are 0 for a whole number written plainly

    def holds(n: int) -> bool:
        x = n if whole else 0
        if modulus:
            x %= modulus
        inside = any(lo <= x <= hi for lo, hi in ranges)
        return inside if sign == "=" else not inside

    return holds, pos


def _value(token: str, text: str) -> int:
    if not reader.is_whole(token):
        raise ValueError(f"expected a number in {text!r}, found {token!r}")
    return reader.whole(token)


def _range(token: str, text: str) -> tuple[int, int]:
    lo, dots, hi = token.partition("..")
    return (_value(lo, text), _value(hi, text)) if dots else (_value(token, text),) * 2


# The messages that exist only in English (the kit's, the hunt's) take English's
# rule without reading a catalog: certify with a cached suite reads no YAML. It
# is the rule spec/i18n/en.yaml quotes; tests/test_plurals.py holds them equal.
ENGLISH_ONE = "i = 1 and v = 0"
_english_one = compile_condition(ENGLISH_ONE)


# ------------------------------------------------------------------ a catalog checked


def check_catalog(doc: Document, lang: str, english: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A language file's data, its plural rules compiled and each entry with forms a :class:`Forms`.

    Refused, with every problem named: no plural rules or rules that are not
    CLDR's syntax; an entry whose forms lack a category the language's counts
    take, or give one they never take; and (``english`` given) an entry that
    takes a count in English but not here, or the other way round.
    """
    problems: list[Problem] = []
    data: dict[str, Any] = dict(doc.data)
    rules = _rules(doc, lang, problems)
    if rules is not None:
        data = {k: v if k in ("plural", "sources") else _forms(doc, rules, v, (k,), problems) for k, v in data.items()}
        data["plural"] = rules
        if english is not None:
            problems += (doc.problem(CODE, m, p) for m, p in _unlike(english, data, ()))
    if problems:
        raise InputError(problems)
    return data


def _rules(doc: Document, lang: str, problems: list[Problem]) -> PluralRules | None:
    section = doc.data.get("plural")
    if not isinstance(section, dict):
        problems.append(doc.problem(CODE, "no plural: entry, the CLDR plural rules of the file's language", ()))
        return None
    here = len(problems)
    cats = section.get("categories")
    if not isinstance(cats, list) or not cats or [c for c in CATEGORIES if c in cats] != cats:
        problems.append(
            doc.problem(
                CODE,
                f"categories: CLDR categories, in CLDR's order ({', '.join(CATEGORIES)})",
                ("plural", "categories"),
            )
        )
        cats = []
    source = section.get("source")
    if not isinstance(source, str) or not source.strip():
        problems.append(
            doc.problem(CODE, "source: the CLDR release and locale the rules are quoted from", ("plural", "source"))
        )
    written = section.get("rules")
    written = written if isinstance(written, dict) else {}
    conditions = []
    for c in cats:
        if c == "other":
            continue  # what no condition takes
        text = written.get(c)
        try:
            if not isinstance(text, str) or not text.strip():
                raise ValueError("no condition for this category, as CLDR writes it")
            conditions.append((c, compile_condition(text)))
        except ValueError as exc:
            problems.append(doc.problem(CODE, f"rules.{c}: {exc}", ("plural", "rules", c)))
    for c in written:
        if c not in cats or c == "other":
            problems.append(doc.problem(CODE, f"rules.{c}: not one of the categories {cats}", ("plural", "rules", c)))
    if len(problems) > here:
        return None
    return PluralRules(lang, str(source), tuple(cats), tuple(conditions))


def is_forms(value: Any) -> bool:
    """Whether a catalog value is an entry with forms: a mapping keyed by CLDR categories."""
    return isinstance(value, dict) and any(k in CATEGORIES for k in value)


def _forms(doc: Document, rules: PluralRules, value: Any, path: tuple[str, ...], problems: list[Problem]) -> Any:
    if not isinstance(value, dict):
        return value
    if not is_forms(value):
        return {k: _forms(doc, rules, v, (*path, str(k)), problems) for k, v in value.items()}
    name, takes = ".".join(path), ", ".join(rules.categories)
    for c in rules.categories:
        if not isinstance(value.get(c), str) or not value[c].strip():
            what = "lacks the form" if c not in value else "has no text for the form"
            problems.append(doc.problem(CODE, f"{name} {what} {c!r}: {rules.lang} counts take {takes}", path))
    for c in value:
        if c not in rules.categories:
            why = f"{rules.lang} counts take only {takes}"
            problems.append(doc.problem(CODE, f"{name} has a form {c!r} that no count takes: {why}", path))
    return Forms(rules.lang, value)


def _unlike(english: Mapping[str, Any], own: Mapping[str, Any], path: tuple[str, ...]) -> Iterator[tuple[str, Any]]:
    for k, mine in own.items():
        theirs = english.get(k)
        where = (*path, str(k))
        if k == "plural" or theirs is None:
            continue
        if isinstance(theirs, Forms) != isinstance(mine, Forms):
            takes = "takes a count in English: give its forms" if isinstance(theirs, Forms) else "takes no count"
            yield f"{'.'.join(where)} {takes}", where
        elif isinstance(mine, dict) and isinstance(theirs, dict) and not isinstance(mine, Forms):
            yield from _unlike(theirs, mine, where)
