"""Every setting the rules schema allows is run by some case, and each settings profile's cases show it changing play."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vitou_ref.kit.judge import compare
from vitou_ref.kit.suite import load_suite
from vitou_ref.kit.suitecheck import check_suite, reference_run
from vitou_ref.rules.model import Ruleset, thaw
from vitou_ref.rules.registry import load_rules_file, load_ruleset
from vitou_ref.rules.settings import stand_in

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = ROOT / "conformance" / "settings"
BASE = "vitou/1.1.0"

# A settings profile whose setting no protocol request can show, and why; its cases pin what it leaves unchanged.
UNOBSERVABLE = {
    "setting-deal-previous/1.0.0": "deal.first orders the packets of a deal the interpreter shuffles itself; "
    "protocol v1 gives every hand seat by seat, so no request can show the order",
}


def _settings() -> dict[tuple[str, str], dict[str, Any]]:
    """(rule, field) -> the field's schema, for every data field of every rule in schema/rules.schema.json."""
    schema = json.loads((ROOT / "schema" / "rules.schema.json").read_text(encoding="utf-8"))
    return {
        (rule, name): field
        for rule, data in schema["$defs"]["data"].items()
        for name, field in data["properties"].items()
    }


def _values(rules: Ruleset) -> dict[tuple[str, str], str]:
    """(rule, field) -> the value the ruleset gives it, in canonical JSON; a stand-in where no clause binds it."""
    bound = {c.rule: thaw(c.data) for c in rules.clauses if c.rule}
    out = {}
    for rule, _field in _settings():
        data = bound.get(rule)
        if data is None:
            standing = stand_in(rule, bound.get)
            data = thaw(standing) if standing is not None else None
        if isinstance(data, dict) and _field in data:
            out[(rule, _field)] = json.dumps(data[_field], sort_keys=True)
    return out


def _rulesets_with_cases() -> list[Ruleset]:
    out = [load_ruleset(n) for n in load_suite(None).rulesets()]
    settings = load_suite(SETTINGS)
    own = {r.name: r for r in map(load_rules_file, settings.rules_files)}
    return out + [own[n] for n in settings.rulesets()]


def test_the_settings_suite_passes_on_the_reference() -> None:
    report = check_suite(str(SETTINGS), coverage=False)
    assert report.ok, [str(p) for p in report.problems] + [f.describe() for f in report.failures]
    assert report.checked and all(report.checked.values())


def _missing(values: dict[tuple[str, str], set[str]]) -> list[str]:
    missing = []
    for (rule, name), field in _settings().items():
        seen = values.get((rule, name), set())
        if "const" in field:
            wanted = {json.dumps(field["const"])}
        elif "enum" in field:
            wanted = {json.dumps(v) for v in field["enum"]}
        elif field.get("type") == "boolean":
            wanted = {"true", "false"}
        else:
            wanted = set()  # integers, lists, objects: at least two values seen
            if len(seen) < 2:
                missing.append(f"{rule}.{name}: only {sorted(seen) or 'no value'} is run by any case")
            continue
        for value in sorted(wanted - seen):
            missing.append(f"{rule}.{name} = {value}: no case runs under it")
    return missing


def test_every_setting_of_the_rules_schema_is_run_by_some_case() -> None:
    # A setting the schema allows and no case runs is interpreter code nothing checks: a new field, or a new
    # value of an enum, needs a profile under conformance/settings/ with cases that show it.
    seen: dict[tuple[str, str], set[str]] = {}
    for rules in _rulesets_with_cases():
        for key, value in _values(rules).items():
            seen.setdefault(key, set()).add(value)
    assert _missing(seen) == []


def test_the_coverage_check_fails_when_a_setting_has_no_case() -> None:
    seen: dict[tuple[str, str], set[str]] = {}
    for rules in _rulesets_with_cases():
        for key, value in _values(rules).items():
            seen.setdefault(key, set()).add(value)
    seen[("jumps", "allowed")] = {"false"}
    seen[("target", "points")] = {"21"}
    assert _missing(seen) == [
        "jumps.allowed = true: no case runs under it",
        "target.points: only ['21'] is run by any case",
    ]


def _settings_rulesets() -> list[str]:
    return load_suite(SETTINGS).rulesets()


@pytest.mark.parametrize("name", _settings_rulesets())
def test_each_settings_profile_changes_play(name: str) -> None:
    """Some case of the profile gets another answer from Vitou 1.1.0: the cases show the setting, not only the base."""
    suite = load_suite(SETTINGS)
    cases = suite.applicable(name)
    assert len(cases) >= 2, f"{name}: at least two cases"
    base = load_ruleset(BASE)
    differ = []
    for case in cases:
        response, _ = reference_run(base, case)
        expect = case.expectation(name)
        if response.get("errored") is True or compare(case, expect, response, 1) is not None:
            differ.append(case.id)
    if name in UNOBSERVABLE:
        assert differ == [], f"{name} is listed as unobservable, yet {differ} show it: remove it from the list"
    else:
        assert differ, f"{name}: every case gets the same answer from {BASE}; none shows the setting"
