"""``replay.parallel.in_order``: results in item order for any number of workers; a
worker that dies loses exactly the item it held (the ledger tells it from the
innocent workers the broken pool takes down with it); an exception is one lost item.

The work functions live at module level: worker processes import them by name."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from replay.parallel import Batch, WorkersFailed, in_order
from tests.helpers import REPO

pytestmark = pytest.mark.slow


def square(item: int) -> int:
    return item * item


def lost(item: object, why: str) -> str:
    return f"lost {item}: {why.split(' (')[0].split(':')[0]}"


def test_results_come_in_item_order_whatever_the_jobs() -> None:
    batches = [Batch(list(range(k * 7, k * 7 + 7))) for k in range(9)] + [Batch([1000], here=True), Batch([3])]
    want = [i * i for b in batches for i in b.items]
    for jobs in (1, 2, 3):
        assert list(in_order(square, batches, jobs, lost)) == want


def pid(item: int) -> int:
    return os.getpid()


def test_one_batch_runs_here() -> None:
    """A single batch is not worth a pool: the work runs in this process."""
    assert list(in_order(pid, [Batch([1, 2])], 4, lost)) == [os.getpid()] * 2
    assert os.getpid() not in in_order(pid, [Batch([1]), Batch([2])], 2, lost)


def fragile(item: tuple[str, str]) -> str:
    """``die``: kill this worker (as the OOM killer would); ``slow``: say so, then take
    a while; ``wait``: wait for a slow item to start, then die; ``boom``: raise."""
    what, folder = item
    if what == "die":
        os.kill(os.getpid(), signal.SIGKILL)
    if what == "wait":
        deadline = time.monotonic() + 20
        while not (Path(folder) / "slow-started").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGKILL)
    if what == "slow":
        (Path(folder) / "slow-started").touch()
        time.sleep(0.5)
    if what == "boom":
        raise ValueError("broken item")
    return f"done {what}"


def test_a_killed_worker_loses_only_the_item_it_held(tmp_path: Path) -> None:
    folder = str(tmp_path)
    batches = [Batch([("a", folder), ("b", folder), ("die", folder), ("c", folder)]),
               Batch([("d", folder)]), Batch([("e", folder), ("f", folder)])]
    got = list(in_order(fragile, batches, 2, lost))
    assert got == ["done a", "done b", "lost ('die', '" + folder + "'): the worker process", "done c",
                   "done d", "done e", "done f"]


def test_innocent_workers_taken_down_with_the_pool_are_rerun(tmp_path: Path) -> None:
    """The pool ends every worker when one dies; the item the other worker was in the
    middle of (``slow``) is run again, not lost."""
    folder = str(tmp_path)
    batches = [Batch([("slow", folder), ("after", folder)]), Batch([("wait", folder)]), Batch([("z", folder)])]
    got = list(in_order(fragile, batches, 2, lost))
    assert got == ["done slow", "done after", "lost ('wait', '" + folder + "'): the worker process", "done z"]


def test_an_exception_in_a_worker_is_one_lost_item(tmp_path: Path) -> None:
    folder = str(tmp_path)
    batches = [Batch([("a", folder), ("boom", folder), ("b", folder)]), Batch([("c", folder)])]
    assert list(in_order(fragile, batches, 2, lost)) == [
        "done a", "lost ('boom', '" + folder + "'): ValueError", "done b", "done c"]


def never_starts(*args: object) -> None:
    os._exit(3)


def test_workers_that_die_before_any_work_end_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every restart dies again without naming an item: an error, not an endless loop."""
    import replay.parallel as parallel

    monkeypatch.setattr(parallel, "_init_worker", never_starts)
    with pytest.raises(WorkersFailed, match="keep dying"):
        list(in_order(square, [Batch([1]), Batch([2])], 2, lost))


_CTRL_C_AT_START = """
import os, signal, sys
import replay.parallel as parallel
from replay.parallel import Batch, in_order

started = parallel._init_worker

def ctrl_c_first(*args):  # the terminal's Ctrl-C reaches the worker as it starts
    os.kill(os.getpid(), signal.SIGINT)
    started(*args)

parallel._init_worker = ctrl_c_first
try:
    list(in_order(abs, [Batch([1]), Batch([2]), Batch([3])], 2, lambda item, why: why))
except KeyboardInterrupt:
    print("interrupted", file=sys.stderr)
    sys.exit(130)
"""


def test_ctrl_c_while_a_worker_starts_is_an_interruption_not_a_traceback() -> None:
    """Until a worker has its handlers, Ctrl-C is held for it (blocked, then delivered):
    it stops the run like any Ctrl-C, not with a traceback from the worker's start-up
    and a parent left waiting at exit for a worker that waits for work."""
    done = subprocess.run([sys.executable, "-c", _CTRL_C_AT_START], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert (done.returncode, done.stderr) == (130, "interrupted\n")
