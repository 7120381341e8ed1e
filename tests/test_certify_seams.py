"""Where an implementer trips: a script named without ./ or its run bit, cases not run, one's own cases, one game."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vitou_ref.cli import main
from vitou_ref.kit.suite import load_suite

FAKES = Path(__file__).parent / "fakes"
SMALL = str(Path(__file__).parent / "data" / "small_suite.yaml")  # VT-0001..VT-0004


def one_offer(*rulesets: str) -> str:
    return f"{sys.executable} {FAKES / 'one_offer.py'} {' '.join(rulesets)}"


@pytest.mark.parametrize("run_bit", [True, False])
def test_a_script_in_the_current_folder_named_bare_says_to_write_dot_slash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], run_bit: bool
) -> None:
    script = tmp_path / "my_adapter.py"
    shutil.copy(FAKES / "one_offer.py", script)
    script.chmod(0o755 if run_bit else 0o644)
    monkeypatch.chdir(tmp_path)
    assert main(["certify", "--smoke", "--impl", "my_adapter.py"]) == 2
    err = capsys.readouterr().err
    assert "cannot start 'my_adapter.py': No such file or directory; " in err
    assert "a command in the current folder is written ./my_adapter.py" in err
    assert "python3 my_adapter.py" in err
    assert ("chmod +x ./my_adapter.py" in err) is not run_bit


def test_a_script_without_its_run_bit_says_to_chmod_it_or_name_its_interpreter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "my_adapter"
    script.write_text("#!/usr/bin/env python3\nprint('hello')\n", encoding="utf-8")
    script.chmod(0o644)
    monkeypatch.chdir(tmp_path)
    assert main(["certify", "--smoke", "--impl", "./my_adapter"]) == 2
    err = capsys.readouterr().err
    assert "cannot start './my_adapter': Permission denied; the file is not executable: chmod +x ./my_adapter" in err
    assert "or name its interpreter: python3 ./my_adapter" in err


def test_an_executable_script_without_its_first_line_says_to_name_its_interpreter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Run bit set, but no "#!" line: the system cannot tell what runs it (Exec format error).
    script = tmp_path / "my_adapter.py"
    script.write_text("print('hello')\n", encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    assert main(["certify", "--smoke", "--impl", "./my_adapter.py"]) == 2
    err = capsys.readouterr().err
    assert (
        "Exec format error; the file names no interpreter: begin it with a line such as #!/usr/bin/env python3" in err
    )
    assert "or name its interpreter: python3 ./my_adapter.py" in err


def test_a_program_nowhere_gets_no_advice(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "--impl", "no-such-program-anywhere"]) == 2
    assert capsys.readouterr().err.strip().endswith("No such file or directory")


def test_the_cases_not_run_are_counted_by_reason(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "--only", "VT-000*"]) == 0
    lines = capsys.readouterr().out.splitlines()
    suite = load_suite(None)
    envelope = len(suite.envelope)
    assert re.fullmatch(rf"suite: \d+ cases and {envelope} envelope cases; 6 run in [0-9.]+s", lines[1]), lines[1]
    found = re.fullmatch(
        r"not run: (\d+) cases of other rulesets than vitou/1\.1\.0 \(--ruleset all runs them all\); "
        r"(\d+) cases left out by --only",
        lines[2],
    )
    assert found, lines[2]
    # The cases of vitou/1.1.0 and the envelope cases (every one runs under it), less the 6 run, are those --only
    # left out.
    assert int(found.group(2)) == len(suite.applicable("vitou/1.1.0")) + envelope - 6


def test_rulesets_not_offered_are_a_reason(capsys: pytest.CaptureFixture[str]) -> None:
    impl = one_offer("vitou/1.0.0")
    asked = ["--ruleset", "vitou/1.0.0", "--ruleset", "vitou/1.1.0"]
    assert main(["certify", "--suite", SMALL, "--impl", impl, *asked]) == 1
    out = capsys.readouterr().out
    assert "not run: 4 of vitou/1.1.0, not offered by the implementation" in out


def test_a_saved_fuzz_find_is_tested_not_certified(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "--suite", SMALL, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [v["certified"] for v in doc["verdicts"]] == [False]
    assert main(["certify", "--suite", SMALL]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith(f"CONFORMANT vitou/1.1.0: 4/4 cases of {SMALL}, "), last
    assert "; not the conformance suite: no certification; tested: vitou-ref " in last
    assert "certified" not in last


def test_a_failing_custom_suite_is_not_conformant_and_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    wrong = f"{sys.executable} {FAKES / 'fake_impl.py'} wrong 1"
    assert main(["certify", "--suite", SMALL, "--impl", wrong]) == 1
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("NOT CONFORMANT vitou/1.1.0: 1/4 cases of ") and "; tested: " in last, last


def test_the_shipped_suites_still_certify(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "-q", "--suite", "settings"]) == 0
    assert all("; certified: " in line for line in capsys.readouterr().out.splitlines())


def test_an_engine_of_one_game_is_certified_under_it_without_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "--smoke", "--impl", one_offer("le-truc/1.0.0")]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("SMOKE OK le-truc/1.0.0: 3/3 cases")
    assert main(["certify", "-q", "--impl", one_offer("le-truc/1.0.0")]) == 0
    assert capsys.readouterr().out.startswith("CONFORMANT le-truc/1.0.0: ")


def test_an_engine_of_several_other_rulesets_is_told_to_give_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "--smoke", "--impl", one_offer("le-truc/1.0.0", "le-truc/1.1.0")]) == 2
    assert "give --ruleset with one of them" in capsys.readouterr().err
    assert main(["certify", "--smoke", "--ruleset", "vitou/1.1.0", "--impl", one_offer("le-truc/1.0.0")]) == 2
    assert capsys.readouterr().err.rstrip().endswith("give --ruleset le-truc/1.0.0")


def test_cases_chosen_with_only_certify_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    # Nine Le Truc cases pass; nine cases are not the suite, so the verdict may say conformant but not certified.
    assert main(["certify", "--ruleset", "le-truc", "--only", "LT-000*", "--format", "json"]) == 0
    verdicts = json.loads(capsys.readouterr().out)["verdicts"]
    assert verdicts and all(not v["certified"] for v in verdicts)
    assert all(v["line"].endswith("; cases chosen with --only: no certification") for v in verdicts), verdicts
    assert main(["certify", "--ruleset", "le-truc", "--only", "LT-000*"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert "; cases chosen with --only: no certification; tested: " in last and "certified:" not in last


def test_fuzz_of_an_engine_of_another_game_says_which_ruleset_to_give(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--impl", one_offer("le-truc/1.1.0"), "--examples", "2"]) == 2
    err = capsys.readouterr().err
    assert "offers le-truc/1.1.0; to run it under a ruleset it offers, give --ruleset le-truc/1.1.0" in err


def test_the_plugin_says_which_ruleset_to_give(tmp_path: Path) -> None:
    (tmp_path / "test_c.py").write_text("def test_case(vitou_case):\n    vitou_case.check()\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "vitou_ref.pytest_plugin",
         "--vitou-impl", one_offer("le-truc/1.1.0"), "test_c.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
        env=dict(os.environ, PYTHONPATH=str(Path(__file__).parent.parent)),
    )  # fmt: skip
    assert done.returncode == 4, done.stdout + done.stderr
    assert "give --vitou-ruleset le-truc/1.1.0" in done.stdout + done.stderr
