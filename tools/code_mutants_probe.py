"""Run inside a copy of the package: outputs the protocol cases do not show (audit, spec check, limits), as JSON.

tools/code_mutants.py copies this file into each worker's copy of vitou_ref and runs it there, so that the
copy's (mutated) vitou_ref is the one imported: ``python code_mutants_probe.py PLAN.json [I,J,...]`` reads a list of
argument lists for ``vitou``, each run in this process, and of ``{"adapter": [[limit, n], ...]}`` items (lines
at the reference adapter's own limits, after the lines of the file ``adapter_file``), sent to it; runs only the
runs at those indices when given; it prints one JSON list of {exit, out} in the same order. A
mutant whose list differs from the unmutated copy's is killed.
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


START = '{"cmd":"start","protocol":1,"seq":1'


def limit_line(kind: str, n: int) -> bytes:
    """A start request at one of the reference adapter's documented limits (docs/reference/protocol.md), or just past it."""
    if kind == "depth":  # the request object is the first level: n levels in all
        return f'{START},"x":{"[" * (n - 1)}{"]" * (n - 1)}}}'.encode()
    if kind == "depthobj":  # the same depth in objects: each level counts, an array's or an object's
        return (START + ',"x":' + '{"x":' * (n - 1) + "1" + "}" * n).encode()
    if kind == "digits":
        return f'{START},"x":{"7" * n}}}'.encode()
    if kind == "length":  # n bytes, the newline not counted: trailing spaces are JSON whitespace
        head = f"{START}}}".encode()
        return head + b" " * (n - len(head))
    if kind == "cmdlen":  # an unknown command of n letters: a message quotes at most 40 characters of a value
        return ('{"cmd":"' + "x" * n + '","seq":3}').encode()
    if kind == "cmdodd":  # an unknown command of C1 controls, line separators and a lone surrogate, n times
        return ('{"cmd":"' + "\\u0085\\u2028\\u007f\\ud800" * n + '","seq":4}').encode()
    if kind == "cmd":  # an unknown command of n characters, some of them not printable: the message is cut
        return ('{"cmd":"' + "\\u0007é" * n + '","seq":2}').encode()
    raise ValueError(f"unknown limit {kind!r}")


def adapter(data: bytes) -> dict[str, Any]:
    """The answers of this copy's adapter to the lines."""
    import subprocess

    argv = [sys.executable, "-m", "vitou_ref.adapter"]
    done = subprocess.run(argv, input=data, capture_output=True, timeout=60, check=False)
    return {"exit": done.returncode, "out": done.stdout.decode("utf-8", "replace")}


def probe(plan: list[Any]) -> list[dict[str, Any]]:
    from vitou_ref.cli import main

    return [_run(main, item) if isinstance(item, list) else adapter(_lines(item)) for item in plan]


def _lines(item: dict[str, Any]) -> bytes:
    """The lines of the file, then each limit line followed by a start, which must be answered."""
    data = b""
    if "adapter_file" in item:
        with open(item["adapter_file"], "rb") as f:
            data = f.read()
    return data + b"".join(limit_line(kind, n) + b"\n" + f"{START}}}\n".encode() for kind, n in item.get("adapter", []))


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        runs = json.load(f)
    if len(sys.argv) > 2:  # only these runs, by index
        runs = [runs[int(i)] for i in sys.argv[2].split(",") if i]
    sys.stdout.write(json.dumps(probe(runs)) + "\n")
