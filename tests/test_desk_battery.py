"""Every operation of the desk and every field it takes, from the desk's own form definitions, fed hostile values.

The operations and their fields are read from ``vitou_ref.desk.ops.FIELDS``, the very table the desk checks a
form against, and the page's forms are held to it: a field added to a form is attacked here without a word
written, and a form that sends a field the table does not name fails. Each probe goes over HTTP to a desk
served in a thread; whatever it sends, the desk never answers 5xx, never shows what is in a file of the
referee's that it does not ship, and a request it refuses leaves its records as they were.
"""

from __future__ import annotations

import contextlib
import copy
import http.client
import json
import os
import socket
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from deskserver import SECTION_05, Served, served
from helpers import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vitou_ref.desk.ops import COMMON, FIELDS, MAX_BODY, number_field
from vitou_ref.rules.reader import is_whole

MARKER = "battery-marker-5b1e0c"  # in files of the referee's that no request may make the desk read
PARTNERS = ROOT / "spec" / "profiles" / "vitou-partners-tie-1.0.0.yaml"
WILD = "\u202ex"  # a seat or side no ruleset has, with a bidi override in its name
EXAMPLES, SLOW_EXAMPLES = 150, 3000


def _concrete(name: str) -> list[str]:
    """A field name as forms send it: a wildcard (``score-*``) as a side the rules know and as one they do not."""
    if not name.endswith("*"):
        return [name]
    known = {"score-": "NS", "card-": "N"}.get(name[:-1], "N")
    return [name[:-1] + known, name[:-1] + WILD]


def _defined() -> list[tuple[str, str]]:
    """(operation, field) for every field of every operation, as the desk's table defines them."""
    return [(op, name) for op, names in FIELDS.items() for name in names]


PAIRS = [(op, c) for op, name in _defined() for c in _concrete(name)] + [("undo", n) for n in COMMON]


# ------------------------------------------------------------------ the hostile values


def _marker_files(folder: Path) -> list[str]:
    """Files outside the shipped set that the desk must never read on a request's word, and ways to name them."""
    plain = folder / "private.txt"
    plain.write_text(f"{MARKER}: first line\n", encoding="utf-8")
    rules = folder / "rules.yaml"
    rules.write_text(PARTNERS.read_text(encoding="utf-8").replace("vitou-partners-tie", MARKER), encoding="utf-8")
    record = folder / "record.yaml"
    record.write_text(f"format: 1\nheader: {{ruleset: vitou/1.0.0, dealer: W, note: {MARKER}}}\n", encoding="utf-8")
    (folder / "club").mkdir()
    (folder / "club" / "1.0.0").write_text(f"{MARKER}\n", encoding="utf-8")
    paths = [str(p) for p in (plain, rules, record, folder / "club" / "1.0.0")]
    return [
        *paths,
        *(os.path.relpath(p) for p in paths),
        *(Path(p).as_uri() for p in paths),
        "../" * 12 + str(rules).lstrip("/"),
        str(rules).replace("/", "\\"),
    ]


YAML_BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8)
)
FIXED = [
    *("", "0", "1", "-1", "+1", "-0", "00", "9" * 5000, "1" + "0" * 30, " 1", "1 ", "1.5", "1e3", "0x10"),
    *("²", "١٢", "٣", "１２", "𝟙𝟚", "Ⅻ", "৪"),
    *("\x00", "1\x00", "\x1b[2J", "\r\nSet-Cookie: x=1", "\u202e", "\u202eevil\u202c", "\u2066x\u2069", "\ufeff1"),
    "\ud800",  # a lone surrogate: sent as the bytes it would be, which are not UTF-8
    *("/etc/passwd", "../../x", "..\\..\\x", "~/.ssh/id_rsa", "file:///etc/passwd", "/dev/zero", "/proc/self/environ"),
    *("x" * 100_000, "y" * 1_000_000, "<script>alert(1)</script>", YAML_BOMB, "[" * 5000 + "]" * 5000, "{}"),
    *("vitou/1.0.0", "vitou", "le-truc/1.0.0", "vitou/9.9.9", "01-section-05-refusal.yaml", "expected.yaml"),
    '{"seat": "S", "act": "refuse"}',
]


# One of each kind, for the sweep of every field; the battery's drawn half takes from all of FIXED and beyond.
SWEEP = [
    *("", "0", "-1", "9" * 5000, " 1", "1e3", "²", "١٢", "𝟙", "\x00", "\x1b[2J", "\u202eevil\u202c", "\ud800"),
    *("/etc/passwd", "../../x", "y" * 1_000_000, YAML_BOMB, "[" * 5000 + "]" * 5000, "<script>alert(1)</script>"),
    "vitou/9.9.9",
    *("N r²", "N r" + "9" * 5000, '{"seat": "N", "act": "raise", "to": ' + "9" * 5000 + "}"),  # numbers within
]
SWEPT_PATHS = (0, 5, 7, 8, 12)  # of the ways to name a file: absolute, relative, name-like, file:, ../../


@dataclass(frozen=True)
class PathOf:
    """One of the battery's ways to name a file of the referee's, drawn by its index."""

    index: int


def hostile() -> st.SearchStrategy[str | PathOf]:
    digits = st.characters(categories=["Nd", "No", "Nl"])
    return st.one_of(
        st.sampled_from(sorted({*FIXED, *SWEEP})),
        st.text(max_size=40),
        st.text(alphabet=digits, min_size=1, max_size=6),
        st.integers(-(10**6), 10**30).map(str),
        st.from_regex(r"[0-9]{1,6}", fullmatch=True),
        st.binary(max_size=30).map(lambda b: b.decode("latin-1")),
        st.integers(0, 100).map(PathOf),
    )


# ------------------------------------------------------------------ the desk under attack


@dataclass(repr=False)  # a falsifying example shows its field, value and shape, not the whole desk
class Battery:
    served: Served
    paths: list[str]  # the ways to name the referee's own files
    start: dict[str, Any]  # the desk's state each probe starts from
    base: dict[str, dict[str, str | list[str]]]  # a valid form of each operation
    probes: int = 0
    reached: set[tuple[str, str]] = field(default_factory=set)

    def __repr__(self) -> str:
        return "battery"

    def values(self) -> list[str]:
        return [*SWEEP, *(self.paths[i] for i in SWEPT_PATHS)]

    def value(self, drawn: str | PathOf) -> str:
        return self.paths[drawn.index % len(self.paths)] if isinstance(drawn, PathOf) else drawn


def _state(s: Served) -> dict[str, Any]:
    d = s.desk
    with d.lock:
        return {
            "branches": copy.deepcopy(d.branches),
            "current": d.current,
            "compare_with": d.compare_with,
            "custom": dict(d.custom),
            "lang": d.lang,
        }


def _records(s: Served) -> str:
    """What a refused request must leave as it was: every record, which one is shown, and what is chosen."""
    d = s.desk
    with d.lock:
        kept = {
            "records": [(b.name, b.data) for b in d.branches],
            "current": d.current,
            "compare": d.compare_with,
            "custom": sorted((n, r.content_hash) for n, r in d.custom.items()),
            "lang": d.lang,
        }
    return json.dumps(kept, sort_keys=True, default=str)


def _reset(b: Battery) -> None:
    d = b.served.desk
    with d.lock:
        d.branches = copy.deepcopy(b.start["branches"])
        d.current, d.compare_with, d.lang = b.start["current"], b.start["compare_with"], b.start["lang"]
        d.custom = dict(b.start["custom"])
        d.notice, d.info = [], ""


def _bases(s: Served) -> dict[str, dict[str, str | list[str]]]:
    saved = s.get("record.yaml")[1]
    club = PARTNERS.read_text(encoding="utf-8").replace("id: vitou-partners-tie", "id: club-battery")
    grid = {"card-N": ["AS", "7H", "8C"], "card-E": ["9C", "KD", "JH"], "card-S": ["10H", "QS", "8D"]}
    return {
        "game": {"ruleset": "vitou/1.0.0", "lang": "en", "dealer": "W", "event": "e", "note": "", "score-NS": "0"},
        "rules_file": {"text": club, "filename": "club.yaml"},
        "deal": {"deal": "0", "paste": "", **grid, "card-W": ["7C", "AD", "9S"]},
        "drop_deal": {"deal": "0"},
        "act": {"action": '{"seat": "S", "act": "refuse"}'},
        "typed": {"text": "S refuse"},
        "claim": {"at": "1", "by": "E", "claim": "c", "asserts": "legal"},
        "drop_claim": {"claim": "0"},
        "branch": {"at": "2"},
        "switch": {"branch": "1"},
        "drop_branch": {"branch": "1"},
        "compare": {"ruleset": "vitou-partners-tie/1.0.0"},
        "dispute": {"name": "02-refusal-not-follower.yaml"},
        "load": {"text": saved, "filename": "saved.yaml"},
        "pick": {"seat": "N", "card": "AS", "fill": ""},
        "other": {"who": "S", "what": "refuse"},
    }


@pytest.fixture(scope="module")
def battery(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[Battery]:
    started = time.monotonic()
    folder = tmp_path_factory.mktemp("battery")
    (folder / "saved").mkdir()
    with served(str(folder / "saved")) as s:
        s.server.RequestHandlerClass.timeout = 2  # type: ignore[attr-defined]  # a body that stops coming
        for op, fields in [
            ("game", {"ruleset": "vitou/1.0.0", "dealer": "W"}),
            ("deal", {"deal": "0", "paste": SECTION_05}),
            ("typed", {"text": "N r3 N AS E r6 E 9C"}),
            ("claim", {"at": "2", "by": "N", "claim": "mine", "asserts": "legal"}),
            ("branch", {"at": "4"}),
            ("switch", {"branch": "0"}),
        ]:
            status, html = s.post(op, fields)
            assert status == 200 and 'id="problems"' not in html, (op, html[-500:])
        b = Battery(s, _marker_files(folder), _state(s), _bases(s))
        yield b
    said = f"desk battery: {b.probes} requests in all, in {time.monotonic() - started:.1f} s"
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
        print("\n" + said)  # said in every run, as the sweep's count is


# ------------------------------------------------------------------ one probe


def _encode(pairs: list[tuple[str, str]]) -> bytes:
    # surrogatepass: a lone surrogate goes out as the bytes a careless encoder makes of it, which are not UTF-8
    return "&".join(
        urllib.parse.quote_plus(k.encode("utf-8", "surrogatepass"))
        + "="
        + urllib.parse.quote_plus(v.encode("utf-8", "surrogatepass"))
        for k, v in pairs
    ).encode("ascii")


def _pairs(b: Battery, op: str, name: str | None, value: str) -> list[tuple[str, str]]:
    """The valid form of ``op`` with ``value`` in field ``name`` (in place of, or besides, what is there)."""
    fields: dict[str, str | list[str]] = {"token": b.served.secret, "op": op, **b.base.get(op, {})}
    if name is not None:
        fields[name] = value
    out: list[tuple[str, str]] = []
    for k, v in fields.items():
        out += [(k, x) for x in v] if isinstance(v, list) else [(k, v)]
    return out


def _send(s: Served, body: bytes, headers: list[tuple[str, bytes]], *, short: bool = False) -> tuple[int, bytes]:
    """A POST over http.client with headers as bytes (any length, any digits); ``short``: the client stops there."""
    host, port = s.origin.split("//")[1].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        conn.putrequest("POST", f"/{s.secret}/do", skip_accept_encoding=True)
        for k, v in headers:
            conn.putheader(k, v)
        conn.endheaders()
        with contextlib.suppress(OSError):  # the desk may close a connection whose body it will not read
            conn.send(body)
            if short:
                assert conn.sock is not None
                conn.sock.shutdown(socket.SHUT_WR)
        reply = conn.getresponse()
        return reply.status, reply.read()
    finally:
        conn.close()


FORM = ("Content-Type", b"application/x-www-form-urlencoded")


def _length(n: int | bytes) -> tuple[str, bytes]:
    return ("Content-Length", n if isinstance(n, bytes) else str(n).encode())


# How a request may be made wrong besides its fields: each the headers it gets, its body, and whether it stops short.
# Over the bound, the body itself is not sent: the desk answers before reading it, and a client still sending
# would see its connection reset, the answer lost.
SHAPES: dict[str, Any] = {
    "plain": lambda body: ([FORM, _length(len(body))], body, False),
    "length in other digits": lambda body: ([FORM, _length("²".encode("latin-1"))], body, False),
    "length in Arabic-Indic digits": lambda body: ([FORM, _length("١٢".encode())], body, False),
    "length of 5000 digits": lambda body: ([FORM, _length(b"9" * 5000)], body, False),
    "negative length": lambda body: ([FORM, _length(b"-1")], body, False),
    "two lengths": lambda body: ([FORM, _length(len(body)), _length(3)], body, False),
    "no length": lambda body: ([FORM], body, True),
    "body shorter than its length": lambda body: ([FORM, _length(len(body) + 9)], body, True),
    "length over the bound": lambda body: ([FORM, _length(MAX_BODY + 1)], body, False),
    "json": lambda body: ([("Content-Type", b"application/json"), _length(2)], b"{}", False),
    "multipart": lambda body: ([("Content-Type", b"multipart/form-data; boundary=x"), _length(len(body))], body, False),
    "no type": lambda body: ([_length(len(body))], body, False),
}


def _probe(b: Battery, op: str, name: str | None, value: str, shape: str = "plain", twice: bool = False) -> int:
    """One request, and what must hold after it; the status it got."""
    s = b.served
    _reset(b)
    before = _records(s)
    pairs = _pairs(b, op, name, value)
    if twice:  # every field given twice
        pairs = pairs + [p for p in pairs if p[0] != "token"]
    headers, body, short = SHAPES[shape](_encode(pairs))
    host, port = s.origin.split("//")[1].split(":")
    headers = [("Host", f"{host}:{port}".encode()), *headers]
    status, said = _send(s, body, headers, short=short)
    b.probes += 1
    what = f"{op}.{name}={value[:40]!r} as {shape}"
    assert status == 303 or 400 <= status < 500, f"{what}: {status} {said[:200]!r}"
    assert MARKER.encode() not in said, what
    page_status, page = s.get()
    assert page_status == 200, f"{what}: the page then answers {page_status}"
    assert MARKER not in page, f"{what}: a file of the referee's is on the page"
    refused = status != 303 or 'id="problems"' in page
    if refused:
        assert _records(s) == before, f"{what}: refused ({status}), yet the records changed"
    if name is not None and not _a_number_for(op, name, value):
        assert refused, f"{what}: a number that is not one was taken"
    if name is not None:
        b.reached.add((op, name))
    return status


def _a_number_for(op: str, name: str, value: str) -> bool:
    """Whether ``value`` may be taken in field ``name`` of ``op``: any text, unless the field carries a number."""
    spec = number_field(op, name)
    if spec is None:
        return True
    _, lo, hi, typed = spec
    if typed and value == "":  # a score left blank: no points yet
        return True
    return is_whole(value) and lo <= int(value) <= hi


# ------------------------------------------------------------------ the tests


class _Forms(HTMLParser):
    """Each form on a page: its operation and the names of the fields it sends."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[tuple[str, set[str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "form":
            self.forms.append(("", set()))
        elif tag in ("input", "select", "textarea", "button") and a.get("name") and self.forms:
            names = self.forms[-1][1]
            if a["name"] == "op" and a.get("value"):
                self.forms[-1] = (str(a["value"]), names)
            elif a.get("type") != "file":
                names.add(str(a["name"]))


def _on_page(b: Battery) -> dict[str, set[str]]:
    """The fields each operation's forms send on the desk's page, as a browser would send them."""
    _reset(b)
    parser = _Forms()
    parser.feed(b.served.get()[1])
    # A record with no deal yet: the page offers the picker of the next deal's cards there, and only there.
    status, html = b.served.post("new")
    assert status == 200 and 'id="pick-form"' in html
    parser.feed(html)
    _reset(b)
    on_page: dict[str, set[str]] = {}
    for op, names in parser.forms:
        on_page.setdefault(op, set()).update(names)
    return on_page


def _definition(op: str, name: str) -> str | None:
    """The entry of FIELDS[op] that takes field ``name`` (``card-*`` takes ``card-E``), if one does."""
    return next((d for d in FIELDS[op] if d == name or (d.endswith("*") and name.startswith(d[:-1]))), None)


def test_the_definitions_name_every_field_of_every_form_on_the_page(battery: Battery) -> None:
    on_page = _on_page(battery)
    assert set(on_page) == set(FIELDS), "an operation the page offers and the table does not define, or the reverse"
    unnamed = {(op, n) for op, names in on_page.items() for n in names - set(COMMON) if _definition(op, n) is None}
    assert unnamed == set(), "fields a form sends that the desk's table does not take"
    assert all(op in battery.base or not FIELDS[op] for op in FIELDS), "an operation with no valid form here"


def test_every_field_of_every_operation_with_every_hostile_value(
    battery: Battery, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    for op, name in PAIRS:
        for value in battery.values():
            _probe(battery, op, name, value)
    seconds = time.monotonic() - started
    covered = {(op, _definition(op, n)) for op, n in battery.reached if n not in COMMON}
    common = {n for _, n in battery.reached if n in COMMON}
    with capsys.disabled():  # said in every run: how much the battery covered, and how long it took
        print(
            f"\ndesk battery: {len(covered)} fields of {len(FIELDS)} operations (and {len(common)} every form "
            f"carries), {len(battery.values())} values each, {battery.probes} requests in {seconds:.1f} s"
        )
    # Every field a form of the page sends, and every field the table takes, was sent every hostile value.
    sent = {(op, _definition(op, n)) for op, names in _on_page(battery).items() for n in names - set(COMMON)}
    assert sent <= covered, f"fields on the page the battery did not reach: {sent - covered}"
    assert covered == set(_defined()) and common == set(COMMON)
    assert len(covered) == sum(len(v) for v in FIELDS.values())


def test_every_operation_in_every_wrong_shape_of_request(battery: Battery) -> None:
    for op in FIELDS:
        for shape in SHAPES:
            status = _probe(battery, op, None, "", shape)
            assert shape == "plain" or status >= 400, f"{op} as {shape}: {status}"
        assert _probe(battery, op, None, "", twice=True) == 400 or not FIELDS[op]


def _hypothesis(examples: int) -> Any:
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


@_hypothesis(EXAMPLES)
@given(pair=st.sampled_from(PAIRS), value=hostile(), shape=st.sampled_from(sorted(SHAPES)), twice=st.booleans())
def test_drawn_fields_values_and_shapes(
    battery: Battery, pair: tuple[str, str], value: str | PathOf, shape: str, twice: bool
) -> None:
    _probe(battery, *pair, battery.value(value), shape, twice)


@pytest.mark.slow
@_hypothesis(SLOW_EXAMPLES)
@given(pair=st.sampled_from(PAIRS), value=hostile(), shape=st.sampled_from(sorted(SHAPES)), twice=st.booleans())
def test_many_more_drawn_fields_values_and_shapes(
    battery: Battery, pair: tuple[str, str], value: str | PathOf, shape: str, twice: bool
) -> None:
    _probe(battery, *pair, battery.value(value), shape, twice)
