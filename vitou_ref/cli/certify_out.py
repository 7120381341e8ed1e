"""Where ``vitou certify`` puts its results: the verdict on stdout, and the report files, never through a link."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..kit.outpaths import dir_problem, file_problem, lost_write
from ..rules.plurals import counted

if TYPE_CHECKING:
    from ..kit.certify import Run
    from ..kit.envelope import EnvelopeCase
    from ..kit.fixtures import Case
    from ..kit.runfiles import JsonlReport
    from ..kit.verdicts import Verdict
    from ..rules.model import Ruleset


class Refused(Exception):
    """The run cannot go on: the message follows ``vitou certify:`` on stderr, and the exit status is 2."""


@dataclass(frozen=True)
class Outputs:
    """Where the results go besides the verdict on stdout."""

    fmt: str
    report: str | None
    junit: str | None
    save_failed: str | None
    force: bool
    rerun: str  # the implementation's command, written into each saved case
    progress: bool = False  # a progress line even when stderr is not a terminal


def output_problem(outputs: Outputs) -> str | None:
    """Every output path checked before the run starts: a run's results are never lost at its end."""
    for path, option in ((outputs.report, "--report"), (outputs.junit, "--junit")):
        if path is not None:
            problem = file_problem(path, option, force=outputs.force)
            if problem is not None:
                return problem
    if outputs.save_failed is not None:
        return dir_problem(outputs.save_failed, "--save-failed")
    return None


def refuse_taken_names(cases: Iterable[Case | EnvelopeCase], outputs: Outputs) -> None:
    """Saved cases replace nothing without --force: checked before the run, not found out at its end."""
    directory = outputs.save_failed
    if not directory or outputs.force:
        return
    # lexists: a link there, even a dangling one, is taken too (it is never written through).
    taken = sorted(f"{c.id}.yaml" for c in cases if os.path.lexists(os.path.join(directory, f"{c.id}.yaml")))
    if taken:
        raise Refused(
            f"--save-failed: {directory} already holds {', '.join(taken[:5])}"
            f"{' ...' if len(taken) > 5 else ''}; give --force to replace them, or another directory"
        )


def open_report(outputs: Outputs, suite_root: str, rules: dict[str, Ruleset | None]) -> JsonlReport | None:
    from ..kit.runfiles import JsonlReport

    if not outputs.report:
        return None
    try:
        return JsonlReport(outputs.report, suite_root, rules, force=outputs.force)
    except OSError as exc:
        raise Refused(lost_write("--report", outputs.report, exc)) from None


def write_files(outputs: Outputs, run: Run, vs: list[Verdict], jsonl: JsonlReport | None) -> list[str]:
    """The reports and saved cases written after the verdict; what could not be written, each with its reason."""
    from ..kit.runfiles import save_failed, write_junit

    lost: list[str] = []
    if jsonl is not None and jsonl.failed:
        lost.append(f"--report: {outputs.report}: {jsonl.failed}")
    if outputs.junit:
        try:
            write_junit(outputs.junit, run, vs, force=outputs.force)
        except OSError as exc:
            lost.append(lost_write("--junit", outputs.junit, exc))
    if outputs.save_failed:
        written, problems = save_failed(outputs.save_failed, run, outputs.rerun, force=outputs.force)
        lost += [lost_write("--save-failed", path, exc) for path, exc in problems]
        if written:
            saved = counted(len(written), "failing case", "failing cases")
            from ..present.escape import text

            print(f"saved {saved} under {text(outputs.save_failed)}", file=sys.stderr)
    return lost


def print_verdicts(fmt: str, run: Run, vs: list[Verdict]) -> None:
    from ..kit.verdicts import render_json, render_markdown, render_text
    from .output import json_text

    if fmt == "quiet":  # --quiet: the last lines of the text, the verdicts alone
        from ..kit.verdicts import attribution

        sys.stdout.write("".join(f"{v.line()}; {attribution(run, v)}\n" for v in vs))
    elif fmt == "json":
        sys.stdout.write(json_text(render_json(run, vs)))
    elif fmt == "markdown":
        sys.stdout.write(render_markdown(run, vs))
    else:
        sys.stdout.write(render_text(run, vs))
