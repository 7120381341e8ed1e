"""vitou simulate --scheduler: a local Dask cluster of two workers gives the figures of one process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from vitou_ref.cli import main

TIMING = ("seconds", "matches_per_second", "merged_from")
ROOT = Path(__file__).resolve().parents[1]


def untimed(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["simulate", "--format", "json", *args]) == 0
    rep: dict[str, Any] = json.loads(capsys.readouterr().out)
    return json.dumps({k: v for k, v in rep.items() if k not in TIMING}, sort_keys=True)


@pytest.fixture(scope="module")
def cluster() -> Any:
    distributed = pytest.importorskip("distributed")
    # The workers are processes of their own: they import vitou from where this test does.
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = path
    try:
        with distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
        ) as c:
            yield c
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


@pytest.mark.parametrize(
    "args",
    [
        ("--ruleset", "vitou", "--ruleset", "vitou-partners-tie", "--matches", "60", "--seed", "5"),
        ("--against", "heuristic", "--duplicate", "--until-width", "1.5", "--checkpoint", "10"),
        ("--players", "heuristic", "--against", "random", "--sprt", "0.6", "0.85", "--checkpoint", "10"),
    ],
    ids=["fixed", "until-width", "sprt"],
)
def test_a_dask_cluster_gives_the_figures_of_one_process(
    cluster: Any, args: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    assert untimed(capsys, *args, "--scheduler", cluster.scheduler_address) == untimed(capsys, *args, "--jobs", "1")


def test_any_executor_runs_the_simulation() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from vitou_ref.sim.run import Lineup
    from vitou_ref.sim.shards import simulate

    alone = simulate(["vitou"], Lineup(), 3, 0, 30)
    with ThreadPoolExecutor(2) as ex:
        threaded = simulate(["vitou"], Lineup(), 3, 0, 30, executor=ex, window=2)
    assert threaded.to_saved() == alone.to_saved()


def test_an_unreachable_scheduler_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("distributed")
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        assert main(["simulate", "--matches", "2", "--scheduler", "tcp://127.0.0.1:9"]) == 2
    assert "cannot reach the scheduler" in capsys.readouterr().err


def test_the_base_command_never_imports_dask(tmp_path: Path) -> None:
    code = (
        "import sys; from vitou_ref.cli import main; "
        "assert main(['simulate', '--matches', '3', '--jobs', '2', '--format', 'json', "
        f"'-o', {str(tmp_path / 'r.json')!r}]) == 0; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed', 'matplotlib')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().endswith("[]")


def test_scheduler_without_dask_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from vitou_ref.cli.sim import Request, simulate
    from vitou_ref.rules.errors import InputError

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "distributed" else real(name, *a))
    with pytest.raises(InputError) as caught:
        simulate(Request(scheduler="tcp://127.0.0.1:8786"))
    assert "pip install 'vitou[dask]'" in str(caught.value)
