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

``dask[distributed]`` is the optional extra ``replay[dask]``, imported only here.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from replay.parallel import Batch, Lost, run_items, settle

T = TypeVar("T")
R = TypeVar("R")

TASKS_PER_THREAD = 4
"""Batches in flight per worker thread of the cluster."""
CONNECT_TIMEOUT = 30.0
"""Seconds to reach the scheduler (Dask's own default)."""


class ClusterError(Exception):
    """The cluster cannot be reached or cannot run the work; the message says why."""


class MissingDask(ClusterError):
    """``distributed`` is not installed."""


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise MissingDask("--scheduler needs Dask distributed: pip install 'replay[dask]'") from None
    return distributed


def connect(scheduler: str) -> Any:
    """A client of the scheduler at ``scheduler`` (``ClusterError`` when unreachable)."""
    distributed = _distributed()
    try:
        return distributed.Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {scheduler} ({exc})") from None


@dataclass(slots=True)
class _Part(Generic[T, R]):
    items: list[T]
    future: Any = None
    results: list[R] | None = None
    alone: bool = False
    """Already tried item by item after a ``KilledWorker``: another one is its loss."""


@dataclass(slots=True)
class _Entry(Generic[T, R]):
    here: bool
    order: int
    """Its place in the run: the earlier, the higher its tasks' priority."""
    parts: list[_Part[T, R]] = field(default_factory=list)


def in_order(work: Callable[[T], R], batches: Iterable[Batch[T]], scheduler: str | Any,
             lost: Lost[T, R]) -> Iterator[R]:
    """``work(item)`` for each item of each batch, in order, on the cluster."""
    distributed = _distributed()
    own = isinstance(scheduler, str)
    client = connect(scheduler) if isinstance(scheduler, str) else scheduler
    window = max(1, sum(client.nthreads().values())) * TASKS_PER_THREAD
    queue: deque[_Entry[T, R]] = deque()
    source = iter(batches)
    exhausted = False
    entries = 0
    in_flight = 0

    def submit(part: _Part[T, R], order: int) -> None:
        nonlocal in_flight
        part.future = client.submit(run_items, work, part.items, pure=False, priority=-order)
        in_flight += 1

    try:
        while True:
            while not exhausted and in_flight < window:
                batch = next(source, None)
                if batch is None:
                    exhausted = True
                    break
                entries += 1
                entry: _Entry[T, R] = _Entry(batch.here, entries, [_Part(batch.items)])
                if not batch.here:
                    submit(entry.parts[0], entry.order)
                queue.append(entry)
            if not queue:
                return
            head = queue[0]
            if head.here:
                queue.popleft()
                yield from map(work, head.parts[0].items)
                continue
            part = head.parts[0]
            if part.results is None:
                if part.future is None:  # an item tried alone: its turn has come
                    submit(part, head.order)
                try:
                    done = part.future.result()
                except distributed.KilledWorker as exc:
                    in_flight -= 1
                    if part.alone:
                        part.results = [lost(part.items[0], f"every Dask worker that audited it died ({exc})")]
                    else:
                        head.parts[:1] = [_Part[T, R]([item], alone=True) for item in part.items]
                        continue
                except (OSError, TimeoutError, distributed.client.FutureCancelledError) as exc:
                    raise ClusterError(f"the Dask cluster stopped answering ({type(exc).__name__}: {exc})") from None
                except Exception as exc:  # the task could not run there at all (replay missing on a worker…)
                    raise ClusterError(f"the Dask workers cannot run replay's tasks ({type(exc).__name__}: {exc}); "
                                       "install the same replay on every worker") from None
                else:
                    in_flight -= 1
                    part.results = settle(part.items, done, lost)
            head.parts.pop(0)
            if not head.parts:
                queue.popleft()
            yield from part.results
    finally:
        pending = [p.future for e in queue for p in e.parts if p.future is not None and p.results is None]
        if pending:
            client.cancel(pending)
        if own:
            client.close()
