"""What certification writes to files: the JSON-lines report as results arrive, JUnit XML, and the failing cases."""

from __future__ import annotations

import contextlib
import os
import shlex
from collections.abc import Mapping
from typing import IO, Any

from .._version import __version__
from ..present import escape
from ..rules.files import create_new, still_there, write_file
from ..rules.model import Ruleset
from .caseresult import ENVELOPE, ERRORED, FAILED, SKIPPED, XFAIL, XPASS, CaseResult
from .certify import Run
from .envelope import envelope_under
from .provenance import suite_hash
from .verdicts import Verdict, envelope_results, rules_text, verdicts


class JsonlReport:
    """A JSON-lines report written as results arrive: nothing obtained is lost if the run stops."""

    def __init__(self, path: str, suite_root: str, rules: Mapping[str, Ruleset | None], *, force: bool = False) -> None:
        # Created, never opened through a link; with --force a file or link there is removed first.
        self.path = path
        self.fh: IO[str] = open(create_new(path, force=force), "w", encoding="utf-8")  # noqa: SIM115 - closed by listen("end")
        self.suite_root = suite_root
        self.rules = rules
        self.failed: str | None = None  # why writing stopped (a full disk...); the run itself goes on

    def _write(self, obj: dict[str, Any]) -> None:
        if self.failed is not None:
            return
        try:
            # ascii: whatever an implementation sent, each line is plain ASCII JSON.
            self.fh.write(escape.json_dumps(obj, ascii=True, separators=(",", ":")) + "\n")
            self.fh.flush()
        except OSError as exc:
            self.failed = exc.strerror or str(exc)
            with contextlib.suppress(OSError):
                self.fh.close()

    def listen(self, kind: str, payload: Any) -> None:
        if kind == "start":
            run: Run = payload
            self._write(
                {
                    "type": "header",
                    "harness": {"name": "vitou certify", "version": __version__},
                    "suite": {"path": self.suite_root, "cases": len(run.suite.cases), "hash": suite_hash(run.suite)},
                    "spec": {n: (r.content_hash if r else None) for n, r in self.rules.items()},
                    "rules_text": {n: rules_text(r) for n, r in self.rules.items() if r},
                    "implementation": run.implementation,
                    "command": run.options.label,
                    "only": run.options.only,
                    "known_failures": sorted(run.options.expect),
                    "offered": run.offered,
                    "level": run.level,
                    "rulesets": run.options.rulesets,
                    "planned": run.plan(),
                    "started": run.started,
                }
            )
        elif kind == "case":
            result: CaseResult = payload
            self._write(result.to_json())
        elif kind == "end":
            run = payload
            vs = verdicts(run, self.rules)
            self._write(
                {
                    "type": "footer",
                    "seconds": round(run.seconds, 3),
                    "restarts": run.restarts,
                    "fatal": run.fatal,
                    "verdicts": [v.to_json() for v in vs],
                }
            )
            self._close()

    def abort(self, message: str) -> None:
        if not self.fh.closed:
            self._write({"type": "footer", "fatal": message, "verdicts": []})
            self._close()

    def _close(self) -> None:
        if not self.fh.closed and not still_there(self.fh.fileno(), self.path):
            # Removed or replaced (by a link, say) while the run went on: what was written is not at the path.
            self.failed = self.failed or "the file was removed or replaced during the run; the report is not there"
        try:
            self.fh.close()
        except OSError as exc:  # the last buffered bytes could not be written
            self.failed = self.failed or exc.strerror or str(exc)


def write_junit(path: str, run: Run, vs: list[Verdict], *, force: bool = False) -> None:
    """The JUnit XML of the run, written as every output is: never through a link, nothing replaced without force."""
    write_file(path, junit_xml(run, vs), force=force)


def junit_xml(run: Run, vs: list[Verdict]) -> bytes:
    """JUnit XML, written as text: every text in it escaped by ``escape.xml``, so it is always well-formed XML 1.0."""
    x = escape.xml
    out = ['<?xml version="1.0" encoding="utf-8"?>', '<testsuites name="vitou certify">']
    for v in vs:
        envelope = v.kind == ENVELOPE  # one suite per ruleset it ran under, as its verdicts
        results = envelope_results(run, v.ruleset) if envelope else run.for_ruleset(v.ruleset)
        failures = v.counts.get(FAILED, 0) + v.counts.get(XPASS, 0)
        skipped = v.counts.get(SKIPPED, 0) + v.counts.get(XFAIL, 0)
        name = envelope_under(v.ruleset) if envelope else v.ruleset
        out.append(
            f'<testsuite name="{x(name)}" tests="{len(results)}" '
            f'failures="{failures}" errors="{v.counts.get(ERRORED, 0)}" skipped="{skipped}" '
            f'time="{sum(r.seconds for r in results):.4f}">'
        )
        levels = "".join(f'<property name="level.{x(k)}" value="{x(st)}"/>' for k, st in v.levels.items())
        out.append(f'<properties><property name="level" value="{x(v.level)}"/>{levels}</properties>')
        for r in results:
            reason = r.reason or ""
            out.append(
                f'<testcase classname="{x(f"{v.ruleset}.{r.case.group}")}" name="{x(f"{r.case.id} {r.case.title}")}" '
                f'time="{r.seconds:.4f}">'
            )
            if r.outcome in (FAILED, XPASS, ERRORED):
                tag = "error" if r.outcome == ERRORED else "failure"
                out.append(f'<{tag} message="{x(reason, 500)}">{x(reason, 100_000)}</{tag}>')
            elif r.outcome in (SKIPPED, XFAIL):
                out.append(f'<skipped message="{x(reason, 100_000)}"/>')
            out.append("</testcase>")
        out.append("</testsuite>")
    out.append("</testsuites>")
    return ("\n".join(out) + "\n").encode("utf-8")


def save_failed(
    directory: str, run: Run, impl_command: str, *, force: bool = False
) -> tuple[list[str], list[tuple[str, OSError]]]:
    """Each failing case as a standalone fixture file, with the command that reruns it; (written, not written).

    The fixture is the suite's own case (expectations in the fixture schema's
    form), so it always reloads; what the implementation said goes only into
    the comment, escaped and cut, so it can neither inject YAML nor break it.
    A file that cannot be written (a link put in its place) stops only itself.
    """
    from ..rules.yamlout import dump

    # Once a case, under the first ruleset it failed under: an envelope case runs under every ruleset, and a saved
    # case runs under any of them again.
    first: dict[str, CaseResult] = {}
    for r in run.results:
        if r.outcome in (FAILED, ERRORED, XPASS):
            first.setdefault(r.case.id, r)
    bad = list(first.values())
    if not bad:
        return [], []
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as exc:
        return [], [(directory, exc)]
    written: list[str] = []
    lost: list[tuple[str, OSError]] = []
    for r in bad:
        path = os.path.join(directory, f"{r.case.id}.yaml")
        rerun = f"vitou certify --impl {shlex.quote(impl_command)} --ruleset {r.ruleset} --suite {shlex.quote(path)}"
        key = "envelope" if r.section == ENVELOPE else "cases"
        doc = {"format": 1, "title": f"{r.case.id}, saved by vitou certify", key: [r.case.to_json()]}
        head = f"# {r.outcome}: {escape.text(r.reason or '', 1000)}\n# rerun: {escape.text(rerun, 2000)}\n"
        try:
            write_file(path, head + dump(doc, width=120, flow=False), force=force)
        except OSError as exc:
            lost.append((path, exc))
        else:
            written.append(path)
    return written, lost
