"""Envelope cases: raw protocol lines and their answers, each caught failing on an implementation sloppy in that way."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from vitou_ref.kit.caseresult import PASSED
from vitou_ref.kit.certify import Certifier, Options, Run
from vitou_ref.kit.envelope import EnvelopeCase, Line, envelope_cases, judge_answer, judge_exit, sentinel
from vitou_ref.kit.suite import load_suite
from vitou_ref.kit.verdicts import exit_status, render_json, render_text, verdicts
from vitou_ref.rules.errors import InputError
from vitou_ref.rules.model import freeze
from vitou_ref.rules.yamlsafe import load_text

HERE = Path(__file__).resolve().parent
SLOPPY = HERE / "fakes" / "sloppy_envelope.py"
UNDER = "vitou/1.1.0"

# Each mistake of tests/fakes/sloppy_envelope.py, and the envelope cases written to catch it (docs/reference/protocol.md
# says what each line must get; the case's comment says how). A mode may fail more cases than these.
CATCHES = {
    "seq_zero": {"VE-0001", "VE-0002", "VE-0003", "VE-0004", "VE-0005", "VE-0011"},
    "lenient_seq": {"VE-0011"},
    "answer_blank": {"VE-0007"},
    "keep_bom": {"VE-0007", "VE-0008", "VE-0032"},
    "first_key": {"VE-0008"},
    "strict_fields": {"VE-0008"},
    "unknown_cmd_null": {"VE-0009"},
    "lenient_start": {"VE-0010"},
    "float_seq": {"VE-0012"},
    "default_ruleset": {"VE-0013"},
    "accept_dealer": {"VE-0014"},
    "accept_deals": {"VE-0015", "VE-0026"},
    "accept_draw": {"VE-0016", "VE-0027"},
    "accept_score": {"VE-0017", "VE-0018", "VE-0023"},
    "strict_setup": {"VE-0021"},
    "whole_score": {"VE-0018", "VE-0022"},
    "null_score": {"VE-0023"},
    "split_cr": {"VE-0024"},
    "float_to": {"VE-0020"},
    "card_type": {"VE-0020"},
    "seat_str": {"VE-0019"},
    "crash_long": {"VE-0006"},
    "crash_deep": {"VE-0004"},
    "crash_bigint": {"VE-0005", "VE-0030"},
    "replace_utf8": {"VE-0002"},
    "nan_ok": {"VE-0001"},
    "unwrap_array": {"VE-0003"},
    "double": {"VE-0001", "VE-0003", "VE-0008"},
    "stop_serves_on": {"VE-0025"},
    "stop_exit_1": {"VE-0025"},
    "stop_seq": {"VE-0025"},
    "fgets_split": {"VE-0028"},
    "crash_at_64": {"VE-0029"},
    "underflow_range": {"VE-0031"},
    "strip_marks": {"VE-0032"},
    "start_seq": {"VE-0033"},
    "lenient_ruleset": {"VE-0034"},
}


def _certify(mode: str) -> Run:
    suite = load_suite(None)
    options = Options(argv=[sys.executable, str(SLOPPY), mode], label=mode, rulesets=[UNDER], timeout=5.0)
    return Certifier(suite, {}, options, envelope=[(c, UNDER) for c in suite.envelope]).run()


@pytest.fixture(scope="module")
def runs() -> dict[str, Run]:
    modes = ["good", *CATCHES]
    with ThreadPoolExecutor(4) as pool:
        return dict(zip(modes, pool.map(_certify, modes), strict=True))


def _not_passed(run: Run) -> set[str]:
    return {r.case.id for r in run.results if r.outcome != PASSED}


def test_an_implementation_right_on_the_envelope_passes_every_case(runs: dict[str, Run]) -> None:
    run = runs["good"]
    assert len(run.results) == len(load_suite(None).envelope) >= 20
    assert _not_passed(run) == set()


@pytest.mark.parametrize("mode", sorted(CATCHES))
def test_each_sloppy_implementation_is_caught(runs: dict[str, Run], mode: str) -> None:
    missed = CATCHES[mode] - _not_passed(runs[mode])
    assert not missed, f"{mode}: {sorted(missed)} passed on an implementation that {mode} breaks"


def test_every_envelope_case_catches_some_sloppy_implementation() -> None:
    ids = {c.id for c in load_suite(None).envelope}
    assert ids == set().union(*CATCHES.values())


def test_the_envelope_is_judged_apart_from_the_rules(runs: dict[str, Run]) -> None:
    run = runs["answer_blank"]
    vs = verdicts(run, {UNDER: None})
    envelope = [v for v in vs if v.kind == "envelope"]
    assert len(envelope) == 1 and envelope[0].status == "not conformant"
    assert exit_status(vs) == 1
    text = render_text(run, vs)
    assert "envelope under vitou/1.1.0 by topic" in text and "  blank: 0/1 cases" in text
    assert "NOT CONFORMANT envelope (protocol lines, under vitou/1.1.0)" in text
    doc = render_json(run, vs)
    assert [v["kind"] for v in doc["verdicts"]] == ["rules", "envelope"]
    assert doc["verdicts"][1]["by_topic"]["blank"] == {"passed": 0, "cases": 1}


def test_a_crash_is_told_from_a_failure(runs: dict[str, Run]) -> None:
    labels = {r.case.id: r.label for r in runs["crash_long"].results if r.outcome != PASSED}
    assert labels == {"VE-0006": "CRASH", "VE-0028": "CRASH"}  # its lines of 16 MiB, over and at the limit


def test_certify_runs_the_envelope_after_the_rules_cases() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "vitou_ref", "certify", "--only", "VT-0001,VE-0007", "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert [(c["id"], c.get("section")) for c in doc["cases"]] == [("VT-0001", None), ("VE-0007", "envelope")]


def test_a_failing_line_is_shown_whole_with_the_field_that_made_the_difference(runs: dict[str, Run]) -> None:
    # The stop line of VE-0025 carries "seq":70, which the process answered: the report shows it, not {"cmd":"stop"}.
    (stop,) = [r for r in runs["stop_seq"].results if r.outcome != PASSED]
    assert stop.reason is not None
    assert 'line 1 (json {"cmd":"stop","seq":70}) must get no answer; got {"seq": 70' in stop.reason
    # The lone CR of VE-0024's line 2 hides a second request near the end of a long line: its "seq":99 is shown.
    (split,) = [r for r in runs["seq_zero"].results if r.case.id == "VE-0024"]
    assert split.reason is not None and '"seq":99' in split.reason


def test_a_line_is_shown_whole_and_escaped() -> None:
    pad = "x" * 300
    line = Line("json", freeze({"cmd": "run", "pad": pad, "seq": 70}), freeze({"errored": True, "seq": 70}))
    got = judge_answer(line, b'{"seq":71,"errored":true,"message":"m"}', 0) or ""
    assert f'line 1 (json {{"cmd":"run","pad":"{pad}","seq":70}}): expected seq 70, got 71' == got
    hidden = Line("text", '{"cmd":"run","seq":1}\x1b[2K\u202e', freeze({"errored": True, "seq": None}))
    shown = judge_answer(hidden, b'{"seq":1,"errored":true,"message":"m"}', 0) or ""
    assert "\\x1b[2K\\u202e" in shown and "\x1b" not in shown and "\u202e" not in shown
    stop = Line("json", freeze({"cmd": "stop", "seq": 70}), freeze({"exit": 0}))
    assert 'line 1 (json {"cmd":"stop","seq":70}) must get no answer' in str(judge_exit(0, 0, b"{}", 10, stop))


# ------------------------------------------------------------------ the loader and the judge


def _load(text: str) -> list[object]:
    return list(envelope_cases(load_text(text, "e.yaml"), "e.yaml"))


HEAD = "format: 1\ntitle: t\nenvelope:\n  - id: VE-9000\n    title: t\n    topic: x\n    rulesets: [vitou/^1.0.0]\n"


def test_a_case_that_would_stop_the_process_is_refused_where_it_is() -> None:
    with pytest.raises(InputError) as info:
        _load(HEAD + "    send:\n      - {json: {cmd: stop}, answer: none}\n")
    (problem,) = info.value.problems
    assert problem.code == "ENVELOPE_STOP" and problem.line == 9


def test_a_stop_line_is_the_last_of_its_case_and_only_a_stop_line_is_answered_by_an_exit() -> None:
    (case,) = _load(
        HEAD + "    send:\n      - {text: '', answer: none}\n      - {json: {cmd: stop}, answer: {exit: 0}}\n"
    )
    assert isinstance(case, EnvelopeCase) and case.stops and case.lines[-1].exit_status == 0
    with pytest.raises(InputError) as info:
        _load(HEAD + "    send:\n      - {json: {cmd: stop}, answer: {exit: 0}}\n      - {text: '', answer: none}\n")
    assert [(p.code, p.line) for p in info.value.problems] == [("ENVELOPE_STOP", 9)]
    with pytest.raises(InputError) as info:
        _load(HEAD + "    send:\n      - {text: '', answer: {exit: 0}}\n")
    assert [(p.code, p.line) for p in info.value.problems] == [("ENVELOPE_STOP", 9)]
    with pytest.raises(InputError) as info:  # protocol.md: the process exits with status 0, no other
        _load(HEAD + "    send:\n      - {json: {cmd: stop}, answer: {exit: 1}}\n")
    assert {p.code for p in info.value.problems} == {"SCHEMA"}


def test_the_exit_at_stop_is_judged_by_its_status_and_its_silence() -> None:
    assert judge_exit(0, 0, b"", 10) is None
    assert "exited with status 1 at stop" in str(judge_exit(0, 1, b"", 10))
    assert "exited with status 255 at stop" in str(judge_exit(0, 255, b"", 10))
    assert "ended by signal 9" in str(judge_exit(0, -9, b"", 10))
    assert "still running 10 s after stop" in str(judge_exit(0, None, b"", 10))
    assert "must get no answer" in str(judge_exit(0, 0, b'{"seq":null,"errored":true}', 10))


def test_the_stop_case_runs_after_every_other_envelope_case() -> None:
    envelope = load_suite(None).envelope
    assert [c.id for c in envelope if c.stops] == ["VE-0025"]
    assert envelope[-1].id == "VE-0025"


def test_a_line_of_two_forms_or_a_bad_answer_is_refused_by_the_schema() -> None:
    with pytest.raises(InputError) as info:
        _load(HEAD + '    send:\n      - {text: "x", hex: "00", answer: none}\n      - {text: "x", answer: {seq: 1}}\n')
    assert {p.code for p in info.value.problems} == {"SCHEMA"}
    assert len(info.value.problems) >= 2


def test_lines_are_sent_as_written() -> None:
    fill = Line("fill", freeze({"head": "{", "byte": "[", "tail": "}", "size": 10}), "none")
    assert fill.to_bytes("r") == b"{[[[[[[[[}\n"
    text = Line("text", "\ufeff$ruleset", "none")
    assert text.to_bytes("vitou/1.1.0") == "\ufeffvitou/1.1.0\n".encode()
    js = Line("json", freeze({"ruleset": "$ruleset", "x": ["$ruleset", "$rulesets"]}), "none")
    assert js.to_bytes("a/1.0.0") == b'{"ruleset":"a/1.0.0","x":["a/1.0.0","$rulesets"]}\n'
    assert Line("hex", "ff 0a", "none").to_bytes("r") == b"\xff\n\n"
    assert sentinel(7) == b'{"cmd":"run","seq":7}\n'


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (b'{"seq":null,"errored":true,"message":"m"}', None),
        (b'{"seq":0,"errored":true,"message":"m"}', "expected seq null, got 0"),
        (b'{"errored":true,"message":"m"}', "expected seq null, got none"),
        (b'{"seq":null,"errored":1,"message":"m"}', "expected an errored answer"),
        (b'{"seq":null,"errored":true}', "message is a string"),
        (b'{"seq":null,"errored":true,"message":"' + b"m" * 1001 + b'"}', "at most 1000 characters"),
        (b"[]", "not a JSON object"),
        (b"nope", "not JSON"),
        (None, "got no answer"),
    ],
)
def test_an_errored_answer_is_judged_field_by_field(answer: bytes | None, why: str | None) -> None:
    line = Line("text", "x", freeze({"errored": True, "seq": None}))
    got = judge_answer(line, answer, 0)
    assert (got is None) if why is None else (got is not None and why in got)


def test_a_run_answer_is_judged_step_by_step() -> None:
    line = Line("text", "x", freeze({"seq": 5, "steps": ["ACTION_MALFORMED", "ok"]}))
    good = b'{"seq":5,"legal":[],"steps":[{"ok":false,"error":"ACTION_MALFORMED"},{"ok":true,"events":[]}],"final":{}}'
    assert judge_answer(line, good, 0) is None
    bad = good.replace(b"ACTION_MALFORMED", b"UNKNOWN_SEAT")
    assert "step 1: expected ACTION_MALFORMED" in (judge_answer(line, bad, 0) or "")
    seq_true = good.replace(b'"seq":5', b'"seq":true')
    assert "expected seq 5" in (judge_answer(line, seq_true, 0) or "")
    errored = b'{"seq":5,"errored":true,"message":"m"}'
    assert "got an errored answer" in (judge_answer(line, errored, 0) or "")
