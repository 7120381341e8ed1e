"""The desk's operations: a form checked field by field, then carried out on the desk, or refused whole."""

from __future__ import annotations

import base64
import hashlib
import os
import sys
import time
import traceback
import urllib.parse
from typing import Any

from ..audit.record import MAX_RECORD_BYTES
from ..protocol.wire import WireError, loads
from ..rules.data import data_dir
from ..rules.files import read_path, write_file
from ..rules.reader import ReadError, whole
from .forms import disputes
from .state import LANGS, MAX_ACTIONS, MAX_BRANCHES, Desk, parse_deal

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
    "deal": ("deal", "paste", "card-*"),
    "drop_deal": ("deal",),
    "act": ("action",),
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
}
COMMON = ("token", "op", "rev")  # what every form of the page carries: the secret, the operation, the revision
MULTI = ("card-",)  # the only fields that come more than once: the cards checked for a seat

# The fields that carry a number, by operation, each read by the one reader in its range (ASCII digits only): what
# it is, the range, and whether a person types it (a bad one is said on the page) or the page writes it (a hidden
# field or a number box: a bad one is a forged or stale form, refused outright).
_DEAL = ("a deal's index", 0, MAX_DEALS, False)
_AT = ("an action's number", 1, MAX_ACTIONS + 1, False)  # a number box: the browser sends digits in range
_BRANCH = ("a record's index", 0, MAX_BRANCHES - 1, False)
NUMBERS: dict[tuple[str, str], tuple[str, int, int, bool]] = {
    ("game", "score-*"): ("a score", 0, MAX_SCORE, True),
    ("deal", "deal"): _DEAL,
    ("drop_deal", "deal"): _DEAL,
    ("claim", "at"): _AT,
    ("drop_claim", "claim"): ("a claim's index", 0, MAX_CLAIMS, False),
    ("branch", "at"): _AT,
    ("switch", "branch"): _BRANCH,
    ("drop_branch", "branch"): _BRANCH,
}


class Refused(Exception):
    """A request the desk will not act on: its status and why, in words."""

    def __init__(self, status: int, why: str) -> None:
        super().__init__(why)
        self.status = status


def check_form(body: bytes) -> tuple[str, Form]:
    """The operation and its fields, or Refused: unknown operation or field, a field given twice, bad UTF-8."""
    try:
        text = body.decode("utf-8")
        pairs = urllib.parse.parse_qsl(text, keep_blank_values=True, max_num_fields=MAX_FIELDS, errors="strict")
    except (UnicodeDecodeError, ValueError) as exc:
        raise Refused(400, f"the form cannot be read: {exc}") from None
    form: Form = {}
    for k, v in pairs:
        form.setdefault(k, []).append(v)
    op = _one(form, "op")
    if op not in FIELDS:
        raise Refused(400, f"unknown operation {op[:40]!r}")
    allowed = FIELDS[op]
    for name, values in form.items():
        if name not in (*COMMON, *allowed) and not any(a.endswith("*") and name.startswith(a[:-1]) for a in allowed):
            # A save never takes a file name or a path: the desk names the file, in the folder given at start.
            raise Refused(400, f"operation {op} takes no field {name[:40]!r}")
        if len(values) > 1 and not name.startswith(MULTI):
            raise Refused(400, f"the field {name[:40]!r} is given {len(values)} times")
    return op, form


def _one(form: Form, name: str, default: str | None = None) -> str:
    values = form.get(name)
    if not values:
        if default is None:
            raise Refused(400, f"the field {name!r} is missing")
        return default
    if len(values) > 1:
        raise Refused(400, f"the field {name!r} is given {len(values)} times")
    return values[0]


class Unread(Exception):
    """A number a person typed that is not one: said on the page, and the record is kept as it was."""


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
    try:
        return whole(_one(form, name), lo=lo, hi=hi, what=what)
    except ReadError as exc:
        if typed:
            raise Unread(f"{name}: {exc}") from None
        raise Refused(400, f"the field {name!r}: {exc}") from None


def _action(text: str) -> Any:
    try:
        action = loads(text, max_depth=MAX_DEPTH)
    except WireError as exc:
        raise Refused(400, f"the action is not JSON of a protocol action: {exc}") from None
    if not isinstance(action, dict):
        raise Refused(400, "a protocol action is a JSON object")
    return action


STALE = (
    "This page was out of date: the desk had changed since it was shown (in another tab?). Nothing was done; "
    "here is the desk as it is now."
)


def apply(desk: Desk, op: str, form: Form) -> str:
    """Carry out one operation on the desk; the anchor of the page to show next.

    A form made at another revision of the desk than this one is not carried out: what its fields point at
    (the second record, the third deal, the action after the last) may no longer be what its page showed.
    """
    if "rev" in form:
        try:
            made_at = whole(_one(form, "rev"), what="the page's revision")
        except ReadError as exc:
            raise Refused(400, f"the field 'rev': {exc}") from None
        if made_at != desk.revision:
            desk.notice = [STALE]
            return ""
    before = desk.snapshot()
    try:
        anchor = _apply(desk, op, form)
    except Unread as exc:
        desk.notice = [str(exc)]
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
        raise Refused(400, f"unknown language {lang[:20]!r}")
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
            deal = parse_deal(paste, ())
        except Exception as exc:  # the loader's located problem, shown as any refused entry is
            desk.notice = [str(p) for p in getattr(exc, "problems", ())] or [str(exc)]
            return "deals"
    else:
        deal = {k[len("card-") :]: v for k, v in form.items() if k.startswith("card-")}
        deal = _in_seat_order(desk, deal)  # the seats in the ruleset's order, as a record writes them
    desk.set_deal(index, deal)
    return f"deal-{index + 1}"


def _in_seat_order(desk: Desk, deal: dict[str, list[str]]) -> dict[str, list[str]]:
    from ..engine.tables import tables_for

    seat_ids = tables_for(desk.check(desk.branch.data).rules).seat_ids
    out = {s: deal.get(s, []) for s in seat_ids}
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
            raise Refused(400, f"no shipped dispute {name[:60]!r}")
        path = data_dir("conformance") / "disputes" / name
        desk.load(read_path(str(path), max_bytes=MAX_RECORD_BYTES), name)
        return "rulings"
    desk.load(_one(form, "text"), os.path.basename(_one(form, "filename", "")) or "the record loaded")
    return "rulings"


def save_into(desk: Desk) -> str | None:
    """The record written into the folder given at start, under a name the desk makes; never over a file."""
    if desk.save_dir is None:
        raise Refused(403, "the desk was started without --save-dir: save through the browser's download")
    text = desk.yaml()
    stem = time.strftime("record-%Y%m%d-%H%M%S")
    for k in range(100):
        name = f"{stem}.yaml" if k == 0 else f"{stem}-{k + 1}.yaml"
        try:
            write_file(os.path.join(desk.save_dir, name), text)
        except FileExistsError:
            continue
        except OSError as exc:  # the folder removed, made read-only or filled since the desk started
            desk.notice = [f"the record was not saved: the folder given at start cannot be written ({exc.strerror})"]
            return None
        desk.notice = []
        desk.info = f"saved as {name} in the folder given at start"
        return name
    raise Refused(409, "too many records saved this second")


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
    "save_into",
]
