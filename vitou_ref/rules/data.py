"""Where the spec, schemas and fixtures live: inside the package once installed, else the checkout."""

from __future__ import annotations

from pathlib import Path

from .errors import VitouError

_PKG = Path(__file__).resolve().parent.parent  # vitou_ref/, two levels up from rules/data.py


def data_dir(name: str) -> Path:
    """The directory ``spec``, ``schema`` or ``conformance``."""
    for candidate in (_PKG / "_data" / name, _PKG.parent / name):
        if candidate.is_dir():
            return candidate
    raise VitouError(f"the bundled {name}/ directory is missing from this installation")
