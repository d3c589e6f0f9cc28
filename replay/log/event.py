"""The one event model every later stage reads.

``Event`` is one logical event of the log, whatever generation of the format wrote
it: legacy shapes are migrated before an event is handed on (see ``legacy.py``).
Every event has ``type``, ``seq``, ``time``, ``line`` (the 1-based line of the file it
came from; the header is line 1), ``data`` (the normalized payload) and ``record`` (the
envelope as it was read, key order kept, for byte-exact re-serialization). An event
comes in one of two kinds, both ``Event``:

* a **typed event** (``replay.log.typed``): a record that fits its type's shape,
  decoded straight from its bytes into a struct whose fields the rules read (a
  ``body`` per event type); its ``record`` and ``data`` are decoded from those bytes
  only when a stage asks for them, exactly as the exact path decodes them;
* a ``DictEvent``: what the exact path makes of any other record (an unknown type, a
  field of the wrong type, a legacy shape), and what code builds (expanded packed
  rows, repair's closers): ``record`` and ``data`` are the parsed JSON itself.

``ChunkRun`` is a packed chunk row (``text-chunks``, ``reasoning-chunks``,
``tool-call-chunks``) kept packed: checkers look at it once, renderers expand it
with ``events()`` into ordinary ``assistant/chunk`` events.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import msgspec

SURFACE_TYPES = frozenset({"user/message", "assistant/message", "tool/result"})
"""The three surface-eligible event types (spec §3)."""

ENVELOPE_KEYS = frozenset({"type", "seq", "time", "data", "surfaceOp", "sourceEventSeqs", "ignorable"})

KNOWN_TYPES = frozenset({
    "turn/start", "turn/end", "step/start", "step/end",
    "user/message", "assistant/chunk", "assistant/message", "tool/call", "tool/result",
    "request/header", "request/context", "session/end-seed", "todo/write", "agent/inbox/spliced",
    "session/title", "session/title-llm-request",
    "compaction/start", "compaction/summary", "compaction/prune", "compaction/end",
    "tool/code-dispatch-start", "tool/code-dispatch",
    "tool-workflow/run-start", "tool-workflow/agent-start", "tool-workflow/agent-end",
    "tool-workflow/run-end", "subagent/descriptor",
    "approval/asked", "approval/decided", "approval/policy", "sandbox/mode", "permission/preset",
    "plan/mode", "agent-preset/selected", "hook/invoked", "hook/result", "command/run",
    "command/done", "llm/retry", "llm/retry-started", "goal/change", "schedule/change",
    "team/member", "team/task", "team/message/queued", "team/message/delivered",
    "feedback/record", "web/deepseek-search-llm-request",
})
"""``KNOWN_SESSION_EVENT_TYPES`` of the harness (48 entries, spec §2.1)."""
REMOVED_TYPES = frozenset({"context/message"})
"""Types earlier harnesses wrote and today's removed (spec §2.6): not migrated, so a log
holding one is refused, although its ACP agent streamed nothing for them (a
conformance run of the streams that harness recorded can still match)."""


class Event(msgspec.Struct, gc=False, eq=False):
    """One logical event (see the module's docstring for its two kinds)."""

    if TYPE_CHECKING:  # each kind declares these as its own (fields, or a tag and properties)

        @property
        def type(self) -> str: ...

        @property
        def seq(self) -> int: ...

        @property
        def time(self) -> Any: ...

        @property
        def line(self) -> int: ...

        @property
        def data(self) -> Any: ...

        @property
        def record(self) -> dict[str, Any]: ...

    @property
    def surface_op(self) -> Any:
        return self.record.get("surfaceOp")

    def __repr__(self) -> str:
        return f"Event({self.type!r}, seq={self.seq}, line={self.line})"


class DictEvent(Event):
    """An event as the exact path reads it, or as code builds it: ``data`` is the
    normalized payload, the same object as ``record["data"]`` unless a legacy
    migration rewrote it."""

    type: str
    seq: int
    time: Any
    data: Any
    line: int
    record: dict[str, Any]


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
            yield DictEvent("assistant/chunk", seq, time, data, self.line, record)

    def __repr__(self) -> str:
        return f"ChunkRun({self.tag!r}, seq0={self.seq0}, n={len(self.members)}, line={self.line})"


class ChunkSpan:
    """Plain ``assistant/chunk`` events of one turn and step, as an audit reads them:
    typed chunks (exactly ``type``, ``seq``, ``time`` a safe integer and ``data`` whose
    ``turn`` and ``step`` are safe integers) on consecutive lines with consecutive
    seqs, nothing between them. A checker that has only to see that they belong to the
    open step judges the span once; ``events()`` gives the events themselves, exactly
    as the scanner would have handed them on one by one."""

    __slots__ = ("chunks", "line", "seq0", "step", "turn")

    def __init__(self, line: int, seq0: int, turn: int, step: int, first: Event) -> None:
        self.line = line
        self.seq0 = seq0
        self.turn = turn
        self.step = step
        self.chunks = [first]

    @property
    def count(self) -> int:
        return len(self.chunks)

    @property
    def last_line(self) -> int:
        return self.line + len(self.chunks) - 1

    def events(self) -> Iterator[Event]:
        return iter(self.chunks)

    def __repr__(self) -> str:
        return f"ChunkSpan(seq0={self.seq0}, n={len(self.chunks)}, line={self.line})"
