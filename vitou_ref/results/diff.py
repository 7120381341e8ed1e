"""Two reports compared case by case: what newly fails, what newly passes, what changed outcome; regressions decide."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..present import escape
from ..present import markdown as mdown
from ..rules.plurals import counted
from .caseline import CaseLine
from .read import Report

REGRESSED = "newly failing"  # passed before, and not now: a regression, which makes the exit status 1
MISSING = "missing in NEW"  # passed before, and has no line now: a regression too, whatever the reason
FIXED = "newly passing"
CHANGED = "changed outcome"
GONE = "not run in NEW"  # did not pass before, and has no line now: nothing that passed is lost
ADDED = "new in NEW"
KINDS = (REGRESSED, MISSING, FIXED, CHANGED, GONE, ADDED)
REGRESSIONS = (REGRESSED, MISSING)


@dataclass(frozen=True)
class Change:
    kind: str
    key: tuple[str, str]  # (ruleset or envelope, case id)
    old: CaseLine | None
    new: CaseLine | None

    @property
    def case(self) -> CaseLine:
        line = self.new or self.old
        assert line is not None
        return line

    def outcomes(self) -> str:
        before = self.old.label if self.old else "not run"
        after = self.new.label if self.new else "not run"
        return f"{before} -> {after}"


@dataclass(frozen=True)
class Diff:
    old: Report
    new: Report
    changes: tuple[Change, ...]
    compared: int  # cases in both reports

    def of_kind(self, kind: str) -> list[Change]:
        return [c for c in self.changes if c.kind == kind]

    @property
    def regressed(self) -> bool:
        return any(c.kind in REGRESSIONS for c in self.changes)

    @property
    def levels_differ(self) -> bool:
        return self.old.level != self.new.level


def diff(old: Report, new: Report) -> Diff:
    """Each case of either report, by ruleset and id (the envelope's by id), that did not keep its outcome."""
    before = {c.key: c for c in old.cases}
    after = {c.key: c for c in new.cases}
    changes = []
    for key, was in before.items():
        now = after.get(key)
        if now is None:
            # Whether NEW was cut short, run with --only or edited, a case that passed and has no line may fail now.
            changes.append(Change(MISSING if was.passed else GONE, key, was, None))
        elif was.passed and not now.passed:
            changes.append(Change(REGRESSED, key, was, now))
        elif now.passed and not was.passed:
            changes.append(Change(FIXED, key, was, now))
        elif was.outcome != now.outcome:
            changes.append(Change(CHANGED, key, was, now))
    changes += [Change(ADDED, key, None, now) for key, now in after.items() if key not in before]
    compared = sum(1 for key in before if key in after)
    return Diff(old, new, tuple(changes), compared)


def _who(r: Report) -> str:
    stopped = f"; INCOMPLETE: {r.stopped}" if r.stopped else ""
    return f"{r.path}: {r.name} {r.version}, {len(r.cases)} results at the {r.level} level{stopped}"


def _levels_line(d: Diff) -> str | None:
    """What a comparison across levels means: a refused step passes at the outcome level whatever its error code."""
    if not d.levels_differ:
        return None
    return (
        f"THE LEVELS DIFFER: OLD was certified at the {d.old.level} level, NEW at the {d.new.level} level; "
        "at the outcome level a refused action passes whatever error code it names, so a case may pass or fail "
        "by the level alone"
    )


def _where(c: Change) -> str:
    return f"{escape.text(c.key[0], 60)} {escape.text(c.key[1], 40)}"


def render_text(d: Diff) -> str:
    out = [f"OLD {_who(d.old)}", f"NEW {_who(d.new)}"]
    levels = _levels_line(d)
    out += [levels] if levels else []
    for kind in KINDS:
        changes = d.of_kind(kind)
        out.append(f"{kind}: {len(changes)}")
        for c in changes:
            out.append(f"  {_where(c)}  {c.outcomes()}  {escape.text(c.case.title, 100)}")
            if c.new is not None and c.new.reason and not c.new.passed:
                out.append(f"      {escape.text(c.new.reason, 600)}")
    out.append(_last_line(d))
    return "\n".join(out) + "\n"


def _last_line(d: Diff) -> str:
    n = {k: len(d.of_kind(k)) for k in KINDS}
    verdict = "REGRESSED" if d.regressed else "no regression"
    return (
        f"{verdict}: {counted(d.compared, 'case', 'cases')} in both, {n[REGRESSED]} newly failing, "
        f"{n[MISSING]} passing in OLD and missing in NEW, {n[FIXED]} newly passing, "
        f"{n[CHANGED]} changed outcome otherwise; {n[GONE]} not passed in OLD and not run in NEW, {n[ADDED]} new in NEW"
    )


def render_markdown(d: Diff) -> str:
    def md(text: str, limit: int) -> str:
        return mdown.text(text, limit)

    out = [mdown.heading(1, "Vitou results compared"), ""]
    out += [mdown.item(f"OLD {md(_who(d.old), 400)}"), mdown.item(f"NEW {md(_who(d.new), 400)}"), ""]
    levels = _levels_line(d)
    out += [f"**{md(levels, 400)}**", ""] if levels else []
    out += [f"**{md(_last_line(d), 400)}**", ""]
    for kind in KINDS:
        changes = d.of_kind(kind)
        if not changes:
            continue
        rows = [[md(_where(c), 100), c.outcomes(), md(c.case.title, 200)] for c in changes]
        out += [mdown.heading(2, f"{kind.capitalize()} ({len(changes)})"), ""]
        out += [*mdown.table(["case", "outcome", "title"], rows), ""]
    return "\n".join(out)


def render_json(d: Diff) -> dict[str, Any]:
    def side(r: Report) -> dict[str, Any]:
        implementation = {"name": r.name, "version": r.version}
        return {"file": r.path, "implementation": implementation, "incomplete": r.stopped, "level": r.level}

    return {
        "old": side(d.old),
        "new": side(d.new),
        "regressed": d.regressed,
        "levels_differ": d.levels_differ,
        "compared": d.compared,
        "changes": [
            {
                "kind": c.kind,
                "ruleset": c.key[0],
                "id": c.key[1],
                "title": c.case.title,
                "old": c.old.outcome if c.old else None,
                "new": c.new.outcome if c.new else None,
                "reason": c.new.reason if c.new else None,
            }
            for c in d.changes
        ],
    }
