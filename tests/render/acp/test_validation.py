"""Presenters only see arguments that validate against their tool's schema, with the
harness's semantics (open root, no coercion, no defaults, strict enums); any other call
is the generic card with its raw result."""

from __future__ import annotations

from typing import Any

import pytest

from replay.render.acp import GenericCall, GenericResult, Presenter, shipped_presenters
from replay.render.acp.validation import ArgumentSchema
from tests.render.acp.util import call, ev, result, updates

BASH = shipped_presenters().get("bash")


def _generic(call_id: str, name: str, raw: Any) -> dict[str, Any]:
    return {"sessionUpdate": "tool_call", "toolCallId": call_id, "title": name, "kind": "other",
            "status": "in_progress", "rawInput": raw}


@pytest.mark.parametrize(("args", "valid"), [
    ({"command": "ls", "description": "List"}, True),
    ({"command": "ls", "description": "List", "colour": "blue"}, True),  # the root is open
    ({"command": "ls", "description": ""}, True),
    ({"command": "ls"}, False),  # description is required
    ({"description": "List"}, False),
    ({"command": 42, "description": "List"}, False),
    ({"command": "ls", "description": "List", "run_in_background": "true"}, False),  # no coercion
    ({"command": "ls", "description": "List", "run_in_background": 1}, False),
    ({"command": "ls", "description": "List", "timeoutMs": "5000"}, False),
    ({"command": "ls", "description": "List", "timeoutMs": True}, False),  # a boolean is no number
    ({"command": "ls", "description": "List", "timeoutMs": 2.5}, True),
    ({"command": "ls", "description": "List", "sandbox_permissions": "full"}, False),  # enum, ===
    ({"command": "ls", "description": "List", "sandbox_permissions": "Workspace-Write"}, False),
    ({"command": "ls", "description": None}, False),  # present null is a value of the wrong type
    ("ls", False),  # non-JSON arguments stay the raw string
    ([], False),
])
def test_bash_schema(args: Any, valid: bool) -> None:
    assert BASH is not None and BASH.accepts(args) is valid


def test_integers_and_nested_objects() -> None:
    lsp = shipped_presenters().get("lsp")
    assert lsp is not None
    base = {"operation": "hover", "file_path": "a.ts", "line": 1, "character": 2}
    assert lsp.accepts(base) and lsp.accepts({**base, "line": 2.0})
    workflow = shipped_presenters().get("workflow")
    assert workflow is not None
    assert workflow.accepts({"script": "x", "meta": {"name": "n", "description": "d", "extra": 1}})
    assert not workflow.accepts({"script": "x", "meta": {"name": "n"}})  # meta.description is required
    assert not workflow.accepts({"script": "x", "meta": "n"})
    todo = shipped_presenters().get("todo_write")
    assert todo is not None
    assert todo.accepts({"todos": [{"content": "a", "status": "pending", "priority": "high"}]})
    assert not todo.accepts({"todos": [{"content": "a", "status": "done"}]})


def test_an_invalid_call_and_its_result_are_generic() -> None:
    events = [call("b", "bash", {"command": "echo x"}), result("b", "x\n[exit code: 0]")]
    assert updates(events, terminal_output=True, cwd="/w") == [
        _generic("b", "bash", {"command": "echo x"}),
        {"sessionUpdate": "tool_call_update", "toolCallId": "b", "status": "completed",
         "content": [{"type": "content", "content": {"type": "text", "text": "x\n[exit code: 0]"}}]},
    ]


def test_the_schema_the_log_offered_wins() -> None:
    strict = {"type": "object", "properties": {"todos": {"type": "array", "items": {
        "type": "object", "additionalProperties": False,
        "properties": {"content": {"type": "string"}, "status": {"type": "string"}}}}}, "required": ["todos"]}
    args = {"todos": [{"content": "a", "status": "pending", "priority": "high"}]}
    header = ev("request/header", {"header": {"tools": [{"name": "todo_write", "parameters": strict},
                                                        {"name": "broken", "parameters": {"type": 5}},
                                                        "not a tool"]}, "reason": "initial"})
    tokenized = ev("request/header", {"header": {"tools": "{{tools}}"}, "reason": "initial"})
    assert updates([tokenized, call("t", "todo_write", args)])[0]["title"] == "Update todo list"
    assert updates([header, call("t", "todo_write", args)]) == [_generic("t", "todo_write", args)]


def test_a_user_presenter_without_a_schema_sees_whatever_the_log_holds() -> None:
    seen: list[Any] = []

    def present(args: Any) -> GenericCall:
        seen.append(args)
        return GenericCall(title="mine", kind="read")

    registry = shipped_presenters().with_presenter("mine", Presenter(call=present))
    checked = registry.with_presenter("checked", Presenter(
        call=present, result=lambda a, o: GenericResult(title="done"),
        parameters={"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}))
    got = updates([call("a", "mine", "not json"), call("b", "checked", {"n": "1"}), result("b", "ok"),
                   call("c", "checked", {"n": 1}), result("c", "ok")], presenters=checked)
    assert seen == ["not json", {"n": 1}]
    assert [u.get("title") for u in got] == ["mine", "checked", None, "mine", "done"]
    assert registry.with_parameters({"mine": {"type": "object"}}).get("mine") == Presenter(
        call=present, parameters={"type": "object"})


def test_an_unusable_schema_is_refused_when_registered() -> None:
    with pytest.raises(ValueError, match="not a usable JSON Schema"):
        Presenter(call=lambda a: None, parameters={"type": "teleport"})
    assert ArgumentSchema({"type": "object"}).accepts({"x": [[[[]]]]})


def test_each_offered_schema_is_compiled_once_per_log(monkeypatch: pytest.MonkeyPatch) -> None:
    """A log offers its tools with every request/header: the renderer compiles each
    distinct schema once, not once per header (and a schema that differs by a value is
    compiled on its own)."""
    import replay.render.acp.validation as validation
    from tests.helpers import records

    header = next(r for r in records("sessions-2026-08-20/examples_headless-agent_tests_snapshots/pty-tools/"
                                     "session.jsonl") if r["type"] == "request/header")
    tools = [t for t in header["data"]["header"]["tools"] if isinstance(t.get("parameters"), dict)]
    assert len(tools) > 3
    compiled: list[Any] = []

    real = validation.Draft202012Validator

    def counting(schema: Any) -> Any:
        compiled.append(schema)
        return real(schema)

    counting.check_schema = real.check_schema  # type: ignore[attr-defined]
    monkeypatch.setattr(validation, "Draft202012Validator", counting)
    other = {**tools[0], "parameters": {**tools[0]["parameters"], "description": "another"}}
    headers = [ev("request/header", header["data"], seq) for seq in range(5)]
    headers.append(ev("request/header", {**header["data"], "header": {**header["data"]["header"],
                                                                     "tools": [*tools, other]}}, 5))
    counts = []
    for events in (headers[:1], headers):
        validation._schema_of.cache_clear()
        compiled.clear()
        updates(events)
        assert len({repr(schema) for schema in compiled}) == len(compiled)  # none compiled twice
        counts.append(len(compiled))
    assert counts[1] == counts[0] + 1 >= len({repr(t["parameters"]) for t in tools}) + 1
