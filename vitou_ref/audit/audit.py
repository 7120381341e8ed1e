"""Auditing a game record: each action ruled legal or not, with the clause, its wording and the reason here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..engine.actions import Malformed
from ..engine.events import Event
from ..engine.reasons import Reason, Ref
from ..engine.tables import tables_for
from ..protocol.server import _structural_code
from ..rules.errors import IllegalAction
from ..rules.model import Ruleset
from .grounds import settle
from .position import Position, position_of
from .record import Claim, Record
from .replay import Replay, Undetermined
from .stops import Stop, mid_trick_stop
from .unknown import UNKNOWN
from .words import Ground, Words, deck_of, manilhas


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


__all__ = [
    "Audit",
    "Ground",
    "Position",
    "Ruling",
    "Words",
    "audit",
    "deck_of",
    "manilhas",
    "position_before",
    "position_of",
]
