"""Run inside a copy of the package: the outputs no protocol answer shows (audit rulings, spec check), as JSON.

tools/code_mutants.py copies this file into each worker's copy of vitou_ref and runs it there, so that the
copy's (mutated) vitou_ref is the one imported: ``python code_mutants_probe.py PLAN.json`` reads a list of
argument lists for ``vitou``, runs each in this process, and prints one JSON list of {exit, out} in the same
order. A mutant whose list differs from the unmutated copy's is killed.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from typing import Any


def _run(main: Any, args: list[str]) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            code: Any = main(args)
        except SystemExit as exc:
            code = exc.code
        except Exception as exc:  # a mutant may raise anything: that is an output like any other
            code = f"raised {type(exc).__name__}"
    return {"exit": code, "out": out.getvalue()}


def probe(plan: list[list[str]]) -> list[dict[str, Any]]:
    from vitou_ref.cli import main

    return [_run(main, args) for args in plan]


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        runs = json.load(f)
    sys.stdout.write(json.dumps(probe(runs)) + "\n")
