"""The record scanner (spec §6.2): records after the header → events, packed rows
and storage findings, with seq contiguity checked as the harness checks it.

Unlike the harness, which stops accepting at the first damaged record, the scanner
reports every damaged record and keeps going (re-synchronizing the expected seq), so
an audit shows all that is wrong. Whether a piece of damage is fatal or a torn tail
is decided by the checker at the end of the file (rule A8).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import orjson

from replay.findings import Finding, Rule
from replay.log.event import PACKED_TAGS, ChunkRun, Event
from replay.log.legacy import Migration
from replay.log.lines import Unparsable, decode_json
from replay.log.rows import RowError, decode_row
from replay.log.values import show
from replay.log.zstd import A9

A6 = Rule("A6", "format", "storage", "every record can be read (valid JSON; packed chunk rows well formed)")
A7 = Rule("A7", "format", "storage", "seqs count 0, 1, 2, … with no gap or repeat")
A8 = Rule("A8", "format", "storage", "damage is tolerated only after the last complete turn (a torn tail)")
"""A8 is judged at the end of the log (``replay.check.engine``): an A6/A7 finding here
is ``tail`` damage whose severity depends on where the last ``turn/end`` is."""

Item = Event | ChunkRun | Finding


def _damage(number: int, strict: bool, rule: Rule, message: str, seq: int | None = None,
            type: str | None = None) -> Finding:
    if strict:
        # Complete zstd frames get no tail tolerance (spec §6.3).
        return A9.error(f"{message}; the record is inside a complete Zstandard frame, where the harness "
                        "tolerates no damage, so it refuses the log", number, seq, type)
    return rule.error(message, number, seq, type, tail=True)


_OVERSIZE = object()
_SEQ_RULE = "seqs count 0, 1, 2, … from the first event, with no gap or repeat"
_JSON_TYPES: dict[type, str] = {list: "array", str: "string", int: "number", float: "number", bool: "boolean"}


def _expected(expected: int | None) -> str:
    return f" (seq {expected} was expected)" if expected is not None else ""


def scan_records(
    segments: Iterable[tuple[bytes, bool]],
    max_record: int,
    first_line: int = 2,
    offset: int = 0,
    migrations: Mapping[str, Migration] | None = None,
) -> Iterator[list[Item]]:
    """Yield what the records after the header hold, in file order.

    ``segments`` is the byte stream after the header line, as ``(bytes, strict)``
    pieces (``strict`` for plaintext of a complete zstd frame). Records are split on
    ``\\n`` and decoded here in one loop: this is the hot path of every audit. Items
    come in batches, one list per segment (bounded by the reader's block size), so
    the cost of handing items on is paid per block, not per event.

    After an unparsable record the number of events it held is unknown, so the next
    record's seq is taken as it comes (one damaged line is one finding, not two).
    ``migrations`` (the model stage's legacy migrations, by event type) are applied
    as events are made.
    """
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    packed = PACKED_TAGS
    no_migrations: dict[str, Migration] = {}
    migrate = (migrations or no_migrations).get
    number = first_line - 1
    total = offset
    expected: int | None = 0
    pending: list[bytes] = []
    pending_len = 0
    strict = False
    for data, strict in segments:
        if not data:
            continue
        total += len(data)
        out: list[Item] = []
        add = out.append
        parts: list[Any] = data.split(b"\n")
        tail = parts.pop()
        if pending_len and parts:
            size = pending_len + len(parts[0])
            parts[0] = _OVERSIZE if size > max_record else b"".join(pending) + parts[0]
            pending = []
            pending_len = 0
        check_size = len(data) > max_record or parts[:1] == [_OVERSIZE] or (parts and len(parts[0]) > max_record)
        for payload in parts:
            number += 1
            if check_size and (payload is _OVERSIZE or len(payload) > max_record):
                add(_damage(number, strict, A6, f"the record exceeds the reader's limit of {max_record} bytes "
                            "and is not read (raise --max-record-bytes if it is a real record)"))
                expected = None
                continue
            try:
                record = loads(payload)
            except decode_error:
                try:
                    record = decode_json(payload)
                except Unparsable as exc:
                    add(_damage(number, strict, A6, f"the record cannot be read: {exc}"))
                    expected = None
                    continue
            if type(record) is not dict:
                if record is None:
                    add(_damage(number, strict, A6, "the record is JSON null, not an event"))
                    expected = None
                else:
                    add(_damage(number, strict, A7, f"the record is a JSON {_JSON_TYPES.get(type(record), 'value')}, "
                                f"not an event, so the events' seqs break off here{_expected(expected)}"))
                continue
            tag = record.get("type")
            seq = record.get("seq")
            if type(tag) is str and tag in packed:
                try:
                    run = decode_row(tag, record, number)
                except RowError as exc:
                    add(_damage(number, strict, A6, f"the packed {tag} row (several chunks stored on one line) "
                                f"is malformed: {exc}", type=tag))
                    expected = None
                    continue
                if expected is not None and run.seq0 != expected:
                    add(_damage(number, strict, A7, f"the packed {tag} row starts at seq {run.seq0} where seq "
                                f"{expected} was expected: {_SEQ_RULE}", run.seq0, tag))
                expected = run.seq0 + run.count
                add(run)
                continue
            t = tag if type(tag) is str else ""
            if type(seq) is not int or seq != expected:  # the rare case: damage or resync
                if type(seq) is float and seq.is_integer():
                    seq = int(seq)  # JSON 5.0 is the number 5 to JavaScript
                if type(seq) is not int:
                    add(_damage(number, strict, A7, f"the event's seq is {show(seq)}, not a whole "
                                f"number{_expected(expected)}", None, t or None))
                    continue
                if expected is None and seq >= 0:
                    expected = seq
                if seq != expected:
                    add(_damage(number, strict, A7, f"the event has seq {seq} where seq {expected} was expected: "
                                f"{_SEQ_RULE}", seq, t or None))
            expected = seq + 1
            ev = Event(t, seq, record.get("time"), record.get("data"), number, record)
            migration = migrate(t)
            if migration is None:
                add(ev)
            else:
                new, notes = migration(ev)
                if notes:
                    out.extend(notes)
                if new is not None:
                    add(new)
        if tail:
            pending_len += len(tail)
            if pending_len <= max_record:
                pending.append(tail)
        if out:
            yield out
    if pending_len:
        number += 1
        yield [A8.warning(
            f"the last record ({pending_len} bytes) does not end with a newline, a write cut short: the harness "
            f"never reads it, and loading truncates the file to {total - pending_len} bytes",
            number,
        )]
