"""vitou_ref: the rules of Vitou as data, and the reference interpreter that executes them."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__

if TYPE_CHECKING:
    from .engine.actions import (
        Accept,
        Action,
        CallPlay,
        DeclineHand,
        Pass,
        Play,
        PlayHand,
        Raise,
        Refuse,
        Signal,
        action_from_json,
    )
    from .engine.events import Event, HandEvent, MatchEvent, TrickEvent
    from .engine.match import Match, Transition
    from .rules.cards import ALL_CARDS, Card, Rank, Suit
    from .rules.errors import ILLEGAL_BY_CODE, IllegalAction, InputError, SetupError, UnknownRuleset, VitouError
    from .rules.model import Clarification, Clause, ErrorCode, Ruleset
    from .rules.problems import Problem
    from .rules.registry import load_rules_file, load_rules_text, load_ruleset, shipped_names

# The facade names its contents without importing them: ``import vitou_ref``
# (and every ``vitou`` command, which imports the package first) stays cheap,
# and a name's module is imported the first time the name is used (PEP 562).
_WHERE = {
    "ALL_CARDS": "rules.cards",
    "Action": "engine.actions",
    "CallPlay": "engine.actions",
    "Card": "rules.cards",
    "Clarification": "rules.model",
    "Clause": "rules.model",
    "DeclineHand": "engine.actions",
    "ErrorCode": "rules.model",
    "Event": "engine.events",
    "HandEvent": "engine.events",
    "ILLEGAL_BY_CODE": "rules.errors",
    "IllegalAction": "rules.errors",
    "InputError": "rules.errors",
    "Match": "engine.match",
    "MatchEvent": "engine.events",
    "Accept": "engine.actions",
    "Pass": "engine.actions",
    "Play": "engine.actions",
    "PlayHand": "engine.actions",
    "Problem": "rules.problems",
    "Raise": "engine.actions",
    "Rank": "rules.cards",
    "Refuse": "engine.actions",
    "Ruleset": "rules.model",
    "SetupError": "rules.errors",
    "Signal": "engine.actions",
    "Suit": "rules.cards",
    "Transition": "engine.match",
    "TrickEvent": "engine.events",
    "UnknownRuleset": "rules.errors",
    "VitouError": "rules.errors",
    "action_from_json": "engine.actions",
    "load_rules_file": "rules.registry",
    "load_rules_text": "rules.registry",
    "load_ruleset": "rules.registry",
    "shipped_names": "rules.registry",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # the next use is a plain lookup
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])


__all__ = [
    "ALL_CARDS",
    "ILLEGAL_BY_CODE",
    "Accept",
    "Action",
    "CallPlay",
    "Card",
    "Clarification",
    "Clause",
    "DeclineHand",
    "ErrorCode",
    "Event",
    "HandEvent",
    "IllegalAction",
    "InputError",
    "Match",
    "MatchEvent",
    "Pass",
    "Play",
    "PlayHand",
    "Problem",
    "Raise",
    "Rank",
    "Refuse",
    "Ruleset",
    "SetupError",
    "Signal",
    "Suit",
    "Transition",
    "TrickEvent",
    "UnknownRuleset",
    "VitouError",
    "__version__",
    "action_from_json",
    "load_rules_file",
    "load_rules_text",
    "load_ruleset",
    "shipped_names",
]
