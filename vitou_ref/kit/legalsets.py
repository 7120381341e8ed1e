"""The legal sets a case leaves unstated, taken from the reference under each ruleset, once per case and ruleset."""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Iterator

from ..engine.tables import tables_for
from ..protocol.server import run_case
from ..rules.errors import InputError, UnknownRuleset
from ..rules.model import Ruleset, freeze, thaw
from ..rules.registry import load_rules_file, load_ruleset, shipped_names
from .fixtures import REFERENCE, Case, Expectation
from .judge import compare

# A step's legal set is compared whenever the answer holds one: the case states it where it is part of what
# the case is about (``legal``); elsewhere the reference's own legal set at that step, under the ruleset run,
# stands for it, unless the case says why it is left unchecked (``legal_unchecked``, on the case or the step).
# A rejected step's answer holds no legal set: nothing is compared there, and the position stays as it was.


def judged(case: Case, ruleset: str, rules: Ruleset | None = None) -> Expectation:
    """What ``ruleset`` must answer to ``case``: its expectation, with the reference's legal sets where it states none.

    ``rules`` is the ruleset of that name when the caller has it (a rules file of the run); else a shipped
    ruleset, or one of the case's suite's own rules files, is loaded by name. A ruleset that cannot be had,
    or under which the reference does not give the case's answer, lends no legal set: the case is as written.
    Made once per case and ruleset, on first use.
    """
    hit = case.judged_cache.get(ruleset)
    if hit is not None and (rules is None or hit[0] is rules):
        return hit[1]  # type: ignore[no-any-return]
    if rules is None:
        rules = reference_rules(ruleset, case.rules_files)
    expect = case.expectation(ruleset)
    full = expect if rules is None else _completed(case, expect, rules)
    case.judged_cache[ruleset] = (rules, full)
    return full


def _completed(case: Case, expect: Expectation, rules: Ruleset) -> Expectation:
    """``expect`` with every legal set it leaves unstated and unexcused taken from the reference's answer."""
    if expect.errored or case.legal_unchecked is not None:
        return expect
    if expect.legal is not None and all(s.error or s.legal is not None or s.unchecked for s in expect.steps):
        return expect  # every legal set is stated already
    answer = run_case(tables_for(rules), thaw(case.setup), case.plain_actions, 1)
    # Its legal sets stand for the case's only where it walks the case's path: the same refusals, events and end.
    if answer.get("errored") is True or compare(case, expect, answer, legal=False) is not None:
        return expect  # the reference does not answer as the case says: it has no legal set of its own to lend
    steps = tuple(
        dataclasses.replace(want, legal=freeze(got["legal"]), legal_from=REFERENCE)
        if want.error is None and want.legal is None and want.unchecked is None
        else want
        for want, got in zip(expect.steps, answer["steps"])
    )
    if expect.legal is not None:
        return dataclasses.replace(expect, steps=steps)
    return dataclasses.replace(expect, steps=steps, legal=freeze(answer["legal"]), legal_from=REFERENCE)


_LOADED: dict[object, Ruleset | None] = {}  # by name (shipped) or by path (a suite's own): loaded once a process
_LOCK = threading.Lock()


def reference_rules(name: str, files: tuple[str, ...] = ()) -> Ruleset | None:
    """The ruleset ``name``: a shipped one, else the one of ``files`` (a suite's own) that has that name; or None."""
    with _LOCK:
        if name not in _LOADED:
            try:
                _LOADED[name] = load_ruleset(name) if name in shipped_names() else None
            except (UnknownRuleset, InputError):
                _LOADED[name] = None
        rules = _LOADED[name]
        for path in files if rules is None else ():
            key = ("file", path)
            if key not in _LOADED:
                try:
                    _LOADED[key] = load_rules_file(path, display=os.path.basename(path))
                except (InputError, OSError):
                    _LOADED[key] = None
            own = _LOADED[key]
            if own is not None and own.name == name:
                return own
    return rules


def unchecked_places(case: Case, ruleset: str, rules: Ruleset | None = None) -> Iterator[str]:
    """Where an answer holds a legal set that the judged expectation neither states, nor derives, nor excuses."""
    expect = judged(case, ruleset, rules)
    if expect.errored or case.legal_unchecked is not None:
        return
    if expect.legal is None:
        yield "the legal set before the first action"
    for i, step in enumerate(expect.steps, 1):
        if step.error is None and step.legal is None and step.unchecked is None:
            yield f"step {i}"
