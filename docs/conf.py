"""Sphinx configuration of vitou's documentation site: Markdown pages read by MyST, the Furo theme, no network."""

from __future__ import annotations

import sys
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent / "tools"))  # docs_reference: the pages generated from the parser and the specs

project = "vitou"
author = "the vitou authors"
copyright = "the vitou authors"
extensions = ["myst_parser", "docs_reference"]
source_suffix = {".md": "markdown"}
root_doc = "index"
# The docs' own README (how the site is built) and the example files are read on the repository, not on the site.
exclude_patterns = ["_build", "README.md", "examples/*.md"]
# Every heading of level 1 to 4 has an anchor, so a link to page.md#heading is checked like a link to a page.
myst_heading_anchors = 4
myst_enable_extensions = ["deflist"]
# A link to a page or anchor that does not exist is a warning, and the build (-W) makes it an error.
nitpicky = True
suppress_warnings: list[str] = []

html_theme = "furo"
html_title = "vitou"
# Nothing is loaded from the network: Furo ships its fonts and scripts, Sphinx its search.
html_static_path = ["_static"]
html_css_files = ["vitou.css"]
html_show_sourcelink = False
html_copy_source = False


def _sessions_as_sessions(app: object, doctree: nodes.document) -> None:
    """A `sh` block that opens with `$ ` is a session (commands and what they print), highlighted as one.

    The pages keep `sh` on every shell block, which the docs' tests run; a session's output read as shell
    code (an apostrophe in a case's title, say) is a lexing error, which -W makes a broken build.
    """
    for block in doctree.findall(nodes.literal_block):
        if block.get("language") == "sh" and block.astext().startswith("$ "):
            block["language"] = "console"


def setup(app: Sphinx) -> None:
    app.connect("doctree-read", _sessions_as_sessions)
