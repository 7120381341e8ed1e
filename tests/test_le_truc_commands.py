"""Le Truc through every command: certify, fuzz, mutants, simulate, audit, rulebook, profile diff, report, adapter.

The worked example of the rules text (le-truc.md §5) is the thread. By hand: dealer B, so A leads; A raises to
2, B raises again to 4 (2 is the stake, 4 proposed), A accepts (the stake is 4) and leads 3S, since the raises
interrupted A's turn; B plays 5H, the 3 beats the 5, A wins trick 1 and leads 4C; B, last to the trick, raises
to 6; A folds (the act refuse): the hand ends by refusal and B scores 4, the stake before the raise to 6.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

from vitou_ref import load_ruleset
from vitou_ref.cli import main
from vitou_ref.engine.actions import Accept, Raise, Refuse, action_from_json
from vitou_ref.engine.events import HandEvent
from vitou_ref.engine.observation import asking_order
from vitou_ref.engine.tables import tables_for
from vitou_ref.hunt.fuzzcases import Case, make_case, reference_answer, starts_for, universe
from vitou_ref.hunt.mutants import MUTANTS, build_mutant
from vitou_ref.kit.coverage import ENDINGS, game_endings
from vitou_ref.kit.suite import load_suite
from vitou_ref.players import make_player
from vitou_ref.players.arena import play_match
from vitou_ref.protocol.server import match_from_setup

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "tests" / "data" / "le-truc-example.yaml"
RULESET = "le-truc/1.1.0"  # the latest: what a bare le-truc names
SETUP = {"dealer": "B", "deals": [{"A": ["3S", "7H", "4C"], "B": ["2D", "KS", "5H"]}]}
EXAMPLE = [
    {"seat": "A", "act": "raise", "to": 2},
    {"seat": "B", "act": "raise", "to": 4},
    {"seat": "A", "act": "accept"},
    {"seat": "A", "act": "play", "card": "3S"},
    {"seat": "B", "act": "play", "card": "5H"},
    {"seat": "A", "act": "play", "card": "4C"},
    {"seat": "B", "act": "raise", "to": 6},
    {"seat": "A", "act": "refuse"},
]
# The fold, as the protocol writes its event: B wins the hand by refusal and scores 4.
FOLD = {"event": "hand", "winner": "B", "points": 4, "reason": "refusal", "score": {"A": 0, "B": 4}}


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """A suite of one case, the worked example, written here (the shipped Le Truc cases are other files)."""
    t = tables_for(load_ruleset(RULESET))
    ref = reference_answer(t, Case(SETUP, EXAMPLE))
    assert ref["steps"][-1]["events"] == [FOLD] and ref["final"]["score"] == {"A": 0, "B": 4}
    # The deal passes after the hand, however it ended (§1): B dealt, A deals next.
    assert ref["final"]["dealer"] == "A"
    steps = [{"ok": True, "events": s["events"], "legal": s["legal"]} for s in ref["steps"]]
    case = {
        "id": "LC-0001",
        "title": "the worked example: a raise again, an accept, a raise by the follower, a fold",
        "clauses": ["truc.example", "truc.answer", "truc.fold"],
        "rulesets": ["le-truc/^1.0.0"],
        "setup": SETUP,
        "actions": EXAMPLE,
        "expect": {"legal": ref["legal"], "steps": steps, "final": ref["final"]},
    }
    path = tmp_path / "suite" / "le_truc_example.yaml"
    path.parent.mkdir()
    path.write_text(yaml.safe_dump({"format": 1, "title": "Le Truc's worked example", "cases": [case]}))
    return path.parent


def test_certify_serves_le_truc(capsys: pytest.CaptureFixture[str]) -> None:
    # The shipped suite: the reference passes whatever it holds for Le Truc; before its cases, it holds none.
    status = main(["certify", "--ruleset", "le-truc"])
    captured = capsys.readouterr()
    if load_suite().applicable(RULESET):
        assert status == 0 and f"CONFORMANT {RULESET}" in captured.out
    else:
        assert status == 2 and f"no case of the suite applies to {RULESET}" in captured.err


def test_certify_validates_accept_in_legal_sets_and_the_report_reads_it(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "le-truc.jsonl"
    argv = ["certify", "--suite", str(suite), "--ruleset", "le-truc", "--validate-protocol", "--report", str(report)]
    assert main(argv) == 0
    assert f"CONFORMANT {RULESET}: 1/1 cases" in capsys.readouterr().out
    assert main(["report", str(report)]) == 0
    out = capsys.readouterr().out
    assert RULESET in out and "conformant" in out
    assert main(["report", str(report), "--format", "html", "-o", str(tmp_path / "page.html")]) == 0
    assert RULESET in (tmp_path / "page.html").read_text()


def test_fuzz_draws_accepts_and_raises_again_and_judges_them() -> None:
    t = tables_for(load_ruleset(RULESET))
    assert all(a < 12 and b < 12 for a, b in starts_for(t))  # no start is a match already won
    tries = universe(t)
    assert {"seat": "A", "act": "accept"} in tries and {"seat": "B", "act": "play", "card": "10S"} in tries
    seen: Counter[tuple[str, str]] = Counter()
    for seed in range(60):
        case, ref = make_case(t, seed, seed, 120, 12, tries)
        m = match_from_setup(t, case.setup)
        for raw, step in zip(case.actions, ref["steps"]):
            if step["ok"]:
                seen[(raw["act"], m.phase_name)] += 1
                m.apply(action_from_json(raw))
            elif isinstance(raw, dict):
                seen[(str(raw.get("act")), step["error"])] += 1
    assert seen[("accept", "raise_pending")] and seen[("raise", "raise_pending")] and seen[("refuse", "raise_pending")]
    assert seen[("play", "RAISE_AWAITS_ANSWER")] and seen[("accept", "ACCEPT_NO_RAISE")]


def test_fuzz_finds_no_divergence_in_the_reference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--ruleset", "le-truc", "--examples", "600", "--seed", "5", "--save", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "600 matches" in out and out.rstrip().endswith("no divergence")


def test_le_truc_has_mutants_of_its_own_data(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = load_ruleset(RULESET)
    made = [m for m in MUTANTS if m.applies_to(base.version, base.id)]
    hashes = {base.content_hash} | {build_mutant(base, m.name).content_hash for m in made}
    assert len(made) >= 25 and len(hashes) == len(made) + 1  # each changes the rules, no two alike
    assert load_ruleset(RULESET).content_hash == base.content_hash
    fold = build_mutant(base, "truc-fold-pays-raised").params.ladder
    assert [lv.refused for lv in fold[1:]] == [2, 4, 6, 8, 10, 12]  # the stake raised to, not the one before
    assert build_mutant(base, "truc-answer-by-playing").params.answer_when == "after_bidders_card"
    assert not [m for m in MUTANTS if m.applies_to("1.1.0", "vitou") and m.game != "vitou"]
    argv = ["mutants", "--ruleset", "le-truc", "--suite", str(suite), "--format", "json"]
    assert main([*argv, "--only", "truc-fold-pays-raised", "--only", "truc-dealer-passes-back"]) == 0
    rows = {r["mutant"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    # The example's fold of the raise to 6 pays 4; the mutant pays 6. With two players the previous is the next.
    assert rows["truc-fold-pays-raised"]["killed_by"] == ["LC-0001"]
    assert rows["truc-dealer-passes-back"]["status"] == "equivalent"


def test_the_players_answer_raises_and_fold(capsys: pytest.CaptureFixture[str]) -> None:
    t = tables_for(load_ruleset(RULESET))
    for kind in ("random", "heuristic", "search"):
        acts: Counter[type] = Counter()
        folds = 0
        for seed in range(4 if kind == "search" else 30):
            players = {
                s: make_player(kind, seed=seed * 7 + i, budget=4 if kind == "search" else None)
                for i, s in enumerate("AB")
            }
            for m, action, events in play_match(t, players, seed):
                acts[type(action)] += 1
                folds += any(type(e) is HandEvent and e.reason == "refusal" for e in events)
                if m.phase_name == "raise_pending":  # only the player the raise waits on is asked
                    assert asking_order(m) == (m.turn,)
        assert acts[Raise] and acts[Accept] and acts[Refuse] and folds, kind
    assert main(["simulate", "--ruleset", "le-truc", "--matches", "20", "--players", "heuristic"]) == 0
    out = capsys.readouterr().out
    assert "refusal" in out and "reaching" not in out  # no twenty-point ending in Le Truc


def test_audit_reads_and_writes_accept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(RECORD)]) == 0
    out = capsys.readouterr().out
    assert "3. A accepts  [A accept]: legal" in out
    assert "B score 4 by refusal; score A 0, B 4" in out and "the claim is rejected" in out
    assert main(["audit", str(RECORD), "--at", "3"]) == 0
    out = capsys.readouterr().out
    assert "A accepts: allowed by truc.answer" in out and "A raises to 6: allowed by truc.answer" in out
    assert main(["record", str(RECORD)]) == 0
    assert "A r2 B r4 A accept A 3S" in capsys.readouterr().out
    assert main(["record", str(RECORD), "--to", "json"]) == 0
    assert {"seat": "A", "act": "accept"} in json.loads(capsys.readouterr().out)["actions"]
    # A card while the raise waits (§3 "a card played then is refused"), the code citing its clause.
    bad = tmp_path / "bad.yaml"
    bad.write_text(RECORD.read_text().replace("A r2 B r4 A accept", "A r2 A 3S").split("claims:")[0])
    assert main(["audit", str(bad), "--format", "json"]) == 1
    rulings = json.loads(capsys.readouterr().out)["rulings"]
    assert (rulings[1]["code"], rulings[1]["clause"]["id"]) == ("RAISE_AWAITS_ANSWER", "truc.wait")


def test_rulebook_and_profile_diff(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rulebook", "--ruleset", "le-truc", "--suite", str(suite)]) == 0
    book = capsys.readouterr().out
    assert book.startswith("# Le Truc: the rulebook") and "### truc.answer:" in book
    assert "Example LC-0001" in book and "\n3. A accepts\n" in book  # the example played in the audit's words
    assert main(["profile", "diff", "vitou-2p", "le-truc"]) == 0
    diff = capsys.readouterr().out
    assert f"+++ {RULESET}" in diff and "+ truc.answer" in diff and "- bid.baraque" in diff


def test_the_adapter_serves_le_truc() -> None:
    lines = [
        {"cmd": "start", "protocol": 1},
        {"cmd": "run", "seq": 1, "ruleset": RULESET, "setup": SETUP, "actions": EXAMPLE},
        {"cmd": "stop"},
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "vitou_ref.adapter"],
        input="".join(json.dumps(x) + "\n" for x in lines),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    hello, answer = (json.loads(x) for x in proc.stdout.splitlines())
    assert RULESET in hello["rulesets"]
    # After A's raise to 2 the answer is B's: accept, fold or the raise again to 4, and nothing else.
    assert answer["steps"][0]["legal"] == [
        {"seat": "B", "act": "accept"},
        {"seat": "B", "act": "refuse"},
        {"seat": "B", "act": "raise", "to": 4},
    ]
    assert answer["steps"][-1]["events"] == [FOLD] and answer["final"]["score"] == {"A": 0, "B": 4}


def test_fixtures_check_asks_le_truc_only_for_its_own_endings(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # §4 "There is no ending at a special score", and no level is worth the match: no twenty, 20-20 or baraque.
    assert game_endings(load_ruleset(RULESET)) == (
        "hand won on tricks",
        "hand won by refusal",
        "all tricks tied",
        "match won at the target",
    )
    # Vitou has every ending but a conceded hand, which only a game with the act concede has.
    assert game_endings(load_ruleset("vitou/1.1.0")) == tuple(e for e in ENDINGS if e != "hand conceded")
    main(["fixtures", "check", "--suite", str(suite)])
    out = capsys.readouterr()
    assert "twenty" not in out.out + out.err and "baraque" not in out.out + out.err
    assert "no case covers the ending: match won at the target" in out.out + out.err
