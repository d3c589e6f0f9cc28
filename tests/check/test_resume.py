"""A resumed audit (``replay.check.resume``): an audit that goes on from the checkpoint
of an earlier audit of a log's first bytes gives the report of a cold audit of the
whole log, on real logs and on logs damaged anywhere; a checkpoint is refused unless it
holds only the audit's own state, and the audit cache keeps and uses one only for the
bytes its entry settled."""

from __future__ import annotations

import os
import pickle
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay.check import cache as cache_module
from replay.check import resume
from replay.check.audit import Audit, AuditRequest
from replay.check.cache import CacheRequest
from replay.check.engine import AuditResult, LogReport, Policy, audit_source
from replay.check.resume import ResumableSource, decode, encode, resume_reading
from replay.log.reader import Item, Limits, LogRead, read_log
from replay.log.source import file_source
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


def _resumable(path: Path, checkpoint: bytes | None = None) -> ResumableSource:
    source = file_source(str(path))
    return ResumableSource(source.path, source.open, source.is_file, source.discovered, checkpoint)


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


@pytest.mark.skipif(not LOGS, reason="the shared corpus is absent (set REPLAY_CORPUS to the shared corpus folder)")
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10**6), st.integers(0, 5), st.integers(0, 10**6), st.integers(0, 10**6),
       st.sampled_from(list(Policy)))
def test_a_resumed_audit_is_the_cold_audit_of_the_whole_log(tmp_path: Path, which: int, how: int, at: int,
                                                            cut: int, policy: Policy) -> None:
    """The exact path is the cold audit of the whole log; the fast one audits its first
    lines, keeps the checkpoint, and goes on from it over the rest."""
    lines = LOGS[which % len(LOGS)].read_bytes().split(b"\n")[:-1]
    if len(lines) < 2:
        return
    lines = _mutated(lines, how, at)
    whole = b"\n".join(lines) + b"\n"
    first = 1 + cut % len(lines)
    log = tmp_path / f"case-{which}-{how}-{at}-{cut}" / "session.jsonl"
    log.parent.mkdir(exist_ok=True)  # hypothesis may draw an example twice
    log.write_bytes(b"\n".join(lines[:first]) + b"\n")
    earlier = audit_source(_resumable(log), policy)
    assert earlier is not None and earlier.checkpoint is not None
    log.write_bytes(whole)
    reading = read_log(_resumable(log), Limits())
    assert resume_reading(reading, earlier.checkpoint) is not None  # the fast path is taken
    reading.close()
    resumed = audit_source(_resumable(log, earlier.checkpoint), policy)
    assert _judged(resumed) == _judged(audit_source(file_source(str(log)), policy))


def test_no_checkpoint_is_kept_of_a_torn_tail_a_zstd_log_or_a_plain_source(tmp_path: Path) -> None:
    header = b'{"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}\n'
    turn = b'{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}\n'
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(header + turn + b'{"type":"turn/e')
    whole = tmp_path / "whole.jsonl"
    whole.write_bytes(header + turn)
    torn_report, whole_report = audit_source(_resumable(torn)), audit_source(_resumable(whole))
    assert torn_report is not None and torn_report.checkpoint is None
    assert whole_report is not None and whole_report.checkpoint is not None
    plain = audit_source(file_source(str(whole)))
    assert plain is not None and plain.checkpoint is None
    import zstandard

    packed = tmp_path / "whole.jsonl.zstd"
    packed.write_bytes(zstandard.ZstdCompressor().compress(header) + zstandard.ZstdCompressor().compress(turn))
    packed_report = audit_source(_resumable(packed))
    assert packed_report is not None and packed_report.checkpoint is None


class _Called(Exception):
    pass


def _would_run() -> None:
    raise _Called


class _Hostile:
    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return _would_run, ()


@pytest.mark.parametrize("payload", [
    pickle.dumps(_Hostile(), protocol=5),
    pickle.dumps((os.getcwd,), protocol=5),
    pickle.dumps((1, 2, 3), protocol=5),
    b"\x80\x05garbage",
])
def test_a_checkpoint_that_names_anything_else_is_refused_before_it_is_built(payload: bytes) -> None:
    with pytest.raises(ValueError, match="not a checkpoint"):
        decode(resume.FORMAT + b" %d\n" % 10 + payload)


def test_a_checkpoint_says_the_length_it_resumes_at(tmp_path: Path) -> None:
    log = tmp_path / "session.jsonl"
    log.write_bytes(b'{"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}\n'
                    b'{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}\n')
    report = audit_source(_resumable(log))
    assert report is not None and report.checkpoint is not None
    assert resume.length_of(report.checkpoint) == log.stat().st_size
    scan, migrator, resumed = decode(report.checkpoint)
    assert (scan.number, scan.total, scan.expected, scan.pending) == (2, log.stat().st_size, 1, 0)
    assert encode(scan, migrator, resumed).startswith(resume.FORMAT + b" %d\n" % log.stat().st_size)
    wrong = report.checkpoint.replace(b" %d\n" % log.stat().st_size, b" %d\n" % (log.stat().st_size + 1), 1)
    with pytest.raises(ValueError):
        decode(wrong)


# -- the audit cache's use of checkpoints -------------------------------------------------


def _audit(folder: Path, cache: Path | None) -> AuditResult:
    request = AuditRequest((str(folder),), cache=None if cache is None else CacheRequest(cache, resume_from=0))
    return Audit(request).run()


def _reports(result: AuditResult) -> list[tuple[object, ...] | None]:
    return [_judged(r) for r in result.reports]


def _grown_copy(tmp_path: Path) -> tuple[Path, Path, bytes]:
    sources = sorted((corpus_root() / "sessions-2026-08-20").rglob("session.jsonl"))
    if not sources:
        pytest.skip("the shared corpus is absent (set REPLAY_CORPUS to the shared corpus folder)")
    source = max(sources[:20], key=lambda p: p.stat().st_size)
    folder = tmp_path / "logs"
    (folder / "s").mkdir(parents=True)
    log = folder / "s" / "session.jsonl"
    data = source.read_bytes()
    half = data[: data.index(b"\n", len(data) // 2) + 1]
    log.write_bytes(half)
    return folder, log, data


def test_the_cache_resumes_a_grown_log_from_its_checkpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder, log, data = _grown_copy(tmp_path)
    cache = tmp_path / "cache"
    _audit(folder, cache)
    (kept,) = cache.glob(f"*/{cache_module.RESUME_PREFIX}*")
    assert resume.length_of(kept.read_bytes()) == log.stat().st_size
    log.write_bytes(data)
    taken: list[bool] = []
    real = resume_reading

    def counted(reading: object, checkpoint: bytes | None) -> object:
        found = real(reading, checkpoint)  # type: ignore[arg-type]
        taken.append(found is not None)
        return found

    monkeypatch.setattr("replay.check.engine.resume_reading", counted)
    grown = _audit(folder, cache)
    assert taken == [True]
    assert _reports(grown) == _reports(_audit(folder, None))
    (kept,) = cache.glob(f"*/{cache_module.RESUME_PREFIX}*")
    assert resume.length_of(kept.read_bytes()) == len(data)  # the next growth goes on from here


@pytest.mark.parametrize("damage", ["flipped", "another log's", "removed", "garbage"])
def test_a_checkpoint_the_entry_does_not_name_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          damage: str) -> None:
    folder, log, data = _grown_copy(tmp_path)
    cache = tmp_path / "cache"
    _audit(folder, cache)
    (kept,) = cache.glob(f"*/{cache_module.RESUME_PREFIX}*")
    if damage == "flipped":
        body = bytearray(kept.read_bytes())
        body[-5] ^= 1
        kept.write_bytes(bytes(body))
    elif damage == "another log's":
        other = tmp_path / "other"
        shutil.copytree(folder, other)
        (other / "s" / "session.jsonl").write_bytes(data[: data.index(b"\n", len(data) // 3) + 1])
        _audit(other, tmp_path / "other-cache")
        (theirs,) = (tmp_path / "other-cache").glob(f"*/{cache_module.RESUME_PREFIX}*")
        kept.write_bytes(theirs.read_bytes())
    elif damage == "removed":
        kept.unlink()
    else:
        kept.write_bytes(resume.FORMAT + b" 10\n" + b"\x80\x05garbage")
    log.write_bytes(data)
    offered: list[bytes | None] = []
    real = resume_reading

    def seen(reading: object, checkpoint: bytes | None) -> object:
        offered.append(checkpoint)
        return real(reading, checkpoint)  # type: ignore[arg-type]

    monkeypatch.setattr("replay.check.engine.resume_reading", seen)
    grown = _audit(folder, cache)
    assert offered == [None]  # audited from its start
    assert _reports(grown) == _reports(_audit(folder, None))


@pytest.mark.parametrize("more", [b"", b'{"type":"step/start","seq":1,"time":0,"data":{"turn":1,"step":1}}\n'])
def test_an_interrupted_log_resumed_says_where_it_ends(tmp_path: Path, more: bytes) -> None:
    """B7 names the log's last line, whether the resumed audit read more lines or none."""
    log = tmp_path / "session.jsonl"
    log.write_bytes(b'{"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}\n'
                    b'{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}\n')
    earlier = audit_source(_resumable(log))
    assert earlier is not None and earlier.checkpoint is not None
    with log.open("ab") as fh:
        fh.write(more)
    resumed = audit_source(_resumable(log, earlier.checkpoint))
    cold = audit_source(file_source(str(log)))
    assert cold is not None and [(f.rule, f.line) for f in cold.findings] == [("B7", 3 if more else 2)]
    assert _judged(resumed) == _judged(cold)


def _exact_reread(self: LogRead, line: int) -> Iterator[list[Item]]:
    return self.batches()  # what a skip shortcuts: the log read from its start


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

    def spied(self: LogRead, line: int) -> Iterator[list[Item]]:
        batches = real(self, line)
        skipped.append(self.scan.number if self.scan is not None else 1)
        return batches

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LogRead, "batches_from", spied)
        fast = audit_source(file_source(str(log)))
    assert skipped == [starts[-1]]  # the reading starts after the line before the last turn/start
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LogRead, "batches_from", _exact_reread)
        exact = audit_source(file_source(str(log)))
    assert fast is not None and "B7" in [f.rule for f in fast.findings]
    assert _judged(fast) == _judged(exact)
