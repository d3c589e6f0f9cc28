"""Tools of the keyless loop.

``todo_write`` and ``subagent`` run for real. Every other tool a recorded session
called (``bash``, ``read``, ``edit``, ``web_fetch``, …) is a ``RecordedTool``: it
answers each call with the result the recording holds for that call id — content,
error flag, ``meta``, error, and the time the call took.

A tool is a small object with a ``name``, the ``schema`` the model is offered,
``offered`` (how it presents itself given the schema a recording offered) and
``run``; the loop hands it a ``ToolContext`` (the owning session, the call, a way to
start a child session). Adding a tool means adding one class and listing it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from replay.todo.tool import TOOL_NAME, ArgumentError, Config, TodoWriteTool, decode_arguments, retarget_description


@dataclass(frozen=True)
class ToolReply:
    """What a call returns. ``content`` holds the result's content blocks when they
    are more than ``text`` (a recorded result); ``extra`` the other fields of the
    ``tool/result`` payload (``meta``, ``error``), in order; ``duration_ms`` the time
    the call took."""

    text: str
    is_error: bool = False
    content: list[Any] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    duration_ms: int = 0

    @property
    def blocks(self) -> list[Any]:
        return self.content if self.content is not None else [{"type": "text", "text": self.text}]


class Appender(Protocol):
    def append(self, type: str, data: dict[str, Any]) -> object: ...


class ToolError(Exception):
    """A call the keyless run cannot answer at all (the run fails, naming the call)."""


@dataclass
class ToolContext:
    """What a running tool may touch."""

    session: Appender
    """The owning session: a tool appends its own log events here."""
    spawn: Callable[[str, str | None], ToolReply]
    """Start a child session with a prompt (and a label); returns its report."""
    call_id: str = ""
    arguments: str = ""
    depth: int = 0
    """The owning session's delegation depth."""


class Tool(Protocol):
    name: str

    def schema(self) -> dict[str, Any]: ...

    def offered(self, recorded: dict[str, Any]) -> dict[str, Any]:
        """The entry to offer where a recording offered ``recorded``."""
        ...

    def run(self, arguments: str, ctx: ToolContext) -> ToolReply: ...


class TodoTool:
    """``todo_write`` under a deployment policy (the tool of ``replay.todo.tool``)."""

    name = TOOL_NAME

    def __init__(self, config: Config) -> None:
        self.tool = TodoWriteTool(config)

    def schema(self) -> dict[str, Any]:
        return self.tool.schema()

    def offered(self, recorded: dict[str, Any]) -> dict[str, Any]:
        """The recorded entry, its policy sentence following this run's policy."""
        text = recorded.get("description")
        if not isinstance(text, str):
            return recorded
        return {**recorded, "description": retarget_description(text, self.tool.config)}

    def run(self, arguments: str, ctx: ToolContext) -> ToolReply:
        try:
            args = decode_arguments(arguments)
        except ArgumentError as exc:
            return ToolReply(f"Error: {exc}", True)
        result = self.tool.execute(args, ctx.session)
        return ToolReply(result.text, result.is_error)


SUBAGENT_DESCRIPTION = (
    "Delegate a self-contained task to a subagent. It runs in its own session with its own tools and "
    "returns its final answer."
)


@dataclass
class SubagentTool:
    """``subagent``: runs one turn of a child session and returns the child's answer.
    With ``max_depth``, a child deeper than that is refused as the harness refuses it."""

    max_depth: int | None = None
    name: str = field(default="subagent", init=False)

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

    def offered(self, recorded: dict[str, Any]) -> dict[str, Any]:
        return recorded

    def run(self, arguments: str, ctx: ToolContext) -> ToolReply:
        try:
            args = decode_arguments(arguments)
        except ArgumentError as exc:
            return ToolReply(f"Error: {exc}", True)
        if not isinstance(args, dict) or not isinstance(args.get("prompt"), str) or not args["prompt"].strip():
            return ToolReply("Error: prompt must be a non-empty string", True)
        depth = ctx.depth + 1
        if self.max_depth is not None and depth > self.max_depth:
            return ToolReply(f"Error: subagent depth {depth} exceeds maxDepth {self.max_depth}", True)
        label = args.get("label")
        return ctx.spawn(args["prompt"], label if isinstance(label, str) else None)


@dataclass(frozen=True)
class RecordedCall:
    """A call as the recording made it, and the result it got."""

    name: str
    arguments: str
    outcome: ToolReply


@dataclass
class RecordedTool:
    """A tool the loop does not model: each call gets the result the recording holds
    for its call id, provided the recording made the same call (name and arguments)."""

    name: str
    calls: Mapping[str, RecordedCall]

    def schema(self) -> dict[str, Any]:
        return {"name": self.name, "description": "Answered from the recording.", "parameters": {"type": "object"}}

    def offered(self, recorded: dict[str, Any]) -> dict[str, Any]:
        return recorded

    def run(self, arguments: str, ctx: ToolContext) -> ToolReply:
        recorded = self.calls.get(ctx.call_id)
        if recorded is None:
            raise ToolError("the recording has no result for this call (the scenario asks something the log never "
                            "did: re-record, or revert the edit)")
        if recorded.name != self.name or recorded.arguments != arguments:
            raise ToolError(f"the recording made this call with other arguments ({recorded.name} "
                            f"{recorded.arguments[:80]!r}); its result cannot answer this one")
        return recorded.outcome
