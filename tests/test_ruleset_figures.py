"""Every figure in a reason or message comes from the ruleset in force, in every language.

The ruleset is vitou/1.1.0 played to 31 with its twenty-point ending at 30
(30-30 for both sides). No reason, event, audit line, account line or fixed
word of the rulebook may then speak of 20, 20-20 or 21; each one that names
the ending names 30. The ruleset's own wording (clause texts and titles,
clarifications, error summaries) is its author's and is left out of the check:
here it is 1.1.0's, since only the data changed.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from helpers import ROOT, acts, deal

from vitou_ref import Match, load_rules_text
from vitou_ref.audit.account import account
from vitou_ref.audit.audit import Words, audit, position_before
from vitou_ref.audit.i18n import (
    LANGUAGES,
    clarification_words,
    clause_words,
    error_when_words,
    error_words,
    ruleset_words,
)
from vitou_ref.audit.record import read_record
from vitou_ref.audit.report import audit_json, audit_text, position_json, position_text
from vitou_ref.engine.actions import action_from_json
from vitou_ref.engine.reasons import Reason, catalog
from vitou_ref.engine.tables import tables_for
from vitou_ref.kit.verdicts import Verdict
from vitou_ref.rulebook.book import build, markdown
from vitou_ref.rules.errors import IllegalAction
from vitou_ref.sim.compare import report
from vitou_ref.sim.run import Lineup
from vitou_ref.sim.shards import simulate
from vitou_ref.sim.textout import render

FIGURE = re.compile(r"(?<!\w)(20|21)(?!\w)")  # a score figure; 10S, 2p, hashes and seat names are not
AT = re.compile(r"(?<!\w)30(?!\w)")
BOTH_AT = re.compile(r"(?<!\w)30[-–]30(?!\w)")  # the Russian catalog writes 30–30
SPELLED = re.compile(r"twenty|vingt|vinte|двадцат", re.IGNORECASE)
MESSAGE_SECTIONS = ("names", "words", "acts", "reasons", "actions", "events", "audit", "rulebook")

D = "N: 10S 7S QC | E: 7H 10H 9H | S: 8H JS 9S | W: 8D 8C KD"
# At 30-30: N is asked first (W deals), S says play, and NS take the hand on row ABT: 31, the match.
TT_HAND = "N 10S, E 7H, S 8H, W 8D, N 7S, E 10H, S JS, W 8C, E 9H, S 9S, W KD, N QC"


def thirty_text() -> str:
    text = (ROOT / "spec" / "vitou-1.1.0.yaml").read_text(encoding="utf-8")
    for old, new in (("      points: 21\n", "      points: 31\n"), ("      at: 20\n", "      at: 30\n")):
        assert text.count(old) == 1, old  # the data of the rules target and twenty
        text = text.replace(old, new)
    return text.replace("  id: vitou\n", "  id: vitou-thirty\n")


@pytest.fixture(scope="module")
def thirty() -> Any:
    rules = load_rules_text(thirty_text(), "thirty.yaml")
    assert (rules.params.target, rules.params.twenty_at, rules.params.tt_enabled) == (31, 30, True)
    return rules


def _no_figure(text: str, where: str) -> None:
    found = FIGURE.search(text)
    assert found is None, f"{where}: {found.group()} in {text!r}"


def _strings(node: Any) -> list[str]:
    if isinstance(node, dict):
        return [s for v in node.values() for s in _strings(v)]
    return [str(node)]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_message_of_a_catalog_writes_out_a_figure_of_the_rules(lang: str) -> None:
    cat = catalog(lang)
    for section in MESSAGE_SECTIONS:
        for template in _strings(cat.get(section, {})):
            _no_figure(template, f"{lang} {section}")
            assert not SPELLED.search(template), f"{lang} {section}: {template!r}"


# ------------------------------------------------------------------ reasons


def _refusals(rules: Any, score: dict[str, int], play: str) -> list[IllegalAction]:
    m = Match(rules, dealer="W", deals=[deal(D), deal(D)], score=score)
    out = []
    for a in acts(play):
        try:
            m.apply(action_from_json(a))
        except IllegalAction as exc:
            out.append(exc)
    return out


def all_refusals(rules: Any) -> list[IllegalAction]:
    at_thirty = "N 10S, EW play_hand, N r3, NS play_hand, N r3"
    both = f"N 10S, N sig:ten, E pass, NS play_hand, N pass, E pass, S play_hand, N r3, {TT_HAND}, E 7H"
    return _refusals(rules, {"NS": 30, "EW": 5}, at_thirty) + _refusals(rules, {"NS": 30, "EW": 30}, both)


NAMES_THE_ENDING = {
    "wrong_phase.decision": AT,
    "decision_wrong_side": AT,
    "bid_closed_twenty": AT,
    "wrong_phase.call": BOTH_AT,
    "signal_forbidden.twenty_twenty": BOTH_AT,
    "bid_closed_twenty_twenty": BOTH_AT,
}


def test_every_reason_names_the_ruleset_s_ending_in_every_language(thirty: Any) -> None:
    refusals = all_refusals(thirty)
    keys = [r.why.key for r in refusals if isinstance(r.why, Reason)]
    assert set(NAMES_THE_ENDING) | {"call_out_of_turn", "match_over"} <= set(keys)
    for exc in refusals:
        why = exc.why
        assert isinstance(why, Reason)
        _no_figure(str(exc), why.key)  # the English message with the position, as raised
        for lang in LANGUAGES:
            for names in (False, True):
                text = why.render(lang, names=names)
                _no_figure(text, f"{lang} {why.key}")
                assert "{" not in text and why.key not in text, text  # every placeholder was filled
                if why.key in NAMES_THE_ENDING:
                    assert NAMES_THE_ENDING[why.key].search(text), f"{lang} {why.key}: {text!r}"
        if why.key in NAMES_THE_ENDING:
            assert why.to_json()["params"]["at"] == 30


def test_the_position_of_a_refusal_names_the_ending_as_the_ruleset_sets_it(thirty: Any) -> None:
    descriptions = {str(e).partition(" (")[2] for e in all_refusals(thirty)}
    assert any("NS at 30;" in d for d in descriptions)
    assert any(", 30-30;" in d for d in descriptions)


# ------------------------------------------------------------------ audit, account, rulebook


def _record(score: str, actions: str) -> str:
    deals = "\n".join(f"  - {{{', '.join(f'{s}: [{c}]' for s, c in _hands(D))}}}" for _ in range(2))
    return (
        f"format: 1\nheader:\n  ruleset: vitou-thirty/1.1.0\n  dealer: W\n  score: {score}\n"
        f"deals:\n{deals}\nactions: {actions}\n"
    )


def _hands(text: str) -> list[tuple[str, str]]:
    return [(s, ", ".join(cards)) for s, cards in deal(text).items()]


RECORDS = {
    "at thirty": ("{NS: 30, EW: 5}", "N 10S EW takes NS takes N r3"),
    "thirty-thirty": (
        "{NS: 30, EW: 30}",
        "N ~ten N 10S N pass E pass S play N r3 " + TT_HAND.replace(",", "") + " E 7H",
    ),
}


def _without_the_rules_own_words(text: str, rules: Any, lang: str) -> str:
    """``text`` with every wording the ruleset's author wrote taken out: only the messages are left."""
    owned = [rules.content_hash, *ruleset_words(rules, lang)]
    for c in rules.clauses:
        owned += [*clause_words(c, lang), c.quote or ""]
    for k in rules.clarifications:
        owned += [*clarification_words(k, lang), Words(rules, lang).say("rulebook", "clarification", n=k.number)]
    for e in rules.errors:
        owned += [error_words(rules, e.code, lang), error_when_words(rules, e.code, lang)]
    for words in sorted((w for w in owned if w), key=len, reverse=True):
        text = text.replace(words, "")
    return re.sub(r"\[\d+\]\(#clarification-\d+\)|clarification-\d+", "", text)  # clarifications by number


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_audit_of_a_record_names_the_ruleset_s_figures(thirty: Any, lang: str) -> None:
    for name, (score, actions) in RECORDS.items():
        record, rules = read_record(_record(score, actions), f"{name}.yaml", thirty)
        a = audit(record, rules, go_on=True)
        assert not all(r.legal for r in a.rulings)
        report = audit_text(a, lang) + audit_text(a, lang, markdown=True)
        j = audit_json(a, lang)
        for r in j["rulings"]:
            report += "\n".join([r["description"], *r.get("event_descriptions", [])])
            report += r["reason"]["text"] if "reason" in r else ""
        named = AT if name == "at thirty" else BOTH_AT
        first, _ = position_before(record, rules, 1)  # the decision at 30, or the 30-30 question
        assert named.search(Words(rules, lang).phase(first)), Words(rules, lang).phase(first)
        for n in (1, len(record.actions)):
            pos, _ = position_before(record, rules, n)
            report += position_text(rules, pos, n, lang) + "\n".join(position_json(rules, pos, n, lang)["description"])
        shown = _without_the_rules_own_words(report, rules, lang)
        _no_figure(shown, f"{lang} audit of {name}")
        assert named.search(shown), shown


@pytest.mark.parametrize(("score", "named"), [({"NS": 30, "EW": 5}, "NS at 30"), ({"NS": 30, "EW": 30}, ", 30-30")])
def test_the_account_of_a_match_names_the_ruleset_s_figures(thirty: Any, score: dict[str, int], named: str) -> None:
    m = Match(thirty, dealer="W", deals=[deal(D)] * 3, score=score)
    lines = "\n".join(account(m, random.Random(7)))
    assert named in lines
    _no_figure(lines, "account")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_rulebook_s_own_words_name_the_ruleset_s_figures(thirty: Any, lang: str) -> None:
    book = markdown(build(thirty, lang))
    _no_figure(_without_the_rules_own_words(book, thirty, lang), f"{lang} rulebook")
    title = str(catalog(lang)["rulebook"]["sections"]["04"]).format(at=30)
    assert f"§04 {title}" in book and AT.search(title)


def test_simulate_and_certify_reports_name_the_ruleset_s_ending(thirty: Any) -> None:
    out = render(report(simulate([tables_for(thirty)], Lineup(), 1, 0, 50)))
    assert re.search(r"^matches reaching 30 ", out, re.M) and re.search(r"^matches reaching 30-30 ", out, re.M)
    v = Verdict("vitou-thirty/1.1.0", {}, 0, 0, 0, twenty_at=30)
    assert v.section_title("04") == "The 30-point ending"
