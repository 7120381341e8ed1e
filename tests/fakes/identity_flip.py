"""An implementation whose answer to start changes from one start to the next: the first handshake must bind the run.

Usage: python identity_flip.py FIELD STATE [--flip N] [--crash K]

It answers like the reference, named ``Flipper 1.0``. STATE is a file it appends
a line to at each start, so that it knows which start of the run this is (the
harness starts a new process after a crash and after a stop). From the N-th
start on (default 2), its answer to start changes as FIELD says:

  error_codes      "error_codes": false, then true; its refusals never carry a code
                   (the attack: judged at the outcome level, certified at the code level)
  codes_dropped    no error_codes field (true), then false; its refusals carry the codes
  name             implementation name "Flipper", then "Other"
  version          implementation version "1.0", then "2.0"
  version_number   implementation version "1", then the number 1
  protocol_minor   protocol_minor 1, then 0
  rulesets         every ruleset the reference offers, then the same without le-truc/1.0.0
  implementation_string  the implementation object, then the string "Flipper"
  none             nothing changes (a restart that must not be taken for a fault)
  outcome          nothing changes: "error_codes": false at every start, and refusals without codes (honest)
  rulesets_order   the same rulesets in reverse order (an offer is a set)
  extra_field      the implementation's other fields change (language, build): only name and version bind
  minor_default    "protocol_minor": 0, then no protocol_minor at all (1.0 either way)

With ``--crash K``, each process started before the N-th exits in the middle of
its answer to the K-th request after start (any line), to provoke a restart.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from vitou_ref.adapter import build_server

BASE = {"name": "Flipper", "version": "1.0", "language": "python"}


def hello(field: str, flipped: bool, answer: dict[str, Any]) -> dict[str, Any]:
    """The answer to start for this start of the run: the reference's, named Flipper, with FIELD as it stands."""
    out = {**answer, "implementation": dict(BASE)}
    impl = out["implementation"]
    if field == "error_codes":
        out["error_codes"] = flipped
    elif field == "outcome" or (field == "codes_dropped" and flipped):
        out["error_codes"] = False
    elif field == "name" and flipped:
        impl["name"] = "Other"
    elif field == "version":
        impl["version"] = "2.0" if flipped else "1.0"
    elif field == "version_number":
        impl["version"] = 1 if flipped else "1"
    elif field == "protocol_minor" and flipped:
        out["protocol_minor"] = 0
    elif field == "rulesets" and flipped:
        out["rulesets"] = [r for r in out["rulesets"] if r != "le-truc/1.0.0"]
    elif field == "implementation_string" and flipped:
        out["implementation"] = "Flipper"
    elif field == "rulesets_order" and flipped:
        out["rulesets"] = list(reversed(out["rulesets"]))
    elif field == "extra_field" and flipped:
        impl.update(language="rust", build="second")
    elif field == "minor_default":
        if flipped:
            del out["protocol_minor"]
        else:
            out["protocol_minor"] = 0
    return out


def uncoded(answer: dict[str, Any]) -> None:
    """Refusals in the engine's own words, without the ruleset's codes."""
    for i, step in enumerate(answer.get("steps") or []):
        if isinstance(step, dict) and step.get("ok") is False:
            answer["steps"][i] = {"ok": False, "error": "ERROR", "message": "not allowed here"}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("field")
    parser.add_argument("state")
    parser.add_argument("--flip", type=int, default=2)
    parser.add_argument("--crash", type=int, default=0)
    args = parser.parse_args()
    server = build_server()
    start = 0
    requests = 0
    for line in sys.stdin:
        answer = server.handle(line)
        if answer is None:
            return 0  # stop: exit with status 0, as the protocol asks
        if answer.get("protocol") == 1 and "rulesets" in answer:
            with open(args.state, "a", encoding="utf-8") as fh:
                fh.write("start\n")
            with open(args.state, encoding="utf-8") as fh:
                start = len(fh.readlines())
            answer = hello(args.field, start >= args.flip, answer)
        else:
            requests += 1
            if args.crash and requests == args.crash and start < args.flip:
                sys.stdout.write('{"seq": ')
                sys.stdout.flush()
                os._exit(1)
            if args.field in ("error_codes", "outcome"):
                uncoded(answer)
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
