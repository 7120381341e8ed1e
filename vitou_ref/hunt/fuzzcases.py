"""Drawing fuzz matches: the mistakes to try, a drawn match played on the reference, answers compared, a run's result."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..engine.actions import Malformed, action_from_json
from ..engine.match import Match
from ..engine.tables import Tables
from ..kit.answerbounds import ENVELOPE, message_breach
from ..kit.judge import CODE, named_events, named_final, same_events, same_final, sides_of
from ..present import escape
from ..protocol.client import PROTOCOL_MINOR, as_spoken
from ..protocol.server import _structural_code, run_case
from ..protocol.wire import canonical, same
from ..rules.cards import ALL_CARDS
from ..rules.errors import IllegalAction
from .fuzzkinds import kind_of

MAX_ACTIONS = 160
AFTER_THE_END = 0.5  # the share of matches won within their length that get one action after the end
PAST_THE_DEALS = 0.02  # the chance, at each hand's end, that the case stops its deals there and sends one more action
STARTS: tuple[tuple[int, int], ...] = ((0, 0), (17, 15), (19, 19), (20, 14), (14, 20), (20, 19), (20, 20), (18, 20))
_STARTS_TARGET = 21  # STARTS are written for Vitou's target and its ending at 20


def starts_for(t: Tables) -> tuple[tuple[int, int], ...]:
    """STARTS, or for a lower target as far below it (Le Truc's 12: 8-6, 10-10, ...): no start is a match won."""
    if max(map(max, STARTS)) < t.target:
        return STARTS
    shift = t.target - _STARTS_TARGET
    return tuple((max(a + shift, 0) if a else 0, max(b + shift, 0) if b else 0) for a, b in STARTS)


@dataclass
class Case:
    setup: dict[str, Any]
    actions: list[Any]


@dataclass
class Divergence:
    case: Case
    where: str  # "step N", "legal", "final", "errored", "fault"
    expected: Any
    actual: Any
    reference: dict[str, Any] = field(default_factory=dict)
    before: list[Case] = field(default_factory=list)  # what the process was sent before, in order

    @property
    def kind(self) -> str:
        """What its first differing step shows (hunt/fuzzkinds.py): divergences of one kind are one bug to fuzz."""
        n = int(self.where.split()[1]) if self.where.startswith("step ") else 0
        action = self.case.actions[n - 1] if 0 < n <= len(self.case.actions) else None
        return kind_of(self.where, self.expected, self.actual, action)

    def describe(self) -> str:
        e = escape.text(json.dumps(self.expected, sort_keys=True, ensure_ascii=False), 600)
        a = escape.text(json.dumps(self.actual, sort_keys=True, ensure_ascii=False), 600)
        action = ""
        if self.where.startswith("step "):
            raw = self.case.actions[int(self.where.split()[1]) - 1]
            action = f" ({escape.text(json.dumps(raw, ensure_ascii=False), 200)})"
        return f"{self.where}{action}: expected {e}, got {a}"


@dataclass
class FuzzResult:
    matches: int
    seconds: float
    divergences: list[Divergence]  # one of each kind found, each shrunk, in the order found
    restarts: int
    examples: int
    actions: int = 0
    ended: int = 0
    spent: str | None = None  # why the search or the shrinking stopped early: "restarts", "time" or "kinds"
    aside: dict[str, int] = field(default_factory=dict)  # divergences of a kind known before (--expect), by kind

    @property
    def divergence(self) -> Divergence | None:
        """The first divergence found, or None."""
        return self.divergences[0] if self.divergences else None

    @property
    def rate(self) -> float:
        return self.matches / self.seconds if self.seconds else 0.0

    def describe(self) -> str:
        """What was tried, in a line: how many matches, how long they were, how fast."""
        n = max(self.matches, 1)
        return (
            f"{self.matches} matches ({self.actions / n:.0f} actions on average, {100 * self.ended / n:.0f}% played "
            f"to the end of the match) in {self.seconds:.1f}s: {self.rate:,.0f} matches/s"
        )


def reference_answer(t: Tables, case: Case) -> dict[str, Any]:
    """The reference's answer to ``case``, without the envelope's seq: what an implementation's answer is held to."""
    return {k: v for k, v in run_case(t, case.setup, case.actions, 1).items() if k != "seq"}


def universe(t: Tables) -> list[Any]:
    """Actions to try where they do not belong: every kind of mistake an implementation must refuse."""
    out: list[Any] = []
    for seat in t.seat_ids:
        out += [{"seat": seat, "act": "play", "card": str(t.card(c))} for c in t.deck]
        out += [{"seat": seat, "act": "raise", "to": tok} for tok in t.bid_tokens[1:]]
        out += _answer_first_tries(t, seat)
        out += _paulista_tries(t, seat)
        out += [
            {"seat": seat, "act": "refuse"},
            {"seat": seat, "act": "pass"},
            {"seat": seat, "act": "play_hand"},
            {"seat": seat, "act": "signal", "signal": "ten"},
            {"seat": seat, "act": "signal", "signal": "wink"},
            {"seat": seat, "act": "raise", "to": 4},
            {"seat": seat, "act": "play", "card": "1S"},
        ]
    for side in t.side_ids:
        out += [{"side": side, "act": "play_hand"}, {"side": side, "act": "decline_hand"}]
    out += [
        {"seat": "X", "act": "play", "card": "AS"},
        {"seat": t.seat_ids[0], "act": "dance"},
        {"act": "play"},
        "N AS",
    ]
    return out


def _answer_first_tries(t: Tables, seat: str) -> list[Any]:
    """A game whose raises are accepted explicitly (Le Truc) also tries accept, a card of the French pack left
    out of its own and a level off its ladder; none of Vitou's, whose seeded runs stay as they were."""
    if "accept" not in t.game_acts:
        return []
    outside = next(str(c) for c in ALL_CARDS if t.strength[c.id] < 0)
    off = next(n for n in range(1, 100) if n not in t.bid_level)
    return [
        {"seat": seat, "act": "accept"},
        {"seat": seat, "act": "play", "card": outside},
        {"seat": seat, "act": "raise", "to": off},
    ]


def _paulista_tries(t: Tables, seat: str) -> list[Any]:
    """A game with face-down cards or conceding (Truco Paulista) also tries them where they do not belong, and
    their malformed spellings; no other game's seeded runs change."""
    out: list[Any] = []
    if t.face_down_from:
        for c in t.deck[:: max(1, len(t.deck) // 4)]:  # a few cards, face down (in the first trick: too early)
            out.append({"seat": seat, "act": "play", "card": str(t.card(c)), "face_down": True})
        out.append({"seat": seat, "act": "play", "card": str(t.card(t.deck[0])), "face_down": False})
    if t.concede:
        out.append({"seat": seat, "act": "concede"})
    return out


def make_case(
    t: Tables, seed: int, start: int, length: int, illegal: int, tries: list[Any]
) -> tuple[Case, dict[str, Any]]:
    """The match a drawn example stands for, and the reference's answer to it, built in one pass.

    Play follows a policy seeded by ``seed``: a legal action, or with
    probability ``illegal`` percent one of ``tries`` (wrong seat, card not
    held, bids where they are forbidden, malformed actions).
    """
    rng = random.Random(seed)
    starts = starts_for(t)
    a, b = starts[start % len(starts)]
    score = {t.side_ids[0]: a, t.side_ids[1]: b}
    use_draw = rng.random() < 0.25
    m = (
        Match(t, rng=rng, score=score)
        if use_draw
        else Match(t, dealer=t.seat_ids[rng.randrange(t.n)], rng=rng, score=score)
    )
    setup: dict[str, Any] = {"score": score}
    if use_draw:
        setup["draw"] = [{s: str(t.card(c)) for s, c in r.items()} for r in m.draw_rounds]
    else:
        setup["dealer"] = m.dealer
    deals: list[dict[str, Any]] = []

    def note_deal() -> None:
        if m.deals_used() > len(deals) and m.dealt:
            deal: dict[str, Any] = {s: [str(t.card(c)) for c in m.dealt[i]] for i, s in enumerate(t.seat_ids)}
            if m.turn_up is not None:  # where the rules turn a card up, the deal names it (TURN_UP)
                deal["turn_up"] = str(m.turn_up)
            deals.append(deal)

    note_deal()
    j = t.as_json
    legal_actions = m.legal_actions()
    legal = [j(x) for x in legal_actions]
    last_legal = legal
    ref: dict[str, Any] = {"legal": legal, "steps": []}
    actions: list[Any] = []
    rand = rng.random
    past: Any = None  # an action sent past the last hand dealt, once the setup's deals are cut there
    for _ in range(length):
        if not legal:
            if m.winner is not None and rand() < AFTER_THE_END:
                _after_the_end(m, last_legal, actions, ref)  # the match is over: every action is refused
            break
        c = int(rand() * 65536)
        try:
            if c % 100 >= 100 - illegal:
                action: Any = tries[(c // 100) % len(tries)]
                actions.append(action)
                events = m.apply(action_from_json(action))
            else:
                pick = legal_actions[(c // 100) % len(legal_actions)]
                actions.append(legal[(c // 100) % len(legal)])
                events = m.apply(pick)
        except Malformed as exc:
            ref["steps"].append({"ok": False, "error": _structural_code(t, action, exc.code)})
            continue
        except IllegalAction as exc:
            ref["steps"].append({"ok": False, "error": exc.code})
            continue
        last_legal = legal
        legal_actions = m.legal_actions()
        legal = [j(x) for x in legal_actions]
        if events and m.deals_used() > len(deals) and legal and rand() < PAST_THE_DEALS:
            past = legal[0]  # a hand ended and the next is dealt: the case stops its deals here, and goes on
            break
        if events:  # a new deal is only ever taken when a hand ends
            note_deal()
        ref["steps"].append({"ok": True, "events": [e.to_json() for e in events], "legal": legal})
    ref["final"] = {"score": m.score, "dealer": m.dealer, "winner": m.winner}
    setup["deals"] = deals
    if past is not None:  # no deal left for the next hand: the reference answers the case as it now stands
        case = Case(setup, [*actions, past])
        return case, reference_answer(t, case)
    return Case(setup, actions), ref


def _after_the_end(m: Match, last_legal: list[Any], actions: list[Any], ref: dict[str, Any]) -> None:
    """One action sent after the match is won, the last one legal before it: the reference refuses it."""
    if not last_legal:
        return
    action = last_legal[0]
    actions.append(action)
    try:
        m.apply(action_from_json(action))
    except (Malformed, IllegalAction) as exc:
        ref["steps"].append({"ok": False, "error": exc.code})
        return
    raise AssertionError("an action was accepted after the end of the match")


def _same_set(a: Any, b: Any) -> bool:
    # Legal sets compare as sets; the same order, the usual case, is the fast one. Types count: true is not 1.
    return same(a, b) or (isinstance(b, list) and sorted(map(canonical, a)) == sorted(map(canonical, b)))


def compare(
    case: Case, ref: dict[str, Any], got: Any, minor: int = PROTOCOL_MINOR, level: str = CODE
) -> Divergence | None:
    """The first place the implementation's answer differs from the reference's, as protocol 1.``minor`` words it.

    At the ``outcome`` level a refused step agrees with any refusal, whatever its error says (docs/reference/protocol.md).
    """

    def div(where: str, e: Any, a: Any) -> Divergence:
        return Divergence(case, where, e, a, ref)

    if not isinstance(got, dict):
        return div("answer", "a JSON object", got)
    if ref.get("errored"):
        if got.get("errored") is not True:
            return div("errored", {"errored": True}, {k: got.get(k) for k in ("legal", "final")})
        breach = message_breach(got)  # the errored answer's own bounds (kit/answerbounds.py)
        return None if breach is None else div(ENVELOPE, breach.bound, breach.seen)
    if got.get("errored") is True:
        return div("errored", {"errored": False}, got)
    sides = sides_of(ref["final"])
    if not isinstance(got.get("steps"), list) or len(got["steps"]) != len(ref["steps"]):
        return div("steps", f"{len(ref['steps'])} steps", got.get("steps"))
    if not _same_set(ref["legal"], got.get("legal")):
        return div("legal", ref["legal"], got.get("legal"))
    for i, (r, g) in enumerate(zip(ref["steps"], got["steps"]), 1):
        if not isinstance(g, dict) or r.get("ok") is not g.get("ok"):
            return div(f"step {i}", r, g)
        if not r["ok"]:
            if level == CODE and not same(r["error"], g.get("error")):
                return div(f"step {i}", r, g)
            continue
        want = as_spoken(r["events"], minor)
        if not same_events(want, g.get("events"), sides):
            return div(f"step {i}", {"events": want}, {"events": named_events(g.get("events"), sides)})
        if not _same_set(r["legal"], g.get("legal")):
            return div(f"step {i}", {"legal": r["legal"]}, {"legal": g.get("legal")})
    if not same_final(ref["final"], got.get("final"), sides):
        return div("final", ref["final"], named_final(got.get("final"), sides))
    return None


def batches(most: int) -> Any:
    """Batches of drawn matches (seed, start, length), the size drawn first so that it shrinks to one match.

    The seed fixes the deals, the first dealer and every choice of action;
    the start picks a score from STARTS, moved to the target (0-0, or one near the endings, where
    the rules are densest); the length is how many actions to play at most.
    """
    from hypothesis import strategies as st

    seeds, starts, lengths = st.integers(0, 2**32 - 1), st.integers(0, len(STARTS) - 1), st.integers(0, MAX_ACTIONS)

    @st.composite
    def draw(draw: Any) -> list[tuple[int, int, int]]:
        # Three draws per match rather than a tuple strategy: the same choices, drawn faster.
        return [(draw(seeds), draw(starts), draw(lengths)) for _ in range(draw(st.integers(1, most)))]

    return draw()


def run_pinned(prop: Callable[[], None]) -> None:
    """Run a hypothesis test with its draws a function of its seed alone.

    Recent Hypothesis mixes into its draws constants it reads from the "local" modules imported so far: which
    of vitou's modules those are depends on the disk cache (a cached ruleset imports no YAML or schema code),
    on the directory vitou is run from and on what ran before in the process, so the same --seed drew other
    matches. The pool is emptied for the run, and the cache of values drawn from it cleared on both sides.
    """
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # a Hypothesis without the module: it has no such pool either
        prop()
        return
    local = getattr(providers, "_get_local_constants", None)
    empty = getattr(providers, "Constants", None)
    cache = getattr(getattr(providers, "CONSTANTS_CACHE", None), "cache", None)
    if local is None or empty is None:
        prop()
        return
    nothing = empty()
    providers._get_local_constants = lambda: nothing
    try:
        if cache is not None:
            cache.clear()
        prop()
    finally:
        providers._get_local_constants = local
        if cache is not None:
            cache.clear()
