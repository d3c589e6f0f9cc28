"""The same ordered work on an existing Dask cluster (``--scheduler ADDRESS``).

``in_order(work, batches, scheduler, lost)`` submits one task per batch to the
cluster's scheduler (``tcp://host:8786``, or a ``distributed.Client``) and yields the
results in the order of the items, exactly as ``replay.parallel.in_order`` does on
local processes: the workers open the logs themselves (URLs, or paths they mount),
only results travel back. Dask schedules; earlier batches get a higher priority, so
results arrive roughly in the order they are needed and few wait here.

A worker that dies has its task rerun elsewhere by Dask; a task that kills every
worker that tries it (``KilledWorker``, after Dask's ``allowed-failures``) is split
and its items tried alone, one after another (so they never share a dying worker),
and only the item that kills workers is ``lost``.
A batch marked ``here`` (standard input) runs in this process.

``dask[distributed]`` is the optional extra ``dask``, imported only here.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from replay.extras import require
from replay.parallel import Batch, Entry, Lost, Part, Window, run_items, settle
from replay.urls import network_timeout, redact, scrub

T = TypeVar("T")
R = TypeVar("R")

TASKS_PER_THREAD = 4
"""Batches in flight per worker thread of the cluster."""
SCHEDULER_SECONDS = 30.0
"""Most seconds to reach the scheduler and hear from it (``REPLAY_NETWORK_TIMEOUTS``
sets it as ``scheduler=``): then ``--scheduler`` gives up, whatever listens there."""


class ClusterError(Exception):
    """The cluster cannot be reached or cannot run the work; the message says why."""


def _distributed() -> Any:
    return require("distributed", "dask", "--scheduler (a Dask cluster)")


def connect(scheduler: str) -> Any:
    """A client of the scheduler at ``scheduler``; ``ClusterError`` when it cannot be
    reached or heard from within ``SCHEDULER_SECONDS``, or when Dask rejects the address.

    Dask bounds the connection (``timeout``, and ``distributed.comm.timeouts.connect``
    for each try) but not the handshake after it: a server that accepts the connection
    and never speaks would hold the client for good. So the client is made in a thread
    of its own, given the time limit, and given up on after it (the thread is a
    daemon: it cannot keep the command alive).

    Dask closes the client it could not connect only on an ``OSError``; one whose
    address it rejects (a missing port, an unknown scheme, TLS without its
    configuration) stays half-open, and its finalizer then waits a minute at exit and
    prints a traceback. So the client is kept hold of from the start and closed here."""
    distributed = _distributed()
    dask: Any = require("dask", "dask", "--scheduler (a Dask cluster)")
    seconds = network_timeout("scheduler", SCHEDULER_SECONDS)
    shown = redact(scheduler)
    client = distributed.Client.__new__(distributed.Client)  # made first, so that it can be closed
    failed: list[tuple[BaseException, float]] = []

    def start() -> None:
        try:
            with dask.config.set({"distributed.comm.timeouts.connect": seconds}):
                client.__init__(scheduler, timeout=seconds, set_as_default=False)
        except Exception as exc:
            failed.append((exc, time.monotonic()))

    started = time.monotonic()
    starting = threading.Thread(target=start, name="replay-scheduler", daemon=True)
    starting.start()
    starting.join(seconds)
    # Still trying, or given up by Dask itself when the time was up (no connection): no answer.
    late = starting.is_alive() or (bool(failed) and failed[0][1] - started >= seconds)
    if late or failed:
        why = (f"no answer within {seconds:g} s: is a Dask scheduler listening there?" if late else
               scrub(" ".join(str(failed[0][0]).split()) or type(failed[0][0]).__name__, scheduler))
        with contextlib.suppress(Exception):
            client.close(timeout=1)
        raise ClusterError(f"cannot reach the Dask scheduler at {shown} ({why}); check the address "
                           "(tcp://host:8786) and that the scheduler runs")
    return client


class _OnCluster(Window[T, R]):
    def __init__(self, work: Callable[[T], R], client: Any, lost: Lost[T, R], own: bool) -> None:
        super().__init__(work, lost, max(1, sum(client.nthreads().values())) * TASKS_PER_THREAD)
        self.client = client
        self.own = own
        self.distributed = _distributed()

    def submit(self, part: Part[T, R], entry: Entry[T, R]) -> None:
        part.future = self.client.submit(run_items, self.work, part.items, pure=False, priority=-entry.order)
        self.in_flight += 1

    def settle(self, part: Part[T, R], entry: Entry[T, R], queue: deque[Entry[T, R]]) -> bool:
        if part.future is None:  # an item tried alone: its turn has come
            self.submit(part, entry)
        try:
            done = part.future.result()
        except self.distributed.KilledWorker as exc:
            self.in_flight -= 1
            if not part.alone:
                entry.parts[:1] = [Part[T, R]([item], alone=True) for item in part.items]
                return False
            part.results = [self.lost(part.items[0], f"every Dask worker that audited it died ({exc})")]
            return True
        except (OSError, TimeoutError, self.distributed.client.FutureCancelledError) as exc:
            raise ClusterError(f"the Dask cluster stopped answering ({type(exc).__name__}: {exc})") from None
        except Exception as exc:  # the task could not run there at all (replay missing on a worker…)
            raise ClusterError(f"the Dask workers cannot run replay's tasks ({type(exc).__name__}: {exc}); "
                               "install the same replay on every worker") from None
        self.in_flight -= 1
        part.results = settle(part.items, done, self.lost)
        return True

    def stop(self, queue: deque[Entry[T, R]]) -> None:
        pending = [p.future for e in queue for p in e.parts if p.future is not None and p.results is None]
        if pending:
            self.client.cancel(pending)
        if self.own:
            self.client.close()


def in_order(work: Callable[[T], R], batches: Iterable[Batch[T]], scheduler: str | Any,
             lost: Lost[T, R]) -> Iterator[R]:
    """``work(item)`` for each item of each batch, in order, on the cluster."""
    client = connect(scheduler) if isinstance(scheduler, str) else scheduler
    yield from _OnCluster(work, client, lost, own=isinstance(scheduler, str)).run(batches)
