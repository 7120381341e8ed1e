"""Truco Paulista's rule mistakes a real engine could make, each told apart from the reference by certify and fuzz.

Each mistake is a data mutant (vitou_ref/hunt/paulista_mutants.py, served by the reference adapter with
--mutant) or, where no rules data can state it, a fake engine (tests/fakes/paulista_mistakes.py: the reference
changed in one place). These are the mistakes engines of this game are known to make. The certify test asserts
NOT CONFORMANT and that the cases measured to catch each one still do (vitou certify --ruleset truco-paulista
--impl ... --format json, the cases whose outcome is not passed), so that a change of the suite that loses one
shows; the comment beside each mistake says, by the rules text, which case must. The fuzz test holds each
mistake to the differential fuzzer too, which needs no case.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from vitou_ref.cli import main
from vitou_ref.hunt.mutation import mutant_command

FAKES = Path(__file__).parent / "fakes" / "paulista_mistakes.py"


def fake(mode: str) -> str:
    return shlex.join([sys.executable, str(FAKES), mode])


def mutant(name: str) -> str:
    return shlex.join(mutant_command(name))


# (mistake, the implementation that makes it, the cases measured to catch it). By the rules text:
MISTAKES: dict[str, tuple[str, list[str]]] = {
    # §2 "the queen is below the jack": the draw of a queen against a jack deals by the lower rank, the queen.
    "the queen above the jack": (mutant("tp-queen-above-jack"), ["PA-0006", "PA-0029", "PA-0035", "PA-0041"]),
    # §2 "two manilhas never tie": the first worked example's second trick, QS against QC (turn-up 7D), goes to
    # B's manilha of clubs; tied, A leads the third trick instead.
    "manilhas tied": (fake("manilhas-tied"), ["PA-0031", "PA-0032", "PA-0033", "PA-0054"]),
    # §2 "the rank that follows the turn-up's rank": the worked example's turn-up 7D makes the queens, not the 6s.
    "manilhas from the rank below": (
        mutant("tp-manilha-below"),
        [
            "PA-0025",
            "PA-0026",
            "PA-0027",
            "PA-0028",
            "PA-0029",
            "PA-0030",
            "PA-0031",
            "PA-0032",
            "PA-0033",
            "PA-0034",
            "PA-0036",
            "PA-0043",
            "PA-0045",
            "PA-0047",
            "PA-0054",
            "PA-0055",
            "PA-0127",
        ],
    ),
    # §2 "from the lowest: diamonds, spades, hearts, clubs": QC beats QS in the first worked example.
    "manilhas ordered by suit the wrong way": (
        mutant("tp-manilha-suits-reversed"),
        ["PA-0031", "PA-0032", "PA-0033", "PA-0054"],
    ),
    # §3 "A face-down card never wins": the second worked example's 4C face down loses to 5H; kept face up with
    # its strength, a manilha played face down would win.
    "a face-down card winning": (
        fake("face-down-counts"),
        ["PA-0039", "PA-0040", "PA-0042", "PA-0043", "PA-0044", "PA-0046", "PA-0049", "PA-0050", "PA-0051"],
    ),
    # §4 "scores the stake as it stood before this raise": the first worked example's fold of the raise to 9
    # pays 6, here 9.
    "a fold paying the raised stake": (
        mutant("tp-fold-pays-raised"),
        [
            "PA-0054",
            "PA-0101",
            "PA-0103",
            "PA-0105",
            "PA-0107",
            "PA-0109",
            "PA-0111",
            "PA-0114",
            "PA-0118",
            "PA-0203",
            "PA-0204",
            "PA-0205",
            "PA-0221",
            "PA-0226",
            "PA-0228",
        ],
    ),
    # §4 "the player whose raise was the last one accepted may not raise again": RAISE_OWN_SIDE.
    "the same player raising twice": (
        mutant("tp-same-player-raises-twice"),
        [
            "PA-0047",
            "PA-0054",
            "PA-0100",
            "PA-0102",
            "PA-0104",
            "PA-0108",
            "PA-0110",
            "PA-0112",
            "PA-0113",
            "PA-0114",
            "PA-0116",
            "PA-0118",
            "PA-0120",
            "PA-0121",
            "PA-0122",
            "PA-0123",
            "PA-0124",
            "PA-0125",
            "PA-0127",
            "PA-0202",
            "PA-0205",
            "PA-0206",
            "PA-0223",
            "PA-0224",
            "PA-0227",
            "PA-0310",
        ],
    ),
    # §6 "Nobody may raise during a hand of eleven": BID_CLOSED_TWENTY, and no raise in its legal sets.
    "a raise during a hand of eleven": (
        mutant("tp-raise-at-eleven"),
        [
            "PA-0004",
            "PA-0055",
            "PA-0056",
            "PA-0207",
            "PA-0208",
            "PA-0210",
            "PA-0212",
            "PA-0213",
            "PA-0215",
            "PA-0218",
            "PA-0220",
            "PA-0312",
        ],
    ),
    # §3 "T T T: the player who led the first trick of the hand wins it": the TTT row scores the stake.
    "three tied tricks scoring nothing": (mutant("tp-all-tied-nobody"), ["PA-0045", "PA-0046", "PA-0047"]),
    # §5 "If a raise by the other player awaits the conceding player's answer, a concession is a fold".
    "a concession paying the raised stake": (fake("concede-pays-raised"), ["PA-0203", "PA-0204", "PA-0205"]),
    # §5 "During a hand of eleven ... that is being played, the other player scores 3".
    "a concession in a hand of eleven paying 1": (fake("concede-eleven-pays-1"), ["PA-0207", "PA-0208"]),
    # §7 "A score never passes 12: points beyond 12 are not counted (11 and 3 make 12)".
    "scores passing 12": (
        mutant("tp-scores-pass-twelve"),
        [
            "PA-0208",
            "PA-0210",
            "PA-0211",
            "PA-0212",
            "PA-0219",
            "PA-0220",
            "PA-0222",
            "PA-0223",
            "PA-0224",
            "PA-0225",
            "PA-0226",
            "PA-0229",
            "PA-0314",
        ],
    ),
}


@pytest.mark.parametrize("mistake", list(MISTAKES))
def test_certify_finds_the_mistake(mistake: str, capsys: pytest.CaptureFixture[str]) -> None:
    impl, killed_by = MISTAKES[mistake]
    status = main(["certify", "--ruleset", "truco-paulista", "--impl", impl, "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    (verdict,) = [v for v in doc["verdicts"] if v["kind"] == "rules"]
    failing = [c["id"] for c in doc["cases"] if c["outcome"] != "passed"]
    assert status == 1 and verdict["status"] == "not conformant", mistake
    assert set(killed_by) <= set(failing), f"{mistake}: no longer caught by {sorted(set(killed_by) - set(failing))}"


@pytest.mark.slow
@pytest.mark.parametrize("mistake", list(MISTAKES))
def test_fuzz_finds_the_mistake(mistake: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    impl, _ = MISTAKES[mistake]
    argv = ["fuzz", "--ruleset", "truco-paulista", "--impl", impl, "--seed", "3", "--examples", "3000"]
    assert main([*argv, "--save", str(tmp_path)]) == 1, mistake
    assert "DIVERGENCE at " in capsys.readouterr().out
    saved = sorted(tmp_path.glob("*.yaml"))
    assert saved
    for one in saved:  # each shrunk case: the reference passes it and the mistake fails it
        assert main(["certify", "--suite", str(one), "--ruleset", "truco-paulista"]) == 0
        assert main(["certify", "--suite", str(one), "--ruleset", "truco-paulista", "--impl", impl]) == 1


def test_the_fake_refuses_an_unknown_mode() -> None:
    import subprocess

    proc = subprocess.run([sys.executable, str(FAKES), "nope"], check=False, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "no mode 'nope'" in proc.stderr
