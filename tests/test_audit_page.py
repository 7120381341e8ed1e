"""The audit as a page a referee hands over, in four languages, looked at in Chromium; Markdown audits that render."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser import DESKTOP, PHONE, page
from helpers import ROOT

from vitou_ref import load_ruleset
from vitou_ref.audit.i18n import clause_words
from vitou_ref.cli import main
from vitou_ref.engine.reasons import catalog

DISPUTES = ROOT / "conformance" / "disputes"
REFUSAL = DISPUTES / "02-refusal-not-follower.yaml"  # West refuses for the side: REFUSE_NOT_FOLLOWER, bid.refusal
LANGS = ["en", "fr", "pt", "ru"]

FACTS = """(() => {
  const illegal = document.querySelector('ol.rulings > li.illegal');
  const link = illegal.querySelector('a[href^="#cited-"]');
  const cited = document.querySelector(link.getAttribute('href'));
  const ace = document.querySelector('.card[title="AS"]');
  return {
    scroll: document.documentElement.scrollWidth,
    rulings: document.querySelectorAll('ol.rulings > li').length,
    illegal: illegal.id,
    ruling: illegal.textContent,
    cited_id: cited && cited.id,
    cited: cited && cited.querySelector('p').textContent,
    quoted: illegal.querySelector('blockquote').textContent,
    ace: ace && ace.textContent,
    visible: illegal.getBoundingClientRect().width > 0,
  };
})()"""


def _audit_page(directory: Path, lang: str, record: Path = REFUSAL) -> Path:
    out = directory / f"audit-{lang}.html"
    assert main(["audit", str(record), "--lang", lang, "--format", "html", "--output", str(out), "--force"]) == 1
    return out


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("audit-pages")


@pytest.mark.parametrize("lang", LANGS)
def test_the_page_stands_alone_in_the_readers_language(pages: Path, lang: str) -> None:
    html = _audit_page(pages, lang).read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and f'<html lang="{lang}">' in html
    assert not re.search(r"https?://|<script|<link|<img|<iframe|src=", html)  # nothing to fetch: it can be mailed
    _, text = clause_words(load_ruleset("vitou/1.0.0").clause("bid.refusal"), lang)
    assert html.count(text.replace("'", "&#x27;")) == 2  # quoted in the ruling, and in full among the citations
    assert "REFUSE_NOT_FOLLOWER" in html and catalog(lang)["audit"]["page.cited"] in html
    assert '<span class="card" title="AS">A♠</span>' in html


@pytest.mark.parametrize("lang", LANGS)
def test_the_page_tells_its_reader_where_the_replay_stopped_and_names_no_command_option(pages: Path, lang: str) -> None:
    html = _audit_page(pages, lang).read_text(encoding="utf-8")
    assert "--continue" not in html and catalog(lang)["audit"]["stopped_page"].split(":")[0].strip() in html
    # The claim on the refusal is rejected by the clause the refusal breaks, named on the page.
    assert re.search(r"bid\.refusal \(", html)


def test_a_won_match_ends_with_the_clause_that_won_it_and_a_claim_with_the_clause_that_answers_it() -> None:
    from vitou_ref.audit.grounds import event_clauses
    from vitou_ref.engine.events import HandEvent, MatchEvent, TrickEvent

    rules = load_ruleset("vitou/1.0.0")
    score = (("NS", 21), ("EW", 4))
    won = HandEvent("NS", 3, "tricks", score, row="AA", level=2, bidder="NS", mode="normal")
    # Row AA of hand.resolution; an accepted 3 scores its value (bid.accepted_value); 21 is the target.
    assert event_clauses(rules, [TrickEvent(2, "N"), won, MatchEvent("NS")]) == [
        "trick.rank_only",
        "hand.resolution",
        "bid.accepted_value",
        "score.target",
    ]
    refused = HandEvent("EW", 3, "refusal", score, level=2, bidder="EW", mode="normal")
    assert event_clauses(rules, [refused]) == ["bid.refusal_value"]
    # Le Truc names its clauses otherwise: its fold is truc.fold, bound to the rule of refusals.
    assert event_clauses(load_ruleset("le-truc"), [refused]) == ["truc.fold"]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_the_ruling_in_chromium(pages: Path, tmp_path_factory: pytest.TempPathFactory, lang: str, width: int) -> None:
    shots = tmp_path_factory.mktemp(f"audit-screenshots-{lang}-{width}", numbered=False)
    _, text = clause_words(load_ruleset("vitou/1.0.0").clause("bid.refusal"), lang)
    with page(_audit_page(pages, lang), width, 1600) as p:
        facts = p.evaluate(FACTS)
        p.screenshot(shots / "screen.png")
        p.media("print")
        printed = p.evaluate("getComputedStyle(document.querySelector('li.illegal')).breakInside")
        p.screenshot(shots / "print.png")
    assert facts["scroll"] == width, "the page scrolls sideways"
    assert facts["rulings"] == 3 and facts["illegal"] == "ruling-3" and facts["visible"]
    assert "REFUSE_NOT_FOLLOWER" in facts["ruling"] and "bid.refusal" in facts["ruling"]
    assert facts["cited_id"] == "cited-bid-refusal" and facts["cited"] == text == facts["quoted"]
    assert facts["ace"] == "A♠"
    assert printed == "avoid"  # a ruling is not cut across two printed pages


def test_html_is_for_the_rulings_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(REFUSAL), "--at", "2", "--format", "html"]) == 2
    assert "--format html" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["02-refusal-not-follower.yaml", "16-refusal-after-acceptance.yaml"])
def test_markdown_audits_nest_their_details_instead_of_indenting_them_into_code(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    main(["audit", str(DISPUTES / name), "--continue", "--format", "markdown"])
    lines = capsys.readouterr().out.splitlines()
    item = ""
    for line in lines:
        if re.match(r"\d+\. ", line):
            item = line[: line.index(" ") + 1]
        elif line.startswith(" "):
            # Under "3. ", a detail starts at the item's text: a nested list item, never four spaces of code.
            assert item and line.startswith(" " * len(item) + "- ") and not line.startswith(" " * (len(item) + 1)), line
        else:
            assert not line.startswith(("-    ", "-\t")), line
    assert any(re.match(r"\d+\. .*\*\*ILLEGAL\*\*", line) for line in lines)
    assert sum(line.startswith("   - ") for line in lines) >= 4


def test_markdown_positions_nest_the_legal_actions(capsys: pytest.CaptureFixture[str]) -> None:
    main(["audit", str(DISPUTES / "01-section-05-refusal.yaml"), "--at", "5", "--format", "markdown"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].startswith("  - South refuses") and not any(line.startswith("-   ") for line in lines)


def test_record_text_is_shown_never_obeyed(tmp_path: Path) -> None:
    record = REFUSAL.read_text(encoding="utf-8").replace(
        "Any of us may refuse for the side.", '<script>alert(1)</script> \\e[2K <a href=\\"#x\\">'
    )
    path = tmp_path / "hostile.yaml"
    path.write_text(record.replace("event: Club evening", "event: <img src=x>"), encoding="utf-8")
    out = tmp_path / "hostile.html"
    assert main(["audit", str(path), "--format", "html", "-o", str(out)]) == 1
    html = out.read_text(encoding="utf-8")
    assert "<script" not in html and "<img" not in html and '<a href="#x">' not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; \\x1b[2K" in html and "&lt;img src=x&gt;" in html
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", html)
