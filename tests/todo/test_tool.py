"""The todo_write tool model: schema, descriptions, and every execute outcome."""

from __future__ import annotations

import json
from typing import Any

import pytest

from replay.todo.tool import Config, TodoWriteTool, description, policy_sentence, tool_schema
from tests.helpers import corpus_file

PARALLEL = Config(allow_parallel_in_progress=True)
SINGLE = Config(allow_parallel_in_progress=False)


def _golden_entry(relative: str) -> dict[str, Any]:
    doc = json.loads(corpus_file(relative).read_text())
    (entry,) = [t for t in doc["initial"] if t["name"] == "todo_write"]
    return entry  # type: ignore[no-any-return]


def _as_golden(value: Any) -> str:
    """Serialized as the harness writes tool-schema goldens (JSON.stringify(v, null, 2))."""
    return json.dumps(value, indent=2, ensure_ascii=False)


def test_parallel_schema_entry_equals_the_golden_byte_for_byte() -> None:
    golden = _golden_entry("sessions-2026-08-20/examples_acp-agent_tests_snapshots/advanced-toolchain/"
                           "tool-schemas.expected.json")
    assert _as_golden(tool_schema(PARALLEL)) == _as_golden(golden)


def test_single_active_description_equals_the_older_golden() -> None:
    golden = _golden_entry("acp-2026-07-23/advanced-toolchain/tool-schemas.expected.json")
    assert description(SINGLE) == golden["description"]


def test_the_descriptions_differ_only_in_the_policy_sentence() -> None:
    assert description(PARALLEL).replace(policy_sentence(PARALLEL), policy_sentence(SINGLE)) == description(SINGLE)
    assert policy_sentence(PARALLEL) != policy_sentence(SINGLE)
    assert tool_schema(PARALLEL)["parameters"] == tool_schema(SINGLE)["parameters"]
    assert tool_schema(SINGLE)["parameters"]["properties"]["todos"]["items"]["additionalProperties"] is False


def test_config_has_no_default() -> None:
    with pytest.raises(TypeError):
        Config()  # type: ignore[call-arg]


class Session:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def append(self, type: str, data: dict[str, Any]) -> None:
        self.events.append((type, data))


def _call(config: Config, todos: Any, with_session: bool = True) -> tuple[str, bool, list[Any]]:
    session = Session()
    result = TodoWriteTool(config).execute({"todos": todos}, session if with_session else None)
    return result.text, result.is_error, session.events


def test_success_appends_the_canonical_list() -> None:
    text, error, events = _call(PARALLEL, [
        {"content": "  read the code ", "status": "in_progress"},
        {"content": "\ufeffwatch the build\u3000", "status": "in_progress"},
        {"content": "write the fix", "status": "pending"},
        {"content": "ship", "status": "completed"},
    ])
    assert (text, error) == ("Updated todo list: 1 pending, 2 in progress, 1 completed.", False)
    assert events == [("todo/write", {"todos": [
        {"content": "read the code", "status": "in_progress"},
        {"content": "watch the build", "status": "in_progress"},
        {"content": "write the fix", "status": "pending"},
        {"content": "ship", "status": "completed"},
    ]})]


def test_zero_todos_is_a_valid_call() -> None:
    assert _call(SINGLE, []) == ("Updated todo list: 0 pending, 0 in progress, 0 completed.", False,
                                 [("todo/write", {"todos": []})])


@pytest.mark.parametrize("config, todos, text", [
    (PARALLEL, [{"content": "   ", "status": "pending"}],
     "Error: invalid todo: `content` must be a non-empty string"),
    (PARALLEL, [{"content": "dup", "status": "pending"}, {"content": " dup ", "status": "completed"}],
     'Error: invalid todos: duplicate content "dup"'),
    (PARALLEL, [{"content": "café", "status": "pending"}, {"content": "café", "status": "pending"}],
     'Error: invalid todos: duplicate content "café"'),
    (SINGLE, [{"content": "a", "status": "in_progress"}, {"content": "b", "status": "in_progress"}],
     "Error: invalid todos: at most one task may be in_progress (got 2)"),
    (SINGLE, [{"content": "a", "status": "done"}],
     "Error: todos[0].status must be one of pending, in_progress, completed"),
    (SINGLE, "a, b", "Error: todos must be an array"),
    (SINGLE, [{"content": "a", "status": "pending", "priority": "high"}],
     "Error: todos[0].priority is not a declared property"),
])
def test_rejected_calls_append_nothing(config: Config, todos: Any, text: str) -> None:
    assert _call(config, todos) == (text, True, [])


def test_parallel_in_progress_is_accepted_under_the_parallel_policy() -> None:
    text, error, events = _call(PARALLEL, [{"content": "a", "status": "in_progress"},
                                           {"content": "b", "status": "in_progress"}])
    assert (text, error) == ("Updated todo list: 0 pending, 2 in progress, 0 completed.", False)
    assert len(events) == 1


def test_a_call_without_an_owning_session_is_rejected() -> None:
    assert _call(PARALLEL, [{"content": "a", "status": "pending"}], with_session=False) == (
        "Error: todo_write requires an owning agent session", True, [])
