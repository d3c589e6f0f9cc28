"""The harness's presenters beyond the recorded goldens, permission requests, the
2026-08 profile, steering on load and crash tails, on exact output."""

from __future__ import annotations

import json
from typing import Any

import pytest

from replay.log.reader import iter_events, read_log
from replay.log.repair import STARTED_TEXT
from replay.render.acp import dump_notification, render_acp
from replay.render.acp.profiles import AutomationSession, detect_profile
from replay.render.acp.stream import normalized_lines
from tests.helpers import bytes_source, dump, records
from tests.render.acp.util import call, ev, updates


def _call_views(*calls: tuple[str, dict[str, Any]]) -> list[tuple[Any, ...]]:
    got = updates([call(f"c{i}", name, args) for i, (name, args) in enumerate(calls)])
    return [(u["title"], u["kind"], u.get("rawInput", "-")) for u in got]


def test_goal_cards() -> None:
    ref = {"goal_id": "g1", "revision": 2}
    assert _call_views(
        ("get_goal", {}),
        ("create_goal", {"objective": "ship 1.0", "max_goal_rounds": 5}),
        ("update_goal", {**ref, "action": "edit", "objective": "ship 2.0"}),
        ("update_goal", {**ref, "action": "edit", "max_goal_rounds": 3}),
        ("update_goal", {**ref, "action": "resume", "max_goal_rounds": 0}),
        ("update_goal", {**ref, "action": "complete", "blocked_reason": ""}),
        ("update_goal", {**ref, "action": "blocked", "blocked_reason": "no access"}),
        ("update_goal", {**ref, "action": "finish"}),  # out of the enum: generic
    ) == [
        ("Read current goal", "read", "-"),
        ("Create goal", "other", "ship 1.0"),
        ("Edit goal", "other", "ship 2.0"),
        ("Edit goal", "other", 3),
        ("Resume goal", "other", "g1"),
        ("Complete goal", "other", "g1"),
        ("Mark goal", "other", "no access"),
        ("update_goal", "other", {**ref, "action": "finish"}),
    ]


def test_task_web_and_terminal_cards() -> None:
    assert _call_views(
        ("task_output", {"task_id": "bash-2", "wait": True}),
        ("task_list", {}),
        ("task_kill", {"task_id": "sub-1", "reason": "stale"}),
        ("web_fetch", {"url": "https://example.com/?q=1"}),
        ("web_search", {"query": "acp spec"}),
        ("terminal_open", {"type": "shell", "name": ""}),
        ("terminal_open", {"type": "shell", "name": "gdb"}),
        ("terminal_send", {"sessionId": "pty-1", "text": "make", "run_in_background": True}),
        ("terminal_close", {"sessionId": "pty-1"}),
    ) == [
        ("Read output from background task bash-2", "read", "bash-2"),
        ("List background tasks", "read", "-"),
        ("Kill background task sub-1", "execute", "sub-1"),
        ("https://example.com/?q=1", "fetch", "https://example.com/?q=1"),
        ("acp spec", "search", "acp spec"),
        ("Open terminal ", "execute", "-"),  # name ?? type: an empty name is still the name
        ("Open terminal gdb", "execute", "-"),
        ("Send to terminal pty-1 in background", "execute", "make"),
        ("Close terminal pty-1", "delete", "-"),
    ]


def _asked(call_id: str) -> Any:
    return ev("approval/asked", {"id": "a", "toolName": "bash", "callId": call_id, "reason": "escalate"})


def _frames(events: list[Any], mode: str = "live", profile: str = "2026-07") -> list[dict[str, Any]]:
    return list(render_acp(events, session_id="S", mode=mode, profile=profile))  # type: ignore[arg-type]


REQUEST = {"jsonrpc": "2.0", "id": 0, "method": "session/request_permission", "params": {
    "sessionId": "S", "toolCall": {"toolCallId": "c1"},
    "options": [{"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
                {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"}]}}


def test_permission_requests_follow_the_approval_policy() -> None:
    assert _frames([_asked("c1")]) == []  # no stated policy: never (the ask is settled without the client)
    ask = ev("approval/policy", {"policy": "ask"})
    assert _frames([ask, _asked("c1"), _asked("c2")]) == [
        REQUEST, {**REQUEST, "id": 1, "params": {**REQUEST["params"], "toolCall": {"toolCallId": "c2"}}}]
    assert _frames([ask, _asked("c1")], mode="load") == []  # a load sends no requests
    assert _frames([ask, ev("approval/policy", {"policy": "never"}), _asked("c1")]) == []


def _snapshot(text: str) -> Any:
    return ev("user/message", {"content": [{"type": "text", "text": "Current runtime context."}], "source": {
        "kind": "plugin", "plugin": "@deepseek-ai/dsh-system-prompt", "form": "snapshot",
        "sections": [{"name": "sandbox:policy", "text": "Current DSH file policy: workspace-write."},
                     {"name": "approval:policy", "text": text}]}, "role": "user", "id": "m"})


def test_the_runtime_context_states_the_policy_in_todays_logs() -> None:
    ask = _snapshot("Approval policy: ask. Operations that require approval may ask through the configured answerers.")
    off = _snapshot("Approval prompts are disabled in this session: actions that require approval are rejected.")
    assert _frames([ask, _asked("c1")], profile="2026-08") == [REQUEST]
    assert _frames([ask, off, _asked("c1")], profile="2026-08") == []


def test_the_2026_08_profile_streams_committed_blocks_only() -> None:
    message = ev("assistant/message", {"turn": 1, "step": 1, "message": {"role": "assistant", "content": [
        {"type": "reasoning", "text": "hmm"}, {"type": "text", "text": "Hello"},
        {"type": "tool-call", "id": "c", "name": "read", "arguments": "{}"},
        {"type": "image", "data": "iVBO", "mimeType": "image/png"}], "source": {"kind": "model"}, "id": "m"}})
    chunk = ev("assistant/chunk", {"turn": 1, "step": 1, "chunk": {"type": "text-delta", "index": 0, "text": "He"}})
    title = ev("session/title", {"title": "t", "messageSeqs": [1], "source": {"kind": "fallback"}})
    got = [f["params"]["update"] for f in _frames([chunk, title, message], profile="2026-08")]
    assert got == [{"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hello"}},
                   {"sessionUpdate": "agent_message_chunk",
                    "content": {"type": "image", "data": "iVBO", "mimeType": "image/png"}}]
    assert AutomationSession("S").translate(chunk) == []
    with pytest.raises(ValueError, match="no session/load"):
        _frames([message], mode="load", profile="2026-08")


def _events(relative: str, cut: int | None = None) -> list[Any]:
    recs = records(relative)
    return list(iter_events(read_log(bytes_source(dump(recs if cut is None else recs[:cut]))).items()))


def test_each_corpus_tells_its_generation() -> None:
    assert detect_profile(_events("acp-2026-07-23/fs-edit/session.jsonl")) == "2026-07"
    assert detect_profile(_events("oracle-2026-07-23/bash-valid/session.jsonl")) == "2026-07"
    assert detect_profile(_events("sessions-2026-08-20/examples_acp-agent_tests_snapshots/fs-edit/"
                                  "session.jsonl")) == "2026-08"
    assert detect_profile(_events("acp-2026-07-23/handshake/session.jsonl")) is None


def test_a_steering_message_is_no_user_chunk_on_load() -> None:
    relative = "acp-2026-07-23/hook-codex-stop-continue/session.jsonl"
    steering = [r for r in records(relative)[1:] if r["type"] == "steering/message"]
    assert steering  # the recorded hook continuation
    texts = [b["text"] for r in steering for b in r["data"]["content"]]
    load = [json.dumps(f) for f in render_acp(_events(relative), session_id="S", mode="load")]
    assert not any(t in line for t in texts for line in load if "user_message_chunk" in line)


def test_a_log_cut_inside_a_turn_renders_the_repair() -> None:
    relative = "oracle-2026-07-23/bash-valid/session.jsonl"
    recs = records(relative)
    cut = next(i for i, r in enumerate(recs) if r.get("type") == "tool/call") + 1
    header = recs[0]
    for mode in ("live", "load"):
        lines = list(normalized_lines(iter(_events(relative, cut)), session_id=header["id"],
                                      header_cwd=header["cwd"], mode=mode))  # type: ignore[arg-type]
        assert json.loads(lines[-1])["params"]["update"] == {
            "sessionUpdate": "tool_call_update", "toolCallId": "call_00_bashA1", "status": "failed",
            "content": [{"type": "content", "content": {"type": "text",
                                                         "text": f"```console\n{STARTED_TEXT}\n```"}}]}
    unrepaired = [dump_notification(f) for f in render_acp(_events(relative, cut), session_id="S", repair=False)]
    assert "failed" not in unrepaired[-1]


def test_a_record_whose_type_is_not_a_string_tells_no_generation() -> None:
    """A hostile log (a real one, its first event's type made a list) renders instead of
    raising: the record is passed over when the generation is looked for."""
    recs = records("sessions-2026-08-20/examples_acp-agent_tests_snapshots/text-turn/session.jsonl")
    recs[1]["type"] = ["agent/inbox/spliced"]
    events = list(iter_events(read_log(bytes_source(dump(recs))).items()))
    assert detect_profile(events[:1]) is None
    assert detect_profile(events) == "2026-08"
