"""``vitou completion bash|zsh|fish``: a script per shell, written from the parser, that the shell accepts."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vitou_ref.cli import main
from vitou_ref.cli.main import COMMANDS

SHELLS = ("bash", "zsh", "fish")


def script(capsys: pytest.CaptureFixture[str], shell: str) -> str:
    assert main(["completion", shell]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("shell", SHELLS)
def test_each_shell_gets_a_script_naming_every_command_and_their_options(
    capsys: pytest.CaptureFixture[str], shell: str
) -> None:
    text = script(capsys, shell)
    assert all(name in text for name in COMMANDS)
    # Subcommands, options and the values of an option with choices, down the tree.
    for word in ("check", "resolve", "harness", "--save-failed", "--max-restarts", "markdown", "notation"):
        assert word in text, word


def test_an_unknown_shell_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", "tcsh"]) == 2
    assert "invalid choice" in capsys.readouterr().err


@pytest.mark.parametrize("shell", SHELLS)
def test_the_shell_reads_the_script_without_a_syntax_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, shell: str
) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"no {shell} here")
    path = tmp_path / f"vitou.{shell}"
    path.write_text(script(capsys, shell), encoding="utf-8")
    proc = subprocess.run([shell, "-n", str(path)], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash here")
def test_sourcing_the_bash_script_registers_the_completion() -> None:
    command = f"source <({sys.executable} -m vitou_ref completion bash); complete -p vitou"
    proc = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "-F _vitou vitou" in proc.stdout


# What bash offers after each command line (the last word being completed).
BASH_CASES = [
    (["vitou", ""], {"spec", "certify", "completion", "rulesets"}),
    (["vitou", "sp"], {"spec"}),
    (["vitou", "spec", ""], {"check", "diff"}),
    (["vitou", "spec", "check", "--"], {"--format", "--help"}),
    (["vitou", "spec", "check", "--format", ""], {"text", "json"}),
    (["vitou", "audit", "rec.yaml", "--lang", "f"], {"fr"}),
    (["vitou", "certify", "--ruleset", "vitou", "--max-"], {"--max-restarts"}),  # an option's value is skipped
    (["vitou", "audit", "--format", "=", "h"], {"html"}),  # --format=h, split by bash at the '='
    (["vitou", "completion", ""], {"bash", "zsh", "fish"}),
    # The shipped rulesets, by id and by id/version, with the files (a rules file of one's own).
    (["vitou", "audit", "rec.yaml", "--ruleset", "vitou-2"], {"vitou-2p", "vitou-2p/1.0.0"}),
    (["vitou", "certify", "--ruleset", "le"], {"le-truc", "le-truc/1.0.0"}),
    (["vitou", "simulate", "--ruleset", "vitou/"], {"vitou/1.0.0", "vitou/1.1.0"}),
    (["vitou", "fixtures", "check", "--suite", "se"], {"settings"}),
    (["vitou", "audit", "--dispute", "03"], {"03-raise-from-last"}),
]


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash here")
@pytest.mark.parametrize(("words", "offered"), BASH_CASES, ids=lambda x: " ".join(x) if isinstance(x, list) else "")
def test_bash_completes_commands_options_and_values(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, words: list[str], offered: set[str]
) -> None:
    path = tmp_path / "vitou.bash"
    path.write_text(script(capsys, "bash"), encoding="utf-8")
    quoted = " ".join(f"'{w}'" for w in words)
    command = (
        f'source {path}; COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; _vitou; printf "%s\\n" "${{COMPREPLY[@]}}"'
    )
    proc = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    got = set(proc.stdout.split())
    assert offered <= got, got
    assert all(w.startswith(words[-1]) for w in got)


@pytest.mark.skipif(shutil.which("zsh") is None, reason="no zsh here")
def test_sourcing_the_zsh_script_registers_the_completion(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "_vitou"
    path.write_text(script(capsys, "zsh"), encoding="utf-8")
    command = f"autoload -U compinit; compinit -u -D; source {path}; print -r -- $_comps[vitou]"
    proc = subprocess.run(["zsh", "-f", "-c", command], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "_vitou"


@pytest.mark.skipif(shutil.which("fish") is None, reason="no fish here")
@pytest.mark.parametrize(
    ("line", "offered"),
    [
        ("vitou sp", {"spec"}),
        ("vitou spec check --format ", {"text", "json"}),
        ("vitou fixtures check --rules x --f", {"--format"}),
        ("vitou completion ", {"bash", "zsh", "fish"}),
        ("vitou simulate --ruleset vitou-2", {"vitou-2p", "vitou-2p/1.0.0"}),
        ("vitou certify --ruleset le", {"le-truc", "le-truc/1.0.0"}),
        ("vitou rulebook --suite se", {"settings"}),
    ],
)
def test_fish_completes_commands_options_and_values(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, line: str, offered: set[str]
) -> None:
    path = tmp_path / "vitou.fish"
    path.write_text(script(capsys, "fish"), encoding="utf-8")
    command = f"source {path}; complete -C '{line}'"
    proc = subprocess.run(["fish", "-c", command], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    got = {row.split("\t")[0] for row in proc.stdout.splitlines()}
    assert offered <= got, got


def test_zsh_offers_the_shipped_rulesets_with_the_files(capsys: pytest.CaptureFixture[str]) -> None:
    text = script(capsys, "zsh")
    specs = [line for line in text.splitlines() if "'--ruleset=[" in line]
    assert specs and all("{compadd -- " in s and " vitou-2p " in s and " vitou/1.0.0" in s for s in specs), specs
    assert any("; _files}'" in s for s in specs), specs  # with the files, where a file may be given
