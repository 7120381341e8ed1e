"""The signals read by the players' convention: what each public act says of the cards a seat has not seen."""

from __future__ import annotations

import random

from vitou_ref import load_ruleset
from vitou_ref.engine.actions import Play, Signal
from vitou_ref.engine.observation import RecordedMatch, observe
from vitou_ref.engine.tables import tables_for
from vitou_ref.players.reading import Reading, deal_unseen, readings
from vitou_ref.players.search import sample_worlds

# vitou/1.1.0 ranks 10 9 A K Q J 8 7, highest first: strengths 8 down to 1 (clause cards.ranks).
# Gestures (clause signals.gestures): ten means 10, nine 9, ace A, none "no 10, 9 or A", a rank of none.
TEN, NINE, ACE = 8, 7, 6
LOW = frozenset({1, 2, 3, 4, 5})  # the strengths no gesture means: K down to 7
DEAL = {"N": ["10S", "9H", "7C"], "E": ["AS", "KD", "8H"], "S": ["QS", "JH", "7D"], "W": ["10C", "9D", "AH"]}


def _table() -> RecordedMatch:
    # W deals, so N leads the first trick (clause deal.order: the eldest hand, on the dealer's left).
    return RecordedMatch(tables_for(load_ruleset("vitou/1.1.0")), dealer="W", deals=[DEAL])


def _ten_signalled_then_9h_8h() -> RecordedMatch:
    """N signals ten and leads 9H; E follows with 8H, silent."""
    m = _table()
    m.apply(Signal("N", "ten"))
    _play(m, "N", "9H")
    _play(m, "E", "8H")
    return m


def _play(m: RecordedMatch, seat: str, card: str) -> None:
    m.apply(next(a for a in m.legal_actions() if type(a) is Play and a.seat == seat and a.card.text == card))


def test_a_signal_says_the_best_card_then_and_a_silence_that_no_gesture_meant_it() -> None:
    # N signals ten (its best card, 10S) and leads 9H; E plays 8H without a signal; then W is to
    # play, having seen these. N held 10S 9H 7C at the signal, so the best of N's unseen cards
    # and of the 9H it played afterwards is a ten: strength 8. E, silent when it played, held no
    # 10, 9 or A at that moment, its 8H included: the best of its cards and 8H is a K or lower.
    m = _ten_signalled_then_9h_8h()
    got = readings(observe(m, "S"))
    assert got == {"N": [Reading((NINE,), frozenset({TEN}))], "E": [Reading((2,), LOW)]}  # 8H: strength 2


def test_a_seat_that_signals_after_a_silence_is_read_once_and_the_own_seat_never() -> None:
    # N leads 7C silent: its best card then, of 10S 9H 7C, had a rank no gesture means (N held
    # 10S: this table keeps no convention, which the reading cannot know). The 7C is among the
    # cards N held at that act: strength 1. Later acts of N say nothing more, a signal included:
    # the convention signals once a hand, at the first chance. The reader's own seat is never read.
    m = _table()
    _play(m, "N", "7C")
    _play(m, "E", "8H")
    m.apply(Signal("N", "nine"))
    got = readings(observe(m, "N"))
    assert set(got) == {"E"}
    assert readings(observe(m, "S"))["N"] == [Reading((1,), LOW)]


def test_no_partner_or_no_gesture_of_a_rank_reads_nothing() -> None:
    # vitou-2p: two seats, no partner to address, so the convention makes no signal and no silence
    # says anything (its gestures are forbidden too).
    m = RecordedMatch(tables_for(load_ruleset("vitou-2p")), dealer="S", deals=[{"N": DEAL["N"], "S": DEAL["E"]}])
    _play(m, "N", "7C")
    assert readings(observe(m, "S")) == {}


def test_every_world_agrees_with_the_readings_and_without_them_not() -> None:
    # S, partner of N, has seen N signal ten and lead 9H, and E play 8H silent. Read: N's two
    # unseen cards hold a ten and nothing above it; E's two are K or lower. Unread, many worlds
    # give E a 10, 9 or A: of the 27 cards S has not seen (32 less its QS JH 7D, the 9H and the
    # 8H), 11 are of those ranks (four tens, three nines, four aces), so E holds one in
    # 1 - (16/27)(15/26) = 66% of deals, and 40 worlds all without one would be a 1-in-10^18 draw.
    m = _ten_signalled_then_9h_8h()
    obs = observe(m, "S")
    t = m.tables
    read = sample_worlds(obs, 40, random.Random(5), read=True)
    assert len(read) == 40
    for w in read:
        n_best = max(t.strength[c] for c in w.hands[t.seat_index["N"]])
        e_best = max(t.strength[c] for c in w.hands[t.seat_index["E"]])
        assert n_best == TEN and e_best in LOW
    unread = sample_worlds(obs, 40, random.Random(5))
    assert any(max(t.strength[c] for c in w.hands[t.seat_index["E"]]) not in LOW for w in unread)


def test_readings_no_deal_can_meet_are_dropped_for_the_plain_draw() -> None:
    # N leads AS, E follows with the fourth ace AD, then S
    # signals ace. N has seen all four aces, so no deal of the rest gives S an ace: deal_unseen
    # finds none, and the worlds are drawn without the readings, each still replaying the history.
    deal = {"N": ["AS", "AH", "AC"], "E": ["AD", "KD", "8H"], "S": ["QS", "JH", "7D"], "W": ["10C", "9D", "KH"]}
    m = RecordedMatch(tables_for(load_ruleset("vitou/1.1.0")), dealer="W", deals=[deal])
    _play(m, "N", "AS")
    _play(m, "E", "AD")
    m.apply(Signal("S", "ace"))
    obs = observe(m, "N")
    assert readings(obs)["S"] == [Reading((), frozenset({ACE}))]
    t = m.tables
    unseen = [c for c in t.deck if t.card(c).text not in {*deal["N"], "AD"}]
    assert deal_unseen(unseen, [("S", 3)], readings(obs), t.strength, random.Random(1)) is None
    worlds = sample_worlds(obs, 8, random.Random(1), read=True)
    assert len(worlds) == 8


def test_silence_is_read_only_from_seats_seen_to_signal_in_the_match() -> None:
    # The random player never signals: its silence says nothing. So the searching player reads a
    # silence only from a seat it has seen signal earlier in the match; a signal is read from anyone.
    # N signals ten and leads 9H, E follows silent: with no seat known, N's signal alone is read.
    m = _ten_signalled_then_9h_8h()
    obs = observe(m, "S")
    assert readings(obs, set()) == {"N": [Reading((NINE,), frozenset({TEN}))]}
    assert set(readings(obs, {"E"})) == {"N", "E"}
    # The solver player learns who signals from every observation it is shown, its own turns or not.
    from vitou_ref.players.solved import SolverPlayer

    player = SolverPlayer(1, budget=2)
    player.choose(obs)
    assert player._signallers == {"N"}
