"""The pack as data: a ruleset of any ranks and suits of the French 52-card pack deals, plays, is served and audited."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from helpers import ROOT

from vitou_ref import Match, load_ruleset
from vitou_ref.cli import main
from vitou_ref.engine.randomplay import play_out
from vitou_ref.engine.tables import tables_for
from vitou_ref.hunt.fuzzcases import universe
from vitou_ref.kit.certify import pack_of
from vitou_ref.protocol.server import run_case
from vitou_ref.rules.errors import InputError
from vitou_ref.rules.schema import first_error, item_validator

FORTY = ROOT / "tests" / "data" / "vitou-forty-1.0.0.yaml"
# The profile's pack, from its text: ten ranks, the 3 highest, in four suits.
ORDER = ["3", "2", "A", "K", "Q", "J", "7", "6", "5", "4"]
SUITS = ["S", "H", "D", "C"]
VITOU_RANKS = ["10", "9", "A", "K", "Q", "J", "8", "7"]
# W deals; N, next to the dealer, leads the first trick (Vitou's first_lead).
DEAL = {"N": ["3S", "KC", "4H"], "E": ["2H", "QC", "5H"], "S": ["4C", "JC", "6H"], "W": ["5D", "7C", "7H"]}


def plays(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"seat": seat, "act": "play", "card": card} for seat, card in pairs]


def test_the_forty_card_profile_loads_with_its_pack() -> None:
    p = load_ruleset(str(FORTY)).params
    assert [r.value for r in p.rank_order] == ORDER
    assert [s.suit.value for s in p.suits] == SUITS
    t = tables_for(load_ruleset(str(FORTY)))
    assert sorted(t.card(c).text for c in t.deck) == sorted(r + s for r in ORDER for s in SUITS)


def test_spec_check_accepts_the_forty_card_profile() -> None:
    assert main(["spec", "check", str(FORTY)]) == 0


def test_a_three_beats_a_two_on_the_forty_card_pack() -> None:
    t = tables_for(load_ruleset(str(FORTY)))
    out = run_case(t, {"dealer": "W", "deals": [DEAL]}, plays(("N", "3S"), ("E", "2H"), ("S", "4C"), ("W", "5D")), 1)
    assert all(step["ok"] for step in out["steps"])
    assert out["steps"][-1]["events"][0] == {"event": "trick", "trick": 1, "winner": "N"}


def test_two_threes_of_opponents_tie_the_trick() -> None:
    t = tables_for(load_ruleset(str(FORTY)))
    deal = dict(DEAL, E=["3D", "QC", "5H"])
    out = run_case(t, {"dealer": "W", "deals": [deal]}, plays(("N", "3S"), ("E", "3D"), ("S", "4C"), ("W", "5D")), 1)
    assert all(step["ok"] for step in out["steps"])
    assert out["steps"][-1]["events"][0] == {"event": "trick", "trick": 1, "winner": None}


@pytest.mark.parametrize("card", ["10S", "8C", "9H"])
def test_the_server_refuses_a_setup_card_outside_the_pack_where_it_is(card: str) -> None:
    t = tables_for(load_ruleset(str(FORTY)))
    out = run_case(t, {"dealer": "W", "deals": [dict(DEAL, S=["4C", card, "6H"])]}, [], 7)
    assert out["errored"] is True and out["seq"] == 7
    assert "deals/0/S/1" in out["message"] and card in out["message"]


@pytest.mark.parametrize("card", ["3S", "2H", "6D"])
def test_vitou_still_refuses_cards_of_other_packs(card: str) -> None:
    t = tables_for(load_ruleset("vitou/1.1.0"))
    deal = {"N": ["AS", "7H", "8C"], "E": ["9C", "KD", "JH"], "S": ["10H", "QS", "8D"], "W": ["7C", "AD", "9S"]}
    out = run_case(t, {"dealer": "W", "deals": [dict(deal, S=["10H", card, "8D"])]}, [], 1)
    assert out["errored"] is True and "deals/0/S/1" in out["message"]
    # A play of such a card is not a card of the pack (clarification 25): CARD_MALFORMED.
    out = run_case(t, {"dealer": "W", "deals": [deal]}, plays(("N", card)), 1)
    assert out["steps"] == [{"ok": False, "error": "CARD_MALFORMED"}]


def test_a_forty_card_card_outside_the_pack_is_malformed_in_play() -> None:
    t = tables_for(load_ruleset(str(FORTY)))
    out = run_case(t, {"dealer": "W", "deals": [DEAL]}, plays(("N", "10S")), 1)
    assert out["steps"] == [{"ok": False, "error": "CARD_MALFORMED"}]


def _record(tmp_path: Path, ruleset: str, actions: str) -> Path:
    rec = tmp_path / "record.yaml"
    rec.write_text(
        "format: 1\n"
        f"header: {{event: forty, ruleset: {ruleset}, dealer: W}}\n"
        f"deals:\n  - {json.dumps(DEAL)}\n"
        f"actions: {actions}\n",
        encoding="utf-8",
    )
    return rec


def test_the_audit_reads_a_record_of_the_forty_card_pack(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = _record(tmp_path, "vitou/1.1.0", "N 3S E 2H S 4C W 5D")
    main(["audit", str(rec), "--ruleset", str(FORTY), "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert [r["legal"] for r in out["rulings"]] == [True] * 4
    tricks = [e for e in out["rulings"][-1]["events"] if e["event"] == "trick"]
    assert tricks == [{"event": "trick", "trick": 1, "winner": "N"}]


def test_the_audit_reads_cards_by_the_ruleset_in_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Under Vitou, 3S is no card of the pack: the notation does not read it as a play.
    rec = _record(tmp_path, "vitou/1.1.0", "N 3S")
    assert main(["audit", str(rec), "--format", "json"]) == 2
    assert "NOTATION_ACTION" in capsys.readouterr().err


def test_random_play_deals_only_the_pack() -> None:
    t = tables_for(load_ruleset(str(FORTY)))
    pack = {r + s for r in ORDER for s in SUITS}
    for seed in range(20):
        m = Match.random(t, seed)
        seen = {c.text for seat in t.seat_ids for c in m.hand(seat)}
        for action, _events in play_out(m, random.Random(seed)):
            card = getattr(action, "card", None)
            if card is not None:
                seen.add(card.text)
        assert seen and seen <= pack
        assert m.is_over


def test_simulate_runs_on_the_forty_card_profile(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--ruleset", str(FORTY), "--matches", "20", "--format", "json"]) == 0
    assert capsys.readouterr().out.strip()


@pytest.mark.parametrize(("where", "value"), [("ranks", "1"), ("ranks", "11"), ("ranks", "Z"), ("suit", "E")])
def test_the_rules_schema_refuses_what_is_not_in_the_french_pack(tmp_path: Path, where: str, value: str) -> None:
    text = FORTY.read_text(encoding="utf-8")
    if where == "ranks":
        text = text.replace('"6", "5", "4"]', f'"6", "5", "{value}"]').replace('"5", "4"]', f'"5", "{value}"]')
    else:
        text = text.replace("{id: C, name: clubs", f"{{id: {value}, name: clubs")
    bad = tmp_path / "bad-1.0.0.yaml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_ruleset(str(bad))
    assert any(p.code == "SCHEMA" and repr(value) in p.message for p in exc.value.problems)


@pytest.mark.parametrize("card", ["3S", "2H", "4D", "6C", "10S", "AH"])
def test_the_protocol_schemas_take_any_card_of_the_french_pack(card: str) -> None:
    assert item_validator("action").is_valid({"seat": "N", "act": "play", "card": card})


@pytest.mark.parametrize("card", ["1S", "11S", "ZS", "3X", "3s", "03S"])
def test_the_protocol_schemas_refuse_what_is_no_card(card: str) -> None:
    assert not item_validator("action").is_valid({"seat": "N", "act": "play", "card": card})


def test_a_validated_answer_is_held_to_the_pack_of_its_ruleset() -> None:
    answer = {"seq": 1, "legal": [{"seat": "N", "act": "play", "card": "3S"}], "steps": [], "final": None}
    answer["final"] = {"score": {"NS": 0, "EW": 0}, "dealer": "W", "winner": None}
    assert first_error(answer, "protocol/run-response") is None
    assert first_error(answer, "protocol/run-response", pack_of(load_ruleset("vitou/1.1.0"))) is not None
    answer["legal"] = [{"seat": "N", "act": "play", "card": "10S"}]
    assert first_error(answer, "protocol/run-response", pack_of(load_ruleset("vitou/1.1.0"))) is None
    assert sorted(pack_of(load_ruleset("vitou/1.1.0"))) == sorted(r + s for r in VITOU_RANKS for s in SUITS)


def test_the_fuzzers_try_the_cards_of_the_pack_in_force() -> None:
    for ruleset, ranks in ((str(FORTY), ORDER), ("vitou/1.1.0", VITOU_RANKS)):
        t = tables_for(load_ruleset(ruleset))
        cards = {a["card"] for a in universe(t) if isinstance(a, dict) and a.get("act") == "play" and "card" in a}
        assert cards - {"1S"} == {r + s for r in ranks for s in SUITS}


@pytest.mark.parametrize(
    ("name", "vitou", "forty"),
    [
        # Each mistake as its description puts it, worked out by hand on each pack's order.
        ("rank-9-above-10", "9 10 A K Q J 8 7", "2 3 A K Q J 7 6 5 4"),
        ("rank-ace-above-9", "10 A 9 K Q J 8 7", "3 A 2 K Q J 7 6 5 4"),
        ("rank-natural", "A K Q J 10 9 8 7", "A K Q J 7 6 5 4 3 2"),
    ],
)
def test_the_rank_mutants_take_the_pack_of_the_ruleset(name: str, vitou: str, forty: str) -> None:
    from vitou_ref.hunt.mutants import build_mutant

    for ruleset, order in (("vitou/1.1.0", vitou), (str(FORTY), forty)):
        mutant = build_mutant(load_ruleset(ruleset), name)
        assert [r.value for r in mutant.params.rank_order] == order.split()


def test_the_notation_offers_cards_of_the_pack_in_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = _record(tmp_path, "vitou/1.1.0", "N 10S")
    assert main(["audit", str(rec), "--ruleset", str(FORTY), "--format", "json"]) == 2
    err = capsys.readouterr().err
    assert "NOTATION_ACTION" in err and "'10S'" in err and "10H" not in err


def test_validated_answers_under_a_suite_of_its_own_rulesets_are_held_to_their_packs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The settings suite's rulesets are files of the suite, not shipped: each one's pack comes from its file
    # (the reduced pack and three suits among them), and the reference answers every case within it.
    assert main(["certify", "--suite", str(ROOT / "conformance" / "settings"), "--validate-protocol"]) == 0
    assert "breaks the protocol schema" not in capsys.readouterr().out
