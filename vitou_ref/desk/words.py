"""The desk's own words, in the referee's language: the desk section of the message catalogue, notices and refusals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..engine.reasons import catalog, render
from ..present import escape
from ..rules.errors import UnknownRuleset
from ..rules.problems import Problem

SECTION = "desk"
QUOTED_MOST = 40  # characters of a request's own text quoted in a refusal: it names the field, not a page of it


@dataclass(frozen=True)
class Quoted:
    """A text from outside (a field's name, a ruleset asked for), quoted in the reader's quotation marks."""

    text: str


@dataclass(frozen=True)
class Said:
    """A message of the desk's, kept as its key and parameters: the page words it in the desk's language then."""

    key: str
    params: tuple[tuple[str, Any], ...] = ()

    def words(self, lang: str) -> str:
        return say(lang, self.key, **dict(self.params))


def said(key: str, /, **params: Any) -> Said:
    return Said(key, tuple(params.items()))


@dataclass(frozen=True)
class Warned:
    """A warning of the rules checker's on a ruleset given as a file: taken, and said."""

    problem: Problem


Note = Said | Problem | Warned  # what a notice holds: the desk's own message, or a checker's located problem


def unknown_ruleset(exc: UnknownRuleset, key: str = "unknown_ruleset") -> Said:
    """A ruleset asked for that the desk does not offer (a path is only ever an unknown name), and those it does."""
    return said(key, name=Quoted(exc.name), known=", ".join(exc.known))


def say(lang: str, key: str, /, **params: Any) -> str:
    """The desk's entry ``key`` in ``lang``, filled in; an entry with forms takes the one for the count ``n``."""
    values = {k: _worded(lang, v) for k, v in params.items()}
    return render(key, values, lang, section=SECTION)


def _worded(lang: str, value: Any) -> Any:
    if isinstance(value, Quoted):
        return quote(lang, value.text)
    return value.words(lang) if isinstance(value, Said) else value


def quote(lang: str, text: str) -> str:
    """``text`` between the quotation marks of ``lang`` (“ ” in English, « » in French, Portuguese, Russian)."""
    return render("quote", {"text": escape.text(text, QUOTED_MOST)}, lang, section=SECTION)


def say_html(lang: str, key: str, /, **html: str) -> str:
    """The entry as HTML: its words escaped, and each parameter given as HTML the page made (a code example)."""
    marks = {k: f"\ue000{i}\ue001" for i, k in enumerate(html)}  # characters no catalog entry holds
    out = escape.html(say(lang, key, **marks))
    for k, mark in marks.items():
        out = out.replace(mark, html[k])
    return out


def note_words(lang: str, note: Note) -> str:
    """A notice in ``lang``: the desk's message, or a loader's problem located, with its code.

    English gives the loader's own message. The loaders word their problems in English only, so another language
    gives, beside the place and the code, what the code means in that language.
    """
    if isinstance(note, Said):
        return note.words(lang)
    warning = isinstance(note, Warned)
    if isinstance(note, Warned):
        note = note.problem
    elif lang == "en":
        return str(note)
    entry = catalog(lang).get(SECTION, {}).get(f"problem.{note.code}")
    text = note.message if lang == "en" else say(lang, f"problem.{note.code}" if entry else "problem.other")
    key = ("warning" if warning else "problem") + (".at" if note.path else "")
    return say(lang, key, where=note.location(), code=note.code, path=note.path, text=text)


class Refused(Exception):
    """A request the desk will not act on: its status, and why, worded in the desk's language when it is answered."""

    def __init__(self, status: int, key: str, /, **params: Any) -> None:
        super().__init__(say("en", key, **params))
        self.status = status
        self.key = key
        self.params = params

    def words(self, lang: str) -> str:
        return say(lang, self.key, **self.params)


__all__ = [
    "Note",
    "Quoted",
    "Refused",
    "Said",
    "Warned",
    "note_words",
    "quote",
    "said",
    "say",
    "say_html",
    "unknown_ruleset",
]
