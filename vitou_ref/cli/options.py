"""Option values checked as they are parsed: a bad value is a usage error (exit 2) naming the option."""

from __future__ import annotations

import argparse
import math

# The levels of certification (docs/protocol.md, Levels), for certify, fuzz and the pytest plugin alike.
LEVEL_HELP = (
    "what a refused action must report: its error code (code), or only that it is refused (outcome); "
    "default: as the implementation's answer to start says (error_codes), else code"
)


# --suite, for every command that reads cases: the shipped suites by name, for an installation without a checkout.
SUITE_HELP = (
    "a directory or file of cases, or a shipped suite by name: bundled (the default: conformance/cases) or "
    "settings (the settings profiles' cases: conformance/settings); a name is never a path, ./settings is the "
    "directory here"
)


def number(text: str) -> float:
    """Any finite number (no nan, no inf)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def positive_seconds(text: str) -> float:
    """A finite duration above zero (no nan, no inf)."""
    value = number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be above zero")
    return value


def percent(text: str) -> float:
    value = number(text)
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text!r} must be between 0 and 100")
    return value


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def positive_int(text: str) -> int:
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def count(text: str) -> int:
    """A whole number, zero allowed (restarts, say)."""
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 or more")
    return value


def whole_percent(text: str) -> int:
    value = _integer(text)
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text!r} must be between 0 and 100")
    return value


def seed(text: str) -> int:
    value = _integer(text)
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"{text!r} must be between 0 and 2**63-1")
    return value


def command(text: str) -> str:
    """An implementation's command line: given, it must say something (an unset variable is not the reference)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("the command is empty; leave out --impl to use the bundled reference")
    return text
