"""``vitou fuzz``: the run, each kind of divergence it finds, checked on a fresh start and saved as a fixture."""

from __future__ import annotations

import contextlib
import os
import random
import shlex
import sys
from collections.abc import Iterator
from typing import Any

from ..hunt.fuzzkinds import KIND_LINE
from ..kit import outpaths as _out
from ..present.escape import text
from ..rules.errors import OutputFailed
from . import stop as _stop
from .progress import ProgressLine

MAX_EXPECT_BYTES = 1 << 20  # a list of kinds, or a saved fixture: far less than this
# Where hypothesis writes during fuzz and mutants --fuzz, said in fuzz's help.
HYPOTHESIS_HOME = (
    "vitou's cache directory: $XDG_CACHE_HOME/vitou/hypothesis (by default ~/.cache/vitou/hypothesis) on Linux, "
    "~/Library/Caches/vitou/hypothesis on macOS"
)


@contextlib.contextmanager
def hypothesis_home() -> Iterator[None]:
    """Hypothesis's files go to vitou's cache directory for the command, not to ``.hypothesis/`` where it is run.

    With no example database, all hypothesis writes are caches (the constants
    it reads from the code it tests), which may be rebuilt at any time: a
    cache directory is their place, and a user's project stays clean.
    """
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):  # asked for: hypothesis reads it itself
        yield
        return
    from hypothesis import configuration

    before = getattr(configuration, "__hypothesis_home_directory", None)  # None: hypothesis's own default
    from ..rules.cache import platform_cache_dir

    configuration.set_hypothesis_home_dir(os.path.join(platform_cache_dir(), "hypothesis"))
    try:
        yield
    finally:
        configuration.set_hypothesis_home_dir(before)  # a process that goes on (a test) gets its own back


def fuzz(
    impl: str | None,
    ruleset: str,
    *,
    examples: int,
    seed: int | None,
    max_seconds: float | None,
    timeout: float,
    start_timeout: float,
    save: str,
    illegal: int,
    progress: bool,
    max_restarts: int = 3,
    limits: Any = None,  # a protocol.limits.Limits; None: the defaults
    level: str | None = None,  # code or outcome; None: as the answer to start says
    expect: list[str] | None = None,  # files of kinds already known (hunt/fuzzkinds.py), set aside
) -> int:
    from ..hunt.fuzz import MAX_KINDS, Fuzzer
    from ..kit.certify import REFERENCE_COMMAND
    from ..protocol.connection import Fault, split_command
    from ..rules.registry import load_ruleset

    try:
        argv = split_command(impl) if impl is not None else list(REFERENCE_COMMAND)
    except ValueError as exc:
        print(f"vitou fuzz: --impl: {text(str(exc))}", file=sys.stderr)
        return 2
    problem = _out.dir_problem(save, "--save")
    if problem is not None:
        print(f"vitou fuzz: {text(problem)}", file=sys.stderr)
        return 2
    rules = load_ruleset(ruleset)
    known = read_expected(expect or [])  # InputError, which names the file, before anything is started
    seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
    label = impl if impl is not None else "python -m vitou_ref.adapter"  # named without this machine's paths
    line = ProgressLine(f"fuzz {rules.name}", examples, unit="matches", failed="diverged", force=progress)

    def note(matches: int, diverged: int) -> None:
        _stop.check()  # after each match: a ^C lost inside hypothesis's gc callback stops the run all the same
        line.update(min(matches, examples), diverged)  # shrinking a divergence plays matches beyond the total

    fuzzer = Fuzzer(
        rules, argv, timeout=timeout, start_timeout=start_timeout, illegal=illegal, max_restarts=max_restarts,
        progress=note, limits=limits, level=level,
    )  # fmt: skip
    try:
        with hypothesis_home():
            result = fuzzer.run(examples, seed, max_seconds, every=True, known=known)
        checked = [_checked(fuzzer, d) for d in result.divergences]
    except Fault as exc:
        line.close()  # before the message, which would otherwise land on the progress line
        print(f"vitou fuzz: {text(exc.message, lines=True)}", file=sys.stderr)
        return 2
    finally:
        fuzzer.close()
        line.close()
    at = " at the outcome level" if fuzzer.level == "outcome" else ""  # refusals compared, not their error codes
    print(f"fuzz {rules.name} against {label}, seed {seed}{at}: {result.describe()}")
    if result.spent == "restarts":
        print(
            f"stopped early: the implementation was restarted {result.restarts} time(s), --max-restarts {max_restarts}"
        )
    elif result.spent == "time":
        print(f"stopped early: --max-seconds {max_seconds:g} reached")
    elif result.spent == "kinds":
        print(f"stopped early: {MAX_KINDS} kinds of divergence found; --expect them to look past them")
    if result.aside:
        n = sum(result.aside.values())
        print(
            f"set aside (--expect, or found before in this run): {n} divergence(s) of {len(result.aside)} known kind(s)"
        )
    if fuzzer.changed is not None:  # a changed identity: no fresh start checks what it answered
        print(f"FAULT of the implementation: {fuzzer.changed}")
        return 1
    if not checked:
        print("no divergence" if not result.aside else "no divergence of a new kind")
        return 0
    for how, shown in checked:
        _report(how, shown, _save_fuzz_case(save, shown, rules, label, how, level), label, rules.name, level, checked)
    return 1


def _report(how: str, shown: Any, path: str, label: str, ruleset: str, level: str | None, every: list[Any]) -> None:
    """One kind of divergence, as the command prints it: where, its kind, the check, the fixture, the rerun."""
    if len(every) > 1 and every[0][1] is shown:
        print(f"{len(every)} kinds of divergence, each shrunk and saved on its own:")
    print(f"DIVERGENCE at {shown.describe()}")
    print(f"kind: {shown.kind} (--expect {shlex.quote(path)} sets it aside)")
    print(_diagnosis(how, shown))
    print(f"smallest case found: {len(shown.case.actions)} action(s), {len(shown.case.setup['deals'])} deal(s): {path}")
    print(f"rerun: {_rerun(label, ruleset, path, level)}")


def _checked(fuzzer: Any, d: Any) -> tuple[str, Any]:
    """How a find shows on a fresh start (hunt/fuzz.py, Fuzzer.reproduce), checked for its own kind alone."""
    fuzzer.target = d.kind
    try:
        how, shown = fuzzer.reproduce(d)
    finally:
        fuzzer.target = None
    return how, shown


def read_expected(paths: list[str]) -> set[str]:
    """The kinds of divergence the --expect files list; InputError naming the file that cannot be read."""
    from ..hunt.fuzzkinds import read_kinds
    from ..rules.errors import InputError
    from ..rules.files import read_path
    from ..rules.problems import Problem

    known: set[str] = set()
    for path in paths:
        raw = read_path(path, max_bytes=MAX_EXPECT_BYTES, display=path)
        if len(raw) > MAX_EXPECT_BYTES:
            raise InputError([Problem("EXPECT_TOO_LARGE", f"over {MAX_EXPECT_BYTES} bytes: not a list of kinds", path)])
        try:
            known |= read_kinds(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise InputError([Problem("EXPECT_FORMAT", f"not UTF-8 text (byte {exc.start})", path)]) from None
    return known


def _diagnosis(how: str, d: Any) -> str:
    """What the check on a fresh start found, in a line."""
    n = len(d.before)
    if how == "alone":
        return "it shows again on a fresh start of the implementation, with this case alone"
    if how == "session":
        return (
            f"it needs the earlier requests of the session: not shown by the case alone on a fresh start, it shows "
            f"again after the {n} earlier match(es) sent before it, replayed in order; the file keeps them"
        )
    if how == "flaky":
        tried = f"alone or after the {n} earlier match(es) of its session" if n else "alone"
        return f"it did not show again on a fresh start of the implementation, {tried} (flaky?); saved all the same"
    return "not checked on a fresh start: --max-seconds was reached first; saved with its session all the same"


def _rerun(label: str, ruleset: str, path: str, level: str | None = None) -> str:
    asked = f" --level {level}" if level else ""  # the user's level; else certify follows the handshake as fuzz did
    return f"vitou certify --impl {shlex.quote(label)} --ruleset {ruleset} --suite {shlex.quote(path)}{asked}"


def _save_fuzz_case(directory: str, d: Any, rules: Any, label: str, how: str, level: str | None = None) -> str:
    """The fixture of a divergence, its ids after every id the directory holds (nothing is overwritten)."""
    from ..hunt.fuzz import fixture_for
    from ..hunt.fuzzfixture import fixture_ids, next_number
    from ..present import escape
    from ..rules.yamlout import dump

    os.makedirs(directory, exist_ok=True)
    for _ in range(100):  # another run writing to the same directory takes a number: take the next
        ids = fixture_ids(next_number(directory), d)
        if ids is None:
            break
        path = os.path.join(directory, f"{ids[0]}.yaml")
        rerun = escape.text(_rerun(label, rules.name, path, level), 2000)
        text = f"# rerun: {rerun}\n{KIND_LINE}{d.kind}\n" + dump(fixture_for(d, rules, ids, label, how=how), width=120)
        try:
            _out.write_new(path, text, force=False)
        except FileExistsError:
            continue
        except OSError as exc:
            raise OutputFailed(f"--save: {path}: {exc.strerror or exc}") from None
        return path
    raise OutputFailed(f"--save: {directory} has no fixture ids left (FZ-0001 to FZ-9999): choose another directory")
