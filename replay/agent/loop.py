"""The event-sourced loop: turns of steps, a model call per step, tools run for real.

Per turn it writes ``turn/start`` → per step: ``step/start``, the prompt as
``user/message`` (first step), ``request/header`` (when the offered tools change),
the model's ``assistant/chunk``s, ``assistant/message``, then per tool call
``tool/call`` → (the tool's own events, e.g. ``todo/write``) → ``tool/result``, and
``step/end``; a step that asked for tools is followed by another; finally
``turn/end``. Every log it writes passes ``replay audit`` with no error findings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from replay.agent.model import Chunk, Model
from replay.agent.tools import Tool, ToolContext, ToolOutcome
from replay.agent.writer import Ids, SessionLog

MAX_STEPS = 50


@dataclass
class _SessionAppender:
    log: SessionLog

    def append(self, type: str, data: dict[str, Any]) -> object:
        return self.log.append(type, data)


ChildFactory = Callable[["Agent", str, str | None], ToolOutcome]


@dataclass
class Agent:
    """One session's loop."""

    log: SessionLog
    model: Model
    tools: Sequence[Tool]
    ids: Ids
    provider: str = "replay"
    model_name: str = "scripted"
    system: str | None = None
    spawn_child: ChildFactory | None = None
    turn: int = 0
    _last_header: dict[str, Any] | None = field(default=None, repr=False)

    def _tool(self, name: str) -> Tool | None:
        return next((t for t in self.tools if t.name == name), None)

    def _header(self) -> dict[str, Any]:
        header: dict[str, Any] = {"config": {"provider": self.provider, "model": self.model_name}}
        if self.system:
            header["system"] = self.system
        tools = [t.schema() for t in self.tools]
        if tools:
            header["tools"] = tools
        return header

    def run_turn(self, prompt: str) -> str:
        """Run one user turn; return the final assistant text."""
        log = self.log
        self.turn += 1
        turn = self.turn
        log.append("turn/start", {"turn": turn})
        final_text = ""
        for step in range(1, MAX_STEPS + 1):
            log.append("step/start", {"turn": turn, "step": step})
            if step == 1:
                log.append("user/message", {"id": self.ids.next(), "role": "user",
                                            "content": [{"type": "text", "text": prompt}],
                                            "source": {"kind": "user"}}, surface=True)
            header = self._header()
            if header != self._last_header:
                reason = "initial" if self._last_header is None else "change"
                log.append("request/header", {"header": header, "reason": reason})
                self._last_header = header
            chunks = self.model.next_call()
            seqs = [log.append("assistant/chunk", {"turn": turn, "step": step, "chunk": c})["seq"] for c in chunks]
            finish = _finish(chunks)
            if finish.get("kind") == "error":
                raw_failure = finish.get("failure")
                failure: dict[str, Any] = raw_failure if isinstance(raw_failure, dict) else {}
                error = {"message": str(failure.get("message", "model error")),
                         "code": str(failure.get("code", "UNKNOWN"))}
                log.append("step/end", {"turn": turn, "step": step})
                log.append("turn/end", {"turn": turn, "reason": {"kind": "error", "error": error}})
                return final_text
            content = _blocks(chunks)
            usage = next((c["usage"] for c in chunks if c.get("type") == "usage"), None)
            data: dict[str, Any] = {"turn": turn, "step": step, "message": {
                "id": self.ids.next(), "role": "assistant", "content": content,
                "source": {"kind": "model", "provider": self.provider, "model": self.model_name}}}
            if usage is not None:
                data["usage"] = usage
            log.append("assistant/message", data, surface=True, sources=seqs)
            text = "".join(b.get("text", "") for b in content if b.get("type") == "text")
            if text:
                final_text = text
            calls = [b for b in content if b.get("type") == "tool-call"]
            for block in calls:
                self._call(turn, step, block)
            log.append("step/end", {"turn": turn, "step": step})
            if not calls:
                kind = "max-tokens" if finish.get("kind") == "max-tokens" else "completed"
                log.append("turn/end", {"turn": turn, "reason": {"kind": kind}})
                return final_text
        log.append("turn/end", {"turn": turn, "reason": {"kind": "error", "error": {
            "message": f"the turn exceeded {MAX_STEPS} steps", "code": "UNKNOWN"}}})
        return final_text

    def _call(self, turn: int, step: int, block: dict[str, Any]) -> None:
        log = self.log
        call_id = str(block.get("id"))
        name = str(block.get("name"))
        arguments = block.get("arguments") if isinstance(block.get("arguments"), str) else ""
        call = log.append("tool/call", {"turn": turn, "step": step, "callId": call_id, "name": name,
                                        "arguments": arguments})
        tool = self._tool(name)
        if tool is None:
            outcome = ToolOutcome(f"Error: unknown tool {name}", True)
        else:
            ctx = ToolContext(_SessionAppender(log), self._spawn)
            outcome = tool.run(str(arguments), ctx)
        result = {"type": "tool-result", "toolCallId": call_id,
                  "content": [{"type": "text", "text": outcome.text}], "isError": outcome.is_error}
        data: dict[str, Any] = {"turn": turn, "step": step, "message": {
            "id": self.ids.next(), "role": "user", "content": [result], "source": {"kind": "tool", "callId": call_id}}}
        if tool is None:
            data["error"] = {"name": "UnknownToolError", "code": "UNKNOWN_TOOL"}
        log.append("tool/result", data, surface=True, sources=[call["seq"]])

    def _spawn(self, prompt: str, label: str | None) -> ToolOutcome:
        if self.spawn_child is None:
            return ToolOutcome("Error: subagents are not available in this session", True)
        return self.spawn_child(self, prompt, label)


def _finish(chunks: list[Chunk]) -> dict[str, Any]:
    for chunk in reversed(chunks):
        if chunk.get("type") == "finish" and isinstance(chunk.get("reason"), dict):
            return dict(chunk["reason"])
    return {"kind": "stop"}


def _blocks(chunks: list[Chunk]) -> list[dict[str, Any]]:
    """The assembled content blocks of a call, in block order."""
    ends = sorted((c for c in chunks if c.get("type") == "block-end" and isinstance(c.get("block"), dict)),
                  key=lambda c: c.get("index", 0))
    return [dict(c["block"]) for c in ends]
