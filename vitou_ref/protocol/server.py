"""Protocol v1: one JSON request per line in, one JSON response per line out."""

from __future__ import annotations

import contextlib
import sys
import traceback
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, Any

from ..engine.actions import Malformed, action_from_json
from ..engine.events import Event
from ..engine.match import Match
from ..engine.tables import Tables, tables_for
from ..present import escape
from ..rules.errors import IllegalAction, SetupError
from ..rules.model import Ruleset
from .wire import WireError, dumps, is_int, loads

PROTOCOL = 1
PROTOCOL_MINOR = 1  # protocol 1.1: the hand reason "void" (docs/reference/protocol.md, Versions)
MAX_LINE = 16 * 1024 * 1024  # bytes of one request line, its newline not counted
MAX_MESSAGE = 1000  # characters of an errored answer's message
CHUNK = 1 << 16  # an oversize line is skipped this many bytes at a time
INTERNAL = "internal error"  # how an errored answer caused by a bug begins
_BOM = b"\xef\xbb\xbf"


def run_case(t: Tables, setup: Any, actions: Any, seq: Any = None, trace: list[Event] | None = None) -> dict[str, Any]:
    """The response to one ``run`` request (the errored form when the setup cannot be used).

    ``trace``, when given, receives every event as the interpreter made it
    (with what the protocol leaves out, such as the resolution row).
    """
    if not isinstance(setup, Mapping):
        return _errored(seq, "setup must be a JSON object")
    if not isinstance(actions, list):
        return _errored(seq, "actions must be a JSON array")
    try:
        match = match_from_setup(t, setup)
    except SetupError as exc:
        return _errored(seq, f"setup: {exc}")  # a setup's words quote the request: escaped and cut, as every message
    j = t.as_json
    legal = [j(a) for a in match.legal_actions()]
    steps: list[dict[str, Any]] = []
    for raw in actions:
        try:
            action = action_from_json(raw)
        except Malformed as exc:
            steps.append({"ok": False, "error": _structural_code(t, raw, exc.code)})
            continue
        try:
            events = match.apply(action)
        except IllegalAction as exc:
            steps.append({"ok": False, "error": exc.code})
            continue
        if trace is not None:
            trace.extend(events)
        steps.append(
            {"ok": True, "events": [e.to_json() for e in events], "legal": [j(a) for a in match.legal_actions()]}
        )
    return {"seq": seq, "legal": legal, "steps": steps, "final": final_of(match)}


def _structural_code(t: Tables, raw: Any, code: str) -> str:
    # A card that cannot be read is found while reading the action, but an
    # unknown seat may take precedence over it: the spec's error list decides.
    if (
        code == "CARD_MALFORMED"
        and isinstance(raw, dict)
        and raw.get("seat") not in t.seat_index
        and t.precedence.get("UNKNOWN_SEAT", 0) < t.precedence.get(code, 0)
    ):
        return "UNKNOWN_SEAT"
    return code


def final_of(match: Match) -> dict[str, Any]:
    return {"score": match.score, "dealer": match.dealer, "winner": match.winner}


def match_from_setup(t: Tables, setup: Mapping[str, Any]) -> Match:
    if "dealer" in setup and "draw" in setup:
        raise SetupError("give either a dealer or a draw, not both", "dealer")
    dealer = setup.get("dealer")
    if dealer is not None and not isinstance(dealer, str):
        raise SetupError("the dealer is a seat", "dealer")
    if "deals" not in setup:
        raise SetupError("a run needs deals, one per hand", "deals")
    deals = setup["deals"]
    if not isinstance(deals, list):
        raise SetupError("deals is a list of deals, one per hand", "deals")
    if dealer is None and "draw" not in setup:
        raise SetupError("the setup names no dealer and no draw", "dealer")
    score = setup.get("score")
    if score is None and "score" in setup:
        # null is a value of the wrong type, not an absent field taking its default (protocol.md, null).
        raise SetupError("null is not a score: send an object of points, or leave the field out for 0-0", "score")
    return Match(t, dealer=dealer, draw=setup.get("draw"), deals=deals, score=score)


def errored(seq: Any, message: str) -> dict[str, Any]:
    return {"seq": seq, "errored": True, "message": message}


def read_lines(inp: IO[bytes], limit: int = MAX_LINE) -> Iterator[bytes | None]:
    """Each line of ``inp`` as read, its newline kept, or None for a line over ``limit`` bytes.

    The newline is not counted in the limit, and the last line may lack it.
    An oversize line is skipped a chunk at a time, so memory stays bounded
    however long it is.
    """
    while True:
        line = inp.readline(limit + 1)
        if not line:
            return
        if len(line) <= limit or line.endswith(b"\n"):
            yield line  # kept whole: a 16 MiB copy saved, and the newline is JSON whitespace
        else:
            line = b""  # let the first part go before skipping the rest
            chunk = b"."
            while chunk and not chunk.endswith(b"\n"):
                chunk = inp.readline(CHUNK)
            yield None


def is_blank(line: bytes) -> bool:
    """Whether a line holds nothing but JSON whitespace, after an optional byte-order mark."""
    if line.startswith(_BOM):
        line = line[len(_BOM) :]
    return not line.lstrip(b" \t\r\n")  # lstrip copies nothing when the line starts with its JSON


def _describe(value: Any) -> str:
    """A value from a request, as a message may show it: short, and in JSON's words."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str) and len(value) > 40:
        return dumps(value[:40])[:-1] + '..."'
    text = dumps(value)
    return text if len(text) <= 40 else text[:40] + "..."


def _got(req: Mapping[str, Any], key: str) -> str:
    return f"got {_describe(req[key])}" if key in req else "it is missing"


def _errored(seq: int | None, message: str) -> dict[str, Any]:
    # Messages carry text from the peer: escape it and bound it, so an answer stays one short line.
    return errored(seq, escape.text(message, MAX_MESSAGE))


def _internal(seq: int | None, exc: Exception) -> dict[str, Any]:
    """The answer to a request whose handling failed (a bug); the traceback goes to stderr."""
    with contextlib.suppress(Exception):  # stderr gone too: the answer still goes out
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    return _errored(seq, f"{INTERNAL} ({type(exc).__name__}); this request is lost, the next one is served")


def encode(answer: dict[str, Any]) -> bytes:
    """One answer as the line written; an answer that cannot be written (a bug) becomes an internal error."""
    try:
        # Answers hold no lone surrogate (messages are escaped); should one slip in, its JSON escape is sent.
        return (dumps(answer) + "\n").encode("utf-8", "backslashreplace")
    except Exception as exc:
        seq = answer.get("seq")
        return (dumps(_internal(seq if is_int(seq) else None, exc)) + "\n").encode("utf-8")


class Server:
    """Serves protocol v1 for a set of rulesets."""

    def __init__(self, rulesets: Iterable[Ruleset], implementation: Mapping[str, str]) -> None:
        self.tables = {r.name: tables_for(r) for r in rulesets}
        self.implementation = dict(implementation)

    def handle(self, line: bytes | str) -> dict[str, Any] | None:
        """The answer to one request line; None for ``stop``.

        Never raises: a failure while answering (a bug) becomes an errored
        answer beginning with ``internal error``, its traceback goes to stderr,
        and the server goes on with the next line.
        """
        seq: int | None = None
        try:
            try:
                req = loads(line)  # ignores one leading byte-order mark, as protocol.md says
            except WireError as exc:
                return _errored(None, f"the line is not a request: {exc.message}")
            if type(req) is not dict:
                return _errored(None, f"a request is a JSON object, not {_describe(req)}")
            if is_int(req.get("seq")):
                seq = req["seq"]
            return self._answer(req, seq)
        except Exception as exc:  # a bug must cost one answer, not the whole run
            return _internal(seq, exc)

    def _answer(self, req: dict[str, Any], seq: int | None) -> dict[str, Any] | None:
        cmd = req.get("cmd")
        if not isinstance(cmd, str):
            return _errored(seq, f"cmd must be a string: start, run or stop; {_got(req, 'cmd')}")
        if cmd == "stop":
            return None
        if cmd == "start":
            protocol = req.get("protocol")
            if not (is_int(protocol) and protocol == PROTOCOL):
                return _errored(
                    seq,
                    f"protocol not supported: this implementation speaks the integer {PROTOCOL}; {_got(req, 'protocol')}",
                )
            return {
                "protocol": PROTOCOL,
                "protocol_minor": PROTOCOL_MINOR,
                "implementation": self.implementation,
                "rulesets": list(self.tables),
            }
        if cmd == "run":
            return self._run(req, seq)
        return _errored(seq, f"unknown cmd {_describe(cmd)} (commands: start, run, stop)")

    def _run(self, req: dict[str, Any], seq: int | None) -> dict[str, Any]:
        if seq is None:
            return _errored(None, f'a run request needs an integer seq (1.0, "1" and true are not); {_got(req, "seq")}')
        name = req.get("ruleset")
        if not isinstance(name, str):
            return _errored(seq, f"a run request needs a ruleset string; {_got(req, 'ruleset')}")
        t = self.tables.get(name)
        if t is None:
            return _errored(
                seq, f"unknown ruleset {_describe(name)}; this implementation serves {', '.join(self.tables)}"
            )
        if not isinstance(req.get("setup"), dict):
            return _errored(seq, f"setup must be a JSON object; {_got(req, 'setup')}")
        if not isinstance(req.get("actions"), list):
            return _errored(seq, f"actions must be a JSON array; {_got(req, 'actions')}")
        response = run_case(t, req["setup"], req["actions"], seq)
        if response.get("errored") is True:
            return _errored(seq, response["message"])
        return response

    def serve(self, inp: IO[bytes], out: IO[bytes]) -> int:
        """Answer the request lines of ``inp`` on ``out`` until ``stop`` or the end of input; returns 0.

        A failure to write ``out`` (the harness went away) is the caller's to handle.
        """
        for line in read_lines(inp):
            answer: dict[str, Any] | None
            if line is None:
                answer = _errored(None, f"request line over {MAX_LINE} bytes; it was not read")
            elif is_blank(line):
                continue
            else:
                answer = self.handle(line)
            if answer is None:
                return 0
            out.write(encode(answer))
            out.flush()
        return 0
