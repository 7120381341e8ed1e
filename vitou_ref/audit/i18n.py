"""The rules' own wording in the four languages: clause, clarification, error and decision translations."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..engine.reasons import catalog
from ..rules.model import Clarification, Clause, Ruleset
from ..rules.plurals import Forms, is_forms
from ..rules.versions import parse_version

LANGUAGES = ("en", "fr", "pt", "ru")


def clause_words(clause: Clause, lang: str) -> tuple[str, str]:
    """(title, text) of a clause in ``lang``; the spec's English where no translation exists."""
    if lang != "en":
        t = catalog(lang).get("clauses", {}).get(clause.id)
        if isinstance(t, dict) and t.get("title") and t.get("text"):
            return str(t["title"]), str(t["text"])
    return clause.title, clause.text


def row_words(clause: Clause, row_id: str, english: str, lang: str) -> str:
    """The text of a row of the table a resolution clause carries, in ``lang``.

    Rows are kept under their clause's id (``rows: {hand.resolution: {AA: ...}}``): a ruleset whose rows say
    other things has a clause of its own (Le Truc's truc.hand), and so words of its own.
    """
    if lang != "en":
        t = (catalog(lang).get("rows", {}).get(clause.id) or {}).get(row_id)
        if t:
            return str(t)
    return english


# A translation is kept under the ruleset's id (``vitou``), so that a new
# version whose English is unchanged needs no new translation; a version whose
# English differs from the latest keeps its own under its full name
# (``vitou/1.0.0``), which is looked up first.


def _by_version(section: dict[str, Any], name: str) -> Any:
    return section.get(name) or section.get(name.partition("/")[0]) or {}


def _by_version_item(section: dict[str, Any], name: str, item: str) -> Any:
    return (section.get(name) or {}).get(item) or (section.get(name.partition("/")[0]) or {}).get(item)


def clarification_words(k: Clarification, lang: str) -> tuple[str, str, str]:
    """(title, ruling, reason) of a clarification in ``lang``."""
    if lang != "en":
        t = _by_version_item(catalog(lang).get("clarifications", {}), k.origin, str(k.number))
        if isinstance(t, dict) and all(t.get(x) for x in ("title", "ruling", "reason")):
            return str(t["title"]), str(t["ruling"]), str(t["reason"])
    return k.title, k.ruling, k.reason


def ruleset_words(rules: Ruleset, lang: str) -> tuple[str, str]:
    """(title, summary) of a ruleset in ``lang``."""
    if lang != "en":
        t = _by_version(catalog(lang).get("rulesets", {}), rules.name)
        if isinstance(t, dict) and t.get("title") and t.get("summary"):
            return str(t["title"]), str(t["summary"])
    return rules.title, rules.summary


def error_writer(rules: Ruleset, code: str) -> str:
    """The ruleset whose words an error code speaks; "" for words a profile restated, which no catalog translates.

    A profile copies the codes it does not restate from its base, so they are
    the base's words (through its ancestry): ``vitou-2p``'s are ``vitou/1.0.0``'s.
    """
    from ..rules.registry import load_ruleset

    while not rules.error(code).origin:
        if not rules.extends:
            return rules.name
        rules = load_ruleset(rules.extends)
    return ""


# Error texts are kept, as clarifications are, under the id of the ruleset that
# wrote them: two games may give one code different words (Le Truc's UNKNOWN_BID
# is not Vitou's).


def error_words(rules: Ruleset, code: str, lang: str) -> str:
    writer = error_writer(rules, code) if lang != "en" else ""
    if writer:
        t = _by_version_item(catalog(lang).get("errors", {}), writer, code)
        if t:
            return str(t)
    return rules.error(code).summary


def error_when_words(rules: Ruleset, code: str, lang: str) -> str:
    """The exact condition of an error code in ``lang`` ("" where the ruleset states none)."""
    when = rules.error(code).when
    writer = error_writer(rules, code) if when and lang != "en" else ""
    if writer:
        t = _by_version_item(catalog(lang).get("errors_when", {}), writer, code)
        if t:
            return str(t)
    return when


def decision_words(rules: Ruleset, index: int, decision: dict[str, Any], lang: str) -> dict[str, str]:
    if lang != "en":
        t = catalog(lang).get("decisions", {}).get(rules.name, {}).get(str(index))
        if isinstance(t, dict) and all(t.get(x) for x in ("topic", "decision", "reason")):
            return {k: str(t[k]) for k in ("topic", "decision", "reason")}
    return {k: str(decision[k]) for k in ("topic", "decision", "reason")}


def english_texts(rules_list: list[Ruleset]) -> dict[str, str]:
    """Every English text a language file translates, by key."""
    from ..rules.model import thaw

    out: dict[str, str] = {}
    for section, value in catalog("en").items():
        if section not in ("language", "language_name", "plural"):
            _flat(section, value, out)
    latest: dict[str, str] = {}  # key under the ruleset id -> its English in the latest version
    errors: dict[tuple[str, str, str], str] = {}  # (section, writer, code) -> English
    for rules in sorted(rules_list, key=lambda r: _version_key(r.version), reverse=True):
        for c in rules.clauses:
            out.setdefault(f"clauses.{c.id}", f"title: {c.title} | text: {c.text}")
            if c.rule == "resolution":
                for row in thaw(c.data)["rows"]:
                    out.setdefault(f"rows.{c.id}.{row['id']}", row["text"])
        for k in rules.clarifications:
            english = f"title: {k.title} | ruling: {k.ruling} | reason: {k.reason}"
            _versioned(out, latest, "clarifications", k.origin, str(k.number), english)
        for e in rules.errors:
            writer = error_writer(rules, e.code)
            if writer:
                errors[("errors", writer, e.code)] = e.summary
                if e.when:
                    errors[("errors_when", writer, e.code)] = e.when
        _versioned(out, latest, "rulesets", rules.name, "", f"title: {rules.title} | summary: {rules.summary}")
        if rules.profile:
            for i, d in enumerate(thaw(rules.profile).get("decisions", [])):
                out[f"decisions.{rules.name}.{i}"] = (
                    f"topic: {d['topic']} | decision: {d['decision']} | reason: {d['reason']}"
                )
    # By the writer's version, not the profile's that copied the code: the latest English keys under the id.
    for (section, writer, code), english in sorted(errors.items(), key=lambda x: _version_key(x[0][1]), reverse=True):
        _versioned(out, latest, section, writer, code, english)
    return out


def _version_key(version: str) -> tuple[int, ...]:
    """The version's numbers, from a version or a full name (``vitou/1.1.0``): loaded rulesets' versions, each
    of which the rules schema held to three numbers of at most 9 digits."""
    return parse_version(version.rpartition("/")[2])


def _versioned(out: dict[str, str], latest: dict[str, str], section: str, name: str, item: str, english: str) -> None:
    """Key ``english`` under the ruleset id, or under the full name when it differs from the latest version's."""
    tail = f".{item}" if item else ""
    shared = f"{section}.{name.partition('/')[0]}{tail}"
    if shared not in latest:
        latest[shared] = english
        out[shared] = english
    elif latest[shared] != english:
        out[f"{section}.{name}{tail}"] = english


def _flat(prefix: str, value: Any, out: dict[str, str]) -> None:
    if isinstance(value, Forms):  # one text, whose forms are translated together
        out[prefix] = " | ".join(f"{k}: {v}" for k, v in value.items())
    elif isinstance(value, dict):
        for k, v in value.items():
            _flat(f"{prefix}.{k}", v, out)
    else:
        out[prefix] = str(value)


def fingerprint(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _lookup(own: dict[str, Any], key: str) -> Any:
    section, _, rest = key.partition(".")
    node: Any = own.get(section)
    if section in ("clarifications", "decisions", "errors", "errors_when"):
        origin, _, number = rest.rpartition(".")
        return (node or {}).get(origin, {}).get(number)
    if section in ("clauses", "rulesets"):
        return (node or {}).get(rest)
    if section == "rows":  # rows.<clause id, dotted>.<row id>
        clause, _, row = rest.rpartition(".")
        return ((node or {}).get(clause) or {}).get(row)
    return _walk(node, rest)


def _walk(node: Any, rest: str) -> Any:
    # Message keys may hold dots themselves (wrong_phase.play): try the whole
    # remainder as a key before descending.
    if not isinstance(node, dict):
        return None
    if rest in node:
        return node[rest]
    head, _, tail = rest.partition(".")
    return _walk(node.get(head), tail) if tail else None


def _complete(key: str, value: Any, forms: list[str]) -> bool:
    """Whether ``value`` translates ``key`` whole (``forms``: the categories an entry with forms must give)."""
    section = key.partition(".")[0]
    needs = {
        "clauses": ("title", "text"),
        "clarifications": ("title", "ruling", "reason"),
        "decisions": ("topic", "decision", "reason"),
        "rulesets": ("title", "summary"),
    }
    if section in needs:
        return isinstance(value, dict) and all(value.get(x) for x in needs[section])
    if is_forms(value):
        return all(value.get(x) for x in forms)
    return value not in (None, "")


def _categories(own: dict[str, Any]) -> list[str]:
    cats = (own.get("plural") or {}).get("categories")
    return [str(c) for c in cats] if isinstance(cats, list) and cats else ["other"]


def missing(rules_list: list[Ruleset], lang: str) -> Iterator[tuple[str, str]]:
    """Every text ``lang`` lacks, or translated from an English text that has since changed."""
    from ..rules.data import data_dir
    from ..rules.yamlsafe import load_path

    path = data_dir("spec") / "i18n" / f"{lang}.yaml"
    own: dict[str, Any] = load_path(str(path)).data if path.exists() else {}
    sources = own.get("sources", {}) or {}
    forms = _categories(own)
    for key, english in english_texts(rules_list).items():
        if not _complete(key, _lookup(own, key), forms):
            yield key, english
        elif key in sources and sources[key] != fingerprint(english):
            yield key, f"(the English changed since it was translated) {english}"


def stamp(rules_list: list[Ruleset], lang: str) -> int:
    """Record, for every translated text, a fingerprint of the English it translates."""
    import yaml

    from ..rules.data import data_dir
    from ..rules.yamlsafe import load_path, load_text

    path = data_dir("spec") / "i18n" / f"{lang}.yaml"
    raw = path.read_text(encoding="utf-8")
    head = []
    for line in raw.split("\n"):
        if line.startswith("#") or not line.strip():
            head.append(line)
        else:
            break
    data: dict[str, Any] = load_path(str(path)).data
    forms = _categories(data)
    data["sources"] = {
        k: fingerprint(v) for k, v in english_texts(rules_list).items() if _complete(k, _lookup(data, k), forms)
    }
    text = (
        "\n".join(head) + ("\n" if head else "") + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    )
    load_text(text, str(path))
    path.write_text(text, encoding="utf-8")
    return len(data["sources"])
