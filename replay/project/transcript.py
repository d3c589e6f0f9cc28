"""The transcript fold: what a conversation view lists, in log order.

Entries are turn boundaries, messages (user and assistant, appended ones only: a
surface replacement is a model-only copy) and tool calls (paired with their results
as ``tool_calls`` pairs them). An assistant message's tool-call blocks are not repeated as
blocks: the ``tool/call`` event that follows is the tool entry.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from replay.log.event import Event
from replay.project.tools import Pairing, ToolCall, ToolResult, is_append, settled_results

BlockKind = Literal["text", "reasoning", "other"]


@dataclass(frozen=True, slots=True)
class Block:
    """A message content block: its text, or for ``other`` the block's type name."""

    kind: BlockKind
    text: str


@dataclass(frozen=True, slots=True)
class TurnStart:
    seq: int
    turn: Any


@dataclass(frozen=True, slots=True)
class TurnEnd:
    seq: int
    turn: Any
    reason: str | None
    """The end reason's ``kind`` (``completed``, ``interrupted``, …)."""


@dataclass(frozen=True, slots=True)
class Message:
    seq: int
    role: Literal["user", "assistant"]
    source_kind: str | None
    """``message.source.kind``: ``user``, ``plugin``, ``model``, …"""
    blocks: tuple[Block, ...]


@dataclass(frozen=True, slots=True)
class ToolEntry:
    call: ToolCall


Entry = TurnStart | TurnEnd | Message | ToolEntry


def _blocks(content: Any) -> tuple[Block, ...]:
    if isinstance(content, str):
        return (Block("text", content),)
    out: list[Block] = []
    for block in content if isinstance(content, list) else []:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "tool-call":
            continue
        text = block.get("text") if isinstance(block, dict) else None
        if kind in ("text", "reasoning") and isinstance(text, str):
            out.append(Block("text" if kind == "text" else "reasoning", text))
        else:
            out.append(Block("other", kind if isinstance(kind, str) else "unknown"))
    return tuple(out)


def _message(ev: Event, message: Any, role: Literal["user", "assistant"]) -> Message | None:
    if not isinstance(message, dict):
        return None
    source = message.get("source")
    kind = source.get("kind") if isinstance(source, dict) else None
    return Message(ev.seq, role, kind if isinstance(kind, str) else None, _blocks(message.get("content")))


def message_of(ev: Event) -> Message | None:
    """The transcript message an event is: an appended ``user/message`` or
    ``assistant/message`` (``None`` for anything else, a surface replacement included)."""
    if ev.type == "user/message" and is_append(ev):
        return _message(ev, ev.data, "user")
    if ev.type == "assistant/message" and is_append(ev):
        return _message(ev, ev.data.get("message") if isinstance(ev.data, dict) else None, "assistant")
    return None


def transcript(events: Iterable[Event]) -> list[Entry]:
    """The entries of a log, in order."""
    evs = list(events)
    return list(transcript_entries(evs, settled_results(evs)))


def transcript_entries(events: Iterable[Event], results: Mapping[int, ToolResult]) -> Iterator[Entry]:
    """The entries of a log, one at a time, each tool call with its result from
    ``results`` (by call number, as ``settled_results`` gives them): with that read off
    a first pass, a second pass streams the transcript without holding the log."""
    pairing = Pairing()
    for ev in events:
        data = ev.data if isinstance(ev.data, dict) else {}
        entry: Entry | None = None
        if ev.type == "turn/start":
            entry = TurnStart(ev.seq, data.get("turn"))
        elif ev.type == "turn/end":
            reason = data.get("reason")
            kind = reason.get("kind") if isinstance(reason, dict) else reason
            entry = TurnEnd(ev.seq, data.get("turn"), kind if isinstance(kind, str) else None)
        elif ev.type in ("user/message", "assistant/message"):
            entry = message_of(ev)
        elif ev.type == "tool/call":
            got = pairing.call(ev)
            if got is not None:
                number, call = got
                result = results.get(number)
                entry = ToolEntry(call if result is None else replace(call, result=result))
        if entry is not None:
            yield entry
