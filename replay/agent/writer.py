"""Writing session logs in the harness's format (spec §1), deterministically.

``SessionLog`` collects one session's header and events in memory (a scenario's logs
are small); ``to_jsonl`` serializes them the way the harness does: compact JSON, keys
in insertion order, non-ASCII kept, consecutive chunk deltas packed into rows by the
canonical rule of spec §1.4. Times and ids come from a ``Clock`` and an ``Ids`` that a
caller seeds, so the same run gives the same bytes on any machine.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from replay import jsjson
from replay.log.event import CHUNK_KINDS

_NAMESPACE = uuid.UUID("8f7c4b1e-2a0d-4f5e-9c3b-6d1a7e2f9b04")


@dataclass
class Clock:
    """Epoch milliseconds that advance by ``step`` on every reading."""

    now: int = 1_790_000_000_000
    step: int = 1

    def tick(self) -> int:
        value = self.now
        self.now += self.step
        return value

    def advance(self, ms: int) -> None:
        """Let ``ms`` milliseconds pass (a recorded tool call's duration)."""
        self.now += max(0, ms)


@dataclass
class Ids:
    """Deterministic UUIDs: the same ``seed`` and order give the same ids."""

    seed: str
    count: int = 0

    def next(self) -> str:
        self.count += 1
        return str(uuid.uuid5(_NAMESPACE, f"{self.seed}:{self.count}"))


@dataclass
class SessionLog:
    """One session being written: the header record and the event records."""

    header: dict[str, Any]
    clock: Clock
    events: list[dict[str, Any]] = field(default_factory=list)
    keep: bool = True
    """Whether the events are kept (``False``: a test run, which only counts them)."""
    count: int = 0
    """How many events were appended."""

    @classmethod
    def new(cls, session_id: str, clock: Clock, cwd: str | None = None, parent: str | None = None,
            depth: int = 0, keep: bool = True) -> SessionLog:
        header: dict[str, Any] = {"type": "session", "version": 0, "id": session_id, "createdAt": clock.tick()}
        if cwd is not None:
            header["cwd"] = cwd
        if parent is not None:
            header["parentSession"] = parent
            header["origin"] = "subagent"
        header["delegationDepth"] = depth
        return cls(header, clock, keep=keep)

    @property
    def id(self) -> str:
        return str(self.header["id"])

    def append(self, type: str, data: Any, *, surface: bool = False, sources: list[int] | None = None,
               surface_op: Any = None, ignorable: bool = False) -> dict[str, Any]:
        """Append one event; surface events get ``surfaceOp: "append"`` (or the
        ``surface_op`` given: a replacement replayed from a recording)."""
        record: dict[str, Any] = {"type": type, "seq": self.count, "time": self.clock.tick(), "data": data}
        self.count += 1
        if sources is not None:
            record["sourceEventSeqs"] = sources
        if surface_op is not None or surface:
            record["surfaceOp"] = surface_op if surface_op is not None else "append"
        if ignorable:
            record["ignorable"] = True
        if self.keep:
            self.events.append(record)
        return record

    def to_jsonl(self, packed: bool = True) -> bytes:
        records = pack_chunks(self.events) if packed else iter(self.events)
        return b"".join(jsjson.dumps(r).encode() + b"\n" for r in [self.header, *records])


_DELTA_ROW = {delta: tag for tag, delta in CHUNK_KINDS.items()}


def _delta_key(record: dict[str, Any]) -> tuple[Any, ...] | None:
    """What a run of packable deltas must share, or ``None`` if the event is not packable."""
    if record.keys() != {"type", "seq", "time", "data"} or record["type"] != "assistant/chunk":
        return None
    data = record["data"]
    if not isinstance(data, dict) or data.keys() != {"turn", "step", "chunk"}:
        return None
    chunk = data["chunk"]
    kind = chunk.get("type") if isinstance(chunk, dict) else None
    if kind in ("text-delta", "reasoning-delta") and chunk.keys() == {"type", "index", "text"}:
        return (kind, data["turn"], data["step"], chunk["index"])
    if kind == "tool-call-delta" and chunk.keys() in ({"type", "index", "id", "argumentsDelta"},
                                                      {"type", "index", "id", "name", "argumentsDelta"}):
        return (kind, data["turn"], data["step"], chunk["index"], chunk["id"], "name" in chunk, chunk.get("name"))
    return None


def pack_chunks(events: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Runs of ≥ 3 consecutive packable deltas become one row; everything else as is."""
    i = 0
    n = len(events)
    while i < n:
        key = _delta_key(events[i])
        j = i + 1
        if key is not None:
            while j < n and _delta_key(events[j]) == key and events[j]["seq"] == events[j - 1]["seq"] + 1:
                j += 1
        if key is None or j - i < 3:
            yield from events[i:j] if key is not None else [events[i]]
            i = j if key is not None else i + 1
            continue
        run = events[i:j]
        first = run[0]
        chunk = first["data"]["chunk"]
        data: dict[str, Any] = {"turn": first["data"]["turn"], "step": first["data"]["step"], "index": chunk["index"],
                                "dt": [b["time"] - a["time"] for a, b in pairwise(run)]}
        if chunk["type"] == "tool-call-delta":
            data["id"] = chunk["id"]
            if "name" in chunk:
                data["name"] = chunk["name"]
            data["args"] = [e["data"]["chunk"]["argumentsDelta"] for e in run]
        else:
            data["texts"] = [e["data"]["chunk"]["text"] for e in run]
        # Row key order is the harness's: dt before texts; for tool calls dt, id, name, args.
        if chunk["type"] == "tool-call-delta":
            data = {k: data[k] for k in ("turn", "step", "index", "dt", "id", "name", "args") if k in data}
        yield {"type": _DELTA_ROW[chunk["type"]], "seq0": first["seq"], "time0": first["time"], "data": data}
        i = j
