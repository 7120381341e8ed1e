"""Properties of random play, checked against invariants the rules imply."""

from __future__ import annotations

import random
from collections.abc import Iterator

from hypothesis import given, note
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from vitou_ref import (
    ALL_CARDS,
    Action,
    CallPlay,
    DeclineHand,
    HandEvent,
    IllegalAction,
    Match,
    MatchEvent,
    Pass,
    Play,
    PlayHand,
    Raise,
    Refuse,
    Signal,
    load_ruleset,
    shipped_names,
)
from vitou_ref.engine.transitions import TRANSITIONS

RULESETS = shipped_names()


def universe(rules_name: str) -> list[Action]:
    """Every action a player could try under a ruleset, legal or not."""
    rules = load_ruleset(rules_name)
    p = rules.params
    seats = [s.id for s in p.seats]
    sides = [s.id for s in p.sides]
    out: list[Action] = []
    for seat in seats:
        out += [Play(seat, c) for c in ALL_CARDS]
        out += [Raise(seat, lv.bid) for lv in p.ladder[1:] if lv.bid is not None]
        out += [Refuse(seat), Pass(seat), CallPlay(seat)]
        out += [Signal(seat, g.id) for g in p.gestures]
    out += [PlayHand(s) for s in sides] + [DeclineHand(s) for s in sides]
    return out


def legal_values(rules_name: str) -> set[object]:
    p = load_ruleset(rules_name).params
    values: set[object] = {lv.value for lv in p.ladder if lv.value != "match"}
    values |= {lv.refused for lv in p.ladder if lv.refused is not None}
    values |= {p.twenty_win, p.twenty_lose, p.twenty_decline, p.tt_win, 0}
    values |= {lv.bid for lv in p.ladder if lv.value == "match"}
    return values


def cards_in_play(m: Match) -> list[int]:
    return sorted([c for h in m.hands for c in h] + list(m.tcards))


def played_out(m: Match) -> Iterator[tuple[Action, tuple[object, ...]]]:
    rng = random.Random(0)
    while True:
        legal = m.legal_actions()
        if not legal:
            return
        a = legal[rng.randrange(len(legal))]
        yield a, m.apply(a)


@given(st.sampled_from(RULESETS), st.integers(0, 2**32 - 1), st.data())
def test_random_matches_keep_every_invariant(name: str, seed: int, data: st.DataObject) -> None:
    rules = load_ruleset(name)
    m = Match.random(rules, seed)
    everything = universe(name)
    values = legal_values(name)
    target = rules.params.target
    last_score = m.score
    hand_cards: set[int] = set()
    steps = 0
    while not m.is_over:
        legal = m.legal_actions()
        # The legal set is empty only when the match is over (random deals never run out).
        assert legal, m.describe()
        # Cards are conserved: nothing appears, nothing is played twice.
        in_play = cards_in_play(m)
        assert len(in_play) == len(set(in_play))
        if m.trick_number <= 1 and not m.tcards:
            hand_cards = {c for h in m.dealt for c in h}
            assert len(hand_cards) == len(rules.params.seats) * rules.params.cards_each
        assert set(in_play) <= hand_cards
        # Every legal action is accepted; a sample of the others is refused and changes nothing.
        for a in legal:
            assert m.can(a), (a, m.describe())
        for a in data.draw(st.lists(st.sampled_from(everything), max_size=4), label="tries"):
            if a in legal:
                continue
            before = m.state_key()
            try:
                events = m.apply(a)
            except IllegalAction as exc:
                assert exc.code and exc.clause
                assert m.state_key() == before
            else:
                # Only signals may be accepted outside the legal set, and they change nothing.
                assert isinstance(a, Signal) and events == ()
                assert m.state_key() == before
        action = legal[data.draw(st.integers(0, len(legal) - 1), label="choice")]
        phase = m.phase
        events = m.apply(action)
        steps += 1
        assert m.phase in TRANSITIONS[phase][action.act][1], (action, phase, m.phase)
        for e in events:
            if isinstance(e, HandEvent):
                note(repr(e))
                score = dict(e.score)
                gained = {s: score[s] - last_score[s] for s in score}
                # A decided hand scores for exactly one side (or for nobody), with a value the rules name.
                assert sum(1 for g in gained.values() if g) <= 1
                assert all(g >= 0 for g in gained.values())
                if e.winner is None:
                    assert e.points == 0 and not any(gained.values())
                else:
                    assert e.points in values
                    # A score that stops at the target gains only what takes it there (Truco Paulista's 11 and 3).
                    capped = m.tables.scores_stop and score[e.winner] == target
                    assert e.points == "baraque" or gained[e.winner] == (
                        min(e.points, target - last_score[e.winner]) if capped else e.points
                    )
                last_score = score
        if any(isinstance(e, MatchEvent) for e in events):
            hand = next(e for e in events if isinstance(e, HandEvent))
            assert hand.winner == m.winner
            assert (
                m.score[m.winner] >= target
                or isinstance(hand.points, str)
                or (hand.reason == "tricks" and any(s == rules.params.twenty_at for s in last_score.values()))
            )
        else:
            assert all(s < target for s in m.score.values())
        assert steps < 10_000
    assert m.legal_actions() == []


@given(st.sampled_from(RULESETS), st.integers(0, 2**32 - 1))
def test_the_same_seed_gives_the_same_match(name: str, seed: int) -> None:
    rules = load_ruleset(name)
    a = [(x, y) for x, y in played_out(Match.random(rules, seed))]
    b = [(x, y) for x, y in played_out(Match.random(rules, seed))]
    assert a == b


class MatchMachine(RuleBasedStateMachine):
    """A match driven by hypothesis, legal and illegal actions interleaved, checked after each step."""

    @initialize(name=st.sampled_from(RULESETS), seed=st.integers(0, 2**32 - 1))
    def start(self, name: str, seed: int) -> None:
        self.rules = load_ruleset(name)
        self.match = Match.random(self.rules, seed)
        self.everything = universe(name)
        self.score = self.match.score

    @precondition(lambda self: not self.match.is_over)
    @rule(pick=st.integers(0, 10_000))
    def legal_step(self, pick: int) -> None:
        legal = self.match.legal_actions()
        action = legal[pick % len(legal)]
        self.match.verify(action)
        self.match.apply(action)

    @rule(pick=st.integers(0, 10_000))
    def any_action(self, pick: int) -> None:
        action = self.everything[pick % len(self.everything)]
        legal = self.match.legal_actions()
        before = self.match.state_key()
        clone = self.match.clone()
        try:
            self.match.apply(action)
        except IllegalAction as exc:
            assert action not in legal
            assert self.match.state_key() == before
            # The refusal cites a clause of this ruleset, and the code's clause.
            assert self.rules.error(exc.code).clause == exc.clause
            self.rules.clause(exc.clause)
        else:
            assert action in legal or isinstance(action, Signal)
            clone.apply(action)
            assert clone.state_key() == self.match.state_key()

    @invariant()
    def scores_never_decrease(self) -> None:
        if hasattr(self, "match"):
            now = self.match.score
            assert all(now[s] >= self.score[s] for s in now)
            self.score = now

    @invariant()
    def cards_are_conserved(self) -> None:
        if hasattr(self, "match"):
            cards = cards_in_play(self.match)
            assert len(cards) == len(set(cards))

    @invariant()
    def over_means_no_legal_action(self) -> None:
        if hasattr(self, "match"):
            assert (self.match.legal_actions() == []) == self.match.is_over


TestMatchMachine = MatchMachine.TestCase
