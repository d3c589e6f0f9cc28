"""Logs for the renderer tests, built by mutating the real corpus log of one
successful parallel ``todo_write`` call (``todo-write/session.jsonl``)."""

from __future__ import annotations

import json
from typing import Any

from replay.log.event import Event
from replay.log.reader import iter_events, read_log
from tests.helpers import TODO_WRITE, bytes_source, dump, filler, index_of, records

FIXTURE_TODOS = [
    {"content": "梳理需求", "status": "completed"},
    {"content": "实现 fixture 样本", "status": "in_progress"},
    {"content": "跑后台构建", "status": "in_progress"},
    {"content": "浏览器验收", "status": "pending"},
]
FIXTURE_RESULT = "Updated todo list: 1 pending, 2 in progress, 1 completed."


def compact(value: Any) -> str:
    """``JSON.stringify(value)``: compact, non-ASCII kept."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def result_text(todos: list[dict[str, Any]]) -> str:
    counts = {s: sum(1 for t in todos if t["status"] == s) for s in ("pending", "in_progress", "completed")}
    return (f"Updated todo list: {counts['pending']} pending, {counts['in_progress']} in progress, "
            f"{counts['completed']} completed.")


def _split(text: str, n: int) -> list[str]:
    """``n`` streaming members that concatenate to ``text``."""
    if len(text) < n:
        return [*([""] * (n - len(text))), *text]
    return [*text[: n - 1], text[n - 1:]]


def todo_records(
    args_raw: str,
    *,
    todos: list[Any] | None,
    result: str | None,
    is_error: bool = False,
    error: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The corpus log with its only ``todo_write`` call carrying ``args_raw`` (in the
    ``tool/call``, the assistant message, the stream), its ``todo/write`` carrying
    ``todos`` (``None``: a rejected call, no ``todo/write``) and its result text
    ``result`` (``None``: no result yet, the call is still running)."""
    recs = records(TODO_WRITE)
    recs[index_of(recs, "tool/call")]["data"]["arguments"] = args_raw
    message = recs[index_of(recs, "assistant/message")]["data"]["message"]
    for block in message["content"]:
        if block["type"] == "tool-call":
            block["arguments"] = args_raw
    for rec in recs:
        if rec.get("type") == "assistant/chunk":
            block = rec["data"]["chunk"].get("block")
            if isinstance(block, dict) and block.get("type") == "tool-call":
                block["arguments"] = args_raw
        elif rec.get("type") == "tool-call-chunks":
            rec["data"]["args"] = _split(args_raw, len(rec["data"]["args"]))
    at = index_of(recs, "todo/write")
    if todos is None:
        recs[at] = filler(recs[at])
    else:
        recs[at]["data"]["todos"] = todos
    at = index_of(recs, "tool/result")
    if result is None:
        recs[at] = filler(recs[at])
        return recs
    res = recs[at]
    tool_block = res["data"]["message"]["content"][0]
    tool_block["content"] = [{"type": "text", "text": result}]
    tool_block["isError"] = is_error
    if error is not None:
        res["data"]["error"] = error
    return recs


def to_events(recs: list[dict[str, Any]]) -> list[Event]:
    return list(iter_events(read_log(bytes_source(dump(recs))).items()))


def todo_log(args_raw: str, **kwargs: Any) -> list[Event]:
    return to_events(todo_records(args_raw, **kwargs))


def plan_log(todos: list[dict[str, Any]]) -> list[Event]:
    """A successful call whose args and ``todo/write`` both hold ``todos``."""
    return todo_log(compact({"todos": todos}), todos=todos, result=result_text(todos))


def hostile_events(*, todo: str, user: str, output: str, reasoning: str, title: str, call_id: str) -> list[Event]:
    """A ``todo_write`` log with attacker-controlled text in every place a page shows:
    a todo's content, the user message, the reasoning, the tool output, the session
    title and the call id."""
    todos = [{"content": todo, "status": "in_progress"}, {"content": "b", "status": "in_progress"}]
    recs = todo_records(compact({"todos": todos}), todos=todos, result=output)
    recs[index_of(recs, "user/message")]["data"]["content"][0]["text"] = user
    recs[index_of(recs, "session/title")]["data"].update(title=title, source={"kind": "user"})  # a title shown
    recs[index_of(recs, "assistant/message")]["data"]["message"]["content"][0]["text"] = reasoning
    recs[index_of(recs, "tool/call")]["data"]["callId"] = call_id
    result = recs[index_of(recs, "tool/result")]["data"]["message"]
    result["source"]["callId"] = result["content"][0]["toolCallId"] = call_id
    return to_events(recs)
