"""A record's match replayed action by action, ruling only what does not depend on a card the record leaves unknown."""

from __future__ import annotations

import itertools
import json
from typing import Any

from ..engine.actions import Play, action_from_json
from ..engine.events import Event
from ..engine.match import Match
from ..engine.reasons import Reason, Ref
from ..engine.tables import tables_for
from ..protocol.server import match_from_setup
from ..rules.errors import IllegalAction
from ..rules.model import Ruleset
from .position import Position, position_of
from .record import Record
from .unknown import UNKNOWN, fill, is_unknown_play, named_cards

# The ways a step's unknown cards could be that are tried, at most: each unknown card counts by its rank alone (the
# engine compares strengths), so a trick of four unknown cards of Vitou's eight ranks is 4,096 ways. Past this, the
# step is said to depend on the cards rather than guessed.
MOST_WAYS = 4096
# The ways weighed in all, over a whole record: a record of 10,000 actions built so that every trick is decided
# whatever its unknown cards would otherwise cost minutes. Past it, what is left is said not to be ruled, and why.
MOST_WAYS_IN_ALL = 200_000


class Undetermined(Exception):
    """The step's ruling would depend on a card the record does not know; ``reason`` says which."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(reason.render())
        self.reason = reason


class Replay:
    """The match of a record, with stand-ins for its unknown cards; ``apply`` raises what the engine raises, or
    :class:`Undetermined` when the outcome would differ with what an unknown card is.

    A card named in a play that its seat is not known to hold, where that seat still holds an unknown card, is
    taken as one of them: the record tells us the seat held it. Once a step is undetermined, so is every later one.
    """

    def __init__(self, record: Record, rules: Ruleset) -> None:
        self.rules = rules
        self.t = t = tables_for(rules)
        self.filled = fill(record.setup(), t, named_cards([a.action for a in record.actions]))
        self.m: Match = match_from_setup(t, self.filled.setup)
        self.blind: Reason | None = None
        self._deal = -1
        self.hidden: list[set[int]] = [set() for _ in t.seat_ids]  # stand-ins still in each seat's hand
        self.mystery: dict[int, int] = {}  # a stand-in played as "?" this hand -> the seat that played it
        self.named: set[int] = set()  # cards named and played this hand
        self.weighed = 0  # the ways tried so far, over the whole record
        self._sync()

    @property
    def unknowns(self) -> bool:
        return self.filled.any

    def _sync(self) -> None:
        used = self.m.deals_used()
        if used == self._deal:
            return
        self._deal = used
        stood = self.filled.standins[used - 1] if 0 < used <= len(self.filled.standins) else {}
        card_id = {self.t.card(c).text: c for c in self.t.deck}
        self.hidden = [{card_id[c] for c in stood.get(seat, ())} for seat in self.t.seat_ids]
        self.mystery = {}
        self.named = set()

    # ------------------------------------------------------------------ the position

    def position(self) -> Position:
        """The position as the record knows it: a seat's unknown cards are one legal play of "?"."""
        pos = position_of(self.rules, self.m)
        if self.blind is not None:
            pos.legal, pos.may_bid, pos.may_refuse = [], [], []
            pos.blind = self.blind
            return pos
        if not self.unknowns:
            return pos
        codes = {self.t.card(c).text for h in self.hidden for c in h}
        legal: list[tuple[dict[str, Any], str | None]] = []
        for a, clause in pos.legal:
            if a.get("act") == "play" and a.get("card") in codes:
                unknown = {**a, "card": UNKNOWN}
                if all(x != unknown for x, _ in legal):
                    legal.append((unknown, clause))
            else:
                legal.append((a, clause))
        pos.legal = legal
        shown = {self.t.card(c).text for c in self.mystery}
        pos.played = [(s, UNKNOWN if c in shown else c) for s, c in pos.played]
        return pos

    # ------------------------------------------------------------------ a step

    def apply(self, raw: Any) -> tuple[Event, ...]:
        """The events of ``raw``, as the engine gives them; the engine's refusal, or :class:`Undetermined`."""
        if self.blind is not None:
            raise Undetermined(self.blind)
        mystery = is_unknown_play(raw)
        if not self.unknowns and not mystery:
            return self.m.apply(action_from_json(raw))
        if mystery:
            raw = self._stand_in(raw)
        elif isinstance(raw, dict) and raw.get("act") == "play":
            self._bind(raw)
        action = action_from_json(raw)
        if isinstance(action, Play) and (mystery or self._uncertain(action)):
            self._judge(action, mystery)
        try:
            events = self.m.apply(action)
        except IllegalAction as exc:
            raise self._unsaid(exc) from None
        if isinstance(action, Play):
            s, c = self.t.seat_index[action.seat], action.card.id
            self.hidden[s].discard(c)
            if mystery:
                self.mystery[c] = s
            else:
                self.named.add(c)
        self._sync()
        return events

    def _stand_in(self, raw: dict[str, Any]) -> dict[str, Any]:
        """A play of "?": one of the seat's unknown cards, or, when it holds none, a card the record must name."""
        s = self.t.seat_index.get(raw.get("seat"))  # type: ignore[arg-type]
        if s is None:
            return raw  # the engine refuses the seat
        held = sorted(self.hidden[s] & set(self.m.hands[s]))
        if held:
            return {**raw, "card": self.t.card(held[0]).text}
        hand = self.m.hands[s]
        probe = {**raw, "card": self.t.card(hand[0] if hand else self.t.deck[0]).text}
        try:
            self.m.verify(action_from_json(probe))  # out of turn, or with no card: illegal whatever the card
        except IllegalAction as exc:
            raise self._unsaid(exc) from None
        # Which card left the hand is not known, so neither is any position after it.
        self.blind = Reason("unknown_named", seat=Ref("seat", raw["seat"]))
        raise Undetermined(self.blind)

    def _unsaid(self, exc: IllegalAction) -> IllegalAction:
        """The engine's refusal with no stand-in named: a seat said to hold one holds a card not recorded."""
        why = exc.why
        held = why.params.get("held") if isinstance(why, Reason) else None
        if isinstance(why, Reason) and isinstance(held, Ref):
            codes = {self.t.card(c).text for h in self.hidden for c in h}
            why.params["held"] = Ref(held.kind, tuple(UNKNOWN if c in codes else c for c in held.value))
        return exc

    def _bind(self, raw: dict[str, Any]) -> None:
        """A named card its seat may hold among its unknown cards: from now on, the seat is known to hold it."""
        t, m = self.t, self.m
        s = t.seat_index.get(raw.get("seat"))  # type: ignore[arg-type]
        code = raw.get("card")
        c = next((x for x in t.deck if t.card(x).text == code), None)
        if s is None or c is None or c in m.hands[s]:
            return
        free = sorted(self.hidden[s] & set(m.hands[s]))
        known_elsewhere = any(c in m.hands[o] and c not in self.hidden[o] for o in range(t.n) if o != s)
        up = m.turn_up
        if not free or known_elsewhere or c in self.named or (up is not None and c == up.id):
            return  # the engine says the seat does not hold it (the card turned up is nobody's)
        if c in self.mystery:
            # A card played as "?" stood in as this one; another stand-in takes its place, which changes nothing.
            self._restand(c)
        h = free[0]
        owner = next((o for o in range(t.n) if c in self.hidden[o] and c in m.hands[o]), None)
        if owner is not None:  # another seat's stand-in: the two swap
            m.hands[owner][m.hands[owner].index(c)] = h
            self.hidden[owner].discard(c)
            self.hidden[owner].add(h)
        m.hands[s][m.hands[s].index(h)] = c
        self.hidden[s].discard(h)

    def _restand(self, c: int) -> None:
        m = self.m
        taken = {x for h in m.hands for x in h} | self.named | set(self.mystery) | set(m.tcards)
        if m.turn_up is not None:
            taken.add(m.turn_up.id)
        other = next(x for x in self.t.deck if x not in taken)  # the pack has more cards than a hand's deal
        if c in m.tcards:
            m.tcards[m.tcards.index(c)] = other
        self.mystery[other] = self.mystery.pop(c)

    # ------------------------------------------------------------------ judging across the unknown cards

    def _uncertain(self, action: Play) -> bool:
        """Whether a card now could end differently with what an unknown card is (one played face down counts 0,
        whatever it is)."""
        if any(c in self.mystery for c in self._face_up()):
            return True
        s = self.t.seat_index.get(action.seat)
        # Where a hand may stop inside a trick, the cards of the seats still to play to it decide the stop.
        return s is not None and any(self.hidden[o] & set(self.m.hands[o]) for o in self._to_come(s))

    def _face_up(self) -> list[int]:
        """The cards of the trick in play that were played face up: the only ones whose identity the trick reads."""
        down = self.m.tdown
        return [c for i, c in enumerate(self.m.tcards) if not down >> i & 1]

    def _to_come(self, s: int) -> list[int]:
        """The seats to play to the trick after seat ``s``'s card, when the hand may stop on that card.

        The stop looks at what those seats hold and at nothing else (mt.stop), and only where some way of ending
        the trick in play decides the hand (``trie_may_stop``): in trick 1 of Vitou, no card can stop a hand.
        """
        t, m = self.t, self.m
        if t.card_check_from != 1 or not t.trie_may_stop[m._node]:
            return []
        out, o = [], s
        for _ in range(t.n - len(m.tcards) - 1):
            o = t.next_seat[o]
            out.append(o)
        return out

    def _ranks(self, s: int) -> list[int]:
        """The strengths an unknown card of seat ``s`` may have: any card not known to be anywhere else.

        A card any seat is known to hold, the seat itself included, is not one of its unknown cards.
        """
        m, t = self.m, self.t
        elsewhere = {c for o in range(t.n) for c in m.hands[o] if c not in self.hidden[o]}
        elsewhere |= self.named | {c for c in m.tcards if c not in self.mystery}
        up = m.turn_up
        if up is not None:  # the card turned up is in nobody's hand
            elsewhere.add(up.id)
        # The hand's strengths: with a turn-up, a manilha's suit counts, and each manilha is a strength of its own.
        return sorted({m._power[c] for c in t.deck if c not in elsewhere})

    def _judge(self, action: Play, mystery: bool) -> None:
        """Raise :class:`Undetermined` unless every way the unknown cards could be gives the same outcome."""
        m, t = self.m, self.t
        s = t.seat_index[action.seat]
        down = m.tdown
        # A card played face down counts 0 whatever it is: it is no slot to weigh, in the trick or now.
        slots = [
            ("trick", i, self.mystery[c]) for i, c in enumerate(m.tcards) if c in self.mystery and not down >> i & 1
        ]
        if mystery and not action.down:
            slots.append(("now", -1, s))
        slots += [
            ("hand", c, o)
            for o in self._to_come(s)
            for c in sorted(self.hidden[o] & set(m.hands[o]))
            if (o, c) != (s, action.card.id)
        ]
        choices = [self._ranks(o) for _, _, o in slots]
        ways = 1
        for c in choices:
            ways *= len(c)
        if ways > MOST_WAYS:
            raise self._blind(slots)
        self.weighed += ways
        if self.weighed > MOST_WAYS_IN_ALL:
            self.blind = Reason("unknown_budget", n=MOST_WAYS_IN_ALL)
            raise Undetermined(self.blind)
        by_strength = {m._power[c]: c for c in reversed(t.deck)}
        seen: set[str] = set()
        for combo in itertools.product(*choices):
            other = m.clone()
            card = action.card.id
            for (kind, at, o), power in zip(slots, combo):
                rep = by_strength[power]
                if kind == "trick":
                    other.tcards[at] = rep
                elif kind == "hand":
                    other.hands[o][other.hands[o].index(at)] = rep
                else:
                    other.hands[o][other.hands[o].index(card)] = rep
                    card = rep
            seen.add(_outcome(other, Play(action.seat, t.card(card), action.down)))
            if len(seen) > 1:
                raise self._blind(slots)

    def _blind(self, slots: list[tuple[str, int, int]]) -> Undetermined:
        seats = tuple(dict.fromkeys(self.t.seat_ids[o] for _, _, o in slots))
        if any(kind == "hand" for kind, _, _ in slots):
            self.blind = Reason("unknown_hands", seats=Ref("seats", seats), n=len(seats))
        else:
            self.blind = Reason("unknown_cards", seats=Ref("seats", seats), trick=self.m.trick_number, n=len(seats))
        return Undetermined(self.blind)


def _outcome(m: Match, action: Play) -> str:
    """What a step brings about, cards aside: its events, and whose turn it is in what phase and at what score."""
    try:
        events = m.apply(action)
    except Exception as exc:  # an illegal card in one way and not another: a different outcome too
        return f"refused {type(exc).__name__}"
    said = [e.to_json() for e in events]
    return json.dumps([said, m.phase, m.turn, m.score, m.hand_number, m.trick_number, m.value], sort_keys=True)


__all__ = ["MOST_WAYS", "MOST_WAYS_IN_ALL", "Replay", "Undetermined"]
