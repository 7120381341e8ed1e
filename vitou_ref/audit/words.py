"""Everything an audit says, in one language: actions, events, positions, deals and the grounds of its rulings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..engine.events import Event, HandEvent, MatchEvent, TrickEvent
from ..engine.reasons import Reason, Ref, catalog, render
from ..engine.setup import TURN_UP
from ..engine.tables import tables_for
from ..present.cards import Deck
from ..rules.model import Ruleset
from ..rules.wording import wording_ground
from .i18n import clause_words
from .position import Position
from .unknown import UNKNOWN


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


def manilhas(rules: Ruleset, turn_up: str) -> list[str]:
    """The manilhas a turn-up makes, weakest first: the next rank of the circle, in the rules' order of suits."""
    p = rules.params
    circle = [r.value for r in p.turn_up_circle]
    rank = turn_up[:-1]
    if rank not in circle:
        return []
    nxt = circle[(circle.index(rank) + 1) % len(circle)]
    return [nxt + s.value for s in p.manilha_suits]


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

    def deal(self, deal: dict[str, Any]) -> str:
        """Who was dealt what: each seat by its name, its cards by their codes; then the card turned up, if any."""
        parts = [f"{self.seat(s)}{self.colon} {' '.join(cards)}" for s, cards in deal.items() if s != TURN_UP]
        if TURN_UP in deal:
            parts.append(f"{self.cat.get('words', {}).get('turn_up', 'turn-up')}{self.colon} {deal[TURN_UP]}")
        return f"{self.semicolon} ".join(parts)

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

    def action(self, a: Any, level_before: int = 0, *, option: bool = False) -> str:
        """An action in words: what was done, or with ``option`` one a player may do (a legal action, a what-if).

        A card played face down is never named as what was done: the other player never saw it, and the rules
        have a record's replay show it as face down, not the card (Truco Paulista, clarification 7). As an option,
        it is the player's own card, named: it tells the player's choices apart.
        """
        if not isinstance(a, dict):
            return repr(a)
        act = a.get("act")
        who = Ref("seat", a.get("seat")) if "seat" in a else Ref("side", a.get("side"))
        if act == "play" and a.get("face_down") is True and not option:
            return self.say(
                "actions", "play_down_unknown" if a.get("card") == UNKNOWN else "play_down_hidden", seat=who
            )
        if act == "play":
            down = "_down" if a.get("face_down") is True else ""
            if a.get("card") == UNKNOWN:
                return self.say("actions", f"play{down}_unknown", seat=who)
            return self.say("actions", f"play{down}", seat=who, card=a.get("card"))
        if act == "concede":
            return self.say("actions", "concede", seat=who)
        if act == "raise":
            key = "open" if a.get("to") == tables_for(self.rules).bid_tokens[1] else "raise"
            return self.say("actions", self._own(key), seat=who, bid=a.get("to"))
        if act == "accept":
            return self.say("actions", self._own("accept"), seat=who)
        if act == "refuse":
            return self.say("actions", self._own("refuse"), seat=who)
        if act == "play_hand" and "side" in a:
            return self.say("actions", self._own("decide_play"), side=who)
        if act == "decline_hand":
            return self.say("actions", self._own("decide_decline"), side=who)
        if act == "pass":
            return self.say("actions", "call_pass", seat=who)
        if act == "play_hand":
            return self.say("actions", "call_play", seat=who)
        if act == "signal":
            return self.say("actions", "signal", seat=who, gesture=Ref("gesture", a.get("signal")))
        return repr(a)

    def _own(self, key: str, section: str = "actions") -> str:
        """The game's own words for an act or an event where it has them (Le Truc folds where Vitou refuses; Truco
        Paulista's player at 11 plays the hand of eleven), else Vitou's."""
        game = (self.rules.extends or self.rules.name).split("/")[0]
        own = f"{game}.{key}"
        return own if own in catalog("en").get(section, {}) else key

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
            key = {
                "tricks": "hand_tricks",
                "refusal": "hand_refusal",
                "decline": "hand_decline",
                "conceded": "hand_conceded",
            }.get(e.reason, "hand_tricks")
            return self.say("events", self._own(key, "events"), side=side, points=e.points, score=score)
        if isinstance(e, MatchEvent):
            return self.say("events", self._own("match", "events"), side=Ref("side", e.winner))
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
        if p.turn_up is not None:
            lines.append(
                self.say("audit", "turn_up", card=p.turn_up, manilhas=" ".join(manilhas(self.rules, p.turn_up)))
            )
        if p.phase in ("play", "bid_card", "answer", "awaiting_answer", "raise_pending"):
            # A card played face down is shown as face down, not the card: the other player never saw it.
            down = [i < len(p.down) and p.down[i] for i in range(len(p.played))]
            cards = " ".join(
                f"{self.seat(s)} {self.say('audit', 'face_down') if d else c}" for (s, c), d in zip(p.played, down)
            )
            cards = cards or "-"
            lines.append(self.say("audit", "trick_state", trick=p.trick, leader=Ref("seat", p.leader), cards=cards))
            if p.bidder is None:
                lines.append(self.say("audit", "value_no_bid", value=p.value))
            else:
                lines.append(self.say("audit", "value_bid", bid=p.bid, bidder=Ref("seat", p.bidder)))
        lines.append(self.phase(p))
        return lines


__all__ = ["Ground", "Words", "deck_of", "manilhas"]
