"""Legacy shapes (spec §2.6), migrated to the current shape before anything else
reads the event, so no later stage ever branches on the format generation.

Each migration is reported (rule B4, ``warning``: today's loader migrates it); a
shape the loader refuses is rule B3 or B4 with severity ``error``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from replay.findings import Example, Finding, Rule
from replay.log.event import DictEvent, Event
from replay.log.seqmap import SeqIds, SeqIdsState, restored_ids, snapshot_ids
from replay.log.values import hashable, is_nonempty_str, is_safe_int
from replay.output import show

B3 = Rule(
    "B3", "format", "storage", "no event the harness retired (request/header-delta, mode/set, reason fallback)",
    explanation="""
        Some events of the 2026-06/07 harness were dropped without a migration: request/header-delta,
        mode/set, and a request/header with the reason "fallback".""",
    examples=[
        Example(
            "mode/set", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"mode/set","seq":1,"time":0,"data":{"mode":"plan"}}
                {"type":"turn/end","seq":2,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 3: B3 error: mode/set is a 2026-06/07 event that today's harness no longer reads: it refuses the log
                """),  # noqa: E501
        Example(
            "a request/header with the reason fallback", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"request/header","seq":1,"time":0,"data":{"header":{"config":{"provider":"p","model":"m"}},"reason":"fallback"}}
                {"type":"turn/end","seq":2,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 3: B3 error: request/header has the retired reason "fallback", which today's harness no longer reads: it refuses the log
                """),  # noqa: E501
    ],
    harness="""Refuses the log: it "contains unsupported legacy" events.""",
)

B4 = Rule(
    "B4", "format", "storage",
    "2026-06/07 shapes are migrated on load (warning), or refused when malformed (error)",
    explanation="""
        The 2026-06/07 harness wrote some events in older shapes: turn/start with a "trigger",
        messages without "id" and "role", assistant/message and tool/result with their content at the
        top level, steering/message, and old turn/end reasons. Today's harness migrates them as it
        loads the log; the audit reports each kind of migration once per log, as a warning with a
        count. An old shape it cannot migrate (a malformed turn/start or turn/end, say) is an error.""",
    examples=[
        Example(
            "a turn/start trigger, migrated", bad_line=2,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1,"trigger":{"kind":"user"}}}
                {"type":"turn/end","seq":1,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 2: B4 warning: turn/start has the 2026-06/07 "trigger" field: loading drops it
                """),
        Example(
            "a turn/end of an old shape it cannot migrate", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"turn/end","seq":1,"time":0,"data":{"turn":1,"step":2,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 3: B4 error: turn/end has a 2026-06/07 shape that today's harness cannot migrate (its data must hold exactly turn and reason, not turn, step, reason), so it refuses the log
                """),  # noqa: E501
    ],
    harness="""
        Migrates the old shapes in memory while loading (the file is not rewritten); refuses a log
        with an old shape it cannot migrate ("malformed pre-react-loop" event).""",
)


Migration = Callable[[Event], tuple[Event | None, Sequence[Finding]]]
"""An event in, the event in today's shape (or ``None``: refused) and notes out."""

_BARE_KINDS = frozenset({"completed", "blocked", "max-tokens", "interrupted"})


class Migrator:
    """Migrates one log's events in order. It remembers the message id of every
    ``tool/result`` (a legacy replacement inherits the id of the result it replaces)."""

    def __init__(self, session_id: str | None) -> None:
        self._session_id = session_id if session_id is not None else ""
        self._tool_result_ids = SeqIds()

    def _legacy_id(self, seq: int) -> str:
        return f"legacy-message:{self._session_id}:{seq}"

    def _note(self, ev: Event, key: str, message: str) -> Finding:
        return B4.warning(message, ev.line, ev.seq, ev.type, group=f"B4:{key}")

    def _malformed(self, ev: Event, what: str, why: str) -> Finding:
        return B4.error(f"{what} has a 2026-06/07 shape that today's harness cannot migrate ({why}), so it "
                        "refuses the log", ev.line, ev.seq, ev.type)

    def by_type(self) -> dict[str, Migration]:
        """The migration of each type a legacy shape can take; every other type passes
        as it is."""
        return {
            "turn/start": self._turn_start,
            "turn/end": self._turn_end,
            "user/message": self._user_message,
            "assistant/message": self._assistant,
            "tool/result": self._tool_result,
            "steering/message": self._steering,
            "request/header": self._request_header,
            "request/header-delta": self._rejected,
            "mode/set": self._rejected,
        }

    def _rejected(self, ev: Event) -> tuple[Event | None, Sequence[Finding]]:
        return None, [B3.error(f"{ev.type} is a 2026-06/07 event that today's harness no longer reads: it "
                               "refuses the log", ev.line, ev.seq, ev.type)]

    def _request_header(self, ev: Event) -> tuple[Event | None, Sequence[Finding]]:
        data = ev.data
        if type(data) is dict and data.get("reason") == "fallback":
            return ev, [B3.error('request/header has the retired reason "fallback", which today\'s harness no '
                                 "longer reads: it refuses the log", ev.line, ev.seq, ev.type)]
        return ev, ()

    def _user_message(self, ev: Event) -> tuple[Event | None, Sequence[Finding]]:
        data = ev.data
        if type(data) is not dict or "id" in data or "role" in data or "message" in data \
                or "content" not in data or "source" not in data:
            return ev, ()
        new = {"id": self._legacy_id(ev.seq), "role": "user", **data}
        return self._replaced(ev, "user/message", new), [self._note(
            ev, "user/message", 'user/message has the 2026-06/07 shape (no "id" or "role"): loading gives it a '
            'legacy id and the role "user"')]

    def _replaced(self, ev: Event, type: str, data: Any) -> Event:
        return DictEvent(type, ev.seq, ev.time, data, ev.line, ev.record)

    def _turn_start(self, ev: Event) -> tuple[Event | None, Sequence[Finding]]:
        data = ev.data
        if type(data) is not dict or "trigger" not in data:
            return ev, ()
        turn = data.get("turn")
        trigger = data["trigger"]
        if not (is_safe_int(turn) and turn is not None and turn >= 1):
            return ev, [self._malformed(ev, "turn/start", f"its turn must be a whole number from 1, got {show(turn)}")]
        if data.keys() != {"turn", "trigger"}:
            return ev, [self._malformed(ev, "turn/start", "only turn and trigger may be present")]
        if not isinstance(trigger, dict) or not is_nonempty_str(trigger.get("kind")):
            return ev, [self._malformed(ev, "turn/start", "trigger.kind must be a non-empty string")]
        return self._replaced(ev, "turn/start", {"turn": turn}), [self._note(
            ev, "turn/start", 'turn/start has the 2026-06/07 "trigger" field: loading drops it')]

    def _turn_end(self, ev: Event) -> tuple[Event | None, Sequence[Finding]]:
        data = ev.data
        if type(data) is not dict:
            return ev, ()
        turn = data.get("turn")
        reason = data.get("reason")
        if data.keys() != {"turn", "reason"}:
            return ev, [self._malformed(ev, "turn/end", "its data must hold exactly turn and reason, not "
                                        + (", ".join(data) or "nothing"))]
        if not (is_safe_int(turn) and turn is not None and turn >= 1):
            return ev, [self._malformed(ev, "turn/end", f"its turn must be a whole number from 1, got {show(turn)}")]
        if not isinstance(reason, dict) or not isinstance(reason.get("kind"), str):
            return ev, [self._malformed(ev, "turn/end", "reason must be an object with a string kind")]
        kind = reason["kind"]
        if kind in _BARE_KINDS:
            if len(reason) != 1:
                return ev, [self._malformed(ev, "turn/end", f'a "{kind}" reason takes no other keys')]
            return ev, ()
        new_reason: dict[str, Any] | None = None
        if kind == "aborted" and "reason" not in reason:
            new_reason = {"kind": "aborted", "reason": {"kind": "legacy"}}
        elif kind == "disposed":
            new_reason = {"kind": "aborted", "reason": {"kind": "disposed"}}
        elif kind == "error" and "error" not in reason and "step" in reason:
            if "failure" in reason:
                new_reason = {"kind": "error", "error": reason["failure"]}
            elif "message" in reason:
                new_reason = {"kind": "error", "error": {"message": reason["message"],
                                                         "code": reason.get("code", "UNKNOWN")}}
        if new_reason is None:
            return ev, ()
        return self._replaced(ev, "turn/end", {"turn": turn, "reason": new_reason}), [self._note(
            ev, f"turn/end:{kind}", f'turn/end has the 2026-06/07 reason "{kind}": loading rewrites it as '
            f"{show(new_reason)}")]

    def _steering(self, ev: Event) -> tuple[Event | None, Sequence[Finding]]:
        data = ev.data
        if type(data) is not dict:
            return ev, ()
        if isinstance(data.get("message"), dict):
            message = data["message"]
        elif "content" in data and "source" in data:
            message = {"id": self._legacy_id(ev.seq), "role": "user",
                       "content": data["content"], "source": data["source"]}
        else:
            return ev, [self._malformed(ev, "steering/message", "needs message, or content and source")]
        return self._replaced(ev, "user/message", message), [self._note(
            ev, "steering/message", "steering/message is a 2026-06/07 event: loading turns it into a user/message")]

    def _assistant(self, ev: Event) -> tuple[Event | None, Sequence[Finding]]:
        data = ev.data
        if type(data) is not dict or "message" in data or "content" not in data:
            return ev, ()
        provenance = data.get("provenance")
        source = {**provenance, "kind": "model"} if isinstance(provenance, dict) else {"kind": "model"}
        message = {"id": self._legacy_id(ev.seq), "role": "assistant",
                   "content": data["content"], "source": source}
        new: dict[str, Any] = {}
        for key, value in data.items():
            if key == "content":
                new["message"] = message
            elif key != "provenance":
                new[key] = value
        return self._replaced(ev, "assistant/message", new), [self._note(
            ev, "assistant/message", "assistant/message has the 2026-06/07 shape (content and provenance at the "
            "top level): loading wraps them into a message")]

    def _tool_result(self, ev: Event) -> tuple[Event | None, Sequence[Finding]]:
        data = ev.data
        if type(data) is not dict:
            return ev, ()
        if "message" in data or "callId" not in data:
            self._remember_tool_result(ev.seq, data.get("message"))
            return ev, ()
        call_id = data["callId"]
        op = ev.record.get("surfaceOp")
        message_id: Any = self._legacy_id(ev.seq)
        if isinstance(op, dict) and op.get("op") == "replace":
            message_id = self._tool_result_ids.get(hashable(op.get("start")), message_id)
        block = {"type": "tool-result", "toolCallId": call_id, "content": data.get("content"),
                 "isError": data.get("isError")}
        message = {"id": message_id, "role": "user", "content": [block],
                   "source": {"kind": "tool", "callId": call_id}}
        new: dict[str, Any] = {"turn": data.get("turn"), "step": data.get("step"), "message": message}
        for key, value in data.items():
            if key not in ("turn", "step", "callId", "content", "isError"):
                new[key] = value
        self._remember_tool_result(ev.seq, message)
        return self._replaced(ev, "tool/result", new), [self._note(
            ev, "tool/result", "tool/result has the 2026-06/07 shape (callId, content and isError at the top "
            "level): loading wraps them into a tool-result message")]

    def _remember_tool_result(self, seq: int, message: Any) -> None:
        if isinstance(message, dict) and isinstance(seq, int):
            self._tool_result_ids[seq] = message.get("id")

    def snapshot(self) -> SeqIdsState | None:
        """What the migrations remember of the log so far (the message id of each
        tool/result), for a checkpoint (``replay.check.resume``); ``None`` when an id
        is not one a checkpoint keeps (neither a text nor none)."""
        return snapshot_ids(self._tool_result_ids)

    @classmethod
    def restored(cls, session_id: str | None, state: SeqIdsState) -> Migrator:
        """The migrator of a log whose first events left it in ``state``
        (``ValueError``: ``state`` is not one a reading leaves)."""
        migrator = cls(session_id)
        migrator._tool_result_ids = restored_ids(state)
        return migrator

    def remember(self, seq: int, message_id: str) -> None:
        """A ``tool/result`` of today's shape read typed (no migration applies to it):
        its message id, which a legacy replacement of it inherits."""
        self._tool_result_ids[seq] = message_id
