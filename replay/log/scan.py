"""The record scanner (spec §6.2): records after the header → events, packed rows
and storage findings, with seq contiguity checked as the harness checks it.

Unlike the harness, which stops accepting at the first damaged record, the scanner
reports every damaged record and keeps going (re-synchronizing the expected seq), so
an audit shows all that is wrong. Whether a piece of damage is fatal or a torn tail
is decided by the checker at the end of the file (rule A8).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from replay.findings import Finding, Severity
from replay.log.event import PACKED_TAGS, ChunkRun, Event
from replay.log.lines import Line, Unparsable, decode_json
from replay.log.rows import RowError, decode_row

Item = Event | ChunkRun | Finding


def _damage(line: Line, rule: str, message: str, seq: int | None = None, type: str | None = None) -> Finding:
    if line.strict:
        # Complete zstd frames get no tail tolerance (spec §6.3).
        return Finding("A9", Severity.ERROR,
                       f"corrupt Zstandard session log: complete frame contains a torn JSONL record "
                       f"({message})", line.number, seq, type)
    return Finding(rule, Severity.ERROR, message, line.number, seq, type, tail=True)


def scan_records(lines: Iterable[Line]) -> Iterator[Item]:
    """Yield what each record after the header holds, in file order.

    After an unparsable record the number of events it held is unknown, so the next
    record's seq is taken as it comes (one damaged line is one finding, not two).
    """
    expected: int | None = 0
    for line in lines:
        if not line.terminated:
            yield Finding(
                "A8", Severity.WARNING,
                f"torn tail: the last record ({line.size} bytes) has no terminating newline; the "
                f"harness never parses it and would truncate the file to {line.end - line.size} bytes",
                line.number, tail=False,
            )
            continue
        if line.payload is None:
            yield _damage(line, "A6", f"unparsable committed event: record of "
                          f"{line.size} bytes exceeds the reader's limit (raise --max-record-bytes)")
            expected = None
            continue
        try:
            record = decode_json(line.payload)
        except Unparsable as exc:
            yield _damage(line, "A6", f"unparsable committed event: {exc}")
            expected = None
            continue
        if not isinstance(record, dict):
            if record is None:
                yield _damage(line, "A6", "unparsable committed event: "
                              "the record is JSON null")
                expected = None
            else:
                yield _damage(line, "A7", f"seq gap in committed region "
                              f"(expected {expected}, got a JSON {type(record).__name__}, not an event)")
            continue
        tag = record.get("type")
        if type(tag) is str and tag in PACKED_TAGS:
            try:
                run = decode_row(tag, record, line.number)
            except RowError as exc:
                yield _damage(line, "A6", f"unparsable committed event: "
                              f"malformed {tag} storage row: {exc}", type=tag)
                expected = None
                continue
            if expected is not None and run.seq0 != expected:
                yield _damage(line, "A7", f"seq gap in committed region "
                              f"(expected {expected}, got {run.seq0})", run.seq0, tag)
            expected = run.seq0 + run.count
            yield run
            continue
        raw_seq = record.get("seq")
        t = tag if isinstance(tag, str) else ""
        if type(raw_seq) is float and raw_seq.is_integer():
            raw_seq = int(raw_seq)  # JSON 5.0 is the number 5 to JavaScript
        if type(raw_seq) is not int:
            yield _damage(line, "A7", f"seq gap in committed region (expected {expected}, got "
                          f"{raw_seq!r}, not an integer)", None, t or None)
            continue
        seq: int = raw_seq
        if expected is None and seq >= 0:
            expected = seq
        if seq != expected:
            yield _damage(line, "A7", f"seq gap in committed region (expected {expected}, got {seq})",
                          seq, t or None)
        expected = seq + 1
        yield Event(t, seq, record.get("time"), record.get("data"), line.number, record)
