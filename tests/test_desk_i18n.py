"""Every word the desk shows, in French, Portuguese and Russian: no English word on any page or state it can show.

The desk is walked through every state it can be in (empty, a game set, a deal, legal and illegal actions, a claim,
a what-if, a comparison, problems after bad forms, a rules file taken and refused, every shipped dispute, a new
record, a file saved, a stale form), and every page it serves there (the desk, the exported audit page, the error
pages) is read as a person reads it: the text outside scripts and styles, and the words a browser shows from
attributes. A word of the English catalogue (the desk's, the audit's) or of the rules' English found there fails.
What is the same in every language is left out: identifiers (error codes, clause ids, ruleset and file names,
card codes, seat letters, code and commands), numbers, and what the record itself says (its event, players,
claims), which is the referee's text and not the desk's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from html.parser import HTMLParser
from pathlib import Path

import pytest
from deskserver import SECTION_05, Served, fetch, served
from helpers import ROOT

from vitou_ref.audit.record import load_record
from vitou_ref.desk.launch import launch_page
from vitou_ref.desk.state import Desk
from vitou_ref.desk.view import render
from vitou_ref.engine.reasons import catalog
from vitou_ref.rules.plurals import Forms
from vitou_ref.rules.registry import load_ruleset, shipped_names

LANGS = ["fr", "pt", "ru"]
DISPUTES = ROOT / "conformance" / "disputes"
PARTNERS = ROOT / "spec" / "profiles" / "vitou-partners-tie-1.0.0.yaml"

# What a person reads of an element's attributes; data-over is the message the page's script shows for a file
# too large, which the page writes.
SHOWN_ATTRIBUTES = ("placeholder", "aria-label", "title", "alt", "data-over")
SKIPPED = ("script", "style", "code")  # code is the same in every language: the notation, a command

# An act or a hand event's reason as the protocol names it, and a second one after "or" (tricks or tied).
_PROTOCOL_NAME = (
    r"(?:play|raise|accept|refuse|concede|pass|signal|tricks|refusal|decline|conceded|tied|void|passed)"
    r"(?:\s+(?:or|ou|или)\s+(?:tied|void))?\b"
)
# Identifiers, the same in every language, taken out before the words are looked at.
IDENTIFIERS = [
    r"`[^`]*`",  # a command, as a footer quotes it
    r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b",  # an error or problem code: REFUSE_NOT_FOLLOWER
    r"\bsha256:[0-9a-f]+",
    r"\b[\w]+(?:[./-][\w]+)*\.(?:yaml|yml|json)\b",  # a file's name: 02-refusal-not-follower.yaml
    r"\b[a-z0-9_]+(?:[./-][a-z0-9_]+)+\b",  # a ruleset (vitou-partners-tie/1.0.0), a clause (play.any_card), a path
    "\u201c[^\u201d]*\u201d|\u00ab[^\u00bb]*\u00bb",  # a request's own text, quoted: a field's name, a claim
    r"\b(?:10|[2-9AKQJ])[SHDC]\b",  # a card code
    r"\bContent-Length\b",  # the header's name, as HTTP spells it
    r"--[a-z-]+",  # an option of the command line
    # The protocol's own names, which a translated clause quotes as they are (Truco Paulista's "the act accept",
    # "a hand event of reason conceded", "{seat: A, act: concede}", face_down): the same in every language.
    r"\{[^{}]*\}",  # a protocol action or deal, written out
    r"\b[a-z]+(?:_[a-z]+)+\b",  # a field, an act or a key: face_down, play_hand, turn_up
    r"(?:\bact|\bacte|\bato|действи\w*|\breason|raison|razão|причин\w*)\s+" + _PROTOCOL_NAME,
]
# Names, the same in every language: baraque is a bid's, Truco Paulista a game's, a manilha a card's (Portuguese).
ALWAYS = {"vitou", "yaml", "json", "utf", "baraque", "truco", "paulista", "manilha", "manilhas"}

# Words of the language that English writes the same, each checked to be a word of that language as used here.
SHARED = {
    "fr": {
        *("action", "actions", "audit", "code", "continue", "date", "final", "la", "le", "main", "match", "moment"),
        *("notation", "note", "page", "place", "plus", "question", "score", "secret", "table", "type", "on", "as"),
        *("refuse", "position", "version"),
        # Now that a legal ruling quotes the clauses that give its result: "un point", "le donneur change",
        # "les scores".
        *("point", "change", "scores"),
        "face",  # Truco Paulista's cards played "face cachée", "face visible"
        "propose",  # "et propose le niveau suivant"
    },
    # Registá-la; "de face para baixo", Truco Paulista's face-down card.
    "pt": {"legal", "final", "bytes", "byte", "as", "no", "do", "de", "mib", "decide", "for", "la", "face"},
    "ru": set(),
}


class _Visible(HTMLParser):
    """The text of a page as a person sees it: text nodes outside scripts, styles and code, and shown attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag in SKIPPED:
            self.skipping += 1
        for name in SHOWN_ATTRIBUTES:
            if a.get(name):
                self.parts.append(str(a[name]))
        if tag == "input" and a.get("type") in ("submit", "button", "reset") and a.get("value"):
            self.parts.append(str(a["value"]))

    def handle_endtag(self, tag: str) -> None:
        if tag in SKIPPED and self.skipping:
            self.skipping -= 1

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)


def visible(page: str) -> str:
    """What a person reads of ``page``: an HTML page's visible text, or a plain-text page as it is."""
    if not page.lstrip().startswith("<"):
        return page
    parser = _Visible()
    parser.feed(page)
    parser.close()
    return "\n".join(parser.parts)


def _texts(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):  # a Forms is a dict too: each of its forms
        for v in value.values():
            yield from _texts(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _texts(v)


def _words(text: str) -> set[str]:
    text = re.sub(r"\{[a-z_]+\}", " ", text)  # a placeholder is no word
    return {w.lower() for w in re.findall(r"[^\W\d_]+", text) if len(w) > 1}


def english_vocabulary() -> set[str]:
    """The English words the desk could show: its catalogue, the audit's, the names, events and actions, and
    the rules' English (titles of clauses, the words of each error code) of every shipped ruleset."""
    en = catalog("en")
    words: set[str] = set()
    for section in ("desk", "audit", "names", "words", "acts", "actions", "events"):
        for text in _texts(en.get(section, {})):
            words |= _words(text)
    for name in shipped_names():
        rules = load_ruleset(name)
        for e in rules.errors:
            words |= _words(e.summary)
        for c in rules.clauses:
            words |= _words(c.title)
    return words - ALWAYS


ENGLISH = english_vocabulary()


def record_texts(path: Path) -> list[str]:
    """What a record says in its own words (its header, players, claims, notes): the referee's, not the desk's."""
    record, _ = load_record(str(path))
    header = record.header
    texts = [str(v) for k, v in header.items() if k not in ("ruleset", "hash", "dealer", "score", "players")]
    players = header.get("players")
    texts += [str(v) for v in players.values()] if isinstance(players, dict) else []
    texts += [c.claim for c in record.claims]
    texts += [n for notes in record.annotations.values() for n in notes]
    return texts


def english_words(page: str, lang: str, own: Sequence[str] = ()) -> list[str]:
    """The English words a person reads on ``page``, beside what is the same in every language and ``own`` texts."""
    text = visible(page)
    for said in sorted(own, key=len, reverse=True):
        text = text.replace(said, " ")
    for pattern in IDENTIFIERS:
        text = re.sub(pattern, " ", text)
    found = {w.lower() for w in re.findall(r"[^\W\d_]+", text) if len(w) > 1}
    return sorted((found & ENGLISH) - SHARED[lang])


# ------------------------------------------------------------------ the walk


class Walk:
    """A desk in one language, and every page seen on the way, with the record texts each may show."""

    def __init__(self, s: Served, lang: str) -> None:
        self.s, self.lang = s, lang
        self.own: list[str] = []
        self.seen: list[tuple[str, str]] = []

    def look(self, what: str, page: str | None = None) -> None:
        page = self.s.get()[1] if page is None else page
        self.seen.append((what, page))
        self.seen.append((f"{what}: audit page", self.s.get("audit.html")[1]))

    def post(self, what: str, op: str, fields: dict[str, str | list[str]] | None = None) -> str:
        status, page = self.s.post(op, fields)
        assert status == 200, (what, status, page[:300])
        self.seen.append((what, page))
        return page

    def failures(self) -> list[str]:
        out = []
        for what, page in self.seen:
            words = english_words(page, self.lang, self.own)
            if words:
                out.append(f"{self.lang}, {what}: {', '.join(words)}")
        return out


def _walk_a_hand(w: Walk) -> None:
    lang = w.lang
    w.s.desk.lang = lang  # as `vitou desk --lang` starts it
    w.look("the empty desk")
    w.post("the game set", "game", {"ruleset": "vitou/1.0.0", "lang": lang, "dealer": "W", "score-NS": "5"})
    w.post("a deal entered", "deal", {"deal": "0", "paste": SECTION_05})
    w.post("legal and illegal actions", "typed", {"text": "N r3 N AS W refuse E r6 E 9C"})
    w.post("a claim", "claim", {"at": "3", "by": "W", "claim": "12345", "asserts": "REFUSE_NOT_FOLLOWER"})
    w.post("a second claim, on an earlier action", "claim", {"at": "1", "claim": "678", "asserts": "legal"})
    w.look("the desk with claims")
    w.post("a what-if", "branch", {"at": "3"})
    w.post("a comparison", "compare", {"ruleset": "vitou-partners-tie/1.0.0"})
    w.post("the main record again", "switch", {"branch": "0"})
    for what, op, fields in [
        ("a card dealt twice", "deal", {"deal": "0", "paste": SECTION_05.replace("9C", "AS")}),
        ("a deal that is not one", "deal", {"deal": "0", "paste": "N: [AS, 7H"}),
        ("a deal as a list", "deal", {"deal": "0", "paste": "[AS, 7H]"}),
        ("a notation with an unknown word", "typed", {"text": "N A5"}),
        ("an unknown seat typed", "typed", {"text": "Q AS"}),
        ("nothing typed", "typed", {"text": " "}),
        ("a claim on no action", "claim", {"at": "9", "claim": "9"}),
        ("a claim of no code", "claim", {"at": "1", "claim": "9", "asserts": "REFUSE_NOT_FOLOWER"}),
        ("an unknown ruleset", "game", {"ruleset": "vitou/9.9.9", "dealer": "W"}),
        ("a score not in digits", "game", {"ruleset": "vitou/1.0.0", "dealer": "W", "score-NS": "²"}),
        ("a comparison with an unknown ruleset", "compare", {"ruleset": "vitou/9.9.9"}),
        ("a branch from no action", "branch", {"at": "40"}),
        ("a record that is not one", "load", {"text": "format: [", "filename": "x.yaml"}),
        ("a deal past the next", "deal", {"deal": "5", "paste": SECTION_05}),
    ]:
        page = w.post(what, op, fields)
        assert 'id="problems"' in page, what
    stale = re.search(r'name="rev" value="(\d+)"', w.s.get()[1])
    assert stale is not None
    w.s.post("undo")
    page = w.post("a form left open in another tab", "undo", {"rev": stale.group(1)})
    assert 'id="problems"' in page
    w.post("a new record", "new")
    w.post("back to the first record", "switch", {"branch": "0"})


def _walk_cards_not_recorded(w: Walk) -> None:
    """Dealing by clicks, cards not recorded, actions not ruled for want of them, the two menus, the launch page."""
    w.post("a record for cards not recorded", "new")
    w.post("a card picked", "pick", {"seat": "N", "card": "AS", "fill": ""})
    w.post("a card not recorded picked", "pick", {"seat": "N", "card": "?", "fill": ""})
    w.post("a seat's other cards not recorded", "pick", {"seat": "E", "fill": "seat"})
    w.post("a card taken back", "pick", {"fill": "undo"})
    w.post("every other card not recorded", "pick", {"seat": "E", "fill": "all"})
    w.post("cards played not recorded", "typed", {"text": "N AS E ? S ? W ? S ?"})
    w.post("an action chosen in the menus", "other", {"who": "W", "what": "r3"})
    w.post("a side's act chosen for a seat", "other", {"who": "W", "what": "takes"})
    page = w.post("a card played not recorded, where every card is", "typed", {"text": "N ?"})
    assert "ruling-" in page
    w.seen.append(("the launch page", launch_page(w.s.url, w.lang)))
    w.post("the first record again", "switch", {"branch": "0"})


def _walk_rules_files(w: Walk) -> None:
    published = (ROOT / "spec" / "vitou-1.0.0.yaml").read_text(encoding="utf-8")
    page = w.post("a rules file refused", "rules_file", {"text": published.replace("title: ", "title: Not ", 1)})
    assert "VERSION_REUSED" in page
    club = PARTNERS.read_text(encoding="utf-8").replace("id: vitou-partners-tie", "id: club-nice")
    page = w.post("a rules file taken", "rules_file", {"text": club, "filename": "club.yaml"})
    assert 'id="problems"' not in page and "club-nice/1.0.0" in page
    other = club.replace('title: "', 'title: "Other: ', 1)
    page = w.post("a second rules file of that name refused", "rules_file", {"text": other})
    assert 'id="problems"' in page
    w.post("a deal under the club's rules", "deal", {"deal": "0", "paste": SECTION_05})
    w.post("actions under the club's rules", "typed", {"text": "N r3 N AS W refuse"})
    w.look("the club's rules in use")


def _walk_disputes(w: Walk) -> None:
    for path in sorted(DISPUTES.glob("[0-9]*.yaml")):
        w.own += record_texts(path)
        w.post(f"the dispute {path.name}", "dispute", {"name": path.name})
        w.seen.append((f"the dispute {path.name}: audit page", w.s.get("audit.html")[1]))
        w.post(f"the dispute {path.name} dropped", "drop_branch", {"branch": str(len(w.s.desk.branches) - 1)})


def _walk_errors(w: Walk) -> None:
    s = w.s
    root = s.url.rsplit("/", 2)[0]
    for what, (status, page) in [
        ("no secret", fetch(root + "/")),
        ("another page", s.get("nothing")),
        ("an unknown operation", s.post("nothing")),
        ("a field an operation does not take", s.post("undo", {"path": "/tmp/x"})),
        ("a field given twice", s.post("undo", {"rev": ["1", "2"]})),
        ("a missing field", s.post("typed")),
        ("a hidden number that is not one", s.post("switch", {"branch": "x"})),
        ("an action that is not JSON", s.post("act", {"action": "["})),
        ("an action that is not an object", s.post("act", {"action": "[1]"})),
        ("an unknown language", s.post("game", {"ruleset": "vitou", "lang": "xx"})),
        ("an unknown dispute", s.post("dispute", {"name": "../x.yaml"})),
        ("a form without the secret", fetch(s.url + "do", b"op=undo&token=x", _FORM)),
        ("a form of another kind", fetch(s.url + "do", b"{}", {"Content-Type": "application/json"})),
        ("a form from another origin", fetch(s.url + "do", b"op=undo", {**_FORM, "Origin": "http://evil.example"})),
    ]:
        assert 400 <= status < 500, (what, status)
        w.seen.append((f"the error page for {what}", page))


_FORM = {"Content-Type": "application/x-www-form-urlencoded"}


@pytest.mark.parametrize("lang", LANGS)
def test_no_page_of_the_desk_shows_an_english_word(lang: str) -> None:
    with served() as s:
        w = Walk(s, lang)
        _walk_a_hand(w)
        _walk_cards_not_recorded(w)
        _walk_rules_files(w)
        _walk_disputes(w)
        _walk_errors(w)
        status, page = s.post("save")
        assert status == 403
        w.seen.append(("the error page for a save without a folder", page))
    assert len(w.seen) > 80
    failures = w.failures()
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("lang", LANGS)
def test_a_file_saved_into_the_folder_is_said_in_the_desks_language(lang: str, tmp_path: Path) -> None:
    folder = tmp_path / "saved"
    folder.mkdir()
    with served(str(folder)) as s:
        w = Walk(s, lang)
        s.desk.lang = lang
        page = w.post("a record saved", "save")
        assert 'id="info"' in page
        for saved in folder.iterdir():
            saved.unlink()
        folder.rmdir()
        page = w.post("a record not saved", "save")
        assert 'id="problems"' in page
    assert not w.failures(), "\n".join(w.failures())


# ------------------------------------------------------------------ the check itself


def test_the_check_finds_an_english_word_put_back_in_the_catalogue(monkeypatch: pytest.MonkeyPatch) -> None:
    desk = Desk(lang="fr")
    assert english_words(render(desk, "secret"), "fr") == []
    monkeypatch.setitem(catalog("fr")["desk"], "game", catalog("en")["desk"]["game"])  # "The game"
    assert english_words(render(desk, "secret"), "fr") == ["game", "the"]
    monkeypatch.setitem(catalog("fr")["desk"], "rules.paste", "paste the rules file here")  # an attribute only
    assert "paste" in english_words(render(desk, "secret"), "fr")


def test_the_check_finds_english_in_a_counted_entry_and_in_a_plain_text_page(monkeypatch: pytest.MonkeyPatch) -> None:
    english = catalog("en")["desk"]["refused.twice"]
    assert isinstance(english, Forms)
    monkeypatch.setitem(catalog("ru")["desk"], "refused.twice", english)
    with served() as s:
        s.desk.lang = "ru"
        status, page = s.post("undo", {"rev": ["1", "2"]})
    assert status == 400 and {"field", "given", "times"} <= set(english_words(page, "ru"))


def test_identifiers_and_the_records_own_words_are_not_english_words_of_the_desk() -> None:
    page = (
        "<p>REFUSE_NOT_FOLLOWER bid.refusal vitou-partners-tie/1.0.0 02-refusal-not-follower.yaml AS 10H "
        "<code>W refuse</code> `vitou audit --continue` Content-Length</p><p>Take back the deal</p>"
    )
    assert english_words(page, "ru", ["Take back the deal"]) == []
    assert english_words(page, "ru") == ["back", "deal", "take", "the"]
