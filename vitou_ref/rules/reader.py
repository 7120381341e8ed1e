"""The one reader of every number, id, version and address that comes from outside: ASCII digits, stated ranges."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

# Only ASCII digits are digits here. str.isdigit() also says yes to "²" and "٣", int() takes "٣" and refuses
# "²", and float() takes "٣.٥": a reader built on either lets another script's digits in, or crashes on them.
_WHOLE = re.compile(r"[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?")
_HOST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\]")
MAX_DIGITS = 18  # no count, seed, score or index vitou reads is longer; 2**63 has 19 digits
MAX_VERSION_DIGITS = 9  # each number of a version: no ruleset needs a longer one, and 999999999 is still exact
MAX_DECIMAL = 40  # characters of a decimal number, exponent included
SCHEMES = ("tcp", "tls", "inproc", "ws", "wss", "ucx")  # the address forms a Dask scheduler is reached at


class ReadError(ValueError):
    """A text from outside is not what was asked for; the message names what was wanted and what came."""


def shown(text: str, most: int = 40) -> str:
    """``text`` quoted for a message: controls, bidi overrides and other invisible characters escaped, cut short."""
    cut = text if len(text) <= most else text[:most] + "…"
    return repr(cut)


def looks_numeric(text: str) -> bool:
    """Whether ``text`` is written in digits of any script ("12", "²", "١٢"): a number to read, never a word."""
    return bool(text) and all(c.isdigit() for c in text)


def is_whole(text: str, max_digits: int = MAX_DIGITS) -> bool:
    """Whether ``text`` is ASCII digits alone, at most ``max_digits`` of them."""
    return len(text) <= max_digits and _WHOLE.fullmatch(text) is not None


def whole(
    text: str, *, lo: int = 0, hi: int | None = None, what: str = "a whole number", max_digits: int = MAX_DIGITS
) -> int:
    """``text`` as a whole number from ``lo`` to ``hi`` (ASCII digits, no sign, no spaces); ReadError otherwise."""
    if not isinstance(text, str):
        raise ReadError(f"{what} is needed, not {type(text).__name__}")
    if text[:1] in ("+", "-") and _WHOLE.fullmatch(text[1:]) is not None:
        raise ReadError(f"{shown(text)} is not {what}: {_bounds(lo, hi)}, written without a sign")
    if _WHOLE.fullmatch(text) is None:
        head = f"{shown(text)} is not {what}" if text else f"{what} is needed, and nothing was given"
        raise ReadError(
            head
            + (": write it in the digits 0-9" if text and any(c.isdigit() and not c.isascii() for c in text) else "")
        )
    if len(text) > max_digits:
        raise ReadError(f"{shown(text, 12)} is not {what}: {len(text)} digits, at most {max_digits}")
    value = int(text)
    if value < lo or (hi is not None and value > hi):
        raise ReadError(f"{shown(text)} is out of range: {what} {_bounds(lo, hi)}")
    return value


def _bounds(lo: int, hi: int | None) -> str:
    return f"from {lo} to {hi}" if hi is not None else f"{lo} or more"


def decimal(
    text: str, *, lo: float | None = None, hi: float | None = None, above: float | None = None, what: str = "a number"
) -> float:
    """``text`` as a finite decimal number in range (ASCII digits, optional sign, point and exponent)."""
    if not isinstance(text, str):
        raise ReadError(f"{what} is needed, not {type(text).__name__}")
    if len(text) > MAX_DECIMAL or _DECIMAL.fullmatch(text) is None:
        if text.lower().lstrip("+-") in ("nan", "inf", "infinity"):  # what float() takes, and no number is
            raise ReadError(f"{shown(text)} is not a finite number")
        if not text:
            raise ReadError(f"{what} is needed, and nothing was given")
        raise ReadError(f"{shown(text)} is not {what}: write it in the digits 0-9, as 2.5 or 1e3")
    value = float(text)
    if not math.isfinite(value):
        raise ReadError(f"{shown(text)} is not a finite number")
    if above is not None and value <= above:
        raise ReadError(f"{shown(text)} is out of range: {what} above {_said(above)}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        if lo is not None and hi is not None:
            bound = f"from {_said(lo)} to {_said(hi)}"
        else:
            bound = f"{_said(lo)} or more" if lo is not None else f"{_said(hi or 0)} or less"
        raise ReadError(f"{shown(text)} is out of range: {what} {bound}")
    return value


def _said(bound: float) -> str:
    """A bound as a message writes it: 1,000,000 rather than 1e+06, 0.5 as it is."""
    return f"{int(bound):,}" if float(bound).is_integer() and abs(bound) < 1e15 else f"{bound:g}"


def version(text: str, *, what: str = "a version") -> tuple[int, int, int]:
    """``MAJOR.MINOR.PATCH``: three whole numbers in ASCII digits, no leading zeros, at most 9 digits each."""
    if not isinstance(text, str):
        raise ReadError(f"{what} is needed, not {type(text).__name__}")
    parts = text.split(".")
    if len(parts) != 3 or not all(_WHOLE.fullmatch(p) for p in parts):
        raise ReadError(f"{shown(text)} is not {what}: give MAJOR.MINOR.PATCH, three whole numbers (1.0.0)")
    if any(len(p) > MAX_VERSION_DIGITS for p in parts):
        raise ReadError(f"{shown(text, 24)} is not {what}: each of its numbers has at most {MAX_VERSION_DIGITS} digits")
    if any(len(p) > 1 and p[0] == "0" for p in parts):
        raise ReadError(f"{shown(text)}: the numbers of a version have no leading zeros")
    major, minor, patch = (int(p) for p in parts)
    return major, minor, patch


@dataclass(frozen=True)
class Address:
    """A network address read from outside: a scheme, a host and a port."""

    scheme: str
    host: str
    port: int

    def __str__(self) -> str:
        return f"{self.scheme}://{self.host}:{self.port}"


def address(text: str, *, what: str = "an address", default_scheme: str = "tcp") -> Address:
    """``text`` as ``[scheme://]host:port`` (port 1-65535, a host name or an address); ReadError otherwise."""
    if not isinstance(text, str) or not text:
        raise ReadError(f"{what} is needed, as HOST:PORT or tcp://HOST:PORT, and nothing was given")
    if len(text) > 300 or not text.isascii() or not text.isprintable():
        raise ReadError(f"{shown(text)} is not {what}: give HOST:PORT or tcp://HOST:PORT in plain ASCII")
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = default_scheme, text
    if scheme not in SCHEMES:
        raise ReadError(f"{shown(text)} is not {what}: the scheme {shown(scheme)} is not one of {', '.join(SCHEMES)}")
    host, colon, port = rest.rpartition(":")
    if not colon or not host:
        raise ReadError(f"{shown(text)} is not {what}: it names no port; give HOST:PORT, as 127.0.0.1:8786")
    if _HOST.fullmatch(host) is None:
        raise ReadError(f"{shown(text)} is not {what}: {shown(host)} is not a host name or an address")
    return Address(scheme, host, whole(port, lo=1, hi=65535, what="a port", max_digits=5))


__all__ = [
    "MAX_DIGITS",
    "MAX_VERSION_DIGITS",
    "Address",
    "ReadError",
    "address",
    "decimal",
    "is_whole",
    "looks_numeric",
    "shown",
    "version",
    "whole",
]
