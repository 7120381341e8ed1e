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
    assert main(["certify", "--only", "VT-00*", "--report", str(report)]) == 0
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
