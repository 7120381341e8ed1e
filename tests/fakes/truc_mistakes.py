"""Le Truc engines with one rule mistake each, that no rules data can state: the reference, changed in one place.

Usage: python truc_mistakes.py MODE (or MODE+MODE: an engine with each of the mistakes)
It answers like the reference adapter, except under le-truc, where MODE changes one behaviour:
  own-raise-waits       the raiser may raise again while its own raise waits: the waiting raise goes up a level
  spoilt-follower-leads after a spoilt trick the follower leads the next, not the player who led it
  answerer-plays        after an accept the player who accepted plays, not the one whose turn the raises interrupted
  no-raise-again        a raise is answered by accept or fold only: a raise again is refused (BID_OUT_OF_TURN)
  dealer-stays          the dealer deals every hand: the deal never alternates
  suits-count           suits break equal ranks, spades over hearts over diamonds over clubs: no trick is spoilt
  plays-on              once the match is won, an action is accepted (and changes nothing) where it is refused
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from vitou_ref.adapter import build_server
from vitou_ref.engine.actions import Action, Raise
from vitou_ref.engine.bids import Bids
from vitou_ref.engine.match import Match
from vitou_ref.engine.reasons import Reason
from vitou_ref.engine.tables import Tables
from vitou_ref.engine.transitions import PENDING
from vitou_ref.engine.trick import Tricks

GAME = "le-truc"


def _truc(m: Any) -> bool:
    return m._t.rules.id == GAME


def own_raise_waits() -> None:
    apply = Match.apply

    def patched(self: Match, action: Action) -> Any:
        t = self._t
        # The raiser's raise to the level above its own waiting one: the waiting raise goes up, the answer still waits.
        if _truc(self) and self.phase == PENDING and type(action) is Raise and self._bidder >= 0:
            raiser = t.seat_ids[self._bidder]
            if action.seat == raiser and self.level < t.top and t.bid_level.get(action.to) == self.level + 1:
                self.level += 1
                return ()
        return apply(self, action)

    Match.apply = patched  # type: ignore[method-assign]


def spoilt_follower_leads() -> None:
    end = Tricks._end_trick

    def patched(self: Any, answer_due: bool) -> Any:
        follower = self.tseats[-1] if self.tseats else -1
        events = end(self, answer_due)
        # A spoilt trick the hand goes on after: its last player leads the next one.
        spoilt = len(events) == 1 and getattr(events[0], "winner", "x") is None
        if _truc(self) and spoilt and follower >= 0:
            self._leader = self._turn = follower
        return events

    Tricks._end_trick = patched  # type: ignore[method-assign]


def answerer_plays() -> None:
    accept = Bids._do_accept

    def patched(self: Any) -> Any:
        answerer = self._turn
        events = accept(self)
        if _truc(self):
            self._turn = answerer
        return events

    Bids._do_accept = patched  # type: ignore[method-assign]


def no_raise_again() -> None:
    apply = Match.apply
    legal = Match.legal_actions

    def patched_apply(self: Match, action: Action) -> Any:
        if _truc(self) and self.phase == PENDING and type(action) is Raise and action.seat == self.turn:
            raise self._error(action, "BID_OUT_OF_TURN", Reason("bid_out_of_turn.answer_only"))
        return apply(self, action)

    def patched_legal(self: Match) -> Any:
        out = legal(self)
        if _truc(self) and self.phase == PENDING:
            return [a for a in out if type(a) is not Raise]
        return out

    Match.apply = patched_apply  # type: ignore[method-assign]
    Match.legal_actions = patched_legal  # type: ignore[method-assign]


def dealer_stays(t: Tables) -> None:
    t.dealer_after = tuple(range(t.n))


def suits_count(t: Tables) -> None:
    # Four strengths a rank: the rank's place first, then the suit in the deck clause's order (spades highest).
    suits = [s.suit for s in t.rules.params.suits]
    strength = list(t.strength)
    for c in t.deck:
        card = t.card(c)
        strength[c] = strength[c] * len(suits) + (len(suits) - 1 - suits.index(card.suit))
    t.strength = tuple(strength)


def plays_on() -> None:
    apply = Match.apply

    def patched(self: Match, action: Action) -> Any:
        if _truc(self) and self.winner is not None:
            return []  # the match is won, and the action is taken all the same: nothing happens
        return apply(self, action)

    Match.apply = patched  # type: ignore[method-assign]


ENGINE: dict[str, Callable[[], None]] = {
    "plays-on": plays_on,
    "own-raise-waits": own_raise_waits,
    "spoilt-follower-leads": spoilt_follower_leads,
    "answerer-plays": answerer_plays,
    "no-raise-again": no_raise_again,
}
TABLES: dict[str, Callable[[Tables], None]] = {"dealer-stays": dealer_stays, "suits-count": suits_count}


def serve_mistakes(
    script: str, game: str, engine: dict[str, Callable[[], None]], tables: dict[str, Callable[[Tables], None]]
) -> int:
    """Serve the reference with the mistakes argv names (MODE or MODE+MODE) made under ``game``'s rulesets."""
    modes = (sys.argv[1] if len(sys.argv) > 1 else "").split("+")  # MODE+MODE: an engine with several mistakes
    for mode in modes:
        if mode not in engine and mode not in tables:
            print(f"{script}: no mode {mode!r} (modes: {', '.join([*engine, *tables])})", file=sys.stderr)
            return 2
    server = build_server()
    for mode in modes:
        if mode in engine:
            engine[mode]()
        else:
            for name, t in server.tables.items():
                if name.partition("/")[0] == game:
                    tables[mode](t)
    return server.serve(sys.stdin.buffer, sys.stdout.buffer)


def main() -> int:
    return serve_mistakes("truc_mistakes.py", GAME, ENGINE, TABLES)


if __name__ == "__main__":
    raise SystemExit(main())
