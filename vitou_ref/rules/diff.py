"""What differs between two rulesets, clause by clause: wording and data."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .model import Ruleset, thaw

FIELDS = ("section", "title", "text", "quote", "clarifications", "rule")


@dataclass
class ClauseChange:
    kind: str  # added | removed | changed | replaced
    a: str | None  # clause id in A
    b: str | None  # clause id in B
    fields: dict[str, tuple[Any, Any]] = field(default_factory=dict)  # wording and binding
    data: dict[str, tuple[Any, Any]] = field(default_factory=dict)  # data paths
    wording_only: bool = False  # the same rule (or none) and the same data: the change is in words, never in play

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "a": self.a,
            "b": self.b,
            "wording_only": self.wording_only,
            "fields": {k: {"a": x, "b": y} for k, (x, y) in self.fields.items()},
            "data": {k: {"a": x, "b": y} for k, (x, y) in self.data.items()},
        }


@dataclass
class RulesetDiff:
    a: Ruleset
    b: Ruleset
    clauses: list[ClauseChange]
    clarifications: list[dict[str, Any]]
    errors: list[dict[str, Any]]

    @property
    def same(self) -> bool:
        return not (self.clauses or self.clarifications or self.errors)

    def to_json(self) -> dict[str, Any]:
        return {
            "a": {"name": self.a.name, "hash": self.a.content_hash},
            "b": {"name": self.b.name, "hash": self.b.content_hash},
            "clauses": [c.to_json() for c in self.clauses],
            "clarifications": self.clarifications,
            "errors": self.errors,
        }


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else k))
        return out
    if isinstance(value, list) and value and all(isinstance(v, dict) and "id" in v for v in value):
        out = {}
        for v in value:
            # The element's key already names its id.
            out.update(_flatten({k: x for k, x in v.items() if k != "id"} or {"present": True}, f"{prefix}[{v['id']}]"))
        return out
    return {prefix or ".": value}


def _compare(
    ca: dict[str, Any] | None, cb: dict[str, Any] | None
) -> tuple[dict[str, tuple[Any, Any]], dict[str, tuple[Any, Any]]]:
    ca = ca or {}
    cb = cb or {}
    fields = {f: (ca.get(f), cb.get(f)) for f in FIELDS if ca.get(f) != cb.get(f)}
    fa, fb = _flatten(ca.get("data") or {}), _flatten(cb.get("data") or {})
    data = {k: (fa.get(k), fb.get(k)) for k in sorted(set(fa) | set(fb)) if fa.get(k) != fb.get(k)}
    data.update(_reordered(_id_orders(ca.get("data") or {}), _id_orders(cb.get("data") or {})))
    return fields, data


def _id_orders(value: Any, prefix: str = "") -> dict[str, list[Any]]:
    """The order of the ids of every list that ``_flatten`` keys by id (seats go clockwise: order is data)."""
    out: dict[str, list[Any]] = {}
    if isinstance(value, dict):
        for k, v in value.items():
            out.update(_id_orders(v, f"{prefix}.{k}" if prefix else k))
    elif isinstance(value, list) and value and all(isinstance(v, dict) and "id" in v for v in value):
        out[prefix or "."] = [v["id"] for v in value]
        for v in value:
            out.update(_id_orders({k: x for k, x in v.items() if k != "id"}, f"{prefix}[{v['id']}]"))
    return out


def _reordered(oa: dict[str, list[Any]], ob: dict[str, list[Any]]) -> dict[str, tuple[Any, Any]]:
    """Lists keyed by id whose common elements come in another order: ``path (order)`` -> the two id orders."""
    out: dict[str, tuple[Any, Any]] = {}
    for path in sorted(set(oa) & set(ob)):
        both = set(oa[path]) & set(ob[path])
        if [i for i in oa[path] if i in both] != [i for i in ob[path] if i in both]:
            out[f"{path} (order)"] = (oa[path], ob[path])
    return out


def diff_rulesets(a: Ruleset, b: Ruleset) -> RulesetDiff:
    ja, jb = a.to_json(), b.to_json()
    by_a = {c["id"]: c for c in ja["clauses"]}
    by_b = {c["id"]: c for c in jb["clauses"]}
    changes: list[ClauseChange] = []
    for cid, clause in by_a.items():
        if cid in by_b:
            fields, data = _compare(clause, by_b[cid])
            if fields or data:
                changes.append(ClauseChange("changed", cid, cid, fields, data))
    only_a = [c for c in by_a if c not in by_b]
    only_b = [c for c in by_b if c not in by_a]
    # A profile's own "replace" operations pair what left with what came in.
    for x, y in _replacements(a, b):
        if x in only_a and y in only_b:
            changes.append(ClauseChange("replaced", x, y, *_compare(by_a[x], by_b[y])))
            only_a.remove(x)
            only_b.remove(y)
    # Otherwise a clause that left and one that came in setting the same rule are one replacement.
    for cid in list(only_a):
        rule = by_a[cid].get("rule")
        partner = next((x for x in only_b if rule is not None and by_b[x].get("rule") == rule), None)
        if partner is None:
            continue
        fields, data = _compare(by_a[cid], by_b[partner])
        changes.append(ClauseChange("replaced", cid, partner, fields, data))
        only_a.remove(cid)
        only_b.remove(partner)
    changes += [ClauseChange("removed", cid, None, *_compare(by_a[cid], None)) for cid in only_a]
    changes += [ClauseChange("added", None, cid, *_compare(None, by_b[cid])) for cid in only_b]
    for c in changes:
        # Play reads a clause's data, and only where a rule binds it: a change
        # that keeps the rule (or its absence) and the data changes words only.
        if c.a is not None and c.b is not None:
            c.wording_only = by_a[c.a].get("rule") == by_b[c.b].get("rule") and not c.data

    kl_a = {k["number"]: k for k in ja["clarifications"]}
    kl_b = {k["number"]: k for k in jb["clarifications"]}
    clars = []
    for n in sorted(set(kl_a) | set(kl_b)):
        ka, kb = kl_a.get(n), kl_b.get(n)
        if ka is None or kb is None:
            clars.append(
                {"number": n, "kind": "added" if ka is None else "removed", "title": (kb or ka or {}).get("title")}
            )
        elif {k: v for k, v in ka.items() if k != "origin"} != {k: v for k, v in kb.items() if k != "origin"}:
            changed = sorted(k for k in set(ka) | set(kb) if k != "origin" and ka.get(k) != kb.get(k))
            clars.append({"number": n, "kind": "changed", "title": kb.get("title"), "fields": changed})
    er_a = {e["code"]: e["clause"] for e in ja["errors"]}
    er_b = {e["code"]: e["clause"] for e in jb["errors"]}
    words_a = {e["code"]: e for e in ja["errors"]}
    words_b = {e["code"]: e for e in jb["errors"]}
    errors: list[dict[str, Any]] = []
    for code in list(er_a) + [c for c in er_b if c not in er_a]:
        if er_a.get(code) != er_b.get(code):
            errors.append({"code": code, "a": er_a.get(code), "b": er_b.get(code)})
        elif restated := [f for f in ("summary", "when") if words_a[code].get(f) != words_b[code].get(f)]:
            # A code's words restated (restate_error): the same clause, other words.
            errors.append({"code": code, "a": er_a[code], "b": er_b[code], "words": restated})
    if [e["code"] for e in ja["errors"]] != [e["code"] for e in jb["errors"]]:
        errors.append(
            {
                "code": "(order of precedence)",
                "a": [e["code"] for e in ja["errors"]],
                "b": [e["code"] for e in jb["errors"]],
            }
        )
    return RulesetDiff(a, b, changes, clars, errors)


def _replacements(a: Ruleset, b: Ruleset) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for old, new, flip in ((a, b, False), (b, a, True)):
        if new.extends == old.name and new.profile:
            for op in thaw(new.profile).get("operations", []):
                if "replace" in op:
                    pair = (op["replace"], op["with"]["id"])
                    pairs.append((pair[1], pair[0]) if flip else pair)
    return pairs


def render_diff(d: RulesetDiff, show: Callable[[str], str] = str) -> str:
    """The diff as text, one change a line; ``show`` makes each line safe for where it goes (a terminal's
    escaper: a profile's titles and data are text from outside)."""
    lines = [f"--- {d.a.name} {d.a.content_hash}", f"+++ {d.b.name} {d.b.content_hash}"]
    if d.same:
        lines.append("no difference in clauses, clarifications or error codes")
    for c in d.clauses:
        head = {
            "changed": f"~ {c.a}",
            "replaced": f"~ {c.a} -> {c.b}",
            "removed": f"- {c.a}",
            "added": f"+ {c.b}",
        }[c.kind]
        lines.append(head + ("  (wording only: no behaviour bound to this clause changes)" if c.wording_only else ""))
        for f, (x, y) in c.fields.items():
            if c.kind in ("added", "removed") and f not in ("title", "rule"):
                continue
            lines.append(f"    {f}: {_change(x, y)}")
        for path, (x, y) in c.data.items():
            lines.append(f"    data {path}: {_change(x, y)}")
    for k in d.clarifications:
        mark = {"added": "+", "removed": "-", "changed": "~"}[k["kind"]]
        extra = f" ({', '.join(k['fields'])})" if k.get("fields") else ""
        lines.append(f"{mark} clarification {k['number']}: {k['title']}{extra}")
    for e in d.errors:
        if e["code"] == "(order of precedence)":
            lines.append("~ error precedence order differs")
        elif "words" in e:
            lines.append(f"~ error {e['code']}: its words differ ({', '.join(e['words'])})")
        elif e["a"] is None or e["b"] is None:  # a code only one of the two defines
            mark, clause = ("+", e["b"]) if e["a"] is None else ("-", e["a"])
            lines.append(f"{mark} error {e['code']} (clause {clause})")
        else:
            lines.append(f"~ error {e['code']}: clause {e['a']} -> {e['b']}")
    if any(_worded(x, y) for c in d.clauses for x, y in [*c.fields.values(), *c.data.values()]):
        lines.append(
            "(in a changed text, [-...-] marks words of the first only, {+...+} words of the second only; ... stands for words both share)"
        )
    return "\n".join(show(line) for line in lines) + "\n"  # a newline inside a value is the line's, shown escaped


SHORT = 100  # characters of a value shown whole on the line; a longer text shows only where the two differ
CONTEXT = 6  # words kept on each side of a difference in a long text


def _worded(a: Any, b: Any) -> bool:
    return isinstance(a, str) and isinstance(b, str) and len(a) + len(b) > SHORT


def _change(a: Any, b: Any) -> str:
    """A value's change: both sides whole when short, a word diff of two long texts, which a cut would hide."""
    return _word_diff(a, b) if _worded(a, b) else f"{_short(a)} -> {_short(b)}"


def _word_diff(a: str, b: str) -> str:
    """Two texts word by word: ``[-gone-] {+come+}`` where they differ, the words they share between, long runs cut."""
    wa, wb = a.split(), b.split()
    ops = difflib.SequenceMatcher(None, wa, wb, autojunk=False).get_opcodes()
    out: list[str] = []
    for k, (op, i1, i2, j1, j2) in enumerate(ops):
        if op != "equal":
            out += ["[-" + " ".join(wa[i1:i2]) + "-]"] if i2 > i1 else []
            out += ["{+" + " ".join(wb[j1:j2]) + "+}"] if j2 > j1 else []
            continue
        same = wa[i1:i2]
        after = CONTEXT if k > 0 else 0  # words kept after the previous difference
        before = CONTEXT if k < len(ops) - 1 else 0  # and before the next
        if len(same) > after + before + 1:
            same = [*same[:after], "...", *(same[len(same) - before :] if before else [])]
        out += same
    return " ".join(out)


def _short(value: Any) -> str:
    text = _plain(thaw(value))
    return text if len(text) <= SHORT else text[: SHORT - 3] + "..."


def _plain(value: Any) -> str:
    """A value as the rules files write it (YAML's flow style), never as Python writes it: absent, not None."""
    if value is None:
        return "(absent)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_plain(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_plain(v)}" for k, v in value.items()) + "}"
    return str(value)
