"""Independent work on a pool of worker processes, with its results in order.

``in_order(work, batches, jobs, lost)`` runs ``work(item)`` for every item of every
batch and yields the results in the order of the items, whatever finishes first:
the same sequence for any ``jobs``. With ``jobs`` ≤ 1 everything runs in this
process. Otherwise the standard library's ``ProcessPoolExecutor`` runs one task per
batch; at most ``WINDOW_PER_JOB × jobs`` tasks are in flight, so memory is bounded
by the window, not by the number of items.

A batch marked ``here`` (items that cannot travel to another process: standard
input, a FIFO) runs in this process when its turn comes, while the workers go on.

**A worker that dies** (killed, out of memory, a crash in an extension) breaks a
standard pool: every task it still had fails with ``BrokenProcessPool``, the dead
worker's and the innocent ones alike. To tell them apart, each worker keeps one slot
of a small shared-memory ledger up to date: its pid, the task it is running and the
index of the item within it. The pool ends the surviving workers with ``SIGTERM``;
their handler marks their task *aborted* before they exit. So after a breakage the
ledger names, for each task still marked *running*, the item its worker died on:
that item becomes ``lost(item, why)``, and every other unfinished item is run again
on a fresh pool. The report loses the one item, not the run.

**Ctrl-C**: the workers ignore ``SIGINT`` between tasks and stop the task they are in;
this process cancels what is queued, waits for every worker to exit (no orphans)
and lets ``KeyboardInterrupt`` go on.

Why not loky: it marks every pending future failed on a worker's death too
(``TerminatedWorkerError``), so it would need the same ledger; its reusable
executor and cloudpickle buy nothing here (the work is a module-level function).
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain, islice
from types import FrameType
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:  # the pool's modules are imported when a pool starts, not with this module
    import multiprocessing.context
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing.sharedctypes import Synchronized

T = TypeVar("T")
R = TypeVar("R")

MAX_JOBS = 1024
"""The most worker processes a command may be asked for (more is a usage error). It
starts no more than the usable CPUs, nor than there are batches of work."""

WINDOW_PER_JOB = 16
"""Tasks in flight per worker. Results are handed on in order, so while a long task
is at the head the others finish and wait: the window must hold enough of them that
the workers do not run dry behind it (a waiting result is a batch's reports: small)."""

_MAX_FRUITLESS_RESTARTS = 3
"""Breakages in a row that name no item (a worker that cannot even start): then
``WorkersFailed``, not an endless loop."""

Lost = Callable[[T, str], R]
"""The result standing for an item whose worker died or failed, given why."""


class WorkersFailed(RuntimeError):
    """The worker processes keep dying before any of them takes an item."""


@dataclass(frozen=True, slots=True)
class Batch(Generic[T]):
    """Items run together, as one task of one worker (the unit of scheduling)."""

    items: list[T]
    here: bool = False
    """Run in this process: the items cannot be sent to another one."""


@contextlib.contextmanager
def fewer_gc_passes() -> Iterator[None]:
    """An audit allocates millions of short-lived, acyclic objects; the cyclic
    collector's frequent young-generation passes find nothing in them but cost ~15%
    of the run, and far more in a process with a large heap (a Dask worker), where
    they trigger full collections. Collect less often while the work runs."""
    before = gc.get_threshold()
    gc.set_threshold(50_000, before[1], before[2])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def workers_for(jobs: int) -> int:
    """The worker processes to start for ``jobs``: no more than the usable CPUs."""
    return max(1, min(jobs, usable_cpus()))


def in_order(work: Callable[[T], R], batches: Iterable[Batch[T]], jobs: int, lost: Lost[T, R],
             fork: bool = True) -> Iterator[R]:
    """``work(item)`` for each item of each batch, in order; on at most ``jobs``
    processes: never more than the usable CPUs (``workers_for``), nor than the
    batches (up to that many are read ahead to know).

    ``work`` must be picklable (a module-level function, or a ``functools.partial``
    of one) and should not raise: an exception it raises in a worker becomes
    ``lost(item, why)`` as well. ``fork=False`` starts the workers from a fresh
    interpreter (``forkserver``), so they share nothing this process has open (a
    lock held on a file stays this process's alone).
    """
    source = iter(batches)
    workers = workers_for(jobs)
    head = list(islice(source, workers))
    if workers <= 1 or len(head) < 2:  # one batch (or none) is not worth starting a pool
        for batch in chain(head, source):
            yield from map(work, batch.items)
        return
    yield from _Pool(work, len(head), lost, fork).run(chain(head, source))


# -- in the worker ---------------------------------------------------------------------

_IDLE, _RUNNING, _ABORTED = 0, 1, 2
_FIELDS = 4  # per worker: pid, task id, state, item index

_ledger: Any = None
_base = -1
_interrupted = False


def _init_worker(ledger: Any, counter: Synchronized[int]) -> None:
    """Take a ledger slot; SIGTERM marks the running task aborted, SIGINT stops a task
    but not an idle worker; the worker ends when the process that started it does."""
    global _ledger, _base
    import multiprocessing

    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_end_with, args=(parent.sentinel,), name="replay-parent-watch", daemon=True).start()
    with counter.get_lock():
        slot = counter.value
        counter.value = slot + 1
    _ledger = ledger
    _base = slot * _FIELDS
    ledger[_base] = os.getpid()
    signal.signal(signal.SIGTERM, _on_sigterm)
    signal.signal(signal.SIGINT, _on_sigint)
    if hasattr(signal, "pthread_sigmask"):  # a Ctrl-C held since the worker started arrives now
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)


_HELD = {signal.SIGINT, signal.SIGTERM}
"""Held (blocked) while a pool starts its workers, which inherit the mask, until each
has its handlers: a Ctrl-C then is neither a traceback from a worker's start-up nor a
worker left behind half-made (nor, here, an interruption in the middle of the pool's
bookkeeping)."""


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _end_with(sentinel: int) -> None:
    """A pool's workers wait for work from their parent forever, even once it is gone
    (killed with SIGKILL, it cannot stop them): follow it instead of lingering."""
    import multiprocessing.connection

    multiprocessing.connection.wait([sentinel])
    os._exit(1)


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    if _ledger[_base + 2] == _RUNNING:
        _ledger[_base + 2] = _ABORTED
    os._exit(128 + signum)


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    """Stop the task in hand; refuse the ones already queued to this worker."""
    global _interrupted
    _interrupted = True
    if _ledger[_base + 2] == _RUNNING:
        raise KeyboardInterrupt


@dataclass(frozen=True, slots=True)
class Failed:
    """An item whose ``work`` raised in a worker: why (the caller makes it ``lost``)."""

    why: str


def run_items(work: Callable[[T], R], items: list[T], at: Callable[[int], None] | None = None) -> list[R | Failed]:
    """``work`` over a task's items in a worker; ``at(index)`` before each one."""
    out: list[R | Failed] = []
    with fewer_gc_passes():
        for index, item in enumerate(items):
            if at is not None:
                at(index)
            try:
                out.append(work(item))
            except Exception as exc:  # a bug of ours: one lost item, not a lost run
                out.append(Failed(f"{type(exc).__name__}: {exc}"))
    return out


def settle(items: list[T], results: list[R | Failed], lost: Lost[T, R]) -> list[R]:
    """A task's results, each failed item made ``lost``."""
    return [lost(item, r.why) if isinstance(r, Failed) else r for item, r in zip(items, results, strict=True)]


HOLD_ENV = "REPLAY_TEST_WORKER_HOLD"
"""For the tests only: a path; the first worker to start a task creates that file,
writes its pid in it and waits (a minute at most) to be killed while it holds the
task's first item (a kill then meets a worker in the middle of a log, whatever the
machine's load)."""


def _held() -> None:
    marker = os.environ.get(HOLD_ENV)
    if not marker:
        return
    try:
        fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError:
        return  # another worker holds its task
    os.write(fd, b"%d" % os.getpid())
    os.close(fd)
    time.sleep(60)


def _run_task(work: Callable[[T], R], task: int, items: list[T]) -> list[R | Failed]:
    if _interrupted:
        raise KeyboardInterrupt
    ledger, base = _ledger, _base
    ledger[base + 1] = task
    ledger[base + 3] = 0
    ledger[base + 2] = _RUNNING

    def at(index: int) -> None:
        ledger[base + 3] = index

    try:
        _held()  # inside: a Ctrl-C that stops the hold leaves the worker idle, as one that stops a log
        return run_items(work, items, at)
    finally:
        ledger[base + 2] = _IDLE


# -- in this process -------------------------------------------------------------------


@dataclass(slots=True)
class Part(Generic[T, R]):
    """A run of consecutive items: submitted (``future``) or settled (``results``)."""

    items: list[T]
    future: Any = None
    results: list[R] | None = None
    task: int = -1
    alone: bool = False
    """Tried item by item after its batch killed workers (``replay.cluster``)."""


@dataclass(slots=True)
class Entry(Generic[T, R]):
    """One batch, in order; a worker's death may split it into several parts."""

    here: bool
    order: int
    """Its place in the run (1, 2, …)."""
    parts: list[Part[T, R]] = field(default_factory=list)


class Window(Generic[T, R]):
    """The order-keeping window every runner shares: batches go in (at most ``window``
    parts in flight), results come out in the order of the items; a ``here`` batch
    runs in this process when its turn comes. A runner says how a part is submitted
    (``submit``), how the part at the head is settled (``settle``: its ``results`` set,
    or ``False`` when the queue was rearranged and must be looked at again), and how
    the run stops (``stop``)."""

    def __init__(self, work: Callable[[T], R], lost: Lost[T, R], window: int) -> None:
        self.work = work
        self.lost = lost
        self.window = window
        self.in_flight = 0
        self.entries = 0

    def submit(self, part: Part[T, R], entry: Entry[T, R]) -> None:
        raise NotImplementedError

    def settle(self, part: Part[T, R], entry: Entry[T, R], queue: deque[Entry[T, R]]) -> bool:
        raise NotImplementedError

    def stop(self, queue: deque[Entry[T, R]]) -> None:
        raise NotImplementedError

    def run(self, batches: Iterable[Batch[T]]) -> Iterator[R]:
        queue: deque[Entry[T, R]] = deque()
        source = iter(batches)
        exhausted = False
        try:
            while True:
                while not exhausted and self.in_flight < self.window:
                    batch = next(source, None)
                    if batch is None:
                        exhausted = True
                        break
                    self.entries += 1
                    entry: Entry[T, R] = Entry(batch.here, self.entries, [Part(batch.items)])
                    if not batch.here:
                        self.submit(entry.parts[0], entry)
                    queue.append(entry)
                if not queue:
                    return
                head = queue[0]
                if head.here:
                    queue.popleft()
                    yield from map(self.work, head.parts[0].items)
                    continue
                part = head.parts[0]
                if part.results is None and not self.settle(part, head, queue):
                    continue
                head.parts.pop(0)
                if not head.parts:
                    queue.popleft()
                yield from part.results or ()
        finally:
            self.stop(queue)


class _Pool(Window[T, R]):
    def __init__(self, work: Callable[[T], R], jobs: int, lost: Lost[T, R], fork: bool) -> None:
        super().__init__(work, lost, WINDOW_PER_JOB * jobs)
        self.fork = fork
        self.jobs = jobs
        self.executor: ProcessPoolExecutor | None = None
        self.ledger: Any = None
        self.tasks = 0
        self.fruitless = 0

    def _context(self) -> multiprocessing.context.BaseContext:
        """``fork`` while this process has one thread (a worker then starts in
        milliseconds); ``forkserver`` once threads run (fsspec's, Dask's), as forking
        a threaded process is not safe, or when the workers must not share what this
        process has open; ``spawn`` where neither exists. A fresh worker finds the
        work's module already imported (the server preloads it)."""
        import multiprocessing

        methods = multiprocessing.get_all_start_methods()
        if self.fork and "fork" in methods and threading.active_count() == 1:
            return multiprocessing.get_context("fork")
        if "forkserver" in methods:
            context = multiprocessing.get_context("forkserver")
            module = getattr(getattr(self.work, "func", self.work), "__module__", None)
            if module:
                context.set_forkserver_preload([module])
            return context
        return multiprocessing.get_context("spawn")

    def _start(self) -> ProcessPoolExecutor:
        from concurrent.futures import ProcessPoolExecutor

        context = self._context()
        self.ledger = context.RawArray("q", self.jobs * _FIELDS)
        counter = context.Value("i", 0)
        self.executor = ProcessPoolExecutor(self.jobs, mp_context=context, initializer=_init_worker,
                                            initargs=(self.ledger, counter))
        return self.executor

    def submit(self, part: Part[T, R], entry: Entry[T, R] | None = None) -> None:
        from concurrent.futures import Future
        from concurrent.futures.process import BrokenProcessPool

        executor = self.executor or self._start()
        self.tasks += 1
        part.task = self.tasks
        try:
            with _signals_held():  # a submit may start workers (all of them, or one more)
                part.future = executor.submit(_run_task, self.work, part.task, part.items)
        except BrokenProcessPool as exc:  # broken before it could take the task: settled as broken
            part.future = Future()
            part.future.set_exception(exc)
        self.in_flight += 1

    def settle(self, part: Part[T, R], entry: Entry[T, R], queue: deque[Entry[T, R]]) -> bool:
        from concurrent.futures.process import BrokenProcessPool

        try:
            part.results = settle(part.items, part.future.result(), self.lost)
        except BrokenProcessPool:
            named = self._recover(queue)
            self.fruitless = 0 if named else self.fruitless + 1
            if self.fruitless >= _MAX_FRUITLESS_RESTARTS:
                raise WorkersFailed("the worker processes keep dying before they take any work; "
                                    "run with --jobs 1") from None
            return False
        except Exception as exc:  # the task's result could not come back (pickling)
            part.results = [self.lost(item, f"{type(exc).__name__}: {exc}") for item in part.items]
        self.in_flight -= 1
        self.fruitless = 0
        return True

    def _recover(self, queue: deque[Entry[T, R]]) -> bool:
        """After a breakage: keep what finished, turn the item each dead worker held
        into ``lost``, run the rest again on a fresh pool. True when an item was named."""
        assert self.executor is not None
        self.executor.shutdown(wait=True)  # the pool has ended and reaped every worker
        ledger = self.ledger
        died: dict[int, tuple[int, int]] = {}  # task → (item index, pid)
        for slot in range(self.jobs):
            pid, task, state, index = ledger[slot * _FIELDS : (slot + 1) * _FIELDS]
            if state == _RUNNING:
                died[task] = (index, pid)
        self.executor = None
        self.in_flight = 0
        for entry in queue:
            parts: list[Part[T, R]] = []
            for part in entry.parts:
                future = part.future
                if part.results is not None or future is None:
                    parts.append(part)
                    continue
                if future.done() and not future.cancelled() and future.exception() is None:
                    part.results = settle(part.items, future.result(), self.lost)
                    parts.append(part)
                    continue
                if part.task in died:
                    index, pid = died[part.task]
                    why = (f"the worker process (pid {pid}) that held it died (killed, or out of memory) "
                           "before it finished")
                    before, held, after = part.items[:index], part.items[index], part.items[index + 1 :]
                    if before:
                        parts.append(Part(before))
                    parts.append(Part([held], results=[self.lost(held, why)]))
                    if after:
                        parts.append(Part(after))
                else:
                    parts.append(Part(part.items))
            entry.parts = parts
        for entry in queue:
            for part in entry.parts:
                if part.results is None and not entry.here:
                    self.submit(part, entry)
        return bool(died)

    def stop(self, queue: deque[Entry[T, R]]) -> None:
        """Stop the tasks that run, cancel what is queued, and wait for every worker
        to exit (``shutdown`` lets go of the workers on its first call: it is called
        once, waiting)."""
        executor = self.executor
        if executor is None:
            return
        self.executor = None
        ledger = self.ledger
        for slot in range(self.jobs):
            pid, _, state, _ = ledger[slot * _FIELDS : (slot + 1) * _FIELDS]
            if state == _RUNNING and pid:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGINT)
        executor.shutdown(wait=True, cancel_futures=True)
