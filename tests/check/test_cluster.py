"""``--scheduler``: the audit on a Dask cluster (a 2-worker ``LocalCluster`` started
here) is byte-identical to ``--jobs 1``; a file that kills every worker that tries it
is an ``INTERNAL`` finding for it alone; an unreachable scheduler is a usage error."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from replay import cluster
from replay.check import runner
from replay.cli import main
from replay.parallel import Batch
from tests.helpers import corpus_root, replay_in_a_process
from tests.loopback import closed_port, http_server, silent_port

pytestmark = pytest.mark.slow

distributed = pytest.importorskip("distributed", reason="dask[distributed] (the dask extra) is not installed")


@pytest.fixture(scope="module")
def local_cluster() -> Iterator[Any]:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  host="127.0.0.1") as spawned:
        yield spawned


def test_the_cluster_report_is_the_report_of_one_process(local_cluster: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    root = corpus_root()
    if not root.is_dir():
        pytest.skip(f"the shared corpus {root} is absent (set REPLAY_CORPUS)")
    paths = sorted(str(p) for p in root.iterdir())
    monkeypatch.setattr(runner, "BATCH_UNITS", 4)  # tasks of 16 logs: many, finishing out of order
    alone = CliRunner().invoke(main, ["audit", "--no-cache", "--jobs", "1", "--format", "json", *paths])
    on_cluster = CliRunner().invoke(main, ["audit", "--no-cache", "--scheduler", local_cluster.scheduler_address,
                                           "--format", "json", *paths])
    assert alone.exit_code == on_cluster.exit_code == 1
    assert on_cluster.stdout_bytes == alone.stdout_bytes


def kills_on_seven(item: int) -> int:
    if item == 7:
        os.kill(os.getpid(), signal.SIGKILL)
    return item


def test_an_item_that_kills_every_worker_is_lost_alone(local_cluster: Any) -> None:
    """Dask retries a task whose worker died elsewhere; when it kills them all, the
    batch is tried item by item, and only the killer is lost."""
    with distributed.Client(local_cluster.scheduler_address, set_as_default=False) as client:
        before = client.run_on_scheduler(_allow_failures, 1)  # one retry, then the task is declared killed
        try:
            got = list(cluster.in_order(kills_on_seven, [Batch([1, 2, 3]), Batch([5, 6, 7, 8]), Batch([9])],
                                        client, lambda item, why: -item))
        finally:
            client.run_on_scheduler(_allow_failures, before)
        assert got == [1, 2, 3, 5, 6, -7, 8, 9]


def _allow_failures(count: int, dask_scheduler: Any) -> int:
    before: int = dask_scheduler.allowed_failures
    dask_scheduler.allowed_failures = count
    return before


def test_an_unreachable_scheduler_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REPLAY_NETWORK_TIMEOUTS", "scheduler=1")
    (tmp_path / "x.jsonl").write_bytes(b"")
    result = CliRunner().invoke(main, ["audit", "--scheduler", "tcp://127.0.0.1:9", str(tmp_path / "x.jsonl")])
    assert result.exit_code == 2
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in result.output


MALFORMED = [
    ("garbage", "missing port number in address 'garbage'"),
    ("tcp://[::1", "invalid address '[::1'; maybe: ipv6 needs brackets like [::1]"),
    ("tcp://\x1b]52;c;aGk=\x07h", "missing port number in address '\\x1b]52;c;aGk=\\x07h'"),
    ("tls://127.0.0.1:9", "TLS expects a `ssl_context` argument of type ssl.SSLContext (perhaps check your TLS "
                          "configuration?) Instead got None"),
]


def test_a_malformed_scheduler_address_is_a_usage_error_at_once(tmp_path: Path) -> None:
    """Dask leaves the client of an address it rejects half-open: its finalizer then
    waits a minute at exit and prints a traceback. The client is closed here: the four
    addresses run in one real process (one Dask start-up), which exits long before a minute."""
    log = tmp_path / "x.jsonl"
    log.write_bytes(b"")
    runs = replay_in_a_process(*(["audit", "--scheduler", address, str(log)] for address, _ in MALFORMED),
                               timeout=50)
    for (address, why), run in zip(MALFORMED, runs, strict=True):
        assert (run.code, run.stdout, run.traceback) == (2, b"", None), address
        shown = address.replace("\x1b", "\\x1b").replace("\x07", "\\x07")  # through the sanitizer
        assert run.stderr.decode().splitlines()[-1] == (
            f"Error: cannot reach the Dask scheduler at {shown} ({why}); check the address "
            "(tcp://host:8786) and that the scheduler runs")


def test_a_scheduler_address_where_no_scheduler_answers_is_given_up_on_in_time(tmp_path: Path) -> None:
    """A port that accepts and never speaks (Dask waits for its handshake forever), a
    port where nothing listens, an HTTP server: a usage error once the scheduler's
    time limit is up (here 1 s: ``REPLAY_NETWORK_TIMEOUTS``), never a traceback."""
    log = tmp_path / "x.jsonl"
    log.write_bytes(b"")
    with contextlib.ExitStack() as stack:
        base, _ = stack.enter_context(http_server({}))
        ports = {"silent": stack.enter_context(silent_port()), "closed": closed_port(),
                 "not Dask": int(base.rsplit(":", 1)[1])}
        runs = replay_in_a_process(*(["audit", "--scheduler", f"tcp://127.0.0.1:{port}", str(log)]
                                     for port in ports.values()), env={"REPLAY_NETWORK_TIMEOUTS": "scheduler=1"})
    for (server, port), run in zip(ports.items(), runs, strict=True):
        assert (run.code, run.stdout, run.traceback) == (2, b"", None), server
        assert run.stderr.decode().splitlines()[-1] == (
            f"Error: cannot reach the Dask scheduler at tcp://127.0.0.1:{port} (no answer within 1 s: is a Dask "
            "scheduler listening there?); check the address (tcp://host:8786) and that the scheduler runs"), server


def test_the_credentials_of_a_scheduler_address_are_not_shown(tmp_path: Path) -> None:
    (tmp_path / "x.jsonl").write_bytes(b"")
    result = CliRunner().invoke(main, ["audit", "--scheduler", "tcp://alice:hunter2@127.0.0.1:1",
                                       str(tmp_path / "x.jsonl")])
    assert result.exit_code == 2
    assert result.output.splitlines()[-1] == (
        "Error: cannot reach the Dask scheduler at tcp://***@127.0.0.1:1 (invalid address '***@127.0.0.1:1'; maybe: "
        "ipv6 needs brackets like [::1]); check the address (tcp://host:8786) and that the scheduler runs")
