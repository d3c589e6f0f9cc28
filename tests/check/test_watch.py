"""A ``Watch`` reads every log alongside its audit, from the audit's own reading: it
sees every item in order, what it makes comes back before the log's report (from
worker processes too), and nothing it does, a failure of its own included, changes
the audit."""

from __future__ import annotations

import io
import tarfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from replay.check.audit import Audit, AuditRequest
from replay.check.engine import Attached, LogReport, Reading, Watch
from replay.log.event import ChunkRun, ChunkSpan, Event
from replay.log.reader import LogRead, iter_events, read_log
from replay.log.source import file_source
from tests.helpers import MULTI_TURN, TODO_WRITE, corpus_file, records


class _Counting(Reading):
    def __init__(self) -> None:
        self.seqs: list[int] = []

    def batch(self, items: Sequence[Any]) -> None:
        for item in items:
            if isinstance(item, Event):
                self.seqs.append(item.seq)
            elif isinstance(item, ChunkSpan | ChunkRun):
                self.seqs.extend(ev.seq for ev in item.events())

    def done(self, report: LogReport) -> object:
        return (report.events, self.seqs)


class Counting(Watch):
    """Every event's seq, in the order the audit read them."""

    def reading(self, log: LogRead) -> Reading:
        return _Counting()


class _Failing(Reading):
    def batch(self, items: Sequence[Any]) -> None:
        raise RuntimeError("the watch's own bug")

    def done(self, report: LogReport) -> object:
        return None


class Failing(Watch):
    def reading(self, log: LogRead) -> Reading:
        return _Failing()


def _run(paths: list[str], watch: Watch | None, jobs: int = 1) -> tuple[list[LogReport], list[object]]:
    told: list[object] = []
    reports: list[LogReport] = []

    def attached(item: Attached) -> None:
        told.append(item)

    def reported(report: LogReport) -> None:
        told.append(report.path)
        reports.append(report)

    Audit(AuditRequest(tuple(paths), jobs=jobs), watch=watch).run(reported, attached if watch is not None else None)
    return reports, told


@pytest.fixture
def logs(tmp_path: Path) -> list[str]:
    """Two corpus logs and an archive of two more."""
    archive = tmp_path / "logs.tar"
    with tarfile.open(archive, "w") as tar:
        for name, relative in (("a/session.jsonl", MULTI_TURN), ("b/session.jsonl", TODO_WRITE)):
            data = corpus_file(relative).read_bytes()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return [str(corpus_file(TODO_WRITE)), str(archive), str(corpus_file(MULTI_TURN))]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_watch_sees_every_event_and_changes_nothing(logs: list[str], jobs: int) -> None:
    plain, _ = _run(logs, None)
    watched, told = _run(logs, Counting(), jobs)
    assert watched == plain
    # what the watch made of each log comes before the log's report, in order
    paths = [r.path for r in plain]
    assert [t for t in told if isinstance(t, str)] == paths
    attached = [t for t in told if isinstance(t, Attached)]
    assert [a.path for a in attached] == paths and all(a.failure is None for a in attached)
    for item in attached:
        assert told.index(item) < told.index(item.path)  # before the log's report
    expected = [[ev.seq for ev in iter_events(read_log(file_source(p)).items())] for p in (logs[0], logs[2])]
    events = [len(records(TODO_WRITE)), len(records(MULTI_TURN))]
    values: list[Any] = [a.value for a in attached]
    assert values[0] == (plain[0].events, expected[0]) and values[3] == (plain[3].events, expected[1])
    assert [v[0] for v in values] == [r.events for r in plain]
    assert all(v[0] == len(v[1]) for v in values) and events[0] > 0


def test_a_failing_watch_leaves_the_audit_whole(logs: list[str]) -> None:
    plain, _ = _run(logs, None)
    watched, told = _run(logs, Failing())
    assert watched == plain
    assert [(a.path, a.value, a.failure) for a in told if isinstance(a, Attached)] == [
        (r.path, None, "RuntimeError: the watch's own bug") for r in plain]


def test_a_watch_travels_without_what_it_found() -> None:
    import pickle

    watch = Counting()
    watch.found.append(Attached("x", 1))
    copy = pickle.loads(pickle.dumps(watch))
    assert copy.found == [] and watch.drain() == [Attached("x", 1)] and watch.found == []
