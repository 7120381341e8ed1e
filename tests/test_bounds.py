"""Bounded work: a scheduler that never answers, an analysis too large, a record too long; each bound in the help."""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import random
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import ROOT

from vitou_ref import Match, load_ruleset
from vitou_ref.audit import record
from vitou_ref.cli import analyze as cli_analyze
from vitou_ref.cli import audit as cli_audit
from vitou_ref.cli import sim as cli_sim
from vitou_ref.cli.main import build_parser, main
from vitou_ref.engine.randomplay import play_out
from vitou_ref.engine.tables import tables_for
from vitou_ref.solve import analyze as solve_analyze
from vitou_ref.solve.solver import Solver

needs_dask = pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason="needs vitou[dask]")


def _help(command: str) -> str:
    """The help of ``vitou COMMAND``, its lines joined as one."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return " ".join(sub.choices[command].format_help().split())


# ------------------------------------------------------------------ a scheduler that never answers


@contextlib.contextmanager
def _silent_server() -> Iterator[int]:
    """A port on the loopback interface that accepts every connection and never sends a byte."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            with contextlib.suppress(OSError):
                held.append(server.accept()[0])

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        thread.join(2)
        for conn in held:
            conn.close()
        server.close()


@needs_dask
def test_a_scheduler_that_accepts_and_says_nothing_is_given_up_on(tmp_path: Path) -> None:
    # Dask bounds connecting, not its handshake: Client() waited forever on a peer that accepts and is silent.
    # In a process of its own, so that a wait without end fails the test instead of holding the suite.
    with _silent_server() as port:
        argv = [sys.executable, "-m", "vitou_ref", "simulate", "--matches", "2"]
        argv += ["--scheduler", f"127.0.0.1:{port}", "--scheduler-timeout", "1"]
        start = time.monotonic()
        done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stderr
    assert "--scheduler:" in done.stderr and "--scheduler-timeout" in done.stderr
    assert "did not answer Dask's handshake within 1 s" in done.stderr
    assert time.monotonic() - start < 30  # the bound, a second's grace, and an interpreter's start


@needs_dask
def test_a_scheduler_without_workers_is_given_up_on(tmp_path: Path) -> None:
    # A scheduler that answers, with no worker: every range submitted waited for one for ever.
    from distributed import LocalCluster

    with LocalCluster(n_workers=0, processes=False, protocol="tcp", dashboard_address=None) as cluster:
        argv = [sys.executable, "-m", "vitou_ref", "simulate", "--matches", "2"]
        argv += ["--scheduler", cluster.scheduler_address, "--scheduler-timeout", "1"]
        done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stderr
    assert "the scheduler has no worker: none joined within 1 s (--scheduler-timeout)" in done.stderr


def test_the_handshake_bound_is_stated_in_the_help() -> None:
    from vitou_ref.sim.execute import HANDSHAKE_SECONDS

    assert cli_sim.HANDSHAKE == HANDSHAKE_SECONDS
    text = _help("simulate")
    assert "--scheduler-timeout SEC" in text and f"(default: {cli_sim.HANDSHAKE})" in text


def test_a_scheduler_timeout_needs_a_scheduler(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--matches", "2", "--scheduler-timeout", "5"]) == 2
    assert "--scheduler-timeout" in capsys.readouterr().err


# ------------------------------------------------------------------ simulate: a search's budget


def test_a_search_budget_has_a_bound(capsys: pytest.CaptureFixture[str]) -> None:
    # Each deal a search samples is a match held in memory while it decides: --budget 999999999999999999 took
    # 23 GB in minutes before its first decision. At most 10,000 (625 times the default of 16, ~50 MB).
    from vitou_ref.cli.main import parse_args
    from vitou_ref.cli.options import MAX_BUDGET as STATED
    from vitou_ref.players.search import MAX_BUDGET, SearchPlayer

    assert STATED == MAX_BUDGET == 10_000
    assert parse_args(["simulate", "--players", "search", "--budget", "10000"]).budget == MAX_BUDGET
    with pytest.raises(SystemExit) as stop:
        parse_args(["simulate", "--players", "search", "--budget", "10001"])
    assert stop.value.code == 2 and "argument --budget:" in capsys.readouterr().err
    with pytest.raises(ValueError, match="at most 10,000"):
        SearchPlayer(1, budget=MAX_BUDGET + 1)
    assert "at most 10,000 (default: their own, 16)" in _help("simulate")


# ------------------------------------------------------------------ analyze: a work budget

BIG_PACK = """\
format: 1
profile:
  id: big-pack
  version: 1.0.0
  title: Two players, the 52 cards of the French pack
  extends: vitou-2p/1.0.0
changelog:
  - {version: 1.0.0, date: "2026-12-04", changes: [Every card of the French pack.]}
operations:
  - replace: deck.cards
    with:
      id: bp.cards
      section: "01"
      title: The pack of 52 cards
      text: The game is played with the 52 cards of the French pack.
      rule: deck
      data:
        suits:
          - {id: S, name: spades, symbol: "S"}
          - {id: H, name: hearts, symbol: "H"}
          - {id: D, name: diamonds, symbol: "D"}
          - {id: C, name: clubs, symbol: "C"}
        ranks: ["10", "9", "A", "K", "Q", "J", "8", "7", "6", "5", "4", "3", "2"]
  - replace: deck.rank_order
    with:
      id: bp.rank_order
      section: "01"
      title: Rank order
      text: The ranks, from highest to lowest, are 10 9 A K Q J 8 7 6 5 4 3 2.
      rule: rank_order
      data:
        highest_first: ["10", "9", "A", "K", "Q", "J", "8", "7", "6", "5", "4", "3", "2"]
"""


def test_analyze_over_its_work_budget_stops_naming_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two players and the 52-card pack: every deal is solved, 167,000 rank deals and about 7,000,000 positions,
    # half a minute of one core, with tables that grew without a bound before. A budget of 200,000 stops it at once.
    pack = tmp_path / "big-pack.yaml"
    pack.write_text(BIG_PACK, encoding="utf-8")
    start = time.process_time()
    assert main(["analyze", "--ruleset", str(pack), "--max-positions", "200000"]) == 2
    assert time.process_time() - start < 20
    err = capsys.readouterr().err
    assert "--max-positions: ANALYZE_BUDGET" in err and "more than 200,000 positions" in err
    assert "--sample" not in err  # two players: every deal is solved, whatever --sample says
    assert main(["analyze", "--ruleset", "vitou", "--sample", "50", "--max-positions", "1000"]) == 2
    assert "or a smaller --sample" in capsys.readouterr().err


def test_the_budget_never_changes_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["analyze", "--ruleset", "vitou", "--ruleset", "vitou-2p", "--sample", "30", "--format", "json"]
    assert main(argv) == 0
    figures = json.loads(capsys.readouterr().out)
    assert main([*argv, "--max-positions", "5000000"]) == 0
    assert json.loads(capsys.readouterr().out) == figures


def test_the_solver_tables_keep_at_most_their_bound_and_the_values_do_not_move() -> None:
    t = tables_for(load_ruleset("vitou/1.1.0"))
    rng = random.Random(3)
    small, free = Solver(t, 0, max_memo=40), Solver(t, 0)
    for _ in range(30):
        cards = rng.sample(t.deck, 12)
        hands = [cards[i * 3 : i * 3 + 3] for i in range(4)]
        pos = small.position(hands, t.first_leader[0])
        assert small.value(pos) == free.value(pos)
        for table in (small._memo, small._inside, small._keep, small._moves):
            assert len(table) <= 40  # emptied when full, before an entry is added
    assert len(free._memo) > 40


def test_the_work_budget_is_stated_in_the_help() -> None:
    assert cli_analyze.MAX_POSITIONS == solve_analyze.DEFAULT_POSITIONS
    assert cli_analyze.TABLE_POSITIONS == solve_analyze.TABLE_POSITIONS
    text = _help("analyze")
    assert f"(default: {cli_analyze.MAX_POSITIONS})" in text and "250,000 positions each" in text


# ------------------------------------------------------------------ a record's length

HEADER = """\
format: 1
header:
  ruleset: vitou/1.0.0
  dealer: W
deals:
  - {N: [AS, 7H, 8C], E: [9C, KD, JH], S: [10H, QS, 8D], W: [7C, AD, 9S]}
"""


def _notation_record(tmp_path: Path, n: int) -> str:
    path = tmp_path / f"actions-{n}.yaml"
    path.write_text(HEADER + "actions: |\n  " + " ".join(["N AS"] * n) + "\n", encoding="utf-8")
    return str(path)


def test_a_random_match_is_far_inside_the_bound() -> None:
    # The bound's premise: 100 matches played at random under each shipped base ruleset take at most a few hundred
    # actions (1,000 such matches: 167 at most); the bound is fifty times that.
    for name in ("vitou/1.0.0", "vitou/1.1.0", "le-truc/1.0.0"):
        rules = load_ruleset(name)
        for seed in range(100):
            rng = random.Random(seed)
            assert sum(1 for _ in play_out(Match.random(rules, rng), rng)) < record.MAX_ACTIONS // 50


@pytest.mark.parametrize("n", [record.MAX_ACTIONS + 1, 200_000])
def test_a_record_over_the_bound_is_refused_before_it_is_replayed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], n: int
) -> None:
    # 200,000 actions fit in the 1 MiB a record may take ("N AS " is five bytes); their audit took tens of
    # seconds and over a gigabyte.
    path = _notation_record(tmp_path, n)
    start = time.process_time()
    assert main(["audit", path, "--continue"]) == 2
    assert time.process_time() - start < 5
    err = capsys.readouterr().err
    assert "RECORD_TOO_LONG at /actions" in err and "at most 10,000" in err
    assert main(["record", path]) == 2
    assert "RECORD_TOO_LONG" in capsys.readouterr().err


def test_a_record_at_the_bound_is_audited(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # N AS is legal once; then N holds no AS (CARD_NOT_HELD) or it is not N's turn: 1 legal, 9,999 illegal.
    assert main(["audit", _notation_record(tmp_path, record.MAX_ACTIONS), "--continue"]) == 1
    assert "1 legal, 9999 illegal of 10000 actions" in capsys.readouterr().out


@pytest.mark.parametrize(
    "body",
    [
        {"actions": [{"seat": "N", "act": "play", "card": "AS"}] * (record.MAX_ACTIONS + 1)},
        {"actions": [" ".join(["N AS"] * record.MAX_ACTIONS), {"seat": "N", "act": "play", "card": "AS"}]},
        {"actions": "N AS", "claims": [{"at": 1, "claim": "x"}] * (record.MAX_ACTIONS + 1)},
        {"actions": "N AS", "annotations": [{"at": 1, "note": "x"}] * (record.MAX_ACTIONS + 1)},
    ],
    ids=["protocol-actions", "notation-and-protocol", "claims", "annotations"],
)
def test_every_list_of_a_record_is_bounded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: dict[str, object]
) -> None:
    doc = {
        "format": 1,
        "header": {"ruleset": "vitou/1.0.0", "dealer": "W"},
        "deals": [
            {"N": ["AS", "7H", "8C"], "E": ["9C", "KD", "JH"], "S": ["10H", "QS", "8D"], "W": ["7C", "AD", "9S"]}
        ],
        **body,
    }
    path = tmp_path / "record.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["audit", str(path)]) == 2
    assert "RECORD_TOO_LONG" in capsys.readouterr().err


def test_the_record_bound_is_stated_in_the_help() -> None:
    assert (cli_audit.RECORD_BYTES, cli_audit.RECORD_ACTIONS) == (record.MAX_RECORD_BYTES, record.MAX_ACTIONS)
    for command in ("audit", "record"):
        assert "at most 1 MiB, holding at most 10,000 actions" in _help(command)


def test_the_shipped_disputes_are_well_inside_the_bound() -> None:
    for path in sorted((ROOT / "conformance" / "disputes").glob("*.yaml")):
        if path.name != "expected.yaml":
            rec, _ = record.load_record(str(path))
            assert len(rec.actions) < record.MAX_ACTIONS
