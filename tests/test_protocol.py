"""Protocol v1, spoken by ``python -m vitou_ref.adapter`` as a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import SPEC, acts, deal

from vitou_ref import __version__, shipped_names
from vitou_ref.rules.schema import first_error


class Adapter:
    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "vitou_ref.adapter", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def ask(self, request: Any) -> Any:
        line = request if isinstance(request, str) else json.dumps(request)
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def stop(self) -> int:
        assert self.proc.stdin
        self.proc.stdin.write(json.dumps({"cmd": "stop"}) + "\n")
        self.proc.stdin.flush()
        return self.proc.wait(timeout=10)


@pytest.fixture
def adapter() -> Any:
    a = Adapter()
    yield a
    if a.proc.poll() is None:
        a.proc.kill()
        a.proc.wait()


SECTION_05 = {
    "cmd": "run",
    "seq": 7,
    "ruleset": "vitou/1.0.0",
    "setup": {"dealer": "W", "deals": [deal("N: AS 7H 8C | E: 9C KD JH | S: 10H QS 8D | W: 7C AD 9S")]},
    "actions": acts("N r3, N AS, E r6, E 9C, S refuse"),
}


def test_handshake_then_the_section_05_example_then_stop(adapter: Adapter) -> None:
    hello = adapter.ask({"cmd": "start", "protocol": 1})
    assert hello["protocol"] == 1
    assert hello["implementation"] == {"name": "vitou-ref", "version": __version__, "language": "python"}
    assert hello["rulesets"] == shipped_names()
    assert first_error(hello, "protocol/start-response") is None
    r = adapter.ask(SECTION_05)
    assert first_error(r, "protocol/run-response") is None
    assert r["seq"] == 7
    assert r["steps"][-1]["events"] == [
        {"event": "hand", "winner": "EW", "points": 3, "reason": "refusal", "score": {"NS": 0, "EW": 3}}
    ]
    assert r["final"] == {"score": {"NS": 0, "EW": 3}, "dealer": "N", "winner": None}
    assert adapter.stop() == 0


@pytest.mark.parametrize(
    ("request_line", "seq", "fragment"),
    [
        ("this is not json", None, "not JSON"),
        ("[1, 2]", None, "JSON object"),
        (json.dumps({"cmd": "dance", "seq": 3}), 3, "unknown cmd"),
        (json.dumps({"cmd": "start", "protocol": 2}), None, "not supported"),
        (json.dumps({**SECTION_05, "ruleset": "vitou/9.9.9"}), 7, "unknown ruleset"),
        (json.dumps({**SECTION_05, "seq": "x"}), None, "integer seq"),
        (
            json.dumps(
                {
                    **SECTION_05,
                    "setup": {"dealer": "W", "deals": [deal("N: AS AS 8C | E: 9C KD JH | S: 10H QS 8D | W: 7C AD 9S")]},
                }
            ),
            7,
            "dealt twice",
        ),
        (json.dumps({**SECTION_05, "setup": {"dealer": "Q", "deals": []}}), 7, "not a seat"),
        (json.dumps({**SECTION_05, "setup": {"deals": []}}), 7, "no dealer"),
        (json.dumps({**SECTION_05, "setup": {"dealer": "W"}}), 7, "needs deals"),
        (json.dumps({**SECTION_05, "actions": {}}), 7, "actions must be"),
        (
            json.dumps({**SECTION_05, "setup": {"dealer": "W", "deals": [], "score": {"NS": 25, "EW": 0}}}),
            7,
            "would be over",
        ),
    ],
)
def test_an_unusable_request_is_errored_and_the_process_keeps_serving(
    adapter: Adapter, request_line: str, seq: int | None, fragment: str
) -> None:
    r = adapter.ask(request_line)
    assert r["errored"] is True and r["seq"] == seq
    assert fragment in r["message"]
    assert first_error(r, "protocol/errored-response") is None
    assert adapter.ask(SECTION_05)["final"]["score"] == {"NS": 0, "EW": 3}


def test_an_empty_deal_list_ends_the_case_at_once(adapter: Adapter) -> None:
    r = adapter.ask({**SECTION_05, "setup": {"dealer": "W", "deals": []}})
    assert r["legal"] == [] and [s["error"] for s in r["steps"]] == ["NO_DEAL"] * 5
    assert r["final"] == {"score": {"NS": 0, "EW": 0}, "dealer": "W", "winner": None}


def test_rules_option_serves_another_file_under_its_own_id(tmp_path: Path) -> None:
    text = SPEC.read_text(encoding="utf-8").replace("  id: vitou\n", "  id: vitou-house\n", 1)
    path = tmp_path / "house.yaml"
    path.write_text(text, encoding="utf-8")
    a = Adapter("--rules", str(path))
    try:
        assert "vitou-house/1.0.0" in a.ask({"cmd": "start", "protocol": 1})["rulesets"]
        assert a.ask({**SECTION_05, "ruleset": "vitou-house/1.0.0"})["final"]["score"] == {"NS": 0, "EW": 3}
        assert a.stop() == 0
    finally:
        a.proc.kill()


def test_a_broken_rules_file_stops_the_adapter_with_a_located_message(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("format: 1\nruleset: [\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "vitou_ref.adapter", "--rules", str(path)],
        input="",
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 2
    assert f"{path}:" in proc.stderr and "YAML_SYNTAX" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_end_of_input_ends_the_process(adapter: Adapter) -> None:
    assert adapter.proc.stdin
    adapter.proc.stdin.close()
    assert adapter.proc.wait(timeout=10) == 0
