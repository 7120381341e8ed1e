"""The pytest plugin: one test per case, in-process or through --vitou-impl; loaded by its entry point, inert unless asked."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# After each in-process run, pytester puts sys.modules back as it was; an
# extension module cannot be imported twice, so PyYAML's C loader would then
# build the nodes of a yaml module that is gone. yaml is imported once, here,
# before the runs.
import yaml  # noqa: F401

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


SLOPPY = Path(__file__).parent / "fakes" / "sloppy_envelope.py"


def test_the_envelope_cases_run_after_the_rules_cases(pytester: pytest.Pytester) -> None:
    # The bundled suite under vitou/1.1.0: its rules cases, then every envelope case, as vitou certify runs them,
    # the stop case last.
    good = pytester.runpytest(
        "-p", "vitou_ref.pytest_plugin", "--vitou-impl", f"{sys.executable} -m vitou_ref.adapter", "-v"
    )
    from vitou_ref.kit.suite import load_suite

    suite = load_suite(None)
    good.assert_outcomes(passed=len(suite.applicable("vitou/1.1.0")) + len(suite.envelope))
    assert [line for line in good.outlines if "PASSED" in line][-1].split("::")[-1].startswith("VE-0025")
    # An implementation right on the game and sloppy on the envelope (a blank line gets an answer): only
    # envelope cases fail. Before, the plugin ran no envelope case and passed it.
    bad = pytester.runpytest(
        "-p", "vitou_ref.pytest_plugin", "--vitou-impl", f"{sys.executable} {SLOPPY} answer_blank", "-q"
    )
    outcomes = bad.parseoutcomes()
    assert outcomes["passed"] >= 300 and outcomes.get("failed", 0) >= 1
    bad.stdout.fnmatch_lines(["FAILED*VE-00*"])


@pytest.fixture
def autoload(monkeypatch: pytest.MonkeyPatch) -> None:
    # pytest loads the plugin through vitou's pytest11 entry point, unless plugin autoloading is off.
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)


@pytest.mark.usefixtures("autoload")
def test_the_entry_point_loads_it_with_no_conftest_and_no_p(pytester: pytest.Pytester) -> None:
    (pytester.path / "cases.yaml").write_text(Path(SMALL).read_text(encoding="utf-8"), encoding="utf-8")
    result = pytester.runpytest("--vitou-impl", f"{sys.executable} -m vitou_ref.adapter", "--vitou-suite", "cases.yaml")
    result.assert_outcomes(passed=4)


@pytest.mark.usefixtures("autoload")
@pytest.mark.parametrize(
    ("conftest", "args"),
    [
        ("", ["-p", "vitou_ref.pytest_plugin"]),
        ('pytest_plugins = ["vitou_ref.pytest_plugin"]', []),
        ('pytest_plugins = ["vitou_ref.pytest_plugin"]', ["-p", "vitou_ref.pytest_plugin"]),
        ("", ["-p", "no:vitou", "-p", "vitou_ref.pytest_plugin"]),
    ],
    ids=["p", "conftest", "conftest-and-p", "no-entry-point-and-p"],
)
def test_naming_it_as_well_as_the_entry_point_loads_it_once(
    pytester: pytest.Pytester, conftest: str, args: list[str]
) -> None:
    # The documented ways of naming the plugin, beside the entry point that
    # loads the same module: pytest refuses a module registered under two names.
    if conftest:
        pytester.makeconftest(conftest)
    result = pytester.runpytest(*args, "--vitou-impl", f"{sys.executable} -m vitou_ref.adapter", "--vitou-suite", SMALL)
    result.assert_outcomes(passed=4)


@pytest.mark.usefixtures("autoload")
def test_p_no_vitou_turns_it_off(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("-p", "no:vitou", "--vitou-impl", f"{sys.executable} -m vitou_ref.adapter")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unrecognized arguments: --vitou-impl*"])


@pytest.mark.usefixtures("autoload")
def test_a_plain_run_gets_no_vitou_test_and_imports_no_kit(pytester: pytest.Pytester) -> None:
    # A process of its own: this one has imported the kit long ago.
    pytester.makepyfile(
        """
        import sys

        def test_plain():
            assert "vitou_ref.pytest_plugin" in sys.modules  # the entry point loaded it
            rooms = ("kit", "results", "protocol", "hunt", "audit", "cli", "testing")
            heavy = [m for m in sys.modules if m.split(".")[:2] in [["vitou_ref", r] for r in rooms]]
            assert heavy == []
        """
    )
    result = pytester.runpytest_subprocess("-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*collected 1 item*"])
