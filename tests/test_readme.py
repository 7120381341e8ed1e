"""The README is a front door: short, it routes every kind of reader, and every link on it (and ARCHITECTURE's) leads somewhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import ROOT

README = ROOT / "README.md"
GENERATED = {"docs/reference/cli.md", "docs/reference/schemas.md"}
MOST_LINES = 200
# A Markdown link or image: [text](target) with an optional #anchor.
_LINK = re.compile(r"\]\((?P<target>[^)\s#]*)(?P<anchor>#[^)\s]*)?\)")


def _headings(page: Path) -> set[str]:
    """The anchors of a page's headings, as GitHub and the docs site (MyST) both make them."""
    out = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if m := re.match(r"#{1,6} (.+)", line):
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            out.add(slug)
    return out


def test_the_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= MOST_LINES, f"README.md has {lines} lines; the rest belongs on the docs site"


@pytest.mark.parametrize("page", [README, ROOT / "ARCHITECTURE.md"], ids=lambda p: p.name)
def test_every_link_of_the_page_leads_somewhere(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    broken = []
    for m in _LINK.finditer(text):
        target, anchor = m.group("target"), m.group("anchor")
        if re.match(r"^[a-z]+:", target):
            continue  # an address: the site, the licence's, not checked offline
        path = (ROOT / target) if target else page
        # The reference pages the site's build writes (docs/.gitignore) exist once it has run, not in a checkout.
        generated = target.startswith("docs/reference/rulesets/") or target in GENERATED
        if generated:
            continue
        if not path.exists():
            broken.append(target)
        elif anchor and path.suffix == ".md" and anchor[1:] not in _headings(path):
            broken.append(target + anchor)
    assert not broken, f"{page.name} links to what is not there: {broken}"


def test_the_readme_routes_each_kind_of_reader_to_its_tutorial() -> None:
    text = README.read_text(encoding="utf-8")
    for tutorial in sorted((ROOT / "docs" / "tutorials").glob("*.md")):
        assert f"](docs/tutorials/{tutorial.name})" in text, f"the README does not lead to {tutorial.name}"
    # The two commands for a fresh machine: install and certify; install and test.
    assert "python -m pip install . && vitou certify" in text
    assert "--group dev && python -m pytest" in text
