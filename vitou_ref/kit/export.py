"""The suite as one JSON document, for harnesses written in other languages."""

from __future__ import annotations

from typing import Any

from .._version import __version__
from ..rules.errors import InputError, UnknownRuleset
from ..rules.registry import load_ruleset
from .fixtures import load_suite


def export_suite(path: str | None = None) -> dict[str, Any]:
    suite = load_suite(path)
    rulesets: dict[str, Any] = {}
    for name in suite.rulesets():
        try:
            rules = load_ruleset(name)
        except (UnknownRuleset, InputError):
            rulesets[name] = None
            continue
        rulesets[name] = {
            "hash": rules.content_hash,
            "errors": [{"code": e.code, "clause": e.clause} for e in rules.errors],
        }
    return {
        "format": 1,
        "generator": f"vitou {__version__}",
        "protocol": 1,
        "rulesets": rulesets,
        "step_forms": "each expected step is {ok:true, events:[...], legal?:[...]} or {ok:false, error:CODE}; "
        "legal sets compare as sets; a case's expect_for overrides expect for one ruleset",
        "retired": dict(suite.retired),
        "cases": [c.to_json() for c in suite.cases],
    }
