"""The session core's checker: every rule of the session core (messages, known types,
envelope, request header, surface, the dev invariant) over one log, each event handed
to the rules of its type.

The rules live in the modules of their domain: the envelope and known types in
``replay.check.envelope`` (C2, B6), the messages in ``replay.check.messages`` (B5), the
request header in ``replay.check.requests`` (C3), the surface in
``replay.check.surface`` (C5), the seqs of events handed over directly in
``replay.check.seqs`` (C4, D1), the dev invariant in ``replay.check.dev`` (D2–D17).
C1 (the header) is judged while the header is read (``replay.log.header``); B7 (an
interrupted trailing turn the loader would close) is reported by the engine, which
owns the repair tracker.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import msgspec
from msgspec import UNSET

from replay.check.dev import D9, DevInvariant, DevState
from replay.check.envelope import envelope_problems, type_problem
from replay.check.messages import message_problems
from replay.check.nodes import NodesState
from replay.check.requests import header_problems
from replay.check.seqs import Positions
from replay.check.surface import SurfaceJudge
from replay.checker import Checker, Found
from replay.findings import Finding
from replay.log.event import KNOWN_TYPES, SURFACE_TYPES, ChunkRun, ChunkSpan, DictEvent, Event
from replay.log.seqmap import SeqBytesState
from replay.log.typed import (
    PLAIN,
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
from replay.log.values import hashable
from replay.output import show


class CoreState(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """The session core's state for a checkpoint (``replay.check.resume``), of a log's
    scanned records: the dev invariant's, the surface's nodes and the prints of its
    tool/results."""

    dev: DevState
    nodes: NodesState
    prints: SeqBytesState


class CoreChecker(Positions, DevInvariant, SurfaceJudge, Checker):
    """One log's session-core state. ``scanned`` is true when a line scanner already
    checked seq contiguity (A7); C4 and D1 then have nothing to add."""

    def __init__(self, scanned: bool = True) -> None:
        self.scanned = scanned
        Positions.__init__(self)
        DevInvariant.__init__(self)
        SurfaceJudge.__init__(self)

    def snapshot(self) -> CoreState | None:
        """The state a checkpoint keeps; ``None`` when it cannot keep it (events handed
        over directly, or values a checkpoint does not hold)."""
        dev, surface = self.dev_state(), self.surface_state()
        if not self.scanned or self.index != 0 or self.last_seq != -1 or dev is None or surface is None:
            return None
        return CoreState(dev, *surface)

    @classmethod
    def restored(cls, state: CoreState) -> CoreChecker:
        """A checker of a log's scanned records in ``state`` (``ValueError``: none can be)."""
        checker = cls(scanned=True)
        checker.restore_dev(state.dev)
        checker.restore_surface(state.nodes, state.prints)
        return checker

    # -- hooks ---------------------------------------------------------------------

    def event(self, ev: Event) -> Found:
        if self.scanned and type(ev) is not DictEvent:
            # A typed event: its type's handler reads its fields (the rules it cannot
            # break by its shape are not looked at); a plain known type has none.
            typed = _TYPED.get(type(ev))
            return typed(self, ev) if typed is not None else None
        return self._exact(ev)

    def _exact(self, ev: Event) -> Found:
        """Every core rule on the event's dict view: the exact path."""
        t = ev.type
        out: list[Finding] = []
        envelope_problems(ev, out)
        if not self.scanned:
            self._sequence(ev.seq, 1, ev, out)
        type_problem(ev, out)
        if t in SURFACE_TYPES:
            self._surface(ev, out)
        elif t in KNOWN_TYPES:
            self._off_surface(ev, out)
        handler = _HANDLERS.get(t)
        if handler is not None:
            handler(self, ev, out)
        return out or None

    def shape(self) -> Hashable:
        return self.scanned

    @classmethod
    def hook(cls, kind: type[Event], shape: Hashable) -> Callable[[Any, Event], Found] | None:
        if not shape or kind is DictEvent or cls.event is not CoreChecker.event:
            return cls.event  # a subclass's own ``event`` sees every event
        return _TYPED.get(kind)

    def chunks(self, span: ChunkSpan) -> Found:
        # The span's chunks are plain (of every core rule only D9 can have something to
        # say of one) and share a turn and step: when that is the open step, none has a finding.
        if self.scanned and self.open_step is not None and span.step == self.open_step \
                and span.turn == self.open_turn:
            return None
        return super().chunks(span)

    def run(self, run: ChunkRun) -> Found:
        out: list[Finding] = []
        if not self.scanned:
            self._sequence(run.seq0, run.count, None, out, run)
        if run.turn != self.open_turn or run.step != self.open_step or self.open_step is None:
            out.append(D9.error(
                f"assistant/chunk belongs to turn {show(run.turn)}, step {show(run.step)}, but "
                f"{self._open_desc()} (a packed {run.tag} row of {run.count} chunks, seq {run.seq0}–{run.last_seq})",
                run.line, run.seq0, "assistant/chunk"))
        return out or None

    # -- per-type handlers of the dict view (B5, C3, D2–D14) ----------------------

    def _assistant_message(self, ev: Event, out: list[Finding]) -> None:
        data = ev.data
        message_problems(ev, data.get("message") if isinstance(data, dict) else None, "assistant", out)
        self._names_open_step(ev, out)

    def _user_message(self, ev: Event, out: list[Finding]) -> None:
        message_problems(ev, ev.data, "user", out)

    def _tool_result(self, ev: Event, out: list[Finding]) -> None:
        data = ev.data
        message = data.get("message") if isinstance(data, dict) else None
        message_problems(ev, message, "user", out)
        if ev.record.get("surfaceOp") != "append":
            self._replaces_in_turn(ev, out)
            return
        self._names_open_step(ev, out)
        source = message.get("source") if isinstance(message, dict) else None
        call_id = hashable(source.get("callId")) if isinstance(source, dict) else None
        self._answers(ev, call_id, data, message, out)

    def _request_header(self, ev: Event, out: list[Finding]) -> None:
        self._enclosed(ev, out)
        header_problems(ev, out)

    # -- typed events (``replay.log.typed``): the same rules, on their fields --------
    # A typed event's shape already satisfies the envelope (C2), known-type (B6) and
    # message-shape (B5) rules, and it appends to the surface: what is left is read from
    # its fields and judged by the rule code above. Where a field shows something the
    # shape does not settle (a block that names another call, adapterDefaults, a
    # sourceEventSeqs that is not distinct and earlier), the exact rule runs on the
    # event's dict view.

    def _t_user_message(self, ev: UserMessageEvent) -> Found:
        out: list[Finding] = []
        self._t_append(ev, out)
        return out or None

    def _t_assistant_message(self, ev: AssistantMessageEvent) -> Found:
        out: list[Finding] = []
        self._t_append(ev, out)
        self._in_open_step(ev, ev.body.turn, ev.body.step, out)
        return out or None

    def _t_tool_result(self, ev: ToolResult) -> Found:
        body = ev.body
        message = body.message
        call_id = message.source.call_id
        if message.content[0].tool_call_id != call_id:
            return self._exact(ev)  # B5: the block answers another call
        out: list[Finding] = []
        self._t_append(ev, out)
        self._in_open_step(ev, body.turn, body.step, out)
        if call_id in self.pending:
            self.pending.discard(call_id)
        else:
            data = ev.data
            self._answers(ev, call_id, data, data.get("message"), out)
        return out or None

    def _t_request_header(self, ev: RequestHeader) -> Found:
        if ev.body.header.adapter_defaults is not UNSET:
            return self._exact(ev)
        out: list[Finding] = []
        self._enclosed(ev, out)
        return out or None


_HANDLERS: dict[str, Callable[[CoreChecker, Event, list[Finding]], None]] = {
    "turn/start": CoreChecker._turn_start,
    "turn/end": CoreChecker._turn_end,
    "step/start": CoreChecker._step_start,
    "step/end": CoreChecker._step_end,
    "assistant/chunk": CoreChecker._names_open_step,
    "assistant/message": CoreChecker._assistant_message,
    "tool/call": CoreChecker._tool_call,
    "tool/result": CoreChecker._tool_result,
    "user/message": CoreChecker._user_message,
    "request/header": CoreChecker._request_header,
    "todo/write": CoreChecker._enclosed,
    "request/context": CoreChecker._enclosed,
}
"""Per-type checks of the core (D2–D14, B5, C3); every event also gets the envelope,
known-type and surface checks."""

_TYPED: dict[type[Event], Callable[[CoreChecker, Any], Found]] = {
    Chunk: CoreChecker._t_chunk,
    TurnStart: CoreChecker._t_turn_start,
    TurnEnd: CoreChecker._t_turn_end,
    StepStart: CoreChecker._t_step_start,
    StepEnd: CoreChecker._t_step_end,
    ToolCall: CoreChecker._t_tool_call,
    UserMessageEvent: CoreChecker._t_user_message,
    AssistantMessageEvent: CoreChecker._t_assistant_message,
    ToolResult: CoreChecker._t_tool_result,
    RequestHeader: CoreChecker._t_request_header,
    **{cls: CoreChecker._t_enclosed for cls in PLAIN if cls.__struct_config__.tag in ("todo/write", "request/context")},
}
"""The core's handler of each typed event class; a typed class without one (a plain
known type) has nothing the core judges."""
