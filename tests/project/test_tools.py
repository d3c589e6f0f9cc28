"""The tool-call pairing fold and the transcript fold."""

from __future__ import annotations

from typing import Any

import pytest

from replay.jsjson import parse as parse_arguments
from replay.log.event import Event
from replay.project.tools import ToolResult, tool_calls
from replay.project.transcript import Message, ToolEntry, TurnEnd, TurnStart, transcript
from tests.helpers import PARALLEL_CALLS, SURFACE_REPLACE, TODO_WRITE, index_of, records
from tests.render.web.builders import to_events

TODO_ARGS = ('{"todos": [{"content": "read the code", "status": "in_progress"}, {"content": "watch the background '
             'build", "status": "in_progress"}, {"content": "write the fix", "status": "pending"}]}')


def test_the_todo_write_call_and_its_result() -> None:
    [call] = tool_calls(to_events(records(TODO_WRITE)))
    assert (call.seq, call.call_id, call.name, call.args_raw, call.turn, call.step) == (
        97, "call_00_UHvM5RrwIkjNJ9xh3S735164", "todo_write", TODO_ARGS, 1, 1)
    ok, parsed = call.parsed
    assert ok and [t["content"] for t in parsed["todos"]] == ["read the code", "watch the background build",
                                                              "write the fix"]
    assert call.result is not None
    assert (call.result.seq, call.result.call_id, call.result.is_error, call.result.error) == (
        99, call.call_id, False, None)
    assert call.result.text == call.result.output == "Updated todo list: 1 pending, 2 in progress, 0 completed."


def test_parallel_calls_are_paired_by_id() -> None:
    calls = tool_calls(to_events(records(PARALLEL_CALLS)))
    assert len(calls) == 2
    for call in calls:
        assert call.result is not None and call.result.call_id == call.call_id


def test_a_call_without_a_result_is_running() -> None:
    recs = records(TODO_WRITE)
    at = index_of(recs, "tool/result")
    recs[at] = {"type": "plan/mode", "seq": recs[at]["seq"], "time": recs[at]["time"], "data": {"active": False}}
    [call] = tool_calls(to_events(recs))
    assert call.result is None


def test_replacement_results_are_not_executions() -> None:
    recs = records(TODO_WRITE)
    at = index_of(recs, "tool/result")
    recs[at]["surfaceOp"] = {"op": "replace", "start": 99, "end": 99}
    [call] = tool_calls(to_events(recs))
    assert call.result is None


def test_surface_replace_corpus_log_pairs_every_call() -> None:
    calls = tool_calls(to_events(records(SURFACE_REPLACE)))
    assert calls and all(c.result is not None for c in calls)


@pytest.mark.parametrize(("raw", "ok", "value"), [
    ('{"a":1}', True, {"a": 1}),
    ("[1, 2]", True, [1, 2]),
    ("null", True, None),
    ("NaN", False, None),
    ('{"a": Infinity}', False, None),
    ("-Infinity", False, None),
    ("", False, None),
    ('{"a":', False, None),
    ("\ufeff{}", False, None),
    ("[" * 100_000 + "]" * 100_000, False, None),
])
def test_parse_arguments_is_strict(raw: str, ok: bool, value: Any) -> None:
    assert parse_arguments(raw) == (ok, value)


def _result(blocks: list[Any], error: dict[str, Any] | None = None) -> ToolResult:
    return ToolResult(seq=1, call_id="c", blocks=tuple(blocks), is_error=error is not None, error=error)


def test_result_text_and_output() -> None:
    result = _result([{"type": "text", "text": "a"}, {"type": "image", "data": "AA"}, {"type": "text", "text": "b"}])
    assert result.text == "ab"
    assert result.output == 'a\n{\n  "type": "image",\n  "data": "AA"\n}\nb'
    assert _result([]).output is None
    assert _result([], {"name": "AbortError", "code": "ABORTED"}).output == "AbortError: ABORTED"
    assert _result([{"type": "text", "text": ""}], {"name": "E", "code": "interrupted"}).error_code == "interrupted"


def test_transcript_of_the_corpus_log() -> None:
    events: list[Event] = to_events(records(TODO_WRITE))
    entries = transcript(events)
    kinds = [type(e).__name__ for e in entries]
    assert kinds == ["TurnStart", "Message", "Message", "Message", "ToolEntry", "Message", "TurnEnd"]
    assert entries[0] == TurnStart(1, 1)
    user, context, first, tool, second = entries[1:6]
    assert isinstance(user, Message) and (user.role, user.source_kind) == ("user", "user")
    assert isinstance(context, Message) and context.source_kind == "plugin"
    assert isinstance(first, Message) and [b.kind for b in first.blocks] == ["reasoning"]
    assert isinstance(tool, ToolEntry) and tool.call.name == "todo_write"
    assert isinstance(second, Message) and [(b.kind, b.text) for b in second.blocks] == [
        ("reasoning", "Done."), ("text", "DONE")]
    assert entries[-1] == TurnEnd(114, 1, "completed")
