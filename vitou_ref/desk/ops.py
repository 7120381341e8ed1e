"""The desk's operations: a form checked field by field, then carried out on the desk, or refused whole."""

from __future__ import annotations

import base64
import errno
import hashlib
import os
import sys
import time
import traceback
import urllib.parse
from typing import Any

from ..audit.record import MAX_RECORD_BYTES
from ..engine.setup import TURN_UP
from ..protocol.wire import WireError, loads
from ..rules.data import data_dir
from ..rules.files import read_path, write_file
from ..rules.reader import ReadError, whole
from .choices import other_action
from .forms import disputes
from .paste import parse_deal
from .picking import pick
from .state import LANGS, MAX_ACTIONS, MAX_BRANCHES, Desk
from .words import Quoted, Refused, Said, said

MAX_DEALS = 999  # far more deals than a match of twenty-odd hands holds
MAX_CLAIMS = 999
MAX_SCORE = 999_999_999  # what the score box takes (nine digits); a score past the target is the loader's to refuse

# A record or rules file is at most 1 MiB, and a form's encoding makes each of its bytes three at most (%XX).
MAX_BODY = 3 * MAX_RECORD_BYTES + 64 * 1024
MAX_FIELDS = 600  # a deal's grid is a field per card checked; nothing sends more
MAX_DEPTH = 4  # a protocol action nests two levels; JSON deeper than this is not one
TIMEOUT = 15  # seconds a client may take to send its request

Form = dict[str, list[str]]

# The fields each operation takes, besides token and op; a field of another name is refused (a path included).
FIELDS: dict[str, tuple[str, ...]] = {
    "game": ("ruleset", "lang", "dealer", "event", "note", "score-*"),
    "rules_file": ("text", "filename"),
    "deal": ("deal", "paste", "card-*", "turn_up"),
    "drop_deal": ("deal",),
    "act": ("action",),
    "pick": ("seat", "card", "fill"),
    "other": ("who", "what"),
    "typed": ("text",),
    "undo": (),
    "claim": ("at", "by", "claim", "asserts"),
    "drop_claim": ("claim",),
    "branch": ("at",),
    "switch": ("branch",),
    "drop_branch": ("branch",),
    "compare": ("ruleset",),
    "save": (),
    "dispute": ("name",),
    "load": ("text", "filename"),
    "new": (),
}
COMMON = ("token", "op", "rev")  # what every form of the page carries: the secret, the operation, the revision
MULTI = ("card-",)  # the only fields that come more than once: the cards checked for a seat

# The fields that carry a number, by operation, each read by the one reader in its range (ASCII digits only): what
# it is (its words' key), the range, and whether a person types it (a bad one is said on the page) or the page writes
# it (a hidden field or a number box: a bad one is a forged or stale form, refused outright).
_DEAL = ("number.deal", 0, MAX_DEALS, False)
_AT = ("number.action", 1, MAX_ACTIONS + 1, False)  # a number box: the browser sends digits in range
_BRANCH = ("number.branch", 0, MAX_BRANCHES - 1, False)
NUMBERS: dict[tuple[str, str], tuple[str, int, int, bool]] = {
    ("game", "score-*"): ("number.score", 0, MAX_SCORE, True),
    ("deal", "deal"): _DEAL,
    ("drop_deal", "deal"): _DEAL,
    ("claim", "at"): _AT,
    ("drop_claim", "claim"): ("number.claim", 0, MAX_CLAIMS, False),
    ("branch", "at"): _AT,
    ("switch", "branch"): _BRANCH,
    ("drop_branch", "branch"): _BRANCH,
}


def check_form(body: bytes) -> tuple[str, Form]:
    """The operation and its fields, or Refused: unknown operation or field, a field given twice, bad UTF-8."""
    try:
        text = body.decode("utf-8")
        pairs = urllib.parse.parse_qsl(text, keep_blank_values=True, max_num_fields=MAX_FIELDS, errors="strict")
    except (UnicodeDecodeError, ValueError):
        raise Refused(400, "refused.form") from None
    form: Form = {}
    for k, v in pairs:
        form.setdefault(k, []).append(v)
    op = _one(form, "op")
    if op not in FIELDS:
        raise Refused(400, "refused.op", op=Quoted(op))
    allowed = FIELDS[op]
    for name, values in form.items():
        if name not in (*COMMON, *allowed) and not any(a.endswith("*") and name.startswith(a[:-1]) for a in allowed):
            # A save never takes a file name or a path: the desk names the file, in the folder given at start.
            raise Refused(400, "refused.field", op=op, name=Quoted(name))
        if len(values) > 1 and not name.startswith(MULTI):
            raise Refused(400, "refused.twice", name=Quoted(name), n=len(values))
    return op, form


def _one(form: Form, name: str, default: str | None = None) -> str:
    values = form.get(name)
    if not values:
        if default is None:
            raise Refused(400, "refused.missing", name=Quoted(name))
        return default
    if len(values) > 1:
        raise Refused(400, "refused.twice", name=Quoted(name), n=len(values))
    return values[0]


class Unread(Exception):
    """A number a person typed that is not one: said on the page, and the record is kept as it was."""

    def __init__(self, why: Said) -> None:
        super().__init__(why.key)
        self.why = why


def read_number(text: str, field: str, what: str, lo: int, hi: int | None) -> tuple[int | None, Said]:
    """The number in ``text`` (ASCII digits in range, by the one reader), or None and why not, in the desk's words."""
    try:
        return whole(text, lo=lo, hi=hi, what=what), said("number")
    except ReadError:
        key = "number" if hi is not None else "number.any"
        return None, said(key, field=Quoted(field), value=Quoted(text), what=Said(what), lo=lo, hi=hi)


def number_field(op: str, name: str) -> tuple[str, int, int, bool] | None:
    """How field ``name`` of operation ``op`` is read, if it carries a number."""
    for (o, k), spec in NUMBERS.items():
        if o == op and (k == name or (k.endswith("*") and name.startswith(k[:-1]))):
            return spec
    return None


def _int(form: Form, op: str, name: str) -> int:
    """The number in field ``name``, read as NUMBERS says: Unread (typed) or Refused (hidden) when it is not one."""
    spec = number_field(op, name)
    if spec is None:  # every field read as a number is in NUMBERS, where the tests find it
        raise KeyError(f"{op}.{name} is not in NUMBERS")
    what, lo, hi, typed = spec
    value, why = read_number(_one(form, name), name, what, lo, hi)
    if value is not None:
        return value
    if typed:
        raise Unread(why)
    raise Refused(400, why.key, **dict(why.params))


def _action(text: str) -> Any:
    try:
        action = loads(text, max_depth=MAX_DEPTH)
    except WireError:
        raise Refused(400, "refused.action") from None
    if not isinstance(action, dict):
        raise Refused(400, "refused.object")
    return action


def apply(desk: Desk, op: str, form: Form) -> str:
    """Carry out one operation on the desk; the anchor of the page to show next.

    A form made at another revision of the desk than this one is not carried out: what its fields point at
    (the second record, the third deal, the action after the last) may no longer be what its page showed.
    """
    if "rev" in form:
        made_at, why = read_number(_one(form, "rev"), "rev", "number.rev", 0, None)
        if made_at is None:
            raise Refused(400, why.key, **dict(why.params))
        if made_at != desk.revision:
            desk.notice = [said("stale")]
            return ""
    before = desk.snapshot()
    try:
        anchor = _apply(desk, op, form)
    except Unread as exc:
        desk.notice = [exc.why]
        anchor = "game"
    if desk.snapshot() != before:
        desk.revision += 1
    return anchor


def _apply(desk: Desk, op: str, form: Form) -> str:
    if op == "game":
        return _game(desk, form)
    if op == "rules_file":
        desk.add_rules_file(_one(form, "text"), os.path.basename(_one(form, "filename", "")))
        return "game"
    if op in ("deal", "drop_deal"):
        return _deal(desk, op, form)
    if op in ("act", "typed", "undo"):
        return _act(desk, op, form)
    if op == "other":  # an action the legal ones' buttons do not offer, chosen in two menus
        other_action(desk, _one(form, "who"), _one(form, "what"))
        return "next"
    if op == "pick":  # dealing by clicks: the next deal's cards one by one, or not recorded
        pick(desk, _one(form, "seat", ""), _one(form, "card", ""), _one(form, "fill", ""))
        return "next"
    if op == "claim":
        desk.add_claim(_int(form, op, "at"), _one(form, "by", ""), _one(form, "claim"), _one(form, "asserts", ""))
        return "claims"
    if op == "drop_claim":
        desk.drop_claim(_int(form, op, "claim"))
        return "claims"
    return _records(desk, op, form)


def _game(desk: Desk, form: Form) -> str:
    lang = _one(form, "lang", desk.lang)
    if lang not in LANGS:
        raise Refused(400, "refused.lang", lang=Quoted(lang[:20]))
    given = [k for k in form if k.startswith("score-") and _one(form, k).strip()]
    # A side left blank has no points yet, once another side's are given; all blank: no starting score.
    score = {k[len("score-") :]: _int(form, "game", k) if k in given else 0 for k in form if k.startswith("score-")}
    event, note = _one(form, "event", ""), _one(form, "note", "")
    was = desk.lang
    desk.lang = lang  # the rulings of the game set are in its language; a refused game keeps the one there was
    if not desk.set_game(_one(form, "ruleset"), _one(form, "dealer", ""), score if given else {}, event, note):
        desk.lang = was
    return "game"


def _deal(desk: Desk, op: str, form: Form) -> str:
    index = _int(form, op, "deal")
    if op == "drop_deal":
        desk.drop_deal(index)
        return "deals"
    paste = _one(form, "paste", "").strip()
    if paste:
        try:
            deal = parse_deal(paste, (), desk.say("source.pasted"))
        except Exception as exc:  # the loader's located problem, shown as any refused entry is
            desk.notice = list(getattr(exc, "problems", ())) or [said("deal.unreadable")]
            return "deals"
    else:
        deal = {k[len("card-") :]: v for k, v in form.items() if k.startswith("card-")}
        deal = _in_seat_order(desk, deal)  # the seats in the ruleset's order, as a record writes them
        up = _one(form, "turn_up", "")
        if up:  # the card turned up, one choice of the grid: the loader says whether this game turns one up
            deal[TURN_UP] = up
    desk.set_deal(index, deal)
    return f"deal-{index + 1}"


def _in_seat_order(desk: Desk, deal: dict[str, list[str]]) -> dict[str, Any]:
    from ..engine.tables import tables_for

    seat_ids = tables_for(desk.check(desk.branch.data).rules).seat_ids
    out: dict[str, Any] = {s: deal.get(s, []) for s in seat_ids}
    out.update({s: c for s, c in deal.items() if s not in out})  # an unknown seat: the loader names it
    return out


def _act(desk: Desk, op: str, form: Form) -> str:
    if op == "undo":
        desk.undo()
    elif op == "act":
        desk.add_actions([_action(_one(form, "action"))])
    else:
        text = _one(form, "text").strip()
        if text.startswith("{"):
            desk.add_actions([_action(text)])
        else:
            desk.add_typed(text)
    return "next"


def _records(desk: Desk, op: str, form: Form) -> str:
    if op == "branch":
        desk.branch_at(_int(form, op, "at"))
        return "next"
    if op == "switch":
        desk.switch(_int(form, op, "branch"))
        return "rulings"
    if op == "drop_branch":
        desk.drop_branch(_int(form, op, "branch"))
        return "rulings"
    if op == "compare":
        desk.set_compare(_one(form, "ruleset", ""))
        return "compare"
    if op == "save":
        save_into(desk)
        return "keep"
    if op == "dispute":
        name = _one(form, "name")
        if name not in disputes():  # a name from the list, never a path
            raise Refused(400, "refused.dispute", name=Quoted(name))
        path = data_dir("conformance") / "disputes" / name
        desk.load(read_path(str(path), max_bytes=MAX_RECORD_BYTES), name)
        return "rulings"
    if op == "new":
        desk.new_record()
        return "game"
    desk.load(_one(form, "text"), os.path.basename(_one(form, "filename", "")) or desk.say("record.loaded"))
    return "rulings"


def save_into(desk: Desk) -> str | None:
    """The record written into the folder given at start, under a name the desk makes; never over a file."""
    if desk.save_dir is None:
        raise Refused(403, "refused.no_save_dir")
    text = desk.yaml()
    stem = time.strftime("record-%Y%m%d-%H%M%S")
    for k in range(100):
        name = f"{stem}.yaml" if k == 0 else f"{stem}-{k + 1}.yaml"
        try:
            write_file(os.path.join(desk.save_dir, name), text)
        except FileExistsError:
            continue
        except OSError as exc:  # the folder removed, made read-only or filled since the desk started
            # The error's name (ENOENT), not the system's English words for it: the same in every language.
            desk.notice = [said("not_saved", why=errno.errorcode.get(exc.errno or 0, "?"))]
            return None
        desk.notice = []
        desk.info = [said("saved", name=name)]
        return name
    raise Refused(409, "refused.saves")


def csp(*styles: str) -> str:
    """No script but the desk's own file, no style but the page's own (by their hashes), nothing from outside.

    ``styles`` are the texts of the page's style elements: the shared stylesheet and the page's own rules.
    """
    hashes = " ".join(
        f"'sha256-{base64.b64encode(hashlib.sha256(css.encode('utf-8')).digest()).decode('ascii')}'" for css in styles
    )
    return (
        f"default-src 'self'; script-src 'self'; style-src 'self' {hashes}; img-src 'self'; "
        "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    )


def log_error() -> None:
    traceback.print_exc(file=sys.stderr)


__all__ = [
    "COMMON",
    "FIELDS",
    "MAX_BODY",
    "NUMBERS",
    "Refused",
    "apply",
    "check_form",
    "csp",
    "number_field",
    "read_number",
    "save_into",
]
