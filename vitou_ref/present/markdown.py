"""What every Markdown renderer needs: text and code escaped, headings, list items, tables of cells."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from . import escape
from .escape import markdown as text
from .escape import markdown_code as code


def heading(level: int, markdown: str) -> str:
    """An ATX heading of Markdown already made (escaped text, links)."""
    return f"{'#' * level} {markdown}"


def target(ident: str) -> str:
    """A place a link can name (an id made by ``page.anchor``), where CommonMark has none: an inline HTML anchor."""
    return f'<a id="{escape.html(ident)}"></a>'


def link(markdown: str, ident: str) -> str:
    """A link of Markdown already made to a ``target()`` of the same document."""
    return f"[{markdown}](#{ident})"


def item(markdown: str, indent: int = 0, number: int | None = None) -> str:
    """A list item, numbered if ``number`` is given; ``indent``: the width of the parent item's marker, to nest in it.

    CommonMark nests an item indented to its parent's text ("3. " is three
    wide, "- " two), and reads four spaces more as code.
    """
    marker = "- " if number is None else f"{number}. "
    return " " * indent + marker + markdown


def marker_width(number: int | None = None) -> int:
    """How far an item's text stands from its marker's start: the indent of the items nested in it."""
    return 2 if number is None else len(f"{number}. ")


def row(cells: Iterable[str]) -> str:
    """One line of a GitHub table, of cells already made (each through ``text()``, ``code()`` or a number)."""
    return "|" + "|".join(f" {c} " if c else " " for c in cells) + "|"  # an empty cell as "| |"


def table(head: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A GitHub table: the header row, its delimiter row, then the rows; every cell made by the caller as for row()."""
    return [row(head), "|" + "---|" * len(head), *(row(r) for r in rows)]


__all__ = ["code", "heading", "item", "link", "marker_width", "row", "table", "target", "text"]
