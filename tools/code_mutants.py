"""The conformance suite measured against wrong code: single-point mutants of the reference engine's source.

``vitou mutants`` measures the suite against wrong rules data; this measures it
against wrong code. Each mutant (tools/code_mutants_ops.py) is written into a
worker's private copy of the vitou_ref package and served over protocol v1 by
``python -m vitou_ref.adapter`` started in that copy, while this process, which
imports only the clean package, certifies it with the bundled suite (and
conformance/settings/ when it exists). A mutant is killed by its first case
that fails, errors, crashes the adapter or times out; one that passes every
case survives, unless tools/code_mutants_equivalent.yaml explains why it
cannot change any protocol answer.

Usage: python tools/code_mutants.py [--module PATH]... [--only ID]... [--sample N --seed S]
       [--jobs N] [--timeout S] [--list] [--format text|json] [-o FILE] [--fail-under PCT]
       [--check-equivalents] [--no-probe]

A mutant that survives every case meets the probe (tools/code_mutants_probe.py): the disputes audited in
several languages, spec check on broken rules files and the adapter's answers word for word, compared with the
unmutated copy's outputs. Mutants listed as equivalent are not run unless --check-equivalents asks.

What the suite lets through is sorted four ways (tools/code_mutants_sort.py): equivalent, the reference's own
limits, visible only outside the protocol (the probe alone kills it), or visible through the protocol. Two
scores are printed: the suite alone over the last kind, "the suite alone, of the mutants the protocol can show"
(all that a certification of another engine can see), and with the probe, every kill over every mutant not
equivalent; --fail-under holds the second.

Exit status: 0, or 1 when the score is below --fail-under, or 2 when the
unmutated copy does not pass every case (or the options are wrong).
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import json
import os
import queue
import random
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import yaml  # noqa: E402
from code_mutants_ops import Mutant, find_mutants  # noqa: E402
from code_mutants_sort import (  # noqa: E402
    KINDS,
    LIMITS,
    OUTSIDE,
    THROUGH,
    kind_of,
    own_limit_ids,
    sort_outcomes,
    sorted_counts,
    sorted_lines,
)

import vitou_ref  # noqa: E402
from vitou_ref.kit.caseresult import ERRORED, FAILED, PASSED, CaseResult  # noqa: E402
from vitou_ref.kit.certify import Certifier, HarnessError, Options  # noqa: E402
from vitou_ref.kit.envelope import EnvelopeCase  # noqa: E402
from vitou_ref.kit.fixtures import Case  # noqa: E402
from vitou_ref.kit.suite import Suite, load_suite  # noqa: E402
from vitou_ref.protocol.connection import Connection, Fault  # noqa: E402
from vitou_ref.rules.data import data_dir  # noqa: E402
from vitou_ref.rules.errors import VitouError  # noqa: E402

PACKAGE = Path(vitou_ref.__file__).resolve().parent
EQUIVALENT_FILE = Path(__file__).resolve().parent / "code_mutants_equivalent.yaml"
ADAPTER = [sys.executable, "-m", "vitou_ref.adapter"]
# randomplay.py and observation.py are left out: only simulation and the players use them, never the
# protocol, so no case could tell a mutant of them (tests/test_observation.py guards what a seat may see).
SKIPPED_ENGINE = {"randomplay.py", "observation.py", "__init__.py"}
OTHER_MODULES = (
    "protocol/server.py",
    "protocol/wire.py",
    "rules/settings.py",
    "rules/bidchecks.py",
    "rules/resolution.py",
    "rules/paulista.py",
    "rules/cards.py",
    "rules/conditions.py",
)
KILLED, SURVIVED, EQUIVALENT = "killed", "survived", "equivalent"
PROBE = "probe"  # the killing "case" of a mutant that only the probe tells apart
PROBE_SCRIPT = Path(__file__).resolve().parent / "code_mutants_probe.py"
PROBE_TIMEOUT = 60.0  # seconds for the whole probe: some 200 short runs of vitou in one process


def default_modules() -> list[str]:
    engine = sorted(p.name for p in (PACKAGE / "engine").glob("*.py") if p.name not in SKIPPED_ENGINE)
    return [f"engine/{name}" for name in engine] + list(OTHER_MODULES)


def module_key(path: str) -> str:
    """engine/trick.py, whether given as that, vitou_ref/engine/trick.py or a path to the file."""
    p = Path(path).as_posix()
    if Path(path).is_absolute():
        p = Path(path).resolve().relative_to(PACKAGE).as_posix()
    return p.removeprefix("./").removeprefix("vitou_ref/")


def generate(modules: Sequence[str]) -> tuple[list[Mutant], dict[str, bytes]]:
    """Every mutant of the modules, in module then source order, and each module's source."""
    mutants: list[Mutant] = []
    sources: dict[str, bytes] = {}
    for module in modules:
        raw = (PACKAGE / module).read_bytes()
        sources[module] = raw
        mutants.extend(find_mutants(module, raw.decode()))
    return mutants, sources


def load_equivalents(path: Path = EQUIVALENT_FILE) -> dict[str, str]:
    """The mutants shown equivalent: id -> why no output can change; ValueError when malformed.

    The file is a list of groups, each a reason (a sentence) and the exact ids it covers. Ids, never patterns:
    a pattern would also cover a mutant of the same function that a case kills, and since listed mutants are
    not run by default, that mutant would be counted equivalent unseen.
    """
    data = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else []
    data = [] if data is None else data
    if not isinstance(data, list):
        raise ValueError(f"{path.name} must be a list of groups, each with a reason and its mutants")
    out: dict[str, str] = {}
    for i, group in enumerate(data):
        if not isinstance(group, dict) or set(group) != {"reason", "mutants"}:
            raise ValueError(f"{path.name}: group {i} must have exactly a reason and a list of mutants")
        reason, ids = group["reason"], group["mutants"]
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError(f"{path.name}: group {i} gives no reason")
        if not isinstance(ids, list) or not ids or not all(isinstance(x, str) for x in ids):
            raise ValueError(f"{path.name}: group {i}'s mutants must be a list of ids")
        for ident in ids:
            if ident in out:
                raise ValueError(f"{path.name}: {ident} is listed twice")
            out[ident] = reason
    return out


def reason_for(ident: str, equivalents: Mapping[str, str]) -> str | None:
    """Why the mutant is equivalent, or None when it is not listed."""
    return equivalents.get(ident)


def stale_entries(equivalents: Mapping[str, str], known: Sequence[str]) -> list[str]:
    """The listed ids that name no mutant (the code moved: the id must be found again, or dropped)."""
    ids = set(known)
    return sorted(k for k in equivalents if k not in ids)


def sample(mutants: list[Mutant], n: int, seed: int) -> list[Mutant]:
    """A deterministic sample of n mutants, each module's share proportional to its count (largest remainders)."""
    if n >= len(mutants):
        return list(mutants)
    by_module: dict[str, list[Mutant]] = {}
    for m in mutants:
        by_module.setdefault(m.module, []).append(m)
    quotas = {k: n * len(v) / len(mutants) for k, v in by_module.items()}
    shares = {k: int(q) for k, q in quotas.items()}
    for k in sorted(quotas, key=lambda k: (-(quotas[k] - shares[k]), k))[: n - sum(shares.values())]:
        shares[k] += 1
    rng = random.Random(seed)
    chosen = {m.id for k in sorted(by_module) for m in rng.sample(by_module[k], shares[k])}
    return [m for m in mutants if m.id in chosen]


# ---------------------------------------------------------------- the suite


@dataclass
class Part:
    """One suite, run by an adapter of its own that serves the suite's rulesets/ files beside the shipped ones."""

    suite: Suite
    cases: dict[str, list[Case]]  # ruleset -> cases, in the order they run
    envelope: list[tuple[EnvelopeCase, str]]  # raw protocol lines, each case once, under a ruleset it applies to
    options: Options

    @property
    def count(self) -> int:
        return sum(len(v) for v in self.cases.values()) + len(self.envelope)


@dataclass
class Probe:
    """Outputs of the reference that no protocol answer shows: audit rulings and spec check verdicts.

    ``runs`` are argument lists for ``vitou``, run by tools/code_mutants_probe.py inside the copy; a mutant that
    survives every case is killed when any run's exit status or output differs from the unmutated copy's.
    """

    runs: list[Any]  # argument lists for vitou, and {"adapter_file": PATH, "adapter": [[limit, n], ...]}
    plan_file: Path
    expected: list[dict[str, Any]] | None = None  # the unmutated copy's outputs, once run

    def indices(self, module: str) -> list[int]:
        """The runs that can tell a mutant of ``module``: spec check only for the rules-to-settings modules.

        Leaving a run out can only miss a kill, never make one: the score errs low.
        """
        spec = [i for i, r in enumerate(self.runs) if isinstance(r, list) and r[:2] == ["spec", "check"]]
        return [i for i in range(len(self.runs)) if module.startswith("rules/") or i not in spec]


@dataclass
class Plan:
    parts: list[Part]
    probe: Probe | None = None

    @property
    def count(self) -> int:
        return sum(p.count for p in self.parts) + (len(self.probe.runs) if self.probe else 0)


def build_plan(timeout: float, probe_dir: Path | None = None) -> Plan:
    """The bundled suite, every case under every ruleset it names; then conformance/settings/, when it exists.

    With ``probe_dir``, the probe too: every dispute audited in each language, as JSON and before its first
    actions, and ``spec check`` on the shipped rules and on broken copies of them, written into ``probe_dir``.
    """
    suites = [load_suite(None)]
    settings = data_dir("conformance") / "settings"
    if settings.is_dir():
        suites.append(load_suite(settings))
    plan = []
    for suite in suites:
        names = suite.rulesets()
        cases = {rs: suite.applicable(rs) for rs in names}
        # As vitou certify runs them: each envelope case once, under the first ruleset it applies to.
        envelope = []
        for ecase in suite.envelope:
            under = next((n for n in names if ecase.applies_to(n)), None)
            if under is not None:
                envelope.append((ecase, under))
        argv = ADAPTER + [a for f in suite.rules_files for a in ("--rules", os.path.abspath(f))]
        start = max(15.0, 3 * timeout)
        opts = Options(argv, "code mutant", names, timeout=timeout, start_timeout=start, max_restarts=0)
        plan.append(Part(suite, cases, envelope, opts))
    return Plan(plan, None if probe_dir is None else build_probe(probe_dir, plan))


def build_probe(where: Path, plan_parts: list[Part]) -> Probe:
    from code_mutants_broken import write_broken_rules

    runs: list[Any] = []
    for dispute in sorted((data_dir("conformance") / "disputes").glob("[0-9]*.yaml")):
        path = str(dispute)
        # English, and French for the catalogs read over it; the JSON form; the position before the first actions.
        runs += [["audit", path, "--continue", "--lang", lang] for lang in ("en", "fr")]
        runs.append(["audit", path, "--continue", "--format", "json"])
        runs += [["audit", path, "--at", str(k)] for k in range(1, 4)]
    shipped = sorted(str(p) for p in data_dir("spec").rglob("*.yaml") if "i18n" not in p.parts)
    runs.append(["spec", "check", "--format", "json", *shipped])
    # Every envelope line (bar the 16 MiB ones, which the limits send, and stop, after which nothing would be read),
    # and every request of a bundled rules case whose answer is errored, each answer compared word for word: the
    # cases ask only for "errored"; the reference's messages say which check refused the line.
    lines = where / "envelope-lines.bin"
    with lines.open("wb") as out:
        for part in plan_parts:
            for ecase, ruleset in part.envelope:
                filled = ecase.under(ruleset)  # its placeholders filled from the ruleset, as certify sends it
                if isinstance(filled, str):
                    continue  # it cannot apply there
                out.writelines(x.to_bytes(ruleset) for x in filled.lines if x.kind != "fill" and x.exit_status is None)
        out.writelines(_errored_requests(plan_parts[:1]))
    limits = [["depth", 64], ["depth", 65], ["depthobj", 64], ["depthobj", 65], ["digits", 4300], ["digits", 4301]]
    limits += [["cmd", 200]]
    limits += [["cmdlen", 38], ["cmdlen", 39], ["cmdlen", 40], ["cmdlen", 41]]  # quoted: 40 and 41 characters
    limits += [["cmdodd", 1], ["cmdodd", 3]]
    limits += [["length", 16 * 1024 * 1024], ["length", 16 * 1024 * 1024 + 1]]
    runs.append({"adapter_file": str(lines), "adapter": limits})
    runs.append(["spec", "check", "--format", "json", *map(str, write_broken_rules(where))])
    plan_file = where / "probe-plan.json"
    plan_file.write_text(json.dumps(runs), encoding="utf-8")
    return Probe(runs, plan_file)


def _errored_requests(parts: Sequence[Part]) -> list[bytes]:
    """The request lines of the rules cases whose answer is errored (a setup that cannot be used), for the probe."""
    out = []
    for part in parts:
        for ruleset, cases in part.cases.items():
            out += [c.request_line(i, ruleset) for i, c in enumerate(cases, 1) if c.expectation(ruleset).errored]
    return out


# ---------------------------------------------------------------- running


@dataclass
class Outcome:
    id: str
    status: str  # killed, survived or equivalent
    kind: str | None = None  # how it was killed: FAILED, ERRORED, CRASH or TIMEOUT
    case: str | None = None  # the killing case, or "start" when the handshake failed
    ruleset: str | None = None
    reason: str | None = None
    cases: int = 0  # cases run
    seconds: float = 0.0
    run: bool = True  # False: listed as equivalent and not run (no --check-equivalents)
    sort: str | None = None  # of the four kinds of tools/code_mutants_sort.py, once sorted


class _Stop(Exception):
    def __init__(self, result: CaseResult) -> None:
        self.result = result


class Worker:
    """A private copy of the package, where one mutant at a time is written and served."""

    def __init__(self, root: Path, index: int) -> None:
        self.dir = root / f"worker-{index}"
        self.pkg = self.dir / "vitou_ref"
        shutil.copytree(PACKAGE, self.pkg, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy(PROBE_SCRIPT, self.dir / PROBE_SCRIPT.name)  # run from here, it imports the copy
        for name in ("spec", "schema"):  # where the copy's rules/data.py looks, unless it carries _data/
            if not (self.pkg / "_data" / name).is_dir():
                shutil.copytree(data_dir(name), self.dir / name)

    def import_problem(self) -> str | None:
        """Why a Python started in this copy would not import the copy's vitou_ref (the checkout's, say), if so."""
        probe = [sys.executable, "-c", "import vitou_ref; print(vitou_ref.__file__)"]
        out = subprocess.run(probe, cwd=self.dir, capture_output=True, text=True, timeout=120, check=False)
        if out.returncode != 0:
            return f"python cannot import the copy of vitou_ref: {out.stderr.strip()[-400:]}"
        where = Path(out.stdout.strip()).resolve().parent
        return None if where == self.pkg.resolve() else f"an adapter started in the copy would import {where}"

    def _drop_bytecode(self, module: str) -> None:
        target = self.pkg / module  # pyc files are checked by mtime in seconds: never trust one
        for pyc in (target.parent / "__pycache__").glob(f"{target.stem}.*.pyc"):
            pyc.unlink(missing_ok=True)

    def run(self, mutant: Mutant | None, source: bytes, plan: Plan) -> Outcome:
        """The mutant's outcome (the unmutated copy's for None): the suites in turn, up to the first kill."""
        ident = "unmutated" if mutant is None else mutant.id
        if mutant is not None:
            target = self.pkg / mutant.module
            target.write_bytes(mutant.apply(source))
            self._drop_bytecode(mutant.module)
        t0 = time.perf_counter()
        done = 0
        out = Outcome(ident, SURVIVED)
        try:
            for part in plan.parts:
                out = self._certify(ident, part)
                done += out.cases
                if out.status != SURVIVED:
                    break
            if out.status == SURVIVED and plan.probe is not None:
                which = plan.probe.indices(mutant.module) if mutant is not None else list(range(len(plan.probe.runs)))
                out = self._probe(ident, plan.probe, which)
                done += len(which)
        finally:
            if mutant is not None:
                target.write_bytes(source)
                self._drop_bytecode(mutant.module)
        out.cases, out.seconds = done, time.perf_counter() - t0
        return out

    def probe_outputs(self, probe: Probe, timeout: float, which: list[int] | None = None) -> list[dict[str, Any]]:
        """The outputs of the probe's runs ``which`` (all by default) from this copy.

        RuntimeError or subprocess.TimeoutExpired when it cannot give them.
        """
        which = list(range(len(probe.runs))) if which is None else which
        argv = [sys.executable, PROBE_SCRIPT.name, str(probe.plan_file), ",".join(map(str, which))]
        done = subprocess.run(argv, cwd=self.dir, capture_output=True, text=True, timeout=timeout, check=False)
        try:
            outputs = json.loads(done.stdout)
        except ValueError:
            outputs = None
        if done.returncode != 0 or not isinstance(outputs, list) or len(outputs) != len(which):
            raise RuntimeError(f"the probe exited {done.returncode}: {done.stderr.strip()[-300:]}")
        return outputs

    def _probe(self, ident: str, probe: Probe, which: list[int]) -> Outcome:
        try:
            outputs = self.probe_outputs(probe, PROBE_TIMEOUT, which)
        except subprocess.TimeoutExpired:
            return Outcome(ident, KILLED, "TIMEOUT", PROBE, None, f"the probe took over {PROBE_TIMEOUT:.0f}s")
        except RuntimeError as exc:
            return Outcome(ident, KILLED, "CRASH", PROBE, None, str(exc))
        assert probe.expected is not None
        for i, got in zip(which, outputs, strict=True):
            args, want = probe.runs[i], probe.expected[i]
            if got != want:
                what = "exit status" if got.get("exit") != want.get("exit") else "output"
                name = (
                    f"the adapter: {next(iter(args))}"
                    if isinstance(args, dict)
                    else "vitou " + shlex.join(_short(args))
                )
                return Outcome(ident, KILLED, FAILED.upper(), PROBE, None, f"{name}: {what} differs")
        return Outcome(ident, SURVIVED)

    def _certify(self, ident: str, part: Part) -> Outcome:
        done = 0

        def listen(kind: str, payload: Any) -> None:
            nonlocal done
            if kind == "case":
                done += 1
                if payload.outcome != PASSED:
                    raise _Stop(payload)

        # cwd is the copy: ``python -m`` puts it first on sys.path, ahead of PYTHONPATH and site-packages.
        conn = Connection(part.options.argv, max_line=part.options.max_line, cwd=str(self.dir))
        _open_wide(conn)
        out = Outcome(ident, SURVIVED)
        try:
            Certifier(part.suite, part.cases, part.options, listen, conn, part.envelope).run()
        except _Stop as stop:
            r = stop.result
            kind = r.label if r.outcome == ERRORED else FAILED.upper()
            out = Outcome(ident, KILLED, kind, r.case.id, r.ruleset, r.reason)
        except HarnessError as exc:
            fault = exc.__context__.kind if isinstance(exc.__context__, Fault) else "protocol"
            kind = {"exited": "CRASH", "spawn": "CRASH", "timeout": "TIMEOUT"}.get(fault, ERRORED.upper())
            out = Outcome(ident, KILLED, kind, "start", None, str(exc))
        out.cases = done
        return out


def _short(args: list[str]) -> list[str]:
    """The probe's arguments as a reader would type them: file names without their directories."""
    return [Path(a).name if os.sep in a else a for a in args]


def _open_wide(conn: Connection) -> None:
    """Start the adapter with a 1 MiB stdin pipe where Linux allows it: a speed-up only.

    Connection writes a long line a pipe-full at a time and waits up to 50 ms for output between two, so the
    16 MiB line of the envelope case VE-0006 costs 8 s through a 64 KiB pipe and under 1 s through 1 MiB.
    """
    try:
        conn.open()
    except Fault:
        return  # Client.start opens it again and reports the failure
    stdin = conn.proc.stdin if conn.proc is not None else None
    with contextlib.suppress(ImportError, AttributeError, OSError):
        import fcntl

        if stdin is not None:
            fcntl.fcntl(stdin.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)


def run_all(
    mutants: Sequence[Mutant],
    sources: Mapping[str, bytes],
    plan: Plan,
    jobs: int,
    progress: Callable[[Outcome], None] | None = None,
) -> tuple[Outcome, list[Outcome]]:
    """The unmutated copy's outcome, then each mutant's (none run when the first is not a survivor)."""
    root = Path(tempfile.mkdtemp(prefix="vitou-code-mutants-"))
    stop = threading.Event()
    try:
        workers = [Worker(root, i) for i in range(max(1, min(jobs, len(mutants) or 1)))]
        for w in workers:
            problem = w.import_problem()
            if problem is not None:
                return Outcome("unmutated", KILLED, ERRORED.upper(), "start", reason=problem), []
        if plan.probe is not None:
            try:
                plan.probe.expected = workers[0].probe_outputs(plan.probe, 4 * PROBE_TIMEOUT)
            except (RuntimeError, subprocess.TimeoutExpired) as exc:
                return Outcome("unmutated", KILLED, "CRASH", "probe", reason=str(exc)), []
        sanity = workers[0].run(None, b"", plan)
        if sanity.status != SURVIVED:
            return sanity, []
        free: queue.Queue[Worker] = queue.Queue()
        for w in workers:
            free.put(w)

        def one(m: Mutant) -> Outcome | None:
            if stop.is_set():
                return None
            w = free.get()
            try:
                result = w.run(m, sources[m.module], plan)
            finally:
                free.put(w)
            if progress is not None:
                progress(result)
            return result

        with ThreadPoolExecutor(max_workers=len(workers)) as pool:
            try:
                results = list(pool.map(one, mutants))
            except BaseException:
                stop.set()
                raise
        return sanity, [r for r in results if r is not None]
    finally:
        shutil.rmtree(root, ignore_errors=True)


# ---------------------------------------------------------------- the report


def judge(outcomes: list[Outcome], equivalents: Mapping[str, str]) -> None:
    for o in outcomes:
        if o.status == SURVIVED and reason_for(o.id, equivalents) is not None:
            o.status = EQUIVALENT


def killed_by_probe(o: Outcome) -> bool:
    """Whether only the probe killed the mutant: it passed every case that certification sends."""
    return o.status == KILLED and o.case == PROBE


def tally(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """The counts, the four kinds (tools/code_mutants_sort.py) and three scores.

    ``protocol_score``: the suite's kills of the mutants visible through the protocol, what certification of a
    third-party engine can see; ``score``: every kill, the probe's too, of the mutants not equivalent;
    ``suite_score``: the suite's kills of those, the probe's and the limits' mutants counted as misses.
    """
    total = len(outcomes)
    killed = sum(o.status == KILLED for o in outcomes)
    by_probe = sum(killed_by_probe(o) for o in outcomes)
    equivalent = sum(o.status == EQUIVALENT for o in outcomes)
    counted = total - equivalent
    kinds = {k: [o for o in outcomes if kind_of(o) == k] for k in KINDS}
    through = kinds[THROUGH]
    seen = sum(o.status == KILLED for o in through)
    return {
        "sorted": {k: len(v) for k, v in kinds.items()},
        "limits_killed_by_probe": sum(o.status == KILLED for o in kinds[LIMITS]),
        "protocol_mutants": len(through),
        "protocol_killed": seen,
        "protocol_score": round(100.0 * seen / len(through), 1) if through else 0.0,
        "mutants": total,
        "killed": killed,
        "killed_by_suite": killed - by_probe,
        "killed_by_probe_only": by_probe,
        "survived": sum(o.status == SURVIVED for o in outcomes),
        "equivalent": equivalent,
        "timeouts": sum(o.kind == "TIMEOUT" for o in outcomes),
        "suite_score": round(100.0 * (killed - by_probe) / counted, 1) if counted else 0.0,
        "score": round(100.0 * killed / counted, 1) if counted else 0.0,
    }


def report_json(
    mutants: Sequence[Mutant],
    sources: Mapping[str, bytes],
    outcomes: Sequence[Outcome],
    equivalents: Mapping[str, str],
    extra: dict[str, Any],
) -> dict[str, Any]:
    by_id = {m.id: m for m in mutants}
    rows = []
    for o in outcomes:
        m = by_id[o.id]
        before, after = m.before_after(sources[m.module])
        row = asdict(o) | {"line": m.line, "description": m.description, "before": before, "after": after}
        row["seconds"] = round(o.seconds, 3)
        reason = reason_for(o.id, equivalents)
        if reason is not None:
            row["equivalent_reason"] = reason
        rows.append(row)
    modules = sorted({m.module for m in mutants}, key=[m.module for m in mutants].index)
    per_module = {k: tally([o for o in outcomes if by_id[o.id].module == k]) for k in modules}
    killed_listed = [o.id for o in outcomes if o.status == KILLED and reason_for(o.id, equivalents) is not None]
    return {"type": "code-mutation", **tally(outcomes), **extra, "modules": per_module} | {
        "listed_but_killed": killed_listed,
        "mutants_run": rows,
    }


def render(doc: dict[str, Any]) -> str:
    head = f"{'module':<24} {'mutants':>7} {'equiv':>5} {'outside':>7} {'limits':>6} {'through':>7} {'missed':>6}"
    lines = [f"{head} {'timeouts':>8} {'suite':>6} {'score':>6}"]
    for name, t in doc["modules"].items():
        k = t["sorted"]
        lines.append(
            f"{name:<24} {t['mutants']:>7} {k[EQUIVALENT]:>5} {k[OUTSIDE]:>7} {k[LIMITS]:>6} {k[THROUGH]:>7} "
            f"{k[THROUGH] - t['protocol_killed']:>6} {t['timeouts']:>8} {t['protocol_score']:>5}% {t['score']:>5}%"
        )
    lines += ["", *sorted_lines(doc)]
    for ident in doc["listed_but_killed"]:
        lines.append(f"WARNING: {ident} is listed as equivalent but killed: remove it")
    for ident in doc["stale"]:
        lines.append(f"WARNING: {ident} is listed as equivalent but no such mutant exists (stale): remove it")
    counted = doc["mutants"] - doc["equivalent"]
    lines += ["", sorted_counts(doc)]
    # The suite's own score first, over what the protocol can show: a certification of another engine sees
    # certify's verdicts, never the probe, and no case can move the reference's own limits.
    lines.append(
        f"the suite alone, of the mutants the protocol can show: {doc['protocol_score']}% ({doc['protocol_killed']} "
        f"of {doc['protocol_mutants']} killed by certify's verdicts: the bundled suite, every shipped ruleset, "
        "the settings suite)"
    )
    lines.append(
        f"code mutation score with the probe {doc['score']}%: {doc['killed']} of {counted} mutants killed, "
        f"{doc['killed_by_probe_only']} of them only by the probe (the adapter's answers word for word, spec check "
        f"on broken rules files, audit rulings); {doc['equivalent']} equivalent, not counted, "
        f"{doc.get('not_run', 0)} of them not run; {doc['timeouts']} by timeout; "
        f"{doc['cases']} cases, {doc['seconds']}s with {doc['jobs']} job(s), "
        f"{doc['seconds_per_mutant']}s a mutant"
    )
    return "\n".join(lines) + "\n"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python tools/code_mutants.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--module", action="append", default=[], metavar="PATH", help="mutate only this module")
    p.add_argument("--only", action="append", default=[], metavar="ID", help="only these mutant ids (globs)")
    p.add_argument("--sample", type=int, metavar="N", help="a stratified sample of N mutants")
    p.add_argument("--seed", type=int, default=1, help="the sample's seed (default 1)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="adapters run at once")
    p.add_argument("--timeout", type=float, default=5.0, help="seconds a request may take (default 5)")
    p.add_argument("--list", action="store_true", help="print the ids and descriptions, run nothing")
    p.add_argument("--check-equivalents", action="store_true", help="run the mutants listed as equivalent too")
    p.add_argument("--probe-only", action="store_true", help="the probe alone: for mutants known to pass the cases")
    p.add_argument("--no-probe", action="store_true", help="protocol cases only: no audit or spec check outputs")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("-o", "--output", metavar="FILE", help="also write the JSON results here")
    p.add_argument("--fail-under", type=float, metavar="PCT", help="exit 1 when the score is below PCT")
    return p.parse_args(argv)


def select(args: argparse.Namespace) -> tuple[list[Mutant], dict[str, bytes], list[str]]:
    """The mutants to run, every module's source, and the equivalent ids that name no mutant (stale)."""
    modules = [module_key(m) for m in args.module] or default_modules()
    everything, sources = generate(list(dict.fromkeys(default_modules() + modules)))
    chosen = [m for m in everything if m.module in modules]
    if args.only:
        chosen = [m for m in chosen if any(fnmatch.fnmatchcase(m.id, p) for p in args.only)]
    if args.sample is not None:
        chosen = sample(chosen, args.sample, args.seed)
    return chosen, sources, stale_entries(load_equivalents(), [m.id for m in everything])


def main(argv: Sequence[str] | None = None) -> int:
    # Stopped with SIGTERM, unwind as for Ctrl-C: the workers' copies and adapters go with the run.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    # The adapters run as an engine is run: PYTHONUNBUFFERED in the caller's environment would write every
    # answer through, and hide a mutant that deletes the flush after each answer.
    os.environ.pop("PYTHONUNBUFFERED", None)
    args = parse_args(argv)
    try:
        mutants, sources, stale = select(args)
    except (OSError, ValueError, SyntaxError) as exc:
        print(f"code_mutants: {exc}", file=sys.stderr)
        return 2
    if args.list:
        for m in mutants:
            print(f"{m.id}\t{m.description}")
        return 0
    if not mutants:
        print("code_mutants: no mutant matches", file=sys.stderr)
        return 2
    if args.output and not Path(args.output).resolve().parent.is_dir():
        print(f"code_mutants: -o {args.output}: no such directory", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="vitou-code-mutants-probe-") as probe_dir:
        try:
            plan = build_plan(args.timeout, None if args.no_probe else Path(probe_dir))
            if args.probe_only:
                plan.parts = []
        except VitouError as exc:
            print(f"code_mutants: the suite cannot be loaded: {exc}", file=sys.stderr)
            return 2
        return run_and_report(args, mutants, sources, stale, plan)


def run_and_report(
    args: argparse.Namespace, mutants: list[Mutant], sources: dict[str, bytes], stale: list[str], plan: Plan
) -> int:
    t0 = time.perf_counter()
    done = [0]

    equivalents = load_equivalents()
    # A mutant listed as equivalent is not run unless asked: its reason says no answer can change, and
    # --check-equivalents is how that claim is put to the test (the report then flags a listed mutant killed).
    listed = {m.id for m in mutants if reason_for(m.id, equivalents) is not None}
    to_run = mutants if args.check_equivalents else [m for m in mutants if m.id not in listed]
    total = len(to_run)

    def progress(o: Outcome) -> None:
        done[0] += 1
        if done[0] % 50 == 0 or done[0] == total:
            print(f"  {done[0]}/{total} mutants run", file=sys.stderr, flush=True)

    sanity, ran = run_all(to_run, sources, plan, args.jobs, progress)
    by_id = {o.id: o for o in ran}
    outcomes = [
        by_id.get(m.id) or Outcome(m.id, EQUIVALENT, run=False) for m in mutants if m.id in by_id or m.id in listed
    ]
    if sanity.status != SURVIVED:
        where = f"{sanity.case} under {sanity.ruleset}" if sanity.ruleset else str(sanity.case)
        print(
            f"code_mutants: the unmutated copy does not pass {where} ({sanity.kind}): {sanity.reason}", file=sys.stderr
        )
        return 2
    judge(outcomes, equivalents)
    sort_outcomes(outcomes, own_limit_ids(mutants, sources))  # the four kinds (tools/code_mutants_sort.py)
    seconds = time.perf_counter() - t0
    extra = {
        "cases": plan.count,
        "jobs": args.jobs,
        "seconds": round(seconds, 1),
        "seconds_per_mutant": round(sum(o.seconds for o in ran) / max(1, len(ran)), 2),
        "not_run": len(outcomes) - len(ran),
        "sanity_seconds": round(sanity.seconds, 2),
        "stale": stale,
    }
    doc = report_json(mutants, sources, outcomes, equivalents, extra)
    if args.output:
        Path(args.output).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    sys.stdout.write(json.dumps(doc, indent=1) + "\n" if args.format == "json" else render(doc))
    if args.fail_under is not None and doc["score"] < args.fail_under:
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
