"""What a log holds, computed from its lines alone (independently of replay): the
numbers a session page and its index row must show."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

PACKED = {"text-chunks": "texts", "reasoning-chunks": "texts", "tool-call-chunks": "args"}
KINDS = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens")


def log_numbers(path: Path) -> tuple[str, str, str]:
    """Duration, tool calls and tokens, from the log's lines alone: the earliest to the
    latest event time (a packed row's members at time0 + their dt), each tool/call
    event, and per step (turn, step) its usage chunks' tokens, else its assistant
    message's. A record that is not an event (unreadable, not an object, a seq that is
    not a whole number) counts for nothing."""
    times: list[int] = []
    calls = 0
    chunk_usage: dict[Any, list[int]] = {}
    message_usage: dict[Any, list[int]] = {}
    for raw in path.read_bytes().split(b"\n")[1:]:
        if not raw.strip():
            continue
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(record, dict):
            continue
        kind, data = record.get("type"), record.get("data")
        if kind in PACKED:
            if type(record.get("time0")) is int and isinstance(data, dict) and isinstance(data.get("dt"), list):
                time = record["time0"]
                times.append(time)
                for dt in data["dt"]:
                    time += dt
                    times.append(time)
            continue
        seq = record.get("seq")
        if not (type(seq) is int or (type(seq) is float and seq.is_integer())):
            continue
        if type(record.get("time")) is int:
            times.append(record["time"])
        if not isinstance(data, dict):
            continue
        step = tuple(v if type(v) is int else None for v in (data.get("turn"), data.get("step")))
        calls += kind == "tool/call"
        usage, into = None, None
        chunk = data.get("chunk")
        if kind == "assistant/chunk" and isinstance(chunk, dict) and chunk.get("type") == "usage":
            usage, into = chunk.get("usage"), chunk_usage
        elif kind == "assistant/message":
            usage, into = data.get("usage"), message_usage
        if isinstance(usage, dict) and into is not None:
            counts = into.setdefault(step, [0] * len(KINDS))
            for i, name in enumerate(KINDS):
                value = usage.get(name)
                counts[i] += value if type(value) is int and value > 0 else 0
    tokens = [0] * len(KINDS)
    for step in set(chunk_usage) | set(message_usage):
        for i, value in enumerate(chunk_usage.get(step) or message_usage[step]):
            tokens[i] += value
    duration = str(max(times) - min(times)) if times else ""
    return duration, str(calls), " ".join(map(str, tokens))


def _events(path: Path) -> Iterator[tuple[Any, dict[str, Any], Any]]:
    """Each record after the header that is an object with an object ``data``: its type,
    data and time (the rest count for nothing)."""
    for raw in path.read_bytes().split(b"\n")[1:]:
        try:
            record = orjson.loads(raw) if raw.strip() else None
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict) and isinstance(record.get("data"), dict):
            yield record.get("type"), record["data"], record.get("time")


def step_numbers(path: Path) -> list[tuple[int | None, int, int]]:
    """Each step that ends, in the order of its ``step/end``: its duration (the
    ``step/end``'s time less its ``step/start``'s), and its input and output tokens
    (its usage chunks', else its assistant message's), from the log's lines alone."""
    starts: dict[Any, int] = {}
    ended: list[tuple[Any, int | None]] = []
    chunk_usage: dict[Any, list[int]] = {}
    message_usage: dict[Any, list[int]] = {}
    for kind, data, time in _events(path):
        step = tuple(v if type(v) is int else None for v in (data.get("turn"), data.get("step")))
        if kind == "step/start" and type(time) is int:
            starts[step] = time
        elif kind == "step/end":
            ended.append((step, time - starts[step] if type(time) is int and step in starts else None))
        usage, into = None, None
        chunk = data.get("chunk")
        if kind == "assistant/chunk" and isinstance(chunk, dict) and chunk.get("type") == "usage":
            usage, into = chunk.get("usage"), chunk_usage
        elif kind == "assistant/message":
            usage, into = data.get("usage"), message_usage
        if isinstance(usage, dict) and into is not None:
            counts = into.setdefault(step, [0, 0])
            for i, name in enumerate(("inputTokens", "outputTokens")):
                value = usage.get(name)
                counts[i] += value if type(value) is int and value > 0 else 0
    out = []
    for step, ms in ended:
        tokens = chunk_usage.get(step) or message_usage.get(step) or [0, 0]
        out.append((ms, tokens[0], tokens[1]))
    return out


def call_durations(path: Path) -> list[int]:
    """Each tool call's time to its result (by call id), from the log's lines alone."""
    called: dict[str, int] = {}
    durations: list[int] = []
    for kind, data, time in _events(path):
        if kind == "tool/call" and isinstance(data.get("callId"), str) and type(time) is int:
            called[data["callId"]] = time
        elif kind == "tool/result" and type(time) is int:
            source = (data.get("message") or {}).get("source") or {}  # today's shape, or the older flat one
            call_id = data.get("callId") or (source.get("callId") if isinstance(source, dict) else None)
            if call_id in called:
                durations.append(time - called.pop(call_id))
    return durations
