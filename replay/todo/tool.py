"""The ``todo_write`` tool as a Python model, faithful to the harness's design.

The model-facing schema is data; its description is a fixed head, ONE sentence that
depends on the deployment policy (``allowParallelInProgress``), and a fixed tail.
``execute`` validates, canonicalizes (trims) and appends one ``todo/write`` event to the
owning session, or appends nothing and returns an error result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from replay.jsjson import dumps, parse
from replay.todo.model import STATUSES, js_trim

TOOL_NAME = "todo_write"


@dataclass(frozen=True, slots=True)
class Config:
    """A deployment's ``todo_write`` configuration. There is deliberately no default:
    whether parallel ``in_progress`` items are allowed is a policy someone chose."""

    allow_parallel_in_progress: bool


_HEAD = (
    "Record and update a structured task list for the current work. Send the ENTIRE list every call — "
    "it REPLACES the previous list (there are no partial updates, no per-item edits). Use it to plan "
    "multi-step work and show progress: add one todo per concrete step before you start. "
)
_PARALLEL = (
    "Mark every todo being actively worked on `in_progress` — several at once when work genuinely runs "
    "in parallel (e.g. concurrent subagents or background commands), one for sequential work; while "
    "work remains, at least one task should be `in_progress`."
)
_SINGLE = (
    "Keep AT MOST ONE todo `in_progress` at a time; while work remains, exactly one active task should "
    "be `in_progress`."
)
_TAIL = (
    " Mark a todo `completed` the moment it is done (do not batch completions), and allow no "
    "`in_progress` item only once all work is complete. Skip the list for trivial single-step tasks. "
    "Statuses: `pending` (not started), `in_progress` (being worked on now), `completed` (finished)."
)


def policy_sentence(config: Config) -> str:
    return _PARALLEL if config.allow_parallel_in_progress else _SINGLE


def description(config: Config) -> str:
    return _HEAD + policy_sentence(config) + _TAIL


def policy_of_description(text: str) -> bool | None:
    """The ``allowParallelInProgress`` a recorded description was written under (the
    one policy sentence it holds), or ``None`` when it holds neither sentence."""
    parallel, single = _PARALLEL in text, _SINGLE in text
    return parallel if parallel != single else None


def retarget_description(text: str, config: Config) -> str:
    """A recorded description with its policy sentence swapped for ``config``'s; the
    rest of the text is kept as recorded."""
    current = policy_of_description(text)
    if current is None or current == config.allow_parallel_in_progress:
        return text
    return text.replace(policy_sentence(Config(current)), policy_sentence(config))


def parameters() -> dict[str, Any]:
    """The JSON Schema of the arguments (a fresh object each call)."""
    return {
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "description": "The COMPLETE task list, replacing any previous list.",
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "content": {"type": "string", "description": "What the task is — a short imperative line."},
                        "status": {
                            "type": "string",
                            "description": "pending (not started) | in_progress (now) | completed (done).",
                            "enum": list(STATUSES),
                        },
                    },
                    "required": ["content", "status"],
                },
            }
        },
        "required": ["todos"],
    }


def tool_schema(config: Config) -> dict[str, Any]:
    """The entry the model is offered: ``{name, description, parameters}``."""
    return {"name": TOOL_NAME, "description": description(config), "parameters": parameters()}


class TodoSession(Protocol):
    """The owning agent session: where the tool appends its ``todo/write`` event."""

    def append(self, type: str, data: dict[str, Any]) -> object: ...


@dataclass(frozen=True, slots=True)
class TodoReply:
    """What a call returns to the model. ``todos`` is the canonical list written, or
    ``None`` when the call was rejected (and nothing was appended)."""

    text: str
    is_error: bool
    todos: list[dict[str, str]] | None = None


class ArgumentError(ValueError):
    """The arguments do not match the schema (the tool registry's check)."""


def decode_arguments(raw: str) -> Any:
    """The model's raw argument string as the tool registry reads it before executing:
    empty (or blank) means ``{}``; text that is not JSON raises ``ArgumentError`` (the
    call fails). Compare ``replay.project.tools.display_arguments``, which never
    raises: a UI shows non-JSON arguments as they are."""
    if raw.strip() == "":
        return {}
    ok, value = parse(raw)
    if not ok:
        raise ArgumentError("arguments are not valid JSON")
    return value


def check_arguments(args: Any) -> None:
    """Schema validation of the registry, with its own wording."""
    if not isinstance(args, dict):
        raise ArgumentError("arguments must be an object")
    for key in args:
        if key != "todos":
            raise ArgumentError(f"{key} is not a declared property")
    if "todos" not in args:
        raise ArgumentError("todos is required")
    todos = args["todos"]
    if not isinstance(todos, list):
        raise ArgumentError("todos must be an array")
    for i, item in enumerate(todos):
        where = f"todos[{i}]"
        if not isinstance(item, dict):
            raise ArgumentError(f"{where} must be an object")
        for key in item:
            if key not in ("content", "status"):
                raise ArgumentError(f"{where}.{key} is not a declared property")
        for key in ("content", "status"):
            if key not in item:
                raise ArgumentError(f"{where}.{key} is required")
        if not isinstance(item["content"], str):
            raise ArgumentError(f"{where}.content must be a string")
        if item["status"] not in STATUSES:
            raise ArgumentError(f"{where}.status must be one of {', '.join(STATUSES)}")


class TodoWriteTool:
    """``todo_write`` under one deployment configuration."""

    name = TOOL_NAME

    def __init__(self, config: Config) -> None:
        self.config = config

    def schema(self) -> dict[str, Any]:
        return tool_schema(self.config)

    def execute(self, args: Any, agent: TodoSession | None) -> TodoReply:
        """Validate, canonicalize and record; a rejected call appends nothing."""
        try:
            check_arguments(args)
            todos = self._canonical(args["todos"])
            if agent is None:
                raise _Rejected("todo_write requires an owning agent session")
        except (ArgumentError, _Rejected) as exc:
            return TodoReply(f"Error: {exc}", True)
        agent.append("todo/write", {"todos": todos})
        counts = {s: sum(1 for t in todos if t["status"] == s) for s in STATUSES}
        return TodoReply(
            f"Updated todo list: {counts['pending']} pending, {counts['in_progress']} in progress, "
            f"{counts['completed']} completed.",
            False,
            todos,
        )

    def _canonical(self, items: list[dict[str, str]]) -> list[dict[str, str]]:
        todos: list[dict[str, str]] = []
        seen: set[str] = set()
        for item in items:
            content = js_trim(item["content"])
            if content == "":
                raise _Rejected("invalid todo: `content` must be a non-empty string")
            if content in seen:
                raise _Rejected(f"invalid todos: duplicate content {dumps(content)}")
            seen.add(content)
            todos.append({"content": content, "status": item["status"]})
        active = sum(1 for t in todos if t["status"] == "in_progress")
        if active > 1 and not self.config.allow_parallel_in_progress:
            raise _Rejected(f"invalid todos: at most one task may be in_progress (got {active})")
        return todos


class _Rejected(Exception):
    """A call the tool itself refuses (its error text is the message)."""
