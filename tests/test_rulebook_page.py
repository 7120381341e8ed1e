"""The rulebook page in Chromium: it fits a phone, its contents keep each list whole, cards show their suits."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser import DESKTOP, PHONE, page

from vitou_ref import load_ruleset
from vitou_ref.audit.audit import deck_of
from vitou_ref.cli import main
from vitou_ref.present import escape
from vitou_ref.present.cards import prose

FACTS = """(() => {
  const nav = document.querySelector('nav > ul');
  const examples = document.getElementById('examples').cloneNode(true);
  examples.querySelectorAll('.card').forEach(c => c.remove());
  const spade = document.querySelector('#examples .card[title="10S"]');
  return {
    scroll: document.documentElement.scrollWidth,
    columns: getComputedStyle(nav).columnCount,
    nested: [...new Set([...document.querySelectorAll('nav ul ul')].map(u => getComputedStyle(u).columnCount))],
    // A list item split between two columns has one box in each.
    split: [...document.querySelectorAll('nav li')].filter(li => li.getClientRects().length > 1).map(li => li.textContent),
    spade: spade && spade.textContent,
    codes_left: examples.textContent.match(/(?<![\\w])(10|[9AKQJ87])[SHDC](?![\\w])/g),
    notation: [...document.querySelectorAll('#clause-deck-cards > p:first-of-type code')].map(c => c.textContent),
  };
})()"""


@pytest.fixture(scope="module")
def rulebook(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rulebook") / "rulebook.html"
    assert main(["rulebook", "--format", "html", "--output", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("rulebook-screenshots")


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_the_rulebook_page_in_chromium(rulebook: Path, shots: Path, width: int) -> None:
    with page(rulebook, width, 1400) as p:
        facts = p.evaluate(FACTS)
        p.screenshot(shots / f"contents-{width}.png")
        p.evaluate("document.getElementById('example-VT-0002').scrollIntoView()")
        p.screenshot(shots / f"example-{width}.png")
    assert facts["scroll"] == width, "the page scrolls sideways"
    assert facts["columns"] == ("auto" if width == PHONE else "2")  # one column on a phone
    assert facts["nested"] == ["auto"]  # a section's clauses are one list, never columns of their own
    assert facts["split"] == []
    assert facts["spade"] == "10♠"
    assert facts["codes_left"] is None  # every card of the examples is shown with its suit
    assert facts["notation"] == ["10S", "9C", "AH"]  # where the rules define how a card is written, codes stay


TABLE = """(() => {
  const table = document.querySelector('#clause-hand-resolution table.resolution');
  if (!table) return null;
  const box = table.getBoundingClientRect();
  return {
    rows: [...table.querySelectorAll('tbody tr')].map(tr => [...tr.cells].map(td => td.textContent)),
    legend: table.parentElement.nextElementSibling.textContent,
    fits: box.right <= innerWidth && box.width > 0,
  };
})()"""


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_the_hand_resolution_table_is_shown_after_its_clause(rulebook: Path, shots: Path, width: int) -> None:
    # hand.resolution says the results "are looked up in the table below": the table is its data's rows.
    with page(rulebook, width, 900) as p:
        p.evaluate("document.getElementById('clause-hand-resolution').scrollIntoView()")
        p.screenshot(shots / f"resolution-{width}.png")
        table = p.evaluate(TABLE)
    assert table is not None, "no table follows hand.resolution"
    assert table["rows"][0] == ["A A", "A", "A side that wins the first two tricks wins the hand."]
    assert table["rows"][-1][:2] == ["T T T", "nobody"] and len(table["rows"]) == 8
    assert "A: who won the earliest won trick" in table["legend"] and table["fits"]


@pytest.mark.parametrize("lang", ["en", "fr", "pt", "ru"])
@pytest.mark.parametrize("ruleset", ["vitou", "le-truc", "vitou-mid-trick"])
def test_every_rulebook_shows_its_own_table_in_its_language(
    ruleset: str, lang: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from vitou_ref.audit.i18n import clause_words, row_words
    from vitou_ref.engine.reasons import catalog

    rules = load_ruleset(ruleset)
    (clause,) = [c for c in rules.clauses if c.rule == "resolution"]
    rows = [(r.id, r.text) for r in rules.params.resolution]
    texts = [row_words(clause, i, english, lang) for i, english in rows]
    if lang != "en":  # translated, each game in its own words
        assert not {t for t in texts} & {english for _, english in rows}
    assert main(["rulebook", "--ruleset", ruleset, "--lang", lang]) == 0
    md = capsys.readouterr().out
    after = md[md.index(clause_words(clause, lang)[1]) :]
    for text in texts:
        assert f"| {text} |" in after[: after.index("\n#")]  # in the table, before the next heading
    assert main(["rulebook", "--ruleset", ruleset, "--lang", lang, "--format", "html"]) == 0
    html = capsys.readouterr().out
    assert all(f"<td>{escape.html(text)}</td>" in html for text in texts)
    assert catalog(lang)["rulebook"]["rows_winner"] in html


def test_card_codes_in_prose_take_their_suit_symbol_and_keep_their_code() -> None:
    deck = deck_of(load_ruleset("vitou"))
    shown = prose("North plays 10S, then AH <b>; not 110S, 10Sx, 1S or 10s", deck)
    assert shown.startswith('North plays <span class="card" title="10S">10♠</span>, then ')
    assert '<span class="card red" title="AH">A♥</span> &lt;b&gt;;' in shown
    assert shown.endswith("not 110S, 10Sx, 1S or 10s")
    assert re.sub("<[^>]+>", "", prose("Север: 9C 7D", deck)) == "Север: 9♣ 7♦"
