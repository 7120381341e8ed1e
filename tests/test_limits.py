"""The implementation under test runs under limits a user sets, and without network when asked."""

from __future__ import annotations

import json
import os
import resource
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from chains import TRACE_VAR, chain_alive, end_chain

import vitou_ref
from vitou_ref.protocol import limits as L
from vitou_ref.protocol.connection import Connection, Fault
from vitou_ref.protocol.limits import Limits

HERE = Path(__file__).resolve().parent
HOSTILE = HERE / "fakes" / "hostile_impl.py"
SMALL = HERE / "data" / "small_suite.yaml"
PACKAGE_ROOT = str(Path(vitou_ref.__file__).resolve().parent.parent)
START = b'{"cmd":"start","protocol":1}\n'
RUN = (
    json.dumps(
        {
            "cmd": "run",
            "seq": 1,
            "ruleset": "vitou/1.0.0",
            "setup": {
                "dealer": "W",
                "deals": [
                    {"N": ["9C", "7D", "8S"], "E": ["AH", "KS", "QH"], "S": ["7S", "JD", "QC"], "W": ["8D", "KC", "JS"]}
                ],
            },
            "actions": [],
        }
    ).encode()
    + b"\n"
)
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the limits tested here are Linux's")


def _crash(mode: str, limits: Limits, cwd: Path) -> str:
    """The fault of a hostile mode that attacks at its first run request, under ``limits``."""
    conn = Connection([sys.executable, str(HOSTILE), mode, "--at", "1"], limits=limits, cwd=str(cwd))
    try:
        conn.open()
        conn.exchange(START, 30.0)
        with pytest.raises(Fault) as caught:
            conn.exchange(RUN, 60.0)
    finally:
        conn.kill()
    assert caught.value.kind == "exited", caught.value.message
    return caught.value.message


# ---------------------------------------------------------------- a limit passed is a crash that names it


@linux_only
def test_a_memory_balloon_ends_as_a_crash_naming_the_memory_limit(tmp_path: Path) -> None:
    # Fails before the fix: there was no memory limit; the balloon took the machine's memory.
    message = _crash("memory_balloon", Limits(memory=256 << 20), tmp_path)
    assert "memory limit is 256 MiB (--limit-memory)" in message


@linux_only
def test_a_disk_filler_is_stopped_at_the_file_size_limit(tmp_path: Path) -> None:
    message = _crash("disk_filler", Limits(file_size=8 << 20), tmp_path)
    assert "SIGXFSZ" in message and "file size limit of 8 MiB (--limit-file-size)" in message
    written = tmp_path / "vitou-hostile-disk-filler.bin"
    assert written.stat().st_size <= 8 << 20  # RLIMIT_FSIZE: not one byte past the limit


@linux_only
def test_an_fd_opener_is_stopped_at_the_open_files_limit(tmp_path: Path) -> None:
    message = _crash("fd_opener", Limits(open_files=64), tmp_path)
    assert "open files limit is 64 files (--limit-open-files)" in message
    assert "after 6" in message  # 64 descriptors, less those open at start: never the harness's 20,000


@linux_only
def test_a_cpu_spinner_ends_as_a_crash_naming_the_cpu_limit(tmp_path: Path) -> None:
    message = _crash("cpu_spinner", Limits(cpu=2), tmp_path)
    assert "SIGXCPU" in message and "CPU time limit of 2 s (--limit-cpu)" in message


@linux_only
def test_certify_reports_the_limit_in_the_case_reason(tmp_path: Path) -> None:
    impl = f"{sys.executable} {HOSTILE} memory_balloon"
    report = tmp_path / "report.jsonl"
    argv = [sys.executable, "-m", "vitou_ref", "certify", "--impl", impl, "--suite", str(SMALL)]
    argv += ["--limit-memory", "256M", "--max-restarts", "1", "--report", str(report)]
    done = subprocess.run(argv, cwd=tmp_path, env=_env(), check=False, capture_output=True, timeout=120)
    assert done.returncode == 1, done.stderr
    cases = [c for c in map(json.loads, report.read_text().splitlines()) if c.get("type") == "case"]
    crashed = [c for c in cases if c.get("fault") == "crash"]
    assert crashed and all("memory limit is 256 MiB (--limit-memory)" in c["reason"] for c in crashed), cases


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (PACKAGE_ROOT, os.environ.get("PYTHONPATH")) if p)
    return env


# ---------------------------------------------------------------- the defaults let an honest engine run


def test_the_defaults_are_the_ones_the_help_states() -> None:
    stated = {field: parse(default) for _, field, parse, _, _, default in L.OPTIONS}
    limits = Limits()
    assert stated == {
        "memory": limits.memory,
        "cpu": limits.cpu,
        "file_size": limits.file_size,
        "open_files": limits.open_files,
    }
    assert (limits.memory, limits.cpu, limits.file_size, limits.open_files) == (4 << 30, 3600, 1 << 30, 1024)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_node_runs_under_the_default_limits() -> None:
    # RLIMIT_AS would break V8, which reserves far more address space than it uses; RLIMIT_DATA counts only
    # what is written to. A node engine must run under the defaults, with a heap of its own.
    code = (
        "process.stdin.once('data', () => { const a = new Array(4e6).fill(7); console.log(a.length); process.exit(0) })"
    )
    conn = Connection(["node", "-e", code], limits=Limits())
    try:
        conn.open()
        assert conn.exchange(b"go\n", 60.0) == b"4000000"
    finally:
        conn.kill()


def test_the_reference_certifies_under_the_default_limits(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "vitou_ref", "certify", "--smoke"]
    done = subprocess.run(argv, cwd=tmp_path, env=_env(), check=False, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


@linux_only
def test_a_limit_is_never_above_what_the_harness_runs_under() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    asked = Limits(open_files=hard + 1000 if hard != resource.RLIM_INFINITY else 10**6)
    (entry,) = [r for r in asked.rlimits() if r[0] == "RLIMIT_NOFILE"]
    assert hard == resource.RLIM_INFINITY or entry[1:] == (hard, hard)


@pytest.mark.parametrize(
    ("text", "value"), [("4G", 4 << 30), ("512MiB", 512 << 20), ("65536", 65536), ("1k", 1024), ("none", None)]
)
def test_sizes_are_read_in_powers_of_1024(text: str, value: int | None) -> None:
    assert L.parse_size(text) == value


@pytest.mark.parametrize("text", ["0", "-1", "4X", "1.5G", ""])
def test_a_size_that_is_none_is_refused_with_a_usage_error(text: str, tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "vitou_ref", "certify", "--smoke", "--limit-file-size", text]
    done = subprocess.run(argv, cwd=tmp_path, env=_env(), check=False, capture_output=True, timeout=60)
    assert done.returncode == 2 and b"--limit-file-size" in done.stderr


def test_a_missing_program_is_still_said_so_through_the_wrapper() -> None:
    conn = Connection(["/nonexistent/engine"], limits=Limits())
    with pytest.raises(Fault) as caught:
        conn.open()
    assert caught.value.kind == "spawn"
    assert "cannot start '/nonexistent/engine'" in caught.value.message and "No such file" in caught.value.message


# ---------------------------------------------------------------- no network


NET_TRY = (
    "import socket, sys\n"
    "sys.stdin.readline()\n"
    "try:\n"
    "    socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=5).close()\n"
    "    print('connected', flush=True)\n"
    "except OSError as exc:\n"
    "    print('no network:', exc.errno, flush=True)\n"
)


def _try_connect(no_network: bool) -> bytes:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        conn = Connection([sys.executable, "-c", NET_TRY, str(port)], limits=Limits(no_network=no_network))
        try:
            conn.open()
            return conn.exchange(b"go\n", 30.0)
        finally:
            conn.kill()


@linux_only
def test_without_network_the_implementation_cannot_reach_the_loopback() -> None:
    assert _try_connect(False) == b"connected"  # the test itself can: the listener is there
    try:
        answer = _try_connect(True)
    except Fault as exc:
        pytest.skip(f"this system gives no network namespace: {exc.message}")
    assert answer.startswith(b"no network:"), answer  # a fresh namespace's loopback is down


@linux_only
def test_the_reference_still_certifies_without_network(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "vitou_ref", "certify", "--smoke", "--no-network"]
    done = subprocess.run(argv, cwd=tmp_path, env=_env(), check=False, capture_output=True, timeout=120)
    if done.returncode == 2 and b"--no-network" in done.stderr:
        pytest.skip(done.stderr.decode())
    assert done.returncode == 0, done.stdout + done.stderr


def test_without_network_namespaces_no_network_is_refused_plainly(monkeypatch: pytest.MonkeyPatch) -> None:
    # Never run with network when asked for none: where the system cannot, the implementation is not started.
    monkeypatch.setattr(L.sys, "platform", "darwin")
    conn = Connection([sys.executable, "-c", "pass"], limits=Limits(no_network=True, prefix="--vitou-"))
    with pytest.raises(Fault) as caught:
        conn.open()
    assert caught.value.kind == "spawn" and conn.proc is None
    assert caught.value.message.startswith("--vitou-no-network: ") and "not started" in caught.value.message


# ---------------------------------------------------------------- fork chains through the command


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
def test_certify_against_a_fork_chain_leaves_nothing_20_runs_in_a_row(tmp_path: Path) -> None:
    survived = []
    for n in range(20):
        trace = tmp_path / f"trace-{n}"
        env = {**_env(), TRACE_VAR: str(trace)}
        argv = [sys.executable, "-m", "vitou_ref", "certify", "--impl", f"{sys.executable} {HOSTILE} fork_chain"]
        done = subprocess.run(
            [*argv, "--suite", str(SMALL)], cwd=tmp_path, env=env, check=False, capture_output=True, timeout=120
        )
        try:
            assert done.returncode == 0, done.stdout + done.stderr
            if chain_alive(trace):
                survived.append(n)
        finally:
            end_chain(trace)
    assert not survived, f"the chain outlived {len(survived)} certify runs of 20: {survived}"
