"""A deliberately broken implementation of protocol v1, for testing the harness.

Usage: python fake_impl.py MODE [N]
It answers like the reference, except as MODE says, from the N-th run request on (default 2):
  good        no fault
  wrong       every score in 'final' is off by one
  crash       exits in the middle of the N-th case
  hang        stops answering at the N-th case
  garbage     prints a line that is not JSON for the N-th case
  huge        prints a line of 20 MB for the N-th case
  flood       streams a line of 200 MB, 1 MB at a time, for the N-th case
  seq         answers the N-th case with the wrong seq
  steps       drops a step from the N-th answer
  extra       prints an extra line after the N-th answer
  nostart     exits without answering start
  badstart    answers start with something unusable
  stderr      writes to stderr without end (and answers correctly)
  noruleset   announces no ruleset
  only100     announces vitou/1.0.0 alone
  crashall    crashes at every case from the N-th on (restarts do not help)
  nocodes     every rejected step says "code": "ERROR" and a free-text message, no error code (every case)
  nocodes-hello  as nocodes, and its answer to start says "error_codes": false
  nocodes-bare   every rejected step is {"ok": false} alone, and its answer to start says "error_codes": false
  nocodes-accept as nocodes-hello, but from the N-th case on every rejected step is accepted instead
  nocodes-text   every rejected step's error is free text ("that move is not allowed here"), no code; its answer to start says nothing of error_codes
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

from vitou_ref.adapter import build_server
from vitou_ref.protocol.server import is_blank
from vitou_ref.protocol.wire import WireError, loads


def main() -> int:
    mode = sys.argv[1]
    at = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    server = build_server()
    out = sys.stdout
    runs = 0
    if mode == "stderr":

        def flood() -> None:
            chunk = "noise " * 1000 + "\n"
            while True:
                try:
                    sys.stderr.write(chunk)
                    sys.stderr.flush()
                except Exception:
                    return

        threading.Thread(target=flood, daemon=True).start()
    for line in sys.stdin.buffer:  # read as the reference reads: the envelope is judged under every ruleset
        if is_blank(line):
            continue
        try:
            req = loads(line)
        except WireError:
            req = None
        if not isinstance(req, dict):  # a line that is not a request: the reference's errored answer
            out.write(json.dumps(server.handle(line)) + "\n")
            out.flush()
            continue
        if req.get("cmd") == "start":
            if mode == "nostart":
                return 3
            if mode == "badstart":
                out.write('{"hello": "world"}\n')
                out.flush()
                continue
        if req.get("cmd") == "run":
            runs += 1
        resp = server.handle(line)
        if resp is None:
            return 0
        if mode == "noruleset" and req.get("cmd") == "start":
            resp["rulesets"] = []
        if mode == "only100" and req.get("cmd") == "start":
            resp["rulesets"] = ["vitou/1.0.0"]
        if mode.startswith("nocodes"):
            _no_codes(mode, req, resp, runs >= at)
        faulty = req.get("cmd") == "run" and (runs == at or (mode in ("wrong", "crashall") and runs >= at))
        if faulty:
            if mode == "wrong" and "final" in resp:
                resp["final"]["score"] = {k: v + 1 for k, v in resp["final"]["score"].items()}
            elif mode in ("crash", "crashall"):
                out.write('{"seq": ')
                out.flush()
                os._exit(1)
            elif mode == "hang":
                time.sleep(3600)
            elif mode == "garbage":
                out.write("this is not json\n")
                out.flush()
                continue
            elif mode == "huge":
                out.write('{"seq": 1, "x": "' + "x" * (20 * 1024 * 1024) + '"}\n')
                out.flush()
                continue
            elif mode == "flood":
                chunk = "x" * (1 << 20)
                out.write('{"seq": 1, "x": "')
                for _ in range(200):
                    out.write(chunk)
                out.write('"}\n')
                out.flush()
                continue
            elif mode == "seq":
                resp["seq"] = resp["seq"] + 100
            elif mode == "steps" and resp.get("steps"):
                resp["steps"] = resp["steps"][:-1]
            elif mode == "extra":
                out.write(json.dumps(resp) + "\n")
        out.write(json.dumps(resp) + "\n")
        out.flush()
    return 0


def _no_codes(mode: str, req: dict, resp: dict, faulty: bool) -> None:
    """An engine that refuses illegal actions in its own words: the reference's answers without the error codes."""
    if req.get("cmd") == "start":
        if mode not in ("nocodes", "nocodes-text"):  # these two leave the level to --level
            resp["error_codes"] = False
        return
    steps = resp.get("steps") if req.get("cmd") == "run" else None
    for i, step in enumerate(steps or []):
        if step.get("ok") is not False:
            continue
        if mode == "nocodes-accept" and faulty:
            steps[i] = {"ok": True, "events": [], "legal": []}  # an illegal action taken as legal
        elif mode == "nocodes-bare":
            steps[i] = {"ok": False}
        elif mode == "nocodes-text":
            steps[i] = {"ok": False, "error": "that move is not allowed here"}
        else:
            steps[i] = {"ok": False, "error": "ERROR", "message": "that move is not allowed here"}


if __name__ == "__main__":
    raise SystemExit(main())
