"""The reference implementation served over protocol v1: ``python -m vitou_ref.adapter``."""

from __future__ import annotations

from .cli.adapter import build_server, main

__all__ = ["build_server", "main"]

if __name__ == "__main__":
    raise SystemExit(main())
