"""The stdio transcript (web-stdio-todo.md §3)."""

from __future__ import annotations

from typing import Any

import pytest

from replay.log.event import DictEvent, Event
from replay.log.reader import iter_events, read_log
from replay.log.source import file_source
from replay.render.stdio import render_stdio, stdio_text, todo_block
from replay.style import COLORS
from tests.helpers import TODO_WRITE, corpus_file, index_of, records
from tests.render.web.builders import FIXTURE_TODOS, compact, to_events, todo_log, todo_records

ARGS = ('{"todos": [{"content": "read the code", "status": "in_progress"}, {"content": "watch the background '
        'build", "status": "in_progress"}, {"content": "write the fix", "status": "pending"}]}')
REASONING = 'The user wants me to use todo_write to create exactly three todos, then reply with "DONE" and stop.'

WORKED = (  # §3.4, as written there: ⏎ is a newline, \x1B is ESC, <ARGS> the raw arguments
    "…reasoning text…\\x1B[0m⏎\n"
    "  [tool call] todo_write(<ARGS>)⏎\n"
    "  [todos]⏎\n"
    "    [~] read the code⏎\n"
    "    [~] watch the background build⏎\n"
    "    [ ] write the fix⏎\n"
    "  ⏎\n"
    "  [tool result] Updated todo list: 1 pending, 2 in progress, 0 completed.⏎\n"
    "  \\x1B[2mDone.\\x1B[0m⏎\n"
    "DONE⏎\n"
    "> "
)


def _worked_block() -> str:
    text = WORKED.replace("⏎\n", "\n").replace("\\x1B", "\x1b").replace("<ARGS>", ARGS)
    return text.replace("…reasoning text…", REASONING)


def _corpus() -> list[Event]:
    return to_events(records(TODO_WRITE))


def test_worked_transcript_of_the_corpus_log() -> None:
    text = stdio_text(_corpus())
    assert text == "ready.\n> \n[main turn 1] \x1b[2m" + _worked_block()
    assert "\n  [todos]\n    [~] read the code\n    [~] watch the background build\n    [ ] write the fix\n  " in text


def test_writes_are_yielded_one_per_event() -> None:
    writes = list(render_stdio(_corpus()))
    assert writes[:3] == ["ready.\n> ", "\n[main turn 1] ", "\x1b[2mThe"]
    assert "\n  [todos]\n    [~] read the code\n    [~] watch the background build\n    [ ] write the fix\n  " in writes
    assert writes[-1] == "\n> "


def test_label_and_welcome() -> None:
    text = stdio_text(_corpus(), label="d9d967e8", welcome=None)
    assert text.startswith("\n[d9d967e8 turn 1] \x1b[2mThe user")


def test_color_off_drops_only_the_format_codes() -> None:
    plain = stdio_text(_corpus(), color=False)
    assert "\x1b" not in plain
    assert plain == stdio_text(_corpus()).replace(COLORS["dim"], "").replace(COLORS["reset"], "")
    assert plain.endswith(" and stop.\n  [tool call] todo_write(" + ARGS + ")\n  [todos]\n" + "".join([
        "    [~] read the code\n    [~] watch the background build\n    [ ] write the fix\n  \n",
        "  [tool result] Updated todo list: 1 pending, 2 in progress, 0 completed.\n  Done.\nDONE\n> "]))


HOSTILE = "\x1b[31mred\x1b[0m\x1b]0;title\x07\rover\x9b2J\x7f\tkept\nnext"
SHOWN = "\\x1b[31mred\\x1b[0m\\x1b]0;title\\x07\\x0dover\\x9b2J\\x7f\tkept\nnext"


def _hostile_result() -> list[Event]:
    todos = [{"content": "a\x1b[2Jb", "status": "in_progress"}]
    return todo_log(compact({"todos": todos}), todos=todos, result=HOSTILE)


def test_terminal_neutralizes_controls_from_the_log_and_keeps_its_own_dim() -> None:
    text = stdio_text(_hostile_result(), terminal=True)
    assert f"\n  [tool result] {SHOWN}\n  " in text
    assert "\n  [todos]\n    [~] a\\x1b[2Jb\n  " in text
    assert "\x1b[2mDone.\x1b[0m" in text  # the format's own codes stay
    assert text.count("\x1b") == text.count(COLORS["dim"]) + text.count(COLORS["reset"])
    assert not any(c in text for c in "\r\x07\x9b\x7f")


def test_terminal_and_color_off_leave_no_escape_at_all() -> None:
    text = stdio_text(_hostile_result(), terminal=True, color=False)
    assert "\x1b" not in text
    assert f"[tool result] {SHOWN}\n" in text


def test_without_terminal_content_is_verbatim() -> None:
    assert f"\n  [tool result] {HOSTILE}\n  " in stdio_text(_hostile_result())


def test_terminal_neutralizes_reasoning_and_arguments() -> None:
    recs = records(TODO_WRITE)
    at = index_of(recs, "assistant/chunk", 0, step=2)  # block-start of the step-2 reasoning
    recs[at + 1]["data"]["chunk"]["text"] = "Do\x1b[1mne"
    text = stdio_text(to_events(recs), terminal=True)
    assert "\x1b[2mDo\\x1b[1mne.\x1b[0m\nDONE" in text


def test_terminal_shows_bidi_controls_and_lone_surrogates_escaped() -> None:
    todos = {"todos": [{"content": "evil\u202eexe.txt\ud800", "status": "pending"}]}
    chunk = {"turn": 1, "step": 1, "chunk": {"type": "text-delta", "index": 0, "text": "a\u2066b\u061cc\u200fd"}}
    events = [DictEvent("todo/write", 0, 0, todos, 2, {}), DictEvent("assistant/chunk", 1, 0, chunk, 3, {})]
    assert stdio_text(events, terminal=True, welcome=None) == (
        "\n  [todos]\n    [ ] evil\\u202eexe.txt\ufffd\n  a\\u2066b\\u061cc\\u200fd")
    assert stdio_text(events, welcome=None) == (
        "\n  [todos]\n    [ ] evil\u202eexe.txt\ud800\n  a\u2066b\u061cc\u200fd")


def test_todo_write_mid_reasoning_closes_the_dim_span() -> None:
    recs = records(TODO_WRITE)
    at = index_of(recs, "assistant/chunk", 0, step=2) + 3  # the block-start of the text, after "Done" "."
    assert recs[at]["data"]["chunk"] == {"type": "block-start", "index": 1, "blockType": "text"}
    recs[at] = {"type": "todo/write", "seq": recs[at]["seq"], "time": recs[at]["time"],
                "data": {"todos": [{"content": "r", "status": "completed"}]}}
    text = stdio_text(to_events(recs))
    assert "\x1b[2mDone.\x1b[0m\n  [todos]\n    [x] r\n  DONE\n> " in text


def test_rejected_call_prints_no_todo_block() -> None:
    todos = [{"content": "a", "status": "in_progress"}, {"content": "a", "status": "pending"}]
    failure = 'Error: invalid todos: duplicate content "a"'
    text = stdio_text(todo_log(compact({"todos": todos}), todos=None, result=failure, is_error=True))
    assert "[todos]" not in text
    assert f'\n  [tool call] todo_write({compact({"todos": todos})})\n  [tool result] {failure}\n  ' in text


def test_result_text_blocks_are_concatenated_and_other_blocks_ignored() -> None:
    recs = todo_records(ARGS, todos=[], result="x")
    block = recs[index_of(recs, "tool/result")]["data"]["message"]["content"][0]
    block["content"] = [{"type": "text", "text": "one"}, {"type": "image", "data": "AA=="},
                        {"type": "text", "text": "two"}]
    assert "\n  [tool result] onetwo\n  " in stdio_text(to_events(recs))


def test_surface_replacement_results_are_skipped() -> None:
    recs = records(TODO_WRITE)
    at = index_of(recs, "tool/result")
    copy = dict(recs[at], surfaceOp={"op": "replace", "start": recs[at]["seq"], "end": recs[at]["seq"]})
    copy["data"] = {**recs[at]["data"], "message": {**recs[at]["data"]["message"]}}
    copy["data"]["message"]["content"] = [{**copy["data"]["message"]["content"][0],
                                           "content": [{"type": "text", "text": "model-only copy"}]}]
    copy["seq"] = recs[at]["seq"] + 1
    for rec in recs[at + 1:]:
        rec["seq"] += 1
    recs.insert(at + 1, copy)
    text = stdio_text(to_events(recs))
    assert "model-only copy" not in text
    assert text.count("[tool result]") == 1


TODO_BLOCKS: list[tuple[str, Any, str]] = [
    ("fixture", FIXTURE_TODOS,
     "\n  [todos]\n    [x] 梳理需求\n    [~] 实现 fixture 样本\n    [~] 跑后台构建\n    [ ] 浏览器验收\n  "),
    ("zero", [], "\n  [todos]\n\n  "),
    ("all-completed", [{"content": "a", "status": "completed"}, {"content": "b", "status": "completed"}],
     "\n  [todos]\n    [x] a\n    [x] b\n  "),
    ("unknown-status", [{"content": "a", "status": "done"}, {"content": "b"}], "\n  [todos]\n    [ ] a\n    [ ] b\n  "),
    ("verbatim", [{"content": "  spaced  ", "status": "pending"}], "\n  [todos]\n    [ ]   spaced  \n  "),
]


@pytest.mark.parametrize(("todos", "expected"), [t[1:] for t in TODO_BLOCKS], ids=[t[0] for t in TODO_BLOCKS])
def test_todo_block(todos: Any, expected: str) -> None:
    assert todo_block(todos) == expected


def test_every_todo_write_appends_a_full_checklist() -> None:
    recs = records(TODO_WRITE)
    at = index_of(recs, "todo/write")
    second = {**recs[at], "data": {"todos": [{"content": "read the code", "status": "completed"}]}}
    recs[at + 1:at + 1] = [second]
    for k, rec in enumerate(recs[at + 1:], start=at + 1):
        rec["seq"] = recs[k - 1]["seq"] + 1
    text = stdio_text(to_events(recs))
    assert text.count("[todos]") == 2
    assert "    [ ] write the fix\n  \n  [todos]\n    [x] read the code\n  \n  [tool result]" in text


def test_legacy_log_results_are_read_from_the_migrated_shape() -> None:
    path = corpus_file("acp-2026-06-29/todo-plan/session.jsonl")
    text = stdio_text(iter_events(read_log(file_source(path)).items()))
    assert "\n  [todos]\n    [~] read the code\n    [ ] write the fix\n    [ ] run the tests\n  " in text
    assert "\n  [tool result] Updated todo list: 2 pending, 1 in progress, 0 completed.\n  " in text
