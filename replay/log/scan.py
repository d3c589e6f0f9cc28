"""The record scanner (spec §6.2): records after the header → events, packed rows
and storage findings, with seq contiguity checked as the harness checks it.

Unlike the harness, which stops accepting at the first damaged record, the scanner
reports every damaged record and keeps going (re-synchronizing the expected seq), so
an audit shows all that is wrong. Whether a piece of damage is fatal or a torn tail
is decided by the checker at the end of the file (rule A8).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, overload

import orjson
from msgspec import UNSET

from replay.findings import Example, Finding, Rule
from replay.log.bounded import Records
from replay.log.event import PACKED_TAGS, ChunkRun, ChunkSpan, DictEvent, Event
from replay.log.legacy import Migrator
from replay.log.lines import Unparsable, decode_json
from replay.log.rows import RowError, check_run, decode_row
from replay.log.typed import MAX_NESTING, NOT_TYPED, ROWS, Chunk, RequestHeader, ToolResult
from replay.log.typed import decode as typed_decode
from replay.log.values import json_type
from replay.log.zstd import A9
from replay.output import show

A6 = Rule(
    "A6", "format", "storage", "every record can be read (valid JSON; packed chunk rows well formed)",
    explanation="""
        Every record after the header must be valid JSON, and a packed row of chunks (several
        assistant/chunk deltas stored on one line as text-chunks, reasoning-chunks or
        tool-call-chunks) must have exactly its documented fields. A record longer than the reader's
        limit (--max-record-bytes) is not read and counts as damaged too. Whether the damage is fatal
        depends on where it is (rule A8).""",
    examples=[
        Example(
            "an unparsable record before the last turn/end", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"user/message","seq":1,"time":0,"data":{"id":"u1","role":
                {"type":"turn/end","seq":2,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 3: A6 error: the record cannot be read: not valid JSON (Expecting value: line 1 column 66 (char 65)). Damage before the last complete turn (its turn/end is on line 4) is fatal: today's harness refuses this log
                """),  # noqa: E501
        Example(
            "an unparsable record after the last turn/end", bad_line=4,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"turn/end","seq":1,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                not json
                """,
            audit="""
                line 4: A6 warning: the record cannot be read: not valid JSON (Expecting value: line 1 column 1 (char 0)). It comes after the last complete turn, a tail torn by a crash: loading would cut the log off before line 4
                """),  # noqa: E501
        Example(
            "a packed row whose dt is short", bad_line=4,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"step/start","seq":1,"time":0,"data":{"turn":1,"step":1}}
                {"type":"reasoning-chunks","seq0":2,"time0":0,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":["a","b"]}}
                {"type":"step/end","seq":4,"time":0,"data":{"turn":1,"step":1}}
                {"type":"turn/end","seq":5,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 4: A6 error: the packed reasoning-chunks row (several chunks stored on one line) is malformed: dt must be an array of 1 safe integers. Damage before the last complete turn (its turn/end is on line 6) is fatal: today's harness refuses this log
                """),  # noqa: E501
    ],
    harness="""
        Before the last complete turn (a turn/end after the damage), refuses the log as "unparsable
        committed event". After it, treats the damage as the torn tail of a crash: loading truncates
        the file before the damaged record and closes the open turn.""",
)

A7 = Rule(
    "A7", "format", "storage", "seqs count 0, 1, 2, … with no gap or repeat",
    explanation="""
        Every event has a "seq": its position in the log, counting 0, 1, 2, … from the first event
        after the header, with no gap and no repeat (a packed row of n chunks takes n seqs). A record
        that is JSON but not an event object breaks the count too. Whether the break is fatal depends
        on where it is (rule A8).""",
    examples=[
        Example(
            "a seq gap before the last turn/end", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"step/start","seq":5,"time":0,"data":{"turn":1,"step":1}}
                {"type":"step/end","seq":6,"time":0,"data":{"turn":1,"step":1}}
                {"type":"turn/end","seq":7,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 3: A7 error: the event has seq 5 where seq 1 was expected: seqs count 0, 1, 2, … from the first event, with no gap or repeat. Damage before the last complete turn (its turn/end is on line 5) is fatal: today's harness refuses this log
                """),  # noqa: E501
        Example(
            "a seq repeated", bad_line=4,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"session/title","seq":1,"time":0,"data":{"title":"t"}}
                {"type":"session/title","seq":1,"time":0,"data":{"title":"t"}}
                {"type":"turn/end","seq":2,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 4: A7 error: the event has seq 1 where seq 2 was expected: seqs count 0, 1, 2, … from the first event, with no gap or repeat. Damage before the last complete turn (its turn/end is on line 5) is fatal: today's harness refuses this log
                """),  # noqa: E501
    ],
    harness="""
        Before the last complete turn, refuses the log with "seq gap in committed region". After it,
        truncates the torn tail on load.""",
)

A8 = Rule(
    "A8", "format", "storage", "damage is tolerated only after the last complete turn (a torn tail)",
    explanation="""
        A turn/end is the harness's commit point. Damage (rules A6 and A7) before the last decodable
        turn/end, or on that turn/end's own line (a seq gap there), means committed history is
        broken, and the log is refused. Damage after it is the tail of a write a crash cut short: the
        harness truncates it and repairs the log. A last record without a newline is always such a
        torn tail. The audit reports every damaged record, where the harness stops at the first: in
        a log refused for earlier damage, damage after the last turn/end says so, not how loading
        would cut the log.""",
    examples=[
        Example(
            "a last record without a newline", bad_line=3, final_newline=False,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"step/start","seq":1,"time":0,"data":{"turn":1,"step":1}}
                """,
            audit="""
                line 3: A8 warning: the last record (65 bytes) does not end with a newline, a write cut short: the harness never reads it, and loading truncates the file to 146 bytes
                line 3: B7 warning: the log ends inside turn 1 (the session was interrupted): loading would append turn/end {"kind":"interrupted"} for turn 1
                """),  # noqa: E501
    ],
    harness="""
        Never parses the unterminated record: loading truncates the file before it, then closes the
        turn it leaves open (rule B7).""",
)
"""A8 is judged at the end of the log (``replay.check.engine``): an A6/A7 finding here
is ``tail`` damage whose severity depends on where the last ``turn/end`` is."""

LIMIT = Rule(
    "LIMIT", "format", "storage",
    "a record, the whole log, and its lines that are no event fit the reader's caps "
    "(--max-record-bytes, --max-log-bytes; 10,000 such lines); so do an archive, its members "
    "and their headers",
    explanation="""
        replay reads every log under caps, so that no input can exhaust its memory or its time: a
        record longer than --max-record-bytes (128 MiB) is never assembled; a log longer than
        --max-log-bytes (1 GiB: the bytes read from the file, standard input, a FIFO or a device, and
        a zstd log's decompressed plaintext) stops the reading there; and so do more than 10,000
        records that are no event (garbage lines, bare values). What was not read was not judged:
        raise the caps if the log is real.""",
    harness="""
        The harness has no such caps: a LIMIT finding says nothing about what it would do with the
        log, only that replay did not read all of it.""",
)
"""Replay's own caps: an error whatever the harness would do (the reading stopped, or a
record was never assembled)."""

Item = Event | ChunkRun | Finding
AuditItem = Item | ChunkSpan
"""What ``scan_records(..., spans=True)`` yields: plain chunks come as spans."""


@dataclass(slots=True)
class ScanState:
    """Where a scan of a log's records stands: the line number of the last record read
    (the header is line 1), the bytes read (the header's included), the seq the next
    event must have (``None``: unknown, after damage), how many records read were no
    event, the length of an unterminated last fragment (0: the bytes read end with a
    newline), and whether the scan stopped before the end (too many records that were
    no event). A scan given one starts from it and leaves it where it ended: an audit
    of a grown log goes on from where its last audit stood (``replay.check.resume``)."""

    number: int = 1
    total: int = 0
    expected: int | None = 0
    damaged: int = 0
    pending: int = 0
    stopped: bool = False


def _damage(number: int, strict: bool, rule: Rule, message: str, seq: int | None = None,
            type: str | None = None) -> Finding:
    if strict:
        # Complete zstd frames get no tail tolerance (spec §6.3).
        return A9.error(f"{message}; the record is inside a complete Zstandard frame, where the harness "
                        "tolerates no damage, so it refuses the log", number, seq, type)
    return rule.error(message, number, seq, type, tail=True)


_SEQ_RULE = "seqs count 0, 1, 2, … from the first event, with no gap or repeat"


def _expected(expected: int | None) -> str:
    return f" (seq {expected} was expected)" if expected is not None else ""


@overload
def scan_records(segments: Iterable[tuple[bytes, bool]], max_record: int, first_line: int = 2, offset: int = 0,
                 migrator: Migrator | None = None, spans: Literal[False] = False,
                 typed: bool = True, expected: int | None = 0,
                 stopped: Callable[[], None] | None = None,
                 state: ScanState | None = None) -> Iterator[list[Item]]: ...


@overload
def scan_records(segments: Iterable[tuple[bytes, bool]], max_record: int, first_line: int = 2, offset: int = 0,
                 migrator: Migrator | None = None, *, spans: Literal[True],
                 typed: bool = True, expected: int | None = 0,
                 stopped: Callable[[], None] | None = None,
                 state: ScanState | None = None) -> Iterator[list[AuditItem]]: ...


@overload
def scan_records(segments: Iterable[tuple[bytes, bool]], max_record: int, first_line: int = 2, offset: int = 0,
                 migrator: Migrator | None = None, *, spans: bool,
                 typed: bool = True, expected: int | None = 0,
                 stopped: Callable[[], None] | None = None,
                 state: ScanState | None = None) -> Iterator[list[AuditItem]]: ...


def scan_records(
    segments: Iterable[tuple[bytes, bool]],
    max_record: int,
    first_line: int = 2,
    offset: int = 0,
    migrator: Migrator | None = None,
    spans: bool = False,
    typed: bool = True,
    expected: int | None = 0,
    stopped: Callable[[], None] | None = None,
    state: ScanState | None = None,
) -> Iterator[list[Item]] | Iterator[list[AuditItem]]:
    """Yield what the records after the header hold, in file order.

    ``segments`` is the byte stream after the header line, as ``(bytes, strict)``
    pieces (``strict`` for plaintext of a complete zstd frame). Records are split on
    ``\\n`` and decoded here in one loop: this is the hot path of every audit. Items
    come in batches, one list per segment (bounded by the reader's block size), so
    the cost of handing items on is paid per block, not per event.

    Each record is first decoded typed (``replay.log.typed``: straight into the struct
    of its type); one that does not fit takes the exact path (orjson, a dict view, the
    legacy migrations). ``typed=False`` reads every record the exact way (what the
    property tests hold the typed reading to).

    A record longer than ``max_record`` is never assembled: it is a ``LIMIT`` error
    (replay's own limit, not damage the harness would tolerate as a torn tail). After an
    unparsable or unread record the number of events it held is unknown, so the next
    record's seq is taken as it comes (one damaged line is one finding, not two). Past
    ``MAX_DAMAGED`` records that are no event the reading stops (a ``LIMIT`` error): a record of
    garbage costs far more than an event. ``migrator`` (the model stage's legacy
    migrations of this log) rewrites old shapes as events are made. With ``spans``,
    plain chunks come grouped as ``ChunkSpan`` items (for the audit: most events of a
    log are chunks, and most need one look per span). ``expected`` is the seq of the
    first event (``None``: the first event's own, for a scan that starts inside a log).
    ``stopped`` is called when the scan ends before the segments do (too many records
    that are no event: the rest of the log is not read). With ``state``, the scan
    starts where it says (``first_line``, ``offset`` and ``expected`` unused: its line
    is the one before the first record, with the records that were no event so far)
    and leaves it where it ended.
    """
    if state is None:
        state = ScanState(first_line - 1, offset, expected)
    return _scan(segments, max_record, migrator, spans, typed, stopped, state)


def _scan(segments: Iterable[tuple[bytes, bool]], max_record: int, migrator: Migrator | None, spans: bool,
          typed: bool, stopped: Callable[[], None] | None, state: ScanState) -> Iterator[list[AuditItem]]:
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    packed = PACKED_TAGS
    migrate = (migrator.by_type() if migrator is not None else {}).get
    remember = migrator.remember if migrator is not None else None
    decode_typed = typed_decode
    not_typed = NOT_TYPED
    chunk_class, result_class, header_class = Chunk, ToolResult, RequestHeader
    row_classes = ROWS
    deep = 2 * MAX_NESTING
    number, total, expected, damaged = state.number, state.total, state.expected, state.damaged
    records = Records(max_record)
    strict = False
    out: list[AuditItem] = []
    span: ChunkSpan | None = None

    def hurt(found: Finding) -> None:
        """Keep the finding of a record that is no event (garbage, null, a bare value,
        an oversized or malformed record); past ``MAX_DAMAGED`` of them, stop. (A seq gap
        between real events is not counted: each such record is read as an event.)"""
        nonlocal damaged
        damaged += 1
        if damaged > MAX_DAMAGED:
            out.append(LIMIT.error(f"more than {MAX_DAMAGED} records that are no event: the rest of the log, "
                                   f"from line {found.line}, was not read", found.line))
            raise _TooDamaged
        out.append(found)

    try:
        for data, strict in segments:
            if not data:
                continue
            total += len(data)
            out = []
            add = out.append
            span = None
            for payload in records.split(data):
                number += 1
                if payload is None:
                    hurt(limit_finding("the record", max_record, "--max-record-bytes", number))
                    expected = None
                    continue
                if typed:
                    try:
                        ev = decode_typed(payload)
                    except not_typed:
                        ev = None
                    if ev is not None and (len(payload) < deep
                                           or payload.count(b"[") + payload.count(b"{") <= MAX_NESTING):
                        cls = type(ev)
                        if cls in row_classes:
                            run = _typed_run(ev, number)
                            if run is not None:
                                if expected is not None and run.seq0 != expected:
                                    add(_damage(number, strict, A7, f"the packed {run.tag} row starts at seq "
                                                f"{run.seq0} where seq {expected} was expected: {_SEQ_RULE}",
                                                run.seq0, run.tag))
                                expected = run.seq0 + run.count
                                add(run)
                                continue
                        elif cls is not header_class or ev.body.reason != "fallback":
                            seq = ev.seq
                            if seq != expected:
                                if expected is None:
                                    expected = seq
                                else:
                                    add(_damage(number, strict, A7, f"the event has seq {seq} where seq {expected} "
                                                f"was expected: {_SEQ_RULE}", seq, ev.type))
                            expected = seq + 1
                            ev.line = number
                            ev.raw = payload
                            if cls is chunk_class:
                                if spans:
                                    body = ev.body
                                    if span is not None and out[-1] is span and span.turn == body.turn \
                                            and span.step == body.step and span.line + len(span.chunks) == number \
                                            and span.seq0 + len(span.chunks) == seq:
                                        span.chunks.append(ev)
                                    else:
                                        span = ChunkSpan(number, seq, body.turn, body.step, ev)
                                        add(span)
                                    continue
                            elif cls is result_class and remember is not None:
                                remember(seq, ev.body.message.id)
                            add(ev)
                            continue
                try:
                    record = loads(payload)
                except decode_error:
                    try:
                        record = decode_json(payload)
                    except Unparsable as exc:
                        hurt(_damage(number, strict, A6, f"the record cannot be read: {exc}"))
                        expected = None
                        continue
                if type(record) is not dict:
                    if record is None:
                        hurt(_damage(number, strict, A6, "the record is JSON null, not an event"))
                        expected = None
                    else:
                        hurt(_damage(number, strict, A7, f"the record is a JSON "
                                     f"{json_type(record)}, not an event, so the events' seqs "
                                     f"break off here{_expected(expected)}"))
                    continue
                tag = record.get("type")
                seq = record.get("seq")
                if type(tag) is str and tag in packed:
                    try:
                        run = decode_row(tag, record, number)
                    except RowError as exc:
                        hurt(_damage(number, strict, A6, f"the packed {tag} row (several chunks stored on one "
                                     f"line) is malformed: {exc}", type=tag))
                        expected = None
                        continue
                    if expected is not None and run.seq0 != expected:
                        add(_damage(number, strict, A7, f"the packed {tag} row starts at seq {run.seq0} where "
                                     f"seq {expected} was expected: {_SEQ_RULE}", run.seq0, tag))
                    expected = run.seq0 + run.count
                    add(run)
                    continue
                t = tag if type(tag) is str else ""
                if type(seq) is not int or seq != expected:  # the rare case: damage or resync
                    if type(seq) is float and seq.is_integer():
                        seq = int(seq)  # JSON 5.0 is the number 5 to JavaScript
                    if type(seq) is not int:
                        hurt(_damage(number, strict, A7, f"the event's seq is {show(seq)}, not a whole "
                                     f"number{_expected(expected)}", None, t or None))
                        continue
                    if expected is None and seq >= 0:
                        expected = seq
                    if seq != expected:
                        where = f"where seq {expected} was expected" if expected is not None else "below 0"
                        add(_damage(number, strict, A7, f"the event has seq {seq} {where}: {_SEQ_RULE}", seq,
                                    t or None))
                expected = seq + 1
                ev = DictEvent(t, seq, record.get("time"), record.get("data"), number, record)
                migration = migrate(t)
                if migration is None:
                    add(ev)
                else:
                    new, notes = migration(ev)
                    if notes:
                        out.extend(notes)
                    if new is not None:
                        add(new)
            payload = record = None  # a long record is not kept alive while its batch is read
            if out:
                yield out
    except _TooDamaged:
        state.number, state.total, state.expected, state.damaged = number, total, expected, damaged
        state.pending, state.stopped = records.pending, True
        if stopped is not None:
            stopped()
        yield out
        return
    state.number, state.total, state.expected, state.damaged = number, total, expected, damaged
    state.pending = records.pending
    if records.pending:
        number += 1
        yield [A8.warning(
            f"the last record ({records.pending} bytes) does not end with a newline, a write cut short: the "
            f"harness never reads it, and loading truncates the file to {total - records.pending} bytes",
            number,
        )]


def _typed_run(row: Any, line: int) -> ChunkRun | None:
    """A typed packed row's run, or ``None`` when the checks that relate its fields
    fail (the exact path then says which)."""
    body = row.body
    call = row.type == "tool-call-chunks"
    members = body.args if call else body.texts
    try:
        check_run(row.time0, row.seq0, body.dt, members)
    except RowError:
        return None
    call_id = body.id if call else None
    name = body.name if call and body.name is not UNSET else None
    return ChunkRun(row.type, row.seq0, row.time0, body.turn, body.step, body.index, body.dt, members, line,
                    call_id, name)


MAX_DAMAGED = 10_000
"""Records that are no event read from one log before the reading stops: a line of
garbage costs far more to judge than an event (a failed parse, then the slow parser's
reason), and ten thousand of them say enough."""


class _TooDamaged(Exception):
    pass


def limit_finding(what: str, cap: int, option: str, line: int | None = None, real: str = "log") -> Finding:
    """Replay's own cap stopped the reading: an error, whatever the harness would do."""
    return LIMIT.error(f"{what} exceeds the reader's limit of {cap} bytes and was not read (raise {option} if this "
                       f"is a real {real})", line=line)
