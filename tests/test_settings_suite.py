"""Every setting and error-code act the schema allows is run by some case; each settings ruleset's cases show it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from vitou_ref.engine import checks
from vitou_ref.engine.reasons import Reason
from vitou_ref.engine.tables import Tables
from vitou_ref.engine.transitions import ANSWER, CALL, CARD, DECISION, PLAY, TRANSITIONS
from vitou_ref.kit.judge import compare
from vitou_ref.kit.suite import load_suite
from vitou_ref.kit.suitecheck import check_suite, reference_run
from vitou_ref.protocol.server import run_case
from vitou_ref.rules.conditions import CONDITIONS
from vitou_ref.rules.model import Ruleset, thaw
from vitou_ref.rules.registry import load_rules_file, load_ruleset
from vitou_ref.rules.settings import stand_in

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = ROOT / "conformance" / "settings"

# A settings profile whose setting no protocol request can show, and why; its cases pin what it leaves unchanged.
UNOBSERVABLE = {
    "setting-deal-previous/1.0.0": "deal.first orders the packets of a deal the interpreter shuffles itself; "
    "protocol v1 gives every hand seat by seat, so no request can show the order",
    "setting-restate-error/1.0.0": "restate_error changes a code's words, which protocol v1 never carries; the "
    "cases pin that the restated code keeps its place in the error list (FAULTS below)",
}
# The base a settings rules file that is no profile is measured against: the published ruleset it restates.
FULL_FILE_BASE = {
    "setting-error-acts/1.0.0": "vitou/1.1.0",
    "setting-turn-any-seat/1.0.0": "vitou-volee/1.0.0",
    "setting-truc-eleven/1.0.0": "le-truc/1.1.0",
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
    for (rule, _field), field in _settings().items():
        data = bound.get(rule)
        if data is None:
            standing = stand_in(rule, bound.get)
            data = thaw(standing) if standing is not None else None
        if isinstance(data, dict) and _field in data:
            out[(rule, _field)] = json.dumps(data[_field], sort_keys=True)
        elif isinstance(data, dict) and "default" in field:  # a field left out reads its default (the schema's)
            out[(rule, _field)] = json.dumps(field["default"], sort_keys=True)
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


def _error_acts() -> set[tuple[str, str]]:
    """(code, act) for every act of the rules schema that each code's condition can judge (rules/conditions.py)."""
    schema = json.loads((ROOT / "schema" / "rules.schema.json").read_text(encoding="utf-8"))
    acts = schema["$defs"]["error"]["properties"]["acts"]["items"]["enum"]
    return {(code, act) for code, cond in CONDITIONS.items() for act in cond.defined if act in acts}


def _operations() -> list[str]:
    """The operations of profile.schema.json, each named by the key that introduces it."""
    schema = json.loads((ROOT / "schema" / "profile.schema.json").read_text(encoding="utf-8"))
    return [next(iter(op["properties"])) for op in schema["properties"]["operations"]["items"]["oneOf"]]


def _missing_acts(used: set[tuple[str, str]]) -> list[str]:
    return [f"{code} judging {act}: no ruleset with cases says so" for code, act in sorted(_error_acts() - used)]


def _missing_operations(used: set[str]) -> list[str]:
    return [f"profile operation {op}: no profile with cases uses it" for op in _operations() if op not in used]


def _used(rulesets: list[Ruleset]) -> tuple[set[tuple[str, str]], set[str]]:
    acts = {(e.code, a) for r in rulesets for e in r.errors for a in e.acts}
    kinds = _operations()
    ops = {k for r in rulesets if r.profile for op in thaw(r.profile)["operations"] for k in op if k in kinds}
    return acts, ops


def test_every_act_each_code_may_judge_is_judged_by_some_ruleset_with_cases() -> None:
    # The acts an error code judges are a setting too: NOT_YOUR_TURN may judge bids and refusals, WRONG_PHASE
    # signals, the closed codes refusals. A choice the schema allows and no ruleset with cases makes is
    # interpreter code nothing checks; so is a profile operation no profile with cases uses.
    acts, ops = _used(_rulesets_with_cases())
    assert _missing_acts(acts) == []
    assert _missing_operations(ops) == []


def test_the_coverage_check_fails_when_an_act_or_an_operation_has_no_ruleset() -> None:
    acts, ops = _used(_rulesets_with_cases())
    assert _missing_acts(acts - {("NOT_YOUR_TURN", "raise"), ("WRONG_PHASE", "accept")}) == [
        "NOT_YOUR_TURN judging raise: no ruleset with cases says so",
        "WRONG_PHASE judging accept: no ruleset with cases says so",
    ]
    assert _missing_operations(ops - {"restate_error"}) == [
        "profile operation restate_error: no profile with cases uses it"
    ]


def _settings_rulesets() -> list[str]:
    return load_suite(SETTINGS).rulesets()


def _base_of(name: str) -> str:
    own = {r.name: r for r in map(load_rules_file, load_suite(SETTINGS).rules_files)}
    return own[name].extends or FULL_FILE_BASE[name]


def test_each_settings_rules_file_that_is_no_profile_names_its_base() -> None:
    own = [load_rules_file(f) for f in load_suite(SETTINGS).rules_files]
    assert sorted(r.name for r in own if r.extends is None) == sorted(FULL_FILE_BASE)


@pytest.mark.parametrize("name", _settings_rulesets())
def test_each_settings_profile_changes_play(name: str) -> None:
    """Some case of the ruleset gets another answer from its base: the cases show the setting, not only the base."""
    suite = load_suite(SETTINGS)
    cases = suite.applicable(name)
    assert len(cases) >= 2, f"{name}: at least two cases"
    base = load_ruleset(_base_of(name))
    differ = []
    for case in cases:
        response, _ = reference_run(base, case)
        expect = case.expectation(name)
        if response.get("errored") is True or compare(case, expect, response, 1) is not None:
            differ.append(case.id)
    if name in UNOBSERVABLE:
        assert differ == [], f"{name} is listed as unobservable, yet {differ} show it: remove it from the list"
    else:
        assert differ, f"{name}: every case gets the same answer from {base.name}; none shows the setting"


# ---- each settings ruleset's cases against an engine with the fault they are there to catch
#
# A fault is made in a copy of the ruleset's compiled tables (the data the engine plays from), or, where the
# engine's own code is at fault, by a one-point change of that code for the test's duration: what a settings
# ruleset shows that its base would not is what its cases must catch.
Fault = Callable[[Tables, pytest.MonkeyPatch], None]


def _without(code: str, act: str) -> Fault:
    """The engine ignores that ``code`` judges ``act``."""

    def fault(t: Tables, mp: pytest.MonkeyPatch) -> None:
        t.acts_of[code] = t.acts_of[code] - {act}

    return fault


def _no_place(phase: int, act: str) -> Fault:
    """The engine gives ``act`` no place in ``phase`` (WRONG_PHASE's condition then holds for it)."""

    def fault(t: Tables, mp: pytest.MonkeyPatch) -> None:
        mp.delitem(TRANSITIONS[phase], act)

    return fault


def _last_in_list(code: str) -> Fault:
    """``code`` is judged after every other code: a resolver that re-added a restated code at the end."""

    def fault(t: Tables, mp: pytest.MonkeyPatch) -> None:
        t.precedence[code] = len(t.precedence)

    return fault


def _no_jumps(t: Tables, mp: pytest.MonkeyPatch) -> None:
    t.jumps = False


def _openings_answer_only(t: Tables, mp: pytest.MonkeyPatch) -> None:
    # Without later raises, BID_OUT_OF_TURN also refuses a bid outside an answer when no bid has been made:
    # the check without its "a bid has been made" (m.level > 0), an opening read as a later raise.
    judged = checks._CHECKS["BID_OUT_OF_TURN"]

    def bid_out_of_turn(m: Any, n: Any) -> Reason | None:
        found = judged(m, n)
        if found is None and not m._t.later_raise and m.phase != ANSWER:
            return Reason("bid_out_of_turn.answer_only")
        return found

    mp.setitem(checks._CHECKS, "BID_OUT_OF_TURN", bid_out_of_turn)


def _out_of_turn(allowed: Callable[[Any, Any, bool], bool]) -> Fault:
    """Who may bid or refuse out of turn, read otherwise: ``allowed(match, action, the reference's answer)``."""

    def fault(t: Tables, mp: pytest.MonkeyPatch) -> None:
        rules = checks._may_act_out_of_turn
        mp.setattr(checks, "_may_act_out_of_turn", lambda m, n: allowed(m, n, rules(m, n)))

    return fault


# ruleset -> fault -> (the fault, the cases measured to catch it)
FAULTS: dict[str, dict[str, tuple[Fault, list[str]]]] = {
    "setting-error-acts/1.0.0": {
        "NOT_YOUR_TURN judges no raise": (_without("NOT_YOUR_TURN", "raise"), ["ST-6000"]),
        "NOT_YOUR_TURN judges no refusal": (_without("NOT_YOUR_TURN", "refuse"), ["ST-6001"]),
        "BID_CLOSED_TWENTY judges no refusal": (_without("BID_CLOSED_TWENTY", "refuse"), ["ST-6002"]),
        "BID_CLOSED_TWENTY_TWENTY judges no refusal": (_without("BID_CLOSED_TWENTY_TWENTY", "refuse"), ["ST-6003"]),
        "a signal has no place while the side at twenty decides": (
            _no_place(DECISION, "signal"),
            ["ST-6002", "ST-6004"],
        ),
        "a signal has no place in the 20-20 question": (_no_place(CALL, "signal"), ["ST-6003"]),
        "a signal has no place before the first card": (_no_place(PLAY, "signal"), ["ST-6001"]),
        "a signal has no place while a bidder owes its card": (_no_place(CARD, "signal"), ["ST-6001"]),
        "a signal has no place while a bid awaits its answer": (_no_place(ANSWER, "signal"), ["ST-6001"]),
    },
    "setting-turn-any-seat/1.0.0": {
        "NOT_YOUR_TURN judges no raise": (_without("NOT_YOUR_TURN", "raise"), ["ST-6400", "ST-6402"]),
        "NOT_YOUR_TURN judges no refusal": (_without("NOT_YOUR_TURN", "refuse"), ["ST-6401", "ST-6402"]),
        "no bid out of turn while any player may bid": (
            _out_of_turn(lambda m, n, ok: ok and n.act != "raise"),
            ["ST-6400", "ST-6402"],
        ),
        "no refusal out of turn at the answer's moment": (
            _out_of_turn(lambda m, n, ok: ok and n.act != "refuse"),
            ["ST-6401", "ST-6402"],
        ),
        "a refusal out of turn only by an opponent of the bidder": (
            _out_of_turn(lambda m, n, ok: ok and not (n.act == "refuse" and m._t.side_of[n.seat] == m._bside)),
            ["ST-6401"],
        ),
        "bids out of turn at any moment": (
            _out_of_turn(lambda m, n, ok: ok or n.act == "raise"),
            ["ST-6400", "ST-6402"],
        ),
        "refusals out of turn at any moment": (
            _out_of_turn(lambda m, n, ok: ok or n.act == "refuse"),
            ["ST-6401", "ST-6402"],
        ),
    },
    "setting-truc-jumps/1.0.0": {"no jumps": (_no_jumps, ["ST-6100", "ST-6101"])},
    "setting-truc-eleven/1.0.0": {
        "WRONG_PHASE judges no accept": (_without("WRONG_PHASE", "accept"), ["ST-6200", "ST-6201"]),
    },
    "setting-restate-error/1.0.0": {
        "the restated code moved to the end of the list": (_last_in_list("RAISE_OWN_SIDE"), ["ST-6300", "ST-6301"]),
    },
    "setting-no-later-raise/1.0.0": {"an opening refused as a later raise": (_openings_answer_only, ["ST-2043"])},
    "setting-jumps-no-later-raise/1.0.0": {
        "an opening refused as a later raise": (_openings_answer_only, ["ST-5022"]),
    },
}
# Faults no case can catch, and why: they are run to show that they still change no answer.
EQUIVALENT: dict[str, dict[str, tuple[Fault, str]]] = {
    "setting-error-acts/1.0.0": {
        "WRONG_PHASE judges no signal": (
            _without("WRONG_PHASE", "signal"),
            "a signal has a place at every stage, so WRONG_PHASE never holds for one (clarification 24)",
        ),
    },
    "setting-truc-jumps/1.0.0": {
        "the restated code moved to the end of the list": (
            _last_in_list("RAISE_JUMP"),
            "RAISE_JUMP is already the last code of Le Truc's list",
        ),
    },
}


def _failing(name: str, fault: Fault, mp: pytest.MonkeyPatch) -> list[str]:
    suite = load_suite(SETTINGS)
    own = {r.name: r for r in map(load_rules_file, suite.rules_files)}
    t = Tables(own[name])  # a copy of its own: the ruleset's cached tables stay as they are
    fault(t, mp)
    failing = []
    for case in suite.applicable(name):
        response = run_case(t, thaw(case.setup), thaw(case.actions), 1)
        if response.get("errored") is True or compare(case, case.expectation(name), response, 1) is not None:
            failing.append(case.id)
    return failing


@pytest.mark.parametrize(("name", "label"), [(n, f) for n, faults in FAULTS.items() for f in faults])
def test_the_cases_catch_the_fault_they_are_for(name: str, label: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fault, caught_by = FAULTS[name][label]
    failing = _failing(name, fault, monkeypatch)
    assert set(caught_by) <= set(failing), f"{name}, {label}: caught by {failing}, not by all of {caught_by}"


@pytest.mark.parametrize(("name", "label"), [(n, f) for n, faults in EQUIVALENT.items() for f in faults])
def test_an_equivalent_fault_changes_no_answer(name: str, label: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fault, why = EQUIVALENT[name][label]
    assert _failing(name, fault, monkeypatch) == [], f"{name}, {label} shows after all; it was listed as: {why}"


def test_every_settings_rules_file_that_is_no_profile_has_its_faults() -> None:
    # A complete rules file is there for a choice no profile can state; its cases must catch that choice undone.
    assert set(FULL_FILE_BASE) <= set(FAULTS)
