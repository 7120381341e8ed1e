"""Each ruleset's error codes speak that ruleset's words in every language, not another game's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT

from vitou_ref import load_ruleset, shipped_names
from vitou_ref.audit.i18n import english_texts, error_when_words, error_words, error_writer, fingerprint
from vitou_ref.rules.model import ErrorCode, Ruleset
from vitou_ref.rules.yamlsafe import load_path

TRANSLATED = ["fr", "pt", "ru"]
SECTIONS: dict[str, tuple[Callable[[Ruleset, str, str], str], Callable[[ErrorCode], str]]] = {
    "errors": (error_words, lambda e: e.summary),
    "errors_when": (error_when_words, lambda e: e.when),
}


def _entry(data: dict[str, Any], key: str) -> Any:
    """The catalog entry a stamp names: ``errors.CODE``, or ``errors.<ruleset>.CODE`` (a ruleset may hold dots)."""
    section, _, rest = key.partition(".")
    owner, _, code = rest.rpartition(".")
    node = data.get(section) or {}
    return (node.get(owner) or {}).get(code) if owner else node.get(code)


def _stamps_by_text(lang: str, section: str) -> dict[str, set[str]]:
    """Every translated text of ``section`` with the fingerprints of the English it was translated from."""
    data = load_path(str(ROOT / "spec" / "i18n" / f"{lang}.yaml")).data
    out: dict[str, set[str]] = {}
    for key, stamp in (data.get("sources") or {}).items():
        if key.startswith(section + "."):
            text = _entry(data, key)
            if isinstance(text, str):
                out.setdefault(text, set()).add(stamp)
    return out


@pytest.mark.parametrize("section", sorted(SECTIONS))
@pytest.mark.parametrize("lang", TRANSLATED)
def test_each_code_is_the_translation_of_its_own_ruleset_s_english(lang: str, section: str) -> None:
    # Fails before: the catalogs kept one text per code, Vitou's, so the 13
    # codes Le Truc shares with Vitou showed Vitou's words (UNKNOWN_BID's
    # "3, 6, 12 et baraque") under Le Truc, stamped from Vitou's English.
    # The translation memory says which English a text translates: the text
    # shown must be one stamped with the ruleset's own English.
    words, english = SECTIONS[section]
    stamps = _stamps_by_text(lang, section)
    wrong = []
    for name in shipped_names():
        rules = load_ruleset(name)
        for e in rules.errors:
            if not english(e) or e.origin:  # nothing to say, or a profile's own words (kept in English)
                continue
            shown = words(rules, e.code, lang)
            if fingerprint(english(e)) not in stamps.get(shown, set()):
                wrong.append((name, e.code, shown))
    assert not wrong, wrong[:5]


def test_le_truc_in_french_speaks_of_its_own_ladder_and_players() -> None:
    # Le Truc's ladder is 2, 4, 6, 8, 10, 12 and its players A and B (le-truc.md
    # §1, §3): Vitou's baraque and its seats N, E, S, W have no place in it.
    rules = load_ruleset("le-truc")
    when = error_when_words(rules, "UNKNOWN_BID", "fr")
    assert "baraque" not in when.lower() and "2, 4, 6, 8, 10" in when
    seat = error_when_words(rules, "UNKNOWN_SEAT", "fr")
    assert "N, E, S, W" not in seat and "A" in seat and "B" in seat
    assert "baraque" not in error_when_words(rules, "RAISE_PAST_TOP", "fr").lower()
    assert "12" in error_words(rules, "RAISE_PAST_TOP", "fr")


@pytest.mark.parametrize("lang", TRANSLATED)
def test_vitou_keeps_its_own_words(lang: str) -> None:
    # The same codes under Vitou still name Vitou's ladder, whose top is the bid "baraque".
    shown = error_when_words(load_ruleset("vitou"), "UNKNOWN_BID", lang)
    assert "baraque" in shown and "3, 6, 12" in shown, shown


@pytest.mark.parametrize("section", sorted(SECTIONS))
@pytest.mark.parametrize("lang", TRANSLATED)
def test_codes_whose_english_differs_are_translated_apart(lang: str, section: str) -> None:
    # A stamp only records what a translator claims; two rulesets giving one
    # code different English (Vitou's UNKNOWN_BID names baraque, Le Truc's the
    # ladder 2 to 12) cannot share one translation.
    words, english = SECTIONS[section]
    seen: dict[tuple[str, str], tuple[str, str]] = {}  # (code, English) -> (ruleset, text shown)
    for name in shipped_names():
        rules = load_ruleset(name)
        for e in rules.errors:
            if english(e) and not e.origin:
                seen.setdefault((e.code, english(e)), (name, words(rules, e.code, lang)))
    shared = []
    for (code, en), (name, shown) in seen.items():
        for (other_code, other_en), (other, other_shown) in seen.items():
            if other_code == code and other_en != en and other_shown == shown and name < other:
                shared.append((code, name, other, shown))
    assert not shared, shared[:3]


def test_an_older_version_whose_english_differs_keeps_its_own_key(tmp_path: Path) -> None:
    # As for clarifications: the latest English keys under the id (errors.vitou.CODE),
    # an older version's different English under its full name.
    text = (ROOT / "spec" / "vitou-1.0.0.yaml").read_text(encoding="utf-8")
    old = "summary: The bid names a level that is not on the ladder."
    assert old in text
    path = tmp_path / "vitou-0.9.0.yaml"
    text = text.replace(old, "summary: The bid is off the ladder.").replace("version: 1.0.0", "version: 0.9.0", 1)
    path.write_text(text, encoding="utf-8")
    older, latest = load_ruleset(path), load_ruleset("vitou/1.1.0")
    texts = english_texts([older, latest])
    assert texts["errors.vitou.UNKNOWN_BID"] == latest.error("UNKNOWN_BID").summary
    assert texts["errors.vitou/0.9.0.UNKNOWN_BID"] == "The bid is off the ladder."
    assert "errors.vitou/0.9.0.NO_DEAL" not in texts  # the same English needs no second translation
    # A profile's codes are its base's: vitou-2p extends vitou/1.0.0, Le Truc extends nothing.
    assert error_writer(load_ruleset("vitou-2p"), "UNKNOWN_BID") == "vitou/1.0.0"
    assert error_writer(load_ruleset("le-truc"), "UNKNOWN_BID") == "le-truc/1.1.0"
