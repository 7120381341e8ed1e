"""The reference adapter answers every hostile line as docs/reference/protocol.md's Transport section says, and keeps serving."""

from __future__ import annotations

import functools
import io
import json
import os
import re
import select
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from helpers import ROOT
from hypothesis import given
from hypothesis import strategies as st

from vitou_ref import Match, load_ruleset
from vitou_ref.adapter import build_server
from vitou_ref.protocol.server import Server
from vitou_ref.protocol.wire import canonical, loads
from vitou_ref.rules.schema import first_error

# The figures protocol.md gives; the tests hold the adapter to the document, not to its own constants.
MAX_LINE = 16 * 1024 * 1024
MAX_DEPTH = 64
MAX_DIGITS = 4300
MAX_MESSAGE = 1000
MIB = 1024 * 1024
BOM = b"\xef\xbb\xbf"


def _section_05() -> dict[str, Any]:
    """The worked example's request, read from protocol.md itself."""
    doc = (ROOT / "docs" / "reference" / "protocol.md").read_text(encoding="utf-8")
    example = doc[doc.index("## Worked example") :]
    block = re.search(r"```json\n(.*?)```", example, re.S)
    assert block is not None
    request: dict[str, Any] = json.loads(block.group(1))
    return request


SECTION_05 = _section_05()


def play(seat: str, *cards: str) -> list[dict[str, Any]]:
    return [{"seat": seat, "act": "play", "card": c} for c in cards]


def expected_05(seq: int) -> dict[str, Any]:
    """The §05 answer as protocol.md words it, step by step."""
    return {
        "seq": seq,
        "legal": [*play("N", "AS", "7H", "8C"), {"seat": "N", "act": "raise", "to": 3}],
        "steps": [
            {"ok": True, "events": [], "legal": play("N", "AS", "7H", "8C")},
            {
                "ok": True,
                "events": [],
                "legal": [
                    *play("E", "9C", "KD", "JH"),
                    {"seat": "E", "act": "raise", "to": 6},
                    {"seat": "E", "act": "refuse"},
                ],
            },
            {"ok": True, "events": [], "legal": play("E", "9C", "KD", "JH")},
            {
                "ok": True,
                "events": [],
                "legal": [
                    *play("S", "10H", "QS", "8D"),
                    {"seat": "S", "act": "raise", "to": 12},
                    {"seat": "S", "act": "refuse"},
                ],
            },
            {
                "ok": True,
                "events": [
                    {"event": "hand", "winner": "EW", "points": 3, "reason": "refusal", "score": {"NS": 0, "EW": 3}}
                ],
                "legal": [],
            },
        ],
        "final": {"score": {"NS": 0, "EW": 3}, "dealer": "N", "winner": None},
    }


def as_sets(answer: Any) -> Any:
    """The answer with every legal set made order-free (legal sets are compared as sets)."""
    if not isinstance(answer, dict) or "steps" not in answer:
        return answer
    out = dict(answer, legal=sorted(map(canonical, answer["legal"])))
    out["steps"] = [dict(s, legal=sorted(map(canonical, s["legal"]))) if s.get("ok") else s for s in answer["steps"]]
    return out


def line_of(request: Any) -> bytes:
    return json.dumps(request, separators=(",", ":")).encode("utf-8")


def with_05(**changes: Any) -> bytes:
    """The §05 request with some fields replaced; a value of ``...`` removes the field."""
    request = {**SECTION_05, **changes}
    return line_of({k: v for k, v in request.items() if v is not ...})


def repeated(unit: bytes, size: int) -> Iterator[bytes]:
    """``size`` bytes of ``unit`` repeated, in pieces of about 1 MiB."""
    piece = unit * (MIB // len(unit))
    while size > 0:
        yield piece[:size]
        size -= len(piece)


def nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


def assert_errored(answer: Any, seq: int | None) -> None:
    """The errored form of protocol.md: exactly seq, errored, message; seq as the table says."""
    assert isinstance(answer, dict) and set(answer) == {"seq", "errored", "message"}, answer
    assert answer["errored"] is True
    assert answer["seq"] == seq and type(answer["seq"]) is type(seq), (answer["seq"], seq)
    message = answer["message"]
    assert isinstance(message, str) and 0 < len(message) <= MAX_MESSAGE
    assert not re.search(r"[\x00-\x1f\x7f]", message), "control characters are escaped"
    # A bug answers "internal error"; no line of this corpus may reach that path.
    assert not message.startswith("internal error"), message
    assert first_error(answer, "protocol/errored-response") is None


# ---------------------------------------------------------------- the peer


class Peer:
    """The real adapter as a subprocess, spoken to in bytes; every wait for an answer has a deadline."""

    def __init__(self) -> None:
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the process; finish() closes it
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "vitou_ref.adapter"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
        )
        self._buf = bytearray()

    def send(self, data: bytes) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send_pieces(self, pieces: Iterable[bytes]) -> None:
        # Big lines go out in pieces: the test process never holds one whole (its own peak
        # memory is inherited by the processes it starts, and other tests measure theirs).
        for piece in pieces:
            self.send(piece)

    def close_input(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()

    def raw_line(self, timeout: float = 60.0) -> bytes | None:
        """The next answer line without its newline; None at the end of the adapter's output."""
        assert self.proc.stdout
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            remaining = deadline - time.monotonic()
            assert remaining > 0, "no answer within the time limit"
            if select.select([fd], [], [], remaining)[0]:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    assert not self._buf, f"a partial answer line: {bytes(self._buf)[:200]!r}"
                    return None
                self._buf += chunk
        end = self._buf.index(b"\n")
        line = bytes(self._buf[:end])
        del self._buf[: end + 1]
        return line

    def answer(self) -> Any:
        raw = self.raw_line()
        assert raw is not None, f"the adapter stopped answering; stderr: {self.stderr_text()[-2000:]}"
        # Strict JSON, UTF-8, no byte-order mark, one line: what protocol.md says answers are.
        assert not raw.startswith(BOM) and b"\r" not in raw
        return loads(raw)

    def ask(self, line: bytes) -> Any:
        self.send(line + b"\n")
        return self.answer()

    def peak_rss_mib(self) -> float:
        with open(f"/proc/{self.proc.pid}/status", encoding="ascii") as f:
            for row in f:
                if row.startswith("VmHWM:"):
                    return int(row.split()[1]) / 1024
        raise AssertionError("no VmHWM in /proc")

    def stderr_text(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode("utf-8", errors="replace")

    def finish(self) -> tuple[int, str]:
        """Wait for the exit; the status and what went to stderr."""
        try:
            code = self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None and not stream.closed:
                stream.close()
        text = self.stderr_text()
        self.stderr.close()
        return code, text


_next_seq = iter(range(1000, 10**6))


def still_serving(peer: Peer) -> None:
    """The §05 request, answered exactly as protocol.md works it out, with its own seq."""
    seq = next(_next_seq)
    assert as_sets(peer.ask(with_05(seq=seq))) == as_sets(expected_05(seq))


@pytest.fixture(scope="module")
def adapter() -> Iterator[Peer]:
    """One adapter for the whole hostile sequence; at the end, stop ends it quietly."""
    peer = Peer()
    try:
        still_serving(peer)
        yield peer
        # stop answers nothing, whatever its other fields, and nothing after it is read.
        peer.send(b'{"cmd":"stop","seq":"not an integer","junk":[1,{}]}\n' + with_05(seq=1) + b"\n")
        assert peer.raw_line() is None
        code, err = peer.finish()
        assert code == 0
        assert err == "", "nothing on stderr: no traceback, no internal error"
    finally:
        if peer.proc.poll() is None:
            peer.proc.kill()
            peer.proc.wait()


# ---------------------------------------------------------------- the corpus


@dataclass(frozen=True)
class Hostile:
    """A line and the answer protocol.md's table gives it."""

    id: str
    line: bytes
    seq: int | None = None  # the seq of the errored answer
    served: bool = False  # answered as the §05 request, with seq
    steps: tuple[dict[str, Any], ...] | None = None  # a run answer whose steps these are


def E(id: str, line: bytes, seq: int | None = None) -> Hostile:
    return Hostile(id, line, seq)


def S(id: str, line: bytes, seq: int = 1) -> Hostile:
    return Hostile(id, line, seq, served=True)


def STEP(id: str, action: Any, error: str) -> Hostile:
    return Hostile(id, with_05(seq=40, actions=[action]), 40, steps=({"ok": False, "error": error},))


BIG = int("9" * MAX_DIGITS)
TOO_BIG = "7" * 5000
START = {"cmd": "start", "protocol": 1}

CORPUS: list[Hostile] = [
    # Not UTF-8: errored, seq null, even where the seq could be made out.
    E("utf8-ff-fe", b"\xff\xfe"),
    E("utf8-in-a-string", with_05(seq=3, ruleset="vitou/1.0.0").replace(b"vitou/1.0.0", b"vitou/1.0.0\xff")),
    E("utf8-overlong", b'{"cmd":"run","seq":3,"x":"\xc0\xaf"}'),
    E("utf8-encoded-surrogate", b'{"cmd":"run","seq":3,"x":"\xed\xa0\x80"}'),
    E("utf8-cut-short", with_05(seq=3) + b"\xe2\x82"),
    E("utf16", json.dumps({**SECTION_05, "seq": 3}).encode("utf-16")),
    E("latin1", b'{"cmd":"d\xe9marre","seq":3}'),
    # Byte-order marks: one at the start is ignored; any other is not JSON.
    S("bom", BOM + with_05(seq=2), 2),
    E("bom-twice", BOM + BOM + with_05(seq=2)),
    E("bom-after-space", b" " + BOM + with_05(seq=2)),
    E("bom-inside", with_05(seq=2)[:1] + BOM + with_05(seq=2)[1:]),
    S("crlf", with_05(seq=4) + b"\r", 4),
    S("spaces-around", b" \t " + with_05(seq=4) + b" \t\r", 4),
    # Not JSON.
    E("text", b"this is not json"),
    E("nul", b"\x00"),
    E("form-feed", b"\x0c"),
    E("vertical-tab", b"\x0b"),
    E("two-values", b"{} {}"),
    E("trailing-comma", b'{"cmd":"run","seq":5,}'),
    E("single-quotes", b"{'cmd':'run','seq':5}"),
    E("raw-control-in-string", b'{"cmd":"st\x01op","seq":5}'),
    E("cut-short", with_05(seq=5)[:-1]),
    E("nan", with_05(seq=5)[:-1] + b',"x":NaN}'),
    E("nan-seq", b'{"cmd":"run","seq":NaN}'),
    E("infinity", with_05(seq=5)[:-1] + b',"x":Infinity}'),
    E("minus-infinity", b'{"cmd":"run","seq":-Infinity}'),
    E("out-of-range-float", with_05(seq=5)[:-1] + b',"x":1e999}'),
    # Nesting: 64 levels are read, one more is errored, however deep the line goes.
    S("depth-64", with_05(seq=6, pad=nested(MAX_DEPTH - 1)), 6),
    E("depth-65", with_05(seq=6, pad=nested(MAX_DEPTH))),
    E("depth-65-alone", b"[" * 65 + b"]" * 65),
    E("depth-1000-open", b"[" * 1000),
    E("depth-1000-objects", b'{"a":' * 1000),
    E("depth-1000-balanced", with_05(seq=6)[:-1] + b',"x":' + b"[" * 1000 + b"]" * 1000 + b"}"),
    E("depth-100000-open", b"[" * 100_000),
    E("depth-100000-mixed", b'[{"a":' * 50_000),
    # Integers: 4,300 digits are read and echoed exactly; 5,000 anywhere make the line errored.
    E("digits-5000-seq", b'{"cmd":"run","seq":' + TOO_BIG.encode() + b"}"),
    E("digits-5000-field", with_05(seq=7)[:-1] + b',"pad":' + TOO_BIG.encode() + b"}"),
    E(
        "digits-5000-in-actions",
        with_05(seq=7, actions=[]).replace(b'"actions":[]', b'"actions":[' + TOO_BIG.encode() + b"]"),
    ),
    S("digits-4300-seq", with_05(seq=BIG), BIG),
    S("digits-4300-negative-seq", with_05(seq=-BIG), -BIG),
    E("digits-4300-seq-unknown-cmd", line_of({"cmd": "dance", "seq": BIG}), BIG),
    S("seq-zero", with_05(seq=0), 0),
    S("seq-minus-zero", with_05(seq=1).replace(b'"seq":1', b'"seq":-0'), 0),
    S("seq-negative", with_05(seq=-12), -12),
    # Not an object.
    E("array", b"[1,2]"),
    E("string", b'"run"'),
    E("number", b"42"),
    E("null", b"null"),
    E("true", b"true"),
    E("array-of-request", b"[" + with_05(seq=8) + b"]"),
    # Duplicate keys: the last counts; unused fields are ignored.
    S("duplicate-cmd", b'{"cmd":"dance",' + with_05(seq=8)[1:], 8),
    S("duplicate-seq", b'{"seq":1.0,' + with_05(seq=8)[1:], 8),
    E("duplicate-seq-last-wrong", with_05(seq=8)[:-1] + b',"seq":"8"}'),
    S("extra-fields", with_05(seq=8, protocol="junk", extra={"deep": [[1]]}, stop=True), 8),
    # cmd missing or not a string: errored, seq echoed when it is an integer.
    E("empty-object", b"{}"),
    E("cmd-missing", b'{"seq":9}', 9),
    E("cmd-null", b'{"cmd":null,"seq":9}', 9),
    E("cmd-null-no-seq", b'{"cmd":null}'),
    E("cmd-number", b'{"cmd":1,"seq":9}', 9),
    E("cmd-array", b'{"cmd":["run"],"seq":9}', 9),
    E("cmd-object", b'{"cmd":{},"seq":9}', 9),
    E("cmd-true", b'{"cmd":true,"seq":9}', 9),
    E("run-cmd-null", with_05(seq=9, cmd=None), 9),
    # Unknown commands.
    E("cmd-unknown", b'{"cmd":"dance","seq":10}', 10),
    E("cmd-unknown-no-seq", b'{"cmd":"dance"}'),
    E("cmd-unknown-float-seq", b'{"cmd":"dance","seq":10.0}'),
    E("cmd-upper-case", with_05(seq=10, cmd="RUN"), 10),
    E("cmd-empty", b'{"cmd":"","seq":10}', 10),
    E("cmd-stop-with-space", b'{"cmd":"stop ","seq":10}', 10),
    E("cmd-lone-surrogate", b'{"cmd":"\\ud800","seq":10}', 10),
    E("cmd-terminal-escape", b'{"cmd":"\\u001b[2J\\u0007","seq":10}', 10),
    E("cmd-64k", line_of({"cmd": "x" * 65536, "seq": 10}), 10),
    # start with a protocol that is not the JSON integer 1.
    E("protocol-missing", b'{"cmd":"start"}'),
    E("protocol-null", b'{"cmd":"start","protocol":null}'),
    E("protocol-true", b'{"cmd":"start","protocol":true}'),
    E("protocol-string", b'{"cmd":"start","protocol":"1"}'),
    E("protocol-float", b'{"cmd":"start","protocol":1.0}'),
    E("protocol-exponent", b'{"cmd":"start","protocol":1e0}'),
    E("protocol-2", b'{"cmd":"start","protocol":2}'),
    E("protocol-array", b'{"cmd":"start","protocol":[1]}'),
    E("protocol-string-with-seq", b'{"cmd":"start","protocol":"1","seq":11}', 11),
    # run whose seq is not a JSON integer: errored, seq null, the rest of the request being fine.
    E("seq-missing", with_05(seq=...)),
    E("seq-null", with_05(seq=None)),
    E("seq-float", with_05(seq=1.0)),
    E("seq-exponent", with_05(seq=1).replace(b'"seq":1', b'"seq":1e0')),
    E("seq-fraction", with_05(seq=1.5)),
    E("seq-string", with_05(seq="1")),
    E("seq-true", with_05(seq=True)),
    E("seq-false", with_05(seq=False)),
    E("seq-array", with_05(seq=[1])),
    E("seq-object", with_05(seq={"n": 1})),
    # run with a field of the wrong type, null included: errored with the seq.
    E("ruleset-missing", with_05(seq=12, ruleset=...), 12),
    E("ruleset-null", with_05(seq=12, ruleset=None), 12),
    E("ruleset-number", with_05(seq=12, ruleset=1), 12),
    E("ruleset-array", with_05(seq=12, ruleset=["vitou/1.0.0"]), 12),
    E("ruleset-unknown", with_05(seq=12, ruleset="vitou/9.9.9"), 12),
    E("ruleset-lone-surrogate", with_05(seq=12, ruleset="\ud800"), 12),
    E("ruleset-64k", with_05(seq=12, ruleset="v" * 65536), 12),
    E("setup-missing", with_05(seq=13, setup=...), 13),
    E("setup-null", with_05(seq=13, setup=None), 13),
    E("setup-array", with_05(seq=13, setup=[]), 13),
    E("setup-string", with_05(seq=13, setup="W"), 13),
    E("actions-missing", with_05(seq=14, actions=...), 14),
    E("actions-null", with_05(seq=14, actions=None), 14),
    E("actions-object", with_05(seq=14, actions={}), 14),
    E("actions-string", with_05(seq=14, actions="N r3"), 14),
    E("all-null", line_of({"cmd": "run", "seq": 15, "ruleset": None, "setup": None, "actions": None}), 15),
    E("all-null-seq-null", line_of({"cmd": "run", "seq": None, "ruleset": None, "setup": None, "actions": None})),
    # Nulls inside the setup: a setup that cannot be used, score included (docs/reference/protocol.md, null).
    E("dealer-null", with_05(seq=16, setup={**SECTION_05["setup"], "dealer": None}), 16),
    E("draw-null", with_05(seq=16, setup={**SECTION_05["setup"], "draw": None}), 16),
    E("draw-null-alone", with_05(seq=16, setup={"draw": None, "deals": SECTION_05["setup"]["deals"]}), 16),
    E("deals-null", with_05(seq=16, setup={"dealer": "W", "deals": None}), 16),
    E("deal-null", with_05(seq=16, setup={"dealer": "W", "deals": [None]}), 16),
    E(
        "hand-null",
        with_05(seq=16, setup={"dealer": "W", "deals": [{**SECTION_05["setup"]["deals"][0], "N": None}]}),
        16,
    ),
    E(
        "card-null",
        with_05(
            seq=16,
            setup={"dealer": "W", "deals": [{**SECTION_05["setup"]["deals"][0], "N": [None, "7H", "8C"]}]},
        ),
        16,
    ),
    E("draw-round-null", with_05(seq=16, setup={"draw": [None], "deals": SECTION_05["setup"]["deals"]}), 16),
    E("score-null", with_05(seq=17, setup={**SECTION_05["setup"], "score": None}), 17),
    # A score that leaves every side out is 0-0, and a field the setup does not use is ignored.
    S("score-empty", with_05(seq=17, setup={**SECTION_05["setup"], "score": {}}), 17),
    S("setup-extra-field", with_05(seq=17, setup={**SECTION_05["setup"], "first_dealer": "N", "x": [None]}), 17),
    # A lone CR ends no line: whitespace between tokens, and two requests joined by one are one line, not JSON.
    S("lone-cr-between-tokens", with_05(seq=18).replace(b',"seq"', b',\r"seq"'), 18),
    E("lone-cr-joins-two", with_05(seq=18) + b"\r" + with_05(seq=19)),
    E("lone-cr-in-string", with_05(seq=18).replace(b'"vitou/1.0.0"', b'"vitou/1.0.0\r"')),
    # Nulls inside actions: rejected steps, never an errored request.
    STEP("action-null", None, "ACTION_MALFORMED"),
    STEP("action-seat-null", {"seat": None, "act": "play", "card": "AS"}, "ACTION_MALFORMED"),
    STEP("action-act-null", {"seat": "N", "act": None}, "ACTION_MALFORMED"),
    STEP("action-card-null", {"seat": "N", "act": "play", "card": None}, "CARD_MALFORMED"),
    STEP("action-to-null", {"seat": "N", "act": "raise", "to": None}, "ACTION_MALFORMED"),
    STEP("action-signal-null", {"seat": "N", "act": "signal", "signal": None}, "ACTION_MALFORMED"),
    STEP("action-side-null", {"side": None, "act": "play_hand"}, "ACTION_MALFORMED"),
    STEP("action-deeply-nested", nested(MAX_DEPTH - 3), "ACTION_MALFORMED"),
]


@pytest.mark.parametrize("case", CORPUS, ids=[c.id for c in CORPUS])
def test_a_hostile_line_gets_its_answer_and_the_next_request_is_served(adapter: Peer, case: Hostile) -> None:
    answer = adapter.ask(case.line)
    if case.served:
        assert as_sets(answer) == as_sets(expected_05(case.seq or 0))
        assert type(answer["seq"]) is int
    elif case.steps is not None:
        assert first_error(answer, "protocol/run-response") is None, answer
        assert answer["seq"] == case.seq and list(case.steps) == answer["steps"]
    else:
        assert_errored(answer, case.seq)
    still_serving(adapter)


def test_the_corpus_ids_are_unique() -> None:
    assert len({c.id for c in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize(
    "blank",
    [b"", b" ", b"\t", b"\r", b" \t\r ", BOM, BOM + b"  \r"],
    ids=["empty", "space", "tab", "cr", "mixed", "bom", "bom-spaces"],
)
def test_a_blank_line_gets_no_answer(adapter: Peer, blank: bytes) -> None:
    # Answers come in order: if the blank line were answered, that answer would come first.
    adapter.send(blank + b"\n" + blank + b"\n")
    still_serving(adapter)


def test_start_again_is_answered_with_the_hello(adapter: Peer) -> None:
    hello = adapter.ask(line_of(START))
    assert first_error(hello, "protocol/start-response") is None and hello["protocol"] == 1
    still_serving(adapter)


def test_pipelined_hostile_lines_get_one_answer_each_in_order(adapter: Peer) -> None:
    cases = [c for c in CORPUS if len(c.line) < 10_000]
    data = b"".join(c.line + b"\n\n" for c in cases)  # a blank line after each: still one answer each
    # Sent from a thread: the adapter may fill its output pipe before it has read all of this.
    sender = threading.Thread(target=adapter.send, args=(data,))
    sender.start()
    try:
        for case in cases:
            answer = adapter.answer()
            assert answer["seq"] == case.seq, case.id
            assert ("errored" in answer) is not (case.served or case.steps is not None), case.id
    finally:
        sender.join(timeout=60)
    still_serving(adapter)


def test_oversize_lines_get_one_answer_each_in_bounded_memory(adapter: Peer) -> None:
    if not os.path.exists(f"/proc/{adapter.proc.pid}/status"):
        pytest.skip("peak memory is read from /proc")
    # 17 MB, with a seq that could be made out: the line is not read, so seq is null.
    adapter.send_pieces([b'{"cmd":"run","seq":5,"pad":"', *repeated(b"a", 17 * MIB), b'"}\n'])
    assert_errored(adapter.answer(), None)
    still_serving(adapter)
    # Ten times the limit: one answer, and memory that does not grow with the line.
    adapter.send_pieces([b'{"cmd":"run","seq":5,"pad":[', *repeated(b"1,", 160 * MIB), b"1]}\n"])
    assert_errored(adapter.answer(), None)
    still_serving(adapter)
    # Binary junk over the limit, not a newline in it.
    adapter.send_pieces([*repeated(bytes(range(256)).replace(b"\n", b""), MAX_LINE + 1000), b"\n"])
    assert_errored(adapter.answer(), None)
    still_serving(adapter)
    peak = adapter.peak_rss_mib()
    assert peak < 150, f"the adapter's peak memory was {peak:.0f} MiB"


def test_the_line_limit_counts_bytes_without_the_newline(adapter: Peer) -> None:
    def padded(size: int) -> list[bytes]:
        before, after = with_05(seq=18, pad="").split(b'"pad":""')
        head, tail = before + b'"pad":"', b'"' + after
        pieces = [head, *repeated(b"p", size - len(head) - len(tail)), tail, b"\n"]
        assert sum(map(len, pieces)) == size + 1
        return pieces

    adapter.send_pieces(padded(MAX_LINE))
    assert as_sets(adapter.answer()) == as_sets(expected_05(18))
    adapter.send_pieces(padded(MAX_LINE + 1))
    assert_errored(adapter.answer(), None)
    still_serving(adapter)


# ---------------------------------------------------------------- the end of the input, and of the output


def test_a_last_line_without_newline_is_served() -> None:
    peer = Peer()
    peer.send(b"\n" + with_05(seq=19))
    peer.close_input()
    assert as_sets(peer.answer()) == as_sets(expected_05(19))
    assert peer.raw_line() is None
    assert peer.finish() == (0, "")


def test_a_last_hostile_line_without_newline_gets_its_one_answer() -> None:
    peer = Peer()
    peer.send(b'{"cmd":"run","seq":20,"ruleset":nul')
    peer.close_input()
    assert_errored(peer.answer(), None)
    assert peer.raw_line() is None
    assert peer.finish() == (0, "")


def test_an_oversize_last_line_without_newline_gets_one_answer() -> None:
    peer = Peer()
    peer.send_pieces(repeated(b"[", 17 * MIB))
    peer.close_input()
    assert_errored(peer.answer(), None)
    assert peer.raw_line() is None
    assert peer.finish() == (0, "")


def test_a_closed_stdout_ends_the_adapter_quietly() -> None:
    peer = Peer()
    assert peer.proc.stdout and peer.proc.stdin
    peer.proc.stdout.close()  # the harness went away
    peer.send(b"".join(with_05(seq=k) + b"\n" for k in range(50)))
    peer.close_input()
    code, err = peer.finish()
    assert code == 0
    assert err == "", err


# ---------------------------------------------------------------- in process: handle never raises


@functools.lru_cache(maxsize=1)
def server() -> Server:
    return build_server()


SEATS = ["N", "E", "S", "W"]
# Vitou's pack, as its deck clause lists it: ranks 10 9 A K Q J 8 7 in suits S H D C.
CARDS = [r + s for r in ("10", "9", "A", "K", "Q", "J", "8", "7") for s in "SHDC"]

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()  # NaN and infinities too: json.dumps writes them, the adapter must refuse them
    | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=4),
    max_leaves=12,
)


def or_junk(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(good, good, json_values)


cards = or_junk(st.sampled_from(CARDS))
full_deals = st.permutations(CARDS).map(lambda p: {s: list(p[3 * i : 3 * i + 3]) for i, s in enumerate(SEATS)})
deals = or_junk(full_deals | st.dictionaries(st.sampled_from([*SEATS, "X"]), or_junk(st.lists(cards, max_size=4))))
scores = or_junk(
    st.fixed_dictionaries({}, optional={"NS": or_junk(st.integers(-2, 25)), "EW": or_junk(st.integers(0, 25))})
)
draws = or_junk(st.lists(st.dictionaries(st.sampled_from(SEATS), cards, max_size=4), max_size=3))
# Mostly a setup the match can start from, so that the actions are played; sometimes anything.
setups = st.one_of(
    st.fixed_dictionaries(
        {"dealer": st.sampled_from(SEATS), "deals": st.lists(full_deals, min_size=1, max_size=3)},
        optional={"score": scores},
    ),
    st.fixed_dictionaries(
        {},
        optional={
            "dealer": or_junk(st.sampled_from(SEATS)),
            "draw": draws,
            "deals": or_junk(st.lists(deals, max_size=3)),
            "score": scores,
        },
    ),
    json_values,
)
actions = or_junk(
    st.fixed_dictionaries(
        {"seat": st.sampled_from(SEATS), "act": st.sampled_from(["play", "play", "raise", "refuse", "signal"])},
        optional={
            "card": st.sampled_from(CARDS),
            "to": st.sampled_from([3, 6, 12, "baraque"]),
            "signal": st.just("ten"),
        },
    )
    | st.fixed_dictionaries(
        {},
        optional={
            "seat": or_junk(st.sampled_from(SEATS)),
            "side": or_junk(st.sampled_from(["NS", "EW"])),
            "act": or_junk(st.sampled_from(["play", "raise", "refuse", "pass", "play_hand", "decline_hand", "signal"])),
            "card": cards,
            "to": or_junk(st.sampled_from([3, 6, 12, "baraque"])),
            "signal": or_junk(st.sampled_from(["ten", "nine", "ace", "none"])),
        },
    )
)
rulesets = st.sampled_from(["vitou/1.0.0", "vitou/1.0.0", "vitou-2p/1.0.0", "vitou-partners-tie/1.0.0"])


@st.composite
def played_runs(draw: st.DrawFn) -> dict[str, Any]:
    """A run whose actions are mostly legal, drawn from the reference's legal sets, with junk between them."""
    rules = load_ruleset("vitou/1.0.0")
    setup = {"dealer": draw(st.sampled_from(SEATS)), "deals": draw(st.lists(full_deals, min_size=1, max_size=3))}
    match = Match(rules, dealer=setup["dealer"], deals=setup["deals"])
    played: list[Any] = []
    for _ in range(draw(st.integers(0, 40))):
        legal = match.legal_actions()
        if not legal or draw(st.integers(0, 5)) == 0:
            played.append(draw(actions))
            continue
        action = legal[draw(st.integers(0, len(legal) - 1))]
        match.apply(action)
        played.append(action.to_json())
    return {"cmd": "run", "seq": draw(st.integers()), "ruleset": rules.name, "setup": setup, "actions": played}


# Mostly a proper run envelope around hostile contents; sometimes a hostile envelope.
requests = st.one_of(
    played_runs(),
    st.fixed_dictionaries(
        {"cmd": st.just("run"), "seq": st.integers(), "ruleset": rulesets, "setup": setups},
        optional={"actions": st.lists(actions, max_size=12)},
    ),
    st.fixed_dictionaries(
        {
            "cmd": st.just("run"),
            "seq": st.integers(),
            "ruleset": rulesets,
            "setup": setups,
            "actions": st.lists(actions, max_size=12),
        }
    ),
    st.fixed_dictionaries(
        {},
        optional={
            "cmd": or_junk(st.sampled_from(["run", "start", "stop", "dance"])),
            "seq": or_junk(st.integers()),
            "ruleset": or_junk(rulesets | st.just("vitou/9.9.9")),
            "setup": setups,
            "actions": or_junk(st.lists(actions, max_size=6)),
            "protocol": or_junk(st.just(1)),
        },
    ),
)


def spliced(data: tuple[Any, bytes, int]) -> bytes:
    request, junk, at = data
    line = line_of(request) if not isinstance(request, bytes) else request
    at %= len(line) + 1
    return line[:at] + junk + line[at:]


lines = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=300),
    json_values.map(json.dumps),
    requests.map(json.dumps),
    requests.map(lambda r: BOM + line_of(r)),
    st.tuples(requests, st.binary(min_size=1, max_size=4), st.integers(min_value=0)).map(spliced),
    st.tuples(requests, st.integers(min_value=0)).map(lambda d: line_of(d[0])[: d[1] % 200]),
    st.integers(1, 3 * MAX_DEPTH).map(lambda n: "[" * n + "]" * n),
)


def check_answer(line: bytes | str, answer: dict[str, Any] | None) -> None:
    """An answer protocol.md allows for this line: None only for stop, and a message from no bug."""
    if answer is None:
        request = loads(line)
        assert isinstance(request, dict) and request.get("cmd") == "stop", line
        return
    assert isinstance(answer, dict)
    json.dumps(answer, allow_nan=False).encode("utf-8")  # strict JSON, strict UTF-8
    if answer.get("errored") is True:
        assert_errored(answer, answer["seq"])
        assert answer["seq"] is None or type(answer["seq"]) is int
    elif "protocol" in answer:
        assert first_error(answer, "protocol/start-response") is None
    else:
        assert first_error(answer, "protocol/run-response") is None, answer
        assert len(answer["steps"]) == len(loads(line)["actions"])


@given(lines)
def test_handle_answers_any_line_and_never_raises(line: bytes | str) -> None:
    check_answer(line, server().handle(line))


@given(requests)
def test_handle_answers_any_request_shaped_object(request: dict[str, Any]) -> None:
    line = line_of(request)  # NaN and infinities included, as json.dumps writes them
    answer = server().handle(line)
    check_answer(line, answer)
    if answer is not None and answer.get("errored") is True:
        seq = request.get("seq")
        wanted = seq if type(seq) is int and loads_ok(line) else None
        assert answer["seq"] == wanted


def loads_ok(line: bytes) -> bool:
    try:
        loads(line)
    except ValueError:
        return False
    return True


def test_a_bug_costs_one_answer_not_the_server(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import vitou_ref.protocol.server as protocol

    def broken(*args: Any, **kwargs: Any) -> dict[str, Any]:
        raise RuntimeError("a bug")

    request = with_05(seq=21)
    good = server().handle(request)
    monkeypatch.setattr(protocol, "run_case", broken)
    answer = server().handle(request)
    assert answer is not None and set(answer) == {"seq", "errored", "message"}
    assert answer["seq"] == 21 and answer["errored"] is True and answer["message"].startswith("internal error")
    assert "RuntimeError: a bug" in capsys.readouterr().err
    # Through serve: the failing request is answered, the ones around it too.
    out = io.BytesIO()
    rc = server().serve(io.BytesIO(line_of(START) + b"\n" + request + b"\n" + line_of(START)), out)
    assert rc == 0
    answers = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [a.get("protocol") for a in answers] == [1, None, 1]
    assert answers[1]["message"].startswith("internal error")
    monkeypatch.undo()
    assert server().handle(request) == good


def test_read_lines_bounds_each_line() -> None:
    from vitou_ref.protocol.server import read_lines

    data = b"0123456789\n01234567890\n" + b"x" * 100_000 + b"\nshort\n\nlast"
    got = list(read_lines(io.BytesIO(data), limit=10))
    assert got == [b"0123456789\n", None, None, b"short\n", b"\n", b"last"]
    assert list(read_lines(io.BytesIO(b"x" * 11), limit=10)) == [None]


def test_an_answer_that_cannot_be_written_becomes_an_internal_error(capsys: pytest.CaptureFixture[str]) -> None:
    from vitou_ref.protocol.server import encode

    answer = loads(encode({"seq": 22, "legal": [object()], "steps": [], "final": {}}))
    assert answer["seq"] == 22 and answer["errored"] is True and answer["message"].startswith("internal error")
    assert "TypeError" in capsys.readouterr().err
