"""Building events for the translator tests, and rendering them."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from replay.log.event import DictEvent, Event
from replay.render.acp import AcpOptions, AcpSession, dump_notification


def ev(type_: str, data: Any, seq: int = 1, time: Any = 0, **envelope: Any) -> Event:
    record = {"type": type_, "seq": seq, "time": time, "data": data, **envelope}
    return DictEvent(type_, seq, time, data, seq + 1, record)


def call(call_id: str, name: str, args: Any) -> Event:
    raw = args if isinstance(args, str) else json.dumps(args)
    return ev("tool/call", {"turn": 1, "step": 1, "callId": call_id, "name": name, "arguments": raw})


def result(call_id: str, content: Any, is_error: bool = False, meta: Any = None,
           surface_op: Any = "append") -> Event:
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    block = {"type": "tool-result", "toolCallId": call_id, "content": content, "isError": is_error}
    data: dict[str, Any] = {"turn": 1, "step": 1, "message": {
        "source": {"kind": "tool", "callId": call_id}, "content": [block], "role": "user", "id": "m"}}
    if meta is not None:
        data["meta"] = meta
    return ev("tool/result", data, surfaceOp=surface_op)


def updates(events: Iterable[Event], **options: Any) -> list[dict[str, Any]]:
    session = AcpSession(AcpOptions(session_id=options.pop("session_id", "s"), **options))
    return [n["params"]["update"] for e in events for n in session.translate(e)]


def lines(events: Iterable[Event], **options: Any) -> list[str]:
    session = AcpSession(AcpOptions(session_id=options.pop("session_id", "s"), **options))
    return [dump_notification(n) for e in events for n in session.translate(e)]
