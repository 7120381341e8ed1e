"""The limit options' names, defaults and parsers: a leaf that the plugin reads in every pytest run, cheaply."""

from __future__ import annotations

import re
from collections.abc import Callable

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
# ASCII digits only, and few enough for int(): a leaf imports nothing of vitou, so these read as
# vitou_ref.rules.reader does (int() alone takes "١٢" and "1_000"). No limit needs more than 15 digits.
_SIZE = re.compile(r"([0-9]{1,15})[ \t]*([KMGT]?)(?:I?B)?", re.IGNORECASE)
_WHOLE = re.compile(r"[0-9]{1,15}")


def _none(text: str) -> bool:
    return text.strip().lower() in ("none", "unlimited")


def option_type(parse: Callable[[str], int | None]) -> Callable[[str], int | None]:
    """``parse`` as an option type (argparse's and pytest's alike): its ValueError becomes the usage error it says."""

    def check(text: str) -> int | None:
        import argparse

        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    check.__name__ = parse.__name__
    return check


def parse_size(text: str) -> int | None:
    """A byte count, with K, M, G or T (powers of 1024: 4G, 512MiB), or none; ValueError saying why otherwise."""
    if _none(text):
        return None
    m = _SIZE.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"{text[:40]!r} is not a size (say 4G, 512M, 65536 or none)")
    value = int(m.group(1)) * _UNITS[m.group(2).upper()]
    if value < 1:
        raise ValueError(f"{text!r} must be above zero (or none)")
    return value


def parse_whole(text: str) -> int | None:
    """A whole number above zero, or none; ValueError saying why otherwise."""
    if _none(text):
        return None
    if _WHOLE.fullmatch(text.strip()) is None:
        raise ValueError(f"{text[:40]!r} is not a whole number in the digits 0-9 (or none)")
    value = int(text)
    if value < 1:
        raise ValueError(f"{text!r} must be at least 1 (or none)")
    return value


# The options, spelt without their prefix: (name, Limits field, parser, metavar, help, default as the help says it).
OPTIONS = (
    ("limit-memory", "memory", parse_size, "SIZE", "data memory of each process of the implementation", "4G"),
    ("limit-cpu", "cpu", parse_whole, "SEC", "CPU seconds of each process of the implementation", "3600"),
    ("limit-file-size", "file_size", parse_size, "SIZE", "size of any one file the implementation writes", "1G"),
    ("limit-open-files", "open_files", parse_whole, "N", "open files of each process of the implementation", "1024"),
)
NO_NETWORK_HELP = (
    "run the implementation in a network namespace of its own, with no network at all (Linux; exit 2 where the "
    "system cannot)"
)

__all__ = ["NO_NETWORK_HELP", "OPTIONS", "option_type", "parse_size", "parse_whole"]
