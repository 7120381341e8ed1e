"""The one protocol v1 client: certify, fuzz, mutants and the pytest plugin all speak to a peer through it.

Nothing the peer sends is trusted. Every line is parsed by ``_wire.loads``
(bounded depth and size, no NaN, no giant integers); the handshake is always
checked field by field (``protocol`` the integer 1, never ``true`` or
``1.0``; ``protocol_minor``, when present, a whole number; ``error_codes``,
when present, a boolean; ``rulesets`` a
list of strings; ``implementation`` an object);
every answer must be a JSON object whose ``seq`` is exactly the integer
sent. A peer that breaks any of this gets a ``Fault`` with a stable kind,
never an exception of another type, and its process tree is ended.

One ``Client`` serves a whole run, every restart included: its first
handshake binds the run's ``Identity``, and a later start that answers
another one is a ``Fault`` of kind ``identity`` (docs/reference/protocol.md, Starts and
restarts). certify, fuzz and the plugin learn the level, the minor and the
offer from ``Client.start``, which only ever returns the first handshake.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

from ..present import escape
from . import wire as _wire
from .connection import DEFAULT_MAX_LINE, Connection, Fault
from .limits import Limits

START = b'{"cmd":"start","protocol":1}\n'
STOP = b'{"cmd":"stop"}\n'
PROTOCOL = 1
PROTOCOL_MINOR = 1  # the latest minor version of protocol 1 this client knows (docs/reference/protocol.md, Versions)
IDENTITY = "identity"  # the kind of the Fault of a start whose answer is not the run's first identity

# What each minor version added to the hand reasons, and what a peer of an
# earlier minor sends in its place: protocol 1.0 reports every hand nobody
# wins as "tied", and 1.1 tells "void" (a row with no winner) from it.
_EARLIER_REASON = {"void": ("tied", 1)}


@dataclass(frozen=True)
class Hello:
    """What the peer said of itself in its answer to ``start``."""

    implementation: dict[str, Any]
    rulesets: tuple[str, ...]
    minor: int = 0  # protocol 1.minor: 0 when the answer names no protocol_minor
    codes: bool = True  # False when the answer says "error_codes": false (the outcome level, the protocol's Levels)

    @property
    def identity(self) -> Identity:
        impl = self.implementation
        return Identity(
            self.codes, impl.get("name", NOT_SENT), impl.get("version", NOT_SENT), self.minor, frozenset(self.rulesets)
        )


class _NotSent:
    """A field the answer to start left out: unlike any JSON value, null included."""

    def __repr__(self) -> str:
        return "not sent"


NOT_SENT: Any = _NotSent()


@dataclass(frozen=True)
class Identity:
    """What an answer to start binds for the whole run; the first answer's is the run's (docs/reference/protocol.md).

    A field left out counts as its default (no ``error_codes`` is true, no
    ``protocol_minor`` is 0), as it is read. The offer is a set: the order and
    repeats of ``rulesets`` say nothing. Of the implementation object only
    ``name`` and ``version`` bind, compared as JSON with their types (the
    string "1" is not the number 1); its other fields may change, and what
    every report shows is the first answer's object all the same.
    """

    error_codes: bool
    name: Any  # the JSON value sent, or NOT_SENT
    version: Any
    protocol_minor: int
    rulesets: frozenset[str]


_WORDS = {"name": "implementation.name", "version": "implementation.version"}  # each field as the answer nests it


def identity_changes(was: Identity, now: Identity) -> list[str]:
    """Each field of ``now`` that is not ``was``'s, in words: ``'error_codes' was false, now true``."""
    out = []
    for f in fields(Identity):
        a, b = getattr(was, f.name), getattr(now, f.name)
        if a is b or (not isinstance(a, _NotSent) and not isinstance(b, _NotSent) and _wire.same(_json(a), _json(b))):
            continue
        out.append(f"'{_WORDS.get(f.name, f.name)}' was {_identity_value(a)}, now {_identity_value(b)}")
    return out


def _json(value: Any) -> Any:
    return sorted(value) if isinstance(value, frozenset) else value


def _identity_value(value: Any) -> str:
    if isinstance(value, _NotSent):
        return "not sent"
    return escape.text(_wire.dumps(_json(value)), 500)


def handshake_problem(hello: Any, validate: bool = False) -> str | None:
    """Why an answer to ``start`` is unusable, or None; strict whatever ``validate`` says."""
    if not isinstance(hello, dict):
        return f"not a JSON object but {json_kind(hello)}"
    proto = hello.get("protocol")
    if not (_wire.is_int(proto) and proto == PROTOCOL):
        return f"'protocol' is {_shown(proto)}, not the integer {PROTOCOL}"
    minor = hello.get("protocol_minor", 0)
    if not (_wire.is_int(minor) and minor >= 0):
        return f"'protocol_minor' is {_shown(minor)}, not a whole number"
    codes = hello.get("error_codes", True)
    if not isinstance(codes, bool):
        return f"'error_codes' is {_shown(codes)}, not true or false"
    rulesets = hello.get("rulesets")
    if not isinstance(rulesets, list) or not all(isinstance(r, str) for r in rulesets):
        return f"'rulesets' is {_shown(rulesets)}, not a list of ruleset names"
    if not isinstance(hello.get("implementation"), dict):
        return f"'implementation' is {_shown(hello.get('implementation'))}, not an object"
    if validate:
        from ..rules.schema import first_error

        broken = first_error(hello, "protocol/start-response")
        if broken is not None:
            return f"breaks the protocol schema: {escape.text(broken, 300)}"
    return None


def offers_none(asked: Sequence[str], offered: Sequence[str]) -> str | None:
    """Why a peer offering ``offered`` cannot be run at all on ``asked``, or None when it offers one of them.

    Not a verdict on its rules: nothing can be asked of it. certify, fuzz and
    the pytest plugin say it in these words, and all give it the status of a
    run that could not be made.
    """
    if not asked or any(name in offered for name in asked):
        return None
    shown = escape.text(", ".join(offered), 500) if offered else "none"
    return (
        f"the implementation offers none of the rulesets asked: asked {', '.join(asked)}; "
        f"its answer to start offers {shown}"
    )


def offered_advice(offered: Sequence[str], option: str) -> str:
    """What to give to run a peer under a ruleset it offers (``option``: the command's own), or ``""`` if none."""
    names = list(dict.fromkeys(offered))
    if not names:
        return ""
    return f"; to run it under a ruleset it offers, give {option} {escape.text(names[0], 100) if len(names) == 1 else 'with one of them'}"


def as_spoken(events: Any, minor: int) -> Any:
    """``events`` as a peer of protocol 1.``minor`` sends them: a reason a later minor added becomes the one it split."""
    if minor >= PROTOCOL_MINOR or not isinstance(events, list):
        return events
    out = []
    for e in events:
        reason = e.get("reason") if isinstance(e, dict) and e.get("event") == "hand" else None
        earlier = _EARLIER_REASON.get(reason) if isinstance(reason, str) else None
        out.append({**e, "reason": earlier[0]} if earlier is not None and minor < earlier[1] else e)
    return out


def json_kind(value: Any) -> str:
    """A JSON value's type as a sentence names it: null, a boolean, a number, a string, an array, an object."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _shown(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return json_kind(value)
    return escape.text(_wire.dumps(value), 60)


def describe_line(raw: bytes, limit: int = 120) -> str:
    """A line from the peer, shown safely: decoded leniently, control characters escaped, cut short."""
    return escape.text(raw[: limit * 4].decode("utf-8", errors="replace"), limit)


class Client:
    """A running implementation spoken to in protocol v1; ``seq`` numbers are its own, from 1."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout: float = 10.0,
        start_timeout: float = 30.0,
        max_line: int = DEFAULT_MAX_LINE,
        validate: bool = False,
        connection: Connection | None = None,
        limits: Limits | None = None,
    ) -> None:
        self.argv = list(argv)
        self.limits = limits
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.max_line = max_line
        self.validate = validate
        self.conn: Connection | None = connection  # a process already started, if any
        self.hello: Hello | None = None  # the first handshake: it binds every later start of this client
        self.seq = 0

    # ------------------------------------------------------------ lifetime

    def start(self) -> Hello:
        """Start the process (unless given one) and shake hands; Fault, with the process ended, otherwise.

        The first handshake binds: every later start (a restart, the start
        after a stop) must answer the same ``Identity``, or it is a Fault of
        kind ``identity`` naming each field that changed. It returns the
        first handshake, whichever start this is, so that nothing learnt from
        a later one can differ from what the run was judged by.
        """
        conn = self.conn
        if conn is None:
            conn = self.conn = Connection(self.argv, max_line=self.max_line, limits=self.limits)
        raw = b""
        try:
            if conn.proc is None:
                conn.open()
            raw = conn.exchange(START, self.start_timeout)
            try:
                hello = _wire.loads(raw, strict=True)
            except _wire.WireError as exc:
                raise Fault("handshake", f"the answer to start is not usable JSON ({exc.message})") from None
            problem = handshake_problem(hello, self.validate)
            if problem is not None:
                raise Fault("handshake", f"the answer to start is not usable: {problem}")
        except Fault as exc:
            # What the peer printed and wrote to stderr is what tells an implementer why (an import error, a banner).
            said = conn.said(raw + b"\n" if raw else b"") if conn.proc is not None else ""
            self.kill()
            head = "the implementation never answered start: " if exc.kind in ("timeout", "exited", "too_long") else ""
            raise Fault(exc.kind, head + exc.plain + said, head + exc.plain) from None
        except BaseException:
            self.kill()  # Ctrl-C during the handshake: nothing may outlive the run
            raise
        now = Hello(
            dict(hello["implementation"]),
            tuple(hello["rulesets"]),
            hello.get("protocol_minor", 0),
            hello.get("error_codes", True),
        )
        if self.hello is not None:
            changed = identity_changes(self.hello.identity, now.identity)
            if changed:
                self.kill()  # it answered, but as another implementation: nothing it would say can be judged
                why = "; ".join(changed)
                raise Fault(
                    IDENTITY,
                    f"the implementation changed its identity: {why} (its first answer to start binds the run)",
                )
        self.hello = self.hello or now
        self.seq = 0
        return self.hello

    def close(self) -> None:
        """Ask the peer to stop, then end it and everything it started."""
        if self.conn is not None:
            self.conn.close(STOP)
            self.conn = None

    def kill(self) -> None:
        if self.conn is not None:
            self.conn.kill()
            self.conn = None

    # ------------------------------------------------------------ requests

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    def send(self, line: bytes) -> None:
        """Send request lines without waiting (pipelining); answers are read with ``receive``."""
        conn = self._conn()
        conn.write_all(line, self.timeout)

    def receive(self, seq: int) -> dict[str, Any]:
        """The next answer, which must be a JSON object carrying exactly ``seq``; Fault otherwise."""
        conn = self._conn()
        raw = conn.read_line(self.timeout)
        return self._check(raw, seq)

    def receive_raw(self) -> bytes:
        """The next answer line as it came (newline removed), for a caller that judges it itself."""
        return self._conn().read_line(self.timeout)

    def pending_output(self) -> bool:
        return self.conn is not None and self.conn.pending_output()

    def exchange(self, line: bytes, seq: int) -> dict[str, Any]:
        """Send one request line (already carrying ``seq``) and read its answer."""
        conn = self._conn()
        if conn.pending_output():
            raise Fault("extra_line", "the implementation printed an extra line after the previous answer")
        conn.write_all(line, self.timeout)
        return self._check(conn.read_line(self.timeout), seq)

    def _conn(self) -> Connection:
        if self.conn is None or self.conn.proc is None:
            raise Fault("exited", "the implementation is not running")
        return self.conn

    def _check(self, raw: bytes, seq: int) -> dict[str, Any]:
        try:
            answer = _wire.loads(raw, strict=True)
        except _wire.WireError as exc:
            raise Fault(exc.code, f"invalid JSON in the answer ({exc.message}): {describe_line(raw)}") from None
        if not isinstance(answer, dict):
            raise Fault("not_object", f"the answer is {json_kind(answer)}, not a JSON object: {describe_line(raw)}")
        got = answer.get("seq")
        if not (type(got) is int and got == seq):
            if type(got) is int and 0 < got < seq:
                raise Fault(
                    "extra_line",
                    f"an extra line: this answer has seq {got}, a request already answered; "
                    "the implementation printed more than one line for it",
                )
            raise Fault("seq", f"wrong seq: sent {seq}, the answer has {_shown(got) if 'seq' in answer else 'none'}")
        return answer


__all__ = [
    "IDENTITY",
    "NOT_SENT",
    "PROTOCOL_MINOR",
    "START",
    "STOP",
    "Client",
    "Fault",
    "Hello",
    "Identity",
    "as_spoken",
    "describe_line",
    "handshake_problem",
    "identity_changes",
    "offered_advice",
    "offers_none",
]
