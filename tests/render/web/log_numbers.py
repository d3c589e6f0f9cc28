"""What a log holds, computed from its lines alone (independently of replay): the
numbers a session page and its index row must show."""

from __future__ import annotations

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
