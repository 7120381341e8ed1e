"""The options that bound what an implementation under test may use, as certify and fuzz parse them."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..protocol.limits import Limits


def add_options(parser: argparse.ArgumentParser) -> None:
    from .._limitoptions import (  # the standard library only: the parser stays cheap
        NO_NETWORK_HELP,
        OPTIONS,
        option_type,
    )

    group = parser.add_argument_group(
        "limits of the implementation", "a process that passes one is ended, and the case is a CRASH that names it"
    )
    for name, _field, parse, metavar, text, default in OPTIONS:  # argparse parses a default given as text
        group.add_argument(
            f"--{name}",
            type=option_type(parse),
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


__all__ = ["add_options", "from_args", "from_values"]
