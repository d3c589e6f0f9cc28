"""Crash repair's fold read from the last turn boundary before a log's damage
(``LogRead.batches_from``): what a damaged or interrupted log's report says repair
would append is what the fold over every event from the first says, on real logs
damaged anywhere and cut at any line, and under the log cap."""

from __future__ import annotations

import io
import json
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay.check.engine import LogReport, Policy, audit_source, audit_unit
from replay.log.reader import Item, Limits, LogRead
from replay.log.scan import MAX_DAMAGED
from replay.log.source import Archive, LocalFile, file_source
from tests.helpers import corpus_root, examples


def _corpus_logs() -> list[Path]:
    """The shared corpus's session logs (their first record a session header), but the
    largest (the property's examples stay quick)."""
    root = corpus_root()
    if not root.exists():
        return []
    logs = []
    for path in sorted(root.rglob("*.jsonl")):
        if path.is_file() and path.stat().st_size < 400_000:
            with path.open("rb") as fh:
                if b'"type":"session"' in fh.readline():
                    logs.append(path)
    return logs


LOGS = _corpus_logs()


def _judged(report: LogReport | None) -> tuple[object, ...] | None:
    return None if report is None else (report.path, report.status, report.events, report.findings)


def _mutated(lines: list[bytes], how: int, at: int) -> list[bytes]:
    lines = list(lines)
    i = 1 + at % (len(lines) - 1)
    if how == 1:
        lines[i] = b"not json {"
    elif how == 2:
        lines.insert(i, lines[i])  # a seq said twice
    elif how == 3:
        del lines[i]  # a seq gap
    elif how == 4:
        lines[i] = lines[i][: len(lines[i]) // 2]  # a record cut short inside the log
    elif how == 5:
        lines[i] = b'{"type":"turn/end","seq":0,"time":0,"data":{"turn":99,"reason":{"kind":"completed"}}}'
    return lines


_BATCHES_FROM = LogRead.batches_from


def _exact_reread(self: LogRead, line: int, end: int | None = None,
                  known: tuple[int, int] | None = None) -> Iterator[list[Item]]:
    return _BATCHES_FROM(self, 2, end)  # what a skip shortcuts: the same bytes read from the start


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 10**6))
def test_a_skip_counted_from_a_known_line_is_the_skip_from_the_header(which: int, to: int, since: int) -> None:
    """``batches_from(line, known=…)`` (a resumed log's place: its newlines counted from
    there) gives the items ``batches_from(line)`` gives."""
    if not LOGS:
        pytest.skip("the shared corpus is absent (set REPLAY_CORPUS to the shared corpus folder)")
    path = LOGS[which % len(LOGS)]
    lines = path.read_bytes().split(b"\n")
    line = 2 + to % max(1, len(lines) - 2)
    known_line = 2 + since % max(1, line - 1)
    known = (known_line, sum(len(text) + 1 for text in lines[:known_line - 1]))  # where that line starts

    def items(**how: Any) -> list[tuple[int, str]]:
        log = LogRead(file_source(str(path)), Limits())
        try:
            return [(item.line, type(item).__name__) for batch in log.batches_from(line, **how) for item in batch]
        finally:
            log.close()

    assert items(known=known) == items()


@pytest.mark.skipif(not LOGS, reason="the shared corpus is absent (set REPLAY_CORPUS to the shared corpus folder)")
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10**6), st.integers(0, 5), st.integers(0, 10**6), st.integers(0, 10**6),
       st.sampled_from(list(Policy)))
def test_crash_repair_read_from_the_last_turn_boundary_is_repair_read_from_the_start(
        tmp_path: Path, which: int, how: int, at: int, cut: int, policy: Policy) -> None:
    """A damaged or interrupted log's crash repair is worked out from the last turn/start
    or turn/end before its damage (``LogRead.batches_from``): the report is the one of a
    repair fold over every event from the log's first, the path it shortcuts."""
    lines = LOGS[which % len(LOGS)].read_bytes().split(b"\n")[:-1]
    if len(lines) < 2:
        return
    lines = _mutated(lines, how, at)[: 1 + cut % len(lines)]  # cut anywhere: mostly inside a turn
    log = tmp_path / f"case-{which}-{how}-{at}-{cut}" / "session.jsonl"
    log.parent.mkdir(exist_ok=True)  # hypothesis may draw an example twice
    log.write_bytes(b"\n".join(lines) + b"\n")
    fast = audit_source(file_source(str(log)), policy)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LogRead, "batches_from", _exact_reread)
        exact = audit_source(file_source(str(log)), policy)
    assert _judged(fast) == _judged(exact)


@pytest.mark.skipif(not LOGS, reason="the shared corpus is absent (set REPLAY_CORPUS to the shared corpus folder)")
def test_crash_repair_skips_the_turns_before_the_last(tmp_path: Path) -> None:
    """A log cut inside its last turn: the repair fold reads from that turn's start on,
    and says what the fold from the start says."""
    lines = max(LOGS, key=lambda p: p.read_bytes().count(b'"turn/start"')).read_bytes().split(b"\n")[:-1]
    starts = [i for i, line in enumerate(lines) if b'"type":"turn/start"' in line]
    assert len(starts) >= 2
    log = tmp_path / "session.jsonl"
    log.write_bytes(b"\n".join(lines[: starts[-1] + 2]) + b"\n")
    skipped: list[int] = []
    real = LogRead.batches_from

    def spied(self: LogRead, line: int, end: int | None = None,
                known: tuple[int, int] | None = None) -> Iterator[list[Item]]:
        batches = real(self, line, end)
        skipped.append(self._start[0] if self._start is not None else 2)
        return batches

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LogRead, "batches_from", spied)
        fast = audit_source(file_source(str(log)))
    assert skipped == [starts[-1] + 1]  # the reading starts at the last turn/start's line
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LogRead, "batches_from", _exact_reread)
        exact = audit_source(file_source(str(log)))
    assert fast is not None and "B7" in [f.rule for f in fast.findings]
    assert _judged(fast) == _judged(exact)


_HEADER = {"type": "session", "version": 0, "id": "s1", "createdAt": 0, "cwd": "/work", "delegationDepth": 0}
_PAD = "x" * 60_000


def _open_turn_log(turns_up_to: int, size: int) -> bytes:
    """Complete turns until ``turns_up_to`` bytes, then one turn left open (a step open
    in it) padded with titles to ``size`` bytes: a live session read mid-turn."""
    out = bytearray(json.dumps(_HEADER).encode() + b"\n")
    seq = turn = 0

    def add(kind: str, data: dict[str, object]) -> None:
        nonlocal seq
        out.extend(json.dumps({"type": kind, "seq": seq, "time": 0, "data": data}).encode() + b"\n")
        seq += 1

    while len(out) < turns_up_to:
        turn += 1
        add("turn/start", {"turn": turn})
        add("session/title", {"title": _PAD})
        add("turn/end", {"turn": turn, "reason": {"kind": "completed"}})
    add("turn/start", {"turn": turn + 1})
    add("step/start", {"turn": turn + 1, "step": 1})
    while len(out) < size:
        add("session/title", {"title": _PAD})
    return bytes(out)


@pytest.mark.parametrize("cap", [1_500_000, 2_200_000, 2_500_000, 10_000_000])
def test_under_the_log_cap_no_repair_is_said_of_an_end_not_read(tmp_path: Path, cap: int) -> None:
    """A reading --max-log-bytes stopped did not see where the log ends: no B7 (what
    loading would append) is said of the bytes it read, with the skip or without; a log
    within the cap, read to its end, gets it (from the last turn's start)."""
    log = tmp_path / "session.jsonl"
    log.write_bytes(_open_turn_log(1_950_000, 3_000_000))
    limits = Limits(max_log_bytes=cap)
    fast = audit_source(file_source(str(log)), limits=limits)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LogRead, "batches_from", _exact_reread)
        exact = audit_source(file_source(str(log)), limits=limits)
    assert fast is not None
    assert [f.rule for f in fast.findings] == (["B7"] if cap > 3_000_000 else ["LIMIT"])
    assert _judged(fast) == _judged(exact)


_SESSION = {"type": "session", "version": 0, "id": "s1", "createdAt": 0, "cwd": "/work", "delegationDepth": 0}


def _line(kind: str, seq: int, data: dict[str, Any]) -> bytes:
    return json.dumps({"type": kind, "seq": seq, "time": 0, "data": data}).encode()


def _interrupted() -> bytes:
    """Two complete turns, then a third left open: its turn/start on line 8."""
    lines = [json.dumps(_SESSION).encode()]
    seq = 0
    for turn in (1, 2):
        lines += [_line("turn/start", seq, {"turn": turn}), _line("session/title", seq + 1, {"title": "t"}),
                  _line("turn/end", seq + 2, {"turn": turn, "reason": {"kind": "completed"}})]
        seq += 3
    lines += [_line("turn/start", seq, {"turn": 3}), _line("step/start", seq + 1, {"turn": 3, "step": 1})]
    return b"\n".join(lines) + b"\n"


def test_an_interrupted_log_in_a_plain_tar_is_judged_not_an_internal_error(tmp_path: Path) -> None:
    """A member of a seekable .tar is read from its start (only a file of its own skips):
    its reader cannot be asked whether it seeks."""
    data = _interrupted()
    archive = tmp_path / "logs.tar"
    with tarfile.open(archive, "w") as tar:
        info = tarfile.TarInfo("s/session.jsonl")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    reports = [r for r in audit_unit(Archive(str(archive), LocalFile(str(archive)))) if isinstance(r, LogReport)]
    assert [(r.status, [f.rule for f in r.findings]) for r in reports] == [("findings", ["B7"])]


def _too_damaged(tmp_path: Path, bad: bytes) -> LogReport:
    """A turn left open, then more records that are no event than the scan reads
    (it stops: a LIMIT error), then the turn's end, which the reading never reaches."""
    lines = [json.dumps(_SESSION).encode(), _line("turn/start", 0, {"turn": 1}),
             _line("step/start", 1, {"turn": 1, "step": 1})]
    lines += [bad] * (MAX_DAMAGED + 1)
    lines += [_line("step/end", 2, {"turn": 1, "step": 1}),
              _line("turn/end", 3, {"turn": 1, "reason": {"kind": "completed"}})]
    log = tmp_path / "session.jsonl"
    log.write_bytes(b"\n".join(lines) + b"\n")
    report = audit_source(file_source(str(log)), limits=Limits(max_record_bytes=1000))
    assert report is not None
    assert "LIMIT" in [f.rule for f in report.findings]  # the reading stopped
    return report


def test_no_b7_when_the_too_damaged_cap_stopped_the_reading(tmp_path: Path) -> None:
    """Past MAX_DAMAGED records that are no event (here records over --max-record-bytes)
    the scan stops: the log's end was not read, so no B7 of a turn it closes further on."""
    report = _too_damaged(tmp_path, b'"' + b"x" * 2000 + b'"')
    assert "B7" not in [f.rule for f in report.findings]


def test_no_crash_repair_said_when_the_too_damaged_cap_stopped_the_reading(tmp_path: Path) -> None:
    """The same stop with garbage lines (A6 damage): no A6 says what loading would append
    after it cuts the log, whose end was not read."""
    report = _too_damaged(tmp_path, b"garbage")
    assert not [f for f in report.findings if "then append" in f.message]


def test_crash_repair_is_of_the_bytes_the_audit_read_when_the_log_grows_meanwhile(tmp_path: Path) -> None:
    """A live session written to while it is audited: what loading would append is
    worked out from the bytes the pass read, not from records written after them."""
    log = tmp_path / "session.jsonl"
    log.write_bytes(_open_turn_log(3_000_000, 3_500_000))  # a step open in the last turn: B7
    before = audit_source(file_source(str(log)))
    real = LogRead.batches_from
    grown: list[int] = []

    def growing(self: LogRead, line: int, end: int | None = None,
                known: tuple[int, int] | None = None) -> Iterator[list[Item]]:
        if not grown:  # the harness appends while the audit judges: the step ends, a call starts
            with log.open("ab") as fh:
                fh.write(b'{"type":"step/end","seq":999999,"time":0,"data":{"turn":1,"step":1}}\n')
            grown.append(1)
        return real(self, line, end, known)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LogRead, "batches_from", growing)
        during = audit_source(file_source(str(log)))
    assert grown and before is not None and [f.rule for f in before.findings] == ["B7"]
    assert _judged(during) == _judged(before)
