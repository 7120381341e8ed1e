"""The reference page of every shipped ruleset, and their index, written from the rules as vitou loads them."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import typing
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from vitou_ref.present.escape import markdown as text
from vitou_ref.present.escape import markdown_code as cell_code
from vitou_ref.present.escape import text as plain
from vitou_ref.present.markdown import table
from vitou_ref.rules.model import Ruleset, thaw
from vitou_ref.rules.versions import version_key

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "reference"
FOLDER = "rulesets"  # under docs/reference; written by the build, never by hand (docs/.gitignore)
# Where the pages link to, relative to a page of FOLDER.
STRICTNESS = "../strictness.md"
CHOOSING = "../../how-to/implementers.md#from-scratch-choosing-the-error-code"
EXAMPLES = "../../how-to/implementers.md#worked-examples-of-each-error-list"
SHOWN_CASES = 3  # case ids shown for each code, beside the count
WORDS = ("text", "quote")  # what a setting's data says in words, left out of the settings table


def code(value: object) -> str:
    """One Markdown code span of ``value``, outside a table (``markdown_code`` is the table cell's)."""
    s, pad = plain(value), " " if "`" in plain(value) else ""  # a backtick inside: a longer fence, and spaces
    fence = "`" * (max((len(run) for run in re.findall("`+", s)), default=0) + 1)
    return f"{fence}{pad}{s}{pad}{fence}"


def shipped() -> dict[str, Ruleset]:
    """Every shipped ruleset by name, in the registry's order (what ``vitou rulesets`` lists)."""
    from vitou_ref.rules.registry import load_ruleset, shipped_names

    return {name: load_ruleset(name) for name in shipped_names()}


def family(name: str, loaded: Mapping[str, Ruleset]) -> str:
    """The id of the rules a ruleset is, or is a profile of (through every profile between)."""
    rules, seen = loaded[name], {name}
    while rules.extends and rules.extends in loaded and rules.extends not in seen:
        seen.add(rules.extends)
        rules = loaded[rules.extends]
    return rules.id


def page_of(rules: Ruleset) -> str:
    """The file name of a ruleset's page: ``le-truc-1.1.0.md``."""
    return f"{rules.id}-{rules.version}.md"


def target(rules: Ruleset, kind: str, key: object) -> str:
    """A MyST target on a ruleset's page, unique across the site (Sphinx's labels are global)."""
    return f"{rules.id}-{rules.version}-{kind}-{key}".lower()


def pages() -> dict[str, str]:
    """Every generated page, by its path relative to docs/reference: one per shipped rules ruleset, and the index."""
    loaded = shipped()
    out = {f"{FOLDER}/{page_of(r)}": ruleset_page(r, loaded) for r in loaded.values() if not r.extends}
    return {**out, f"{FOLDER}/index.md": index_page(loaded)}


def stale_pages(generated: Iterable[str]) -> list[Path]:
    """The pages of the rulesets folder that ``generated`` (paths relative to docs/reference) no longer holds."""
    keep = {REFERENCE / name for name in generated}
    return sorted(p for p in (REFERENCE / FOLDER).glob("*.md") if p not in keep)


def index_page(loaded: Mapping[str, Ruleset]) -> str:
    """The list of the shipped rulesets: the rules, each with its page, then the profiles and what each extends."""
    rules = [r for r in loaded.values() if not r.extends]
    profiles = [r for r in loaded.values() if r.extends]
    lines = [
        "# Rulesets",
        "",
        "Every ruleset shipped with vitou, as `vitou rulesets` lists it, written from the rules as vitou loads them",
        "when the site is built: a ruleset shipped has its page, and nothing here is written by hand. Each page gives",
        "its seats and sides, its acts, its error codes in their order of precedence, its clarifications, its clauses",
        f"and its settings. What answers and requests may hold is the same under every ruleset: [strictness]({STRICTNESS}).",
        "",
        "## Rules",
        "",
        *table(
            ["ruleset", "title", "hash"],
            [[f"[{text(r.name)}]({page_of(r)})", text(r.title), cell_code(r.content_hash)] for r in rules],
        ),
        "",
    ]
    if profiles:
        pages_of = {r.name: page_of(r) for r in rules}
        base = {p.name: text(p.extends) for p in profiles}
        base.update({p.name: f"[{base[p.name]}]({pages_of[p.extends]})" for p in profiles if p.extends in pages_of})
        rows = [[cell_code(p.name), base[p.name], text(p.title), cell_code(p.content_hash)] for p in profiles]
        lines += [
            "## Profiles",
            "",
            "A profile is a ruleset written as changes to another (`vitou profile resolve NAME` prints it whole);",
            "it keeps the error codes of the rules it extends, in their order, unless it says otherwise.",
            "",
            *table(["profile", "a profile of", "title", "hash"], rows),
            "",
        ]
    lines += ["```{toctree}", ":hidden:", "", *(page_of(r).removesuffix(".md") for r in rules), "```"]
    return "\n".join(lines)


def ruleset_page(rules: Ruleset, loaded: Mapping[str, Ruleset]) -> str:
    """One ruleset's page: what it is, its table, its acts, its error list, clarifications, clauses and settings."""
    parts = [
        _head(rules, loaded),
        _changes(rules),
        _table(rules),
        _acts(rules),
        _errors(rules, _cases(rules.name), _worded_successor(rules, loaded)),
        _clarifications(rules),
        _clauses(rules),
        _settings(rules),
    ]
    return "\n".join(line for part in parts for line in part).rstrip("\n")


def _head(rules: Ruleset, loaded: Mapping[str, Ruleset]) -> list[str]:
    from vitou_ref.rules.registry import shipped as registry_files

    profiles = [r.name for r in loaded.values() if r.extends == rules.name]
    rows = [
        ["name", cell_code(rules.name)],
        ["id", cell_code(rules.id)],
        ["version", cell_code(rules.version)],
        ["title", text(rules.title)],
        ["hash", f"{cell_code(rules.content_hash)} (as `vitou rulesets` prints it)"],
    ]
    path = registry_files()[rules.name]
    if path.is_relative_to(ROOT):  # a checkout: the file the page is written from
        where = os.path.relpath(path, REFERENCE / FOLDER)
        rows.append(["rules file", f"[{text(path.relative_to(ROOT).as_posix())}]({where})"])
    rows.append(["source", text(" ".join(rules.source.split()))])
    if profiles:
        rows.append(["its profiles", ", ".join(cell_code(p) for p in profiles)])
    later = [r for r in loaded.values() if r.id == rules.id and version_key(r.version) > version_key(rules.version)]
    if later:
        rows.append(["later versions", ", ".join(f"[{text(r.name)}]({page_of(r)})" for r in later)])
    return [
        f"# {text(f'{rules.title} {rules.version}')}",
        "",
        "Written from the ruleset as vitou loads it (`vitou_ref.load_ruleset`) when the site is built.",
        "",
        text(" ".join(rules.summary.split())),
        "",
        *table(["", ""], rows),
        "",
        "What an engine's answers and the harness's requests may hold, field by field and type by type, is the",
        f"same under every ruleset: [strictness]({STRICTNESS}).",
        "",
    ]


def _changes(rules: Ruleset) -> list[str]:
    changes = [c for entry in rules.changelog if entry.version == rules.version for c in entry.changes]
    listed = [f"- {text(' '.join(change.split()))}" for change in changes]
    return ["## What this version changed", "", *listed, ""] if changes else []


def _table(rules: Ruleset) -> list[str]:
    p = rules.params
    seats = [[cell_code(s.id), text(s.name)] for s in p.seats]
    sides = [[cell_code(s.id), text(s.name), ", ".join(cell_code(x) for x in s.seats)] for s in p.sides]
    order = "clockwise" if p.next_is == "left" else "anticlockwise"
    return [
        "## Seats and sides",
        "",
        f"The seats in the order of play ({order}: the next seat is on the {p.next_is}); names are case-sensitive, and",
        "a seat or side not at this table is refused with the code the error list gives it.",
        "",
        *table(["seat", "name"], seats),
        "",
        *table(["side", "name", "its seats"], sides),
        "",
        f"The pack: the ranks {_words(str(r.value) for r in p.rank_order)}, highest first, in the suits",
        f"{_words(s.suit.value for s in p.suits)}, written rank then suit; {p.cards_each} cards each; the match at {p.target}"
        + (", which no score passes." if p.scores_stop else "."),
        *_turn_up(rules),
        "",
    ]


def _turn_up(rules: Ruleset) -> list[str]:
    """Where the rules turn a card up: how it makes the manilhas, in the deal's `turn_up`."""
    p = rules.params
    if not p.turn_up_circle:
        return []
    return [
        f"Each hand turns up one more card, named by each deal's `turn_up`: the rank after it in the circle "
        f"{_words(r.value for r in p.turn_up_circle)} (after the last, the first) makes the manilhas, above every "
        f"other card and ordered by suit, lowest first: {_words(s.value for s in p.manilha_suits)}.",
    ]


def _words(items: Iterable[str]) -> str:
    return ", ".join(code(i) for i in items)


def _forms() -> dict[str, dict[str, Any]]:
    """Each act of the error lists with its protocol form, read from the engine's own action records."""
    from vitou_ref.engine.actions import Action
    from vitou_ref.rules.cards import Card

    def sample(kind: Any) -> dict[str, Any]:  # each field named after itself, a card the ace of spades
        fields = [f.name for f in dataclasses.fields(kind) if f.name != "down"]  # face down: its own row (_acts)
        return kind(**{n: Card.parse("AS") if n == "card" else n for n in fields}).to_json()  # type: ignore[no-any-return]

    return {kind.act: sample(kind) for kind in typing.get_args(Action)}


def _form(sample: Mapping[str, Any]) -> str:
    """``{"seat","act":"play","card"}``: the fields of an act, with its protocol name."""
    return "{" + ",".join(f'"act":"{sample["act"]}"' if k == "act" else f'"{k}"' for k in sample) + "}"


def _values(rules: Ruleset, sample: Mapping[str, Any]) -> str:
    p = rules.params
    known = {
        "seat": _words(s.id for s in p.seats),
        "side": _words(s.id for s in p.sides),
        "card": "a card of the pack",
        "to": _words(json.dumps(level.bid) for level in p.ladder if level.bid is not None),
        "signal": _words(g.id for g in p.gestures),
    }
    return "; ".join(f"{code(k)}: {known[k]}" for k in sample if k in known)


def _acts(rules: Ruleset) -> list[str]:
    forms, acts = _forms(), rules.error("ACTION_MALFORMED").acts  # the game's acts, also where its YAML names none
    rows = [[cell_code(a), cell_code(_form(forms[a])), _values(rules, forms[a])] for a in acts if a in forms]
    first = rules.params.face_down_from
    if first:  # a card played face down: the play's one optional field (the face_down rule)
        form = '{"seat","act":"play","card","face_down":true}'
        at = f"from trick {first}; `face_down` is `true` or left out (face up)"
        rows.insert(1, [cell_code("play"), cell_code(form), f"{_values(rules, forms['play'])}; {at}"])
    return [
        "## Acts",
        "",
        "The game's acts are those its `ACTION_MALFORMED` judges. An action that is not one of them, with exactly its",
        f"fields of the right JSON types, is `ACTION_MALFORMED` ([strictness]({STRICTNESS}#actions-are-closed)).",
        "",
        *table(["act", "protocol form", "values"], rows),
        "",
    ]


def _cases(name: str) -> dict[str, list[str]]:
    """For each code, the suite's cases with a step whose expected answer it is, by id."""
    from vitou_ref.kit.suite import load_suite

    found: dict[str, list[str]] = {}
    for case in sorted(load_suite().applicable(name), key=lambda c: c.id):
        expected = case.expectation(name)
        for error in dict.fromkeys(() if expected.errored else (s.error for s in expected.steps)):
            if error is not None:
                found.setdefault(error, []).append(case.id)
    return found


def _errors(rules: Ruleset, cases: Mapping[str, list[str]], later: Ruleset | None) -> list[str]:
    lines = [
        "## Error codes, in their order of precedence",
        "",
        "To refuse an action, read the list from the top: skip a code whose acts do not include the action's; the first",
        "code whose condition holds is the answer (each condition assumes that no code above it applied), and an action",
        f"no condition refuses is legal ([choosing the code]({CHOOSING}); [each game's examples]({EXAMPLES})).",
        "",
    ]
    for n, e in enumerate(rules.errors, 1):
        when = _linked(rules, text(" ".join(e.when.split()))) if e.when else _unworded(e.code, later)
        clause = rules.current_clause(e.clause)
        lines += [
            f"({target(rules, 'code', e.code)})=",
            f"### {n}. {code(e.code)}",
            "",
            text(" ".join(e.summary.split())),
            "",
            f"- acts: {_words(e.acts)}",
            f"- when: {when}",
            f"- the clause it enforces: [{code(clause)}](#{target(rules, 'clause', clause)})",
            f"- the condition the reference evaluates: {code(e.condition)}",
            f"- {_suite_line(cases.get(e.code, []))}",
            "",
        ]
    return lines


def _worded_successor(rules: Ruleset, loaded: Mapping[str, Ruleset]) -> Ruleset | None:
    """For a version that words no conditions, the latest of its id and major that does (a MINOR release after it)."""
    from vitou_ref.rules.registry import resolve_among

    if all(e.when for e in rules.errors):
        return None
    latest = loaded[resolve_among(rules.id, [n for n, r in loaded.items() if not r.extends])]
    same_major = version_key(latest.version)[0] == version_key(rules.version)[0]
    return latest if same_major and all(e.when for e in latest.errors) else None


def _unworded(code_name: str, later: Ruleset | None) -> str:
    if later is None or code_name not in {e.code for e in later.errors}:
        return "not stated in words by this version; its cases decide"
    where = f"{page_of(later)}#{target(later, 'code', code_name)}"
    return f"not stated in words by this version; [{text(later.name)}]({where}), a MINOR release, states it"


_CLARIFICATIONS = re.compile(r"\b(clarifications?) (\d+(?:(?:, | and | or )\d+)*)")


def _linked(rules: Ruleset, markdown: str) -> str:
    """Escaped text whose mentions of this ruleset's clarifications link to them."""
    known = {str(c.number) for c in rules.clarifications}

    def number(n: re.Match[str]) -> str:
        return f"[{n[0]}](#{target(rules, 'clarification', n[0])})" if n[0] in known else n[0]

    return _CLARIFICATIONS.sub(lambda m: f"{m[1]} {re.sub(r'[0-9]+', number, m[2])}", markdown)


def _suite_line(ids: list[str]) -> str:
    shown = _words(ids[:SHOWN_CASES]) + (", …" if len(ids) > SHOWN_CASES else "")
    return f"the answer in {len(ids)} of the suite's cases: {shown}" if ids else "the answer in no case of the suite"


def _clarifications(rules: Ruleset) -> list[str]:
    lines = [
        "## Clarifications",
        "",
        "Where the rules text is silent or reads two ways, a numbered clarification rules; numbers are never reused.",
        "",
    ]
    for c in rules.clarifications:
        ruled = ", ".join(f"[{code(x)}](#{target(rules, 'clause', rules.current_clause(x))})" for x in c.clauses)
        lines += [
            f"({target(rules, 'clarification', c.number)})=",
            f"**Clarification {c.number}: {text(c.title)}.** On {ruled}.",
            "",
            _linked(rules, text(" ".join(c.ruling.split()))),
            "",
            f"*Reason:* {_linked(rules, text(' '.join(c.reason.split())))}",
            "",
        ]
    return lines


def _clauses(rules: Ruleset) -> list[str]:
    lines = [
        "## Clauses",
        "",
        "One rule each, with the section of the rules text it comes from and the words it rests on. A clause with a",
        "rule binds data the interpreter reads ([settings](#settings)); one without states what play does.",
        "",
    ]
    for c in rules.clauses:
        cited = ", ".join(f"[{n}](#{target(rules, 'clarification', n)})" for n in c.clarifications)
        extra = (f" · rule {code(c.rule)}" if c.rule else "") + (f" · clarifications {cited}" if cited else "")
        lines += [
            f"({target(rules, 'clause', c.id)})=",
            f"**{code(c.id)}** (§{text(c.section)}) {text(c.title)}{extra}",
            "",
            _linked(rules, text(" ".join(c.text.split()))),
            "",
        ]
        if c.quote:
            lines += [f"> {text(' '.join(c.quote.split()))}", ""]
    return lines


def _settings(rules: Ruleset) -> list[str]:
    from vitou_ref.rules import settings
    from vitou_ref.rules.conditions import game_acts

    def bound(rule: str) -> Any:
        return rules.clause_for_rule(rule).data if rule in rules.bindings else None

    acts = game_acts(thaw(rules.canonical).get("errors", []))
    rows = []
    for rule in settings.BINDABLE:
        if rule in rules.bindings:
            clause = rules.bindings[rule]
            where = f"[{code(clause)}](#{target(rules, 'clause', clause)})"
            rows.append([cell_code(rule), where, cell_code(_json(bound(rule)))])
        else:
            stands = settings.stand_in(rule, bound, acts)
            rows.append([cell_code(rule), "none: stands in", cell_code(_json(stands))])
    return [
        "## Settings",
        "",
        "The data the interpreter reads, rule by rule: what makes this game differ from another of the family",
        "(`vitou profile diff` compares two rulesets so). A rule no clause binds reads the data that stands in for",
        "it (an optional rule, or one of acts the game does not have). Words (a row's text) are the clause's.",
        "",
        *table(["rule", "clause", "data"], rows),
        "",
    ]


def _json(data: Any) -> str:
    """Data as JSON without its words (a row's text and quotation): the clause gives them, and play reads none."""
    return json.dumps(_figures(thaw(data)), ensure_ascii=False, separators=(", ", ": "))


def _figures(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _figures(v) for k, v in data.items() if k not in WORDS}
    return [_figures(v) for v in data] if isinstance(data, list) else data
