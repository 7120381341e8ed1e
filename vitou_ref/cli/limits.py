"""The options that bound what an implementation under test may use, as certify and fuzz parse them."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..protocol.limits import Limits


def checked(parse: Callable[[str], int | None]) -> Callable[[str], int | None]:
    """``parse`` as an argparse type: its ValueError becomes the usage error it says (exit 2)."""

    def check(text: str) -> int | None:
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    check.__name__ = parse.__name__
    return check


def add_options(parser: argparse.ArgumentParser) -> None:
    from .._limitoptions import NO_NETWORK_HELP, OPTIONS  # the standard library only: the parser stays cheap

    group = parser.add_argument_group(
        "limits of the implementation", "a process that passes one is ended, and the case is a CRASH that names it"
    )
    for name, _field, parse, metavar, text, default in OPTIONS:  # argparse parses a default given as text
        group.add_argument(
            f"--{name}",
            type=checked(parse),
            default=default,
            metavar=metavar,
            help=f"{text} (default {default}; none)",
        )
    group.add_argument("--no-network", action="store_true", help=NO_NETWORK_HELP)


def from_values(values: dict[str, Any], no_network: bool, prefix: str = "--") -> Limits:
    from ..protocol.limits import Limits

    return Limits(**values, no_network=no_network, prefix=prefix)


def from_args(args: argparse.Namespace) -> Limits:
    from .._limitoptions import OPTIONS

    values = {field: getattr(args, name.replace("-", "_")) for name, field, *_ in OPTIONS}
    return from_values(values, args.no_network)


__all__ = ["add_options", "checked", "from_args", "from_values"]
