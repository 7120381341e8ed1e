"""The ruleset as typed, immutable data: clauses, clarifications, error codes and parameters."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from .cards import Rank, Suit

BidToken = int | str  # 3, 6, 12 or "baraque"
MATCH = "match"


def freeze(value: Any) -> Any:
    """JSON-shaped data made immutable (dicts become read-only mappings, lists tuples)."""
    if isinstance(value, dict):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(freeze(v) for v in value)
    return value


_LEAVES = frozenset({str, int, bool, float, type(None)})


def thaw(value: Any) -> Any:
    """The JSON-shaped form of frozen data."""
    kind = type(value)  # exact types first: the harness thaws every expectation it compares
    if kind in _LEAVES:
        return value
    if kind is MappingProxyType or kind is dict:
        return {k: v if type(v) in _LEAVES else thaw(v) for k, v in value.items()}
    if kind is tuple:
        return [v if type(v) in _LEAVES else thaw(v) for v in value]
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class Clause:
    id: str
    section: str
    title: str
    text: str
    quote: str | None
    clarifications: tuple[int, ...]
    rule: str | None
    data: Any  # frozen; None when the clause carries no figures
    origin: str  # the ruleset (id/version) that wrote this clause

    @property
    def descriptive(self) -> bool:
        """No rule binds this clause: the interpreter never reads it, so rewording it changes no behaviour."""
        return self.rule is None


@dataclass(frozen=True, slots=True)
class Clarification:
    number: int
    title: str
    clauses: tuple[str, ...]
    ruling: str
    reason: str
    origin: str


@dataclass(frozen=True, slots=True)
class ErrorCode:
    code: str
    clause: str
    summary: str
    acts: tuple[str, ...] = ()  # the acts its condition judges (the interpreter's required set when unstated)
    condition: str = ""  # the named condition the interpreter evaluates
    when: str = ""  # the exact condition in words ("" when the ruleset states only the summary)
    origin: str = ""  # the profile that restated its words ("" for the words of the ruleset that defined it)


@dataclass(frozen=True, slots=True)
class ChangelogEntry:
    version: str
    date: str
    changes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SeatSpec:
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class SideSpec:
    id: str
    name: str
    seats: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SuitSpec:
    suit: Suit
    name: str
    symbol: str


@dataclass(frozen=True, slots=True)
class ResolutionRow:
    id: str
    pattern: tuple[Literal["A", "B", "T"], ...]
    winner: Literal["A", "B", "none", "eldest"]  # eldest: the side of the player next to the dealer
    text: str


@dataclass(frozen=True, slots=True)
class LadderLevel:
    bid: BidToken | None  # None for the base (no bid)
    value: int | Literal["match"]
    refused: int | None


@dataclass(frozen=True, slots=True)
class Gesture:
    id: str
    gesture: str
    means: str


@dataclass(frozen=True, slots=True)
class Params:
    """Every figure and switch the interpreter reads, gathered from the clauses' data."""

    suits: tuple[SuitSpec, ...]
    ranks: tuple[Rank, ...]
    rank_order: tuple[Rank, ...]  # highest first
    seats: tuple[SeatSpec, ...]  # clockwise
    sides: tuple[SideSpec, ...]
    next_is: Literal["left", "right"]
    draw_dealer: Literal["lowest", "highest"]
    redraw_who: Literal["tied", "all"]
    cards_each: int
    deal_first: Literal["next", "previous"]
    dealer_passes: Literal["next", "previous"]
    first_leader: Literal["next_to_dealer", "dealer"]
    tie_same_side: Literal["tie", "first_played_wins"]
    tie_next_leader: Literal["previous_leader", "eldest"]
    tricks: int
    resolution: tuple[ResolutionRow, ...]
    hand_stop: Literal["end_of_trick", "as_soon_as_determined"]  # when a hand may stop: see settings.OPTIONAL_RULES
    # Under as_soon_as_determined, a bid awaiting its answer when the hand is determined: the hand stops and the
    # bid stands accepted, or the answer may still be given (the stop waits until no bid awaits an answer).
    stop_answer: Literal["stands_accepted", "may_be_given"]
    ladder: tuple[LadderLevel, ...]  # index 0 is the base value
    jumps_allowed: bool
    opening_tricks: frozenset[int] | None  # None: any trick
    last_position_bids: bool
    raise_by: Literal["opposite", "any"]
    later_raise: bool
    refusal_by: Literal["immediate_follower", "any_opponent"]
    refusal_pays: Literal["bidders", "refusers"]
    bid_timing: Literal["seat_in_turn", "any_seat"]  # who may bid: the seat in turn, or any seat (à la volée)
    # When a bid is answered and how (the bid_answer rule): after the bidder's card, by playing (Vitou); or
    # before any card, by an explicit accept, after which the seat whose turn the raises interrupted plays.
    answer_when: Literal["after_bidders_card", "before_any_card"]
    answer_accept: Literal["by_playing", "explicit"]
    target: int
    twenty_enabled: bool
    twenty_at: int
    twenty_bids_closed: bool
    twenty_decline: int
    twenty_win: int
    twenty_win_takes_match: bool
    twenty_lose: int
    tt_enabled: bool
    tt_bids_closed: bool
    tt_signals_forbidden: bool
    tt_first: Literal["next_to_dealer", "dealer"]
    tt_win: int
    tt_leader: Literal["next_to_dealer", "first_to_play"]
    tt_all_pass_dealer: Literal["passes", "stays"]
    tt_all_tied_dealer: Literal["passes", "stays"]
    gestures: tuple[Gesture, ...]
    signals_allowed: bool
    # The rules of Truco Paulista, each off in a ruleset that does not bind it (settings.OPTIONAL_RULES):
    turn_up_circle: tuple[Rank, ...]  # the turn-up's circle of ranks, lowest first; () where no card is turned up
    manilha_suits: tuple[Suit, ...]  # the manilhas' suits, lowest first
    face_down_from: int  # the first trick a card may be played face down in; 0: never
    concede: bool  # the seat due to act may concede the hand (the act concede)
    scores_stop: bool  # points beyond the target are not counted
    tt_question: bool  # at the score both sides share, the 20-20 question is asked (else the hand is played at once)


@dataclass(frozen=True)
class Ruleset:
    """A complete, checked ruleset. Build it with :func:`vitou_ref.load_ruleset`."""

    id: str
    version: str
    title: str
    summary: str
    source: str
    versioning: str
    changelog: tuple[ChangelogEntry, ...]
    clauses: tuple[Clause, ...]
    clarifications: tuple[Clarification, ...]
    errors: tuple[ErrorCode, ...]
    params: Params
    bindings: Mapping[str, str]  # rule name -> clause id
    extends: str | None  # for a profile: the base ruleset's name
    profile: Any  # for a profile: its own frozen document (decisions, operations)
    canonical: Any  # frozen JSON-shaped canonical form (what is hashed and printed)

    @property
    def name(self) -> str:
        return f"{self.id}/{self.version}"

    def clause(self, clause_id: str) -> Clause:
        for c in self.clauses:
            if c.id == clause_id:
                return c
        raise KeyError(clause_id)

    @property
    def replaced(self) -> dict[str, str]:
        """Clause ids this ruleset's profile replaced (through its ancestry), mapped to their replacements."""
        cached: dict[str, str] | None = self.__dict__.get("_replaced")
        if cached is None:
            cached = {}
            if self.profile:
                for op in thaw(self.profile).get("operations", []):
                    if "replace" in op:
                        cached[op["replace"]] = op["with"]["id"]
            object.__setattr__(self, "_replaced", cached)
        return cached

    def inherit_replacements(self, base_replaced: Mapping[str, str]) -> None:
        """Add what the base's own ancestry replaced (the profile resolver calls this: it holds the base)."""
        mine = self.replaced
        for old, new in base_replaced.items():
            mine.setdefault(old, mine.get(new, new))

    def current_clause(self, clause_id: str) -> str:
        """The id a clause goes by in this ruleset: its replacement's, if a profile replaced it."""
        seen = set()
        while clause_id in self.replaced and clause_id not in seen:
            seen.add(clause_id)
            clause_id = self.replaced[clause_id]
        return clause_id

    def clause_for_rule(self, rule: str) -> Clause:
        return self.clause(self.bindings[rule])

    def error(self, code: str) -> ErrorCode:
        for e in self.errors:
            if e.code == code:
                return e
        raise KeyError(code)

    def to_json(self) -> dict[str, Any]:
        return thaw(self.canonical)  # type: ignore[no-any-return]

    @property
    def content_hash(self) -> str:
        return content_hash(self.to_json())


def content_hash(document: Any) -> str:
    blob = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()
