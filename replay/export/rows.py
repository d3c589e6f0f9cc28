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
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

import msgspec

from replay.check.engine import LogReport, Reading, Watch
from replay.export.arrow import parquet_bytes
from replay.export.otlp import CLIENT, INTERNAL, SERVICE, LogTrace, Span, span_id
from replay.export.schema import TABLES
from replay.export.sink import Sink
from replay.findings import Finding
from replay.jsjson import MAX_SAFE_INTEGER
from replay.log.event import ChunkRun, ChunkSpan, DictEvent, Event
from replay.log.reader import LogRead
from replay.log.typed import (
    AssistantMessageEvent,
    Chunk,
    RequestHeader,
    StepEnd,
    StepStart,
    ToolCall,
    TurnEnd,
    TurnStart,
)
from replay.project.session import SUBAGENT_TOOLS, SessionFold
from replay.project.tools import tool_call
from replay.render.generation import generation_of

PART_TABLES = ("turns", "steps", "tool_calls", "plans", "events")
"""The tables written by the process that reads a log (``sessions`` and ``findings``:
by the caller, from the reports)."""
_ACCOUNTED = frozenset({"usage", "finish"})


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
    tables: dict[str, Any]
    """…or a small log's, a list of values per column (they travel back, and are made
    Arrow in batches: a part per log would be a file per log and table, most of the
    export's time)."""


def _may_count(ev: Event) -> bool:
    """Whether a chunk may be a ``usage`` or ``finish`` one (the only ones that count):
    a typed chunk whose bytes name neither, and escape nothing, is neither, and its
    data need not be decoded (most of an export's time, else)."""
    raw = getattr(ev, "raw", None)
    return not raw or b'"usage"' in raw or b'"finish"' in raw or b"\\u" in raw


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
    return not isinstance(usage, dict) or all(type(v) is not int or -MAX_SAFE_INTEGER <= v <= MAX_SAFE_INTEGER
                                              for v in usage.values())


def _lean(decode: Any, ev: Any) -> Any:
    raw = ev.raw
    if not raw:
        return None
    try:
        return decode(raw).data
    except (msgspec.DecodeError, RecursionError):
        return None


def _step_data(ev: Any) -> dict[str, Any] | None:
    return {"turn": ev.body.turn, "step": ev.body.step}


def _turn_data(ev: Any) -> dict[str, Any] | None:
    return {"turn": ev.body.turn}


def _turn_end_data(ev: Any) -> dict[str, Any] | None:
    return {"turn": ev.body.turn, "reason": {"kind": ev.body.reason.kind}}


def _header_data(ev: Any) -> dict[str, Any] | None:
    return {"header": {"config": {"model": ev.body.header.config.model}}}


def _assistant_data(ev: Any) -> dict[str, Any] | None:
    found = _lean(_usage_of, ev)
    if found is None or not _same(found.usage):
        return None
    body = ev.body
    return {"turn": body.turn, "step": body.step, "message": {"source": {"model": body.message.source.model}},
            "usage": found.usage}


def _call_data(ev: Any) -> dict[str, Any] | None:
    found = _lean(_call_of, ev)
    if found is None or not (found.arguments is None or type(found.arguments) is str):
        return None
    body = ev.body
    return {"turn": body.turn, "step": body.step, "callId": body.call_id, "name": found.name,
            "arguments": found.arguments}


def _chunk_data(ev: Any) -> dict[str, Any]:
    """A typed chunk's data as the fold reads it (``turn``, ``step``, ``chunk``)."""
    found = _lean(_chunk_of, ev)
    chunk = found.chunk if found is not None else None
    if found is None or (type(chunk) is dict and not _same(chunk.get("usage"))):
        data: dict[str, Any] = ev.data
        return data
    return {"turn": ev.body.turn, "step": ev.body.step, "chunk": chunk}


_BODIES = {StepStart: _step_data, StepEnd: _step_data, TurnStart: _turn_data, TurnEnd: _turn_end_data,
           RequestHeader: _header_data, AssistantMessageEvent: _assistant_data, ToolCall: _call_data,
           Chunk: _chunk_data}
"""The typed events whose body (``replay.log.typed``), with the fields ``_lean``
decodes, holds every field of ``data`` the session fold reads of their type, and
those fields: the fold reads them so, not from a second decoding of the record
(``None``: from the record)."""


def _folded(ev: Event) -> Event:
    """What the session fold is given of ``ev``: a typed event of ``_BODIES`` as the
    data its body holds, any other as it is."""
    made = _BODIES.get(type(ev))
    data = made(ev) if made is not None else None
    if data is None:
        return ev
    return DictEvent(ev.type, ev.seq, ev.time, data, ev.line,
                     {"type": ev.type, "seq": ev.seq, "time": ev.time, "data": data})


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
        fold = self.fold
        events = self.events
        for item in items:
            kind = type(item)
            if kind is Finding:
                continue
            if kind is ChunkSpan:
                chunks = item.chunks
                times = [ev.time for ev in chunks]
                fold.span(min(times), max(times))
                for ev in chunks:  # _may_count, inline: most of the chunks
                    raw = getattr(ev, "raw", None)
                    if raw and b'"usage"' not in raw and b'"finish"' not in raw and b"\\u" not in raw:
                        continue
                    data = _chunk_data(ev) if raw else ev.data
                    chunk = data.get("chunk")
                    if type(chunk) is dict and chunk.get("type") in _ACCOUNTED:
                        fold.chunk(data, chunk)
                if events is not None:
                    events.extend((ev.seq, ev.type, item.turn, item.step, ev.time, ev.line) for ev in chunks)
            elif kind is ChunkRun:
                times = list(accumulate(item.dt, initial=item.time0))
                low, high = min(times), max(times)
                if type(low) is int and type(high) is int:
                    fold.span(low, high)
                if events is not None:
                    turn, step, line = _int(item.turn), _int(item.step), item.line
                    events.extend((item.seq0 + i, "assistant/chunk", turn, step, t, line)
                                  for i, t in enumerate(times[:len(item.members)]))
            else:
                self._event(item)

    def _event(self, ev: Event) -> None:
        fold = self.fold
        kind = ev.type
        if kind == "assistant/chunk" and not _may_count(ev):  # its time only (see _may_count)
            t = ev.time
            if type(t) is int:
                fold.span(t, t)
            if self.events is not None:
                body = getattr(ev, "body", None)
                turn, step = (body.turn, body.step) if body is not None else (None, None)
                self.events.append((ev.seq, kind, turn, step, t, ev.line))
            return
        folded = _folded(ev)
        fold.event(folded)
        if self.generation is None:
            self.generation = generation_of(ev)
        if kind == "tool/call":
            if len(fold.calls) > len(self.calls):
                call = tool_call(folded)
                self.calls.append((call.turn, call.step, len(call.args_raw), call.args_raw if self.content else None)
                                  if call is not None else (None, None, 0, None))
        elif kind == "tool/result":
            settled = fold.settled
            if settled is not None:
                number, result = settled
                text = result.text
                failed = result.is_error
                error = (text or result.output) if failed else None
                self.results[number] = (len(text), error, text if self.content else None)
        elif kind == "turn/start":
            turns = fold.turns
            self.turn = turns[-1].turn if turns else None
        elif kind == "todo/write":
            change = fold.changes[-1] if fold.changes else None
            if change is not None and change.seq == ev.seq:
                self.plans.append((ev.seq, self.turn, change.todos))
        if self.events is not None:
            data = ev.data
            turn, step = (data.get("turn"), data.get("step")) if isinstance(data, dict) else (None, None)
            self.events.append((ev.seq, kind, _int(turn), _int(step), ev.time, ev.line))

    # -- the end ----------------------------------------------------------------------

    def _rows(self) -> dict[str, dict[str, list[Any]]]:
        fold = self.fold
        path, sid = self.path, self.session_id
        tables: dict[str, dict[str, list[Any]]] = {}

        def table(name: str, rows: list[tuple[Any, ...]]) -> None:
            if rows:
                columns = zip(*rows, strict=True)
                tables[name] = {c.name: list(values) for c, values in zip(TABLES[name], columns, strict=True)}

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
        if sum(len(columns["path"]) for columns in rows.values()) < watch.part_rows:
            return LogFacts(self._session(), (), rows)
        parts = []
        digest = hashlib.sha256(self.path.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        for name, columns in rows.items():
            part = f"{digest}-{os.getpid()}-{secrets.token_hex(4)}.parquet"
            watch.sink.write(watch.staging, name, part, data=[parquet_bytes(name, columns, watch.row_group)])
            parts.append(Part(name, part, len(columns["path"])))
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


def _item(todo: Any) -> dict[str, str | None]:
    if not isinstance(todo, dict):
        return {"content": None, "status": None, "active_form": None}
    return {"content": _text(todo.get("content")), "status": _text(todo.get("status")),
            "active_form": _text(todo.get("activeForm"))}
