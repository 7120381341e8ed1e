"""Every bound the protocol sets on an answer is judged, named with what was seen; no answer, however hostile, crashes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT

from vitou_ref.hunt.fuzzcases import Case as FuzzCase
from vitou_ref.hunt.fuzzcases import compare as fuzz_compare
from vitou_ref.kit.answerbounds import MAX_MESSAGE, message_breach
from vitou_ref.kit.caseresult import FAILED, PASSED
from vitou_ref.kit.certify import Certifier, Options, Run
from vitou_ref.kit.suite import load_suite
from vitou_ref.kit.verdicts import verdicts
from vitou_ref.protocol import wire
from vitou_ref.protocol.connection import Connection, Fault

WORDY = ROOT / "tests" / "fakes" / "wordy_errors.py"
UNDER = "vitou/1.1.0"
SETUP_CASE = "VT-0392"  # a card dealt twice: the setup cannot be used, and the answer is errored
PLAYED_CASE = "VT-0001"  # an ordinary case, answered without an error
ENVELOPE_CASES = ("VE-0007", "VE-0009")  # blank lines (no answer but the sentinel's), and an unknown cmd (errored)


def _errored(message: Any) -> dict[str, Any]:
    return {"seq": 1, "errored": True, "message": message}


# ------------------------------------------------------------------ the bounds of a message


@pytest.mark.parametrize(
    "message",
    ["", "m", "m" * MAX_MESSAGE, "setup: the card \\x07 is not a card", "é ü \u2028 \u200e \U0001f0a1", "x\\n"],
)
def test_a_message_within_the_bounds_passes(message: str) -> None:
    # Control characters shown as text (\x07), letters of any script and the format characters are no breach:
    # the bound is on control characters (Unicode's Cc) raw in the message.
    assert message_breach(_errored(message)) is None


def test_a_message_over_1000_characters_is_named_with_its_length() -> None:
    breach = message_breach(_errored("m" * (MAX_MESSAGE + 1)))
    assert breach is not None
    assert (breach.bound, breach.seen) == ("at most 1000 characters", "1001 characters")
    assert "at most 1000 characters; got 1001" in breach.sentence


@pytest.mark.parametrize(("char", "code"), [("\x00", "0000"), ("\x07", "0007"), ("\t", "0009"), ("\n", "000A"),
                                             ("\x1b", "001B"), ("\x7f", "007F"), ("\x85", "0085"), ("\x9f", "009F")])  # fmt: skip
def test_a_raw_control_character_is_named_with_its_place(char: str, code: str) -> None:
    breach = message_breach(_errored("ab" + char + "cd"))
    assert breach is not None
    assert breach.seen == f"a raw U+{code} at character 3 of 5"
    assert "control characters escaped" in breach.sentence


@pytest.mark.parametrize(
    ("answer", "seen"),
    [
        ({"seq": 1, "errored": True}, "none"),
        (_errored(None), "null"),
        (_errored(3000), "a number"),
        (_errored(True), "a boolean"),
        (_errored(1e300), "a number"),
        (_errored(["m"] * 5), "an array"),
        (_errored({"text": "m"}), "an object"),
    ],
)
def test_a_message_that_is_no_string_is_named_by_its_type(answer: dict[str, Any], seen: str) -> None:
    breach = message_breach(answer)
    assert breach is not None and (breach.bound, breach.seen) == ("a string", seen)


@pytest.mark.parametrize("answer", [None, [], "errored", {"seq": 1, "legal": []}, {"errored": 1, "message": 5}])
def test_only_an_errored_answer_is_held_to_the_bounds_of_a_message(answer: Any) -> None:
    assert message_breach(answer) is None


# ------------------------------------------------------------------ the bounds of a line


def test_integers_are_bounded_at_4300_digits_whatever_python_allows(monkeypatch: pytest.MonkeyPatch) -> None:
    # The bound is the protocol's, not the interpreter's: PYTHONINTMAXSTRDIGITS=0 lifts Python's own.
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        assert wire.loads('{"seq":-' + "9" * 4300 + "}", strict=True)["seq"] == -int("9" * 4300)
        with pytest.raises(wire.WireError, match="an integer of 4301 digits, over 4300"):
            wire.loads('{"seq":' + "9" * 4301 + "}", strict=True)
        with pytest.raises(wire.WireError, match="an integer of 100000 digits, over 4300"):
            wire.loads("[" + "1" * 100_000 + "]")
    finally:
        sys.set_int_max_str_digits(old)


@pytest.mark.parametrize(("text", "depth"), [("[" * 65 + "]" * 65, 65), ('{"a":' * 70 + "1" + "}" * 70, 70),
                                             ("[" * 50_000 + "]" * 50_000, 50_000), ("[" * 3000, 3000)])  # fmt: skip
def test_nesting_past_64_levels_is_named_with_its_depth(text: str, depth: int) -> None:
    with pytest.raises(wire.WireError, match=f"nested {depth} levels deep, deeper than 64"):
        wire.loads(text, strict=True)


def test_brackets_inside_strings_do_not_nest() -> None:
    assert wire.depth_of('["[[[", "\\"[{", [[]]]') == 3
    assert wire.loads('["' + "[" * 100 + '"]') == ["[" * 100]


def _printer(data: bytes) -> list[str]:
    return [sys.executable, "-c", f"import sys; sys.stdout.buffer.write({data!r}); sys.stdout.flush(); input()"]


@pytest.mark.parametrize(
    ("size", "newline", "seen"),
    [
        (100, True, "100 bytes before its newline"),
        (100_000, True, "read, no newline"),
        (100_000, False, "read, no newline"),
    ],
)
def test_a_line_over_the_bound_is_refused_with_its_length_even_when_its_newline_came_with_it(
    size: int, newline: bool, seen: str
) -> None:
    # The bound is exact: a line past it whose newline came in the same read was taken whole before.
    conn = Connection(_printer(b"x" * size + (b"\n" if newline else b"")), max_line=50)
    conn.open()
    try:
        with pytest.raises(Fault) as info:
            conn.read_line(10.0)
        assert info.value.kind == "too_long"
        assert "a response line is over 50 bytes: " in info.value.message and seen in info.value.message
    finally:
        conn.kill()
    ok = Connection(_printer(b"x" * 50 + b"\n"), max_line=50)
    ok.open()
    try:
        assert ok.read_line(10.0) == b"x" * 50
    finally:
        ok.kill()


# ------------------------------------------------------------------ what certify, fuzz and the plugin make of them


def _certify(mode: str) -> Run:
    suite = load_suite(None)
    rules = [c for c in suite.applicable(UNDER) if c.id in (SETUP_CASE, PLAYED_CASE)]
    envelope = [(c, UNDER) for c in suite.envelope if c.id in ENVELOPE_CASES]
    options = Options([sys.executable, str(WORDY), mode], mode, [UNDER], timeout=5.0, max_restarts=0)
    return Certifier(suite, {UNDER: rules}, options, envelope=envelope).run()


@pytest.mark.parametrize(
    ("mode", "bound", "seen"),
    [
        ("long", "at most 1000 characters", "3000 characters"),
        ("huge", "at most 1000 characters", "4000000 characters"),
        ("control", "control characters kept escaped", "a raw U+0007 at character"),
        ("newline", "control characters kept escaped", "a raw U+000A at character 9"),
        ("number", "a string", "a number"),
        ("deep", "a string", "an array"),
        ("none", "a string", "null"),
        ("missing", "a string", "none"),
    ],
)
def test_an_errored_answer_past_a_bound_fails_its_case_naming_the_bound_and_what_was_seen(
    mode: str, bound: str, seen: str
) -> None:
    run = _certify(mode)
    outcome = {r.case.id: r for r in run.results}
    assert outcome[PLAYED_CASE].outcome == PASSED  # right on the game: only its errored answers break a bound
    failed = outcome[SETUP_CASE]
    assert failed.outcome == FAILED and failed.difference is not None
    assert (failed.difference.where, failed.difference.what) == ("answer", "envelope, an errored answer's message")
    assert bound in failed.reason and seen in failed.reason, failed.reason  # type: ignore[operator]
    # The envelope judges its own errored lines alike, and the sentinel only counts answers: no line is waited for.
    assert outcome["VE-0009"].outcome == FAILED and outcome["VE-0007"].outcome == PASSED
    assert run.restarts == 0 and run.fatal is None
    assert all(not v.ok for v in verdicts(run, {}))


def test_the_same_engine_with_its_messages_within_the_bounds_passes() -> None:
    run = _certify("good")
    assert [r.outcome for r in run.results] == [PASSED] * 4


@pytest.mark.parametrize("mode", ["long", "control"])
def test_certify_says_not_conformant_naming_the_bound_and_the_length(mode: str, tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "vitou_ref", "certify", "--impl", f"{sys.executable} {WORDY} {mode}"]
    argv += ["--ruleset", UNDER, "--only", SETUP_CASE, "--only", PLAYED_CASE, "--only", "VE-0009"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=tmp_path, check=False)
    assert done.returncode == 1, done.stderr
    assert f"NOT CONFORMANT {UNDER}: 1/2 cases (1 failed)" in done.stdout
    assert "NOT CONFORMANT envelope" in done.stdout
    if mode == "long":
        assert 'expected "at most 1000 characters", got "3000 characters"' in done.stdout
    else:
        assert 'expected "control characters kept escaped (none raw)", got "a raw U+0007 at character' in done.stdout


def test_fuzz_holds_an_errored_answer_to_the_same_bounds() -> None:
    case = FuzzCase({"dealer": "W", "deals": []}, [])
    reference = {"seq": 1, "errored": True, "message": "setup: ..."}
    assert fuzz_compare(case, reference, _errored("setup: a card dealt twice")) is None
    found = fuzz_compare(case, reference, _errored("m" * 3000))
    assert found is not None and found.where == "envelope, an errored answer's message"
    assert 'expected "at most 1000 characters", got "3000 characters"' in found.describe()
