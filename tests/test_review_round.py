"""Cards not recorded and the desk's new forms, attacked from outside: each test a finding, derived by hand."""

from __future__ import annotations

import html as htmllib
import json
import re
from typing import Any

from deskserver import served

from vitou_ref.audit.audit import audit
from vitou_ref.audit.record import read_record
from vitou_ref.audit.report import audit_json, audit_text
from vitou_ref.audit.unknown import fill, named_cards
from vitou_ref.engine.tables import tables_for

ALL_UNKNOWN = {s: ["?", "?", "?"] for s in "NESW"}


def _record(deal: dict[str, list[str]], actions: str, ruleset: str = "vitou/1.0.0") -> Any:
    data = {"format": 1, "header": {"ruleset": ruleset, "dealer": "W"}, "deals": [deal], "actions": actions}
    return read_record(json.dumps(data), "<test>")


def _stand_ins(record: Any, rules: Any) -> set[str]:
    """The cards the replay puts in place of the record's "?": what no output may name."""
    filled = fill(record.setup(), tables_for(rules), named_cards([a.action for a in record.actions]))
    return {c for deal in filled.standins for cards in deal.values() for c in cards}


def test_an_unknown_card_is_none_of_the_cards_its_own_seat_is_known_to_hold() -> None:
    # West deals, North leads (§02). The four tens are all recorded: North holds 10D and 10C, East 10H and 10S.
    # East's third card, and all of South's and West's, are not recorded; none of them can be a ten, since each
    # card of the pack is dealt once (§01). North leads 10D: nothing played after it can match a ten (rank order
    # 10 9 A K Q J 8 7, §01), so North wins trick 1 whatever East, South and West played (§02). The audit left
    # West's card not ruled, counting East's unknown card as possibly one of East's own tens.
    deal = {"N": ["10D", "10C", "7H"], "E": ["10H", "10S", "?"], "S": ["?", "?", "?"], "W": ["?", "?", "?"]}
    record, rules = _record(deal, "N 10D E ? S ? W ?")
    a = audit(record, rules)
    assert all(r.legal and r.open is None for r in a.rulings)
    assert a.rulings[-1].events[0].winner == "N"


def test_section_05_without_cards_is_ruled_where_a_hand_may_stop_inside_a_trick() -> None:
    # §05 under vitou-mid-trick, whose stop (mt.stop) looks only at what the seats still to play to the trick in
    # play hold, and only where some way of ending it decides the hand. In trick 1 no way does: the resolution
    # table (§02) decides nothing after a single trick. So North's and East's cards cannot stop the hand whatever
    # they are, the raises (§03) need no card, and South's refusal of 6 gives East-West 3 (§03, §05), exactly as
    # in vitou/1.1.0. The audit left everything from North's card on not ruled (every seat's unknown cards
    # weighed, 8^12 ways, past its bound).
    record, rules = _record(ALL_UNKNOWN, "N r3 N ? E r6 E ? S refuse", "vitou-mid-trick/1.0.0")
    a = audit(record, rules)
    assert [r.legal for r in a.rulings] == [True] * 5 and all(r.open is None for r in a.rulings)
    assert a.final["score"] == {"NS": 0, "EW": 3} and "open" not in a.final
    # A stop that does depend on cards not recorded is still not ruled. Trick 1 is tied (10H, 10S, and East's or
    # South's card at most another ten: a tie whatever they are). North leads 9H in trick 2, whose winner wins the
    # hand (§02); 10D and 10C are not recorded. Were South's two cards 10D and 10C, and East's no ten, every way
    # trick 2 can end (South plays a ten, whichever of its cards) gives it to North-South: the hand stops on North's card
    # (mt.stop). Were one of East's cards a ten, it would not. So North's card cannot be ruled without them.
    deal = {"N": ["10H", "9H", "8H"], "E": ["?", "?", "?"], "S": ["?", "?", "?"], "W": ["10S", "9S", "8S"]}
    record, rules = _record(deal, "N 10H E ? S ? W 10S N 9H", "vitou-mid-trick/1.0.0")
    last = audit(record, rules).rulings[-1]
    assert last.open is not None and last.open.key == "unknown_hands"


def test_a_card_not_held_names_none_of_the_cards_standing_in_for_those_not_recorded() -> None:
    # North was dealt AS and two cards not recorded; West was dealt 7C. "N 7C" is a card North cannot hold
    # (§02, play.any_card: "A card not held cannot be played"; 7C is West's): CARD_NOT_HELD. The reason said
    # "North holds AS 7D 7H, not 7C", naming the two cards the replay put in place of North's unknown ones, in
    # the text, the JSON and the desk's page. It must say what the record knows: AS and two cards not recorded.
    deal = {"N": ["AS", "?", "?"], "E": ["?", "?", "?"], "S": ["10H", "QS", "8D"], "W": ["7C", "AD", "9S"]}
    record, rules = _record(deal, "N 7C")
    a = audit(record, rules)
    (r,) = a.rulings
    assert r.code == "CARD_NOT_HELD" and r.reason is not None
    stand_ins = _stand_ins(record, rules)
    j = audit_json(a, "en")["rulings"][0]["reason"]
    assert j["params"]["held"] == ["AS", "?", "?"] and j["text"] == "North holds AS ? ?, not 7C"
    assert "North holds AS ? ?, not 7C" in audit_text(a, "en")
    with served() as s:
        assert s.post("deal", {"deal": "0", "paste": "N: AS ? ?; E: ? ? ?; S: 10H QS 8D; W: 7C AD 9S"})[0] == 200
        status, page = s.post("typed", {"text": "N 7C"})
    assert status == 200
    text = htmllib.unescape(re.sub(r"<[^>]+>", "", page))
    said = re.search(r"North holds (.*?), not 7♣", text)
    assert said is not None and said.group(1) == "A♠ ? ?"
    symbols = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
    assert not any(f"{c[:-1]}{symbols[c[-1]]}" in said.group(0) for c in stand_ins)


def test_choosing_another_game_with_a_deal_half_picked_keeps_the_desk_serving() -> None:
    # North's AS and one of East's cards picked by clicks, then the game set to Le Truc (seats A and B) or the
    # two-seat vitou-2p (N and S): the desk answered 500 to that request and to every page after it, East's
    # pick having no seat in the new game. A deal begun for one game's seats is no deal of another's: the
    # desk goes on serving, the new game's picker starts afresh, and the record is the new game's.
    with served() as s:
        assert s.post("pick", {"seat": "N", "card": "AS"})[0] == 200
        assert s.post("pick", {"seat": "E", "card": "?"})[0] == 200
        for ruleset, seat in (("le-truc/1.0.0", "A"), ("vitou-2p/1.0.0", "N")):
            status, _ = s.post("game", {"ruleset": ruleset, "lang": "en"})
            assert status == 200 and s.desk.branch.data["header"]["ruleset"] == ruleset
            assert s.get()[0] == 200
            assert s.post("pick", {"seat": seat, "card": "?"})[0] == 200
        # Back to Vitou, where North's pick still fits: kept.
        assert s.post("game", {"ruleset": "vitou/1.1.0", "lang": "en"})[0] == 200
        assert s.desk.branch.picks == (("N", "?"),)
        assert s.get()[0] == 200


def test_a_pasted_word_is_not_taken_for_a_card_not_recorded() -> None:
    # The paste reads "?" under a stand-in name ("_unknown_") and turns that name back into "?": a referee's
    # paste holding that word itself had it read as a card not recorded, where it is no card of the pack
    # (§01) and the loader must refuse the deal, as it refuses any other word.
    from vitou_ref.desk.paste import parse_deal

    assert parse_deal("N: _unknown_ AS 7H; E: ? ? ?", ()) == {"N": ["_unknown_", "AS", "7H"], "E": ["?"] * 3}
    with served() as s:
        status, page = s.post("deal", {"deal": "0", "paste": "N: _unknown_ AS 7H; E: ? ? ?; S: ? ? ?; W: ? ? ?"})
        assert status == 200 and s.desk.branch.data["deals"] == []
        assert "_unknown_" in page  # the loader's located problem names the word
