"""Tool calls and their results: the pairing fold every renderer reads.

``tool_calls(events)`` pairs each ``tool/call`` with the ``tool/result`` that settled
it. Only an *appended* result is an execution: a result whose ``surfaceOp`` is a
replacement object is a model-only copy and is never paired (an absent ``surfaceOp``
counts as an append, as in logs written before surface ops existed). A result whose
call is not in the log cannot be named and is left out.

``tool_result(event)`` reads one ``tool/result`` event (in today's shape; the reader
has already migrated legacy ones). ``ToolCall.parsed`` parses a call's raw arguments
the way JavaScript's ``JSON.parse`` would (``replay.jsjson.parse``);
``ToolCall.display_args`` is what a UI shows for them (``display_arguments``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal

from replay.jsjson import dumps, js_string, parse
from replay.log.event import Event


def is_js_object(value: Any) -> bool:
    """``typeof value === 'object' && value !== null`` for a parsed JSON value."""
    return isinstance(value, dict | list)


def first_line(text: str) -> str:
    """Everything up to the first ``\\n`` (found, not split off: the rest is not copied)."""
    end = text.find("\n")
    return text if end < 0 else text[:end]


@dataclass(frozen=True, slots=True)
class ToolResult:
    """One appended ``tool/result``."""

    seq: int
    call_id: str | None
    blocks: tuple[Any, ...]
    """The content blocks of the tool-result block(s), in order."""
    is_error: bool
    error: dict[str, Any] | None
    """The structured error (``data.error``: ``{name, code}``) when the log has one."""
    meta: Any = None
    """The tool-private presentation payload (``data.meta``); ``None`` when absent."""
    clipped_from: int | None = None
    """Set by ``clip``: the full output's length when ``blocks`` hold only its start."""

    @property
    def text(self) -> str:
        """The text blocks concatenated with no separator (non-text blocks ignored)."""
        return "".join(b["text"] for b in self.blocks if _is_text_block(b))

    @property
    def error_code(self) -> str | None:
        code = self.error.get("code") if self.error is not None else None
        return code if isinstance(code, str) else None

    @property
    def output(self) -> str | None:
        """The web row's output: text blocks joined with ``\\n``, other blocks as pretty
        JSON; ``"{name}: {code}"`` when that is empty and a structured error exists;
        ``None`` when still empty."""
        parts = [b["text"] if _is_text_block(b) else json.dumps(b, indent=2, ensure_ascii=False)
                 for b in self.blocks]
        out = "\n".join(parts)
        if out == "" and self.error is not None:
            out = f"{js_string(self.error.get('name'))}: {js_string(self.error.get('code'))}"
        return out or None


Outcome = Literal["pending", "done", "failed", "interrupted"]
"""How a tool call ended, as a person reads it: no result yet, a result, an error
result, or an error result whose structured error code is ``interrupted`` (the web
UI's "stopped")."""
INTERRUPTED_CODE = "interrupted"
"""The structured error code of an interrupted call."""


def outcome(result: ToolResult | None) -> Outcome:
    """How a call with this result (``None``: none yet) ended."""
    if result is None:
        return "pending"
    if result.error_code == INTERRUPTED_CODE:
        return "interrupted"
    return "failed" if result.is_error else "done"


def clip(result: ToolResult, limit: int) -> ToolResult:
    """The result with an output longer than ``limit`` characters cut to its first
    ``limit`` (one text block), remembering the full length in ``clipped_from``."""
    output = result.output
    if output is None or len(output) <= limit:
        return result
    return replace(result, blocks=({"type": "text", "text": output[:limit]},), clipped_from=len(output))


def _is_text_block(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)


def is_append(event: Event) -> bool:
    """The event is an execution, not a surface replacement (absent ``surfaceOp`` counts)."""
    op = event.surface_op
    return op is None or op == "append"


def tool_result(event: Event) -> ToolResult | None:
    """Read a ``tool/result`` event; ``None`` for another type or an unusable payload."""
    data = event.data
    if event.type != "tool/result" or not isinstance(data, dict):
        return None
    message = data.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return None
    blocks: list[Any] = []
    is_error = False
    call_id: str | None = None
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "tool-result":
            continue
        if call_id is None and isinstance(block.get("toolCallId"), str):
            call_id = block["toolCallId"]
        inner = block.get("content")
        if isinstance(inner, list):
            blocks.extend(inner)
        is_error = is_error or block.get("isError") is True
    if call_id is None and isinstance(message, dict):
        source = message.get("source")
        if isinstance(source, dict) and isinstance(source.get("callId"), str):
            call_id = source["callId"]
    error = data.get("error")
    return ToolResult(event.seq, call_id, tuple(blocks), is_error, error if isinstance(error, dict) else None,
                      data.get("meta"))


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A ``tool/call`` and, once settled, its appended result."""

    seq: int
    call_id: str
    name: str
    args_raw: str
    """The arguments exactly as the model produced them ('' when absent)."""
    turn: Any = None
    step: Any = None
    result: ToolResult | None = None

    @property
    def parsed(self) -> tuple[bool, Any]:
        """``(True, value)`` when the arguments are JSON, else ``(False, None)``."""
        return parse(self.args_raw)

    @property
    def display_args(self) -> Any:
        """The arguments as a UI shows them (``display_arguments``)."""
        return display_arguments(self.args_raw)


def display_arguments(raw: str) -> Any:
    """A call's raw arguments as the harness's presenters and UIs read them: ``""`` is
    ``{}``, JSON is its value, anything else stays the raw string (the card shows what
    the model wrote). Never raises; compare ``replay.todo.tool.decode_arguments``, the
    tool's own strict reading."""
    if raw == "":
        return {}
    ok, value = parse(raw)
    return value if ok else raw


def tool_call(event: Event) -> ToolCall | None:
    """Read a ``tool/call`` event (no result yet); ``None`` for another type."""
    data = event.data
    if event.type != "tool/call" or not isinstance(data, dict):
        return None
    call_id, name, args = data.get("callId"), data.get("name"), data.get("arguments")
    return ToolCall(
        seq=event.seq,
        call_id=call_id if isinstance(call_id, str) else "",
        name=name if isinstance(name, str) else "",
        args_raw=args if isinstance(args, str) else "" if args is None else dumps(args),
        turn=data.get("turn"),
        step=data.get("step"),
    )


class Pairing:
    """The pairing fold, one event at a time, for consumers that keep only part of it.

    Calls are numbered in log order (0, 1, …: every ``tool/call`` event that reads as a
    call). ``call(ev)`` registers a ``tool/call`` and returns ``(number, call)``;
    ``result(ev)`` returns ``(number, result)`` when an appended ``tool/result`` settles
    an open call (the most recent one with that id), else ``None``."""

    def __init__(self) -> None:
        self.calls = 0
        self._open: dict[str, int] = {}

    def call(self, event: Event) -> tuple[int, ToolCall] | None:
        found = tool_call(event)
        if found is None:
            return None
        return self.open(found.call_id), found

    def open(self, call_id: str) -> int:
        """A call with this id is made (read by the caller): its number."""
        number = self.calls
        self.calls += 1
        self._open[call_id] = number
        return number

    def result(self, event: Event) -> tuple[int, ToolResult] | None:
        if event.type != "tool/result" or not is_append(event):
            return None
        found = tool_result(event)
        if found is None or found.call_id is None:
            return None
        number = self._open.pop(found.call_id, None)
        return None if number is None else (number, found)


def tool_calls(events: Iterable[Event]) -> list[ToolCall]:
    """Every tool call in log order, each with the first appended result for its id."""
    calls: list[ToolCall] = []
    pairing = Pairing()
    for ev in events:
        if ev.type == "tool/call":
            got = pairing.call(ev)
            if got is not None:
                calls.append(got[1])
        elif ev.type == "tool/result":
            settled = pairing.result(ev)
            if settled is not None:
                number, result = settled
                calls[number] = replace(calls[number], result=result)
    return calls


def settled_results(events: Iterable[Event], keep: Callable[[ToolResult], ToolResult] | None = None,
                    ) -> dict[int, ToolResult]:
    """The result that settled each call, by call number (see ``Pairing``), without
    holding the calls; ``keep`` may shrink each result as it is found."""
    found: dict[int, ToolResult] = {}
    pairing = Pairing()
    for ev in events:
        if ev.type == "tool/call":
            pairing.call(ev)
        elif ev.type == "tool/result":
            settled = pairing.result(ev)
            if settled is not None:
                number, result = settled
                found[number] = keep(result) if keep is not None else result
    return found
