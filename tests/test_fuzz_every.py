"""vitou fuzz goes on after a divergence: each kind found once, shrunk and saved, and --expect sets known kinds aside.

The engine is tests/fakes/truc_mistakes.py with two mistakes of Le Truc at once. By the text: §2, equal ranks spoil a
trick whatever their suits, where the engine lets suits break the tie (a trick's winner differs); §1, the deal
passes after every hand, where the engine's dealer deals every hand (who acts after a hand, and the final dealer,
differ). A fuzz that stopped at its first divergence would name one of them; this one names both.
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest

from vitou_ref.cli import main
from vitou_ref.hunt.fuzzkinds import kind_of, read_kinds

FAKE = Path(__file__).parent / "fakes" / "truc_mistakes.py"
TWO = f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKE))} suits-count+dealer-stays"


def fuzz(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    tmp_path.mkdir(exist_ok=True)
    argv = ["fuzz", "--impl", TWO, "--ruleset", "le-truc", "--examples", "300", "--seed", "1"]
    status = main([*argv, "--save", str(tmp_path / "finds"), *extra])
    return status, capsys.readouterr().out


def found(out: str) -> list[tuple[str, str]]:
    """Each divergence reported: its kind and its saved fixture."""
    ks = re.findall(r"^kind: (.*) \(--expect (\S+) sets it aside\)$", out, re.M)
    return [(k, path) for k, path in ks]


def test_two_mistakes_two_kinds_each_saved_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = fuzz(tmp_path, capsys)
    assert status == 1
    reported = found(out)
    names = [k for k, _ in reported]
    assert len(names) == len(set(names)) >= 2, out  # each kind once
    assert any("trick.winner" in k for k in names), names  # the suits' mistake
    assert any(k == "final dealer" or "another seat acts" in k for k in names), names  # the dealer's
    assert f"{len(names)} kinds of divergence, each shrunk and saved on its own:" in out
    for kind, path in reported:  # each fixture states its kind, which --expect reads back
        assert f"# kind: {kind}\n" in Path(path).read_text(encoding="utf-8")


def test_expect_sets_the_first_kind_aside(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out = fuzz(tmp_path, capsys)
    (first, path), *_ = found(out)
    _, again = fuzz(tmp_path / "again", capsys, "--expect", path)
    assert first not in [k for k, _ in found(again)]
    assert re.search(r"^set aside \(--expect, or found before in this run\): [1-9]\d* divergence", again, re.M), again
    # Every kind listed, one a line (a comment and a blank line among them): nothing new is left to report.
    listed = tmp_path / "known.txt"
    listed.write_text("# known\n\n" + "\n".join(k for k, _ in found(out)) + "\n", encoding="utf-8")
    _, rest = fuzz(tmp_path / "rest", capsys, "--expect", str(listed))
    assert not set(k for k, _ in found(rest)) & set(k for k, _ in found(out))


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"\xff\xfe kind", "EXPECT_FORMAT: not UTF-8 text"),
        (b"x" * (1 << 20) + b"y", "EXPECT_TOO_LARGE"),
    ],
)
def test_an_unreadable_expect_file_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, problem: str
) -> None:
    bad = tmp_path / "known.txt"
    bad.write_bytes(content)
    assert main(["fuzz", "--expect", str(bad), "--examples", "1"]) == 2
    err = capsys.readouterr().err
    assert problem in err and "known.txt" in err


@pytest.mark.parametrize("where", ["missing.txt", ".", "/dev/null"])
def test_an_expect_path_that_is_no_file_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    path = where if where.startswith("/") else str(tmp_path / where)
    assert main(["fuzz", "--expect", path, "--examples", "1"]) == 2
    assert "FILE_" in capsys.readouterr().err


def test_a_kind_is_what_the_first_differing_step_shows() -> None:
    # Derived from the protocol's answer shapes: a step's result, its events, its legal set; the final state.
    refuse = {"seat": "A", "act": "refuse"}
    assert kind_of("step 3", {"ok": True}, {"ok": False}, refuse) == "refuse: refused where the rules accept"
    assert (
        kind_of("step 3", {"ok": False, "error": "X"}, {"ok": True}, refuse)
        == "refuse: accepted where the rules refuse"
    )
    assert (
        kind_of("step 3", {"ok": False, "error": "X"}, {"ok": False, "error": "Y"}, refuse)
        == "refuse: another error code"
    )
    hand = {"event": "hand", "winner": "A", "points": 1, "score": {"A": 1, "B": 0}}
    overpaid = {**hand, "points": 2, "score": {"A": 2, "B": 0}}
    assert kind_of("step 3", {"events": [hand]}, {"events": [overpaid]}, refuse) == "refuse: events hand.points,score"
    ended = [hand, {"event": "match", "winner": "A"}]
    assert kind_of("step 3", {"events": [hand]}, {"events": ended}, refuse) == "refuse: events +match"
    raise_ = {"seat": "B", "act": "raise", "to": 12}
    want = [{"seat": "A", "act": "accept"}, {"seat": "A", "act": "refuse"}]
    got = [*want, {"seat": "A", "act": "raise", "to": 14}]
    assert kind_of("step 6", {"legal": want}, {"legal": got}, raise_) == "raise: legal set +raise"
    assert kind_of("final", {"dealer": "A", "winner": None}, {"dealer": "B", "winner": None}) == "final dealer"
    # Words from an answer are escaped, and a kind is one short line whatever the answer held.
    evil = kind_of("step 1", {"events": [hand]}, {"events": [{"event": "\u202e\x07\n" * 500}]}, refuse)
    assert "\n" not in evil and "\x07" not in evil and "\u202e" not in evil and len(evil) <= 300


def test_a_saved_fixture_counts_by_its_kind_lines_alone() -> None:
    fixture = "# rerun: vitou certify ...\n# kind: play: events trick.winner\nformat: 1\ncases:\n- id: FZ-0001\n"
    assert read_kinds(fixture) == {"play: events trick.winner"}
    assert read_kinds("# a list\n\nfinal dealer\n  raise: legal set +raise  \n") == {
        "final dealer",
        "raise: legal set +raise",
    }


def test_fuzz_sends_actions_after_the_match_and_past_the_last_deal() -> None:
    # Le Truc's §4: once the match is won, no further action is made (MATCH_OVER); the protocol: a hand the setup
    # deals no cards for cannot be played (NO_DEAL). Under either game some drawn matches end on each refusal.
    from vitou_ref.engine.tables import tables_for
    from vitou_ref.hunt.fuzzcases import make_case, reference_answer, universe
    from vitou_ref.rules.registry import load_ruleset

    for name in ("vitou/1.1.0", "le-truc/1.1.0"):
        t = tables_for(load_ruleset(name))
        tries = universe(t)
        last = set()
        for seed in range(400):
            case, ref = make_case(t, seed, seed % 8, 160, 12, tries)
            assert ref == reference_answer(t, case)  # the case's expectation is the reference's answer to it
            if ref["steps"] and ref["steps"][-1].get("ok") is False:
                last.add(ref["steps"][-1]["error"])
        assert {"MATCH_OVER", "NO_DEAL"} <= last, (name, last)


def test_an_engine_that_plays_on_after_the_match_is_found(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    impl = f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKE))} plays-on"
    argv = ["fuzz", "--impl", impl, "--ruleset", "le-truc", "--examples", "300", "--seed", "1"]
    assert main([*argv, "--save", str(tmp_path)]) == 1
    kinds = [k for k, _ in found(capsys.readouterr().out)]
    assert any(k.endswith(": accepted where the rules refuse") for k in kinds), kinds


def test_a_run_reports_at_most_ten_kinds(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Each kind costs a check on fresh starts, so the run's bound counts them: at the cap it stops, and says so.
    from vitou_ref.hunt import fuzz as fuzz_module

    monkeypatch.setattr(fuzz_module, "MAX_KINDS", 1)
    status, out = fuzz(tmp_path, capsys)
    assert status == 1 and len(found(out)) == 1
    assert "stopped early: 1 kinds of divergence found; --expect them to look past them" in out
