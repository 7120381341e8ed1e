"""The Chromium helper itself, and the four pages of the product looked at in it: one header, one stylesheet."""

from __future__ import annotations

import shlex
import struct
import sys
from pathlib import Path

import pytest
from browser import DESKTOP, HEIGHT, PHONE, dump_dom, page, screenshot, scroll_width
from helpers import ROOT

from vitou_ref.cli import main
from vitou_ref.present.page import CSS

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>t</title>
<style>body{margin:0;font:16px sans-serif} .wide{width:600px;height:40px;background:#c33}
.phone{display:none;background:#36c;height:40px} @media (max-width:480px){.phone{display:block}}</style></head>
<body><p id="p">before</p><div class="phone">phone</div>{extra}
<script>document.getElementById("p").textContent = "after " + innerWidth;</script></body></html>"""


def _write(tmp_path: Path, name: str, extra: str = "") -> Path:
    path = tmp_path / name
    path.write_text(PAGE.replace("{extra}", extra), encoding="utf-8")
    return path


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_dom_is_read_after_the_scripts_ran_in_a_viewport_of_the_width_asked(tmp_path: Path) -> None:
    # 390 is below the 500 px that Chromium's --window-size allows in headless mode: the width must still be exact.
    dom = dump_dom(_write(tmp_path, "p.html"), PHONE)
    assert '<p id="p">after 390</p>' in dom


def test_scroll_width_tells_a_page_that_fits_from_one_that_scrolls(tmp_path: Path) -> None:
    assert scroll_width(_write(tmp_path, "fits.html"), PHONE) == PHONE
    assert scroll_width(_write(tmp_path, "wide.html", '<div class="wide"></div>'), PHONE) == 600
    assert scroll_width(_write(tmp_path, "wide.html", '<div class="wide"></div>'), 1280) == 1280


def test_media_queries_see_the_viewport(tmp_path: Path) -> None:
    html = _write(tmp_path, "p.html")
    query = "getComputedStyle(document.querySelector('.phone')).display"
    with page(html, PHONE) as p:
        assert p.evaluate(query) == "block"
    with page(html, 1280) as p:
        assert p.evaluate(query) == "none"


def test_a_screenshot_is_a_png_of_the_viewport(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    shots = tmp_path_factory.mktemp("browser-screenshots")
    png = screenshot(_write(tmp_path, "p.html", '<div class="wide"></div>'), shots / "phone.png", PHONE, 300)
    assert _png_size(png) == (PHONE, 300)
    assert f"screenshot: {png}" in capsys.readouterr().out


# ---- the four pages of the product: one header, one stylesheet, one phone layout

DISPUTE = ROOT / "conformance" / "disputes" / "02-refusal-not-follower.yaml"
KINDS = {"results": "Conformance results", "audit": "Audit", "rulebook": "Rulebook", "simulation": "Simulation"}

# What a page shares, read off the DOM: the header's outline, the shared stylesheet, the computed type.
SHARED = """(() => {
  const header = document.querySelector('body > header.masthead');
  const outline = el => [el.tagName.toLowerCase() + (el.className ? '.' + el.className : ''), [...el.children].map(outline)];
  const style = sel => { const s = getComputedStyle(document.querySelector(sel));
    return [s.fontFamily, s.fontSize, s.fontWeight, s.color, s.lineHeight, s.textTransform].join(' / '); };
  const wide = [...document.querySelectorAll('body *')].filter(el => el.getBoundingClientRect().right > innerWidth + 1);
  const scrolls = el => { for (let a = el; a; a = a.parentElement) {
    if (['auto', 'scroll'].includes(getComputedStyle(a).overflowX) && a.clientWidth <= innerWidth) return true; }
    return false; };
  return {
    first: [...document.body.children].map(c => c.tagName.toLowerCase() + '.' + c.className).filter(x => x !== 'style.'),
    brand: header && outline(header.querySelector('.brand')),
    heading: header && header.children[1].tagName,
    product: header && header.querySelector('.product').textContent,
    kind: header && header.querySelector('.kind').textContent,
    h1: document.querySelectorAll('h1').length,
    css: document.getElementById('vitou-style').textContent,
    styles: document.querySelectorAll('style').length,
    type: ['.product', '.kind', 'h1', '.provenance', 'h2', 'main', '.colophon'].map(style),
    scroll: document.documentElement.scrollWidth,
    outside: wide.filter(el => !scrolls(el)).map(el => el.tagName + '.' + el.className).slice(0, 5),
  };
})()"""


@pytest.fixture(scope="module")
def four_pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("four-pages")
    report = d / "ref.jsonl"
    # The reference runs the mutant's cases too, so that the results page has cases where the two differ.
    assert main(["certify", "--only", "VT-00*,VT-03*", "--report", str(report)]) == 0
    mutant = d / "mutant.jsonl"
    impl = shlex.join([sys.executable, "-m", "vitou_ref.adapter", "--mutant", "refusal-pays-refuser"])
    assert main(["certify", "--impl", impl, "--only", "VT-03*", "--report", str(mutant)]) == 1
    assert main(["rulebook", "--format", "html", "-o", str(d / "rulebook.html")]) == 0
    assert main(["report", "--format", "html", "-o", str(d / "results.html"), str(report), str(mutant)]) == 0
    assert main(["audit", str(DISPUTE), "--format", "html", "-o", str(d / "audit.html")]) == 1
    sim = ["simulate", "--ruleset", "vitou", "--ruleset", "vitou-2p", "--matches", "40", "--format", "html"]
    assert main([*sim, "-o", str(d / "simulation.html")]) == 0
    return {name: d / f"{name}.html" for name in KINDS}


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_the_four_pages_share_one_header_one_stylesheet_and_fit_a_phone(
    four_pages: dict[str, Path], width: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    shots = tmp_path_factory.mktemp(f"four-pages-{width}", numbered=False)
    facts = {}
    for name, path in four_pages.items():
        with page(path, width, HEIGHT) as p:
            facts[name] = p.evaluate(SHARED)
            p.screenshot(shots / f"{name}-{width}.png")
    for name, f in facts.items():
        assert f["first"] == ["header.masthead", "main.", "footer.colophon"], name
        assert f["product"] == "vitou" and f["kind"] == KINDS[name], name
        assert f["heading"] == "H1" and f["h1"] == 1, name
        assert f["css"] == CSS and f["styles"] == 2, name  # the shared sheet, then the page's own few rules
        assert f["scroll"] <= width and f["outside"] == [], (name, f["outside"])
    results = facts["results"]
    for name, f in facts.items():
        assert f["brand"] == results["brand"], name
        assert f["type"] == results["type"], name  # the same typography, as the browser computes it


# ---- the results page on a phone and on a desk: what its newcomer must see

RESULTS = """(() => {
  document.querySelectorAll('details').forEach(d => d.open = true);
  const seen = el => { const r = el.getBoundingClientRect();
    return r.width > 0 && r.left >= 0 && r.right <= innerWidth + 1; };
  const summary = [...document.querySelectorAll('#summary tbody tr')].map(tr => [...tr.cells].map(seen));
  const ids = [...document.querySelectorAll('.id')];
  const failing = [...document.querySelectorAll('#failing h3')].map(h => {
    const out = []; for (let el = h.nextElementSibling; el && el.tagName === 'DETAILS'; el = el.nextElementSibling)
      out.push(el.querySelector('summary strong').textContent);
    return out; });
  const details = [...document.querySelectorAll('#failing details')];
  return {
    summary,
    ids: ids.length,
    broken: ids.filter(el => el.getClientRects().length > 1).map(el => el.textContent),
    cases: [...document.querySelectorAll('th.case .id')].map(el => el.textContent),
    failing,
    // The first difference's two sides (every place after it has a .cmp of its own).
    marked: details.map(d => [...d.querySelector('.cmp').querySelectorAll('pre')].map(p => [...p.querySelectorAll('mark')].map(m => m.textContent))),
    more: details.map(d => d.querySelectorAll('.cmp').length),
    clause_links: details.map(d => [...d.querySelectorAll('p.sub a')].map(a => a.getAttribute('href'))),
  };
})()"""


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_the_results_page_shows_every_column_whole_ids_and_marked_differences(
    four_pages: dict[str, Path], width: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    shots = tmp_path_factory.mktemp(f"results-{width}", numbered=False)
    with page(four_pages["results"], width, HEIGHT) as p:
        facts = p.evaluate(RESULTS)
        p.screenshot(shots / f"summary-{width}.png")
        p.evaluate("document.querySelector('#g0 h3:last-of-type').scrollIntoView()")
        p.screenshot(shots / f"differing-{width}.png")
        p.evaluate("document.querySelector('#failing details').scrollIntoView()")
        p.screenshot(shots / f"failure-{width}.png")
    # Every column of the summary in view, its passed, verdict and envelope too (on a phone, the rows stack).
    assert facts["summary"] and all(all(row) for row in facts["summary"]), facts["summary"]
    # No id is broken across lines: the clauses' and the differing cases' (those on rows of their own).
    assert facts["ids"] > 45 and facts["broken"] == []
    assert facts["cases"] and facts["cases"][0].startswith("VT-03")
    # The failures of each report by id, not in the order they ran.
    assert all(f == sorted(f) for f in facts["failing"]) and any(facts["failing"])
    # The mutant pays the refuser: expected and actual differ in the side that scores, marked on both sides.
    first = facts["marked"][0]
    assert len(first) == 2 and all(first) and set(first[0]) != set(first[1])
    # Every place that differs after the first is shown too, each as a comparison of its own.
    assert max(facts["more"]) > 1
    assert all(links and all(h.startswith("rulebook.html#clause-") for h in links) for links in facts["clause_links"])


def test_the_rulebook_page_shows_the_table_of_hand_resolution(four_pages: dict[str, Path]) -> None:
    with page(four_pages["rulebook"], PHONE, HEIGHT) as p:
        rows = p.evaluate("document.querySelectorAll('#clause-hand-resolution table.resolution tbody tr').length")
    assert rows == 8  # Vitou's eight rows, AA to TTT
