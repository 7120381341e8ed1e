"""Protocol v1: one JSON request per line in, one JSON response per line out."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import IO, Any

from ._actions import Malformed, action_from_json
from ._errors import IllegalAction, SetupError, VitouError
from ._events import Event
from ._match import Match
from ._model import Ruleset
from ._tables import Tables, tables_for

PROTOCOL = 1
MAX_LINE = 16 * 1024 * 1024


def run_case(t: Tables, setup: Any, actions: Any, seq: Any = None, trace: list[Event] | None = None) -> dict[str, Any]:
    """The response to one ``run`` request (the errored form when the setup cannot be used).

    ``trace``, when given, receives every event as the interpreter made it
    (with what the protocol leaves out, such as the resolution row).
    """
    if not isinstance(setup, Mapping):
        return errored(seq, "setup must be a JSON object")
    if not isinstance(actions, list):
        return errored(seq, "actions must be a JSON array")
    try:
        match = match_from_setup(t, setup)
    except SetupError as exc:
        return errored(seq, f"setup: {exc}")
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
    return Match(t, dealer=dealer, draw=setup.get("draw"), deals=deals, score=setup.get("score"))


def errored(seq: Any, message: str) -> dict[str, Any]:
    return {"seq": seq, "errored": True, "message": message}


class Server:
    """Serves protocol v1 for a set of rulesets."""

    def __init__(self, rulesets: Iterable[Ruleset], implementation: Mapping[str, str]) -> None:
        self.tables = {r.name: tables_for(r) for r in rulesets}
        self.implementation = dict(implementation)

    def handle(self, line: str) -> dict[str, Any] | None:
        """The response to one request line; None for ``stop``."""
        try:
            req = json.loads(line)
        except ValueError as exc:
            return errored(None, f"the request is not JSON: {exc}")
        if not isinstance(req, dict):
            return errored(None, "a request is a JSON object")
        seq = req.get("seq")
        if not (seq is None or (isinstance(seq, int) and not isinstance(seq, bool))):
            seq = None
        cmd = req.get("cmd")
        if cmd == "start":
            if req.get("protocol") != PROTOCOL:
                return errored(
                    seq, f"protocol {req.get('protocol')!r} is not supported; this implementation speaks {PROTOCOL}"
                )
            return {"protocol": PROTOCOL, "implementation": self.implementation, "rulesets": list(self.tables)}
        if cmd == "stop":
            return None
        if cmd == "run":
            if "seq" not in req or seq is None:
                return errored(None, "a run request needs an integer seq")
            name = req.get("ruleset")
            t = self.tables.get(name) if isinstance(name, str) else None
            if t is None:
                return errored(seq, f"unknown ruleset {name!r}; this implementation serves {', '.join(self.tables)}")
            try:
                return run_case(t, req.get("setup"), req.get("actions"), seq)
            except VitouError as exc:  # pragma: no cover - every rule failure is a step
                return errored(seq, str(exc))
        return errored(seq, f"unknown cmd {cmd!r} (commands: start, run, stop)")

    def serve(self, inp: IO[str], out: IO[str]) -> int:
        while True:
            line = inp.readline(MAX_LINE + 1)
            if not line:
                return 0
            if len(line) > MAX_LINE:
                # Skip the rest of an oversized line; answer once for it.
                while line and not line.endswith("\n"):
                    line = inp.readline(MAX_LINE + 1)
                response: dict[str, Any] | None = errored(None, f"request line over {MAX_LINE} characters")
            elif not line.strip():
                continue
            else:
                response = self.handle(line)
            if response is None:
                return 0
            out.write(json.dumps(response, separators=(",", ":"), ensure_ascii=False) + "\n")
            out.flush()
