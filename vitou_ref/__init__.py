"""vitou_ref: the rules of Vitou as data, and the reference interpreter that executes them."""

from __future__ import annotations

from ._version import __version__
from .engine.actions import (
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
from .rules.errors import (
    ILLEGAL_BY_CODE,
    IllegalAction,
    InputError,
    SetupError,
    UnknownRuleset,
    VitouError,
)
from .rules.model import Clarification, Clause, ErrorCode, Ruleset
from .rules.problems import Problem
from .rules.registry import load_rules_file, load_rules_text, load_ruleset, shipped_names

__all__ = [
    "ALL_CARDS",
    "ILLEGAL_BY_CODE",
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
