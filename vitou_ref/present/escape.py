"""One escaping function per output format, for every text that comes from outside (answers, records, reports, profiles).

The contract, which tests/test_escaping.py checks with random text:

* ``text(value)``, for a terminal and for any plain text (a YAML comment, a
  badge): every character a terminal obeys or that hides or reorders what is
  shown becomes a visible escape: C0 controls (newline as ``\\n``, the others
  as ``\\xNN``), DEL, C1 controls, the bidirectional marks, embeddings,
  overrides and isolates (U+061C, U+200E, U+200F, U+202A-U+202E,
  U+2066-U+2069), the line and paragraph separators U+2028 and U+2029, the
  byte order mark U+FEFF, the noncharacters U+FFFE and U+FFFF, and lone
  surrogates (``\\uNNNN``). A value that is not a string is shown as its
  repr. The result is cut to ``limit`` characters, ``...`` included. The
  escapes are for reading, not for decoding back: a backslash is left as it
  is.
* ``markdown(value)``: inline CommonMark (GitHub's tables included) that
  renders as exactly ``text(value)``: every ASCII punctuation that can start
  markup (``\\ ` * _ [ ] < > & | ~ # $``, but ``_`` inside a word) is
  backslash-escaped, so no element,
  entity, code span, link, emphasis or table cell is made; a leading ``-``,
  ``+``, ``=`` or list number cannot start a block, and leading or trailing
  whitespace (an entity) cannot indent code, break a line or be trimmed. ``markdown_code(value)`` is one
  code span of ``text(value)`` for a table cell.
* ``html(value)``: ``text(value)`` with ``& < > " '`` escaped, for element
  text and quoted attribute values alike.
* ``xml(value)``: the same for XML 1.0: ``text()`` leaves none of the
  characters XML 1.0 forbids (C0 but tab, LF and CR, U+FFFE, U+FFFF, lone
  surrogates), so the document is always well-formed.
* ``json_dumps(value)``: JSON that parses back to ``value`` (as JSON reads
  it: two lone surrogates in a row are one escaped pair), with every
  character ``text()`` escapes written as a ``\\u`` escape (``json`` itself
  leaves DEL, C1, the separators and the bidirectional controls raw): safe to
  print on a terminal and to embed in a script.

Every renderer of every room escapes through these, and nothing else escapes
(a test greps the package for hand-written escaping).
"""

from __future__ import annotations

import json
import re
from typing import Any

# What a terminal obeys or what hides or reorders text, and the characters that are not characters at all.
_BEYOND_C0 = "\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ufffe\uffff\ud800-\udfff"
_UNSHOWN_RE = re.compile(f"[\x00-\x1f{_BEYOND_C0}]")
_UNSHOWN_BUT_LINES_RE = re.compile(f"[\x00-\x09\x0b-\x1f{_BEYOND_C0}]")  # newline kept
_UNSHOWN_BUT_LAYOUT_RE = re.compile(f"[\x00-\x08\x0b-\x1f{_BEYOND_C0}]")  # newline and tab kept
_IN_JSON = re.compile(f"[{_BEYOND_C0}]")  # json escapes C0 itself
# "_" between two letters or digits can neither open nor close emphasis (CommonMark 6.2), so a_b stays as written.
_MD_PUNCT = re.compile(r"([\\`*\[\]<>&|~#$]|(?<![^\W_])_|_(?![^\W_]))")
_MD_BLOCK_START = re.compile(r"^(?:[-+=]|\d{1,9}(?=[.)]))")
_EDGE_SPACES = re.compile(r"^\s+|\s+$")
_MARKUP = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}
_MARKUP_RE = re.compile("[&<>\"']")
ELLIPSIS = "..."


def _visible(ch: str) -> str:
    code = ord(ch)
    if ch == "\n":
        return "\\n"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def text(value: Any, limit: int | None = None, *, lines: bool = False) -> str:
    """``value`` safe to show on a terminal: nothing in it can move the cursor, hide or reorder text.

    ``lines``: newlines are kept as they are, for a text whose lines the
    renderer lays out itself (an HTML paragraph, a ``<pre>``).
    """
    s = value if isinstance(value, str) else repr(value)
    s = (_UNSHOWN_BUT_LINES_RE if lines else _UNSHOWN_RE).sub(lambda m: _visible(m.group()), s)
    if limit is not None and len(s) > limit:
        s = s[: max(0, limit - len(ELLIPSIS))] + ELLIPSIS
    return s


def layout(s: str) -> str:
    """``s`` as a command writes it to its own stdout or stderr: ``text()``'s escapes, newlines and tabs kept.

    What every command's streams pass their text through (``vitou_ref/present/terminal.py``), whatever
    the command escaped before: nothing it prints can drive the terminal it prints to.
    """
    return _UNSHOWN_BUT_LAYOUT_RE.sub(lambda m: _visible(m.group()), s)


def markdown(value: Any, limit: int | None = None) -> str:
    """``value`` as inline Markdown that renders as ``text(value)``, in a paragraph, a heading or a table cell."""
    s = _MD_PUNCT.sub(r"\\\1", text(value, limit))
    m = _MD_BLOCK_START.match(s)
    if m:  # "-", "+", "=" or "12." at the start of a line would start a list, a heading or a rule
        at = m.end() if s[0].isdigit() else 0
        s = s[:at] + "\\" + s[at:]
    # Spaces at the start of a line indent code, two at its end break it, and a table cell trims any
    # whitespace at its edges: an entity is the same character and none of these.
    return _EDGE_SPACES.sub(lambda m: "".join(f"&#{ord(c)};" for c in m.group()), s)


def markdown_code(value: Any, limit: int | None = None) -> str:
    """``text(value)`` as one Markdown code span in a table cell (its ``|`` escaped as GitHub's tables read it)."""
    s = text(value, limit)
    if not s:
        return ""
    fence = "`" * (max((len(run) for run in re.findall("`+", s)), default=0) + 1)
    return f"{fence} {s.replace('|', chr(92) + '|')} {fence}"


def _markup(s: str) -> str:
    return _MARKUP_RE.sub(lambda m: _MARKUP[m.group()], s)


def html(value: Any, limit: int | None = None, *, lines: bool = False) -> str:
    """``text(value)`` for HTML element text and quoted attribute values: no element, attribute or entity made."""
    return _markup(text(value, limit, lines=lines))


def xml(value: Any, limit: int | None = None) -> str:
    """``text(value)`` for XML 1.0 character data and attribute values: always well-formed, no markup made."""
    return _markup(text(value, limit))


def json_dumps(
    value: Any,
    *,
    indent: int | None = None,
    sort_keys: bool = False,
    ascii: bool = False,
    separators: tuple[str, str] | None = None,
) -> str:
    """JSON text of ``value`` with every character ``text()`` escapes written as a ``\\u`` escape.

    ``ascii``: every character beyond ASCII escaped too (a file of plain
    ASCII lines); otherwise letters of every script are kept as they are.
    """
    out = json.dumps(value, indent=indent, sort_keys=sort_keys, ensure_ascii=ascii, separators=separators)
    # These characters can only stand inside strings, where a \u escape means the same character.
    return out if ascii else _IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", out)


__all__ = ["ELLIPSIS", "html", "json_dumps", "layout", "markdown", "markdown_code", "text", "xml"]
