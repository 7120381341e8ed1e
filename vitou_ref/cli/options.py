"""Option values checked as they are parsed: a bad value is a usage error (exit 2) naming the option."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, TypeVar

from ..rules import reader

_T = TypeVar("_T")

# The levels of certification (docs/reference/protocol.md, Levels), for certify, fuzz and the pytest plugin alike.
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


def read_option(read: Callable[..., _T], text: str, **bounds: Any) -> _T:
    """``text`` read by the one reader; its ReadError becomes the usage error it says (exit 2, naming the option)."""
    try:
        return read(text, **bounds)
    except reader.ReadError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def number(text: str) -> float:
    """Any finite number (no nan, no inf), in the digits 0-9."""
    return read_option(reader.decimal, text)


# The longest wait or run any option asks for: time.sleep(), a thread's join() and a deadline on the clock all
# overflow long before 1e300 seconds, which float() and the reader take as finite.
MAX_SECONDS = 1_000_000  # eleven days and a half


def positive_seconds(text: str) -> float:
    """A finite duration above zero, at most MAX_SECONDS."""
    return read_option(reader.decimal, text, above=0, hi=MAX_SECONDS, what="a number of seconds")


def positive(text: str) -> float:
    """A finite number above zero (a width, say)."""
    return read_option(reader.decimal, text, above=0, what="a number")


def percent(text: str) -> float:
    return read_option(reader.decimal, text, lo=0, hi=100, what="a percentage")


def positive_int(text: str) -> int:
    return read_option(reader.whole, text, lo=1)


def count(text: str) -> int:
    """A whole number, zero allowed (restarts, say)."""
    return read_option(reader.whole, text, lo=0)


def whole_percent(text: str) -> int:
    return read_option(reader.whole, text, lo=0, hi=100, what="a whole percentage")


def seed(text: str) -> int:
    return read_option(reader.whole, text, lo=0, hi=2**63 - 1, what="a seed", max_digits=19)


# The most deals a search samples at one decision (vitou_ref.players.search.MAX_BUDGET): each is a match in memory,
# and 10**18 of them filled every byte of the machine before the first decision.
MAX_BUDGET = 10_000


def search_budget(text: str) -> int:
    return read_option(reader.whole, text, lo=1, hi=MAX_BUDGET, what="a search budget")


def command(text: str) -> str:
    """An implementation's command line: given, it must say something (an unset variable is not the reference)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("the command is empty; leave out --impl to use the bundled reference")
    return text
