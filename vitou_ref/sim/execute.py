"""Ranges of matches played on any concurrent.futures executor: processes here, a Dask cluster, or this process."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from typing import Any

from ..engine.tables import Tables
from .figures import Figures
from .paired import Pairs
from .run import Lineup, play_units

Part = tuple[list[Figures], Pairs]


def combine(total: Part | None, part: Part) -> Part:
    """Two ranges' counts as one (a sum: the order they come in changes nothing)."""
    if total is None:
        return part
    for mine, theirs in zip(total[0], part[0]):
        mine.add(theirs)
    total[1].add(part[1])
    return total


class Inline(Executor):
    """An executor that runs each task at once, in this process: one loop for one process and for many."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        fut: Future[Any] = Future()
        try:
            fut.set_result(fn(*args, **kwargs))
        except BaseException as exc:
            if not isinstance(exc, Exception):
                raise
            fut.set_exception(exc)
        return fut


@contextlib.contextmanager
def process_pool(jobs: int, tasks: int) -> Iterator[ProcessPoolExecutor]:
    """Processes of this machine, ended at once when the run stops (^C, SIGTERM, an error)."""
    # spawn: a fresh interpreter per worker, as on macOS; forking a parent that may hold threads is not safe.
    # Workers ignore ^C: the parent alone stops the run, cancelling what has not started, without a traceback
    # from every process.
    pool = ProcessPoolExecutor(
        # More processes than twice the cores buys nothing and costs a start each: --jobs 100000 is not 100000.
        max_workers=max(1, min(jobs, tasks, 2 * (os.cpu_count() or 1))),
        mp_context=multiprocessing.get_context("spawn"),
        initializer=signal.signal,
        initargs=(signal.SIGINT, signal.SIG_IGN),
    )
    finished_ok = False
    try:
        yield pool
        finished_ok = True
    except BaseException:
        end_workers(pool)
        raise
    finally:
        pool.shutdown(wait=finished_ok, cancel_futures=True)


HANDSHAKE_SECONDS = 30.0  # Dask's own default to connect; its handshake, which has none, is held to it too


class SchedulerSilent(TimeoutError):
    """The scheduler took the connection and never answered Dask's handshake within the bound."""


class NoWorkers(TimeoutError):
    """The scheduler answered, but no worker joined it within the bound: nothing would ever be played."""


@contextlib.contextmanager
def dask_executor(address: str, timeout: float = HANDSHAKE_SECONDS) -> Iterator[tuple[Executor, int]]:
    """The executor of the Dask cluster at ``address`` and its number of worker threads; Dask is imported here
    only, and only installed with the extra vitou[dask]. OSError when it cannot be reached within ``timeout``
    seconds, SchedulerSilent when it takes the connection and says nothing."""
    import importlib

    # Through importlib: Dask's types are partial, and mypy must pass with and without the extra.
    distributed: Any = importlib.import_module("distributed")
    client = _connect(distributed, address, timeout)
    try:
        try:
            client.wait_for_workers(1, timeout=timeout)
        except Exception:  # Dask's TimeoutError, whichever class it is in this version
            raise NoWorkers(f"no worker joined the scheduler within {timeout:g} s") from None
        yield client.get_executor(), max(1, sum(client.nthreads().values()))
    finally:
        client.close()


def _connect(distributed: Any, address: str, timeout: float) -> Any:
    """A Dask client of the scheduler at ``address``, made within ``timeout`` seconds or not at all.

    Dask bounds the connection by its timeout, but not the handshake after it: a peer that accepts and says
    nothing holds Client() forever. It is made in a thread of its own, given up on at the deadline; should it
    be made after all, that thread closes it.
    """
    _handshake(distributed, address, timeout)
    made: dict[str, Any] = {}
    lock = threading.Lock()

    def make() -> None:
        try:
            client = distributed.Client(address, timeout=timeout, set_as_default=False)
        except Exception as exc:  # whatever the peer sent: reported below as not reached
            made["error"] = exc
            return
        with lock:
            if made.get("abandoned"):
                client.close()
            else:
                made["client"] = client

    thread = threading.Thread(target=make, name="vitou-scheduler-connect", daemon=True)
    thread.start()
    thread.join(timeout + 1.0)  # Dask's own timeout first, when it applies: its message says more
    with lock:
        if "client" in made:
            return made["client"]
        made["abandoned"] = True
    error = made.get("error")
    if error is None:
        raise SchedulerSilent(f"no answer to Dask's handshake within {timeout:g} s")
    if isinstance(error, OSError):
        raise error
    raise ConnectionError(f"{type(error).__name__}: {error}")


def _handshake(distributed: Any, address: str, timeout: float) -> None:
    """Dask's handshake with the scheduler, alone and bounded: a peer that is silent, or answers what Dask cannot
    read, is found here, before a Client is made (a Client that fails half-made hangs on its way out)."""
    import asyncio

    async def probe() -> None:
        # A second more than Dask's own bound on connecting: a peer never reached is Dask's OSError, which says so.
        comm = await asyncio.wait_for(distributed.comm.connect(address, timeout=timeout), timeout + 1.0)
        await comm.close()

    try:
        asyncio.run(probe())
    except (asyncio.TimeoutError, TimeoutError):  # one class from Python 3.11 on
        raise SchedulerSilent(f"no answer to Dask's handshake within {timeout:g} s") from None
    except OSError:
        raise
    except Exception as exc:  # whatever the peer sent that Dask could not read
        raise ConnectionError(f"{type(exc).__name__}: {exc}") from None


Task = tuple[Sequence[str | Tables], Lineup, int, int, int, str]  # the arguments of play_units for one range


def run_all(executor: Executor, tasks: Sequence[Task], progress: Callable[[int], None] | None) -> Part:
    """Every range, in whatever order they finish."""
    futures = {executor.submit(play_units, *task): task[4] - task[3] for task in tasks}
    total: Part | None = None
    done = 0
    # No cancelling here when the run stops: the executor's owner ends it (the processes of this machine ended at
    # once, a cluster's client closed); a future cancelled before the pool ends its workers breaks the pool.
    pending: set[Future[Part]] = set(futures)
    while pending:
        finished, pending = wait(pending, return_when=FIRST_COMPLETED)
        for fut in finished:
            total = combine(total, fut.result())
            done += futures[fut]
            if progress is not None:
                progress(done)
    assert total is not None
    return total


def run_in_order(
    executor: Executor,
    tasks: Iterator[Task],
    window: int,
    enough: Callable[[Part], bool],
    progress: Callable[[int], None] | None,
) -> tuple[Part, bool]:
    """Ranges (checkpoints) counted strictly in order until ``enough`` says so after one, ``window`` of them played
    ahead: the stop is the same on one process, many, or a cluster. Returns the counts and whether ``enough``
    stopped the run (rather than the end of the tasks)."""
    ahead: deque[tuple[Future[Part], int]] = deque()
    total: Part | None = None
    done = 0
    while True:
        while len(ahead) < window:
            task = next(tasks, None)
            if task is None:
                break
            ahead.append((executor.submit(play_units, *task), task[4] - task[3]))
        if not ahead:
            break
        fut, size = ahead.popleft()
        total = combine(total, fut.result())
        done += size
        if progress is not None:
            progress(done)
        if enough(total):
            for later, _ in ahead:  # played ahead of the stop: never counted, and not played if not started
                later.cancel()
            return total, True
    assert total is not None
    return total, False


def end_workers(pool: ProcessPoolExecutor) -> None:
    """The workers of a run that stops (^C, SIGTERM, an error) ended now.

    They ignore ^C, and the pool would let each play its whole range, then
    wait for them as the interpreter exits; and a signal to the parent alone
    would leave them running after it. The pool has no public way to end
    them before Python 3.14's terminate_workers.
    """
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for p in processes:
        with contextlib.suppress(Exception):  # already gone, or never started
            p.terminate()
    deadline = time.monotonic() + 2.0
    for p in processes:
        with contextlib.suppress(Exception):
            p.join(max(0.0, deadline - time.monotonic()))
            if p.is_alive():
                p.kill()
                p.join(1.0)


__all__ = [
    "HANDSHAKE_SECONDS",
    "Inline",
    "NoWorkers",
    "Part",
    "SchedulerSilent",
    "Task",
    "combine",
    "dask_executor",
    "end_workers",
    "process_pool",
    "run_all",
    "run_in_order",
]
