"""Open a session log (plain or zstd, file or stdin) and stream what it holds.

``read_log`` returns a ``LogRead``: the header (read eagerly, it is one line) and a
one-shot iterator over normalized items: ``Event`` (legacy shapes already migrated),
``ChunkRun`` (packed rows, still packed) and ``Finding`` (what the reading stages
noticed), in file order. Nothing is collected: memory stays flat in the number of
events.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import chain
from typing import BinaryIO, cast

from replay.describe import reason
from replay.findings import Finding, Rule
from replay.log.bounded import Spool, TooLarge, capped_blocks
from replay.log.event import ChunkRun, Event
from replay.log.header import A1, Header, parse_header
from replay.log.legacy import Migrator
from replay.log.lines import split_header, split_records
from replay.log.scan import A8, AuditItem, Item, ScanState, limit_finding, scan_records
from replay.log.zstd import A9, MAGIC, DecompressedTooLarge, ZstdCorruption, frame_plaintexts
from replay.words import counted

IO = Rule(
    "IO", "format", "storage", "the file can be opened and read",
    explanation="""
        The file could not be opened or read (it is missing, not readable, or the read failed part
        way). Nothing in it was judged.""",
    harness="""The harness cannot load a file it cannot read either.""",
)


@dataclass(frozen=True, slots=True)
class Limits:
    """Hard caps that turn hostile input into findings instead of memory exhaustion."""

    max_record_bytes: int = 128 << 20
    """The longest record read; a longer one is a ``LIMIT`` finding, never assembled."""
    max_log_bytes: int = 1 << 30
    """The most bytes read from one log: from its file or stream, and, for a zstd log,
    of its plaintext (the decompression-bomb guard); for an archive read as a stream (a
    ``.tar.zst``), of the whole archive, compressed and decompressed."""
    max_archive_members: int = 20_000
    """The most members read from one archive (each costs a header read and, named like
    a log, an audit, however small); past it, a ``LIMIT`` finding for the archive."""


class Opener:
    """How to open a log, as plain data (a path, a URL), so that a ``Source`` can be
    pickled and opened in another process or on another machine. Calling it opens the
    bytes; a ``Source`` whose ``open`` is not an ``Opener`` (standard input, a stream
    kept in memory) is read where it was found."""

    __slots__ = ()

    def __call__(self) -> BinaryIO:
        raise NotImplementedError

    def size(self) -> int | None:
        """The log's size in bytes when it is known without reading (to balance work)."""
        return None

    def travels(self) -> bool:
        """Whether another process can open it (a path, a URL to shared storage); not
        an in-memory filesystem, which exists in this process only."""
        return True

    def exists(self, location: str) -> bool:
        """Whether ``location``, a path in the same storage, exists (rule A10 looks for
        the other encoding of a session beside its log)."""
        return os.path.exists(location)


@dataclass(frozen=True, slots=True)
class Source:
    """Something a log can be read from: ``path`` names it in reports.

    ``open`` may be called more than once (a second pass of a renderer, the audit's
    look at what repair would do); a one-shot stream is kept in a ``Spool``."""

    path: str
    open: Callable[[], BinaryIO]
    is_file: bool = False
    """True for a file on disk (its location can be judged, rule A10)."""
    discovered: bool = False
    """True when found by searching a folder: such a file is a log only if its first
    record is a session header; otherwise it is passed over, not reported (one whose
    first record could not be read at all, for a cap or an I/O error, is reported)."""


class LogRead:
    """One log being read. Iterate ``items()`` once."""

    def __init__(self, source: Source, limits: Limits, typed: bool = True) -> None:
        self.source = source
        self.limits = limits
        self.typed = typed
        """Records are decoded typed where they fit (``scan_records``); ``False`` reads
        every one the exact way."""
        self.header: Header | None = None
        self.compressed = False
        self._findings: list[Finding] = []
        self._rest: Iterator[tuple[bytes, bool]] = iter(())
        self._header_size = 0
        self._stream: BinaryIO | None = None
        self._header_payload: bytes | bytearray | None = None
        self.unreadable = False
        self.stopped_before_header = False
        """The reading ended (a cap, an I/O error) before the first record was known."""
        self._start: tuple[int, int] | None = None
        """The line and byte the records are read from, when not after the header (``_skip_to``)."""
        self.read_whole = False
        """The records were read to the end of the log (no cap, no error, no run of
        records that are no event stopped them)."""
        self._stopped = False
        self.plain_end: int | None = None
        """For a plain log read to the end of its file: how many bytes that was."""
        self.scan: ScanState | None = None
        """Where the scan of the records stands (set as they are read: see ``resume``)."""
        self.migrator: Migrator | None = None
        """The legacy migrations of this log's events (made as its records are read)."""
        self._open()

    def resume(self, at: ScanState, migrator: Migrator) -> bool:
        """Read the records from where an earlier reading of the same bytes ended
        (``at``: a place after a newline, whose header and findings so far the caller
        holds) instead of after the header, with that reading's ``migrator``: for a
        plain log on a file of its own that can seek, not yet read, whose header was
        read and that ``at`` leaves inside the log's cap. Whether it will (when not,
        the reading is as it was)."""
        stream = self._stream
        if self.compressed or self.header is None or stream is None or self.scan is not None or \
                self._start is not None or not self.source.is_file or at.pending or at.stopped or \
                not (self._header_size <= at.total <= self.limits.max_log_bytes) or at.number < 1:
            return False
        try:
            if not stream.seekable():
                return False
            here = stream.tell()
        except (OSError, ValueError, AttributeError):  # a stream that cannot say
            return False
        try:
            stream.seek(at.total - 1)
            ends = stream.read(1) == b"\n"
        except OSError:
            ends = False
        if not ends:  # not where a line of the log ends: the reading goes on from where it stood
            if not self._seek(stream, here):
                self._rest = iter(())
            return False
        self._findings.clear()  # the header's: the caller holds them
        self._rest = self._plain_from(stream, at.total)
        self._start = (at.number + 1, at.total)
        self.scan = ScanState(at.number, at.total, at.expected, at.damaged)
        self.migrator = migrator
        return True

    @property
    def resumed_at(self) -> tuple[int, int] | None:
        """Where this reading started other than at the log's first record: the line
        and the byte it starts at (a checkpoint's place, ``resume``), else ``None``."""
        return self._start

    def batches_from(self, line: int, end: int | None = None,
                     known: tuple[int, int] | None = None) -> Iterator[list[Item]]:
        """``batches()`` from the record on ``line`` on, for a caller that knows the
        records before it hold no damage (their seqs run on unbroken): a plain log on a
        file that can seek skips them unread (only their newlines are counted), any
        other is read from its start. The items before ``line`` that come are the
        caller's to pass over; a skip leaves out the header's findings too. A plain
        log is read no further than ``end`` bytes (what an earlier reading of it
        read: records written since are not read). ``known``: a line of the log at or
        before ``line`` and the byte it starts at (an earlier reading's ``resumed_at``),
        from which the newlines are counted instead of from the header."""
        if line > 2:
            self._skip_to(line, known)
        if end is not None and not self.compressed:
            self._rest = _up_to(self._rest, end - (self._start[1] if self._start else self._header_size))
        return self.batches()

    def _skip_to(self, line: int, known: tuple[int, int] | None = None) -> None:
        """Set the reading to start at the record on ``line``, when it can (counting the
        newlines from ``known``'s place when it is one at or before ``line``)."""
        stream, header = self._stream, self.header
        if self.compressed or header is None or stream is None or self._start is not None or not self.source.is_file:
            return  # a file of its own only (an archive's member seeks through the archive's reader)
        try:
            if not stream.seekable():
                return
            here = stream.tell()
        except (OSError, ValueError, AttributeError):  # a stream that cannot say
            return
        try:
            offset, wanted = self._header_size, line - 2  # newlines between the header's and the record
            if known is not None and 2 <= known[0] <= line and self._header_size <= known[1]:
                offset, wanted = known[1], line - known[0]
            stream.seek(offset)
            for block in capped_blocks(stream.read, self.limits.max_log_bytes - offset):
                count = block.count(b"\n")
                if count < wanted:
                    wanted -= count
                    offset += len(block)
                    continue
                end = -1
                for _ in range(wanted):
                    end = block.index(b"\n", end + 1)
                offset += end + 1
                break
            else:
                offset = -1  # fewer lines than that: read from the start
        except (OSError, TooLarge):
            offset = -1
        if self._header_size <= offset <= self.limits.max_log_bytes and self._seek(stream, offset):
            self._findings.clear()  # the header's: the caller has them
            self._rest = self._plain_from(stream, offset)
            self._start = (line, offset)
        elif not self._seek(stream, here):  # the reading goes on from where it stood, or fails
            self._rest = iter(())

    def _stop(self) -> None:
        self._stopped = True

    def _seek(self, stream: BinaryIO, offset: int) -> bool:
        try:
            stream.seek(offset)
        except OSError as exc:
            self._fail(self._io_error(exc))
            return False
        return True

    @property
    def path(self) -> str:
        return self.source.path

    @property
    def is_session_log(self) -> bool:
        """The first record is a JSON object tagged ``"type":"session"``."""
        return self.header is not None and self.header.record.get("type") == "session"

    def _fail(self, found: Finding) -> None:
        """A finding that ends the reading; without a header, the log is unreadable."""
        self._findings.append(found)
        self.unreadable = self.unreadable or self.header is None
        self.stopped_before_header = self.stopped_before_header or self.header is None

    def _io_error(self, exc: OSError) -> Finding:
        return IO.error(f"the file cannot be read: {reason(exc)}")

    def _too_long(self) -> Finding:
        return limit_finding("the log", self.limits.max_log_bytes, "--max-log-bytes")

    def _open(self) -> None:
        try:
            stream = self.source.open()
            self._stream = stream
            first = stream.read(4)
        except OSError as exc:
            self._fail(self._io_error(exc))
            return
        except TooLarge:
            self._fail(self._too_long())
            return
        if first == MAGIC:
            self.compressed = True
            segments = self._zstd_segments()
        else:
            segments = self._plain_segments(first)
        try:
            head, self._rest = split_header(segments, self.limits.max_record_bytes)
        except _ReadFailed:
            return
        if head is not None and head.payload is None and head.size > self.limits.max_record_bytes:
            self._fail(limit_finding("the first record (the session header)", self.limits.max_record_bytes,
                                     "--max-record-bytes", line=1))
            return
        if head is None:
            self._findings.append(A1.error("the file is empty: a session log starts with a session header line",
                                           line=1))
            self.unreadable = True
            return
        if head.strict is False and self.compressed:
            self._findings.append(A9.error("the first Zstandard frame, which holds the session header, is cut "
                                           "short: today's harness refuses the log", line=1))
        self._header_size = head.end
        self._header_payload = head.payload
        self.header, found = parse_header(head.payload, head.terminated)
        self._findings.extend(found)
        if self.header is None:
            self.unreadable = True

    def _plain_segments(self, first: bytes) -> Iterator[tuple[bytes, bool]]:
        assert self._stream is not None
        yield first, False
        yield from self._plain_from(self._stream, len(first))

    def _plain_from(self, stream: BinaryIO, start: int) -> Iterator[tuple[bytes, bool]]:
        """The plain bytes from ``start`` on (the stream is there), under the log's cap."""
        at = start
        try:
            for block in capped_blocks(stream.read, self.limits.max_log_bytes - start):
                at += len(block)
                yield block, False
            self.plain_end = at
        except OSError as exc:
            self._fail(self._io_error(exc))
            raise _ReadFailed from None
        except TooLarge:
            self._fail(self._too_long())
            raise _ReadFailed from None

    def _zstd_segments(self) -> Iterator[tuple[bytes, bool]]:
        """The plaintext, frame by frame; frame 1 must hold exactly the header line
        (more after its newline is fatal: the reading stops there)."""
        stream = self._stream
        assert stream is not None
        cap = self.limits.max_log_bytes
        frame = -1  # start offset of the frame being read
        last = b"\n"  # last plaintext byte of the previous frame
        last_complete = True
        header_line = False  # frame 1 held a newline
        torn_at: int | None = None
        recovered = 0
        try:
            if not stream.seekable():
                stream = self._stream = Spool(stream, cap).open()
            for piece, complete, start in frame_plaintexts(stream, cap):
                if not complete:
                    if torn_at is None:
                        torn_at = start
                    recovered += piece.count(b"\n")
                if start == 0:
                    frame = 0
                    if not piece:
                        continue
                    nl = piece.find(b"\n")
                    if header_line or 0 <= nl < len(piece) - 1:
                        if not header_line:
                            yield piece[: nl + 1], complete
                        self._bad_header_frame()
                        return
                    header_line = nl >= 0
                    yield piece, complete
                    continue
                if start != frame:
                    if frame == 0 and not header_line:
                        self._bad_header_frame()
                    elif frame > 0 and last != b"\n":
                        self._torn_complete_frame(frame)
                    frame = start
                if piece:
                    last = piece[-1:]
                last_complete = complete
                yield piece, complete
            if frame == 0 and not header_line:
                self._bad_header_frame()
            elif frame > 0 and last != b"\n" and last_complete:
                self._torn_complete_frame(frame)
            if torn_at is not None:
                self._findings.append(A8.warning(
                    f"the last Zstandard frame (from byte {torn_at}) is incomplete, a write cut short: the harness "
                    f"keeps the {counted(recovered, 'complete record')} it recovers from it and truncates the file "
                    f"at byte {torn_at}"))
        except ZstdCorruption as exc:
            self._fail(A9.error(f"the Zstandard file is damaged ({exc}): today's harness refuses it"))
            raise _ReadFailed from None
        except (DecompressedTooLarge, TooLarge):
            self._fail(limit_finding("the decompressed log (or a decompression bomb)", cap, "--max-log-bytes"))
            raise _ReadFailed from None
        except OSError as exc:
            self._fail(self._io_error(exc))
            raise _ReadFailed from None

    def _torn_complete_frame(self, start: int) -> None:
        self._findings.append(A9.error(f"the complete Zstandard frame at byte {start} ends inside a record (a "
                                       "frame must hold whole records): today's harness refuses the log"))

    def _bad_header_frame(self) -> None:
        self._findings.append(A9.error("the first Zstandard frame must hold the session header line and "
                                       "nothing else: today's harness refuses the log", line=1))

    def batches(self) -> Iterator[list[Item]]:
        """Header findings first, then the events in order with findings inline, in
        lists of bounded size (the fast way to consume a log)."""
        return cast(Iterator[list[Item]], self._batches(False))

    def audit_batches(self) -> Iterator[list[AuditItem]]:
        """``batches()`` with plain chunks grouped in ``ChunkSpan`` items (see
        ``scan_records``): what the audit engine reads."""
        return self._batches(True)

    def _batches(self, spans: bool) -> Iterator[list[AuditItem]]:
        found = self._findings
        if found:
            yield list[AuditItem](found)
            found.clear()
        if self.header is None:
            self.close()
            return
        line, offset = self._start or (2, self._header_size)
        if self.scan is None:
            self.scan = ScanState(line - 1, offset, 0 if self._start is None else None)
        if self.migrator is None:
            self.migrator = Migrator(self.header.id)
        try:
            for batch in scan_records(self._rest, self.limits.max_record_bytes, migrator=self.migrator, spans=spans,
                                      typed=self.typed, stopped=self._stop, state=self.scan):
                if found:
                    yield list[AuditItem](found)
                    found.clear()
                yield batch
            self.read_whole = not self._stopped
        except _ReadFailed:
            pass
        if found:
            yield list[AuditItem](found)
            found.clear()
        self.close()

    def records(self) -> Iterator[tuple[int, bytes | None]]:
        """Every record's bytes with its line number (the header is line 1), undecoded,
        a final fragment without a newline included; ``None`` for a record over the
        size limit. What a finding's fingerprint is made of. Use instead of
        ``batches()``."""
        try:
            if self._header_payload is not None:
                yield 1, bytes(self._header_payload)
            yield from split_records(self._rest, self.limits.max_record_bytes)
        except _ReadFailed:
            pass
        finally:
            self.close()

    def items(self) -> Iterator[Item]:
        """The same as ``batches()``, one item at a time."""
        return chain.from_iterable(self.batches())

    def close(self) -> None:
        if self._stream is not None:
            with contextlib.suppress(OSError):
                self._stream.close()
            self._stream = None


class _ReadFailed(Exception):
    pass


def _up_to(segments: Iterator[tuple[bytes, bool]], size: int) -> Iterator[tuple[bytes, bool]]:
    """The first ``size`` bytes of a plain log's segments."""
    for data, strict in segments:
        if size <= 0:
            return
        if len(data) > size:
            data = data[:size]
        size -= len(data)
        yield data, strict


def read_log(source: Source, limits: Limits | None = None, typed: bool = True) -> LogRead:
    return LogRead(source, limits or Limits(), typed)


def iter_events(items: Iterator[Item]) -> Iterator[Event]:
    """Only the events, with packed rows expanded: what renderers and folds read."""
    for item in items:
        if isinstance(item, Event):
            yield item
        elif type(item) is ChunkRun:
            yield from item.events()


__all__ = ["AuditItem", "Item", "Limits", "LogRead", "Opener", "Source", "iter_events", "read_log"]
