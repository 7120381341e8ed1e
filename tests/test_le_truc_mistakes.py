"""Le Truc's rule mistakes a real engine could make, each told apart from the reference by certify and by fuzz.

Each mistake is a fake engine (tests/fakes/truc_mistakes.py: the reference changed in one place, where no
rules data can state the mistake) or a data mutant (vitou_ref/hunt/truc_mutants.py, served by the reference
adapter with --mutant). The certify test asserts NOT CONFORMANT with at least one failing case of the
bundled suite; the comment beside each mistake says which kind of case catches it (LT-00xx:
le_truc_hands.yaml, the hands; LT-01xx: le_truc_raises.yaml, the raises). KILLED_BY names the cases
measured to catch it, so that a change of the suite that loses one shows. The fuzz test holds each mistake
to the differential fuzzer too, which needs no case.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from vitou_ref.cli import main
from vitou_ref.hunt.mutation import mutant_command
from vitou_ref.kit.suite import load_suite

FAKES = Path(__file__).parent / "fakes" / "truc_mistakes.py"
RULESET = "le-truc/1.0.0"


def fake(mode: str) -> str:
    return shlex.join([sys.executable, str(FAKES), mode])


def mutant(name: str) -> str:
    return shlex.join(mutant_command(name))


# (mistake, the implementation that makes it). Which cases catch it, by the rules text:
MISTAKES = {
    # §2 "The higher rank wins the trick": any hand whose first trick is won (LT-00xx); 3S against 5H in the
    # worked example (LT-01xx) goes to the 5.
    "weaker card wins": mutant("truc-weaker-wins"),
    # §3 a fold "scores the stake as it stood before this raise": any fold (LT-01xx); the worked example's
    # fold of the raise to 6 pays 4, here 6.
    "fold pays the raised stake": mutant("truc-fold-pays-raised"),
    # §3 "A player may not raise while their own raise is waiting": the case where the raiser raises again
    # before the answer (LT-01xx, RAISE_OWN_WAITING).
    "raise while one's own waits": fake("own-raise-waits"),
    # §2 "the player who led it leads again": a spoilt trick the hand goes on after (LT-00xx): the legal set
    # after it is the follower's, not the leader's.
    "follower leads after a spoilt trick": fake("spoilt-follower-leads"),
    # §3 "the player whose turn to play the exchange of raises interrupted now plays": an accept by the player
    # who did not raise last (LT-01xx): the legal set after it.
    "answerer plays after an accept": fake("answerer-plays"),
    # §3 "A raise must be answered before any card": any raise (LT-01xx): the legal set while it waits is
    # accept, fold and the raise again; here the answerer's cards, and accept is ACTION_MALFORMED.
    "a card accepts a raise (Vitou's way)": mutant("truc-answer-by-playing"),
    # §3 "raises again: this accepts the waiting raise ... and proposes the next level": the legal set of
    # the answer (LT-01xx) and the worked example's raise again to 4.
    "no raise again": fake("no-raise-again"),
    # §4 "The first player to reach 12 points or more wins": a match from 10 or 11 points (LT-00xx) that goes
    # on at 11.
    "match won at 11": mutant("truc-target-11"),
    # §1 "the dealer of one hand is the other player's dealer of the next": the final dealer of any case that
    # completes a hand (LT-00xx and LT-01xx).
    "dealer does not alternate": fake("dealer-stays"),
    # §3 "as leader or as follower, so also as the last to the trick": the follower's legal set and its raise,
    # as in the worked example's raise to 6 (LT-01xx).
    "follower may not raise": mutant("truc-follower-no-raise"),
    # §3 "No raise goes past 12": the answer at 12, without a raise in the legal set, and a raise to 14,
    # UNKNOWN_BID (LT-01xx).
    "raise past 12": mutant("truc-raise-past-12"),
    # §1 "Suits never count": a spoilt trick of two equal ranks in different suits (LT-00xx).
    "suits break a spoilt trick": fake("suits-count"),
}

# The case ids measured to catch each mistake (vitou certify --ruleset le-truc --impl ... --format json, the
# cases whose outcome is not passed): a change of the suite that loses one of them fails the test.
KILLED_BY: dict[str, list[str]] = {
    "weaker card wins": [
        "LT-0001",
        "LT-0002",
        "LT-0003",
        "LT-0004",
        "LT-0005",
        "LT-0006",
        "LT-0020",
        "LT-0021",
        "LT-0022",
        "LT-0023",
        "LT-0024",
        "LT-0025",
        "LT-0026",
        "LT-0027",
        "LT-0028",
        "LT-0030",
        "LT-0031",
        "LT-0033",
        "LT-0034",
        "LT-0035",
        "LT-0036",
        "LT-0039",
        "LT-0040",
        "LT-0041",
        "LT-0100",
        "LT-0102",
        "LT-0104",
        "LT-0106",
        "LT-0108",
        "LT-0110",
        "LT-0113",
        "LT-0119",
        "LT-0121",
        "LT-0122",
        "LT-0123",
        "LT-0124",
        "LT-0125",
        "LT-0126",
        "LT-0129",
        "LT-0130",
        "LT-0131",
        "LT-0132",
        "LT-0133",
        "LT-0134",
        "LT-0135",
        "LT-0136",
        "LT-0137",
        "LT-0138",
        "LT-0140",
        "LT-0143",
        "LT-0144",
        "LT-0145",
    ],
    "fold pays the raised stake": [
        "LT-0037",
        "LT-0038",
        "LT-0039",
        "LT-0042",
        "LT-0101",
        "LT-0103",
        "LT-0105",
        "LT-0107",
        "LT-0109",
        "LT-0111",
        "LT-0115",
        "LT-0118",
        "LT-0120",
        "LT-0124",
        "LT-0128",
        "LT-0134",
        "LT-0136",
        "LT-0138",
        "LT-0139",
        "LT-0142",
        "LT-0144",
        "LT-0145",
    ],
    "raise while one's own waits": [
        "LT-0118",
        "LT-0127",
    ],
    "follower leads after a spoilt trick": [
        "LT-0023",
        "LT-0028",
        "LT-0029",
        "LT-0039",
        "LT-0041",
        "LT-0141",
    ],
    "answerer plays after an accept": [
        "LT-0033",
        "LT-0035",
        "LT-0040",
        "LT-0041",
        "LT-0100",
        "LT-0104",
        "LT-0108",
        "LT-0114",
        "LT-0115",
        "LT-0116",
        "LT-0117",
        "LT-0119",
        "LT-0122",
        "LT-0123",
        "LT-0124",
        "LT-0125",
        "LT-0126",
        "LT-0127",
        "LT-0129",
        "LT-0131",
        "LT-0132",
        "LT-0133",
        "LT-0134",
        "LT-0138",
        "LT-0139",
        "LT-0140",
        "LT-0141",
        "LT-0144",
    ],
    "a card accepts a raise (Vitou's way)": [
        "LT-0031",
        "LT-0032",
        "LT-0033",
        "LT-0035",
        "LT-0036",
        "LT-0037",
        "LT-0038",
        "LT-0039",
        "LT-0040",
        "LT-0041",
        "LT-0042",
        "LT-0045",
        "LT-0100",
        "LT-0101",
        "LT-0102",
        "LT-0103",
        "LT-0104",
        "LT-0105",
        "LT-0106",
        "LT-0107",
        "LT-0108",
        "LT-0109",
        "LT-0110",
        "LT-0111",
        "LT-0112",
        "LT-0113",
        "LT-0114",
        "LT-0115",
        "LT-0116",
        "LT-0117",
        "LT-0118",
        "LT-0119",
        "LT-0120",
        "LT-0121",
        "LT-0122",
        "LT-0123",
        "LT-0124",
        "LT-0125",
        "LT-0126",
        "LT-0127",
        "LT-0128",
        "LT-0129",
        "LT-0130",
        "LT-0131",
        "LT-0132",
        "LT-0133",
        "LT-0134",
        "LT-0135",
        "LT-0136",
        "LT-0137",
        "LT-0138",
        "LT-0139",
        "LT-0140",
        "LT-0141",
        "LT-0142",
        "LT-0143",
        "LT-0144",
        "LT-0145",
    ],
    "no raise again": [
        "LT-0033",
        "LT-0037",
        "LT-0040",
        "LT-0041",
        "LT-0042",
        "LT-0045",
        "LT-0100",
        "LT-0101",
        "LT-0102",
        "LT-0103",
        "LT-0104",
        "LT-0105",
        "LT-0106",
        "LT-0107",
        "LT-0108",
        "LT-0109",
        "LT-0110",
        "LT-0111",
        "LT-0112",
        "LT-0113",
        "LT-0114",
        "LT-0115",
        "LT-0116",
        "LT-0117",
        "LT-0118",
        "LT-0119",
        "LT-0121",
        "LT-0122",
        "LT-0123",
        "LT-0124",
        "LT-0125",
        "LT-0126",
        "LT-0127",
        "LT-0128",
        "LT-0131",
        "LT-0132",
        "LT-0133",
        "LT-0134",
        "LT-0135",
        "LT-0136",
        "LT-0137",
        "LT-0138",
        "LT-0139",
        "LT-0140",
        "LT-0141",
        "LT-0142",
        "LT-0143",
        "LT-0144",
        "LT-0145",
    ],
    "match won at 11": [
        "LT-0034",
        "LT-0035",
        "LT-0036",
        "LT-0037",
        "LT-0041",
        "LT-0042",
        "LT-0143",
    ],
    "dealer does not alternate": [
        "LT-0001",
        "LT-0002",
        "LT-0022",
        "LT-0023",
        "LT-0024",
        "LT-0025",
        "LT-0026",
        "LT-0027",
        "LT-0028",
        "LT-0029",
        "LT-0030",
        "LT-0031",
        "LT-0033",
        "LT-0034",
        "LT-0035",
        "LT-0036",
        "LT-0037",
        "LT-0038",
        "LT-0039",
        "LT-0040",
        "LT-0041",
        "LT-0042",
        "LT-0100",
        "LT-0101",
        "LT-0102",
        "LT-0103",
        "LT-0104",
        "LT-0105",
        "LT-0106",
        "LT-0107",
        "LT-0108",
        "LT-0109",
        "LT-0110",
        "LT-0111",
        "LT-0113",
        "LT-0115",
        "LT-0118",
        "LT-0119",
        "LT-0120",
        "LT-0121",
        "LT-0122",
        "LT-0123",
        "LT-0124",
        "LT-0125",
        "LT-0128",
        "LT-0132",
        "LT-0133",
        "LT-0134",
        "LT-0135",
        "LT-0136",
        "LT-0137",
        "LT-0138",
        "LT-0139",
        "LT-0140",
        "LT-0141",
        "LT-0142",
        "LT-0143",
        "LT-0144",
        "LT-0145",
    ],
    "follower may not raise": [
        "LT-0001",
        "LT-0002",
        "LT-0017",
        "LT-0018",
        "LT-0019",
        "LT-0020",
        "LT-0021",
        "LT-0022",
        "LT-0023",
        "LT-0024",
        "LT-0026",
        "LT-0028",
        "LT-0030",
        "LT-0033",
        "LT-0038",
        "LT-0042",
        "LT-0043",
        "LT-0044",
        "LT-0046",
        "LT-0100",
        "LT-0102",
        "LT-0104",
        "LT-0106",
        "LT-0113",
        "LT-0119",
        "LT-0120",
        "LT-0121",
        "LT-0122",
        "LT-0126",
        "LT-0129",
        "LT-0130",
        "LT-0131",
        "LT-0133",
        "LT-0135",
        "LT-0136",
        "LT-0137",
        "LT-0139",
        "LT-0140",
        "LT-0141",
        "LT-0144",
        "LT-0145",
    ],
    "raise past 12": [
        "LT-0110",
        "LT-0111",
        "LT-0112",
        "LT-0113",
        "LT-0117",
        "LT-0118",
        "LT-0140",
    ],
    "suits break a spoilt trick": [
        "LT-0005",
        "LT-0006",
        "LT-0007",
        "LT-0022",
        "LT-0023",
        "LT-0027",
        "LT-0028",
        "LT-0029",
        "LT-0039",
        "LT-0041",
        "LT-0141",
    ],
}


def _le_truc_cases() -> int:
    return len(load_suite().applicable(RULESET))


@pytest.mark.parametrize("mistake", list(MISTAKES))
def test_certify_finds_the_mistake(mistake: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _le_truc_cases(), "the suite has no Le Truc case"
    status = main(["certify", "--ruleset", "le-truc", "--impl", MISTAKES[mistake], "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    (verdict,) = [v for v in doc["verdicts"] if v["kind"] == "rules"]
    failing = [c["id"] for c in doc["cases"] if c["outcome"] != "passed"]
    assert status == 1 and verdict["status"] == "not conformant", mistake
    assert set(KILLED_BY[mistake]) <= set(failing), f"{mistake}: no longer caught by {KILLED_BY[mistake]}"


@pytest.mark.parametrize("mistake", list(MISTAKES))
def test_fuzz_finds_the_mistake(mistake: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["fuzz", "--ruleset", "le-truc", "--impl", MISTAKES[mistake], "--seed", "3", "--examples", "3000"]
    assert main([*argv, "--save", str(tmp_path)]) == 1, mistake
    assert "DIVERGENCE at " in capsys.readouterr().out
    # Each shrunk case (one for each kind of divergence the mistake shows) is a fixture of the suite's format
    # that the reference passes and the mistake fails.
    saved = sorted(tmp_path.glob("*.yaml"))
    assert saved
    for one in saved:
        assert main(["certify", "--suite", str(one), "--ruleset", "le-truc"]) == 0
        assert main(["certify", "--suite", str(one), "--ruleset", "le-truc", "--impl", MISTAKES[mistake]]) == 1
        assert "NOT CONFORMANT" in capsys.readouterr().out  # a difference of codes alone: at the code level


def test_the_fake_refuses_an_unknown_mode() -> None:
    import subprocess

    proc = subprocess.run([sys.executable, str(FAKES), "nope"], check=False, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "no mode 'nope'" in proc.stderr
