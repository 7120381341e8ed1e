"""--validate-protocol at each level: the schema holds a refusal to what the level judges (docs/reference/protocol.md, Levels)."""

from __future__ import annotations

import pytest
from test_outcome_level import certify, fake, rules_verdict  # the same run of the small suite, read the same way

from vitou_ref.rules.schema import first_error


@pytest.mark.parametrize("mode", ["nocodes-text", "nocodes-bare"])
def test_validating_the_protocol_at_the_outcome_level_takes_any_refusal(
    capsys: pytest.CaptureFixture[str], mode: str
) -> None:
    # docs/reference/protocol.md, Levels: at the outcome level a refusal passes whatever its error holds, schema or not.
    status, doc = certify(capsys, "--impl", fake(mode), "--level", "outcome", "--validate-protocol")
    v = rules_verdict(doc)
    assert status == 0 and v["status"] == "conformant"
    assert "at the outcome level" in v["line"]


def test_validating_the_protocol_at_the_code_level_still_requires_a_code(capsys: pytest.CaptureFixture[str]) -> None:
    status, doc = certify(capsys, "--impl", fake("nocodes-text"), "--validate-protocol")
    assert status == 1 and rules_verdict(doc)["status"] == "not conformant"
    (case,) = [c for c in doc["cases"] if c["outcome"] != "passed"]  # the small suite's one rejected step
    assert case["outcome"] == "errored" and "breaks the protocol schema" in case["reason"]
    assert "/error: 'that move is not allowed here' does not match" in case["reason"]


@pytest.mark.parametrize(
    "step",
    [
        {"ok": False, "error": "that move is not allowed here"},
        {"ok": False},
        {"ok": False, "error": None},
        {"ok": False, "error": 7, "message": "no"},
    ],
)
def test_the_schema_of_a_refusal_follows_the_level(step: dict) -> None:
    answer = {
        "seq": 1,
        "steps": [step],
        "legal": [],
        "final": {"score": {"NS": 0, "EW": 0}, "dealer": "N", "winner": None},
    }
    assert first_error(answer, "protocol/run-response", codes=False) is None
    assert first_error(answer, "protocol/run-response") is not None  # the code level: an error code, always
    coded = {**answer, "steps": [{"ok": False, "error": "CARD_NOT_IN_HAND"}]}
    assert first_error(coded, "protocol/run-response") is None
    # Only the refusal is loosened: an accepted step without its events breaks the schema at both levels.
    accepted = {**answer, "steps": [{"ok": True}]}
    assert first_error(accepted, "protocol/run-response", codes=False) is not None
