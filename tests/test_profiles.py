"""Profiles: resolution, checks with located messages, diff, simulate, and certification per profile."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, deal

from vitou_ref import InputError, Match, load_rules_text, load_ruleset, shipped_names
from vitou_ref.cli import main
from vitou_ref.engine.events import HandEvent

# Each shipped profile and the base it extends.
BASE_OF = {
    "vitou-2p/1.0.0": "vitou/1.0.0",
    "vitou-partners-tie/1.0.0": "vitou/1.0.0",
    "vitou-anticlockwise/1.0.0": "vitou/1.0.0",
    "vitou-volee/1.0.0": "vitou/1.1.0",
    "vitou-last-bids/1.0.0": "vitou/1.1.0",
    "vitou-mid-trick/1.0.0": "vitou/1.1.0",
}
PROFILES = list(BASE_OF)
EXAMPLES = ROOT / "docs" / "examples"


def test_every_shipped_profile_resolves_to_a_complete_ruleset() -> None:
    # Base rules first, by name and oldest version first; every shipped profile extends the version it was written for.
    bases = ["le-truc/1.0.0", "le-truc/1.1.0", "truco-paulista/1.0.0", "vitou/1.0.0", "vitou/1.1.0"]
    assert shipped_names()[: len(bases)] == bases and sorted(shipped_names()[len(bases) :]) == sorted(PROFILES)
    for name in PROFILES:
        rules = load_ruleset(name)
        base = load_ruleset(BASE_OF[name])
        assert rules.name == name and rules.extends == base.name
        assert rules.content_hash.startswith("sha256:") and rules.content_hash != base.content_hash
        assert rules.to_json()["profile"]["base_hash"] == base.content_hash
        for e in rules.errors:  # every code still names a clause of the resolved ruleset
            rules.clause(e.clause)


def test_the_adapter_lists_every_shipped_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    from vitou_ref.adapter import build_server

    hello = build_server().handle(json.dumps({"cmd": "start", "protocol": 1}))
    assert hello is not None and hello["rulesets"] == shipped_names()


@pytest.mark.parametrize("name", PROFILES)
def test_each_profile_is_certified_conformant_for_the_reference(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "--ruleset", name]) == 0
    rules, envelope = capsys.readouterr().out.splitlines()[-2:]  # its rules, then the envelope under it
    assert rules.startswith(f"CONFORMANT {name}: ")
    assert envelope.startswith(f"CONFORMANT envelope (protocol lines, under {name}): ")


@pytest.mark.parametrize("name", PROFILES)
def test_each_profile_has_full_coverage(name: str) -> None:
    from vitou_ref.kit.suitecheck import check_suite

    report = check_suite(rulesets=[name])
    assert report.ok, [str(p) for p in report.problems] + [f.describe() for f in report.failures]


def test_seat_and_side_names_come_from_the_ruleset() -> None:
    rules = load_ruleset("vitou-2p")
    m = Match(rules, dealer="S", deals=[deal("N: AS 7H 8C | S: 9C KD JH")])
    assert m.turn == "N" and m.score == {"N": 0, "S": 0}
    m.raise_bid("N", 3)
    m.play("N", "AS")
    # The follower is last to the trick: it may accept or refuse, not raise.
    assert {a.act for a in m.legal_actions()} == {"play", "refuse"}
    assert m.refuse("S").events[0].to_json() == {
        "event": "hand",
        "winner": "N",
        "points": 1,
        "reason": "refusal",
        "score": {"N": 1, "S": 0},
    }


def test_replace_moves_error_codes_and_clarifications_to_the_replacement() -> None:
    rules = load_ruleset("vitou-2p")
    assert rules.error("RAISE_FROM_LAST").clause == "2p.not_last"
    assert rules.error("SIGNAL_FORBIDDEN").clause == "2p.no_signals"  # an explicit rebind
    assert all("bid.refusal" not in k.clauses for k in rules.clarifications)
    assert rules.current_clause("bid.refusal") == "2p.refusal"
    assert rules.clause("2p.seats").origin == "vitou-2p/1.0.0"
    assert rules.clause("deck.cards").origin == "vitou/1.0.0"


PROFILE = """format: 1
profile: {{id: house, version: 1.0.0, title: A house rule, extends: {base}}}
changelog:
  - {{version: 1.0.0, date: "2026-11-29", changes: [First.]}}
operations:
{ops}
"""


def profile(ops: str, base: str = "vitou/1.0.0") -> str:
    return PROFILE.format(base=base, ops=ops)


BROKEN = [
    (
        "unknown clause",
        "  - {replace: bid.nope, with: {id: h.x, section: '03', title: t, text: t}}",
        "PROFILE_CLAUSE_UNKNOWN",
        "replace: bid.nope",
    ),
    ("unknown base", "  - {remove: signals.table_talk}", "PROFILE_BASE_UNKNOWN", "profile:"),
    (
        "id taken",
        "  - {add: {id: bid.open, section: '03', title: t, text: t}}",
        "CLAUSE_DUPLICATE",
        "add: {id: bid.open",
    ),
    (
        "removed clause still cited by an error code",
        "  - {remove: bid.no_jumps}",
        "ERROR_CLAUSE_UNKNOWN",
        "remove: bid.no_jumps",
    ),
    (
        "incomplete resolution table",
        "  - replace: hand.resolution\n    with:\n      id: h.res\n      section: '02'\n      title: t\n      text: t\n"
        "      rule: resolution\n      data:\n        tricks: 3\n        rows:\n"
        "          - {id: AA, pattern: [A, A], winner: A, text: t}\n",
        "RESOLUTION_INCOMPLETE",
        "- {id: AA",
    ),
    (
        "ladder not increasing",
        "  - replace: bid.ladder\n    with:\n      id: h.ladder\n      section: '03'\n      title: t\n      text: t\n"
        "      rule: ladder\n      data:\n        base: 1\n        levels:\n"
        "          - {bid: 3, value: 3, refused: 1}\n          - {bid: 6, value: 2, refused: 3}\n",
        "LADDER_NOT_INCREASING",
        "{bid: 6, value: 2",
    ),
    (
        "three seats for two sides of two",
        "  - replace: seats.partnerships\n    with:\n      id: h.seats\n      section: '01'\n      title: t\n      text: t\n"
        "      rule: seats\n      data:\n        seats: [{id: N, name: N}, {id: E, name: E}, {id: S, name: S}]\n"
        "        sides: [{id: NS, name: NS, seats: [N, S]}, {id: EW, name: EW, seats: [E]}]\n",
        "SEATS_ORDER",
        "seats: [{id: N",
    ),
    (
        "bad data for a rule",
        "  - {replace: seats.direction, with: {id: h.dir, section: '01', title: t, text: t, rule: direction, data: {next: up}}}",
        "SCHEMA",
        "next: up",
    ),
    (
        "clarification number reused",
        "  - {add_clarification: {number: 3, title: t, clauses: [bid.open], ruling: r, reason: r}}",
        "CLARIFICATION_DUPLICATE",
        "add_clarification",
    ),
]


@pytest.mark.parametrize(("name", "ops", "code", "anchor"), BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_profile_is_refused_with_a_located_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, ops: str, code: str, anchor: str
) -> None:
    text = profile(ops, base="vitou/9.9.9" if code == "PROFILE_BASE_UNKNOWN" else "vitou/1.0.0")
    line = text[: text.index(anchor)].count("\n") + 1  # the line of the offending part
    path = tmp_path / "house.yaml"
    path.write_text(text, encoding="utf-8")
    assert main(["spec", "check", str(path)]) == 1
    out = capsys.readouterr().out
    located = [x for x in out.splitlines() if f": {code}" in x]
    assert located, out
    assert any(x.startswith(f"{path}:{line}:") for x in located), (line, located)
    with pytest.raises(InputError):
        load_rules_text(text, "house.yaml")


def test_resolve_prints_the_whole_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profile", "resolve", "vitou-2p", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["name"] == "vitou-2p/1.0.0" and out["hash"] == load_ruleset("vitou-2p").content_hash
    assert any(c["id"] == "2p.seats" for c in out["ruleset"]["clauses"])
    assert main(["profile", "resolve", "vitou-anticlockwise"]) == 0
    assert capsys.readouterr().out.startswith("# vitou-anticlockwise/1.0.0, resolved; content hash sha256:")


def test_diff_lists_what_changed_clause_by_clause(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profile", "diff", "vitou/1.0.0", "vitou-partners-tie"]) == 0
    out = capsys.readouterr().out
    assert "~ trick.tie -> pt.tie" in out and "data same_side: tie -> first_played_wins" in out
    assert "- clarification 1" in out and "+ clarification 101" in out
    assert main(["profile", "diff", "vitou/1.0.0", "vitou-anticlockwise", "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    (change,) = d["clauses"]
    assert change["kind"] == "replaced" and change["data"] == {"next": {"a": "left", "b": "right"}}
    assert main(["profile", "diff", "vitou", "vitou"]) == 0
    assert "no difference" in capsys.readouterr().out


def test_diff_shows_where_two_texts_differ_and_values_as_the_rules_files_write_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["profile", "diff", "vitou/1.0.0", str(EXAMPLES / "club-nice.yaml")]) == 0
    out = capsys.readouterr().out
    (text,) = [line for line in out.splitlines() if line.startswith("    text: ")]
    # bid.open says "in any trick of the hand ... (clarification 5)."; club.open "in the second or the third trick
    # of the hand ... trick.": both sides once cut at the same 97 characters, which they share.
    assert "in [-any-] {+the second or the third+} trick of the hand" in text
    assert "[-trick (clarification 5).-] {+trick.+}" in text
    assert "[-...-] marks words of the first only" in out
    # club.open has no quote: absent, not Python's None; the data's list in YAML's flow style.
    assert (
        "quote: Before playing your card, unless you are last to the current trick, you may open at 3. -> (absent)"
        in out
    )
    assert "data tricks: any -> [2, 3]" in out and "None" not in out and "'" not in out


@pytest.mark.parametrize("name", ["vitou", *PROFILES])
def test_simulate_reports_what_a_designer_wants(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--ruleset", name, "--matches", "40", "--seed", "3", "--format", "json"]) == 0
    (sim,) = json.loads(capsys.readouterr().out)["rulesets"]
    assert sim["matches"] == 40 and sim["hands"] >= 40
    assert sum(e["count"] for e in sim["endings"].values()) == 40
    assert set(sim["hand_results"]) <= {"tricks", "refusal", "decline", "tied", "passed"}
    assert 0 <= sim["refusal"]["share"] <= 1 and 0 <= sim["tied_tricks"]["share"] <= 1
    assert main(["simulate", "--ruleset", name, "--matches", "40", "--seed", "3"]) == 0
    text = capsys.readouterr().out
    assert "hands per match" in text and "how matches end" in text and "baseline" in text


def test_write_your_own_variant_walkthrough(capsys: pytest.CaptureFixture[str]) -> None:
    house, cases = str(EXAMPLES / "club-nice.yaml"), str(EXAMPLES / "club-cases.yaml")
    assert main(["spec", "check", house]) == 0
    assert main(["profile", "diff", "vitou", house]) == 0
    assert "~ bid.open -> club.open" in capsys.readouterr().out
    assert main(["simulate", "--ruleset", house, "--matches", "20"]) == 0
    assert main(["fixtures", "check", "--suite", cases, "--rules", house, "--no-coverage"]) == 0
    capsys.readouterr()
    assert main(["certify", "--rules", house, "--ruleset", "club-nice/1.0.0", "--suite", cases]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith(
        f"CONFORMANT club-nice/1.0.0: 4/4 cases of {cases}, 10/10 clauses; not the conformance suite: "
    )


def test_the_anticlockwise_suite_is_the_mirror_of_the_base_suite() -> None:
    proc = subprocess.run(
        [sys.executable, "tools/mirror_cases.py", "--check"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr


def _explore(m: Match, seen: set[object], levels: set[int], ends: set[tuple[str, str, bool]] | None = None) -> None:
    """Every position of one hand reachable from ``m``, by every legal action; ``ends`` gathers how hands end."""
    key = m.state_key()
    if key in seen or m.hand_number > 1 or m.phase_name in ("match_over", "no_deal"):
        return
    seen.add(key)
    levels.add(m.level)
    for action in m.legal_actions():
        child = m.clone()
        for event in child.apply(action):
            if ends is not None and isinstance(event, HandEvent):
                ends.add((event.mode, event.reason, isinstance(event.points, int)))
        if child.hand_number == 1:
            _explore(child, seen, levels, ends)


def test_two_players_never_reach_baraque() -> None:
    # conformance/coverage.yaml declares baraque out of two-player reach
    # (clarification 103); walk every legal line of play of some hands to confirm.
    import random

    rules = load_ruleset("vitou-2p")
    top = len(rules.params.ladder) - 1
    cards = [f"{r}{s}" for r in ["10", "9", "A", "K", "Q", "J", "8", "7"] for s in "SHDC"]
    highest = set()
    for seed in range(8):
        picked = random.Random(seed).sample(cards, 6)
        for dealer in ("N", "S"):
            seen: set[object] = set()
            levels: set[int] = set()
            _explore(Match(rules, dealer=dealer, deals=[{"N": picked[:3], "S": picked[3:]}]), seen, levels)
            assert top not in levels, (seed, dealer)
            highest.add(max(levels))
    assert top - 1 in highest  # the search does reach 12, the highest two players can bid


def test_le_truc_plays_every_hand_alike() -> None:
    # conformance/coverage.yaml declares the twenty and 20-20 endings out of
    # Le Truc's reach (truc.no_special_ending), and the match won by an
    # accepted baraque too (its top, 12, is points: truc.stake). Walk every
    # legal line of play of some hands, at 0-0 and 0-5 (where Vitou's
    # interpreter would look for a special hand) and at 11-11, to confirm.
    import random

    rules = load_ruleset("le-truc")
    top = len(rules.params.ladder) - 1
    cards = [f"{r}{s}" for r in ["3", "2", "A", "K", "Q", "J", "7", "6", "5", "4"] for s in "SHDC"]
    deals = [random.Random(seed).sample(cards, 6) for seed in range(3)] + [["3S", "2H", "AD", "3C", "2S", "AH"]]
    ends: set[tuple[str, str, bool]] = set()
    levels: set[int] = set()
    for picked in deals:
        for score in ({"A": 0, "B": 0}, {"A": 0, "B": 5}, {"A": 11, "B": 11}):
            deal = [{"A": picked[:3], "B": picked[3:]}]
            _explore(Match(rules, dealer="B", deals=deal, score=score), set(), levels, ends)
    assert {mode for mode, _, _ in ends} == {"normal"}
    assert all(is_int for _, _, is_int in ends)
    assert {reason for _, reason, _ in ends} == {"tricks", "refusal", "tied"}  # the search reaches every end
    assert top in levels  # and 12, the top, as a stake


def test_a_code_only_one_ruleset_defines_is_added_or_removed_never_a_clause_of_none(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Fails before: "~ error RAISE_FROM_LAST: clause 2p.not_last -> None", Python's None for a code le-truc lacks.
    from vitou_ref.cli import main

    assert main(["profile", "diff", "vitou-2p", "le-truc"]) == 0
    out = capsys.readouterr().out
    assert "None" not in out
    assert "- error RAISE_FROM_LAST (clause 2p.not_last)" in out.splitlines()
    assert "+ error ACCEPT_NO_RAISE (clause truc.answer)" in out.splitlines()
