"""A pytest plugin: one test per conformance case; pytest loads it as ``vitou`` wherever vitou is installed.

Two ways to use it:

* ``pytest --vitou-impl "COMMAND"`` certifies an implementation speaking
  protocol v1, one test per case id, with no test code.
* In-process: a test that takes the ``vitou_case`` fixture is run once per
  case; answer ``vitou_case.request(1, vitou_ruleset)`` with your engine and
  pass the answer to ``vitou_check``.

``-p vitou_ref.pytest_plugin`` and ``pytest_plugins = ["vitou_ref.pytest_plugin"]``
still work; ``-p no:vitou`` turns the plugin off.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

# pytest imports this module in every run of every project where vitou is
# installed: only pytest and the standard library at the top; the kit is
# imported by the hooks and fixtures that use it.
if TYPE_CHECKING:
    from .kit.certify import Certifier, Run
    from .kit.envelope import EnvelopeCase
    from .kit.fixtures import Case

# The plugin's two names: the entry point's, and the module's (-p, pytest_plugins).
_NAMES = ("vitou", __name__)


class _Alias:
    """Holds the plugin's other name, so that pytest sees it loaded and does not register the module twice."""


def pytest_plugin_registered(plugin: object, manager: pytest.PytestPluginManager) -> None:
    # The entry point registers this module as "vitou", -p and pytest_plugins as
    # its module name; pytest refuses one module under two names, so whichever
    # comes first holds the other name too. A blocked name (-p no:vitou) is
    # left alone.
    if plugin is not sys.modules[__name__]:
        return
    for name in _NAMES:
        if manager.get_plugin(name) is None and not manager.is_blocked(name):
            manager.register(_Alias(), name)


def _seconds(text: str) -> float:
    """A number of seconds, read as every vitou command reads one (float() would take "١٢", "nan" and "inf")."""
    from .cli.options import positive_seconds  # loaded only when the option is given

    return positive_seconds(text)


def _count(text: str) -> int:
    """A whole number, 0 or more, read as every vitou command reads one (int() would take "١٢")."""
    from .cli.options import count

    return count(text)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("vitou", "Vitou conformance")
    group.addoption("--vitou-impl", metavar="COMMAND", help="certify this protocol v1 implementation")
    group.addoption("--vitou-ruleset", default="vitou", metavar="ID", help="ruleset to certify (default: vitou)")
    group.addoption("--vitou-suite", metavar="DIR", help="another directory of cases")
    group.addoption("--vitou-timeout", type=_seconds, default=10.0, metavar="SEC", help="per request (default 10)")
    group.addoption(
        "--vitou-start-timeout", type=_seconds, default=30.0, metavar="SEC", help="for the answer to start (default 30)"
    )
    group.addoption(
        "--vitou-max-restarts", type=_count, default=3, metavar="N", help="restarts after a crash or hang (default 3)"
    )
    group.addoption(
        "--vitou-level",
        choices=("code", "outcome"),
        help="what a refused action must report: its error code (code), or only that it is refused (outcome); "
        "default: as the implementation's answer to start says (error_codes), else code",
    )
    from ._limitoptions import (  # a leaf of the standard library: every pytest run pays it
        NO_NETWORK_HELP,
        OPTIONS,
        option_type,
    )

    for name, _field, parse, metavar, text, default in OPTIONS:
        help_text = f"{text} (default {default}; none)"
        group.addoption(f"--vitou-{name}", type=option_type(parse), default=default, metavar=metavar, help=help_text)
    group.addoption("--vitou-no-network", action="store_true", help=NO_NETWORK_HELP)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "vitou_case" in metafunc.fixturenames:
        from .testing import conformance_cases

        cfg = metafunc.config
        cases = conformance_cases(cfg.getoption("--vitou-ruleset"), cfg.getoption("--vitou-suite"))
        metafunc.parametrize("vitou_case", cases, ids=[c.id for c in cases])


@pytest.fixture(scope="session")
def vitou_ruleset(pytestconfig: pytest.Config) -> str:
    return _ruleset_name(pytestconfig)


@pytest.fixture
def vitou_check(vitou_ruleset: str) -> Callable[[Case, Any], None]:
    from .testing import assert_conforms

    def check(case: Case, response: Any) -> None:
        assert_conforms(case, vitou_ruleset, response)

    return check


_CERTIFIER = pytest.StashKey["_Certifying"]()


class _Certifying:
    """The implementation under test for the whole session: one process, restarted like certify restarts it."""

    def __init__(self, certifier: Certifier, run: Run) -> None:
        self.certifier = certifier
        self.run = run


class _ImplItem(pytest.Item):
    def __init__(self, *, case: Case | EnvelopeCase, ruleset: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.ruleset = ruleset

    def runtest(self) -> None:
        from .kit.caseresult import PASSED, SKIPPED

        state = self.config.stash[_CERTIFIER]
        result = state.certifier.one(state.run, self.ruleset, self.case)
        if result.outcome == SKIPPED:
            pytest.skip(result.reason or "skipped")
        if result.outcome != PASSED:
            raise _CaseFailed("\n".join([f"{result.outcome}: {result.reason}", *result.text_lines()[2:-1]]))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, _CaseFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[str, int | None, str]:
        return self.case.source, self.case.line, f"{self.case.id} {self.case.title}"


class _CaseFailed(Exception):
    """A case the implementation did not pass; its message is the first difference, and how many more."""


class _ImplCollector(pytest.Collector):
    def collect(self) -> list[pytest.Item]:
        from .kit.suite import load_suite

        cfg = self.config
        name = _ruleset_name(cfg)
        suite = load_suite(cfg.getoption("--vitou-suite"))
        # The envelope cases (raw protocol lines) come last, as in vitou certify: an implementation that a
        # hostile line brings down has answered every rules case first. Every one runs, under any ruleset: its
        # lines are filled from the ruleset's, and one that cannot apply there is skipped, saying why.
        every: list[Case | EnvelopeCase] = [*suite.applicable(name), *suite.envelope]
        return [_ImplItem.from_parent(self, name=c.id, case=c, ruleset=name) for c in every]


def _ruleset_name(cfg: pytest.Config) -> str:
    """The ruleset asked for, resolved as certify resolves it; a usage error, naming the known ones, otherwise."""
    from .kit.suite import load_suite
    from .rules.errors import InputError, UnknownRuleset

    try:
        suite = load_suite(cfg.getoption("--vitou-suite"))
    except InputError as exc:
        raise pytest.UsageError(f"--vitou-suite: {exc}") from None
    try:
        return suite.resolve(cfg.getoption("--vitou-ruleset"))
    except UnknownRuleset as exc:
        raise pytest.UsageError(f"--vitou-ruleset: {exc}") from None


def _own_rules(cfg: pytest.Config, name: str) -> dict[str, Any]:
    """The suite's own ruleset of that name, if it brings one, which an envelope case's placeholders are filled from
    (a shipped ruleset is found by its name)."""
    from .kit.suite import load_suite
    from .rules.registry import load_rules_file

    own = (load_rules_file(path) for path in load_suite(cfg.getoption("--vitou-suite")).rules_files)
    return {r.name: r for r in own if r.name == name}


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--vitou-impl") is None:
        return
    collector = _ImplCollector.from_parent(session, name="vitou-conformance")
    items.extend(collector.collect())


def pytest_sessionstart(session: pytest.Session) -> None:
    cfg = session.config
    command = cfg.getoption("--vitou-impl")
    if command is None:
        return  # the plugin costs nothing unless asked to certify
    if not command.strip():
        raise pytest.UsageError("--vitou-impl: the command is empty")
    from .kit.certify import Certifier, HarnessError, Options, Run
    from .kit.suite import Suite
    from .protocol.connection import split_command

    for option in ("--vitou-timeout", "--vitou-start-timeout"):
        value = cfg.getoption(option)
        if not (isinstance(value, float) and math.isfinite(value) and value > 0):
            raise pytest.UsageError(f"{option}: {value!r} must be a finite number of seconds above zero")
    try:
        argv = split_command(command)
    except ValueError as exc:
        raise pytest.UsageError(f"--vitou-impl: {exc}") from None
    name = _ruleset_name(cfg)
    from ._limitoptions import OPTIONS
    from .protocol.limits import Limits

    values = {field: cfg.getoption(f"--vitou-{option}") for option, field, *_ in OPTIONS}
    options = Options(
        argv=argv,
        label=command,
        rulesets=[name],
        timeout=cfg.getoption("--vitou-timeout"),
        start_timeout=cfg.getoption("--vitou-start-timeout"),
        max_restarts=cfg.getoption("--vitou-max-restarts"),
        limits=Limits(**values, no_network=cfg.getoption("--vitou-no-network"), prefix="--vitou-"),
        level=cfg.getoption("--vitou-level"),
        rules=_own_rules(cfg, name),
    )
    nothing = Suite("", (), (), {})  # the plugin hands cases over one by one, as pytest runs them
    certifier = Certifier(nothing, {}, options)
    run = Run(options, nothing, time.time())
    try:
        certifier.open(run)
    except HarnessError as exc:
        from .protocol.client import offered_advice, offers_none

        hello = certifier.peer.hello
        offered = hello.rulesets if hello is not None and offers_none(options.rulesets, hello.rulesets) else ()
        raise pytest.UsageError(f"--vitou-impl: {exc}{offered_advice(offered, '--vitou-ruleset')}") from None
    cfg.stash[_CERTIFIER] = _Certifying(certifier, run)


def pytest_report_header(config: pytest.Config) -> str | None:
    state = config.stash.get(_CERTIFIER, None)
    if state is None:
        return None
    # Said before any test: an outcome-level pass does not check the error codes of refused actions.
    return f"vitou: certifying {state.run.options.rulesets[0]} at the {state.run.level} level"


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    state = config.stash.get(_CERTIFIER, None)
    if state is not None and state.run.fatal is not None:
        # Why every case after one failed: the restarts were spent, or a start answered as another implementation.
        terminalreporter.write_line(f"vitou: stopped early: {state.run.fatal}", red=True, bold=True)


def pytest_sessionfinish(session: pytest.Session) -> None:
    state = session.config.stash.get(_CERTIFIER, None)
    if state is not None:
        state.certifier.close()  # the run stays for the terminal summary, which pytest writes after this hook
