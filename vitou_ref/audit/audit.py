"""Auditing a game record: each action ruled legal or not, with the clause, its wording and the reason here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..engine.actions import Malformed
from ..engine.events import Event, HandEvent, MatchEvent, TrickEvent
from ..engine.reasons import Reason, Ref, catalog, render
from ..engine.tables import tables_for
from ..present.cards import Deck
from ..protocol.server import _structural_code
from ..rules.errors import IllegalAction
from ..rules.model import Ruleset
from ..rules.wording import wording_ground
from .grounds import settle
from .i18n import clause_words
from .position import Position, position_of
from .record import Claim, Record
from .replay import Replay, Undetermined
from .stops import Stop, mid_trick_stop
from .unknown import UNKNOWN


@dataclass
class Ruling:
    n: int  # 1-based
    action: Any
    notation: str
    legal: bool
    code: str | None = None
    clause: str | None = None
    reason: Reason | None = None
    events: list[Event] = field(default_factory=list)
    score: dict[str, int] = field(default_factory=dict)
    position: Position | None = None
    notes: list[str] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    not_made: bool = False  # illegal, skipped by --continue
    stop: Stop | None = None  # the hand stopped inside its trick on this card
    after_stop: tuple[int, Stop] | None = None  # an act of the seat whose answer that stop (at action n) cut short
    allowed_by: str | None = None  # legal: the clause that allows the action in its position
    open: Reason | None = None  # not ruled: the ruling would depend on a card the record leaves unknown


@dataclass(frozen=True)
class Ground:
    """The wording a ruling rests on: the cited clause's, or the base's when a profile's words cannot be the ground.

    A clause no rule binds carries no behaviour: a profile that rewrites it
    and plays exactly as its base changes words, not play, so a ruling
    citing it applies the base's behaviour. Quoting the profile's words there
    would give as the ground of a ruling a text that may say the opposite;
    the base's wording is quoted instead, and ``note`` says why (``quoted``
    is the base's clause). See :func:`vitou_ref.rules.wording.wording_ground`.
    """

    title: str
    text: str
    origin: str
    quoted: str | None = None
    note: str | None = None


@dataclass
class Audit:
    record: Record
    rules: Ruleset
    rulings: list[Ruling]
    stopped_at: int | None
    final: dict[str, Any]
    positions: list[Position] = field(default_factory=list)  # before each action ruled, and after the last

    def __post_init__(self) -> None:
        # A ground only the whole record gives: the action that ended a hand, for an action made after it.
        settle(self.rules, self.rulings)


def audit(record: Record, rules: Ruleset, go_on: bool = False) -> Audit:
    """Replay ``record`` under ``rules``; stop at the first illegal action unless ``go_on``.

    An action whose ruling would depend on a card the record leaves unknown is not ruled (``Ruling.open``
    says why), and neither is any action after it: the position it leads to is not known.
    """
    t = tables_for(rules)
    replay = Replay(record, rules)
    m = replay.m
    claims: dict[int, list[Claim]] = {}
    for c in record.claims:
        claims.setdefault(c.at, []).append(c)
    rulings: list[Ruling] = []
    positions: list[Position] = []
    stopped = None
    cut_short: tuple[int, Stop] | None = None  # the latest stop that cut an answer short, until the next legal act
    for n, ra in enumerate(record.actions, 1):
        before = replay.position()
        positions.append(before)
        ruling = Ruling(n, ra.action, ra.text, True, notes=record.annotations.get(n, []), claims=claims.get(n, []))
        try:
            ruling.events = list(replay.apply(ra.action))
        except Undetermined as exc:
            ruling.legal = False  # neither legal nor illegal: every reader asks ``open`` first
            ruling.open = exc.reason
            ruling.position = before
        except Malformed as exc:
            code = _structural_code(t, ra.action, exc.code)
            _illegal(
                ruling,
                rules,
                code,
                Reason("not_an_action", value=exc.reason) if code == exc.code else _unknown_seat(t),
                before,
            )
        except IllegalAction as exc:
            reason = exc.why if isinstance(exc.why, Reason) else Reason("card_unreadable", text=str(exc.why))
            _illegal(ruling, rules, exc.code, reason, before)
        ruling.score = m.score
        if ruling.legal:
            ruling.allowed_by = _allowed_by(before, ra.action)
            ruling.stop = mid_trick_stop(rules, t, before, ra.action, ruling.events)
            cut_short = (n, ruling.stop) if ruling.stop is not None and ruling.stop.answer_of else None
        elif (
            ruling.open is None
            and cut_short is not None
            and isinstance(ra.action, dict)
            and ra.action.get("seat") == cut_short[1].answer_of
        ):
            ruling.after_stop = cut_short
        rulings.append(ruling)
        if not ruling.legal and ruling.open is None:
            if not go_on:
                stopped = n
                break
            ruling.not_made = True
    final: dict[str, Any] = {"score": m.score, "dealer": m.dealer, "winner": m.winner}
    if replay.blind is not None:
        final["open"] = replay.blind  # the score and the winner are not known past the first action not ruled
    positions.append(replay.position())
    return Audit(record, rules, rulings, stopped, final, positions)


def _allowed_by(before: Position, action: Any) -> str | None:
    """The clause the position gives for a legal action; a card its seat was not known to hold is its "?" play."""
    found = next((c for a, c in before.legal if a == action), None)
    if found is None and isinstance(action, dict) and action.get("act") == "play":
        unknown = {**action, "card": UNKNOWN}
        found = next((c for a, c in before.legal if a == unknown), None)
    return found


def _unknown_seat(t: Any) -> Reason:
    return Reason("unknown_seat", seats=Ref("seats", t.seat_ids))


def _illegal(ruling: Ruling, rules: Ruleset, code: str, reason: Reason, before: Position) -> None:
    ruling.legal = False
    ruling.code = code
    ruling.clause = rules.error(code).clause
    ruling.reason = reason
    ruling.position = before


def position_before(record: Record, rules: Ruleset, n: int) -> tuple[Position, list[Ruling]]:
    """The position before action ``n`` (1-based); illegal actions before it change nothing, as in play."""
    replay = Replay(record, rules)
    done: list[Ruling] = []
    for i, ra in enumerate(record.actions[: n - 1], 1):
        r = Ruling(i, ra.action, ra.text, True)
        try:
            r.events = list(replay.apply(ra.action))
        except Undetermined as exc:
            r.legal, r.open = False, exc.reason
        except (Malformed, IllegalAction) as exc:
            r.legal = False
            r.code = exc.code
        r.score = replay.m.score
        done.append(r)
    return replay.position(), done


# ------------------------------------------------------------------ wording


def deck_of(rules: Ruleset) -> Deck:
    """The ruleset's cards as a page shows them: its ranks, and each suit's letter with its symbol."""
    p = rules.params
    return Deck(tuple(r.value for r in p.ranks), tuple((s.suit.value, s.symbol) for s in p.suits))


class Words:
    """Everything an audit says, in one language."""

    def __init__(self, rules: Ruleset, lang: str) -> None:
        self.rules = rules
        self.lang = lang
        self.cat = catalog(lang)

    def seat(self, seat: str | None) -> str:
        if seat is None:
            return str(self.cat.get("words", {}).get("nobody", "nobody"))
        return str(self.cat.get("names", {}).get("seats", {}).get(seat, seat))

    def side(self, side: str | None) -> str:
        if side is None:
            return str(self.cat.get("words", {}).get("nobody", "nobody"))
        return str(self.cat.get("names", {}).get("sides", {}).get(side, side))

    def score(self, score: dict[str, int]) -> str:
        return ", ".join(f"{self.side(s)} {p}" for s, p in score.items())

    def deal(self, deal: dict[str, list[str]]) -> str:
        """Who was dealt what: each seat by its name, its cards by their codes."""
        return f"{self.semicolon} ".join(f"{self.seat(s)}{self.colon} {' '.join(cards)}" for s, cards in deal.items())

    @property
    def deck(self) -> Deck:
        return deck_of(self.rules)

    def quoted(self, text: str) -> str:
        """``text`` between the language's quotation marks (“ ” in English, « » in French, Portuguese, Russian)."""
        return str(self.cat.get("words", {}).get("quote", "“{text}”")).replace("{text}", text)

    @property
    def semicolon(self) -> str:
        """What separates the parts of a line, as the language writes it: French sets a space before it too."""
        return str(self.cat.get("words", {}).get("semicolon", ";"))

    @property
    def colon(self) -> str:
        """What follows a label ("reason: ..."), as the language writes it: French sets a space before it."""
        return str(self.cat.get("words", {}).get("colon", ":"))

    def say(self, section: str, key: str, /, **params: Any) -> str:
        return render(key, params, self.lang, True, section=section)

    def action(self, a: Any, level_before: int = 0) -> str:
        if not isinstance(a, dict):
            return repr(a)
        act = a.get("act")
        who = Ref("seat", a.get("seat")) if "seat" in a else Ref("side", a.get("side"))
        if act == "play" and a.get("card") == UNKNOWN:
            return self.say("actions", "play_unknown", seat=who)
        if act == "play":
            return self.say("actions", "play", seat=who, card=a.get("card"))
        if act == "raise":
            key = "open" if a.get("to") == tables_for(self.rules).bid_tokens[1] else "raise"
            return self.say("actions", self._own(key), seat=who, bid=a.get("to"))
        if act == "accept":
            return self.say("actions", self._own("accept"), seat=who)
        if act == "refuse":
            return self.say("actions", self._own("refuse"), seat=who)
        if act == "play_hand" and "side" in a:
            return self.say("actions", "decide_play", side=who)
        if act == "decline_hand":
            return self.say("actions", "decide_decline", side=who)
        if act == "pass":
            return self.say("actions", "call_pass", seat=who)
        if act == "play_hand":
            return self.say("actions", "call_play", seat=who)
        if act == "signal":
            return self.say("actions", "signal", seat=who, gesture=Ref("gesture", a.get("signal")))
        return repr(a)

    def _own(self, key: str) -> str:
        """The game's own words for an act where it has them (Le Truc folds where Vitou refuses), else Vitou's."""
        game = (self.rules.extends or self.rules.name).split("/")[0]
        own = f"{game}.{key}"
        return own if own in catalog("en").get("actions", {}) else key

    def event(self, e: Event) -> str:
        if isinstance(e, TrickEvent):
            if e.winner is None:
                return self.say("events", "trick_tied", trick=e.trick)
            return self.say("events", "trick_won", trick=e.trick, seat=Ref("seat", e.winner))
        if isinstance(e, HandEvent):
            score = self.score(dict(e.score))
            if e.winner is None:
                key = {"passed": "hand_passed", "void": "hand_void"}.get(e.reason, "hand_tied")
                return self.say("events", key, score=score)
            side = Ref("side", e.winner)
            if isinstance(e.points, str):
                return self.say("events", "hand_match_bid", side=side, bid=e.points, score=score)
            key = {"tricks": "hand_tricks", "refusal": "hand_refusal", "decline": "hand_decline"}.get(
                e.reason, "hand_tricks"
            )
            return self.say("events", key, side=side, points=e.points, score=score)
        if isinstance(e, MatchEvent):
            return self.say("events", "match", side=Ref("side", e.winner))
        return str(e)

    def reason(self, r: Reason) -> str:
        return r.render(self.lang, names=True)

    def clause(self, clause_id: str) -> tuple[str, str]:
        return clause_words(self.rules.clause(clause_id), self.lang)

    def ground(self, clause_id: str) -> Ground:
        """The wording a ruling citing ``clause_id`` rests on (see :class:`Ground`)."""
        found = wording_ground(self.rules, clause_id)
        if found is None:
            title, text = self.clause(clause_id)
            return Ground(title, text, self.rules.clause(clause_id).origin)
        base, was = found
        title, text = clause_words(was, self.lang)
        note = self.say(
            "audit", "wording_only", profile=self.rules.name, clause=clause_id, base=base.name, quoted=was.id
        )
        return Ground(title, text, was.origin, was.id, note)

    def phase(self, p: Position) -> str:
        key = "phase." + p.phase
        return self.say("audit", key, seat=Ref("seat", p.turn), side=Ref("side", p.deciding), at=self.at)

    @property
    def at(self) -> int:
        """The score of the ruleset's twenty-point ending, for the words that name it (20 in Vitou)."""
        return tables_for(self.rules).twenty_at

    def summary(self, legal: int, illegal: int, open_: int, total: int | None = None) -> str:
        """How many actions were legal, illegal and not ruled, of how many: each count with the words that agree
        with it. Called with three counts, the third is the total and none went unruled."""
        if total is None:
            open_, total = 0, open_
        return self.say(
            "audit",
            "summary_open" if open_ else "summary",
            legal=self.say("audit", "summary.legal", n=legal),
            illegal=self.say("audit", "summary.illegal", n=illegal),
            open=self.say("audit", "summary.open", n=open_),
            total=self.say("audit", "summary.total", n=total),
        )

    def hand(self, p: Position) -> str:
        """Where in the match a position is: in a hand, between two hands, or after the last one."""
        if p.phase == "match_over":
            return self.say("audit", "hand_over", n=p.hand)
        if p.phase == "no_deal":
            # The hand is over and the next player deals (deal.rotation): the position is
            # the next hand's, which no deal of the record starts.
            due = self.say("audit", "hand_not_dealt", n=p.hand + 1, dealer=Ref("seat", p.dealer))
            return f"{self.say('audit', 'hand_over', n=p.hand)}{self.semicolon} {due}" if p.hand else due
        return self.say("audit", "hand", n=p.hand, dealer=Ref("seat", p.dealer))

    def position(self, p: Position) -> list[str]:
        lines = [f"{self.hand(p)}{self.semicolon} {self.say('audit', 'score', score=self.score(p.score))}"]
        if p.phase in ("play", "bid_card", "answer", "awaiting_answer", "raise_pending"):
            cards = " ".join(f"{self.seat(s)} {c}" for s, c in p.played) or "-"
            lines.append(self.say("audit", "trick_state", trick=p.trick, leader=Ref("seat", p.leader), cards=cards))
            if p.bidder is None:
                lines.append(self.say("audit", "value_no_bid", value=p.value))
            else:
                lines.append(self.say("audit", "value_bid", bid=p.bid, bidder=Ref("seat", p.bidder)))
        lines.append(self.phase(p))
        return lines


__all__ = [
    "Audit",
    "Ground",
    "Position",
    "Ruling",
    "Words",
    "audit",
    "deck_of",
    "position_before",
    "position_of",
]
