"""Audit reports in text, Markdown and JSON (documented in docs/how-to/audit.md; schema/audit.schema.json)."""

from __future__ import annotations

from typing import Any

from ..engine.events import HandEvent, MatchEvent
from ..engine.reasons import Ref
from ..engine.setup import TURN_UP
from ..engine.tables import tables_for
from ..present import escape
from ..present import markdown as md
from ..rules.diff import diff_rulesets
from ..rules.errors import InputError, SetupError
from ..rules.model import Ruleset
from ..rules.problems import Problem
from .audit import Audit, Position, Ruling, Words, audit
from .grounds import event_clauses
from .record import Claim, Record
from .stops import after_stop_line, stop_lines

AUDIT_FORMAT = 1
SHOWN = 2000  # characters of one piece of record text shown in a text or Markdown report


def shown(text: object) -> str:
    """Text that came from a record, safe to print: no control character can draw a line of its own."""
    return escape.text(text, SHOWN)


def one_line(text: str) -> str:
    """A ruleset's text (a clause, a title) on the one line a ruling gives it, as the HTML page shows it.

    A profile may write a clause with line breaks; kept, they would end the
    ruling's item in Markdown, and an indented line after a blank one would
    print as code.
    """
    return " ".join(text.split())


def ruling_json(w: Words, r: Ruling) -> dict[str, Any]:
    out: dict[str, Any] = {
        "n": r.n,
        "action": r.action,
        "notation": r.notation,
        "description": w.action(r.action),
        "legal": r.legal,
    }
    if r.open is not None:  # not ruled: neither legal nor illegal, and why
        out["ruled"] = False
        out["open"] = {**r.open.to_json(), "text": w.reason(r.open)}
        if r.position is not None:
            out["position"] = r.position.to_json()
    elif r.legal:
        out["events"] = [e.to_json() for e in r.events]
        out["event_descriptions"] = [w.event(e) for e in r.events]
    else:
        assert r.code is not None and r.clause is not None and r.reason is not None
        ground = w.ground(r.clause)
        out["code"] = r.code
        out["clause"] = {"id": r.clause, "title": ground.title, "text": ground.text, "origin": ground.origin}
        if ground.quoted is not None:
            out["clause"]["wording_only"] = {"quoted": ground.quoted, "note": ground.note}
        out["reason"] = {**r.reason.to_json(), "text": w.reason(r.reason)}
        out["not_made"] = r.not_made
        if r.position is not None:
            out["position"] = r.position.to_json()
    out["score"] = r.score
    if r.stop is not None:
        out["stop"] = {**r.stop.to_json(), "text": stop_lines(w.say, r.stop)}
    if r.after_stop is not None:
        out["after_stop"] = {"at": r.after_stop[0], "text": after_stop_line(w.say, *r.after_stop)}
    if r.notes:
        out["notes"] = r.notes
    if r.claims:
        out["claims"] = [
            {
                "by": c.by,
                "claim": c.claim,
                "asserts": c.asserts,
                "upheld": None if r.open is not None else c.upheld(r.legal, r.code),
                "ruling": claim_ruling(w, r, c)[1],
                "clauses": claim_grounds(w, r, c),
            }
            for c in r.claims
        ]
    return out


def audit_json(a: Audit, lang: str) -> dict[str, Any]:
    w = Words(a.rules, lang)
    legal, illegal, open_ = counts(a)
    return {
        "format": AUDIT_FORMAT,
        "language": lang,
        "record": a.record.source,
        "header": a.record.header,
        "ruleset": {"name": a.rules.name, "hash": a.rules.content_hash},
        "rulings": [ruling_json(w, r) for r in a.rulings],
        "summary": {
            "actions": len(a.record.actions),
            "ruled": legal + illegal,
            "legal": legal,
            "illegal": illegal,
            "not_ruled": open_,
        },
        "stopped_at": a.stopped_at,
        "final": {k: v.to_json() if k == "open" else v for k, v in a.final.items()},
    }


def audit_text(a: Audit, lang: str, markdown: bool = False) -> str:
    """The audit as text, or as Markdown: one list item per action, its details as items of its own list."""
    w = Words(a.rules, lang)
    esc = escape.markdown if markdown else escape.text
    head = [
        w.say("audit", "title", record=shown(a.record.source)),
        w.say("audit", "ruleset", name=a.rules.name, hash=a.rules.content_hash),
    ]
    tail = [w.say("audit", "stopped")] if a.stopped_at is not None else []
    tail.append(w.summary(*counts(a), len(a.record.actions)))
    tail.append(final_line(w, a))
    head, tail = [esc(x) for x in head], [esc(x) for x in tail]
    if not markdown:
        out = list(head)
        for r in a.rulings:
            what, verdict, details = _ruling_lines(w, r)
            out += [f"  {r.n}. {esc(what + w.colon)} {esc(verdict)}", *(f"      {esc(d)}" for d in details)]
        return "\n".join(out + tail) + "\n"
    # CommonMark: a line indented under its item's text (the width of "3. ") is a nested item; five
    # spaces after a marker would make it a code block.
    out = [md.heading(1, head[0]), "", head[1], ""]
    for r in a.rulings:
        what, verdict, details = _ruling_lines(w, r)
        strong = "" if r.legal else "**"
        out.append(md.item(f"{esc(what + w.colon)} {strong}{esc(verdict)}{strong}", number=r.n))
        out += [md.item(esc(d), indent=md.marker_width(r.n)) for d in details]
    return "\n".join([*out, "", "\n\n".join(tail)]) + "\n"


def _ruling_lines(w: Words, r: Ruling) -> tuple[str, str, list[str]]:
    """A ruling's action and notation, its verdict, and the lines that detail it: plain text, the record's cut."""
    # The description and notation carry the record's own values (an unknown seat, a card's text).
    what = f"{shown(w.action(r.action))}  [{shown(r.notation)}]"
    details: list[str] = []
    if r.open is not None:
        verdict = w.say("audit", "not_ruled")
        details.append(shown(w.reason(r.open)))
    elif r.legal:
        verdict = w.say("audit", "legal")
        details += [w.event(e) for e in r.events]
        details += stop_lines(w.say, r.stop) if r.stop is not None else []
    else:
        assert r.clause is not None and r.reason is not None
        ground = w.ground(r.clause)
        verdict = w.say("audit", "illegal")
        rule = w.say("audit", "rule", clause=r.clause, title=one_line(ground.title))
        details += [f"{w.say('audit', 'code', code=r.code)}{w.semicolon} {rule}", w.quoted(one_line(ground.text))]
        if ground.note is not None:
            details.append(f"({one_line(ground.note)})")
        details.append(f"{w.say('audit', 'reason')}{w.colon} {shown(w.reason(r.reason))}")
        if r.position is not None:
            details.append(f"{w.say('audit', 'position')}{w.colon} " + f"{w.semicolon} ".join(w.position(r.position)))
        if r.after_stop is not None:
            details.append(after_stop_line(w.say, *r.after_stop))
        if r.not_made:
            details.append(w.say("audit", "not_made"))
    details += [f"{{{shown(note)}}}" for note in r.notes]
    details += [_claim_line(w, r, c) for c in r.claims]
    return what, verdict, details


def grounds(w: Words, r: Ruling) -> list[str]:
    """The clauses a ruling rests on: the one an illegal action breaks, else those that give what it brought
    about (a trick's winner, a hand's score, the match), else the one that allows it; none for an action not ruled."""
    if r.open is not None:
        return []
    if not r.legal:
        return [r.clause] if r.clause else []
    if r.events:
        return event_clauses(w.rules, r.events)
    return [r.allowed_by] if r.allowed_by else []


def claim_grounds(w: Words, r: Ruling, c: Claim) -> list[str]:
    """The clauses a claim is answered with, those of what it is about: a claim on whether the action may be made
    (it asserts legal, illegal or a code) rests on the clause that rules on that, the one the action breaks or the
    one that allows it; a claim that asserts nothing checkable ("we score 6"), on what the action brought about."""
    return [r.allowed_by] if _on_whether_made(r, c) and r.allowed_by else grounds(w, r)


def _on_whether_made(r: Ruling, c: Claim) -> bool:
    return r.legal and c.asserts is not None and r.allowed_by is not None


def given_by(w: Words, what: str, clauses: list[str]) -> str:
    """``what`` and the clauses that give it: "trick 1: tied, by rule trick.tie (Tied tricks)"."""
    if not clauses:
        return what
    rules = f"{w.semicolon} ".join(w.say("audit", "rule", clause=x, title=one_line(w.clause(x)[0])) for x in clauses)
    return w.say("audit", "given_by", what=what, rules=rules)


def claim_ruling(w: Words, r: Ruling, c: Claim) -> tuple[str, str]:
    """Who made a claim about an action, and the ruling on it in the audit's language, with the clause it rests on.

    A claim asserts that the action is legal, illegal or refused with a code, or asserts nothing checkable
    ("we score 6"): the ruling says what the rules give, the code, the action allowed or the events, and by the
    clause the claim is about (:func:`claim_grounds`).
    """
    if r.open is not None:  # neither upheld nor rejected: what it depends on is not recorded
        return (shown(w.seat(c.by)) if c.by else "?"), f"{w.say('audit', 'not_ruled')}{w.colon} {w.reason(r.open)}"
    upheld = c.upheld(r.legal, r.code)
    if upheld is None:
        verdict = w.say("audit", "legal") if r.legal else w.say("audit", "illegal")
    else:
        verdict = w.say("audit", "claim_upheld") if upheld else w.say("audit", "claim_rejected")
    if not r.legal:
        what = w.say("audit", "code", code=r.code)
    elif _on_whether_made(r, c):  # the action, by the clause that allows it
        what = shown(w.action(r.action))
    else:
        what = f"{w.semicolon} ".join(w.event(e) for e in r.events) or shown(w.action(r.action))
    return (shown(w.seat(c.by)) if c.by else "?"), f"{verdict}{w.colon} {given_by(w, what, claim_grounds(w, r, c))}"


def counts(a: Audit) -> tuple[int, int, int]:
    """How many rulings say legal, illegal, and how many actions were not ruled (a card not recorded)."""
    open_ = sum(1 for r in a.rulings if r.open is not None)
    legal = sum(1 for r in a.rulings if r.legal)
    return legal, len(a.rulings) - legal - open_, open_


def final_line(w: Words, a: Audit) -> str:
    """The final score and winner; when the match was won, with the clause that gave it."""
    line = final_words(w, a.final)
    if not a.final["winner"]:
        return line
    won = next((r for r in reversed(a.rulings) if r.legal and any(isinstance(e, MatchEvent) for e in r.events)), None)
    if won is None:  # a record that starts with the match already won
        return line
    # The clause the match event rests on says it all: an accepted baraque gives the match and leaves the
    # scores as they were; otherwise the score reached the target.
    (match,) = [e for e in won.events if isinstance(e, MatchEvent)]
    clauses = event_clauses(w.rules, [e for e in won.events if isinstance(e, (HandEvent, MatchEvent))])
    return f"{line}{w.colon} {given_by(w, w.event(match), clauses[-1:])}"


def _claim_line(w: Words, r: Ruling, c: Claim) -> str:
    who, verdict = claim_ruling(w, r, c)
    return f"{w.say('audit', 'claim', by=who)}{w.colon} {w.quoted(shown(c.claim))}{w.colon} {w.say('audit', 'ruling')}{w.colon} {verdict}"


def position_text(rules: Ruleset, p: Position, n: int, lang: str, markdown: bool = False) -> str:
    w = Words(rules, lang)
    bullet = "- " if markdown else "  "
    esc = escape.markdown if markdown else escape.text
    title = esc(w.say("audit", "before", n=n))
    out = [md.heading(1, title) if markdown else title]
    out += [bullet + esc(line) for line in w.position(p)]
    who = (p.turn and w.seat(p.turn)) or (p.deciding and w.side(p.deciding)) or w.say("words", "nobody")
    out.append(bullet + esc(w.say("audit", "decision_of", who=who)))
    nobody = w.say("words", "nobody")
    out.append(bullet + esc(w.say("audit", "may_raise", who=", ".join(w.seat(s) for s in p.may_bid) or nobody)))
    out.append(bullet + esc(w.say("audit", "may_refuse", who=", ".join(w.seat(s) for s in p.may_refuse) or nobody)))
    out.append(bullet + esc(w.say("audit", "legal_actions") + w.colon))
    sub = "  - " if markdown else "    "  # in Markdown, items of a list nested in the last one
    for action, clause in p.legal:
        if clause:
            title = one_line(w.clause(clause)[0])
            said = w.action(action, option=True)
            out.append(sub + esc(f"{said}{w.colon} {w.say('audit', 'allowed_by')} {clause} ({title})"))
        else:
            out.append(sub + esc(w.action(action, option=True)))
    return "\n".join(out) + "\n"


def position_json(rules: Ruleset, p: Position, n: int, lang: str) -> dict[str, Any]:
    w = Words(rules, lang)
    body = p.to_json()
    body["legal"] = [
        {
            "action": a,
            "description": w.action(a, option=True),
            "clause": c,
            "clause_title": w.clause(c)[0] if c else None,
        }
        for a, c in p.legal
    ]
    return {
        "format": AUDIT_FORMAT,
        "language": lang,
        "before_action": n,
        "ruleset": {"name": rules.name, "hash": rules.content_hash},
        "position": body,
        "description": w.position(p),  # its last line is the phase
    }


def compare(record: Record, a: Ruleset, b: Ruleset, lang: str) -> dict[str, Any]:
    """Replay under two rulesets and say where their rulings part, and which clauses make them differ."""
    ra = audit(record, a, go_on=True)
    try:
        if not tables_for(b).turn_up and any(TURN_UP in d for d in record.deals):
            raise SetupError(f"{b.name} turns up no card, and the record's deals each turn one up", "deals")
        rb = audit(record, b, go_on=True)
    except SetupError as exc:  # the record was checked against its own ruleset only
        raise InputError(
            [Problem("RECORD_SETUP", f"the record cannot be replayed under {b.name}: {exc}", record.source)]
        ) from None
    wa, wb = Words(a, lang), Words(b, lang)
    diff = diff_rulesets(a, b)
    changed = [c.a or c.b for c in diff.clauses]
    changed_ids = {x for c in diff.clauses for x in (c.a, c.b) if x}
    divergences = []
    for x, y in zip(ra.rulings, rb.rulings):
        jx, jy = ruling_json(wa, x), ruling_json(wb, y)
        same = (
            x.legal == y.legal
            and x.code == y.code
            and [e.to_json() for e in x.events] == [e.to_json() for e in y.events]
        )
        if same:
            continue
        cited = {c for c in (x.clause, y.clause) if c}
        why = sorted(cited & changed_ids) or sorted(changed_ids)
        divergences.append({"n": x.n, "notation": x.notation, a.name: jx, b.name: jy, "because": why})
    return {
        "format": AUDIT_FORMAT,
        "language": lang,
        "record": record.source,
        "a": {"name": a.name, "hash": a.content_hash, "final": ra.final},
        "b": {"name": b.name, "hash": b.content_hash, "final": rb.final},
        "changed_clauses": changed,
        "divergences": divergences,
    }


def compare_text(c: dict[str, Any], a: Ruleset, b: Ruleset, lang: str, markdown: bool = False) -> str:
    """Where two rulesets' rulings part, as text or as Markdown: one list item per action, its reason nested in it."""
    w = Words(a, lang)
    esc = escape.markdown if markdown else escape.text
    out = []
    if not c["divergences"]:
        out.append(w.say("audit", "compare_same", a=a.name, b=b.name))
    else:
        out.append(w.say("audit", "compare", a=a.name, b=b.name, n=len(c["divergences"])))
    item, sub = ("- ", "  - ") if markdown else ("", "    ")
    parted = []
    for d in c["divergences"]:
        ja, jb = d[a.name], d[b.name]
        parted.append(
            item + esc(w.say("audit", "diverges", n=d["n"], a=a.name, ra=_short(w, ja), b=b.name, rb=_short(w, jb)))
        )
        parted.append(sub + esc(w.say("audit", "because", n=len(d["because"]), clauses=", ".join(d["because"]))))
    wb = Words(b, lang)
    finals = [
        f"{a.name}: " + final_words(w, c["a"]["final"]),
        f"{b.name}: " + final_words(wb, c["b"]["final"]),
    ]
    out, finals = [esc(x) for x in out], [esc(x) for x in finals]
    if not markdown:
        return "\n".join(out + parted + finals) + "\n"
    # CommonMark: paragraphs apart, and the reason nested under its action at the item's text (two spaces).
    return "\n\n".join([*out, *(["\n".join(parted)] if parted else []), *finals]) + "\n"


def final_words(w: Words, final: dict[str, Any]) -> str:
    """The score at the end of the record, and who won the match or, when no side has, that the match goes on.

    "winner nobody" read as if nobody had won the last hand; a match without a winner is one still being played.
    """
    if final.get("open") is not None:
        return w.say("audit", "final_open", reason=w.reason(final["open"]))
    if final["winner"]:
        return w.say("audit", "final", score=w.score(final["score"]), winner=w.side(final["winner"]))
    return w.say("audit", "final_goes_on", score=w.score(final["score"]))


def _short(w: Words, j: dict[str, Any]) -> str:
    if j.get("ruled") is False:
        return w.say("audit", "not_ruled")
    if not j["legal"]:
        return f"{j['code']} ({j['clause']['id']})"
    return f"{w.semicolon} ".join(j["event_descriptions"]) or w.say("audit", "legal")


__all__ = [
    "Ref",
    "audit_json",
    "audit_text",
    "compare",
    "compare_text",
    "final_words",
    "position_json",
    "position_text",
]
