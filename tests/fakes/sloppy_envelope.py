"""An implementation right on the game and sloppy on the envelope, one way per mode, for the envelope cases' tests.

Usage: python sloppy_envelope.py MODE [RULESET ...]
It answers like the reference, except that MODE breaks one thing docs/reference/protocol.md states about lines that
are not proper requests, unusable setups, or action fields of the wrong JSON type. Each mode is a mistake
an implementation could plausibly make; tests/test_envelope.py checks which envelope cases catch each one, and
tests/test_envelope_rulesets.py that they catch it under Le Truc as under Vitou. RULESET ...: the rulesets it serves
and offers (all the reference's by default), as an engine of one game offers its own.
"""

from __future__ import annotations

import contextlib
import json
import sys
from typing import Any

from vitou_ref.adapter import build_server
from vitou_ref.engine.tables import tables_for
from vitou_ref.protocol.server import match_from_setup
from vitou_ref.protocol.wire import depth_of
from vitou_ref.rules.errors import SetupError
from vitou_ref.rules.registry import load_ruleset

MODES = {
    "good": "no mistake: the reference itself, through this loop",
    "seq_zero": "an errored answer whose seq could not be read says 0, not null",
    "lenient_seq": 'a seq of "1", 1.0, 1e0 or true is read as the integer',
    "answer_blank": "a blank line gets an errored answer",
    "keep_bom": "a leading byte-order mark is not ignored",
    "first_key": "a key given twice keeps its first value",
    "strict_fields": "a field a request does not use makes it errored",
    "unknown_cmd_null": "an unknown or mistyped cmd gets seq null",
    "lenient_start": 'start accepts protocol "1", 1.0 and true',
    "float_seq": "seq goes through a double: large integers lose digits",
    "default_ruleset": "a run without a usable ruleset string is played under the first Vitou ruleset served",
    "accept_dealer": "a setup whose dealer cannot be used is played with the first seat dealing",
    "accept_deals": "a setup whose deals cannot be used is played with no deals",
    "accept_draw": "a setup whose draw cannot be used is played with the first seat dealing",
    "accept_score": "a setup whose score cannot be used is played from 0-0",
    "strict_setup": "a setup with a field other than dealer, draw, score and deals is errored",
    "whole_score": "a score that does not name every side is errored, {} included",
    "null_score": "a score of null is read as no score, 0-0",
    "split_cr": "a lone CR ends a line, as a text reader with universal newlines has it",
    "float_to": "an integral number (3.0, 3e0) is read as the integer, in actions too",
    "card_type": "a card of the wrong JSON type is ACTION_MALFORMED, not CARD_MALFORMED",
    "seat_str": "a seat or side of the wrong JSON type is read as its text (UNKNOWN_SEAT, UNKNOWN_SIDE)",
    "crash_long": "exits on a line over 1 MiB",
    "crash_deep": "parses with unbounded recursion and exits when it fails",
    "crash_bigint": "exits on an integer it cannot convert",
    "replace_utf8": "bytes that are not UTF-8 are replaced with U+FFFD and the line read",
    "nan_ok": "NaN and Infinity are read as numbers",
    "unwrap_array": "a line holding an array of one request is read as that request",
    "double": "every errored answer is written twice",
    "stop_serves_on": "stop is ignored: it serves on to the end of its input",
    "stop_exit_1": "exits with status 1 at stop",
    "stop_seq": "a stop that carries a seq is read as a request it cannot use: errored with that seq, and it serves on",
    "fgets_split": "a line is read in pieces of 16 MiB less a byte (a buffer and its terminator), each answered",
    "crash_at_64": "exits on a line nested 64 deep or deeper: its parser's stack holds 63 levels",
    "underflow_range": "a number too small for a double (1e-400) is out of range: the line is errored, seq null",
    "strip_marks": "every byte-order mark and blank before the JSON is skipped, not only a leading mark",
    "start_seq": "a start that carries a seq is errored with that seq: start takes no seq",
    "lenient_ruleset": "a ruleset's name is read trimmed and in any case, and an id or a short version is its latest",
}

PIECE = (1 << 24) - 1  # fgets_split: the longest piece of a line it reads at once
server = build_server()
SERVED = {name: tables_for(load_ruleset(name)) for name in server.tables}


def serve_only(names: list[str]) -> None:
    """Serve and offer these rulesets alone, as an engine of one game does."""
    for name in [n for n in SERVED if n not in names]:
        del server.tables[name], SERVED[name]


def first() -> str:
    """The ruleset played when a run names none it serves: the first Vitou, or the first served (an engine's own)."""
    return next((name for name in server.tables if name.startswith("vitou/")), next(iter(server.tables)))


def errored(seq: Any, message: str = "sloppy") -> dict[str, Any]:
    return {"seq": seq, "errored": True, "message": message}


def setup_fault(req: Any) -> str | None:
    """The setup field a run request's setup fails on (dealer, deals, draw, score), or None."""
    if not isinstance(req, dict) or not isinstance(req.get("setup"), dict) or req.get("ruleset") not in SERVED:
        return None
    try:
        match_from_setup(SERVED[req["ruleset"]], req["setup"])
    except SetupError as exc:
        return exc.path.split("/")[0] or "dealer"
    return None


def repaired(req: dict[str, Any], fault: str) -> dict[str, Any]:
    setup = dict(req["setup"])
    if fault == "deals":
        setup["deals"] = []
    elif fault == "score":
        setup.pop("score")
    else:
        setup.pop("draw", None)
        setup["dealer"] = SERVED[req["ruleset"]].seat_ids[0]
    return {**req, "setup": setup}


def lenient(raw: bytes, mode: str) -> Any:
    """The line parsed the sloppy way, or a string saying why it cannot be."""
    text = raw.decode("utf-8", errors="replace" if mode == "replace_utf8" else "strict")
    if mode != "keep_bom":
        text = text.removeprefix("\ufeff")
    hooks: dict[str, Any] = {"parse_constant": _constant if mode != "nan_ok" else (lambda name: None)}
    if mode == "first_key":
        hooks["object_pairs_hook"] = lambda pairs: dict(reversed(pairs))
    if mode == "underflow_range":
        hooks["parse_float"] = _no_underflow
    if mode == "float_to":
        hooks["parse_float"] = lambda s: int(float(s)) if float(s).is_integer() else float(s)
    return json.loads(text, **hooks)


def _without_marks(raw: bytes) -> bytes:
    """The line with every byte-order mark and blank before its JSON skipped (strip_marks)."""
    rest = raw.lstrip(b" \t\r").removeprefix(b"\xef\xbb\xbf")
    return raw if rest == raw else _without_marks(rest)


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _no_underflow(text: str) -> float:
    value = float(text)
    if value == 0 and any(d in "123456789" for d in text.lower().partition("e")[0]):
        raise ValueError(f"{text} is out of the double range")
    return value


def answer(raw: bytes, mode: str) -> list[dict[str, Any]]:
    if raw.strip(b" \t\r") in (b"", b"\xef\xbb\xbf") and mode != "keep_bom":
        return [errored(None)] if mode == "answer_blank" else []
    if len(raw) > 1 << 20:  # this implementation's own limit: 1 MiB
        if mode == "crash_long":
            sys.exit(3)
        return [errored(None, "line too long")]
    if mode == "keep_bom" and raw.startswith(b"\xef\xbb\xbf"):
        return [errored(None)]
    if mode == "strip_marks":
        raw = _without_marks(raw)
    if mode == "crash_at_64" and depth_of(raw.decode("utf-8", errors="replace")) >= 64:
        sys.exit(3)
    try:
        req = lenient(raw, mode)
    except RecursionError:
        if mode == "crash_deep":
            sys.exit(3)
        req = None
    except ValueError as exc:
        if mode == "crash_bigint" and "digits" in str(exc):
            sys.exit(3)
        if mode == "underflow_range" and "out of the double range" in str(exc):
            return [errored(None, str(exc))]
        req = None
    if mode == "unwrap_array" and isinstance(req, list) and len(req) == 1:
        req = req[0]
    if isinstance(req, dict) and req.get("cmd") == "stop":
        if mode == "stop_serves_on":
            return []  # read like a blank line: no answer, and on to the next
        if mode == "stop_seq" and "seq" in req:
            return [errored(req["seq"], "stop takes no seq")]
        sys.stdout.flush()
        sys.exit(1 if mode == "stop_exit_1" else 0)
    if mode in ("first_key", "float_to", "replace_utf8", "nan_ok", "unwrap_array") and req is not None:
        raw = json.dumps(req, allow_nan=False).encode()
    return _shaped(raw, req, mode)


def _shaped(raw: bytes, req: Any, mode: str) -> list[dict[str, Any]]:
    if isinstance(req, dict):
        req = _fixed_request(req, mode)
        if req is None:
            return [errored(None)]
        if isinstance(req, dict) and "errored" in req:
            return [req]
        raw = json.dumps(req).encode()
    out = server.handle(raw)
    if out is None:
        sys.exit(0)
    return _after(out, req, mode)


def _fixed_request(req: dict[str, Any], mode: str) -> Any:
    seq = req.get("seq")
    if mode == "lenient_seq" and type(seq) is not int and seq is not None and "seq" in req:
        with contextlib.suppress(TypeError, ValueError):
            req = {**req, "seq": int(seq)}
    if mode == "strict_fields" and set(req) - {"cmd", "seq", "ruleset", "setup", "actions", "protocol"}:
        return errored(req.get("seq") if type(req.get("seq")) is int else None, "unknown field")
    if mode == "lenient_start" and req.get("cmd") == "start" and req.get("protocol") in ("1", 1.0, True):
        return {**req, "protocol": 1}
    if mode == "start_seq" and req.get("cmd") == "start" and req.get("protocol") == 1 and "seq" in req:
        return errored(req["seq"] if type(req["seq"]) is int else None, "start takes no seq")
    if mode == "default_ruleset" and req.get("cmd") == "run" and req.get("ruleset") not in SERVED:
        req = {**req, "ruleset": first()}
    if mode == "lenient_ruleset" and req.get("cmd") == "run" and isinstance(req.get("ruleset"), str):
        req = {**req, "ruleset": _lenient_name(req["ruleset"])}
    setup = req.get("setup") if req.get("cmd") == "run" and req.get("ruleset") in SERVED else None
    if isinstance(setup, dict):
        sloppy = _sloppy_setup(setup, SERVED[req["ruleset"]].side_ids, mode)
        if sloppy is None:
            return errored(req.get("seq") if type(req.get("seq")) is int else None, "sloppy setup")
        req = {**req, "setup": sloppy}
    fault = setup_fault(req)
    if fault is not None and mode == f"accept_{fault}":
        req = repaired(req, fault)
    if mode == "seat_str":
        req = (
            {**req, "actions": [_seat_text(a) for a in req.get("actions", [])]}
            if isinstance(req.get("actions"), list)
            else req
        )
    return req


def _lenient_name(name: str) -> str:
    """The served ruleset a name is read as: trimmed, in any case; an id alone or a short version, the latest."""
    wanted = name.strip().lower()
    rid, _, version = wanted.partition("/")
    served = [
        n for n in SERVED if n == wanted or (n.partition("/")[0] == rid and n.partition("/")[2].startswith(version))
    ]
    return served[-1] if served else name


def _sloppy_setup(setup: dict[str, Any], sides: tuple[str, ...], mode: str) -> dict[str, Any] | None:
    """The setup as the sloppy mode reads it, or None where it calls it unusable."""
    if mode == "strict_setup" and set(setup) - {"dealer", "draw", "score", "deals"}:
        return None
    score = setup.get("score")
    if mode == "whole_score" and isinstance(score, dict) and set(score) != set(sides):
        return None
    if mode == "null_score" and "score" in setup and score is None:
        return {k: v for k, v in setup.items() if k != "score"}
    return setup


def _seat_text(action: Any) -> Any:
    if not isinstance(action, dict):
        return action
    return {k: (json.dumps(v) if k in ("seat", "side") and not isinstance(v, str) else v) for k, v in action.items()}


def _after(out: dict[str, Any], req: Any, mode: str) -> list[dict[str, Any]]:
    if out.get("errored") is True:
        if mode == "seq_zero" and out["seq"] is None:
            out = {**out, "seq": 0}
        if mode == "unknown_cmd_null" and isinstance(req, dict) and req.get("cmd") not in ("run", "start"):
            out = {**out, "seq": None}
        return [out, out] if mode == "double" else [out]
    if mode == "float_seq" and type(out.get("seq")) is int:
        out = {**out, "seq": int(float(out["seq"]))}
    if mode == "card_type" and isinstance(req, dict):
        steps = out.get("steps", [])
        for action, step in zip(req.get("actions", []), steps):
            if isinstance(action, dict) and "card" in action and not isinstance(action["card"], str):
                step["error"] = "ACTION_MALFORMED"
    return [out]


def main() -> int:
    mode = sys.argv[1]
    if mode not in MODES:
        print(f"modes: {', '.join(MODES)}", file=sys.stderr)
        return 2
    if sys.argv[2:]:
        serve_only(sys.argv[2:])
    for line in sys.stdin.buffer:
        raw = line.rstrip(b"\n")
        parts = raw.split(b"\r") if mode == "split_cr" else [raw]
        if mode == "fgets_split":
            parts = [raw[i : i + PIECE] for i in range(0, max(len(raw), 1), PIECE)]
        for part in parts:
            for out in answer(part, mode):
                sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
