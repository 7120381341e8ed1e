"""Game records: a lenient reader that collects every problem with its place, and a strict canonical writer."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from ..engine.setup import TURN_UP
from ..engine.tables import Tables, tables_for
from ..present import escape
from ..rules import reader
from ..rules.errors import InputError, UnknownRuleset
from ..rules.files import read_path
from ..rules.model import Ruleset
from ..rules.problems import Problem
from ..rules.schema import validate
from ..rules.yamlsafe import Document, load_text
from .notation import parse_notation, to_notation
from .unknown import UNKNOWN

MAX_RECORD_BYTES = 1024 * 1024
# The actions a record may hold. A match of Vitou played at random takes fewer than 200 (1,000 matches of each
# shipped ruleset: 167 at most); a record of many times more is no match, and its replay would cost seconds and
# hundreds of MB for nothing. Claims and annotations, each about an action, are bounded alike.
MAX_ACTIONS = 10_000
HEADER_ORDER = ("event", "place", "date", "round", "players", "ruleset", "hash", "dealer", "draw", "score", "note")


@dataclass(frozen=True)
class RecordedAction:
    """One action of a record: its protocol form, how it was written, and where."""

    action: Any
    text: str
    line: int | None
    column: int | None
    note: str | None = None


@dataclass(frozen=True)
class Claim:
    at: int
    by: str | None
    claim: str
    asserts: str | None = None  # legal, illegal, or an error code

    def upheld(self, legal: bool, code: str | None) -> bool | None:
        """Whether the ruling bears the claim out; None when the claim asserts nothing checkable."""
        if self.asserts is None:
            return None
        if self.asserts == "legal":
            return legal
        if self.asserts == "illegal":
            return not legal
        return code == self.asserts


@dataclass(frozen=True)
class Record:
    source: str
    header: dict[str, Any]
    deals: list[Any]
    actions: list[RecordedAction]
    annotations: dict[int, list[str]] = field(default_factory=dict)
    claims: list[Claim] = field(default_factory=list)

    @property
    def ruleset_name(self) -> str:
        return str(self.header["ruleset"])

    def setup(self) -> dict[str, Any]:
        """The protocol SETUP this record starts from."""
        out: dict[str, Any] = {"deals": self.deals}
        for key in ("dealer", "draw", "score"):
            if key in self.header:
                out[key] = self.header[key]
        return out

    def to_json(self) -> dict[str, Any]:
        """The canonical form: header keys in the fixed order, actions as protocol actions."""
        header = {k: self.header[k] for k in HEADER_ORDER if k in self.header}
        out: dict[str, Any] = {
            "format": 1,
            "header": header,
            "deals": self.deals,
            "actions": [a.action for a in self.actions],
        }
        notes = [{"at": i, "note": n} for i, ns in sorted(self.annotations.items()) for n in ns]
        if notes:
            out["annotations"] = notes
        if self.claims:
            out["claims"] = [
                {
                    "at": c.at,
                    **({"by": c.by} if c.by else {}),
                    "claim": c.claim,
                    **({"asserts": c.asserts} if c.asserts else {}),
                }
                for c in self.claims
            ]
        return out

    def notation(self) -> str:
        return " ".join(to_notation(a.action) for a in self.actions)


def _scalar_start(raw: str, line: int, column: int) -> tuple[int, int, bool]:
    """Where the text of a scalar begins, and whether it is a block (every line indented alike)."""
    lines = raw.splitlines()
    if 0 < line <= len(lines):
        rest = lines[line - 1][column - 1 :]
        if rest[:1] in ("|", ">"):
            nxt = lines[line] if line < len(lines) else ""
            return line + 1, len(nxt) - len(nxt.lstrip()) + 1, True
        if rest[:1] in ("'", '"'):
            return line, column + 1, False
    return line, column, False


def read_record(raw: str | bytes, source: str = "<record>", rules: Ruleset | None = None) -> tuple[Record, Ruleset]:
    """A record and the ruleset to replay it under; InputError listing every problem found."""
    doc = load_text(raw, source, max_bytes=MAX_RECORD_BYTES)
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
    _check_length(doc)
    problems = validate(doc, "record")
    if problems:
        raise InputError(problems)
    data = doc.data
    header = data["header"]
    if rules is None:
        from ..rules.registry import load_named

        rules = load_named(header["ruleset"], lambda m: doc.problem("RECORD_RULESET_UNKNOWN", m, ("header", "ruleset")))
        if "hash" in header and header["hash"] != rules.content_hash:
            problems.append(
                doc.problem(
                    "RECORD_HASH_MISMATCH",
                    f"the record was written for {header['ruleset']} with hash {header['hash']}, "
                    f"but this {rules.name} has {rules.content_hash}: the rules differ",
                    ("header", "hash"),
                )
            )
    actions = _read_actions(doc, text, tables_for(rules), problems)
    annotations: dict[int, list[str]] = {}
    for i, a in enumerate(actions, 1):
        if a.note:
            annotations.setdefault(i, []).append(a.note)
    for k, note in enumerate(data.get("annotations", [])):
        if note["at"] > len(actions):
            problems.append(
                doc.problem(
                    "RECORD_AT",
                    f"a note on action {note['at']}, but the record has {len(actions)}",
                    ("annotations", k, "at"),
                )
            )
        annotations.setdefault(note["at"], []).append(note["note"])
    claims = []
    known_codes = [e.code for e in rules.errors]
    for k, c in enumerate(data.get("claims", [])):
        if c["at"] > len(actions):
            problems.append(
                doc.problem(
                    "RECORD_AT", f"a claim on action {c['at']}, but the record has {len(actions)}", ("claims", k, "at")
                )
            )
        asserts = c.get("asserts")
        if asserts is not None and asserts not in ("legal", "illegal") and asserts not in known_codes:
            # A misspelt code would otherwise be a claim rejected for nothing.
            close = difflib.get_close_matches(asserts, known_codes, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            problems.append(
                doc.problem(
                    "RECORD_CLAIM_CODE",
                    f"the claim asserts {asserts}, which is not an error code of {rules.name}{hint}; a claim "
                    f"asserts legal, illegal, or one of the ruleset's codes: {', '.join(known_codes)}",
                    ("claims", k, "asserts"),
                )
            )
        claims.append(Claim(c["at"], c.get("by"), c["claim"], asserts))
    problems.extend(_setup_problems(doc, header, data["deals"], rules))
    if problems:
        raise InputError(problems)
    return Record(source, dict(header), data["deals"], actions, annotations, claims), rules


def _read_actions(doc: Document, text: str, t: Tables, problems: list[Problem]) -> list[RecordedAction]:
    """The record's actions, from the notation or protocol actions, at most MAX_ACTIONS; notation problems added."""
    actions: list[RecordedAction] = []
    raw_actions = doc.data["actions"]
    items: list[tuple[Any, tuple[object, ...]]] = (
        [(raw_actions, ("actions",))]
        if isinstance(raw_actions, str)
        else [(a, ("actions", i)) for i, a in enumerate(raw_actions)]
    )
    for item, path in items:
        line, col = doc.locate(path)
        if isinstance(item, str):
            sl, sc, block = _scalar_start(text, line or 1, col or 1)
            left = MAX_ACTIONS - len(actions)  # what the bound leaves: reading stops one action past it
            parsed, notation_problems = parse_notation(item, t, doc.source, sl, sc, block, most=left)
            if len(parsed) > left:
                raise InputError([_too_long(doc, ("actions",), "actions", f"more than {MAX_ACTIONS:,}")])
            problems.extend(notation_problems)
            actions.extend(RecordedAction(p.action, p.text, p.line, p.column, p.note) for p in parsed)
        else:
            actions.append(RecordedAction(item, to_notation(item), line, col))
    if len(actions) > MAX_ACTIONS:  # groups of the notation and protocol actions in one list
        raise InputError([_too_long(doc, ("actions",), "actions", f"{len(actions):,}")])
    return actions


def _too_long(doc: Document, at: tuple[object, ...], what: str, held: str) -> Problem:
    return doc.problem(
        "RECORD_TOO_LONG",
        f"the record holds {held} {what}; a record holds at most {MAX_ACTIONS:,} (no match comes near)",
        at,
    )


def _check_length(doc: Document) -> None:
    """RECORD_TOO_LONG, before anything is validated or replayed, for lists over the bound."""
    data = doc.data
    if not isinstance(data, dict):
        return
    for key in ("actions", "annotations", "claims"):
        items = data.get(key)
        if isinstance(items, list) and len(items) > MAX_ACTIONS:
            raise InputError([_too_long(doc, (key,), key, f"{len(items):,}")])


def _setup_problems(doc: Document, header: dict[str, Any], deals: list[Any], rules: Ruleset) -> list[Problem]:
    from ..protocol.server import match_from_setup
    from ..rules.errors import SetupError
    from .unknown import fill

    t = tables_for(rules)
    turned = _turn_up_problems(doc, deals, t)
    if turned:
        return turned
    setup: dict[str, Any] = {"deals": deals}
    for key in ("dealer", "draw", "score"):
        if key in header:
            setup[key] = header[key]
    try:
        # A card written "?" is one the record does not know: the deal is checked with it stood in for.
        match_from_setup(t, fill(setup, t, set()).setup)
    except SetupError as exc:
        # The path names the setup's keys as written (a seat of a deal, a side of the score) and the indexes of lists.
        parts = (
            tuple(reader.whole(p) if reader.is_whole(p) else p for p in exc.path.split("/") if p) if exc.path else ()
        )
        where = parts if parts and parts[0] == "deals" else ("header", *parts)
        return [doc.problem("RECORD_SETUP", str(exc).split(": ", 1)[-1], where)]
    return []


def _turn_up_problems(doc: Document, deals: list[Any], t: Tables) -> list[Problem]:
    """A turn-up where the rules turn none up, and one left unknown, each at its deal's turn_up."""
    out = []
    for i, deal in enumerate(deals):
        if TURN_UP not in deal:
            continue  # a deal the rules want a turn-up for and that has none: the engine says so, at the same place
        where = ("deals", i, TURN_UP)
        if not t.turn_up:
            out.append(
                doc.problem(
                    "RECORD_SETUP",
                    f"{t.name} turns up no card: a deal gives each seat its cards, and nothing else",
                    where,
                )
            )
        elif deal[TURN_UP] == UNKNOWN:
            # Every card's strength depends on it, and it is public: a record that knows any card knows this one.
            out.append(
                doc.problem(
                    "RECORD_SETUP",
                    f"the turn-up is public, so a record names it ({UNKNOWN!r} is a card a seat held that the record "
                    "does not know)",
                    where,
                )
            )
    return out


def load_record(path: str, rules: Ruleset | None = None) -> tuple[Record, Ruleset]:
    """A record read from a regular file (a FIFO or a device is refused, not waited on)."""
    return read_record(read_path(path, max_bytes=MAX_RECORD_BYTES), path, rules)


def record_from_case(case: Any, ruleset: str) -> dict[str, Any]:
    """A canonical record from a conformance case: its setup, deals and actions."""
    from ..rules.model import thaw

    setup = thaw(case.setup)
    header: dict[str, Any] = {"event": f"conformance case {case.id}", "note": case.title, "ruleset": ruleset}
    for key in ("dealer", "draw", "score"):
        if key in setup:
            header[key] = setup[key]
    try:
        from ..rules.registry import load_ruleset

        header["hash"] = load_ruleset(ruleset).content_hash
    except (UnknownRuleset, InputError):
        pass
    header = {k: header[k] for k in HEADER_ORDER if k in header}
    return {"format": 1, "header": header, "deals": setup.get("deals", []), "actions": thaw(case.actions)}


def dump_record(data: dict[str, Any], to: str) -> str:
    """A record written as YAML, JSON, or the bare notation of its actions."""
    if to == "json":
        return escape.json_dumps(data, indent=2) + "\n"
    if to == "notation":
        from .notation import write_notation

        return write_notation(data["actions"]) + "\n"
    from ..rules.yamlout import dump

    out = dict(data)
    out["actions"] = _notation_block(data["actions"], data.get("header", {}).get("ruleset"))
    return dump(out)


def _notation_block(actions: list[Any], ruleset: Any = None) -> Any:
    # The canonical YAML writes actions in the notation when every one of
    # them can be, and as protocol JSON otherwise.
    from .notation import write_notation

    if all(isinstance(a, dict) and not to_notation(a).startswith("{") and "'" not in to_notation(a) for a in actions):
        written = write_notation(actions)
        return written if _reads_back(written, actions, ruleset) else actions
    return actions


def _reads_back(written: str, actions: list[Any], ruleset: Any) -> bool:
    """Whether the notation reads back as ``actions`` under the record's ruleset, where it is a shipped one: a card
    of the French pack that is not in the game's own (an 8 in Truco Paulista) is no group of its notation."""
    from ..rules.registry import load_ruleset, shipped_names

    if ruleset not in shipped_names():
        return True
    parsed, problems = parse_notation(written, tables_for(load_ruleset(ruleset)))
    return not problems and [p.action for p in parsed] == actions
