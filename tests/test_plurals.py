"""Plural forms: CLDR's categories in the four languages, the words that agree with each count, catalogs refused."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT

from vitou_ref import load_ruleset
from vitou_ref.audit.audit import Words
from vitou_ref.cli import main
from vitou_ref.engine import reasons
from vitou_ref.engine.reasons import catalog, plural, read_catalog, render
from vitou_ref.rules.errors import InputError
from vitou_ref.rules.plurals import CATEGORIES, ENGLISH_ONE, compile_condition, counted, is_forms
from vitou_ref.rules.yamlsafe import load_path

I18N = ROOT / "spec" / "i18n"
DISPUTES = ROOT / "conformance" / "disputes"
LANGS = ["en", "fr", "pt", "ru"]

# The categories, worked out by hand from the rule text of CLDR 49
# (common/supplemental/plurals.xml); a whole number n has i = n and v = 0.
#   en    one: "i = 1 and v = 0"; other: everything else. 0 is plural in English.
#   fr    one: "i = 0,1"; other: the rest. 0 is singular in French. (many,
#         "e = 0 and i != 0 and i % 1000000 = 0 and v = 0 or e != 0..5", whole
#         millions, is left out: no count of the messages comes near.)
#   pt    the file is European Portuguese: pt_PT, one: "i = 1 and v = 0" (pt,
#         Brazil's, has "i = 0..1"), so 0 is plural, as in English. (many as fr.)
#   ru    one:  "v = 0 and i % 10 = 1 and i % 100 != 11"       1, 21: one; 11, 111 (i % 100 = 11): not
#         few:  "v = 0 and i % 10 = 2..4 and i % 100 != 12..14"   2, 22: few; 12 (i % 100 = 12): not
#         many: "v = 0 and i % 10 = 0 or v = 0 and i % 10 = 5..9 or v = 0 and i % 100 = 11..14"
#               0 (i % 10 = 0), 5, 11, 12, 111 (i % 100 = 11): many
#         other holds only for decimals: no count takes it.
EXPECTED = {
    "en": {0: "other", 1: "one", 2: "other", 5: "other", 21: "other"},
    "fr": {0: "one", 1: "one", 2: "other", 5: "other", 21: "other"},
    "pt": {0: "other", 1: "one", 2: "other", 5: "other", 21: "other"},
    "ru": {0: "many", 1: "one", 2: "few", 5: "many", 21: "one", 11: "many", 12: "many", 22: "few", 111: "many"},
}
COUNTS = [(lang, n) for lang, table in EXPECTED.items() for n in table]


@pytest.mark.parametrize(("lang", "n"), COUNTS)
def test_the_category_of_a_count_is_cldrs(lang: str, n: int) -> None:
    assert plural(lang, n) == EXPECTED[lang][n]


# The audit's closing line, each count with the words that agree with it (legal = illegal = total = n).
SUMMARY = {
    ("en", 0): "0 legal, 0 illegal of 0 actions",
    ("en", 1): "1 legal, 1 illegal of 1 action",
    ("en", 2): "2 legal, 2 illegal of 2 actions",
    ("en", 5): "5 legal, 5 illegal of 5 actions",
    ("en", 21): "21 legal, 21 illegal of 21 actions",
    ("fr", 0): "0 légale, 0 illégale sur 0 action",
    ("fr", 1): "1 légale, 1 illégale sur 1 action",
    ("fr", 2): "2 légales, 2 illégales sur 2 actions",
    ("fr", 5): "5 légales, 5 illégales sur 5 actions",
    ("fr", 21): "21 légales, 21 illégales sur 21 actions",
    ("pt", 0): "0 legais e 0 ilegais, num total de 0 ações",
    ("pt", 1): "1 legal e 1 ilegal, num total de 1 ação",
    ("pt", 2): "2 legais e 2 ilegais, num total de 2 ações",
    ("pt", 5): "5 legais e 5 ilegais, num total de 5 ações",
    ("pt", 21): "21 legais e 21 ilegais, num total de 21 ações",
    ("ru", 0): "всего 0 действий: 0 допустимых, 0 недопустимых",
    ("ru", 1): "всего 1 действие: 1 допустимое, 1 недопустимое",
    ("ru", 2): "всего 2 действия: 2 допустимых, 2 недопустимых",
    ("ru", 5): "всего 5 действий: 5 допустимых, 5 недопустимых",
    ("ru", 21): "всего 21 действие: 21 допустимое, 21 недопустимое",
    ("ru", 11): "всего 11 действий: 11 допустимых, 11 недопустимых",
    ("ru", 12): "всего 12 действий: 12 допустимых, 12 недопустимых",
    ("ru", 22): "всего 22 действия: 22 допустимых, 22 недопустимых",
    ("ru", 111): "всего 111 действий: 111 допустимых, 111 недопустимых",
}

# The first line of --compare-ruleset, for n actions ruled differently.
COMPARE = {
    "en": {"one": "A and B rule differently on {n} action", "other": "A and B rule differently on {n} actions"},
    "fr": {"one": "A et B jugent différemment {n} action", "other": "A et B jugent différemment {n} actions"},
    "pt": {
        "one": "A e B decidem de forma diferente em {n} ação",
        "other": "A e B decidem de forma diferente em {n} ações",
    },
    "ru": {
        "one": "A и B выносят разные решения по {n} действию",
        "few": "A и B выносят разные решения по {n} действиям",
        "many": "A и B выносят разные решения по {n} действиям",
    },
}


@pytest.mark.parametrize(("lang", "n"), COUNTS)
def test_each_count_gets_the_words_that_agree_with_it(lang: str, n: int) -> None:
    w = Words(load_ruleset("vitou/1.0.0"), lang)
    assert w.summary(n, n, n) == SUMMARY[lang, n]
    assert w.say("audit", "compare", a="A", b="B", n=n) == COMPARE[lang][EXPECTED[lang][n]].format(n=n)


# Dispute 12 has one action, legal; 03 has four, one of them illegal.
LAST_LINES = {
    "en": ("1 legal, 0 illegal of 1 action", "3 legal, 1 illegal of 4 actions"),
    "fr": ("1 légale, 0 illégale sur 1 action", "3 légales, 1 illégale sur 4 actions"),
    "pt": ("1 legal e 0 ilegais, num total de 1 ação", "3 legais e 1 ilegal, num total de 4 ações"),
    "ru": ("всего 1 действие: 1 допустимое, 0 недопустимых", "всего 4 действия: 3 допустимых, 1 недопустимое"),
}
# vitou-last-bids allows the bid that vitou/1.0.0 refuses in dispute 03: one action, one clause.
ONE_DIVERGENCE = {
    "en": ("rule differently on 1 action", "because 1 clause differs: bid.not_last"),
    "fr": ("jugent différemment 1 action", "car 1 règle diffère : bid.not_last"),
    "pt": ("decidem de forma diferente em 1 ação", "porque 1 cláusula diverge: bid.not_last"),
    "ru": ("выносят разные решения по 1 действию", "так как различается 1 пункт правил: bid.not_last"),
}


@pytest.mark.parametrize("lang", LANGS)
def test_the_audits_say_their_counts_in_words_that_agree(capsys: pytest.CaptureFixture[str], lang: str) -> None:
    one, four = LAST_LINES[lang]
    assert main(["audit", str(DISPUTES / "12-decline-at-twenty.yaml"), "--lang", lang]) == 0
    assert one in capsys.readouterr().out.splitlines()
    assert main(["audit", str(DISPUTES / "03-raise-from-last.yaml"), "--lang", lang, "--format", "markdown"]) == 1
    assert four in capsys.readouterr().out.splitlines()
    args = ["audit", str(DISPUTES / "03-raise-from-last.yaml"), "--compare-ruleset", "vitou-last-bids"]
    assert main([*args, "--lang", lang]) == 1
    first, _, because, *_ = capsys.readouterr().out.splitlines()
    assert first.endswith(ONE_DIVERGENCE[lang][0]) and because.strip() == ONE_DIVERGENCE[lang][1]


def test_englishs_rule_in_code_is_the_catalogs() -> None:
    # The messages only in English count without reading the catalog; both rules must agree.
    assert load_path(str(I18N / "en.yaml")).data["plural"]["rules"]["one"] == ENGLISH_ONE
    for n in range(0, 1002):
        assert counted(n, "case", "cases") == f"{n} {'case' if plural('en', n) == 'one' else 'cases'}"
    assert counted(1, "action", "actions") == "1 action" and counted(0, "action", "actions") == "0 actions"


# ------------------------------------------------------------------ the catalogs


def _raw(lang: str) -> dict[str, Any]:
    data: dict[str, Any] = load_path(str(I18N / f"{lang}.yaml")).data
    return data


def _entries_with_forms(node: Any, path: str = "") -> list[tuple[str, dict[str, str]]]:
    if is_forms(node):
        return [(path, node)]
    if not isinstance(node, dict):
        return []
    return [x for k, v in node.items() if k not in ("plural", "sources") for x in _entries_with_forms(v, f"{path}.{k}")]


@pytest.mark.parametrize("lang", LANGS)
def test_every_entry_with_forms_has_every_category_its_language_needs(lang: str) -> None:
    data = _raw(lang)
    needs = data["plural"]["categories"]
    entries = _entries_with_forms(data)
    # The walk finds the audit's counted words at least (the summary's pieces, compare, because); every section's
    # counted words, the desk's, the what-if's and the casebook's too, are held to the same rules below.
    assert {".audit.summary.legal", ".audit.summary.illegal", ".audit.compare"} <= {e[0] for e in entries}
    for where, forms in entries:
        assert sorted(forms) == sorted(needs), where
        assert all(isinstance(text, str) and text.strip() for text in forms.values()), where
    # Every entry that takes a count in English takes one here too.
    english = {where for where, _ in _entries_with_forms(_raw("en"))}
    assert english == {where for where, _ in entries}


@pytest.mark.parametrize("lang", LANGS)
def test_each_language_names_exactly_the_categories_its_counts_take(lang: str) -> None:
    taken = {plural(lang, n) for n in [*range(0, 2000), 10**6, 10**6 + 1, 2 * 10**6, 10**9 + 21]}
    assert sorted(taken, key=CATEGORIES.index) == _raw(lang)["plural"]["categories"]


# The workarounds that plural forms replace: "action(s)", "ação(ões)", "légale(s)", and a count after
# a colon ("число таких действий: {n}", "total de ações: {total}") so that no noun has to agree with it.
WORKAROUND = re.compile(r"\w\((?:s|es|x|ões|ns)\)|число таких|ações: \{|действий: \{|légale\(s\)")


@pytest.mark.parametrize("lang", LANGS)
def test_no_catalog_keeps_a_workaround(lang: str) -> None:
    messages = {k: v for k, v in _raw(lang).items() if k in ("words", "reasons", "actions", "events", "audit")}
    assert not WORKAROUND.search(repr(messages)), WORKAROUND.findall(repr(messages))


MODULES = [
    *sorted((ROOT / "vitou_ref" / "audit").glob("*.py")),
    *sorted((ROOT / "vitou_ref" / "engine").glob("*.py")),
    *(ROOT / "vitou_ref" / "kit" / f"{m}.py" for m in ("judge", "envelope", "verdicts")),
    *(ROOT / "vitou_ref" / "results" / f"{m}.py" for m in ("text", "page", "badges")),
    ROOT / "vitou_ref" / "hunt" / "mutation.py",
    ROOT / "vitou_ref" / "hunt" / "fuzzfixture.py",
]


def _texts(path: Path) -> list[str]:
    """The module's string literals, and the literal parts of its f-strings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_the_codes_english_counts_without_workarounds(path: Path) -> None:
    assert [t for t in _texts(path) if re.search(r"[a-z]\((?:s|es)\)", t)] == []


def test_english_fills_a_gap_with_englishs_own_categories(monkeypatch: pytest.MonkeyPatch) -> None:
    # A Russian catalog without "compare" shows the English, chosen by English's rule: 5 is many in
    # Russian, which English's forms do not have, and 0 is other.
    real = catalog
    ru = dict(real("ru"))
    ru["audit"] = {**ru["audit"], "compare": real("en")["audit"]["compare"]}
    monkeypatch.setattr(reasons, "catalog", lambda lang: ru if lang == "ru" else real(lang))
    assert (
        render("compare", {"a": "A", "b": "B", "n": 5}, "ru", section="audit")
        == "A and B rule differently on 5 actions"
    )
    assert (
        render("compare", {"a": "A", "b": "B", "n": 1}, "ru", section="audit") == "A and B rule differently on 1 action"
    )


def _broken(tmp_path: Path, lang: str, old: str, new: str) -> Path:
    text = (I18N / f"{lang}.yaml").read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path = tmp_path / f"{lang}.yaml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


def _refusal(path: Path, lang: str) -> str:
    with pytest.raises(InputError) as caught:
        read_catalog(str(path), lang, display=f"spec/i18n/{lang}.yaml")
    assert all(p.code == "CATALOG_PLURAL" and p.line for p in caught.value.problems)
    return str(caught.value)


def test_an_entry_lacking_a_category_its_language_needs_is_refused(tmp_path: Path) -> None:
    few = "    few: '{a} и {b} выносят разные решения по {n} действиям'\n"
    message = _refusal(_broken(tmp_path, "ru", few, ""), "ru")
    assert "audit.compare lacks the form 'few'" in message and "ru counts take one, few, many" in message
    assert message.startswith("spec/i18n/ru.yaml:")


def test_a_form_no_count_takes_is_refused(tmp_path: Path) -> None:
    many = "    many: '{a} и {b} выносят разные решения по {n} действиям'\n"
    message = _refusal(_broken(tmp_path, "ru", many, many + many.replace("many:", "other:")), "ru")
    assert "audit.compare has a form 'other' that no count takes" in message


def test_a_count_worded_without_forms_is_refused(tmp_path: Path) -> None:
    # The old way: one text for every count, "action(s)".
    forms = "  compare:\n    one: '{a} et {b} jugent différemment {n} action'\n"
    forms += "    other: '{a} et {b} jugent différemment {n} actions'\n"
    message = _refusal(
        _broken(tmp_path, "fr", forms, "  compare: '{a} et {b} jugent différemment {n} action(s)'\n"), "fr"
    )
    assert "audit.compare takes a count in English: give its forms" in message


def test_a_catalog_without_its_plural_rules_is_refused(tmp_path: Path) -> None:
    text = (I18N / "pt.yaml").read_text(encoding="utf-8")
    plural_section = text[text.index("plural:\n") : text.index("names:\n")]
    message = _refusal(_broken(tmp_path, "pt", plural_section, ""), "pt")
    assert "no plural: entry" in message


def test_a_rule_that_is_not_cldr_syntax_is_refused(tmp_path: Path) -> None:
    message = _refusal(_broken(tmp_path, "en", "one: i = 1 and v = 0", "one: i is 1"), "en")
    assert "rules.one: expected = or != in 'i is 1', found 'is'" in message


def test_cldr_conditions_with_lists_ranges_and_modulus() -> None:
    # Breton's few (CLDR 49): 3, 4, 9, 23, 29, 103 are few; 13, 73, 99, 5 are not.
    few = compile_condition("n % 10 = 3..4,9 and n % 100 != 10..19,70..79,90..99")
    assert [n for n in (3, 4, 9, 23, 29, 103, 13, 73, 99, 5) if few(n)] == [3, 4, 9, 23, 29, 103]
    assert compile_condition("v = 0 and i = 1,2,3 or v != 0")(2) and not compile_condition("f != 0")(7)
    with pytest.raises(ValueError, match="not a CLDR operand"):
        compile_condition("x = 1")
