"""What the harness's crash repair would append to close an interrupted turn (spec §6.5).

``RepairTracker`` is fed the events of the preserved prefix in order; ``closers()``
then gives the synthetic records ``load()`` would append, ``closer_events()`` the same
as ``Event``s (what a renderer replays after the log), and ``describe()`` says it in
words for a finding. ``with_repair(events)`` is the whole log as a cold ``load()``
hands it on: the events, then the closers.

The two texts are the harness's own (``packages/core/session/src/repair.ts``); the
spec abridges the first, the harness's ACP output on an interrupted log
(``corpus/oracle-2026-07-23/event-crash-tail-*``) carries it in full.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, ClassVar

from replay.log.event import DictEvent, Event
from replay.log.values import hashable

STARTED_TEXT = (
    "The tool call was interrupted after it was recorded, but no result was durably "
    "recorded. Its outcome is unknown. Decide whether to retry from the tool semantics: "
    "retry only if the operation is read-only or idempotent; if it may have side effects, "
    "first verify external state or ask the user. Do not retry blindly."
)
NOT_STARTED_TEXT = (
    "The tool call was interrupted before the Harness recorded it as started. Retry it "
    "if it is still needed."
)


class RepairTracker:
    __slots__ = ("last_seq", "last_time", "open_step", "open_turn", "pending")

    def __init__(self) -> None:
        self.open_turn: Any = None
        self.open_step: Any = None
        self.pending: dict[Any, list[Any]] = {}
        self.last_seq: int = -1
        self.last_time: Any = 0

    def feed(self, ev: Event) -> None:
        """Track one event (only ``REPAIR_TYPES`` change more than the end position)."""
        self.last_seq = ev.seq
        self.last_time = ev.time
        handler = self._handlers.get(ev.type)
        if handler is not None:
            handler(self, ev.data if isinstance(ev.data, dict) else {}, ev.seq)

    def _turn_start(self, data: dict[str, Any], seq: int) -> None:
        self.open_turn = data.get("turn")
        self.open_step = None
        self.pending = {}

    def _turn_end(self, data: dict[str, Any], seq: int) -> None:
        self.open_turn = None
        self.open_step = None
        self.pending = {}

    def _step_start(self, data: dict[str, Any], seq: int) -> None:
        self.open_step = data.get("step")

    def _step_end(self, data: dict[str, Any], seq: int) -> None:
        self.pending = {}
        self.open_step = None

    def _assistant_message(self, data: dict[str, Any], seq: int) -> None:
        message = data.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool-call":
                    self.pending[hashable(block.get("id"))] = [data.get("step"), None]

    def _tool_call(self, data: dict[str, Any], seq: int) -> None:
        entry = self.pending.get(hashable(data.get("callId")))
        if entry is not None:
            entry[1] = seq

    def _tool_result(self, data: dict[str, Any], seq: int) -> None:
        message = data.get("message")
        source = message.get("source") if isinstance(message, dict) else None
        if isinstance(source, dict):
            self.pending.pop(hashable(source.get("callId")), None)

    _handlers: ClassVar[dict[str, Callable[[RepairTracker, dict[str, Any], int], None]]] = {
        "turn/start": _turn_start,
        "turn/end": _turn_end,
        "step/start": _step_start,
        "step/end": _step_end,
        "assistant/message": _assistant_message,
        "tool/call": _tool_call,
        "tool/result": _tool_result,
    }

    def end_at(self, last_seq: int, last_time: Any) -> None:
        """Where the preserved log ends (the closers follow it)."""
        self.last_seq = last_seq
        self.last_time = last_time

    @property
    def interrupted(self) -> bool:
        return self.open_turn is not None and self.last_seq >= 0

    def closers(self) -> list[dict[str, Any]]:
        """The records ``load()`` would append, in order (empty when no turn is open)."""
        if not self.interrupted:
            return []
        out: list[dict[str, Any]] = []
        seq = self.last_seq + 1
        for call_id, (step, call_seq) in self.pending.items():
            started = call_seq is not None
            data = {
                "turn": self.open_turn,
                "step": step,
                "message": {
                    "id": f"interrupted-tool-result-{call_id}-{seq}",
                    "role": "user",
                    "source": {"kind": "tool", "callId": call_id},
                    "content": [{
                        "type": "tool-result", "toolCallId": call_id, "isError": True,
                        "content": [{"type": "text", "text": STARTED_TEXT if started else NOT_STARTED_TEXT}],
                    }],
                },
                "error": {"name": "ToolOutcomeUnknownError", "code": "TOOL_OUTCOME_UNKNOWN"}
                if started else {"name": "ToolNotStartedError", "code": "TOOL_NOT_STARTED"},
            }
            record: dict[str, Any] = {"type": "tool/result", "seq": seq, "time": self.last_time,
                                      "data": data, "surfaceOp": "append"}
            if started:
                record["sourceEventSeqs"] = [call_seq]
            out.append(record)
            seq += 1
        if self.open_step is not None:
            out.append({"type": "step/end", "seq": seq, "time": self.last_time,
                        "data": {"turn": self.open_turn, "step": self.open_step}})
            seq += 1
        out.append({"type": "turn/end", "seq": seq, "time": self.last_time,
                    "data": {"turn": self.open_turn, "reason": {"kind": "interrupted"}}})
        return out

    def closer_events(self, line: int) -> list[Event]:
        """``closers()`` as events; ``line`` is where they are reported (they are not
        in the file: the line of the last real event)."""
        return [DictEvent(r["type"], r["seq"], r["time"], r["data"], line, r) for r in self.closers()]

    def describe(self) -> str:
        parts = []
        for call_id, (_step, call_seq) in self.pending.items():
            code = "TOOL_OUTCOME_UNKNOWN" if call_seq is not None else "TOOL_NOT_STARTED"
            parts.append(f"an error tool/result for {call_id} ({code})")
        if self.open_step is not None:
            parts.append(f"step/end for step {self.open_step}")
        parts.append(f'turn/end {{"kind":"interrupted"}} for turn {self.open_turn}')
        return "append " + ", ".join(parts)


REPAIR_TYPES = frozenset(RepairTracker._handlers)
"""The event types the closers depend on."""


def with_repair(events: Iterable[Event]) -> Iterator[Event]:
    """The events, then the closers a cold ``load()`` appends when the log ends inside
    a turn (nothing more when it does not)."""
    tracker = RepairTracker()
    line = 1
    for ev in events:
        tracker.feed(ev)
        line = ev.line
        yield ev
    yield from tracker.closer_events(line)
