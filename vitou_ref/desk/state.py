"""The desk's state: the records being entered, each change checked by the record loader before it is kept."""

from __future__ import annotations

import copy
import dataclasses
import threading
from dataclasses import dataclass, field
from typing import Any

from ..audit.audit import Audit, Position, audit
from ..audit.notation import parse_notation
from ..audit.record import MAX_RECORD_BYTES, Record, dump_record, read_record
from ..engine.setup import TURN_UP
from ..engine.tables import tables_for
from ..present import escape
from ..rules.check import check_text
from ..rules.errors import InputError, UnknownRuleset
from ..rules.model import Ruleset
from ..rules.problems import Problem
from ..rules.registry import load_ruleset, resolve_among, shipped_names
from ..rules.yamlsafe import load_text
from .words import Note, Said, Warned, said, say, unknown_ruleset

LANGS = ("en", "fr", "pt", "ru")
MAIN = Said("record.main")  # the record the desk starts with
MAX_BRANCHES = 20  # a referee compares a few what-ifs, not hundreds
MAX_ACTIONS = 400  # far more than a match of twenty-odd hands holds, so that a replay stays instant


@dataclass
class Branch:
    """One record at the desk: the main one as it happened, a new one, one loaded, or a what-if branched from one.

    ``name`` is its name in English; ``base`` (the desk's words, or a file's name) and ``at``, the actions each
    what-if branched from, name it in the desk's language.
    """

    name: str
    data: dict[str, Any]  # the record's canonical JSON form, always one the loader reads
    base: Said | str = MAIN
    at: tuple[int, ...] = ()
    picks: tuple[tuple[str, str], ...] = ()  # the next deal as picked so far by clicks: (seat, card or "?")

    def label(self, lang: str) -> str:
        name = self.base.words(lang) if isinstance(self.base, Said) else self.base
        for n in self.at:
            name = say(lang, "record.what_if", record=name, n=n)
        return name


@dataclass
class Checked:
    """A branch as the audit sees it: the record, its ruleset, the rulings and the position before each action."""

    record: Record
    rules: Ruleset
    audit: Audit
    positions: list[Position]  # before each action, and after the last


def blank(ruleset: str = "vitou") -> dict[str, Any]:
    rules = load_ruleset(ruleset)
    return {
        "format": 1,
        "header": {"ruleset": rules.name, "dealer": tables_for(rules).seat_ids[-1]},
        "deals": [],
        "actions": [],
    }


def problem(code: str, message: str, where: str) -> InputError:
    return InputError([Problem(code, message, where)])


@dataclass
class Desk:
    """Everything one referee has entered: the records (branches), the language, the ruleset to compare with."""

    save_dir: str | None = None
    lang: str = "en"
    branches: list[Branch] = field(default_factory=lambda: [Branch("main", blank())])
    current: int = 0
    compare_with: str | None = None
    custom: dict[str, Ruleset] = field(default_factory=dict)  # rulesets given as a file, by their name
    notice: list[Note] = field(default_factory=list)  # the problems of the last change refused, shown once
    info: list[Note] = field(default_factory=list)  # what the last request did that the page does not show
    revision: int = 0  # one more at every change; a form made at another is stale
    lock: threading.RLock = field(default_factory=threading.RLock)

    @property
    def branch(self) -> Branch:
        return self.branches[self.current]

    def say(self, key: str, /, **params: Any) -> str:
        """The desk's words in its language (a source's name, for the loaders' problems to be located by)."""
        return say(self.lang, key, **params)

    def snapshot(self) -> tuple[Any, ...]:
        """What a page shows of the desk and its forms act on: to tell whether a request changed the desk."""
        records = [(b.name, copy.deepcopy(b.data), b.picks) for b in self.branches]
        custom = sorted((n, r.content_hash) for n, r in self.custom.items())
        return records, self.current, self.compare_with, custom, self.lang

    def rules_for(self, name: str) -> Ruleset | None:
        """A ruleset given as a file is the desk's own; a shipped name is left to the loader (None).

        A shipped name is never looked up among the uploads: a record of ``vitou/1.0.0`` is ruled by
        the published rules, whatever was uploaded (an upload of that name is refused besides).
        """
        return None if name in shipped_names() else self.custom.get(name)

    def named(self, ref: str) -> Ruleset:
        """The ruleset a request names: a shipped one, by its name or id, or one uploaded here; never a file.

        UnknownRuleset otherwise, listing the names the desk offers: a path is only ever an unknown name.
        """
        offered = [*shipped_names(), *(n for n in self.custom if n not in shipped_names())]
        name = resolve_among(ref if len(ref) <= 100 else ref[:100] + "…", offered)  # a name, not a page of text
        return self.rules_for(name) or load_ruleset(name)

    def check(self, data: dict[str, Any], name: str | None = None) -> Checked:
        """The record read back by the loader, as `vitou audit` would read its file: InputError when it cannot be.

        The audit names the record by ``name`` (the branch's, a loaded file's), as the kit names it by its file.
        """
        rules = self.rules_for(str(data.get("header", {}).get("ruleset", "")))
        source = self.say("source.entered")
        record, rules = read_record(escape.json_dumps(data, indent=2), source, rules)
        record = dataclasses.replace(record, source=name or self.branch.label(self.lang))
        if len(record.actions) > MAX_ACTIONS:
            raise problem("RECORD_TOO_LONG", say("en", "too_long", n=MAX_ACTIONS), source)
        ruled = audit(record, rules, go_on=True)  # one replay gives the rulings and the positions both
        return Checked(record, rules, ruled, ruled.positions)

    def change(self, data: dict[str, Any]) -> bool:
        """Keep ``data`` as the current record if the loader reads it; else keep the record as it was."""
        try:
            self.check(data)
        except InputError as exc:
            self.notice = list(exc.problems)
            return False
        self.branch.data = data
        self.notice = []
        return True

    def draft(self) -> dict[str, Any]:
        return copy.deepcopy(self.branch.data)

    # ------------------------------------------------------------ the game

    def set_game(self, ruleset: str, dealer: str, score: dict[str, int], event: str, note: str = "") -> bool:
        data = self.draft()
        header = data["header"]
        try:
            rules = self.named(ruleset)
        except UnknownRuleset as exc:
            self.notice = [unknown_ruleset(exc, "unknown_ruleset.game")]
            return False
        was = header["ruleset"]
        header["ruleset"] = rules.name
        header.pop("hash", None)  # a hash names the rules it was written for; the ruleset changed
        seats = tables_for(rules).seat_ids
        header["dealer"] = dealer if dealer in seats or rules.name == was else seats[-1]  # another game's seats
        if score:
            header["score"] = score
        else:
            header.pop("score", None)
        for key, text in (("event", event), ("note", note)):
            if text.strip():
                header[key] = text.strip()
            else:
                header.pop(key, None)
        if not self.change(data):
            return False
        if not _fits(tables_for(rules), self.branch.picks):
            self.branch.picks = ()  # cards picked for another game's seats or pack: this game's deal starts afresh
        return True

    def add_rules_file(self, text: str, filename: str) -> bool:
        """A ruleset of one's own, given as content and checked as ``vitou spec check`` checks a file.

        A published name with other rules is refused there (VERSION_REUSED); with the same rules, the
        published ruleset is the one used. A name already uploaded here keeps its first rules.
        """
        result = check_text(text, filename or self.say("source.rules"))
        if not result.ok or result.ruleset is None:
            self.notice = list(result.problems)
            return False
        rules = result.ruleset
        had = self.custom.get(rules.name)
        if had is not None and had.content_hash != rules.content_hash:
            self.notice = [said("rules_in_use", name=rules.name, hash=had.content_hash)]
            return False
        if rules.name not in shipped_names():
            self.custom[rules.name] = rules
        event = str(self.branch.data["header"].get("event", ""))
        if self.set_game(rules.name, tables_for(rules).seat_ids[-1], {}, event):
            self.info = [Warned(w) for w in result.warnings]
            return True
        if had is None:
            self.custom.pop(rules.name, None)  # refused whole: the upload is not kept either
        return False

    def set_deal(self, index: int, deal: dict[str, Any]) -> bool:
        data = self.draft()
        if not 0 <= index <= len(data["deals"]):
            self.notice = [said("no_deal", deal=index + 1, n=len(data["deals"]))]
            return False
        if index == len(data["deals"]):
            data["deals"].append(deal)
        else:
            data["deals"][index] = deal
        return self.change(data)

    def drop_deal(self, index: int) -> bool:
        data = self.draft()
        if 0 <= index < len(data["deals"]):
            del data["deals"][index]
        return self.change(data)

    # ------------------------------------------------------------ actions and claims

    def add_actions(self, actions: list[Any]) -> bool:
        data = self.draft()
        data["actions"] = [*data["actions"], *actions]
        return self.change(data)

    def add_typed(self, text: str) -> bool:
        """An action typed in the notation, as the table said it: a claimed or an illegal one too."""
        rules = self.check(self.branch.data).rules
        parsed, problems = parse_notation(text, tables_for(rules), self.say("source.typed"))
        if problems or not parsed:
            self.notice = [*problems] or [said("typed.empty")]
            return False
        return self.add_actions([p.action for p in parsed])

    def undo(self) -> bool:
        data = self.draft()
        if data["actions"]:
            n = len(data["actions"])
            data["actions"] = data["actions"][:-1]
            _drop_from(data, n)
        return self.change(data)

    def add_claim(self, at: int, by: str, claim: str, asserts: str) -> bool:
        data = self.draft()
        entry: dict[str, Any] = {"at": at, "claim": claim}
        if by:
            entry["by"] = by
        if asserts:
            entry["asserts"] = asserts
        data["claims"] = [*data.get("claims", []), entry]
        return self.change(data)

    def drop_claim(self, k: int) -> bool:
        data = self.draft()
        claims = data.get("claims", [])
        if 0 <= k < len(claims):
            del claims[k]
        if not claims:
            data.pop("claims", None)
        return self.change(data)

    # ------------------------------------------------------------ what-ifs

    def branch_at(self, n: int) -> bool:
        """A what-if: the record up to action ``n`` (1-based) excluded, to be played on otherwise."""
        if len(self.branches) >= MAX_BRANCHES:
            self.notice = [said("max_records", n=MAX_BRANCHES)]
            return False
        data = self.draft()
        if not 1 <= n <= len(data["actions"]) + 1:
            self.notice = [said("no_action", n=n)]
            return False
        data["actions"] = data["actions"][: n - 1]
        _drop_from(data, n)
        was = self.branch
        name = say("en", "record.what_if", record=was.name, n=n)
        self.branches.append(Branch(name, data, was.base, (*was.at, n)))
        self.current = len(self.branches) - 1
        self.notice = []
        return True

    def new_record(self) -> bool:
        """An empty record beside the others, under the ruleset in use, shown at once: the next hand to rule.

        The records entered so far stay one click away; a comparison chosen for them is not carried over.
        """
        if len(self.branches) >= MAX_BRANCHES:
            self.notice = [said("max_records", n=MAX_BRANCHES)]
            return False
        rules = self.check(self.branch.data).rules
        header = {"ruleset": rules.name, "dealer": tables_for(rules).seat_ids[-1]}
        data: dict[str, Any] = {"format": 1, "header": header, "deals": [], "actions": []}
        # The desk numbered each new record itself: its number is the desk's own, not a text to read.
        numbers: list[int] = [
            dict(b.base.params)["n"] for b in self.branches if isinstance(b.base, Said) and _is_new(b)
        ]
        n = 1 + max(numbers, default=1)
        self.branches.append(Branch(say("en", "record.new", n=n), data, said("record.new", n=n)))
        self.current = len(self.branches) - 1
        self.compare_with = None
        self.notice = []
        return True

    def switch(self, i: int) -> bool:
        if 0 <= i < len(self.branches):
            self.current = i
            return True
        return False

    def drop_branch(self, i: int) -> bool:
        if len(self.branches) > 1 and 0 <= i < len(self.branches):
            del self.branches[i]
            self.current = min(self.current, len(self.branches) - 1) if i >= self.current else self.current - 1
        return True

    def set_compare(self, ruleset: str) -> bool:
        if not ruleset:
            self.compare_with = None
            return True
        try:
            rules = self.named(ruleset)
        except UnknownRuleset as exc:
            self.notice = [unknown_ruleset(exc, "unknown_ruleset.compare")]
            return False
        self.compare_with = rules.name
        self.notice = []
        return True

    # ------------------------------------------------------------ keep and hand over

    def load(self, text: str | bytes, name: str) -> bool:
        """A record read from a file or a shipped dispute, kept as a new record beside the others."""
        if len(self.branches) >= MAX_BRANCHES:
            self.notice = [said("max_records", n=MAX_BRANCHES)]
            return False
        try:
            record, _ = read_record(text, name, self._custom_of(text, name))
        except InputError as exc:
            self.notice = list(exc.problems)
            return False
        data = record.to_json()
        self.branches.append(Branch(name, data, name))
        self.current = len(self.branches) - 1
        if not self.change(data):
            del self.branches[self.current]
            self.current -= 1
            return False
        return True

    def _custom_of(self, text: str | bytes, name: str) -> Ruleset | None:
        """The ruleset given as a file that a record names, if it names one; the loader reads the rest."""
        if not self.custom:
            return None
        try:
            header = load_text(text, name, max_bytes=MAX_RECORD_BYTES).data.get("header")
        except (InputError, AttributeError):
            return None
        return self.rules_for(str(header.get("ruleset"))) if isinstance(header, dict) else None

    def yaml(self) -> str:
        """The current record as `vitou record` writes it: the canonical YAML the kit reads."""
        return dump_record(self.check(self.branch.data).record.to_json(), "yaml")


def _fits(t: Any, picks: tuple[tuple[str, str], ...]) -> bool:
    """Whether cards picked so far are a deal begun under ``t``'s game: its seats, its pack, its cards each, and its
    turn-up if it turns one up."""
    pack = {t.card(x).text for x in t.deck} | {"?"}
    most = {**{s: t.cards_each for s in t.seat_ids}, **({TURN_UP: 1} if t.turn_up else {})}
    counts = {s: 0 for s in most}
    for seat, card in picks:
        if seat not in counts or card not in pack:
            return False
        counts[seat] += 1
    return all(n <= most[s] for s, n in counts.items())


def _is_new(b: Branch) -> bool:
    """A record the referee started with New record: each is numbered, the first after the main one 2."""
    return isinstance(b.base, Said) and b.base.key == "record.new"


def _drop_from(data: dict[str, Any], n: int) -> None:
    """Claims and notes on actions from ``n`` on: they spoke of actions no longer in the record."""
    for key in ("claims", "annotations"):
        kept = [c for c in data.get(key, []) if c.get("at", 0) < n]
        if kept:
            data[key] = kept
        else:
            data.pop(key, None)


def shipped() -> list[str]:
    return shipped_names()


__all__ = ["LANGS", "Branch", "Checked", "Desk", "shipped"]
