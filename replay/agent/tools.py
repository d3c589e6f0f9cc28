"""Tools the keyless loop runs for real: ``todo_write`` and ``subagent``.

A tool is a small object with a ``name``, the ``schema`` the model is offered and
``run``; the loop hands it a ``ToolContext`` (the owning session, and a way to start
a child session). Adding a tool means adding one class and listing it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from replay.todo.tool import ArgumentError, Config, TodoWriteTool, decode_arguments


@dataclass(frozen=True)
class ToolOutcome:
    text: str
    is_error: bool = False


class Appender(Protocol):
    def append(self, type: str, data: dict[str, Any]) -> object: ...


@dataclass
class ToolContext:
    """What a running tool may touch."""

    session: Appender
    """The owning session: a tool appends its own log events here."""
    spawn: Callable[[str, str | None], ToolOutcome]
    """Start a child session with a prompt (and a label); returns its report."""


class Tool(Protocol):
    name: str

    def schema(self) -> dict[str, Any]: ...

    def run(self, arguments: str, ctx: ToolContext) -> ToolOutcome: ...


class TodoTool:
    """``todo_write`` under a deployment policy (the tool of ``replay.todo.tool``)."""

    name = "todo_write"

    def __init__(self, config: Config) -> None:
        self.tool = TodoWriteTool(config)

    def schema(self) -> dict[str, Any]:
        return self.tool.schema()

    def run(self, arguments: str, ctx: ToolContext) -> ToolOutcome:
        try:
            args = decode_arguments(arguments)
        except ArgumentError as exc:
            return ToolOutcome(f"Error: {exc}", True)
        result = self.tool.execute(args, ctx.session)
        return ToolOutcome(result.text, result.is_error)


SUBAGENT_DESCRIPTION = (
    "Delegate a self-contained task to a subagent. It runs in its own session with its own tools and "
    "returns its final answer."
)


class SubagentTool:
    """``subagent``: runs one turn of a child session and returns the child's answer."""

    name = "subagent"

    def schema(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": SUBAGENT_DESCRIPTION,
            "parameters": {
                "type": "object",
                "properties": {
                    "prompt": {"type": "string", "description": "The task for the subagent."},
                    "label": {"type": "string", "description": "A short name for the subagent."},
                },
                "required": ["prompt"],
            },
        }

    def run(self, arguments: str, ctx: ToolContext) -> ToolOutcome:
        try:
            args = decode_arguments(arguments)
        except ArgumentError as exc:
            return ToolOutcome(f"Error: {exc}", True)
        if not isinstance(args, dict) or not isinstance(args.get("prompt"), str) or not args["prompt"].strip():
            return ToolOutcome("Error: prompt must be a non-empty string", True)
        label = args.get("label")
        return ctx.spawn(args["prompt"], label if isinstance(label, str) else None)
