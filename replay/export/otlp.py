"""``replay export --format otlp``: the sessions as OTLP/JSON traces, spans per the
OpenTelemetry GenAI semantic conventions, times from the log:

- a session is an ``invoke_agent`` span (``gen_ai.conversation.id``: its session id);
- a step is a ``chat {model}`` span, child of its session, with its usage:
  ``gen_ai.usage.input_tokens`` all its input (uncached, cache read and cache write:
  the conventions count cached input in it), ``gen_ai.usage.cache_read.input_tokens``,
  ``gen_ai.usage.cache_creation.input_tokens``, ``gen_ai.usage.output_tokens`` all its
  output (the harness counts reasoning apart: added here) and
  ``gen_ai.usage.reasoning.output_tokens``;
- a tool call is an ``execute_tool {name}`` span, child of its step
  (``gen_ai.tool.name``, ``gen_ai.tool.call.id``; a failed call has an error status);
- a child session (a subagent's log) is a child span of the ``subagent`` call that
  started it, in its parent's trace.

A span whose log gives no time, or a time outside its parent's, is placed inside its
parent (an OTLP tree's children lie within their parents). Content (the first prompt,
the calls' arguments and results) is an attribute only when asked for
(``with_content``). Ids are hex, as OTLP/JSON wants them; they are hashes of the log's
path, so the same logs give the same traces."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from replay import __version__

SERVICE = "deepseek-harness"
SCOPE = "replay"
INTERNAL, CLIENT = 1, 3
"""``Span.SpanKind``."""
STATUS_ERROR = 2
MS = 1_000_000
"""Nanoseconds in a millisecond."""
LATEST = ((1 << 64) - 1) // MS
"""The latest time in milliseconds an OTLP timestamp (unsigned nanoseconds) holds."""


def in_range(value: int | None) -> int | None:
    return value if value is not None and 0 <= value <= LATEST else None


def span_id(path: str, kind: str, number: int = 0) -> str:
    return hashlib.sha256(f"span\0{path}\0{kind}\0{number}".encode("utf-8", "surrogatepass")).hexdigest()[:16]


def trace_id(path: str) -> str:
    return hashlib.sha256(f"trace\0{path}".encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _value(value: Any) -> dict[str, Any]:
    if type(value) is bool:
        return {"boolValue": value}
    if type(value) is int:
        return {"intValue": str(value)}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_value(v) for v in value]}}
    return {"stringValue": str(value)}


def attributes(values: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": _value(v)} for k, v in values.items() if v is not None]


@dataclass(slots=True)
class Span:
    """A span before its trace is known: its times in milliseconds (``None``: the log
    gives none)."""

    span_id: str
    parent: str | None
    name: str
    kind: int
    start: int | None
    end: int | None
    attributes: dict[str, Any]
    error: str | None = None
    children: list[Span] = field(default_factory=list)

    def place(self, low: int, high: int) -> None:
        """Put the span and its children inside ``low``–``high``."""
        self.start, self.end = in_range(self.start), in_range(self.end)
        start = self.start if self.start is not None and low <= self.start <= high else low
        end = self.end
        if end is None or end > high:
            end = high
        elif end < start:
            end = start
        self.start, self.end = start, end
        for child in self.children:
            child.place(start, end)

    def otlp(self, trace: str) -> dict[str, Any]:
        doc: dict[str, Any] = {"traceId": trace, "spanId": self.span_id, "name": self.name, "kind": self.kind,
                               "startTimeUnixNano": str((self.start or 0) * MS),
                               "endTimeUnixNano": str((self.end or 0) * MS),
                               "attributes": attributes(self.attributes)}
        if self.parent is not None:
            doc["parentSpanId"] = self.parent
        if self.error is not None:
            doc["status"] = {"code": STATUS_ERROR, "message": self.error}
        return doc

    def walk(self) -> list[Span]:
        found, todo = [], [self]
        while todo:
            span = todo.pop()
            found.append(span)
            todo.extend(reversed(span.children))
        return found


@dataclass(slots=True)
class LogTrace:
    """One log's spans (its session span the root), and what links it to its parent."""

    root: Span
    session_id: str | None
    parent_session: str | None
    delegations: list[tuple[int, str, str]]
    """Each ``subagent`` call's number, span id and result head (names the child it started)."""


def request(trace: str, roots: list[Span]) -> dict[str, Any]:
    """An ``ExportTraceServiceRequest`` of the spans under ``roots``."""
    spans = [s.otlp(trace) for root in roots for s in root.walk()]
    return {"resourceSpans": [{
        "resource": {"attributes": attributes({"service.name": SERVICE})},
        "scopeSpans": [{"scope": {"name": SCOPE, "version": __version__}, "spans": spans}],
    }]}
