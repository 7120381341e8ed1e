"""The pytest plugin: one test per case, in-process or through --vitou-impl."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]
SMALL = str(Path(__file__).parent / "data" / "small_suite.yaml")  # VT-0001..VT-0004
FAKE = Path(__file__).parent / "fakes" / "fake_impl.py"


def test_in_process_one_test_per_case(pytester: pytest.Pytester) -> None:
    pytester.makeconftest('pytest_plugins = ["vitou_ref.pytest_plugin"]')
    pytester.makepyfile(
        """
        import json
        from vitou_ref.adapter import build_server

        SERVER = build_server()

        def test_conformance(vitou_case, vitou_ruleset, vitou_check):
            answer = SERVER.handle(json.dumps(vitou_case.request(1, vitou_ruleset)))
            vitou_check(vitou_case, answer)
        """
    )
    # The cases are copied next to the tests: pytest takes its rootdir from path-like arguments.
    (pytester.path / "cases.yaml").write_text(Path(SMALL).read_text(encoding="utf-8"), encoding="utf-8")
    result = pytester.runpytest("--vitou-suite", "cases.yaml", "-v")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*test_conformance?VT-0001?*PASSED*"])


def test_through_an_implementation_command(pytester: pytest.Pytester) -> None:
    good = pytester.runpytest(
        "-p",
        "vitou_ref.pytest_plugin",
        "--vitou-impl",
        f"{sys.executable} -m vitou_ref.adapter",
        "--vitou-suite",
        SMALL,
    )
    good.assert_outcomes(passed=4)
    bad = pytester.runpytest(
        "-p", "vitou_ref.pytest_plugin", "--vitou-impl", f"{sys.executable} {FAKE} wrong 2", "--vitou-suite", SMALL
    )
    bad.assert_outcomes(passed=2, failed=2)
    bad.stdout.fnmatch_lines(["*VT-0002*", "*final state: expected*"])
