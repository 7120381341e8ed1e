"""Whatever a peer answers, the protocol client and the certifier reach a verdict: never another exception."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vitou_ref import load_ruleset
from vitou_ref.engine.tables import tables_for
from vitou_ref.kit.caseresult import ERRORED, FAILED, PASSED
from vitou_ref.kit.certify import Certifier, HarnessError, Options
from vitou_ref.kit.suite import load_suite
from vitou_ref.protocol.client import Client, handshake_problem
from vitou_ref.protocol.connection import Fault, said_text
from vitou_ref.protocol.server import run_case

SMALL = str(Path(__file__).parent / "data" / "small_suite.yaml")
SUITE = load_suite(SMALL)
CASES = SUITE.applicable("vitou/1.0.0")
TABLES = tables_for(load_ruleset("vitou/1.0.0"))
GOOD_HELLO = {
    "protocol": 1,
    "implementation": {"name": "x", "version": "1", "language": "y"},
    "rulesets": ["vitou/1.0.0"],
}


class ScriptedConnection:
    """Stands in for a process: answers start with ``hello`` and each run with the next of ``answers``."""

    def __init__(self, hello: bytes, answers: list[bytes]) -> None:
        self.proc = object()  # "running"
        self.hello = hello
        self.answers = list(answers)
        self.killed = False

    def exchange(self, line: bytes, timeout: float) -> bytes:
        if b'"start"' in line:
            return self.hello
        return self.read_line(timeout)

    def write_all(self, data: bytes, timeout: float) -> None:
        return None

    def read_line(self, timeout: float) -> bytes:
        if not self.answers:
            raise Fault("exited", "no more answers")
        return self.answers.pop(0)

    def pending_output(self) -> bool:
        return False

    def stderr_tail(self, limit: int = 2000) -> str:
        return ""

    def said(self, printed: bytes = b"") -> str:
        return said_text(printed, "")  # a script has no stderr, and nothing left unread

    def kill(self) -> None:
        self.killed = True
        self.proc = None  # type: ignore[assignment]

    def close(self, stop_line: bytes | None = None, grace: float = 1.0) -> None:
        self.kill()


def _certify(hello: bytes, answers: list[bytes]) -> list[str]:
    conn = ScriptedConnection(hello, answers)
    options = Options(argv=["unused"], label="scripted", rulesets=["vitou/1.0.0"], max_restarts=0)
    certifier = Certifier(SUITE, {"vitou/1.0.0": CASES}, options, started=conn)  # type: ignore[arg-type]
    try:
        run = certifier.run()
    except HarnessError:
        assert conn.killed  # a refused handshake leaves nothing running
        return ["harness-error"]
    assert conn.killed
    return [r.outcome for r in run.results]


def _reference(seq: int, i: int) -> dict[str, Any]:
    case = CASES[i]
    return run_case(TABLES, case.request(seq, "vitou/1.0.0")["setup"], case.request(seq, "vitou/1.0.0")["actions"], seq)


def _line(value: Any) -> bytes:
    return json.dumps(value).encode()


scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    scalars,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=4),
    max_leaves=20,
)


def _replace_leaf(value: Any, path: list[int], new: Any) -> Any:
    """``value`` with the leaf that ``path`` picks (indices taken modulo each container's size) replaced by ``new``."""
    if not path or not isinstance(value, (dict, list)) or not value:
        return new
    if isinstance(value, dict):
        key = sorted(value)[path[0] % len(value)]
        return {**value, key: _replace_leaf(value[key], path[1:], new)}
    i = path[0] % len(value)
    return [*value[:i], _replace_leaf(value[i], path[1:], new), *value[i + 1 :]]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 50), max_size=8), json_values)
def test_a_corrupted_answer_is_never_passed_nor_a_crash(path: list[int], new: Any) -> None:
    """Take the reference's own answer to the first case and put anything anywhere in it."""
    good = _reference(1, 0)
    bad = _replace_leaf(good, path, new)
    rest = [_line(_reference(i + 1, i)) for i in range(1, len(CASES))]
    outcomes = _certify(_line(GOOD_HELLO), [_line(bad), *rest])
    assert set(outcomes) <= {PASSED, FAILED, ERRORED}
    if outcomes[0] == PASSED:
        # Passing is right only when the answer is still the same JSON, types included.

        assert _extends(bad, good)


def _extends(bad: Any, good: Any) -> bool:
    """``bad`` is ``good``, types included, but for keys it adds to objects (protocol v1: fields may be added)."""
    from vitou_ref.protocol.wire import same

    if isinstance(good, dict):
        return isinstance(bad, dict) and all(k in bad and _extends(bad[k], v) for k, v in good.items())
    if isinstance(good, list):
        return isinstance(bad, list) and len(bad) == len(good) and all(map(_extends, bad, good))
    return same(bad, good)


@settings(max_examples=150, deadline=None)
@given(json_values | st.binary(max_size=40).map(lambda b: ("RAW", b)))
def test_any_answer_line_gets_a_verdict(answer: Any) -> None:
    line = answer[1] if isinstance(answer, tuple) and answer[:1] == ("RAW",) else _line(answer)
    outcomes = _certify(_line(GOOD_HELLO), [line])
    assert outcomes[0] in (FAILED, ERRORED)


@settings(max_examples=200, deadline=None)
@given(json_values, st.sampled_from(["protocol", "rulesets", "implementation", None]))
def test_any_handshake_gets_a_verdict(value: Any, field: str | None) -> None:
    hello = value if field is None else {**GOOD_HELLO, field: value}
    outcomes = _certify(_line(hello), [_line(_reference(i + 1, i)) for i in range(len(CASES))])
    problem = handshake_problem(hello)
    # A usable handshake that offers none of the rulesets asked cannot be run either: nothing can be asked of it.
    unusable = problem is not None or "vitou/1.0.0" not in hello["rulesets"]
    assert (outcomes == ["harness-error"]) == unusable


@pytest.mark.parametrize(
    "line",
    [
        b"[" * 100_000 + b"]" * 100_000,
        b'{"seq":1,"x":' + b"[" * 5000 + b"]" * 5000 + b"}",
        b'{"seq":' + b"9" * 5000 + b"}",
        b'{"seq":1.0,"legal":[],"steps":[],"final":{}}',
        b'{"seq":true,"legal":[],"steps":[],"final":{}}',
        b'{"seq":NaN}',
        b"\xff\xfe",
        b"",
    ],
)
def test_hostile_lines_are_faults_of_their_own_kind(line: bytes) -> None:
    client = Client(["unused"], connection=ScriptedConnection(_line(GOOD_HELLO), [line]))  # type: ignore[arg-type]
    client.start()
    with pytest.raises(Fault) as caught:
        client.exchange(b"{}\n", client.next_seq())
    assert caught.value.kind in ("json", "depth", "encoding", "number", "seq", "not_object")


@pytest.mark.parametrize(
    ("hello", "why"),
    [
        ({**GOOD_HELLO, "protocol": True}, "'protocol' is true, not the integer 1"),
        ({**GOOD_HELLO, "protocol": 1.0}, "'protocol' is 1.0, not the integer 1"),
        ({**GOOD_HELLO, "protocol": "1"}, "'protocol' is \"1\", not the integer 1"),
        ({**GOOD_HELLO, "rulesets": "vitou/1.0.0"}, "'rulesets' is \"vitou/1.0.0\", not a list of ruleset names"),
        ({**GOOD_HELLO, "rulesets": None}, "'rulesets' is null, not a list of ruleset names"),
        ({**GOOD_HELLO, "implementation": []}, "'implementation' is an array, not an object"),
        ([1], "not a JSON object but an array"),
    ],
)
def test_the_handshake_is_checked_field_by_field(hello: Any, why: str) -> None:
    assert handshake_problem(hello) == why
