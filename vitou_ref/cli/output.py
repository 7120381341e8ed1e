"""Where a command's output goes: JSON made safe for a terminal, a document to --output or standard output."""

from __future__ import annotations

import json
import sys
from typing import Any

from ..rules.errors import OutputFailed


def json_text(obj: Any) -> str:
    """JSON as a command prints it: indented, and safe for a terminal."""
    from ..protocol.wire import terminal_safe_json

    return terminal_safe_json(json.dumps(obj, indent=2, ensure_ascii=False)) + "\n"


def print_json(obj: Any) -> None:
    sys.stdout.write(json_text(obj))


def emit(text: str, output: str | None) -> None:
    """Command output: to the --output file when given, to stdout otherwise."""
    if output:
        try:
            with open(output, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise OutputFailed(f"--output: {output}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(text)


__all__ = ["emit", "json_text", "print_json"]
