"""A pytest plugin: one test per conformance case. Enable it with ``-p vitou_ref.pytest_plugin``.

Two ways to use it:

* ``pytest -p vitou_ref.pytest_plugin --vitou-impl "COMMAND"`` certifies an
  implementation speaking protocol v1, one test per case id, with no test code.
* In-process: a test that takes the ``vitou_case`` fixture is run once per
  case; answer ``vitou_case.request(1, vitou_ruleset)`` with your engine and
  pass the answer to ``vitou_check``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from ._connection import Connection, split_command
from ._fixtures import Case
from .testing import assert_conforms, conformance_cases


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("vitou", "Vitou conformance")
    group.addoption("--vitou-impl", metavar="COMMAND", help="certify this protocol v1 implementation")
    group.addoption("--vitou-ruleset", default="vitou", metavar="ID", help="ruleset to certify (default: vitou)")
    group.addoption("--vitou-suite", metavar="DIR", help="another directory of cases")
    group.addoption("--vitou-timeout", type=float, default=10.0, metavar="SEC")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "vitou_case" in metafunc.fixturenames:
        cfg = metafunc.config
        cases = conformance_cases(cfg.getoption("--vitou-ruleset"), cfg.getoption("--vitou-suite"))
        metafunc.parametrize("vitou_case", cases, ids=[c.id for c in cases])


@pytest.fixture(scope="session")
def vitou_ruleset(pytestconfig: pytest.Config) -> str:
    from ._registry import resolve_name

    name: str = pytestconfig.getoption("--vitou-ruleset")
    return name if "/" in name else resolve_name(name)


@pytest.fixture
def vitou_check(vitou_ruleset: str) -> Callable[[Case, Any], None]:
    def check(case: Case, response: Any) -> None:
        assert_conforms(case, vitou_ruleset, response)

    return check


class _ImplItem(pytest.Item):
    def __init__(self, *, case: Case, ruleset: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.ruleset = ruleset

    def runtest(self) -> None:
        conn: Connection = self.session.config._vitou_conn  # type: ignore[attr-defined]
        timeout = self.config.getoption("--vitou-timeout")
        request = self.case.request(1, self.ruleset)
        raw = conn.exchange((json.dumps(request) + "\n").encode(), timeout)
        assert_conforms(self.case, self.ruleset, json.loads(raw))

    def reportinfo(self) -> tuple[str, int | None, str]:
        return self.case.source, self.case.line, f"{self.case.id} {self.case.title}"


class _ImplCollector(pytest.Collector):
    def collect(self) -> list[pytest.Item]:
        from ._registry import resolve_name

        cfg = self.config
        name = cfg.getoption("--vitou-ruleset")
        name = name if "/" in name else resolve_name(name)
        cases = conformance_cases(name, cfg.getoption("--vitou-suite"))
        return [_ImplItem.from_parent(self, name=c.id, case=c, ruleset=name) for c in cases]


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("--vitou-impl"):
        return
    collector = _ImplCollector.from_parent(session, name="vitou-conformance")
    items.extend(collector.collect())


def pytest_sessionstart(session: pytest.Session) -> None:
    command = session.config.getoption("--vitou-impl")
    if command:
        conn = Connection(split_command(command))
        conn.open()
        hello = json.loads(conn.exchange(b'{"cmd":"start","protocol":1}\n', 30.0))
        if hello.get("protocol") != 1:
            raise pytest.UsageError(f"--vitou-impl: bad answer to start: {hello}")
        session.config._vitou_conn = conn  # type: ignore[attr-defined]


def pytest_sessionfinish(session: pytest.Session) -> None:
    conn = getattr(session.config, "_vitou_conn", None)
    if conn is not None:
        conn.close(b'{"cmd":"stop"}\n')
