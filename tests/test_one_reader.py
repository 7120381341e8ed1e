"""Every number, version and address from outside goes through the one reader: bad input exits 2 naming it, never 3."""

from __future__ import annotations

import ast
import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

from vitou_ref.cli.main import main, parse_args
from vitou_ref.engine.tables import tables_for
from vitou_ref.rules import reader
from vitou_ref.rules.registry import load_rules_text, load_ruleset
from vitou_ref.rules.versions import parse_ref, parse_version
from vitou_ref.solve.line import principal_line
from vitou_ref.solve.solver import Solver

PACKAGE = ROOT / "vitou_ref"
FOUR_CARDS = ROOT / "conformance" / "settings" / "rulesets" / "setting-four-cards-1.0.0.yaml"
HUGE = "9" * 5000  # over the 4,300 digits int() converts, so it raised ValueError wherever it reached int()
HUGE_P = pytest.param(HUGE, id="5000-digits")
# Digits str.isdigit() says yes to: a superscript int() refuses, and Arabic-Indic digits int() silently reads as 12.
OTHER_SCRIPTS = ["²", "١٢", "٣", "３"]

# The shipped dispute 03 (conformance/disputes/03-raise-from-last.yaml), its first seat's key and W's bid left open.
# An explicit key ("? key"): YAML's implicit keys stop at 1024 characters.
RECORD = """\
format: 1
header:
  ruleset: vitou/1.0.0
  dealer: W
deals:
  - ? {n}
    : [AS, 7H, 8C]
    E: [9C, KD, JH]
    S: [10H, QS, 8D]
    W: [7C, AD, 9S]
actions: |
  N AS E 9C S 10H W {raise_}
"""


def _record(tmp_path: Path, *, n: str = "N", raise_: str = "r3", extra: str = "") -> str:
    path = tmp_path / "record.yaml"
    path.write_text(RECORD.format(n=n, raise_=raise_) + extra, encoding="utf-8")
    return str(path)


def _refused(capsys: pytest.CaptureFixture[str], *needles: str) -> str:
    err = capsys.readouterr().err
    assert "internal error" not in err
    for needle in needles:
        assert needle in err, err
    return err


# ------------------------------------------------------------------ the notation of actions


@pytest.mark.parametrize("level", [*OTHER_SCRIPTS, HUGE_P])
def test_a_raise_in_the_notation_is_written_in_ascii_digits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], level: str
) -> None:
    # docs/reference/records.md: "N r3" is a bid to the level 3 of the ladder. "W r²" crashed in int(); "W r١٢" was read as a
    # bid to 12, which nobody wrote. Both are now a notation problem at the group's line and column (12:21).
    assert main(["audit", _record(tmp_path, raise_=f"r{level}")]) == 2
    _refused(capsys, "NOTATION_ACTION", ":12:21:", "digits")


def test_a_raise_in_ascii_digits_still_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The dispute as shipped: W bids from last position, RAISE_FROM_LAST (clause bid.not_last): a ruling, exit 1.
    assert main(["audit", _record(tmp_path)]) == 1
    assert "RAISE_FROM_LAST" in capsys.readouterr().out


# ------------------------------------------------------------------ a record's seats and scores


@pytest.mark.parametrize("key", [*OTHER_SCRIPTS, HUGE_P])
def test_a_seat_of_a_deal_in_another_script_is_a_setup_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str
) -> None:
    # The setup's problem path "deals/0/²" was read back with str.isdigit() and int(): a crash.
    assert main(["audit", _record(tmp_path, n=json.dumps(key))]) == 2
    _refused(capsys, "RECORD_SETUP", "not a seat")


@pytest.mark.parametrize("key", [*OTHER_SCRIPTS, HUGE_P])
def test_a_side_of_the_score_in_another_script_is_a_setup_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str
) -> None:
    score = f"  dealer: W\n  score:\n    ? {json.dumps(key)}\n    : 1\n"
    record = RECORD.format(n="N", raise_="r3").replace("  dealer: W\n", score)
    path = tmp_path / "record.yaml"
    path.write_text(record, encoding="utf-8")
    assert main(["audit", str(path)]) == 2
    _refused(capsys, "RECORD_SETUP", "not a side")


# ------------------------------------------------------------------ --dispute


@pytest.mark.parametrize("ref", [*OTHER_SCRIPTS, HUGE_P, "-3", "+3", " 3"])
def test_a_dispute_number_is_written_in_ascii_digits(capsys: pytest.CaptureFixture[str], ref: str) -> None:
    # "٣" selected dispute 03 through int(); "²" and 5000 digits crashed in it.
    assert main(["audit", "--dispute", ref]) == 2
    _refused(capsys, "DISPUTE_UNKNOWN", "--dispute")


@pytest.mark.parametrize("ref", ["3", "03", "03-raise-from-last"])
def test_a_dispute_by_number_or_name(capsys: pytest.CaptureFixture[str], ref: str) -> None:
    assert main(["audit", "--dispute", ref]) == 1  # the shipped dispute 03 rules West's bid illegal
    assert "RAISE_FROM_LAST" in capsys.readouterr().out


# ------------------------------------------------------------------ option values


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--matches", "١٢"],
        ["simulate", "--matches", "²"],
        ["simulate", "--matches", HUGE],
        ["simulate", "--seed", "١"],
        ["simulate", "--first", "٣"],
        ["simulate", "--checkpoint", "1_000"],
        ["simulate", "--matches", " 12"],
        ["simulate", "--until-width", "٠.٥"],
        ["simulate", "--until-width", "1_0"],
        ["simulate", "--sprt", "١", "0.5"],
        ["simulate", "--sprt", "0.1", HUGE],
        ["analyze", "--sample", "١٢"],
        ["analyze", "--seed", "²"],
        ["fuzz", "--examples", "١٠"],
        ["certify", "--limit-cpu", "١٢"],
        ["certify", "--limit-open-files", "1_024"],
        ["certify", "--limit-memory", "٤G"],
        ["certify", "--limit-memory", HUGE],
        # Finite for float(), and too long for every clock: join(), sleep() and a deadline overflowed (exit 3).
        ["certify", "--timeout", "1e300"],
        ["simulate", "--scheduler-timeout", "1e300"],
        ["bench", "engine", "--seconds", "1e300"],
    ],
)
def test_option_values_take_ascii_digits_only(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    # int() and float() read "١٢" as 12 and "1_000" as 1000, and argparse passed them on.
    with pytest.raises(SystemExit) as stop:
        parse_args(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    option = next(a for a in reversed(argv) if a.startswith("--"))
    assert f"argument {option}:" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "field", "value"),
    [
        (["simulate", "--matches", "12"], "matches", 12),
        (["simulate", "--seed", str(2**63 - 1)], "seed", 2**63 - 1),
        (["simulate", "--until-width", "0.05"], "until_width", 0.05),
        (["simulate", "--until-width", "5e-2"], "until_width", 0.05),
        (["simulate", "--sprt", "-0.1", "0.1"], "sprt", [-0.1, 0.1]),
        (["certify", "--limit-memory", "512M"], "limit_memory", 512 << 20),
        (["certify", "--limit-cpu", "none"], "limit_cpu", None),
    ],
)
def test_option_values_in_ascii_digits_still_read(argv: list[str], field: str, value: object) -> None:
    assert getattr(parse_args(argv), field) == value


# ------------------------------------------------------------------ versions


def _rules_with_version(tmp_path: Path, version: str) -> Path:
    text = (ROOT / "spec" / "vitou-1.0.0.yaml").read_text(encoding="utf-8")
    path = tmp_path / "long-version.yaml"
    path.write_text(text.replace("  version: 1.0.0\n", f"  version: {version}\n", 1), encoding="utf-8")
    return path


@pytest.mark.parametrize("digits", [10, 3000, 5000])
def test_a_version_number_has_at_most_nine_digits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], digits: int
) -> None:
    # A version of 5000 digits passed spec check, then crashed certify, spec diff and the rulebook in int();
    # one of 3000 digits went through and was printed whole. Each number of a version is at most 9 digits.
    rules = _rules_with_version(tmp_path, "1" + "0" * (digits - 1) + ".0.0")
    assert main(["spec", "check", str(rules)]) == 1
    assert "at most 9 digits" in capsys.readouterr().out
    for argv in (
        ["certify", "--rules", str(rules)],
        ["spec", "diff", "vitou/1.0.0", str(rules)],
        ["rulebook", "--ruleset", str(rules)],
        ["analyze", "--ruleset", str(rules)],
    ):
        assert main(argv) == 2, argv
        _refused(capsys, "at most 9 digits")


def test_a_version_of_nine_digits_reads() -> None:
    text = (ROOT / "spec" / "vitou-1.0.0.yaml").read_text(encoding="utf-8")
    rules = load_rules_text(text.replace("  version: 1.0.0\n", "  version: 999999999.0.0\n", 1))
    assert rules.name == "vitou/999999999.0.0"
    assert parse_version("999999999.999999999.0") == (999999999, 999999999, 0)


@pytest.mark.parametrize("text", ["1" * 10 + ".0.0", "1.0." + HUGE, "1.².0", "1.٣.0"])
def test_parse_version_refuses_long_and_foreign_numbers(text: str) -> None:
    with pytest.raises(ValueError, match="version"):
        parse_version(text)
    with pytest.raises(ValueError):
        parse_ref(f"vitou/^{text}")


# ------------------------------------------------------------------ --scheduler

needs_dask = pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason="needs vitou[dask]")


@needs_dask
@pytest.mark.parametrize(
    "address",
    ["", "tcp://", "host", "tcp://:", "tcp://:8786", "[::1]:x", "foo://x:1", "tcp://h:99999", "h:0", "h:²", "h:٨٧"],
)
def test_a_scheduler_address_is_read_before_dask_sees_it(capsys: pytest.CaptureFixture[str], address: str) -> None:
    # Dask's own parser raised ValueError on these (an exit 3), and tcp://h:99999 waited 30 s to say so.
    assert main(["simulate", "--matches", "2", "--scheduler", address]) == 2
    _refused(capsys, "--scheduler")


def test_the_reader_reads_addresses() -> None:
    assert reader.address("127.0.0.1:8786") == reader.Address("tcp", "127.0.0.1", 8786)
    assert str(reader.address("tls://[::1]:1")) == "tls://[::1]:1"
    assert reader.address("scheduler.example:8786").host == "scheduler.example"


# ------------------------------------------------------------------ analyze: every trick count the schema allows


def test_analyze_solves_a_ruleset_of_four_tricks(capsys: pytest.CaptureFixture[str]) -> None:
    # The settings profile setting-four-cards plays four tricks; analyze crashed on "decided_in_4".
    assert main(["analyze", "--ruleset", str(FOUR_CARDS), "--sample", "6", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)["rulesets"][0]
    figures = doc["figures"]
    decided = [figures[f"decided_in_{k}"]["count"] for k in range(1, 5)]
    assert sum(decided) == doc["deals"]["count"] == 6  # every deal is decided after some trick, one to four
    assert figures["decided_in_1"]["count"] == 0  # fc.resolution has no row of one trick
    assert main(["analyze", "--ruleset", str(FOUR_CARDS), "--ruleset", "vitou/1.1.0", "--sample", "4"]) == 0
    out = capsys.readouterr().out
    assert "decided after four tricks" in out


# The brute force below is written from the rules text of setting-four-cards (which extends vitou/1.1.0), not from
# the tables the solver reads:
#   seats.partnerships, seats.direction: N, E, S, W clockwise; NS and EW partners; the next player is the next in
#     that order. play.first_lead: the player next to the dealer leads the first trick. play.any_card: any card held.
#   deck.rank_order: 10 9 A K Q J 8 7, high to low; trick.rank_only: the highest rank wins, suits count for nothing.
#   trick.winner_leads; trick.tie: two or more cards of the highest rank tie the trick, even partners' (clarification
#     1), and the leader of a tied trick leads the next.
#   fc.resolution: the side that wins more of the four tricks wins the hand; as many on each side, the side that won
#     the earliest won trick; four tied, nobody. Play stops once the tricks so far make the winner certain: that
#     changes when play stops, never who wins, so every trick is played out here and the winner read at the end.
# "Decided in k" (analyze's figure) is how soon the winner can force the stop: the fewest k such that the winner can
# play so that, whatever the loser does, after k tricks the results so far make the winner certain.
SEATS, NS, RANKS = "NESW", (0, 2), ["10", "9", "A", "K", "Q", "J", "8", "7"]
TRICKS = 4


def _strength(card: str) -> int:
    return -RANKS.index(card[:-1])


def _winner(results: tuple[str, ...]) -> str | None:
    """fc.resolution on a full or partial list of trick results ("NS", "EW", "T"): None for nobody (yet)."""
    won = [r for r in results if r != "T"]
    if not won:
        return None
    ns, ew = won.count("NS"), won.count("EW")
    return "NS" if ns > ew else "EW" if ew > ns else won[0]


def _certain(results: tuple[str, ...]) -> str | None:
    """The side every way of ending the hand gives it to, once these tricks are played; None if none is certain."""
    ends = [results]
    for _ in range(TRICKS - len(results)):
        ends = [e + (r,) for e in ends for r in ("NS", "EW", "T")]
    winners = {_winner(e) for e in ends}
    return next(iter(winners)) if len(winners) == 1 else None


Hands = tuple[tuple[str, ...], ...]
Goal = tuple[str, int] | None


def _play(hands: Hands, leader: int, results: tuple[str, ...], goal: Goal) -> int:
    """Minimax for NS (+1 NS wins, 0 nobody, -1 EW) over every card, or, with ``goal`` = (side, k), 1 if ``side``
    can force the winner certain after at most k tricks and 0 if not."""
    if goal is not None:
        side, k = goal
        if _certain(results) == side:
            return 1
        if len(results) == k:
            return 0
    elif len(results) == TRICKS:
        w = _winner(results)
        return 0 if w is None else 1 if w == "NS" else -1
    return _trick(hands, leader, results, (), goal)


def _trick(hands: Hands, leader: int, results: tuple[str, ...], played: tuple[str, ...], goal: Goal) -> int:
    if len(played) == 4:
        top = max(_strength(c) for c in played)
        at = [i for i, c in enumerate(played) if _strength(c) == top]
        if len(at) > 1:
            return _play(hands, leader, (*results, "T"), goal)
        winner = (leader + at[0]) % 4
        return _play(hands, winner, (*results, "NS" if winner in NS else "EW"), goal)
    seat = (leader + len(played)) % 4
    maxing = (seat in NS) if goal is None else ("NS" if seat in NS else "EW") == goal[0]
    best, stop = (-2, 1) if maxing else (2, -1 if goal is None else 0)
    for card in hands[seat]:
        rest = tuple(c for c in hands[seat] if c != card)
        v = _trick((*hands[:seat], rest, *hands[seat + 1 :]), leader, results, (*played, card), goal)
        best = max(best, v) if maxing else min(best, v)
        if best == stop:
            break
    return best


def test_the_solver_on_four_tricks_is_the_brute_force_of_the_rules_text() -> None:
    t = tables_for(load_ruleset(FOUR_CARDS))
    assert (t.seat_ids, t.side_ids, t.tricks, t.cards_each) == (tuple(SEATS), ("NS", "EW"), 4, 4)
    rng = random.Random(4)
    pack = [t.card(c).text for c in t.deck]
    for n in range(6):
        cards = rng.sample(pack, 16)
        hands = tuple(tuple(cards[4 * i : 4 * i + 4]) for i in range(4))
        dealer = n % 4
        leader = (dealer + 1) % 4  # play.first_lead: next to the dealer
        want = _play(hands, leader, (), None)
        solver = Solver(t, dealer)
        ids = [[next(c for c in t.deck if t.card(c).text == code) for code in h] for h in hands]
        line = principal_line(solver, solver.position(ids, t.first_leader[dealer]))
        assert line.value == want, (hands, dealer)
        if want:
            side = "NS" if want > 0 else "EW"
            soonest = next(k for k in range(1, TRICKS + 1) if _play(hands, leader, (), (side, k)))
            assert line.tricks == soonest, (hands, dealer)


# ------------------------------------------------------------------ one reader: the grep that keeps it so

NUMERIC_TESTS = {"isdigit", "isdecimal", "isnumeric"}
CONVERSIONS = {"int", "float", "Decimal", "Fraction", "complex"}  # each takes "١٢" or "1_0" as a number
# int() and float() calls outside the reader whose argument is no text from outside, each with why. Everything else
# that reads a number from a text goes through vitou_ref/rules/reader.py.
ALLOWED = {
    ("_limitoptions.py", "int(m.group(1))"): "a leaf that imports nothing of vitou: after an ASCII-digit fullmatch",
    ("_limitoptions.py", "int(text)"): "a leaf that imports nothing of vitou: after an ASCII-digit fullmatch",
    ("protocol/supervise.py", "int(fields[1])"): "the kernel's /proc/PID/stat",
    ("protocol/supervise.py", "int(fields[2])"): "the kernel's /proc/PID/stat",
    ("protocol/supervise.py", "int(fields[3])"): "the kernel's /proc/PID/stat",
    ("protocol/supervise.py", "int(fields[19])"): "the kernel's /proc/PID/stat",
    ("protocol/supervise.py", "int(name)"): "a /proc entry the kernel names by its pid",
    ("protocol/supervise.py", "name.isdigit()"): "a /proc entry the kernel names by its pid",
    ("protocol/wire.py", "float(text)"): "the JSON scanner's parse_float: the text of a JSON number",
    ("protocol/wire.py", "int(text)"): "the JSON scanner's parse_int: a JSON integer's ASCII digits, counted first",
    ("rules/yamlsafe.py", "int(digits, base)"): "the YAML reader's integers, their length checked on the text first",
    ("rules/bidchecks.py", "int(level.value)"): "a ladder value the schema made an integer",
    ("rules/bidchecks.py", "int(prev)"): "a ladder value the schema made an integer",
    ("present/escape.py", "s[0].isdigit()"): "Markdown escaping: whether a line starts as a list number, no reading",
    ("hunt/fuzzshrink.py", "int(d.where.split()[1])"): "a divergence's place, 'step N', written by the fuzzer",
    ("hunt/fuzzcases.py", "int(self.where.split()[1])"): "a divergence's place, 'step N', written by the fuzzer",
    ("kit/envelope.py", "int(self.value['size'])"): "an envelope case's size, an integer by its schema",
    ("sim/figures.py", "int(h.points)"): "an engine event's points at twenty: an int",
    ("sim/figures.py", "int(self.saw_twenty)"): "a bool counted as 0 or 1",
    ("sim/figures.py", "int(self.saw_tt)"): "a bool counted as 0 or 1",
    ("players/search.py", "float(obs.target if e.winner == obs.side else -obs.target)"): "the target, an int",
    ("cli/main.py", "int(exc.code)"): "argparse's exit status, an int",
    ("cli/progress.py", "int(seconds)"): "a duration the clock measured",
}


def _no_text(node: ast.expr) -> bool:
    """Whether an argument of int()/float() cannot be a text: arithmetic, a comparison, a literal we wrote."""
    if isinstance(node, ast.Constant):
        return True  # float("-inf"), int(3): written here
    if isinstance(node, ast.JoinedStr):
        return True  # float(f"{p:.4g}"): formatted here from a number
    return isinstance(node, (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare))


def readings(package: Path) -> list[tuple[str, str, int]]:
    """Every int(), float() (and kin) of a possible text and every str digit test outside the reader."""
    found = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        if rel == "rules/reader.py" or "_data" in path.parts:
            continue
        calls: dict[int, ast.Call] = {}  # each call by its function's node: a digit test is shown with its call
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                calls[id(node.func)] = node
                name = node.func.id if isinstance(node.func, ast.Name) else ""
                # int(text, base) reads a text; Fraction(a, b) and complex(re, im) take two numbers.
                conversion = name in CONVERSIONS and (len(node.args) == 1 or (name == "int" and node.args))
                if conversion and not (len(node.args) == 1 and _no_text(node.args[0])):
                    found.append((rel, ast.unparse(node), node.lineno))
            # str.isdigit and its kin, called or passed as a function (filter(str.isdigit, names)).
            elif isinstance(node, ast.Attribute) and node.attr in NUMERIC_TESTS:
                found.append((rel, ast.unparse(calls.get(id(node), node)), node.lineno))
    return found


def test_every_number_from_outside_is_read_by_the_reader() -> None:
    found = readings(PACKAGE)
    unexplained = [f"vitou_ref/{rel}:{line}: {call}" for rel, call, line in found if (rel, call) not in ALLOWED]
    assert unexplained == [], "read it with vitou_ref.rules.reader:\n" + "\n".join(unexplained)
    # The allow-list holds only what is still there: a use that went away takes its entry with it.
    left = {(rel, call) for rel, call, _ in found}
    assert set(ALLOWED) <= left, sorted(set(ALLOWED) - left)


@pytest.mark.parametrize(
    "line",
    [
        "n = int(text)",
        "x = float(words[1])",
        "ok = token.isdigit()",
        "ok = part.isdecimal()",
        "ok = s.isnumeric()",
        "keep = list(filter(str.isdigit, names))",
        "d = Decimal(cell)",
    ],
)
def test_the_grep_catches_a_new_reading(tmp_path: Path, line: str) -> None:
    package = tmp_path / "vitou_ref"
    for room in ("audit", "rules"):
        (package / room).mkdir(parents=True)
    (package / "audit" / "x.py").write_text(f"{line}\n", encoding="utf-8")
    (package / "rules" / "reader.py").write_text(f"{line}\n", encoding="utf-8")  # the reader itself may
    assert [(rel, n) for rel, _, n in readings(package)] == [("audit/x.py", 1)]


@pytest.mark.parametrize(
    "line", ["i = int(rnd() * n)", "x = float('-inf')", "b = int(a == b)", "p = float(f'{p:.4g}')"]
)
def test_the_grep_lets_arithmetic_through(tmp_path: Path, line: str) -> None:
    package = tmp_path / "vitou_ref"
    (package / "audit").mkdir(parents=True)
    (package / "audit" / "x.py").write_text(f"{line}\n", encoding="utf-8")
    assert readings(package) == []


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--vitou-timeout", "١٢"),  # float() reads it as 12
        ("--vitou-timeout", "nan"),  # float() reads it, and no deadline is ever reached
        ("--vitou-start-timeout", "inf"),
        ("--vitou-max-restarts", "３"),  # int() reads it as 3
        ("--vitou-max-restarts", "-1"),
    ],
)
def test_the_plugins_numbers_are_read_by_the_one_reader(option: str, value: str, tmp_path: Path) -> None:
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_one.py", option, value],
        check=False,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 4, done.stdout + done.stderr  # pytest's usage error, before anything runs
    assert f"argument {option}:" in done.stderr
