"""The rules' own wording in the four languages: clause, clarification, error and decision translations."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ._model import Clarification, Clause, Ruleset
from ._reasons import catalog

LANGUAGES = ("en", "fr", "pt", "ru")


def clause_words(clause: Clause, lang: str) -> tuple[str, str]:
    """(title, text) of a clause in ``lang``; the spec's English where no translation exists."""
    if lang != "en":
        t = catalog(lang).get("clauses", {}).get(clause.id)
        if isinstance(t, dict) and t.get("title") and t.get("text"):
            return str(t["title"]), str(t["text"])
    return clause.title, clause.text


def clarification_words(k: Clarification, lang: str) -> tuple[str, str, str]:
    """(title, ruling, reason) of a clarification in ``lang``."""
    if lang != "en":
        t = catalog(lang).get("clarifications", {}).get(k.origin, {}).get(str(k.number))
        if isinstance(t, dict) and all(t.get(x) for x in ("title", "ruling", "reason")):
            return str(t["title"]), str(t["ruling"]), str(t["reason"])
    return k.title, k.ruling, k.reason


def error_words(rules: Ruleset, code: str, lang: str) -> str:
    if lang != "en":
        t = catalog(lang).get("errors", {}).get(code)
        if t:
            return str(t)
    return rules.error(code).summary


def decision_words(rules: Ruleset, index: int, decision: dict[str, Any], lang: str) -> dict[str, str]:
    if lang != "en":
        t = catalog(lang).get("decisions", {}).get(rules.name, {}).get(str(index))
        if isinstance(t, dict) and all(t.get(x) for x in ("topic", "decision", "reason")):
            return {k: str(t[k]) for k in ("topic", "decision", "reason")}
    return {k: str(decision[k]) for k in ("topic", "decision", "reason")}


def missing(rules_list: list[Ruleset], lang: str) -> Iterator[tuple[str, str]]:
    """Every text ``lang`` lacks, as (where, the English text)."""
    from ._data import data_dir
    from ._yamlsafe import load_path

    path = data_dir("spec") / "i18n" / f"{lang}.yaml"
    own: dict[str, Any] = load_path(str(path)).data if path.exists() else {}
    en = catalog("en")
    for section, value in en.items():
        if section in ("language", "language_name"):
            continue
        yield from _missing_messages(section, value, own.get(section))
    seen_clauses: set[str] = set()
    seen_clars: set[tuple[str, int]] = set()
    for rules in rules_list:
        for c in rules.clauses:
            if c.id in seen_clauses:
                continue
            seen_clauses.add(c.id)
            t = own.get("clauses", {}).get(c.id)
            if not (isinstance(t, dict) and t.get("title") and t.get("text")):
                yield f"clauses.{c.id}", f"title: {c.title} | text: {c.text}"
        for k in rules.clarifications:
            if (k.origin, k.number) in seen_clars:
                continue
            seen_clars.add((k.origin, k.number))
            t = own.get("clarifications", {}).get(k.origin, {}).get(str(k.number))
            if not (isinstance(t, dict) and all(t.get(x) for x in ("title", "ruling", "reason"))):
                yield (
                    f"clarifications.{k.origin}.{k.number}",
                    f"title: {k.title} | ruling: {k.ruling} | reason: {k.reason}",
                )
        for e in rules.errors:
            if not own.get("errors", {}).get(e.code):
                yield f"errors.{e.code}", e.summary
        if rules.profile:
            from ._model import thaw

            for i, d in enumerate(thaw(rules.profile).get("decisions", [])):
                t = own.get("decisions", {}).get(rules.name, {}).get(str(i))
                if not (isinstance(t, dict) and all(t.get(x) for x in ("topic", "decision", "reason"))):
                    yield (
                        f"decisions.{rules.name}.{i}",
                        f"topic: {d['topic']} | decision: {d['decision']} | reason: {d['reason']}",
                    )


def _missing_messages(prefix: str, en: Any, own: Any) -> Iterator[tuple[str, str]]:
    if isinstance(en, dict):
        for k, v in en.items():
            yield from _missing_messages(f"{prefix}.{k}", v, own.get(k) if isinstance(own, dict) else None)
    elif own in (None, ""):
        yield prefix, str(en)
