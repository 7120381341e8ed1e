"""The documentation site: it builds with every warning an error, a broken link fails it, every page reads at both widths.

Each page is looked at in headless Chromium as a reader's browser shows it,
at a phone's width and a desktop's: it has its title, nothing scrolls
sideways (a table fits; a block of code may scroll in its own frame, as
code does), and nothing it loads comes from the network (the site works
offline).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

pytest.importorskip("sphinx", reason="the site is built with Sphinx (the docs dependency group, Python 3.11 on)")

DOCS = ROOT / "docs"
# Every warning an error (-W), all of them listed (--keep-going), every broken reference one (-n).
STRICT = ["-W", "--keep-going", "-n", "-b", "html", "-q"]


def _build(source: Path, out: Path) -> subprocess.CompletedProcess[str]:
    # -c: the configuration (and the extension beside it) is the repository's, whatever copy is built.
    command = [sys.executable, "-m", "sphinx", *STRICT, "-c", str(DOCS), str(source), str(out)]
    return subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    built = _build(DOCS, out)
    assert built.returncode == 0, built.stdout[-4000:] + built.stderr[-4000:]
    return out


def _pages(site: Path) -> list[Path]:
    # Sphinx's own pages (the search page and the index of terms) are the theme's, not ours, but a reader meets them.
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.parts)


def test_the_site_builds_with_every_warning_an_error(site: Path) -> None:
    pages = {p.relative_to(site).as_posix() for p in _pages(site)}
    kinds = {p.split("/", 1)[0] for p in pages if "/" in p}
    assert {"tutorials", "how-to", "reference", "explanation"} <= kinds, kinds
    assert {"reference/cli.html", "reference/schemas.html", "index.html"} <= pages
    stubs = [p.name for p in _pages(site) if "(to write)" in p.read_text(encoding="utf-8").split("<article", 1)[-1]]
    assert not stubs, f"pages still to write: {stubs}"


@pytest.mark.parametrize(
    "link",
    ["[a page](no-such-page.md)", "[a heading](protocol.md#no-such-heading)", "[a file](../../spec/no-such.yaml)"],
)
def test_a_broken_link_fails_the_build(site: Path, tmp_path: Path, link: str) -> None:
    copy = tmp_path / "docs"
    shutil.copytree(DOCS, copy, ignore=shutil.ignore_patterns("_build"))
    page = copy / "reference" / "records.md"
    page.write_text(page.read_text(encoding="utf-8") + f"\nSee {link}.\n", encoding="utf-8")
    built = _build(copy, tmp_path / "out")
    assert built.returncode != 0, f"{link}: the build passed"
    assert "records.md" in built.stderr, built.stderr[-2000:]


def test_every_page_reads_at_a_phone_and_a_desktop_width_offline(site: Path, tmp_path: Path) -> None:
    from browser import DESKTOP, PHONE, page

    pages = _pages(site)
    problems: list[str] = []
    for width in (PHONE, DESKTOP):
        with page(pages[0], width) as browser:
            for html in pages:
                browser.navigate(html)
                where = f"{html.relative_to(site)} at {width} px"
                wide = browser.scroll_width()
                if wide > width:
                    problems.append(f"{where}: {wide} px wide, it scrolls sideways")
                # Sphinx's search page and index of terms have no heading of their own; every page of ours has one.
                ours = html.name not in ("search.html", "genindex.html")
                if ours and not browser.evaluate("!!document.querySelector('article h1')"):
                    problems.append(f"{where}: no title rendered")
                # A table scrolls inside its own frame rather than the page's, but then hides the end of its rows.
                cut = browser.evaluate(
                    "Array.from(document.querySelectorAll('article .table-wrapper'))"
                    ".filter(t => t.scrollWidth > t.clientWidth + 1).map(t => t.textContent.trim().slice(0, 60))"
                )
                if cut:
                    problems.append(f"{where}: a table wider than the page: {cut}")
                remote = browser.evaluate(
                    "performance.getEntriesByType('resource').map(e => e.name).filter(n => !n.startsWith('file:'))"
                )
                if remote:
                    problems.append(f"{where}: loads from the network: {remote}")
            browser.screenshot(tmp_path / f"index-{width}.png")
    assert not problems, "\n".join(problems)


# Polls until the search script has said it finished (it lists results as it finds them, then a summary).
_RESULTS = """new Promise(done => { let n = 0; const look = () => {
  const finished = document.querySelector('#search-results .search-summary');
  const found = document.querySelectorAll('#search-results li a');
  if (finished || ++n > 200) done(Array.from(found, a => a.getAttribute('href'))); else setTimeout(look, 50);
}; look(); })"""


def test_the_search_works_offline_from_the_files(site: Path) -> None:
    from browser import DESKTOP, page

    with page(site / "index.html", DESKTOP) as browser:
        browser.navigate(f"{(site / 'search.html').as_uri()}?q=clarification")
        found = browser.evaluate(_RESULTS)
    assert found, "the search found nothing"
    assert all((site / href.split("#")[0]).is_file() for href in found), found
