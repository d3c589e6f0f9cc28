"""The normalized event view every later stage reads.

``Event`` is one logical event of the log, whatever generation of the format wrote
it: legacy shapes are migrated before an ``Event`` is handed on (see ``legacy.py``).
``ChunkRun`` is a packed chunk row (``text-chunks``, ``reasoning-chunks``,
``tool-call-chunks``) kept packed: checkers look at it once, renderers expand it
with ``events()`` into ordinary ``assistant/chunk`` events.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

SURFACE_TYPES = frozenset({"user/message", "assistant/message", "tool/result"})
"""The three surface-eligible event types (spec §3)."""

ENVELOPE_KEYS = frozenset({"type", "seq", "time", "data", "surfaceOp", "sourceEventSeqs", "ignorable"})


class Event:
    """One logical event.

    ``record`` is the envelope as it was read (key order kept, for byte-exact
    re-serialization); ``data`` is the normalized payload, the same object as
    ``record["data"]`` unless a legacy migration rewrote it. ``line`` is the 1-based
    line of the file the event came from (the header is line 1).
    """

    __slots__ = ("data", "line", "record", "seq", "time", "type")

    def __init__(
        self, type: str, seq: int, time: Any, data: Any, line: int, record: dict[str, Any]
    ) -> None:
        self.type = type
        self.seq = seq
        self.time = time
        self.data = data
        self.line = line
        self.record = record

    @property
    def surface_op(self) -> Any:
        return self.record.get("surfaceOp")

    def __repr__(self) -> str:
        return f"Event({self.type!r}, seq={self.seq}, line={self.line})"


CHUNK_KINDS = {
    "text-chunks": "text-delta",
    "reasoning-chunks": "reasoning-delta",
    "tool-call-chunks": "tool-call-delta",
}
"""The delta kind each packed row tag stands for."""
PACKED_TAGS = frozenset(CHUNK_KINDS)


class ChunkRun:
    """A validated packed chunk row: ``len(members)`` consecutive ``assistant/chunk``
    deltas of one block, stored as one line."""

    __slots__ = ("call_id", "dt", "index", "line", "members", "name", "seq0", "step", "tag", "time0", "turn")

    def __init__(
        self,
        tag: str,
        seq0: int,
        time0: int,
        turn: Any,
        step: Any,
        index: Any,
        dt: list[int],
        members: list[str],
        line: int,
        call_id: str | None = None,
        name: str | None = None,
    ) -> None:
        self.tag = tag
        self.seq0 = seq0
        self.time0 = time0
        self.turn = turn
        self.step = step
        self.index = index
        self.dt = dt
        self.members = members
        self.line = line
        self.call_id = call_id
        self.name = name

    @property
    def count(self) -> int:
        return len(self.members)

    @property
    def last_seq(self) -> int:
        return self.seq0 + len(self.members) - 1

    def events(self) -> Iterator[Event]:
        """Expand into ``assistant/chunk`` events with their own seq and time (spec §1.4)."""
        kind = CHUNK_KINDS[self.tag]
        time = self.time0
        for k, member in enumerate(self.members):
            if k:
                time += self.dt[k - 1]
            chunk: dict[str, Any] = {"type": kind, "index": self.index}
            if kind == "tool-call-delta":
                chunk["id"] = self.call_id
                if self.name is not None:
                    chunk["name"] = self.name
                chunk["argumentsDelta"] = member
            else:
                chunk["text"] = member
            data = {"turn": self.turn, "step": self.step, "chunk": chunk}
            seq = self.seq0 + k
            record = {"type": "assistant/chunk", "seq": seq, "time": time, "data": data}
            yield Event("assistant/chunk", seq, time, data, self.line, record)

    def __repr__(self) -> str:
        return f"ChunkRun({self.tag!r}, seq0={self.seq0}, n={len(self.members)}, line={self.line})"


class ChunkSpan:
    """Plain ``assistant/chunk`` events of one turn and step, as an audit reads them:
    records holding exactly ``type``, ``seq``, ``time`` (a safe integer) and ``data``
    (an object whose ``turn`` and ``step`` are integers), on consecutive lines with
    consecutive seqs, nothing between them. A checker that has only to see that they
    belong to the open step judges the span once; ``events()`` gives the events
    themselves, exactly as the scanner would have made them one by one."""

    __slots__ = ("line", "records", "seq0", "step", "turn")

    def __init__(self, line: int, seq0: int, turn: int, step: int, record: dict[str, Any]) -> None:
        self.line = line
        self.seq0 = seq0
        self.turn = turn
        self.step = step
        self.records = [record]

    @property
    def count(self) -> int:
        return len(self.records)

    @property
    def last_line(self) -> int:
        return self.line + len(self.records) - 1

    def events(self) -> Iterator[Event]:
        line, seq = self.line, self.seq0
        for k, record in enumerate(self.records):
            yield Event("assistant/chunk", seq + k, record["time"], record["data"], line + k, record)

    def __repr__(self) -> str:
        return f"ChunkSpan(seq0={self.seq0}, n={len(self.records)}, line={self.line})"
