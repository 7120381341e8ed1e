"""Every ``-o``/``--output`` replaces nothing without ``--force``, and never one of the command's own inputs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from vitou_ref.cli import main

ROOT = Path(__file__).resolve().parent.parent
DISPUTE = ROOT / "conformance" / "disputes" / "01-section-05-refusal.yaml"
SMALL_SUITE = ROOT / "tests" / "data" / "small_suite.yaml"


def _report(tmp_path: Path) -> Path:
    report = tmp_path / "run.jsonl"
    assert main(["certify", "--suite", str(SMALL_SUITE), "--report", str(report)]) == 0
    return report


# Each command that writes --output, with the status it ends with when it writes.
COMMANDS = {
    "audit": (["audit", str(DISPUTE)], None),
    "rulebook": (["rulebook", "--ruleset", "vitou"], 0),
    "simulate": (["simulate", "--matches", "2"], 0),
    "record": (["record", str(DISPUTE)], 0),
    "fixtures-export": (["fixtures", "export"], 0),
}


@pytest.mark.parametrize("name", [*COMMANDS, "report"])
def test_an_existing_output_file_is_kept_without_force_and_replaced_with_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    argv, status = COMMANDS[name] if name in COMMANDS else (["report", str(_report(tmp_path))], 0)
    out = tmp_path / "mine.txt"
    out.write_text("precious\n", encoding="utf-8")
    capsys.readouterr()
    assert main([*argv, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert str(out) in err and "--force" in err and "Traceback" not in err, err
    assert out.read_text(encoding="utf-8") == "precious\n"
    got = main([*argv, "-o", str(out), "--force"])
    assert status is None or got == status
    assert got in (0, 1) and out.read_text(encoding="utf-8") != "precious\n"


@pytest.mark.parametrize("force", [[], ["--force"]], ids=["plain", "forced"])
@pytest.mark.parametrize("command", ["audit", "record"])
def test_the_record_read_is_never_the_output_even_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, force: list[str]
) -> None:
    game = tmp_path / "game.yaml"
    shutil.copy(DISPUTE, game)
    before = game.read_bytes()
    assert main([command, str(game), "-o", str(game), *force]) == 2
    err = capsys.readouterr().err
    assert f"{game} is also an input" in err and "Traceback" not in err, err
    assert game.read_bytes() == before
    # Another spelling of the same file is the same file.
    assert main([command, str(game), "-o", str(tmp_path / "." / "game.yaml"), *force]) == 2
    assert game.read_bytes() == before


def test_simulate_never_saves_over_a_run_it_merges(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saved = tmp_path / "a.json"
    assert main(["simulate", "--matches", "2", "--save", str(saved)]) == 0
    before = saved.read_bytes()
    for option in ("--save", "-o"):
        assert main(["simulate", "--merge", str(saved), option, str(saved), "--force"]) == 2
        assert "is also an input" in capsys.readouterr().err
        assert saved.read_bytes() == before


def test_report_never_writes_over_a_report_it_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = _report(tmp_path)
    before = report.read_bytes()
    assert main(["report", str(report), "-o", str(report), "--force"]) == 2
    assert "is also an input" in capsys.readouterr().err
    assert report.read_bytes() == before


def test_an_html_report_into_a_directory_keeps_its_index_without_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _report(tmp_path)
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("mine", encoding="utf-8")
    assert main(["report", "--format", "html", "-o", str(site), str(report)]) == 2
    assert "--force" in capsys.readouterr().err and (site / "index.html").read_text(encoding="utf-8") == "mine"
    assert main(["report", "--format", "html", "-o", str(site), "--force", str(report)]) == 0
    assert (site / "index.html").read_text(encoding="utf-8") != "mine"


def test_a_file_that_appears_during_the_run_is_not_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from vitou_ref.cli import output

    out = tmp_path / "late.md"
    real = output.emit

    def late(text: str, path: str | None, *, force: bool = False) -> None:
        out.write_text("arrived first", encoding="utf-8")  # after the check before the run, before the write
        real(text, path, force=force)

    monkeypatch.setattr("vitou_ref.cli.audit.emit", late)
    assert main(["rulebook", "-o", str(out)]) == 2
    assert "--force" in capsys.readouterr().err and out.read_text(encoding="utf-8") == "arrived first"
