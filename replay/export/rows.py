"""One log's rows, made where the audit reads it: ``ExportWatch`` reads every log
alongside its audit (``replay.check.engine.Watch``), folding it with the session
browser's own fold (``replay.project.session.SessionFold``: the same times, turns,
steps, tokens and call outcomes) into its ``turns``, ``steps``, ``tool_calls``, ``plans``
(and ``events``) rows: a large log's are written as Parquet parts into the export's
staging folder, in the worker process that read it; a small log's travel back. With
them travel the session's own facts (``LogFacts``); the ``sessions`` and ``findings``
rows are made by the caller from them and from the audit's report."""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from operator import attrgetter
from typing import Any

import msgspec

from replay.check.engine import LogReport, Reading, Watch
from replay.export.arrow import columns_of, parquet_bytes
from replay.export.otlp import CLIENT, INTERNAL, SERVICE, LogTrace, Span, span_id
from replay.export.sink import Sink
from replay.findings import Finding
from replay.jsjson import MAX_SAFE_INTEGER
from replay.log.event import ChunkRun, ChunkSpan, Event
from replay.log.reader import LogRead
from replay.log.typed import (
    PLAIN,
    TYPED,
    AssistantMessageEvent,
    Chunk,
    RequestHeader,
    StepEnd,
    StepStart,
    ToolCall,
    ToolResult,
    TurnEnd,
    TurnStart,
    UserMessageEvent,
)
from replay.project.session import SUBAGENT_TOOLS, CallFacts, SessionFold, Usage
from replay.project.tools import tool_call
from replay.render.generation import generation_of

PART_TABLES = ("turns", "steps", "tool_calls", "plans", "events")
"""The tables written by the process that reads a log (``sessions`` and ``findings``:
by the caller, from the reports)."""
_ACCOUNTED = ("usage", "finish")
"""The chunk types that count; a tuple, not a set: a chunk's type may be a list or an
object, which is no set's key (the log's rows were lost to the error)."""


@dataclass(frozen=True, slots=True)
class Part:
    table: str
    name: str
    rows: int


@dataclass(frozen=True, slots=True)
class LogFacts:
    """What a log's ``sessions`` row takes from its reading (the audit adds the rest)."""

    values: dict[str, Any]
    parts: tuple[Part, ...]
    """The tables of a large log, written as Parquet parts where it was read…"""
    tables: dict[str, list[tuple[Any, ...]]]
    """…or a small log's rows, a value per column in the order of ``TABLES`` (they travel
    back, and are made Arrow in batches: a part per log would be a file per log and
    table, most of the export's time)."""


def _may_count(ev: Event) -> bool:
    """Whether a chunk may be a ``usage`` or ``finish`` one (the only ones that count):
    a typed chunk whose bytes name neither, and escape nothing, is neither, and its
    data need not be decoded (most of an export's time, else)."""
    raw = getattr(ev, "raw", None)
    return not raw or _may_name(raw)


def _may_name(raw: bytes) -> bool:
    """Whether a record's bytes may name ``usage`` or ``finish``: they hold one of the
    two, or an escape. (``find``, not ``in``: ``in`` first asks whether the bytes
    sought are an integer, which raises and formats an error each time, the most of
    an export's time spent on the chunks it passes over.)"""
    return raw.find(b'"usage"') >= 0 or raw.find(b'"finish"') >= 0 or raw.find(b"\\u") >= 0


class _Usage(msgspec.Struct):
    usage: Any = None


class _Call(msgspec.Struct):
    name: Any = None
    arguments: Any = None


class _Chunk(msgspec.Struct):
    chunk: Any = None


class _UsageRecord(msgspec.Struct):
    data: _Usage


class _CallRecord(msgspec.Struct):
    data: _Call


class _ChunkRecord(msgspec.Struct):
    data: _Chunk


_usage_of = msgspec.json.Decoder(_UsageRecord).decode
_call_of = msgspec.json.Decoder(_CallRecord).decode
_chunk_of = msgspec.json.Decoder(_ChunkRecord).decode
"""The fields of ``data`` the session fold reads that a typed body does not hold,
decoded alone from the record's bytes (the rest skipped, not built). A value is
taken only where it is what the record's own decoding gives (``_same``); else, or
when the bytes are not there or do not decode here, the record is decoded."""


def _same(usage: Any) -> bool:
    """Whether a ``usage`` decoded here is what ``replay.log.lines.decode_json`` gives:
    its counts are safe integers (a larger one may be read as a float there)."""
    if type(usage) is dict:
        for v in usage.values():
            if type(v) is int and not -MAX_SAFE_INTEGER <= v <= MAX_SAFE_INTEGER:
                return False
    return True


def _lean(decode: Any, ev: Any) -> Any:
    raw = ev.raw
    if not raw:
        return None
    try:
        return decode(raw).data
    except (msgspec.DecodeError, RecursionError):
        return None


def _chunk_value(ev: Any) -> Any:
    """A typed chunk's ``chunk``, as the record's own decoding gives it."""
    found = _lean(_chunk_of, ev)
    chunk = found.chunk if found is not None else None
    if found is None or (type(chunk) is dict and not _same(chunk.get("usage"))):
        data = ev.data
        return data.get("chunk") if isinstance(data, dict) else None
    return chunk


def _int(value: Any) -> int | None:
    return value if type(value) is int else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


class ExportWatch(Watch):
    """Reads each log into its rows and writes them into ``sink``'s ``staging`` folder.
    Pickles (its sink, staging name and flags travel)."""

    def __init__(self, sink: Sink, staging: str, events: bool = False, row_group: int = 65536,
                 traces: bool = False, content: bool = False) -> None:
        super().__init__()
        self.sink, self.staging, self.events, self.row_group = sink, staging, events, row_group
        self.part_rows = row_group
        """A log with at least this many rows writes its parts where it is read."""
        self.traces, self.content = traces, content
        """``traces``: make each log's spans (``LogTrace``) instead of its rows;
        ``content``: with the prompt, arguments and results."""

    def reading(self, log: LogRead) -> Reading:
        return LogRows(self, log)


class LogRows(Reading):
    """One log's rows, as the audit reads it."""

    def __init__(self, watch: ExportWatch, log: LogRead) -> None:
        self.watch = watch
        self.path = log.path
        self.header: dict[str, Any] = log.header.record if log.header is not None else {}
        self.session_id = _text(self.header.get("id"))
        self.fold = SessionFold()
        self.generation: str | None = None
        self.calls: list[tuple[Any, Any, int, str | None]] = []
        """Each call's turn, step, argument characters (and with content, its arguments)."""
        self.results: dict[int, tuple[int, str | None, str | None]] = {}
        """Each settled call's result characters, error text (and with content, its text)."""
        self.content = watch.traces and watch.content
        self.plans: list[tuple[int, Any, Any]] = []
        self.turn: Any = None
        self.events: list[tuple[Any, ...]] | None = [] if watch.events else None

    # -- the items --------------------------------------------------------------------

    def batch(self, items: Sequence[Any]) -> None:
        fast, timed = _FAST, _TIMED
        events = self.events
        low: int | None = None
        high: int | None = None
        for item in items:
            kind = type(item)
            if kind in timed:  # a typed event: its time is a safe integer
                t = item.time
                if low is None or high is None:
                    low = high = t
                elif t < low:
                    low = t
                elif t > high:
                    high = t
                handler = fast.get(kind)
                if handler is not None:
                    handler(self, item, t)
                if events is not None:
                    events.append(_event_row(item))
            elif kind is ChunkSpan:
                self._span(item)
            elif kind is ChunkRun:
                self._run(item)
            elif kind is not Finding:
                self._event(item)
        if low is not None and high is not None:
            self.fold.span(low, high)

    def _span(self, span: ChunkSpan) -> None:
        fold = self.fold
        chunks: list[Any] = span.chunks  # typed chunks (see ChunkSpan)
        times = list(map(_TIME_OF, chunks))  # safe integers (see ChunkSpan)
        fold.span(min(times), max(times))
        key = span.turn, span.step
        for ev in chunks:  # _may_count, inline: most of the chunks
            raw = ev.raw
            if raw and raw.find(b'"usage"') < 0 and raw.find(b'"finish"') < 0 and raw.find(b"\\u") < 0:
                continue  # _may_name, inline
            chunk = _chunk_value(ev)
            if type(chunk) is dict and chunk.get("type") in _ACCOUNTED:
                fold.chunk_at(key, chunk)
        if self.events is not None:
            turn, step = span.turn, span.step
            self.events.extend((ev.seq, ev.type, turn, step, ev.time, ev.line) for ev in chunks)

    def _run(self, run: ChunkRun) -> None:
        dt = run.dt  # safe integers (see ChunkRun)
        events = self.events
        if events is None and (not dt or min(dt) >= 0):
            low, high = run.time0, run.time0 + sum(dt)
        else:
            times = list(accumulate(dt, initial=run.time0))
            low, high = min(times), max(times)
            if events is not None:
                turn, step, line = _int(run.turn), _int(run.step), run.line
                events.extend((run.seq0 + i, "assistant/chunk", turn, step, t, line)
                              for i, t in enumerate(times[:len(run.members)]))
        if type(low) is int and type(high) is int:
            self.fold.span(low, high)

    # -- typed events (``_FAST``): folded from their fields, their time already read ----

    def _step_start(self, ev: StepStart, t: int) -> None:
        SessionFold._step_start(self.fold, ev, t)

    def _step_end(self, ev: StepEnd, t: int) -> None:
        SessionFold._step_end(self.fold, ev, t)

    def _turn_start(self, ev: TurnStart, t: int) -> None:
        SessionFold._turn_start(self.fold, ev, t)
        self.turn = ev.body.turn

    def _turn_end(self, ev: TurnEnd, t: int) -> None:
        SessionFold._turn_end(self.fold, ev, t)

    def _header(self, ev: RequestHeader, t: int) -> None:
        self.fold._route(ev.body.header.config.model)

    def _context(self, ev: Event, t: int) -> None:
        if self.generation is None:
            self.generation = "2026-08"
        SessionFold._context(self.fold, ev, t)

    def _title(self, ev: Event, t: int) -> None:
        SessionFold._title(self.fold, ev, t)

    def _inbox(self, ev: Event, t: int) -> None:
        if self.generation is None:
            self.generation = "2026-08"

    def _user(self, ev: UserMessageEvent, t: int) -> None:
        fold = self.fold
        if fold.prompt is None and ev.body.source.kind == "user":  # the source, read without decoding
            SessionFold._user(fold, ev, t)

    def _assistant(self, ev: AssistantMessageEvent, t: int) -> None:
        if self.generation is None:
            self.generation = "2026-08"
        fold = self.fold
        found = _lean(_usage_of, ev)
        if found is None or not _same(found.usage):
            SessionFold._assistant(fold, ev, t)
            return
        body = ev.body
        step = fold.step_at((body.turn, body.step))
        step.model = body.message.source.model  # a non-empty string
        usage = Usage.read(found.usage)
        if usage is not None:
            if step.message_usage is None:
                step.message_usage = Usage()
            step.message_usage.add(usage)

    def _call(self, ev: ToolCall, t: int) -> None:
        fold = self.fold
        found = _lean(_call_of, ev)
        if found is None or not (found.arguments is None or type(found.arguments) is str):
            SessionFold._call(fold, ev, t)
            self._called(ev)
            return
        body = ev.body
        name = found.name if isinstance(found.name, str) else ""
        args = found.arguments or ""
        call_id = body.call_id
        number = fold._pairing.open(call_id)
        fold.calls.append(CallFacts(number, call_id, name, ev.seq, t))
        self.calls.append((body.turn, body.step, len(args), args if self.content else None))

    def _result(self, ev: Event, t: int) -> None:
        if self.generation is None:
            self.generation = "2026-08"
        fold = self.fold
        SessionFold._result(fold, ev, t)
        self._settled()

    def _todo(self, ev: Event, t: int) -> None:
        fold = self.fold
        SessionFold._plan(fold, ev, t)
        self._planned(ev)

    def _chunk(self, ev: Chunk, t: int) -> None:
        if _may_count(ev):
            self.fold.chunk_at((ev.body.turn, ev.body.step), _chunk_value(ev))

    def _called(self, ev: Event) -> None:
        if len(self.fold.calls) > len(self.calls):
            call = tool_call(ev)
            self.calls.append((call.turn, call.step, len(call.args_raw), call.args_raw if self.content else None)
                              if call is not None else (None, None, 0, None))

    def _settled(self) -> None:
        settled = self.fold.settled
        if settled is not None:
            number, result = settled
            text = result.text
            failed = result.is_error
            error = (text or result.output) if failed else None
            self.results[number] = (len(text), error, text if self.content else None)

    def _planned(self, ev: Event) -> None:
        fold = self.fold
        change = fold.changes[-1] if fold.changes else None
        if change is not None and change.seq == ev.seq:
            self.plans.append((ev.seq, self.turn, change.todos))

    # -- any other event: the session fold's own reading ---------------------------------

    def _event(self, ev: Event) -> None:
        fold = self.fold
        kind = ev.type
        fold.event(ev)
        if self.generation is None:
            self.generation = generation_of(ev)
        if kind == "tool/call":
            self._called(ev)
        elif kind == "tool/result":
            self._settled()
        elif kind == "turn/start":
            turns = fold.turns
            self.turn = turns[-1].turn if turns else None
        elif kind == "todo/write":
            self._planned(ev)
        if self.events is not None:
            data = ev.data
            turn, step = (data.get("turn"), data.get("step")) if isinstance(data, dict) else (None, None)
            self.events.append((ev.seq, kind, _int(turn), _int(step), ev.time, ev.line))

    # -- the end ----------------------------------------------------------------------

    def _rows(self) -> dict[str, list[tuple[Any, ...]]]:
        """Each table's rows, a value per column in the order of ``TABLES``."""
        fold = self.fold
        path, sid = self.path, self.session_id
        tables: dict[str, list[tuple[Any, ...]]] = {}

        def table(name: str, rows: list[tuple[Any, ...]]) -> None:
            if rows:
                tables[name] = rows

        table("turns", [(path, sid, _int(t.turn), t.start, t.end, t.duration, t.reason, t.steps) for t in fold.turns])
        steps = []
        for s in fold.steps.values():
            u = s.usage
            steps.append((path, sid, _int(s.turn), _int(s.step), s.start, s.end, s.latency, s.shown_model,
                          u.input, u.output, u.cache_read, u.cache_write, u.reasoning, s.finish, s.attempts,
                          s.failed_attempts))
        table("steps", steps)
        calls = []
        for c in fold.calls:
            turn, step, args, _ = self.calls[c.number] if c.number < len(self.calls) else (None, None, 0, None)
            size, error, _ = self.results.get(c.number, (None, None, None))
            calls.append((path, sid, c.number, c.seq, c.call_id, c.name, _int(turn), _int(step), c.outcome, c.start,
                          c.end, c.duration, args, size, error))
        table("tool_calls", calls)
        plans = []
        for seq, turn, todos in self.plans:
            items = [_item(t) for t in todos] if isinstance(todos, list) else []
            done = sum(1 for t in todos if isinstance(t, dict) and t.get("status") == "completed") \
                if isinstance(todos, list) else 0
            plans.append((path, sid, seq, _int(turn), items, done, len(items)))
        table("plans", plans)
        if self.events is not None:
            table("events", [(path, sid, *e) for e in self.events])
        return tables

    def done(self, report: LogReport) -> LogFacts | LogTrace:
        watch = self.watch
        if watch.traces:
            return self._trace(report)
        rows = self._rows()
        if sum(len(table) for table in rows.values()) < watch.part_rows:
            return LogFacts(self._session(), (), rows)
        parts = []
        digest = hashlib.sha256(self.path.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        for name, table in rows.items():
            part = f"{digest}-{os.getpid()}-{secrets.token_hex(4)}.parquet"
            watch.sink.write(watch.staging, name, part,
                             data=[parquet_bytes(name, columns_of(name, table), watch.row_group)])
            parts.append(Part(name, part, len(table)))
        return LogFacts(self._session(), tuple(parts), {})

    def _session(self) -> dict[str, Any]:
        fold, header = self.fold, self.header
        usage = fold.usage()
        outcomes = fold.outcomes()
        plan = fold.plan_progress()
        return {
            "session_id": self.session_id, "parent_session": _text(header.get("parentSession")),
            "title": fold.shown_title(), "cwd": _text(header.get("cwd")), "created": _int(header.get("createdAt")),
            "first_time": fold.first, "last_time": fold.last, "duration_ms": fold.duration,
            "generation": self.generation, "models": fold.models(), "turns": len(fold.turns),
            "steps": len(fold.steps), "tool_calls": len(fold.calls), "tool_calls_failed": outcomes["failed"],
            "tool_calls_interrupted": outcomes["interrupted"], "tool_calls_pending": outcomes["pending"],
            "input_tokens": usage.input, "output_tokens": usage.output, "cache_read_tokens": usage.cache_read,
            "cache_write_tokens": usage.cache_write, "reasoning_tokens": usage.reasoning,
            "plan_done": plan[0] if plan else None, "plan_total": plan[1] if plan else None,
        }


    def _trace(self, report: LogReport) -> LogTrace:
        """The log's spans: its session, its steps, its tool calls (see ``replay.export.otlp``)."""
        fold, path = self.fold, self.path
        session = Span(span_id(path, "session"), None, "invoke_agent", INTERNAL, fold.first, fold.last, {
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": SERVICE,
            "gen_ai.conversation.id": self.session_id, "replay.log.path": path, "replay.audit.status": report.status,
            "replay.audit.findings": len(report.findings),
            "gen_ai.input.messages": fold.prompt if self.content else None})
        steps: dict[tuple[Any, Any], Span] = {}
        for n, s in enumerate(fold.steps.values()):
            u = s.usage
            model = s.shown_model
            span = Span(span_id(path, "step", n), session.span_id, f"chat {model}" if model else "chat", CLIENT,
                        s.start, s.end, {
                            "gen_ai.operation.name": "chat", "gen_ai.request.model": model,
                            "gen_ai.usage.input_tokens": u.input + u.cache_read + u.cache_write,
                            "gen_ai.usage.cache_read.input_tokens": u.cache_read,
                            "gen_ai.usage.cache_creation.input_tokens": u.cache_write,
                            "gen_ai.usage.output_tokens": u.output + u.reasoning,
                            "gen_ai.usage.reasoning.output_tokens": u.reasoning,
                            "gen_ai.response.finish_reasons": [s.finish] if s.finish else None,
                            "replay.turn": _int(s.turn), "replay.step": _int(s.step)})
            steps[(s.turn, s.step)] = span
            session.children.append(span)
        delegations = []
        for c in fold.calls:
            turn, step, _, args = self.calls[c.number] if c.number < len(self.calls) else (None, None, 0, None)
            _, error, text = self.results.get(c.number, (None, None, None))
            parent = steps.get((_int(turn), _int(step))) or session
            span = Span(span_id(path, "call", c.number), parent.span_id, f"execute_tool {c.name}", INTERNAL,
                        c.start, c.end, {
                            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": c.name,
                            "gen_ai.tool.call.id": c.call_id, "replay.tool.status": c.outcome,
                            "gen_ai.tool.call.arguments": args, "gen_ai.tool.call.result": text},
                        error=(error or c.outcome) if c.outcome in ("failed", "interrupted") else None)
            parent.children.append(span)
            if c.name in SUBAGENT_TOOLS:
                delegations.append((c.number, span.span_id, c.result_head))
        return LogTrace(session, self.session_id, _text(self.header.get("parentSession")), delegations)


_PLAIN = {str(cls.__struct_config__.tag): cls for cls in PLAIN}
_FAST: dict[type[Event], Callable[[LogRows, Any, int], None]] = {
    StepStart: LogRows._step_start, StepEnd: LogRows._step_end, TurnStart: LogRows._turn_start,
    TurnEnd: LogRows._turn_end, RequestHeader: LogRows._header, UserMessageEvent: LogRows._user,
    AssistantMessageEvent: LogRows._assistant, ToolCall: LogRows._call, ToolResult: LogRows._result,
    Chunk: LogRows._chunk, _PLAIN["request/context"]: LogRows._context, _PLAIN["session/title"]: LogRows._title,
    _PLAIN["todo/write"]: LogRows._todo, _PLAIN["agent/inbox/spliced"]: LogRows._inbox,
}
"""What a typed event tells the rows, by its class (``LogRows.batch``): what the session
fold's handler of its type does, read from its fields where they hold what it reads, and
the rows' own bookkeeping; a typed event of another class tells its time only (the
session fold has no handler for its type, and its type tells no generation)."""
_TIMED = frozenset((*TYPED, *PLAIN))
_TIME_OF = attrgetter("time")
_STEPPED = frozenset({Chunk, StepStart, StepEnd, ToolCall, AssistantMessageEvent, ToolResult})
"""The typed events whose body holds their data's ``turn`` and ``step``."""


def _event_row(ev: Any) -> tuple[Any, ...]:
    """A typed event's row of the ``events`` table (its path and session id aside)."""
    kind = type(ev)
    if kind in _STEPPED:
        body = ev.body
        turn, step = body.turn, body.step
    elif kind is TurnStart or kind is TurnEnd:  # their data holds the turn and nothing else of these
        turn, step = ev.body.turn, None
    else:
        data = ev.data
        turn, step = (_int(data.get("turn")), _int(data.get("step"))) if isinstance(data, dict) else (None, None)
    return ev.seq, ev.type, turn, step, ev.time, ev.line


def _item(todo: Any) -> dict[str, str | None]:
    if not isinstance(todo, dict):
        return {"content": None, "status": None, "active_form": None}
    return {"content": _text(todo.get("content")), "status": _text(todo.get("status")),
            "active_form": _text(todo.get("activeForm"))}
