"""The compact action notation: ``N r3 N AS E r6 E 9C S refuse``, one group per action.

A group is who acts, then what:

    N AS          a seat plays a card (rank then suit)
    A _4C         a seat plays a card face down (Truco Paulista, from the second trick); A _? one not recorded
    N r3          a seat bids: r3, r6, r12, rbaraque (any level of the ladder);
                  also written apart, N raise 3 or N r 3
    S refuse      the immediate follower refuses
    B accept      the player a raise waits on accepts it (Le Truc: a raise answered before any card)
    NS takes      the side at exactly 20 plays the hand   (protocol: play_hand)
    NS declines   the side at exactly 20 declines it      (protocol: decline_hand)
    E pass        at 20-20, the seat asked passes
    E play        at 20-20, the seat asked says play      (protocol: play_hand)
    W ~ten        a gesture: ~ten ~nine ~ace ~none
    A concede     the seat due to act concedes the hand (Truco Paulista)

Whitespace separates tokens; a ``/`` between groups is ignored (use it to
mark hands); ``{...}`` is a note on the action before it; ``#`` starts a
comment to the end of the line. A word the notation does not know, or one
nearer another act than a bid (``S refuses``), is a problem at its place,
naming the nearest word of the notation.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..engine.tables import Tables
from ..present import escape
from ..rules import reader
from ..rules.cards import Card
from ..rules.problems import Problem
from .unknown import UNKNOWN

# Any card of the French 52-card pack: what may be written bare. Reading takes only the ruleset's own pack.
_CARD = re.compile(r"^(10|[2-9AKQJ])[SHDC]$")
_WORD = re.compile(r"[A-Za-z0-9_-]+")
_SEAT_VERBS = ("accept", "refuse", "pass", "play")
# The words of a seat's acts other than a card and a raise, in the order a problem lists them.
_VERBS = (
    ("accept", "accept"),
    ("refuse", "refuse"),
    ("call_pass", "pass"),
    ("call_play", "play"),
    ("concede", "concede"),
)
# A card played face down is written with this mark before it: "A _4C" ("A _?" for one not recorded). A mark of the
# card's own group, as "r" is a raise's and "~" a gesture's, that YAML, a shell and the tokenizer leave alone.
FACE_DOWN = "_"
_SIDE_VERBS = {"takes": "play_hand", "declines": "decline_hand"}
# The bid's word written apart from its level ("W raise 3", "W r 3"): the same group as "W r3".
_RAISE_APART = ("raise", "r")
# A word is quoted at most this long: a 5,000-letter typo needs no more to be found at its line and column.
_QUOTED = 40


@dataclass(frozen=True, slots=True)
class Parsed:
    """One action read from the notation, with where it was written."""

    action: dict[str, Any]
    text: str
    line: int
    column: int
    note: str | None = None


def _tokens(text: str) -> list[tuple[str, int, int]]:
    """(token, line, column) with notes kept as single tokens starting with '{'."""
    out: list[tuple[str, int, int]] = []
    line, col, i = 1, 1, 0
    while i < len(text):
        ch = text[i]
        if ch == "\n":
            line, col, i = line + 1, 1, i + 1
            continue
        if ch.isspace() or ch == "/":
            col, i = col + 1, i + 1
            continue
        if ch == "#":
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        start_line, start_col, j = line, col, i
        if ch == "{":
            depth_end = text.find("}", i)
            j = len(text) if depth_end < 0 else depth_end + 1
        else:
            while j < len(text) and not text[j].isspace() and text[j] not in "{/#":
                j += 1
        token = text[i:j]
        for c in token:
            if c == "\n":
                line, col = line + 1, 1
            else:
                col += 1
        out.append((token, start_line, start_col))
        i = j
    return out


def parse_notation(
    text: str,
    t: Tables,
    source: str = "<notation>",
    first_line: int = 1,
    first_column: int = 1,
    indented: bool = False,
    most: int | None = None,
) -> tuple[list[Parsed], list[Problem]]:
    """Every action the notation holds, and every problem found, each with its line and column.

    Reading goes on after a problem (the group is skipped), so that one pass
    reports every typo. ``most``: reading stops at the action after that many,
    so that a caller bounding a record's length reads no more than it keeps.
    """
    seats, sides = set(t.seat_ids), set(t.side_ids)
    pack = frozenset(t.card(c).text for c in t.deck)
    actions: list[Parsed] = []
    problems: list[Problem] = []

    def where(line: int, col: int) -> tuple[int, int]:
        # In a YAML block scalar every line carries the same indentation.
        shift = first_column - 1 if (line == 1 or indented) else 0
        return line + first_line - 1, col + shift

    def bad(code: str, message: str, line: int, col: int) -> None:
        ln, cl = where(line, col)
        problems.append(Problem(code, message, source, ln, cl))

    tokens = _tokens(text)
    i = 0
    while i < len(tokens) and (most is None or len(actions) <= most):
        who, line, col = tokens[i]
        if who.startswith("{"):
            if not who.endswith("}"):
                bad("NOTATION_NOTE", "a note opened with '{' is not closed with '}'", line, col)
            elif actions:
                last = actions[-1]
                note = who[1:-1].strip()
                actions[-1] = Parsed(last.action, last.text, last.line, last.column, note)
            else:
                bad("NOTATION_NOTE", "a note must follow an action", line, col)
            i += 1
            continue
        if who not in seats and who not in sides:
            bad(
                "NOTATION_WHO",
                f"{_quoted(who)} is not a seat or side of {t.name} (seats {' '.join(t.seat_ids)}; sides {' '.join(t.side_ids)})",
                line,
                col,
            )
            # Skip what this unknown player does too, unless it names a player.
            nxt = tokens[i + 1][0] if i + 1 < len(tokens) else ""
            i += 1 if (nxt in seats or nxt in sides or nxt.startswith("{") or not nxt) else 2
            continue
        if i + 1 >= len(tokens) or tokens[i + 1][0].startswith("{"):
            bad("NOTATION_INCOMPLETE", f"{who!r} must be followed by what it does", line, col)
            i += 1
            continue
        what, wl, wc = tokens[i + 1]
        after = tokens[i + 2][0] if i + 2 < len(tokens) else ""
        action, used, wrong = _group(who, what, after, seats, sides, pack, t)
        if action is None:
            bad("NOTATION_ACTION", wrong, wl, wc)
        else:
            ln, cl = where(line, col)
            actions.append(Parsed(action, " ".join([who, what, after][:used]), ln, cl))
        i += used
    return actions, problems


def _group(
    who: str, what: str, after: str, seats: set[str], sides: set[str], pack: frozenset[str], t: Tables
) -> tuple[dict[str, Any] | None, int, str]:
    """(the action or None, how many tokens the group takes, what is wrong with it) for ``who what [after]``."""
    said = f"{_quoted(what)} is not an action for {who}"
    apart = who in seats and what in _RAISE_APART
    try:
        # The token after is read as a level only for a bid written apart: elsewhere it is the next group's.
        level = _level(after, seats, sides, t) if apart else None
        action = None if apart else _action(who, what, seats, sides, pack)
    except reader.ReadError as exc:  # a bid to a level written as a number, but not in the digits 0-9
        return None, 3 if apart else 2, f"{said}: {exc}"
    if apart:
        if level is not None:
            return {"seat": who, "act": "raise", "to": level}, 3, ""
        return None, 2, f"{said}: a bid is written with its level, write {who} r{_first_level(after, t)}"
    if action is not None and not _typo(action, who, what, t):
        return action, 2, ""
    near = _nearest(what, _vocabulary(who, seats, sides, t))
    if near in _RAISE_APART:  # "raises 6", "raize 6": the bid, misspelt; its level, if written, goes with it
        spelling = f"write {who} r{_first_level(after, t)}"
        written = reader.is_whole(after) or after in _names(t)
        return None, 3 if written and after not in seats | sides else 2, f"{said}: did you mean raise? {spelling}"
    hint = f" (did you mean {near}?)" if near else ""
    return None, 2, f"{said}{hint}: {_expected(who, seats, sides, t)}"


def _level(token: str, seats: set[str], sides: set[str], t: Tables) -> int | str | None:
    """The level ``token`` names when written after "raise": ASCII digits or a name on the ladder, never a player."""
    if token in seats or token in sides:
        return None  # a ruleset whose player shares a bid's name: only "r<level>" says which is meant
    if reader.looks_numeric(token):  # "raise 12"; "raise ١٢" is a ReadError, as "r١٢" is
        return reader.whole(token, what="a bid level")
    return token if token in _names(t) else None


def _names(t: Tables) -> list[str]:
    """The ladder's levels that are names, not numbers (Vitou's baraque)."""
    return [tok for tok in t.bid_tokens[1:] if isinstance(tok, str)]


def _first_level(after: str, t: Tables) -> str:
    """The level to show in "write W r3": the one written after the word if it is one, else the ladder's first."""
    return after if reader.is_whole(after) or after in _names(t) else str(t.bid_tokens[1])


def _typo(action: dict[str, Any], who: str, what: str, t: Tables) -> bool:
    """Whether a raise to a name off the ladder is rather another act misspelt ("refuses" is not a bid to "efuses").

    A level no ladder has (``rthree``, ``rBaraque``) is what a table may well have said: the rules judge it
    (UNKNOWN_BID). A word nearer a verb of the notation than anything else was no bid at all.
    """
    if action.get("act") != "raise" or not isinstance(action["to"], str) or action["to"] in _names(t):
        return False
    bids = {f"r{tok}" for tok in t.bid_tokens[1:]}
    words = [w for w in _vocabulary(who, set(t.seat_ids), set(t.side_ids), t) if w not in bids and w[:1] != "~"]
    return _nearest(what, words) is not None


def _vocabulary(who: str, seats: set[str], sides: set[str], t: Tables) -> list[str]:
    """Every word the notation gives ``who`` in this game, from the notation's own definitions."""
    words: list[str] = []
    if who in seats:
        acts = t.game_acts or frozenset(a for a, _ in _VERBS) | {"signal"}
        words += [word for act, word in _VERBS if act in acts]
        words += ["raise", *(f"r{tok}" for tok in t.bid_tokens[1:])]
        words += [f"~{g}" for g in sorted(t.gestures)] if "signal" in acts else []
    if who in sides:
        words += list(_SIDE_VERBS)
    return words


def vocabulary(who: str, t: Tables) -> list[str]:
    """Every word the notation gives ``who`` after its name in this game, cards aside: a raise to each level, the
    verbs of the game's acts, its gestures, and a side's verbs."""
    return [w for w in _vocabulary(who, set(t.seat_ids), set(t.side_ids), t) if w != "raise"]


def _nearest(word: str, vocabulary: list[str]) -> str | None:
    """The word of ``vocabulary`` nearest ``word``, letter case and width aside (``Refuse``, ``ｒｅｆｕｓｅ``), or None."""
    if len(word) > 2 * max((len(v) for v in vocabulary), default=0):
        return None  # nothing twice as long as every word is near one; and difflib need not read it
    lowered = {v.lower(): v for v in vocabulary}
    close = difflib.get_close_matches(unicodedata.normalize("NFKC", word).lower(), list(lowered), n=1)
    return lowered[close[0]] if close else None


def _quoted(word: str) -> str:
    """A word as a message quotes it: every letter outside ASCII escaped, so a look-alike (Cyrillic е) shows."""
    return escape.text(ascii(word), _QUOTED)


def _expected(who: str, seats: set[str], sides: set[str], t: Tables) -> str:
    parts = []
    if who in seats:
        pack = [t.card(c).text for c in t.deck]
        such = "AS or 10H" if {"AS", "10H"} <= set(pack) else f"{pack[0]} or {pack[-1]}"
        bids = "/".join(f"r{tok}" for tok in t.bid_tokens[1:])
        if t.face_down_from:  # Truco Paulista: a card face down, from the second trick
            such += f", a card face down such as {FACE_DOWN}{pack[0]}"
        # The verbs of this game's acts only: Le Truc has accept, and no 20-20 question or gesture.
        acts = t.game_acts or frozenset(a for a, _ in _VERBS) | {"signal"}
        verbs = ", ".join(word for act, word in _VERBS if act in acts)
        gesture = " or a gesture such as ~ten" if "signal" in acts else ""
        parts.append(f"a card such as {such}, {bids}, {verbs}{gesture}")
    if who in sides:
        parts.append("takes or declines")
    return "expected " + ", or ".join(parts)


def _action(who: str, what: str, seats: set[str], sides: set[str], pack: frozenset[str]) -> dict[str, Any] | None:
    if who in sides and what in _SIDE_VERBS:
        return {"side": who, "act": _SIDE_VERBS[what]}
    if who not in seats or not what.isprintable():  # a control character is never part of an action
        return None
    if what in pack or what == UNKNOWN:  # "?": a card the record does not know
        return {"seat": who, "act": "play", "card": what}
    if what[:1] == FACE_DOWN and (what[1:] in pack or what[1:] == UNKNOWN):
        return {"seat": who, "act": "play", "card": what[1:], "face_down": True}
    if what == "concede":
        return {"seat": who, "act": "concede"}
    if what == "refuse":
        return {"seat": who, "act": "refuse"}
    if what == "accept":
        return {"seat": who, "act": "accept"}
    if what == "pass":
        return {"seat": who, "act": "pass"}
    if what == "play":
        return {"seat": who, "act": "play_hand"}
    if what.startswith("~") and len(what) > 1:
        return {"seat": who, "act": "signal", "signal": what[1:]}
    if what.startswith("r") and len(what) > 1:
        level = what[1:]
        # A level written in digits is a number ("r3"); any other word is a bid's name ("rbaraque").
        to = reader.whole(level, what="a bid level") if reader.looks_numeric(level) else level
        return {"seat": who, "act": "raise", "to": to}
    return None


def _word(value: Any) -> bool:
    """Whether a value can stand in the notation as it is and be read back the same."""
    if type(value) is int:
        return value >= 0
    return isinstance(value, str) and _WORD.fullmatch(value) is not None


def to_notation(action: Any) -> str:
    """One action in the notation; anything the notation cannot hold exactly is written as its repr.

    The repr (which starts with ``{`` for an object) escapes control
    characters, so an action's text can be shown as it is.
    """
    if not isinstance(action, dict):
        return repr(action)
    act = action.get("act")
    if "side" in action and act in ("play_hand", "decline_hand") and set(action) == {"side", "act"}:
        side = action["side"]
        return f"{side} {'takes' if act == 'play_hand' else 'declines'}" if _word(side) else repr(action)
    seat = action.get("seat")
    if not isinstance(seat, str) or not _word(seat):
        return repr(action)
    keys = set(action)
    if act == "play" and keys <= {"seat", "act", "card", "face_down"}:
        card = action.get("card")
        down = "face_down" in action
        if down and action["face_down"] is not True:  # face_down: false, "yes": no group holds it
            return repr(action)
        known = isinstance(card, str) and (_CARD.match(card) or card == UNKNOWN)
        mark = FACE_DOWN if down else ""
        return f"{seat} {mark}{card}" if known else (repr(action) if down else f"{seat} {card!r}")
    if keys != {"seat", "act", *_FIELDS.get(str(act), ())}:  # a group holds its act's fields, and no other
        return repr(action)
    if act == "raise" and _word(action.get("to")):
        return f"{seat} r{action['to']}"
    if act == "signal" and _word(action.get("signal")):
        return f"{seat} ~{action['signal']}"
    word = _SEAT_WORDS.get(str(act))
    return f"{seat} {word}" if word else repr(action)


# The fields each seat act's group holds besides its seat and act, and the word of each act that has no field.
_FIELDS = {"raise": ("to",), "signal": ("signal",)}
_SEAT_WORDS = {"refuse": "refuse", "accept": "accept", "pass": "pass", "play_hand": "play", "concede": "concede"}


def write_notation(actions: Sequence[Any], per_line: int = 8) -> str:
    groups = [to_notation(a) for a in actions]
    lines = [" ".join(groups[i : i + per_line]) for i in range(0, len(groups), per_line)]
    return "\n".join(lines)


def card_of(text: str) -> Card:
    return Card.parse(text)
