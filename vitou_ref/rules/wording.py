"""What a profile's words do and do not do: the warnings of ``spec check`` on a valid profile, and the ground of a ruling.

Play reads a clause's data, never its text, and only where a rule binds the
clause. A profile may therefore be valid and still say something it does not
do: it rewords a descriptive clause (no rule binds it) and expects play to
follow; it changes a figure in the data but its text still states the base's;
it replaces a clause and keeps a clarification of the base that rules on the
old one. Each is a warning: located in the profile, never a failure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from . import reader
from .model import Clause, Ruleset, thaw
from .problems import Problem
from .registry import load_ruleset
from .yamlsafe import Document

Path = tuple[object, ...]

WORDING_ONLY = "WORDING_ONLY"
TEXT_FIGURE_STALE = "TEXT_FIGURE_STALE"
CLARIFICATION_ON_REPLACED = "CLARIFICATION_ON_REPLACED"

# A figure of a text: digits standing alone ("21", both halves of "20-20"),
# not part of a card ("10S") or of a version ("1.1.0").
_FIGURE = re.compile(r"(?<![\w.§])\d+(?!\w|\.\d)")
# References to clarifications are numbers too, never figures of the rules.
_CITATION = re.compile(r"\(clarifications? [^)]*\)|\bclarifications? \d+(?:(?:, | and |-|–)\d+)*")


def _operations(rules: Ruleset) -> list[dict[str, Any]]:
    ops: list[dict[str, Any]] = thaw(rules.profile).get("operations", []) if rules.profile else []
    return ops


def replacements(rules: Ruleset, base: Ruleset) -> dict[str, tuple[str, int]]:
    """Each clause a profile wrote by ``replace`` and still holds: the base's clause it stands for, and the operation.

    A chain (``replace: bid.open`` with ``club.open``, then ``replace:
    club.open``) leads back to the base's clause; the operation is the last.
    """
    base_ids = {c.id for c in base.clauses}
    found: dict[str, tuple[str, int]] = {}
    for n, op in enumerate(_operations(rules)):
        if "replace" in op:
            old = op["replace"]
            first = found.pop(old, None) or ((old, n) if old in base_ids else None)
            if first is not None:
                found[op["with"]["id"]] = (first[0], n)
        elif "remove" in op:
            found.pop(op["remove"], None)
    held = {c.id for c in rules.clauses}
    return {new: src for new, src in found.items() if new in held}


def _written_at(rules: Ruleset, clause_id: str) -> int | None:
    """The operation that last wrote the clause ``clause_id`` (``replace``'s ``with`` or ``add``), if any."""
    at = None
    for n, op in enumerate(_operations(rules)):
        written = op.get("with") if "replace" in op else op.get("add")
        if isinstance(written, dict) and written.get("id") == clause_id:
            at = n
    return at


def profile_warnings(doc: Document, rules: Ruleset) -> list[Problem]:
    """The warnings of a valid profile against its base, located in the profile; empty for a base ruleset."""
    if rules.extends is None or not rules.profile:
        return []
    base = load_ruleset(rules.extends)
    out = list(_wording_only(doc, rules, base))
    out += _stale_figures(doc, rules, base)
    out += _clarifications_left(doc, rules, base)
    return sorted(out, key=lambda p: (p.line or 0, p.column or 0))


# What a descriptive clause describes that no data of any ruleset can change, and why (docs/reference/profiles.md).
FIXED_FOR_EVERY_RULESET = {
    "bid.answer": (
        "who answers a bid is fixed for each way of answering, not data (the rule bid_answer says when and how a "
        "bid is answered): after the bidder's card, the first player of the side opposite the latest bidder to play "
        "after the bid, and one bid awaits its answer at a time; before any card, the raiser's next opponent (the "
        "rule refusal says who may refuse, bid_timing who may bid); fixed because the order of play and the "
        "conditions of NOT_YOUR_TURN, BID_OUT_OF_TURN and REFUSE_NOT_FOLLOWER are all read from that one "
        "answering seat"
    ),
}


def _wording_only(doc: Document, rules: Ruleset, base: Ruleset) -> Iterator[Problem]:
    for new, (old, n) in replacements(rules, base).items():
        was, now = base.clause(old), rules.clause(new)
        if was.descriptive and now.descriptive and was.text != now.text:
            which = f"no rule binds {old}" if old == new else f"neither {old} nor {new} binds a rule"
            message = f"wording only: no behaviour bound to this clause changes ({which}: words alone change no play)"
            if old in FIXED_FOR_EVERY_RULESET:
                message += f"; {FIXED_FOR_EVERY_RULESET[old]}"
            yield doc.problem(WORDING_ONLY, message, ("operations", n, "with", "text"))


def _figures(text: str) -> set[int]:
    # A run of digits too long to be a count of the rules is no figure the data could hold.
    return {reader.whole(x) for x in _FIGURE.findall(_CITATION.sub("", text)) if reader.is_whole(x)}


def _numbers(value: Any, path: str = "") -> Iterator[tuple[str, int]]:
    """Every integer of a clause's data, with its path (``levels[0].value``); booleans are not figures."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _numbers(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _numbers(v, f"{path}[{i}]")
    elif isinstance(value, int) and not isinstance(value, bool):
        yield path, value


def _dropped(rules: Ruleset, base: Ruleset) -> dict[int, tuple[list[str], Path]]:
    """The figures the base's data held that the data in force dropped, each with its changes and where they were made.

    A figure is dropped when a clause the profile wrote for a rule no longer
    holds it in its data; the place is that clause's ``with`` or ``add``.
    """
    out: dict[int, tuple[list[str], Path]] = {}
    for rule in [r for r in rules.bindings if r in base.bindings]:
        was, now = base.clause_for_rule(rule), rules.clause_for_rule(rule)
        n = _written_at(rules, now.id)
        if n is None or was.data == now.data:
            continue
        old, new = dict(_numbers(thaw(was.data))), dict(_numbers(thaw(now.data)))
        held = set(new.values())
        key = "with" if "replace" in _operations(rules)[n] else "add"
        for p, v in old.items():
            if v not in held:
                changes, _ = out.setdefault(v, ([], ("operations", n, key)))
                changes.append(f"{now.id} {p}: {v} -> {new.get(p, 'removed')}")
    return out


def _texts(rules: Ruleset, base: Ruleset) -> Iterator[tuple[str, str, str | None, Path | None]]:
    """Every text of a ruleset: what it is, the text, the base's text in its place (None: none), where the profile wrote it."""
    base_clauses = {c.id: c for c in base.clauses}
    src = replacements(rules, base)
    for c in rules.clauses:
        was = base_clauses.get(src[c.id][0] if c.id in src else c.id)
        if was is None and c.rule and c.rule in base.bindings:  # added in the place of a removed clause
            was = base.clause_for_rule(c.rule)
        yield f"clause {c.id}'s text", c.text, was.text if was else None, _clause_text_at(rules, c.id)
    base_clars = {k.number: k for k in base.clarifications}
    for k in rules.clarifications:
        bk = base_clars.get(k.number)
        at = _clarification_at(rules, k.number)
        for part in ("ruling", "reason"):
            before = getattr(bk, part) if bk else None
            yield f"clarification {k.number}'s {part}", getattr(k, part), before, at and (*at, part)
    base_errors = {e.code: e for e in base.errors}
    for e in rules.errors:
        be = base_errors.get(e.code)
        for part in ("summary", "when"):
            at = _error_at(rules, e.code, part)
            yield f"{e.code}'s {part}", getattr(e, part), getattr(be, part) if be else None, at


def _clause_text_at(rules: Ruleset, clause_id: str) -> Path | None:
    n = _written_at(rules, clause_id)
    if n is None:
        return None
    return ("operations", n, "with" if "replace" in _operations(rules)[n] else "add", "text")


def _clarification_at(rules: Ruleset, number: int) -> Path | None:
    at = None
    for n, op in enumerate(_operations(rules)):
        if op.get("replace_clarification") == number:
            at = ("operations", n, "with")
        elif isinstance(op.get("add_clarification"), dict) and op["add_clarification"].get("number") == number:
            at = ("operations", n, "add_clarification")
    return at


def _error_at(rules: Ruleset, code: str, part: str) -> Path | None:
    at = None
    for n, op in enumerate(_operations(rules)):
        if op.get("restate_error") == code and part in op:
            at = ("operations", n, part)
    return at


def _stale_figures(doc: Document, rules: Ruleset, base: Ruleset) -> Iterator[Problem]:
    """Every text of the ruleset still stating a figure its data dropped: clauses, clarifications, error codes."""
    dropped = _dropped(rules, base)
    if not dropped:
        return
    for what, text, before, at in _texts(rules, base):
        stated = _figures(text) & set(dropped)
        if at is not None:  # the profile's own words: stale only where the base's said it too
            stated &= _figures(before) if before is not None else set()
        for figure in sorted(stated):
            changes, changed_at = dropped[figure]
            if at is not None and at[-1] == "text" and at[:-1] == changed_at:
                lead = f"the text still states {figure}, as {base.name}'s does,"
            else:
                lead = f"{what} still states {figure}, as {base.name}'s does,"
            message = f"{lead} but the data no longer holds it ({'; '.join(changes)}): state the new figure or reword"
            yield doc.problem(TEXT_FIGURE_STALE, message, at or (*changed_at, "data"))


def _clarifications_left(doc: Document, rules: Ruleset, base: Ruleset) -> Iterator[Problem]:
    replaced = replacements(rules, base)
    for k in rules.clarifications:
        if k.origin == rules.name:  # the profile wrote it (added or replaced it): its own ruling
            continue
        for cited in k.clauses:
            if cited not in replaced:
                continue
            old, n = replaced[cited]
            by = "" if old == cited else f" by {cited}"
            message = (
                f"clarification {k.number} rules on {old}, which this profile replaced{by}: remove it or replace it"
            )
            yield doc.problem(CLARIFICATION_ON_REPLACED, message, ("operations", n, "replace"))


def plays_as(rules: Ruleset, base: Ruleset) -> bool:
    """Whether every match gets the same answers under both: the same parameters, the same codes in the same order."""
    codes = [(e.code, e.acts, e.condition) for e in rules.errors]
    return rules.params == base.params and codes == [(e.code, e.acts, e.condition) for e in base.errors]


def wording_ground(rules: Ruleset, clause_id: str) -> tuple[Ruleset, Clause] | None:
    """The base's ruleset and clause a ruling citing ``clause_id`` rests on, when the profile's words cannot; else None.

    That is when a profile rewrote a clause no rule binds and plays exactly
    as its base: its words then describe no behaviour of its own, and a
    ruling citing them applies the base's, which the base's wording states
    (through profiles of profiles, the first wording play follows). A
    profile that changes play elsewhere may be rewording the clause to
    describe that change (vitou-volee's answer, set by its bid timing): its
    words are then the clause's, and spec check's WORDING_ONLY is the alert.
    """
    clause = rules.clause(clause_id)
    if rules.extends is None or not clause.descriptive:
        return None
    base = load_ruleset(rules.extends)
    if not plays_as(rules, base):
        return None
    if clause.origin != rules.name:  # inherited as the base has it
        return wording_ground(base, clause_id) if clause_id in {c.id for c in base.clauses} else None
    src = replacements(rules, base).get(clause_id)
    if src is None:
        return None
    was = base.clause(src[0])
    if not was.descriptive:
        return None
    return wording_ground(base, was.id) or ((base, was) if was.text != clause.text else None)


__all__ = [
    "CLARIFICATION_ON_REPLACED",
    "FIXED_FOR_EVERY_RULESET",
    "TEXT_FIGURE_STALE",
    "WORDING_ONLY",
    "plays_as",
    "profile_warnings",
    "replacements",
    "wording_ground",
]
