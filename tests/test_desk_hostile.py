"""Forged requests to the desk: each refused, nothing written outside its folder, and the desk keeps serving."""

from __future__ import annotations

import contextlib
import http.client
import os
import socket
import urllib.parse
from pathlib import Path

import pytest
from deskserver import SECTION_05, Served, fetch, rulings, served

from vitou_ref.desk.ops import MAX_BODY

MARKUP = "<script>alert(1)</script><img src=x onerror=alert(2)>\"'&"


def _raw(s: Served, method: str, body: bytes = b"", headers: dict[str, str] | None = None, path: str = "do") -> int:
    host, port = s.origin.split("//")[1].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        conn.putrequest(method, f"/{s.secret}/{path}", skip_host="Host" in (headers or {}))
        for k, v in (headers or {}).items():
            conn.putheader(k, v)
        conn.endheaders()
        if body:
            with contextlib.suppress(OSError):  # the desk may close the connection before reading a body it refuses
                conn.send(body)
        return conn.getresponse().status
    finally:
        conn.close()


def _form(s: Served, op: str, **fields: str) -> bytes:
    return urllib.parse.urlencode({"token": s.secret, "op": op, **fields}).encode()


FORM = {"Content-Type": "application/x-www-form-urlencoded"}


@pytest.fixture
def desk(tmp_path: Path) -> Served:
    save = tmp_path / "saved"
    save.mkdir()
    with served(str(save)) as s:
        assert s.post("game", {"ruleset": "vitou/1.0.0", "dealer": "W"})[0] == 200
        assert s.post("deal", {"deal": "0", "paste": SECTION_05})[0] == 200
        assert s.post("typed", {"text": "N r3"})[0] == 200
        yield s


def _still_serving(s: Served, actions: int = 1) -> None:
    status, html = s.get()
    assert status == 200
    assert len(rulings(html)) == actions


def test_without_the_secret_nothing_is_served_or_changed(desk: Served) -> None:
    root = desk.url.rsplit("/", 2)[0]
    for url in (root + "/", root + "/do", root + "/x" + desk.secret + "/", root + "/" + desk.secret[:-1] + "/"):
        assert fetch(url)[0] == 403
        assert fetch(url, b"op=undo", FORM)[0] == 403
    body = urllib.parse.urlencode({"op": "undo"}).encode()
    assert fetch(desk.url + "do", body, FORM)[0] == 403  # the secret in the address but not in the form
    assert fetch(desk.url + "do", body + b"&token=wrong", FORM)[0] == 403
    _still_serving(desk)


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Host": "evil.example"},
        {"Host": "127.0.0.1:1"},
    ],
)
def test_a_change_from_another_origin_or_host_is_refused(desk: Served, headers: dict[str, str]) -> None:
    assert _raw(desk, "POST", _form(desk, "undo"), {**FORM, "Content-Length": "29", **headers}) == 403
    _still_serving(desk)


def test_another_host_gets_no_page_either(desk: Served) -> None:
    assert _raw(desk, "GET", headers={"Host": "rebound.example"}, path="") == 403


@pytest.mark.parametrize(
    "fields",
    [
        {"path": "/tmp/x.yaml"},
        {"name": "../../x.yaml"},
        {"filename": "x.yaml"},
        {"dir": "/tmp"},
    ],
)
def test_a_save_naming_a_path_is_refused_and_nothing_is_written_outside_the_folder(
    desk: Served, tmp_path: Path, fields: dict[str, str]
) -> None:
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    status, said = desk.post("save", fields)
    assert status == 400 and "takes no field" in said
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before
    assert desk.post("save")[0] == 200  # the desk's own save still works, into its folder only
    assert [p.parent.name for p in tmp_path.rglob("*.yaml")] == ["saved"]


def test_a_dispute_is_loaded_by_its_listed_name_only(desk: Served) -> None:
    for name in ("../../README.md", "/etc/passwd", "expected.yaml", "01-section-05-refusal.yaml/"):
        assert desk.post("dispute", {"name": name})[0] == 400
    _still_serving(desk)


@pytest.mark.parametrize(
    ("body", "headers", "status"),
    [
        (b"x" * 64, {"Content-Length": str(MAX_BODY + 1)}, 413),
        (b"op=undo", {"Transfer-Encoding": "chunked"}, 411),
        (b"op=undo", {}, 411),
        (b"{}", {"Content-Type": "application/json", "Content-Length": "2"}, 415),
        (b"--b--", {"Content-Type": "multipart/form-data; boundary=b", "Content-Length": "5"}, 415),
    ],
)
def test_bodies_too_big_unsized_or_of_another_kind_are_refused(
    desk: Served, body: bytes, headers: dict[str, str], status: int
) -> None:
    kind = {"Content-Type": "application/x-www-form-urlencoded"}
    assert _raw(desk, "POST", body, {**kind, **headers}) == status
    _still_serving(desk)


def test_forms_that_are_not_the_desks_are_refused(desk: Served) -> None:
    deep = "[" * 10000 + "]" * 10000
    cases = [
        (b"\xff\xfe=\x00", 400),  # not UTF-8
        (b"&".join(b"a%d=1" % i for i in range(5000)), 400),  # more fields than any form has
        (_form(desk, "nothing"), 400),
        (_form(desk, "act", action=deep), 400),  # nested beyond any action
        (_form(desk, "act", action='{"a":' * 50 + "1" + "}" * 50), 400),
        (_form(desk, "act", action="[1]"), 400),
        (_form(desk, "claim", at="99999999999999999999", claim="x"), 400),
        (_form(desk, "switch", branch="-1"), 400),
        (_form(desk, "game", ruleset="vitou", lang="xx"), 400),
        (_form(desk, "undo") + b"&op=save", 400),
    ]
    for body, status in cases:
        assert fetch(desk.url + "do", body, FORM)[0] == status, body[:60]
    _still_serving(desk)


def test_markup_in_every_field_is_shown_as_text(desk: Served) -> None:
    desk.post("game", {"ruleset": "vitou/1.0.0", "dealer": "W", "event": MARKUP, "score-NS": MARKUP})
    desk.post("game", {"ruleset": "vitou/1.0.0", "dealer": "W", "event": MARKUP})
    desk.post("typed", {"text": MARKUP})
    desk.post("typed", {"text": '{"seat": "<b>N</b>", "act": "' + MARKUP.replace('"', "") + '"}'})
    desk.post("claim", {"at": "1", "by": "E", "claim": MARKUP})
    desk.post("deal", {"deal": "1", "paste": f"N: {MARKUP}"})
    desk.post("compare", {"ruleset": MARKUP})
    desk.post("rules_file", {"text": MARKUP, "filename": MARKUP})
    record = f"format: 1\nheader: {{ruleset: vitou/1.0.0, dealer: W, note: '{MARKUP.replace(chr(39), '')}'}}\n"
    desk.post("load", {"text": record + "deals: []\nactions: []\n", "filename": MARKUP})
    desk.post("load", {"text": MARKUP, "filename": MARKUP})
    assert len(desk.desk.branches) == 2  # the record with markup in its note, beside the one entered
    for branch in ("1", "0"):
        desk.post("switch", {"branch": branch})
        for page in (desk.get()[1], desk.get("audit.html")[1]):
            assert "<script>alert" not in page and "<img src=x" not in page and "<b>N</b>" not in page
            assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
        html = desk.get()[1]
        assert html.count("<script") == 1  # the desk's own, from its own address


def test_the_page_allows_nothing_from_outside(desk: Served) -> None:
    host, port = desk.origin.split("//")[1].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    conn.request("GET", f"/{desk.secret}/")
    reply = conn.getresponse()
    policy = reply.getheader("Content-Security-Policy") or ""
    reply.read()
    conn.close()
    assert policy.startswith("default-src 'self'") and "'unsafe-inline'" not in policy
    assert "frame-ancestors 'none'" in policy and reply.getheader("Referrer-Policy") == "same-origin"
    assert desk.origin.startswith("http://127.0.0.1:")


def test_a_client_that_sends_nothing_holds_no_one_up(desk: Served) -> None:
    host, port = desk.origin.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=30) as idle:
        idle.sendall(b"POST /" + desk.secret.encode() + b"/do HTTP/1.1\r\n")  # and then nothing
        _still_serving(desk)


def test_nothing_is_written_but_into_the_folder(desk: Served, tmp_path: Path) -> None:
    cwd = sorted(os.listdir("."))
    for op in ("save", "save"):
        assert desk.post(op)[0] == 200
    assert len(list((tmp_path / "saved").iterdir())) == 2
    assert sorted(os.listdir(".")) == cwd


def test_the_page_shows_in_chromium_under_its_own_policy() -> None:
    # The policy names the page's styles by their hashes: were one missing, Chromium would not apply it.
    from browser import DESKTOP, page

    with served() as s, page(s.url, DESKTOP) as p:
        assert p.evaluate("getComputedStyle(document.querySelector('.masthead h1')).marginTop") == "4px"
        assert p.evaluate("getComputedStyle(document.querySelector('.seats')).display") == "grid"
        assert p.evaluate("document.styleSheets.length") == 2


# ------------------------------------------------------------------ ordinary faults: a 4xx or a message, never a 500


def _exchange(s: Served, head: bytes, body: bytes, *, half_close: bool = True) -> tuple[int, bytes]:
    """A request written byte for byte (headers outside Latin-1 too), and the status and body of the answer."""
    host, port = s.origin.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        request = b"POST /" + s.secret.encode() + b"/do HTTP/1.1\r\nHost: " + f"{host}:{port}".encode()
        sock.sendall(request + b"\r\nContent-Type: application/x-www-form-urlencoded\r\n" + head + b"\r\n" + body)
        if half_close:
            sock.shutdown(socket.SHUT_WR)  # the client has sent all it will send
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
            if b"\r\n\r\n" in answer and half_close is False:
                break
    status = int(answer.split(b" ", 2)[1])
    return status, answer.split(b"\r\n\r\n", 1)[-1]


@pytest.mark.parametrize(
    "length",
    ["²".encode("latin-1"), "١٢".encode(), "１２".encode(), b"9" * 5000, b"-1", b"+12", b"12 ", b"0x1f", b"1e3", b""],
    ids=lambda b: repr(b[:12]),
)
def test_a_content_length_that_is_not_ascii_digits_is_refused(desk: Served, length: bytes) -> None:
    before = desk.get("record.yaml")[1]
    status, said = _exchange(desk, b"Content-Length: " + length + b"\r\n", _form(desk, "undo"))
    assert 400 <= status < 500 and b"error in vitou" not in said
    assert desk.get("record.yaml")[1] == before
    _still_serving(desk)


def test_two_content_lengths_are_refused(desk: Served) -> None:
    body = _form(desk, "undo")
    head = f"Content-Length: {len(body)}\r\nContent-Length: {len(body) + 5}\r\n".encode()
    assert _exchange(desk, head, body)[0] == 400
    _still_serving(desk)


def test_a_body_shorter_than_its_content_length_is_refused_and_changes_nothing(desk: Served) -> None:
    body = _form(desk, "undo")
    status, said = _exchange(desk, f"Content-Length: {len(body) + 10}\r\n".encode(), body)
    assert status == 400 and b"shorter" in said
    _still_serving(desk)  # the undo was not made: a cut body is not a form


def test_a_body_that_stops_coming_is_refused_once_the_wait_is_over(desk: Served) -> None:
    desk.server.RequestHandlerClass.timeout = 1  # type: ignore[attr-defined]
    body = _form(desk, "undo")
    status, said = _exchange(desk, f"Content-Length: {len(body) + 10}\r\n".encode(), body, half_close=False)
    assert status == 408 and b"error in vitou" not in said
    _still_serving(desk)


def test_a_save_folder_removed_while_the_desk_runs_gets_a_message(desk: Served, tmp_path: Path) -> None:
    (tmp_path / "saved").rmdir()
    status, html = desk.post("save")
    assert status == 200 and "error in vitou" not in html
    problems = html[html.index('id="problems"') :]
    assert "not saved" in problems and "folder given at start" in problems
    (tmp_path / "saved").mkdir()
    assert "saved as record-" in desk.post("save")[1]


NOT_NUMBERS = ["²", "١", "１", "𝟙", "9" * 5000, "-1", "+1", " 1", "1.0", "", "\x00", "\u202e1"]


@pytest.mark.parametrize(
    ("op", "fields"),
    [
        ("deal", {"deal": "N", "paste": SECTION_05}),
        ("drop_deal", {"deal": "N"}),
        ("claim", {"at": "N", "claim": "x"}),
        ("drop_claim", {"claim": "N"}),
        ("branch", {"at": "N"}),
        ("switch", {"branch": "N"}),
        ("drop_branch", {"branch": "N"}),
        ("game", {"ruleset": "vitou/1.0.0", "dealer": "W", "score-NS": "N", "score-EW": "N"}),
    ],
)
def test_a_number_in_a_form_is_ascii_digits_in_its_range_or_the_form_changes_nothing(
    desk: Served, op: str, fields: dict[str, str]
) -> None:
    desk.post("claim", {"at": "1", "claim": "first"})
    desk.post("branch", {"at": "1"})
    desk.post("switch", {"branch": "0"})
    before = [b.data for b in desk.desk.branches], desk.desk.current
    for number in NOT_NUMBERS:
        status, html = desk.post(op, {k: number if v == "N" else v for k, v in fields.items()})
        refused = status == 400 or (status == 200 and 'id="problems"' in html)
        assert refused or (op, number) == ("game", ""), (number, status, html[-300:])  # blank: no starting score
        assert "error in vitou" not in html
        assert ([b.data for b in desk.desk.branches], desk.desk.current) == before, number


def test_a_browser_that_hangs_up_mid_answer_prints_no_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    # A closed tab or a client that gives up while the desk answers (a refused 10 MB body, say) breaks the
    # pipe: the standard server prints a traceback for it on the referee's terminal; the desk says nothing.
    from vitou_ref.desk.server import _Server

    server = _Server.__new__(_Server)  # handle_error reads nothing of the server's state
    for gone in (BrokenPipeError(32, "Broken pipe"), ConnectionResetError(104, "reset"), TimeoutError()):
        try:
            raise gone
        except OSError:
            server.handle_error(None, ("127.0.0.1", 1))
    assert capsys.readouterr().err == ""
    try:
        raise ValueError("a bug of the desk")
    except ValueError:
        server.handle_error(None, ("127.0.0.1", 1))
    assert "a bug of the desk" in capsys.readouterr().err  # a real error is still told
