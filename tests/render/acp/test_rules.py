"""The mapping rules no recorded golden covers, asserted on exact output."""

from __future__ import annotations

from typing import Any

from replay.project.tools import display_arguments
from replay.render.acp import GenericCall, GenericResult, Presenter, shipped_presenters
from replay.render.acp.translate import iso_time
from tests.render.acp.util import call, ev, lines, result, updates


def _chunk(kind: str, text: str) -> dict[str, Any]:
    return {"sessionUpdate": kind, "content": {"type": "text", "text": text}}


def test_llm_retry_text() -> None:
    retry = ev("llm/retry", {"turn": 1, "step": 1, "retry": 1, "maxRetries": 3, "delayMs": 1500,
                             "failure": {"message": "rate limited (HTTP 429)", "code": "RATE_LIMIT"}})
    assert lines([retry], session_id="S") == [
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"S","update":'
        '{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":'
        '"\\n\\n[Previous model attempt discarded; retrying 1/3 in 1500ms: rate limited (HTTP 429)]\\n\\n"}}}}'
    ]


def test_llm_retry_numbers_are_written_like_javascript() -> None:
    retry = ev("llm/retry", {"retry": 2, "maxRetries": 2.0, "delayMs": 0.5, "failure": {"message": "x"}})
    assert updates([retry]) == [_chunk(
        "agent_message_chunk", "\n\n[Previous model attempt discarded; retrying 2/2 in 0.5ms: x]\n\n")]


def test_empty_deltas_are_emitted_verbatim() -> None:
    events = [
        ev("assistant/chunk", {"turn": 1, "step": 1, "chunk": {"type": "text-delta", "index": 0, "text": ""}}),
        ev("assistant/chunk", {"turn": 1, "step": 1, "chunk": {"type": "reasoning-delta", "index": 0, "text": ""}}),
        ev("assistant/chunk", {"turn": 1, "step": 1, "chunk": {"type": "block-start", "index": 0,
                                                              "blockType": "text"}}),
        ev("assistant/chunk", {"turn": 1, "step": 1, "chunk": {"type": "tool-call-delta", "index": 1, "id": "c",
                                                              "argumentsDelta": "{"}}),
    ]
    assert updates(events) == [_chunk("agent_message_chunk", ""), _chunk("agent_thought_chunk", "")]


def test_non_ascii_is_written_raw_and_controls_escaped() -> None:
    text = "héllo ✓ 😀 \u2028\u2029 \x7f tab\t nul\x00 esc\x1b quote\" back\\ slash/"
    chunk = ev("assistant/chunk", {"turn": 1, "step": 1, "chunk": {"type": "text-delta", "index": 0,
                                                                  "text": text}})
    assert lines([chunk]) == [
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":'
        '{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":'
        '"héllo ✓ 😀 \u2028\u2029 \x7f tab\\t nul\\u0000 esc\\u001b quote\\" back\\\\ slash/"}}}}'
    ]


def test_lone_surrogates_are_escaped_like_json_stringify() -> None:
    chunk = ev("assistant/chunk", {"chunk": {"type": "text-delta", "index": 0, "text": "a\ud83db"}})
    assert lines([chunk])[0].endswith('"text":"a\\ud83db"}}}}')


def test_updated_at_is_javascript_iso_time() -> None:
    title = ev("session/title", {"title": "Fix the bug", "messageSeqs": [1], "source": {"kind": "fallback"}},
               time=1783352059100)
    assert updates([title]) == [{"sessionUpdate": "session_info_update", "title": "Fix the bug",
                                 "updatedAt": "2026-07-06T15:34:19.100Z"}]
    assert iso_time(0) == "1970-01-01T00:00:00.000Z"
    assert iso_time(-1) == "1969-12-31T23:59:59.999Z"
    assert iso_time(1.9) == "1970-01-01T00:00:00.001Z"
    assert iso_time(951782400000) == "2000-02-29T00:00:00.000Z"
    assert iso_time(253402300800000) == "+010000-01-01T00:00:00.000Z"
    assert iso_time(-62198755200000) == "-000001-01-01T00:00:00.000Z"
    assert iso_time(8.64e15 + 1) is None
    assert iso_time("1") is None


def test_surface_replacement_result_emits_nothing() -> None:
    events = [
        call("c1", "bash", {"command": "echo hi", "description": "Say hi"}),
        result("c1", "hi\n"),
        result("c1", "[... tool result middle pruned ...]", surface_op={"op": "replace", "start": 2, "end": 2}),
    ]
    assert updates(events, terminal_output=True, cwd="/w") == [
        {"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "echo hi", "kind": "execute",
         "status": "in_progress", "rawInput": "echo hi",
         "content": [{"type": "content", "content": {"type": "text", "text": "Say hi"}},
                     {"type": "terminal", "terminalId": "c1"}],
         "_meta": {"terminal_info": {"terminal_id": "c1", "cwd": "/w"}}},
        {"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed",
         "_meta": {"terminal_output": {"terminal_id": "c1", "data": "hi\n"},
                   "terminal_exit": {"terminal_id": "c1", "exit_code": 0}}},
    ]


def test_read_title_is_relativized_against_an_absolute_cwd() -> None:
    events = [call("r1", "read", {"file_path": "/work/proj/src/a.py", "offset": 5, "limit": 4})]
    assert updates(events, cwd="/work/proj") == [
        {"sessionUpdate": "tool_call", "toolCallId": "r1", "title": "Read src/a.py (5 - 8)", "kind": "read",
         "status": "in_progress", "locations": [{"path": "/work/proj/src/a.py", "line": 5}]}]


def _read_title(path: str, cwd: str | None, **extra: Any) -> str:
    return str(updates([call("r", "read", {"file_path": path, **extra})], cwd=cwd)[0]["title"])


def test_relativization_leaves_outside_paths_alone() -> None:
    assert _read_title("/work/other/a.py", "/work/proj") == "Read /work/other/a.py"
    assert _read_title("/work/proj", "/work/proj") == "Read /work/proj"
    assert _read_title("/work/proj/../x", "/work/proj") == "Read /work/proj/../x"
    assert _read_title("/work/project/a.py", "/work/proj") == "Read /work/project/a.py"
    assert _read_title("/work/proj/..cache/x", "/work/proj") == "Read ..cache/x"
    assert _read_title("src/a.py", "/work/proj") == "Read src/a.py"
    assert _read_title("/work/proj/a.py", None) == "Read /work/proj/a.py"
    assert _read_title("/work/proj/a.py", "/work/proj", offset=3) == "Read a.py (from line 3)"
    assert _read_title("{{cwd}}/a.py", "/stand-in") == "Read a.py"


def test_diff_titles_are_relativized_but_paths_are_not() -> None:
    events = [
        call("e1", "edit", {"file_path": "/w/a.txt", "old_string": "", "new_string": "x"}),
        result("e1", "ok", meta={"diffs": [{"path": "/w/a.txt", "oldText": "a", "newText": "x"}]}),
    ]
    assert updates(events, cwd="/w") == [
        {"sessionUpdate": "tool_call", "toolCallId": "e1", "title": "Edit a.txt", "kind": "edit",
         "status": "in_progress", "locations": [{"path": "/w/a.txt"}],
         "content": [{"type": "diff", "path": "/w/a.txt", "oldText": None, "newText": "x"}]},
        {"sessionUpdate": "tool_call_update", "toolCallId": "e1", "status": "completed",
         "content": [{"type": "diff", "path": "/w/a.txt", "oldText": "a", "newText": "x"}], "title": "Edit a.txt"},
    ]


def test_edit_with_invalid_meta_falls_back_to_the_raw_result() -> None:
    events = [call("e1", "edit", {"file_path": "a", "old_string": "x", "new_string": "y"}),
              result("e1", "done", meta={"diffs": "nope"})]
    assert updates(events)[1] == {"sessionUpdate": "tool_call_update", "toolCallId": "e1", "status": "completed",
                                  "content": [{"type": "content", "content": {"type": "text", "text": "done"}}]}


def test_orphan_terminal_result_falls_back_to_raw_content() -> None:
    # The call's arguments lack a command: the bash presenter fails, the call is shown
    # generic, so its terminal-shaped result must not produce terminal output.
    events = [call("b1", "bash", {"description": "no command"}), result("b1", "out\n")]
    assert updates(events, terminal_output=True, cwd="/w") == [
        {"sessionUpdate": "tool_call", "toolCallId": "b1", "title": "bash", "kind": "other",
         "status": "in_progress", "rawInput": {"description": "no command"}},
        {"sessionUpdate": "tool_call_update", "toolCallId": "b1", "status": "completed",
         "content": [{"type": "content", "content": {"type": "text", "text": "out\n"}}]},
    ]


def test_result_without_a_call_shows_raw_content_once() -> None:
    events = [result("ghost", [{"type": "text", "text": "late"}, {"type": "reasoning", "text": "x"}], is_error=True)]
    assert updates(events, terminal_output=True) == [
        {"sessionUpdate": "tool_call_update", "toolCallId": "ghost", "status": "failed",
         "content": [{"type": "content", "content": {"type": "text", "text": "late"}}]}]


def test_a_call_is_forgotten_after_its_result() -> None:
    events = [call("b1", "bash", {"command": "ls"}), result("b1", "a\n"), result("b1", "again\n")]
    assert updates(events, terminal_output=True, cwd="/w")[2] == {
        "sessionUpdate": "tool_call_update", "toolCallId": "b1", "status": "completed",
        "content": [{"type": "content", "content": {"type": "text", "text": "again\n"}}]}


def test_terminal_exit_status_and_cwd() -> None:
    events = [call("b1", "bash", {"command": "make", "description": "Build", "workdir": "sub/dir"}),
              result("b1", "boom\n[exit code: 2]"),
              call("b2", "bash", {"command": "sleep 9", "description": "", "workdir": "/abs"}),
              result("b2", "\n[killed by signal: SIGTERM]")]
    got = updates(events, terminal_output=True, cwd="/w")
    assert got[0]["_meta"] == {"terminal_info": {"terminal_id": "b1", "cwd": "/w/sub/dir"}}
    assert got[1]["_meta"]["terminal_exit"] == {"terminal_id": "b1", "exit_code": 2}
    assert got[2]["_meta"] == {"terminal_info": {"terminal_id": "b2", "cwd": "/abs"}}
    # An empty description is still a description: its (empty) text block comes first.
    assert got[2]["content"] == [{"type": "content", "content": {"type": "text", "text": ""}},
                                 {"type": "terminal", "terminalId": "b2"}]
    assert got[3]["_meta"]["terminal_exit"] == {"terminal_id": "b2", "signal": "SIGTERM"}


def test_terminal_without_the_capability_is_a_console_fence() -> None:
    events = [call("b1", "bash", {"command": "ls", "description": "List"}), result("b1", "a\nb\n\n")]
    assert updates(events, cwd="/w") == [
        {"sessionUpdate": "tool_call", "toolCallId": "b1", "title": "ls", "kind": "execute",
         "status": "in_progress", "rawInput": "ls",
         "content": [{"type": "content", "content": {"type": "text", "text": "List"}}]},
        {"sessionUpdate": "tool_call_update", "toolCallId": "b1", "status": "completed",
         "content": [{"type": "content", "content": {"type": "text", "text": "```console\na\nb\n```"}}]},
    ]


def test_background_bash_is_a_generic_execute_card() -> None:
    events = [call("b1", "bash", {"command": "serve", "description": "Start", "run_in_background": True}),
              result("b1", "started job 1")]
    assert updates(events, terminal_output=True) == [
        {"sessionUpdate": "tool_call", "toolCallId": "b1", "title": "serve", "kind": "execute",
         "status": "in_progress", "rawInput": "serve",
         "content": [{"type": "content", "content": {"type": "text", "text": "Start"}}]},
        {"sessionUpdate": "tool_call_update", "toolCallId": "b1", "status": "completed",
         "content": [{"type": "content", "content": {"type": "text", "text": "```console\nstarted job 1\n```"}}]},
    ]


def test_plan_has_one_medium_entry_per_todo() -> None:
    events = [ev("todo/write", {"todos": [{"content": "a", "status": "completed"},
                                          {"content": "b", "status": "pending"}]}),
              ev("todo/write", {"todos": []})]
    assert lines(events) == [
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan",'
        '"entries":[{"content":"a","priority":"medium","status":"completed"},'
        '{"content":"b","priority":"medium","status":"pending"}]}}}',
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan",'
        '"entries":[]}}}',
    ]


def test_user_messages_only_on_load_display_content_first() -> None:
    message = ev("user/message", {"id": "u", "role": "user", "source": {"kind": "user"},
                                  "content": [{"type": "text", "text": "raw"}],
                                  "envelope": {"displayContent": [{"type": "text", "text": "shown"},
                                                                  {"type": "image", "data": "…"},
                                                                  {"type": "text", "text": "two"}]}},
                 surfaceOp="append")
    assert updates([message]) == []
    assert updates([message], include_user_messages=True) == [
        _chunk("user_message_chunk", "shown"), _chunk("user_message_chunk", "two")]


def test_error_turn_text_needs_the_failure_object() -> None:
    failed = ev("turn/end", {"turn": 1, "reason": {"kind": "error", "step": 1,
                                                   "failure": {"message": "HTTP 401", "code": "AUTH"}}})
    plugin = ev("turn/end", {"turn": 1, "reason": {"kind": "error", "step": 1, "message": "plugin broke",
                                                   "code": "X"}})
    current = ev("turn/end", {"turn": 1, "reason": {"kind": "error", "error": {"message": "disk full",
                                                                               "code": "UNKNOWN"}}})
    done = ev("turn/end", {"turn": 1, "reason": {"kind": "completed"}})
    text = "\n\n[Model attempt failed; any partial output above is discarded: {}]\n\n"
    assert updates([failed, plugin, current, done]) == [
        _chunk("agent_message_chunk", text.format("HTTP 401")),
        _chunk("agent_message_chunk", text.format("disk full")),
    ]


def test_plan_review_and_exit_plan_mode_heading() -> None:
    events = [call("p", "exit_plan_mode", {"plan": "Intro\n\n## Step one ##\nbody"}),
              result("p", "Plan approved"),
              call("q", "exit_plan_mode", {"plan": "no heading"})]
    got = updates(events)
    assert got[0]["title"] == "Step one"
    assert got[1] == {"sessionUpdate": "tool_call_update", "toolCallId": "p", "status": "completed",
                      "content": [{"type": "content", "content": {"type": "text", "text": "Plan approved"}}],
                      "title": "Plan review"}
    assert got[2]["title"] == "Plan"


def test_unparsable_arguments_reach_the_generic_card_raw() -> None:
    assert display_arguments("") == {}
    assert display_arguments("{bad") == "{bad"
    assert display_arguments("NaN") == "NaN"
    assert display_arguments(" ") == " "
    assert display_arguments('{"a": [1, 2.5]}') == {"a": [1, 2.5]}
    assert updates([call("x", "mystery", "{bad")]) == [
        {"sessionUpdate": "tool_call", "toolCallId": "x", "title": "mystery", "kind": "other",
         "status": "in_progress", "rawInput": "{bad"}]


def test_presenters_can_be_added_and_overridden_per_session() -> None:
    def boom(args: Any) -> GenericCall:
        raise RuntimeError("presenter bug")

    registry = (shipped_presenters()
                .with_presenter("deploy", Presenter(
                    call=lambda a: GenericCall(title=f"Deploy {a['env']}", kind="execute"),
                    result=lambda a, o: GenericResult(title="Deployed")))
                .with_presenter("read", Presenter(call=boom)))
    events = [call("d", "deploy", {"env": "prod"}), result("d", "ok"), call("r", "read", {"file_path": "x"})]
    assert updates(events, presenters=registry) == [
        {"sessionUpdate": "tool_call", "toolCallId": "d", "title": "Deploy prod", "kind": "execute",
         "status": "in_progress"},
        {"sessionUpdate": "tool_call_update", "toolCallId": "d", "status": "completed",
         "content": [{"type": "content", "content": {"type": "text", "text": "ok"}}], "title": "Deployed"},
        {"sessionUpdate": "tool_call", "toolCallId": "r", "title": "read", "kind": "other",
         "status": "in_progress", "rawInput": {"file_path": "x"}},
    ]
    assert "deploy" not in shipped_presenters()


def test_search_and_terminal_family_titles() -> None:
    events = [call("g", "glob", {"pattern": "**/*.py", "path": "src"}),
              call("h", "grep", {"pattern": "TODO", "include": "*.ts"}),
              call("l", "lsp", {"operation": "hover", "file_path": "/w/a.ts", "line": 3, "character": 7}),
              call("o", "terminal_open", {"type": "shell"}),
              call("s", "terminal_send", {"sessionId": "pty-1", "text": ""}),
              call("i", "cordis_inspect", {"what": "api"}),
              call("k", "skill", {"name": "pdf"}),
              call("w", "workflow", {"script": "return 1", "meta": {"name": "one", "description": "One"}})]
    got = [(u["title"], u["kind"], u.get("rawInput"), u.get("locations")) for u in updates(events, cwd="/w")]
    assert got == [
        ("Glob **/*.py in src", "search", "**/*.py", None),
        ("Grep TODO (*.ts)", "search", "TODO", None),
        ("LSP hover a.ts:3:7", "search", None, [{"path": "/w/a.ts", "line": 3}]),
        ("Open terminal shell", "execute", None, None),
        ("(send input)", "execute", "(send input)", None),
        ("Inspect cordis runtime: api", "read", None, None),
        ("Load skill pdf", "read", "pdf", None),
        ("workflow: one", "other", "return 1", None),
    ]
