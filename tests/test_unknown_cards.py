"""Cards a record does not know ("?"): every action whose ruling does not depend on them is ruled, the rest say so."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from vitou_ref import load_ruleset
from vitou_ref.audit.audit import audit
from vitou_ref.audit.record import dump_record, read_record
from vitou_ref.audit.report import audit_json, audit_text

ALL_UNKNOWN = {s: ["?", "?", "?"] for s in "NESW"}


def _record(deal: dict[str, list[str]], actions: str, dealer: str = "W", ruleset: str = "vitou/1.0.0") -> Any:
    data = {"format": 1, "header": {"ruleset": ruleset, "dealer": dealer}, "deals": [deal], "actions": actions}
    return read_record(json.dumps(data), "<test>")


def test_section_05_as_the_text_tells_it_gives_east_west_3() -> None:
    # §05: "North bids 3 and plays; East raises to 6 and plays. South, the immediate follower, refuses without
    # consulting North. East-West score 3, the previously accepted value." The text names no card, so no card is
    # recorded. West deals (North, left of the dealer, leads: §02). Every action is ruled: opening and raising
    # before one's card are allowed whatever the cards (§03), the follower's refusal too, and a refusal of 6 gives
    # the raisers 3 (§03: "3 for refusing 6") without comparing any card.
    record, rules = _record(ALL_UNKNOWN, "N r3 N ? E r6 E ? S refuse")
    a = audit(record, rules)
    assert [r.legal for r in a.rulings] == [True] * 5 and all(r.open is None for r in a.rulings)
    (hand,) = a.rulings[-1].events
    assert (hand.winner, hand.points, hand.reason) == ("EW", 3, "refusal")
    assert a.final["score"] == {"NS": 0, "EW": 3} and "open" not in a.final
    text = audit_text(a, "fr")
    assert "Nord joue une carte non relevée" in text


def test_a_trick_that_depends_on_a_card_not_recorded_is_not_ruled_and_nothing_after_it() -> None:
    # North's two last cards and all of East's are not recorded. Trick 1 (§02, order 10 9 A K Q J 8 7): AS, 7H,
    # 10H, 7C: South's ten wins, whatever was not recorded. Trick 2: South QS, West AD, North ?, East ?: North's or
    # East's card could be a ten or a nine (other tens and nines are not known to be elsewhere), so who wins trick 2
    # cannot be ruled without the cards North and East played; nor can anything after it.
    deal = {"N": ["AS", "?", "?"], "E": ["?", "?", "?"], "S": ["10H", "QS", "8D"], "W": ["7C", "AD", "9S"]}
    record, rules = _record(deal, "N AS E 7H S 10H W 7C S QS W AD N ? E ? S 8D")
    a = audit(record, rules, go_on=True)
    assert [r.legal for r in a.rulings[:7]] == [True] * 7
    assert a.rulings[3].events[0].winner == "S"
    for r in a.rulings[7:]:
        assert r.open is not None and r.open.key == "unknown_cards" and not r.legal and not r.not_made
        assert r.open.params["trick"] == 2 and r.open.params["seats"].value == ("N", "E")
    said = audit_text(a, "en")
    assert "cannot be ruled without the cards North, East played in trick 2" in said
    assert "7 legal, 0 illegal, 2 not ruled of 9 actions" in said
    assert "the final score is not known" in said
    j = audit_json(a, "en")
    assert j["summary"] == {"actions": 9, "ruled": 7, "legal": 7, "illegal": 0, "not_ruled": 2}
    assert j["rulings"][7]["ruled"] is False and j["rulings"][7]["open"]["key"] == "unknown_cards"


def test_a_trick_decided_whatever_the_unknown_cards_is_ruled() -> None:
    # West holds the three other tens (10S 10D 10C). North leads 10H; East's and South's cards are not recorded,
    # but neither can be a ten: every ten is accounted for. West's 10S matches North's 10H, the highest rank
    # (§01), so the trick is tied (§02, trick.tie, even though it were partners) whatever East and South played.
    deal = {"N": ["10H", "7H", "8C"], "E": ["?", "?", "?"], "S": ["?", "?", "?"], "W": ["10S", "10D", "10C"]}
    record, rules = _record(deal, "N 10H E ? S ? W 10S")
    a = audit(record, rules)
    assert all(r.legal and r.open is None for r in a.rulings)
    assert a.rulings[-1].events[0].winner is None  # tied


def test_a_named_card_is_taken_as_one_the_seat_was_not_known_to_hold() -> None:
    # East's cards are not recorded: "E 9C" says East held 9C, legal (§02: any card). North was dealt 7H, so
    # "E 7H" in the next trick cannot be East's: CARD_NOT_HELD, whatever East's unknown cards are.
    deal = {"N": ["AS", "7H", "8C"], "E": ["?", "?", "?"], "S": ["10H", "QS", "8D"], "W": ["7C", "AD", "9S"]}
    record, rules = _record(deal, "N AS E 9C S 10H W 7C S QS W AD N 8C E 7H")
    a = audit(record, rules, go_on=True)
    assert a.rulings[1].legal and a.rulings[3].events[0].winner == "S"  # 10H over 9C, AS, 7C
    # Trick 2: QS, AD, 8C and East to play: East's card is ruled on its own (7H is North's).
    assert not a.rulings[7].legal and a.rulings[7].code == "CARD_NOT_HELD"


def test_a_card_not_recorded_out_of_turn_is_illegal_whatever_it_is() -> None:
    # North leads (§02: left of the dealer, West). East's "?" before North has played is out of turn whatever
    # the card: NOT_YOUR_TURN needs no card.
    record, rules = _record(ALL_UNKNOWN, "E ?")
    (r,) = audit(record, rules).rulings
    assert not r.legal and r.code == "NOT_YOUR_TURN" and r.open is None


def test_a_card_not_recorded_from_a_seat_whose_cards_are_all_recorded_asks_for_the_card() -> None:
    deal = {"N": ["AS", "7H", "8C"], "E": ["?", "?", "?"], "S": ["10H", "QS", "8D"], "W": ["7C", "AD", "9S"]}
    record, rules = _record(deal, "N ?")
    (r,) = audit(record, rules).rulings
    assert r.open is not None and r.open.key == "unknown_named"
    assert "every card of North is recorded" in audit_text(audit(record, rules), "en")


def test_the_legal_actions_offer_a_card_not_recorded_and_never_a_stand_in() -> None:
    # Before the first action, North (to lead) may play any of its cards (§02): two known, one not recorded.
    deal = {"N": ["AS", "7H", "?"], "E": ["?", "?", "?"], "S": ["10H", "QS", "8D"], "W": ["7C", "AD", "9S"]}
    record, rules = _record(deal, "N ?")
    first, after = audit(record, rules, go_on=True).positions
    plays = sorted(a["card"] for a, _ in first.legal if a["act"] == "play")
    assert plays == ["7H", "?", "AS"]
    assert [c for _, c in after.played] == ["?"]
    east = sorted(a["card"] for a, _ in after.legal if a["act"] == "play")
    assert east == ["?"]


def test_no_stand_in_card_is_ever_said() -> None:
    record, rules = _record(ALL_UNKNOWN, "N r3 N ? E r6 E ? S refuse")
    said = audit_text(audit(record, rules), "en") + json.dumps(audit_json(audit(record, rules), "en"))
    assert not re.search(r"\b(10|[2-9AKQJ])[SHDC]\b", said)


def test_a_record_with_cards_not_recorded_is_written_and_read_back() -> None:
    record, _ = _record(ALL_UNKNOWN, "N r3 N ? E r6 E ? S refuse")
    for fmt in ("yaml", "json"):
        again, _ = read_record(dump_record(record.to_json(), fmt), "<again>")
        assert again.deals == record.deals and [a.action for a in again.actions] == [a.action for a in record.actions]
    assert "N ?" in record.notation()


def test_a_deal_with_too_many_cards_is_still_a_setup_problem() -> None:
    from vitou_ref.rules.errors import InputError

    deal = {**ALL_UNKNOWN, "N": ["?", "?", "?", "?"]}
    with pytest.raises(InputError) as exc:
        _record(deal, "N ?")
    assert "RECORD_SETUP" in str(exc.value)


def test_le_truc_folds_are_ruled_without_cards() -> None:
    # le-truc.md §3: a raise before any card is answered by the opponent; a fold (refuse) gives the raiser the
    # stake before the raise: 1 when folding at 2. Who deals and leads is the record's; no card is needed.
    from vitou_ref.engine.tables import tables_for

    seats = tables_for(load_ruleset("le-truc")).seat_ids
    record, rules = _record({s: ["?", "?", "?"] for s in seats}, "A r2 B refuse", dealer="B", ruleset="le-truc/1.0.0")
    a = audit(record, rules)
    assert all(r.legal and r.open is None for r in a.rulings)
    (hand,) = a.rulings[-1].events
    assert (hand.winner, hand.points, hand.reason) == ("A", 1, "refusal")


def test_the_json_of_an_audit_with_actions_not_ruled_meets_its_schema() -> None:
    from vitou_ref.rules.schema import first_error

    deal = {"N": ["AS", "?", "?"], "E": ["?", "?", "?"], "S": ["10H", "QS", "8D"], "W": ["7C", "AD", "9S"]}
    record, rules = _record(deal, "N AS E 7H S 10H W 7C S QS W AD N ? E ? S 8D")
    for go_on in (False, True):
        j = json.loads(json.dumps(audit_json(audit(record, rules, go_on=go_on), "en")))
        assert first_error(j, "audit") is None
    broken = json.loads(json.dumps(audit_json(audit(record, rules, go_on=True), "en")))
    del broken["rulings"][7]["open"]
    assert first_error(broken, "audit") is not None  # an action not ruled must say why


def test_the_audit_page_says_an_action_not_ruled_and_why() -> None:
    from vitou_ref.audit.auditpage import page

    deal = {"N": ["AS", "?", "?"], "E": ["?", "?", "?"], "S": ["10H", "QS", "8D"], "W": ["7C", "AD", "9S"]}
    record, rules = _record(deal, "N AS E 7H S 10H W 7C S QS W AD N ? E ?")
    html = page(audit(record, rules, go_on=True), "pt")
    assert 'class="open" id="ruling-8"' in html and "NÃO DECIDIDA" in html
    assert "não se pode decidir sem as cartas que Norte, Este jogaram na vaza 2" in html


def test_the_ways_weighed_over_a_record_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    # Trick 1 is decided whatever South's and West's cards (every other ten is North's, and 10H and 10C tie);
    # with the whole record's allowance below what that trick weighs, it is said not to be ruled, and why.
    from vitou_ref.audit import replay

    deal = {"N": ["10H", "10S", "10D"], "E": ["10C", "?", "?"], "S": ["?", "?", "?"], "W": ["?", "?", "?"]}
    record, rules = _record(deal, "N 10H E 10C S ? W ?")
    assert all(r.legal for r in audit(record, rules).rulings)
    monkeypatch.setattr(replay, "MOST_WAYS_IN_ALL", 10)
    last = audit(record, rules).rulings[-1]
    assert last.open is not None and last.open.key == "unknown_budget"


def test_a_deal_pasted_at_the_desk_may_leave_cards_not_recorded() -> None:
    # "?" opens a mapping key in YAML; pasted seat by seat, it is a card not recorded all the same.
    from vitou_ref.desk.paste import parse_deal

    said = parse_deal("N: AS 7H 8C; E: ? ? ?; S: 10H, ?, 8D; W: ? AD ?", ())
    assert said == {"N": ["AS", "7H", "8C"], "E": ["?"] * 3, "S": ["10H", "?", "8D"], "W": ["?", "AD", "?"]}
    assert parse_deal('{N: [AS, "?", "?"]}', ()) == {"N": ["AS", "?", "?"]}


def test_a_card_not_recorded_in_a_record_that_knows_every_card_asks_for_it() -> None:
    # Every card of the deal is recorded: "N ?" names no card, and the record must say which (not the engine's
    # English words about an unreadable card).
    deal = {"N": ["AS", "7H", "8C"], "E": ["9C", "KD", "JH"], "S": ["10H", "QS", "8D"], "W": ["7C", "AD", "9S"]}
    record, rules = _record(deal, "N ? E ?")
    first, second = audit(record, rules, go_on=True).rulings
    assert first.open is not None and first.open.key == "unknown_named" and first.code is None
    assert second.open is not None  # the position after a card not named is not known
