"""The suite as one JSON document, for harnesses written in other languages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._version import __version__
from ..rules.errors import InputError, UnknownRuleset
from ..rules.registry import load_ruleset
from ..rules.versions import parse_ref
from .placeholders import CannotFill, values_for
from .suite import load_suite


def export_suite(path: str | None = None) -> dict[str, Any]:
    suite = load_suite(path)
    rulesets: dict[str, Any] = {}
    for name in suite.rulesets():
        try:
            rules = load_ruleset(name)
        except (UnknownRuleset, InputError):
            rulesets[name] = None
            continue
        cases = suite.applicable(name)
        rulesets[name] = {
            "hash": rules.content_hash,
            "errors": [{"code": e.code, "clause": e.clause} for e in rules.errors],
            # Cases name ranges (vitou/^1.0.0): what they select, resolved, so that a harness need not match them.
            "cases": [c.id for c in cases],
            "expect_for": {c.id: key for c in cases if (key := _first_key(c.expect_for, name)) is not None},
            # What each placeholder of an envelope line stands for under this ruleset (conformance/README.md); a
            # ruleset with none for one leaves it out, and a case that uses it cannot apply there (cannot_apply).
            "placeholders": {k: v for k, v in values_for(name, rules).items() if not isinstance(v, CannotFill)},
        }
    return {
        "format": 1,
        "generator": f"vitou {__version__}",
        "protocol": 1,
        "protocol_minor": 1,  # expectations are worded in protocol 1.1: a 1.0 peer says "tied" where one says "void"
        "rulesets": rulesets,
        "step_forms": "each expected step is {ok:true, events:[...], legal?:[...]} or {ok:false, error:CODE}; "
        "legal sets compare as sets; a case's rulesets and expect_for keys are references ID/RANGE "
        "(1.0.0, ^1.0.0, >=1.0.0 <1.1.0): rulesets[NAME].cases lists the cases that apply to NAME, and "
        "rulesets[NAME].expect_for the expect_for key that overrides expect for a case",
        "retired": dict(suite.retired),
        "cases": [c.to_json() for c in suite.cases],
        # Raw protocol lines and their answers (schema/envelope.schema.json): each runs under every ruleset a
        # harness certifies, its placeholders filled from rulesets[NAME].placeholders, then the sentinel
        # {"cmd":"run","seq":N}.
        "envelope": [c.to_json() for c in suite.envelope],
    }


def _first_key(expect_for: Mapping[str, Any], name: str) -> str | None:
    """The expect_for key that gives ``name``'s expectation: the first whose range selects it."""
    return next((k for k in expect_for if parse_ref(k).matches(name)), None)
