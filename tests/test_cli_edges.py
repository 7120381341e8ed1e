"""Rough edges of the command: unreadable input, a record for a ruleset the case lacks, fuzz's files and figures."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

from vitou_ref.cli import main
from vitou_ref.hunt.mutation import mutant_command

SPEC = ROOT / "spec" / "vitou-1.1.0.yaml"

# ------------------------------------------------------------ unreadable input


def _unreadable(kind: str, tmp_path: Path) -> str:
    path = tmp_path / "in.yaml"
    if kind == "missing":
        return str(path)
    if kind == "directory":
        path.mkdir()
    elif kind == "latin-1":
        path.write_bytes("format: 1\nnote: Café\n".encode("latin-1"))
    else:  # no permission
        path.write_text(SPEC.read_text(encoding="utf-8"), encoding="utf-8")
        path.chmod(0)
    return str(path)


KINDS = ["missing", "directory", "latin-1", "no permission"]
CHECKS = {"spec check": ["spec", "check", "{f}"], "fixtures check": ["fixtures", "check", "--suite", "{f}"]}


@pytest.mark.parametrize(
    ("kind", "command"), [(k, c) for k in KINDS for c in CHECKS if (k, c) != ("directory", "fixtures check")]
)  # a directory is a suite
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_check_exits_2_on_input_it_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, command: str, fmt: str
) -> None:
    # Fails before: spec check and fixtures check gave exit 1, their verdict on a file they had read and found wrong.
    if kind == "no permission" and (not hasattr(os, "geteuid") or os.geteuid() == 0):
        pytest.skip("root reads any file (and elsewhere a mode of 0 may not stop a read)")
    path = _unreadable(kind, tmp_path)
    argv = [a.replace("{f}", path) for a in CHECKS[command]]
    assert main([*argv, "--format", fmt]) == 2
    got = capsys.readouterr()
    # spec check's text says what it could not read on stderr; its JSON keeps every file's entry on stdout.
    out = got.err if (fmt, command) == ("text", "spec check") else got.out
    assert re.search(r"FILE_UNREADABLE|FILE_NOT_REGULAR|YAML_ENCODING|SUITE_MISSING", out), out


def test_a_check_still_exits_1_on_a_file_it_read_and_found_wrong(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text(SPEC.read_text(encoding="utf-8").replace("cards_each: 3", "cards_each: true"), encoding="utf-8")
    assert main(["spec", "check", str(broken)]) == 1
    assert main(["spec", "check", str(broken), str(tmp_path / "missing.yaml")]) == 2  # unreadable wins
    assert main(["spec", "check", str(SPEC)]) == 0


# --------------------------------------------------------- a record from a case


@pytest.mark.parametrize("ruleset", ["nosuch/1.0.0", "nosuch", "vitou-2p"])
def test_a_record_from_a_case_refuses_a_ruleset_the_case_does_not_apply_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ruleset: str
) -> None:
    # Fails before: the record was written for the unknown ruleset, and the command said 0.
    out = tmp_path / "r.yaml"
    assert main(["record", "--from-case", "VT-0001", "--ruleset", ruleset, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "RECORD_RULESET" in err and ruleset in err and "vitou/1.1.0" in err  # what it applies to
    assert not out.exists()


def test_a_record_from_a_case_takes_a_bare_id_as_its_latest_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["record", "--from-case", "VT-0001", "--ruleset", "vitou", "--to", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["header"]["ruleset"] == "vitou/1.1.0"


def test_a_record_from_a_case_takes_a_ruleset_its_suite_brings(capsys: pytest.CaptureFixture[str]) -> None:
    # Not shipped, but named by the case and served from the suite's rulesets/ directory: not refused.
    suite, name = str(ROOT / "conformance" / "settings"), "setting-deal-previous/1.0.0"
    assert main(["record", "--suite", suite, "--from-case", "ST-1050", "--ruleset", name, "--to", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["header"]["ruleset"] == name


# ------------------------------------------------------------------------- fuzz


def test_fuzz_writes_nothing_in_the_working_directory_but_its_fixture(tmp_path: Path) -> None:
    # Fails before: hypothesis kept its files in .hypothesis/ in the working directory.
    work, cache = tmp_path / "work", tmp_path / "cache"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_STORAGE_DIRECTORY"}
    env |= {"XDG_CACHE_HOME": str(cache), "HOME": str(tmp_path / "home")}
    impl = shlex.join(mutant_command("rank-9-above-10"))
    argv = ["fuzz", "--impl", impl, "--examples", "3000", "--seed", "11"]
    proc = subprocess.run(
        [sys.executable, "-m", "vitou_ref", *argv],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert sorted(p.name for p in work.iterdir()) == ["fuzz-failures"]
    saved = sorted(p.name for p in (work / "fuzz-failures").iterdir())  # a fixture for each kind found, from FZ-0001
    assert saved == [f"FZ-{n:04}.yaml" for n in range(1, len(saved) + 1)] and saved
    # Whatever hypothesis writes goes to the cache directory (it may have nothing to write).
    assert not cache.exists() or sorted(p.name for p in cache.iterdir()) == ["vitou"]


def test_fuzz_says_where_its_files_go(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "1000")  # no line breaks inside the paths
    assert main(["fuzz", "--help"]) == 0
    text = capsys.readouterr().out
    assert "(default: fuzz-failures)" in text and "relative to the working directory" in text
    assert "~/.cache/vitou/hypothesis" in text and "HYPOTHESIS_STORAGE_DIRECTORY" in text


def _fuzz_line(out: str) -> tuple[int, float]:
    m = re.search(r": (\d+) matches \((\d+) actions on average", out)
    assert m, out
    return int(m[1]), float(m[2])


@pytest.mark.parametrize("examples", [10, 16])
def test_a_short_fuzz_run_plays_real_matches(tmp_path: Path, capsys: pytest.CaptureFixture[str], examples: int) -> None:
    # Fails before: a chunk of hypothesis examples short of a batch was only its simplest one, a match of no action.
    assert main(["fuzz", "--examples", str(examples), "--seed", "7", "--save", str(tmp_path)]) == 0
    matches, average = _fuzz_line(capsys.readouterr().out)
    assert matches == examples
    assert average >= 1


def test_the_divergence_line_is_json_throughout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    impl = shlex.join(mutant_command("rank-9-above-10"))
    assert main(["fuzz", "--impl", impl, "--examples", "3000", "--seed", "11", "--save", str(tmp_path)]) == 1
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("DIVERGENCE at ")]
    assert lines
    for line in lines:  # one for each kind of divergence found
        m = re.fullmatch(r"DIVERGENCE at (?:step \d+ \((.*)\)|final|legal): expected (.*), got (.*)", line)
        assert m, line
        parts = [json.loads(part) for part in m.groups() if part is not None]
        assert len(parts) >= 2
    assert any('"act": "play"' in ln and '"events"' in ln for ln in lines)
