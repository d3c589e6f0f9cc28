"""The web row, panel and golden text format (web-stdio-todo.md §1.1–§1.4)."""

from __future__ import annotations

from typing import Any

import pytest

from replay.project.tools import ToolCall, tool_calls
from replay.render.web import (
    EN,
    ZH,
    PanelFields,
    PanelItem,
    golden_text,
    panel_fields,
    row_fields,
    strings,
    web_golden,
)
from replay.render.web.locale import interpolate
from replay.todo.model import js_trim
from tests.helpers import TODO_WRITE, corpus_file, records
from tests.render.web.builders import (
    FIXTURE_RESULT,
    FIXTURE_TODOS,
    compact,
    plan_log,
    to_events,
    todo_log,
    todo_records,
)

GOLDEN = "sessions-2026-08-20/apps_web_tests_snapshots/todo-row/parallel-plan.expected.txt"
EN_SPACE_DOT = "\u2002·\u2002"


def _t(content: Any, status: str) -> dict[str, Any]:
    return {"content": content, "status": status}


def _no_content(status: str) -> dict[str, Any]:
    return {"status": status}


# --- the harness's golden, byte for byte ---------------------------------------------

def test_parallel_plan_golden_is_reproduced_byte_for_byte() -> None:
    expected = corpus_file(GOLDEN).read_bytes()
    events = todo_log(compact({"todos": FIXTURE_TODOS}), todos=FIXTURE_TODOS, result=FIXTURE_RESULT)
    assert web_golden(events).encode("utf-8") == expected
    assert not expected.endswith(b"\n")


def test_the_built_log_is_the_corpus_log_with_only_the_plan_changed() -> None:
    original = records(TODO_WRITE)
    built = todo_records(compact({"todos": FIXTURE_TODOS}), todos=FIXTURE_TODOS, result=FIXTURE_RESULT)
    assert len(built) == len(original)
    changed = {r.get("type") for r, o in zip(built, original, strict=True) if r != o}
    assert changed == {"tool-call-chunks", "assistant/chunk", "assistant/message", "tool/call", "todo/write",
                       "tool/result"}
    [call] = tool_calls(to_events(built))
    assert call.args_raw == '{"todos":[{"content":"梳理需求","status":"completed"},' \
        '{"content":"实现 fixture 样本","status":"in_progress"},{"content":"跑后台构建","status":"in_progress"},' \
        '{"content":"浏览器验收","status":"pending"}]}'


def test_corpus_log_golden() -> None:
    events = to_events(records(TODO_WRITE))
    assert web_golden(events) == "\n".join([
        "row=todo_write",
        "title=Update to-do list",
        "summary=0/3 completed · read the code",
        "suffix=+1",
        _join("panel=2 in progress", "1 pending"),
        "item=in_progress read the code",
        "item=in_progress watch the background build",
        "item=pending write the fix",
    ])


# --- §1.1 row examples, both locales ------------------------------------------------------

PLAN_ROWS: list[tuple[str, list[Any], str, str, str | None]] = [
    ("zero", [], "0/0 completed", "0/0 已完成", None),
    ("all-completed", [_t("a", "completed"), _t("b", "completed")], "2/2 completed", "2/2 已完成", None),
    ("one-active", [_t("搭骨架", "completed"), _t("写组件", "in_progress"), _t("补测试", "pending")],
     "1/3 completed · 写组件", "1/3 已完成 · 写组件", None),
    ("three-active", [_t("搭骨架", "completed"), _t("写组件", "in_progress"), _t("写文档", "in_progress"),
                      _t("跑构建", "in_progress"), _t("补测试", "pending")],
     "1/5 completed · 写组件", "1/5 已完成 · 写组件", "+2"),
    ("fixture", FIXTURE_TODOS, "1/4 completed · 实现 fixture 样本", "1/4 已完成 · 实现 fixture 样本", "+1"),
    ("first-active-no-content", [_t("done", "completed"), _no_content("in_progress"), _t("x", "in_progress")],
     "1/3 completed", "1/3 已完成", None),
    ("content-wrong-type", [_t(42, "in_progress")], "0/1 completed", "0/1 已完成", None),
    ("first-active-empty", [_t("", "in_progress"), _t("x", "in_progress")], "0/2 completed", "0/2 已完成", None),
    ("first-active-blank", [_t("   ", "in_progress"), _t("x", "in_progress")], "0/2 completed", "0/2 已完成",
     None),
    ("untrimmed", [_t("  写组件  ", "in_progress")], "0/1 completed ·   写组件  ", "0/1 已完成 ·   写组件  ", None),
    ("unknown-status", [_t("a", "done")], "0/1 completed", "0/1 已完成", None),
]

RAW_ROWS: list[tuple[str, str, str]] = [
    ("not-json", "not json", "todo_write · not json"),
    ("no-todos", '{"other":1}', 'todo_write · {"other":1}'),
    ("null", "null", "todo_write · null"),
    ("number", "42", "todo_write · 42"),
    ("null-item", '{"todos":[null]}', 'todo_write · {"todos":[null]}'),
    ("todos-string", '{"todos":"x"}', "todo_write · x"),
    ("partial-stream", '{"todos":[{"content":"a', 'todo_write · {"todos":[{"content":"a'),
]

CASES: list[tuple[str, str, dict[str, str], str | None]] = [
    *((name, compact({"todos": todos}), {"en": en, "zh": zh}, suffix) for name, todos, en, zh, suffix in PLAN_ROWS),
    *((name, raw, {"en": summary, "zh": summary}, None) for name, raw, summary in RAW_ROWS),
]


def _golden_row(locale: str, summary: str | None, suffix: str | None, title: str | None = None) -> list[str]:
    return [
        "row=todo_write",
        f"title={title or strings(locale).todo_row_title}",
        f"summary={'<absent>' if summary is None else js_trim(summary)}",
        f"suffix={suffix or '<absent>'}",
    ]


@pytest.mark.parametrize("locale", ["en", "zh"])
@pytest.mark.parametrize(("args", "summaries", "suffix"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_row_example_while_running(locale: str, args: str, summaries: dict[str, str], suffix: str | None) -> None:
    """Every row of the §1.1 table, on a call that has no result yet (running keeps
    the plan summary and suffix), through the whole pipeline."""
    events = todo_log(args, todos=None, result=None)
    [call] = tool_calls(events)
    row = row_fields(call, locale)
    assert (row.state, row.summary, row.suffix) == ("running", summaries[locale], suffix)
    assert row.state_label == {"en": "Running", "zh": "运行中"}[locale]
    assert web_golden(events, locale).split("\n") == [*_golden_row(locale, summaries[locale], suffix),
                                                      "panel=<absent>"]


ACCEPTED = ["zero", "all-completed", "one-active", "three-active", "fixture", "untrimmed"]


@pytest.mark.parametrize("locale", ["en", "zh"])
@pytest.mark.parametrize("name", ACCEPTED)
def test_row_example_after_success(locale: str, name: str) -> None:
    """The table rows whose list the tool accepts, as successful calls (the
    ``todo/write`` holds the trimmed list, as the tool writes it)."""
    _, todos, en, zh, suffix = next(r for r in PLAN_ROWS if r[0] == name)
    trimmed = [_t(js_trim(t["content"]), t["status"]) for t in todos]
    events = todo_log(compact({"todos": todos}), todos=trimmed, result="Updated todo list: …")
    [call] = tool_calls(events)
    row = row_fields(call, locale)
    summary = {"en": en, "zh": zh}[locale]
    assert (row.state, row.state_label, row.summary, row.suffix) == ("ok", None, summary, suffix)
    assert web_golden(events, locale).split("\n")[:4] == _golden_row(locale, summary, suffix)


@pytest.mark.parametrize("locale", ["en", "zh"])
def test_row_of_a_result_whose_call_is_outside_the_window(locale: str) -> None:
    call = ToolCall(seq=0, call_id="c1", name="todo_write", args_raw="")
    row = row_fields(call, locale)
    assert (row.summary, row.suffix, row.title) == ("todo_write · c1", None, strings(locale).todo_row_title)


def test_the_row_reads_the_args_and_the_panel_reads_the_event() -> None:
    events = todo_log(compact({"todos": [_t("  写组件  ", "in_progress")]}), todos=[_t("写组件", "in_progress")],
                      result="Updated todo list: 0 pending, 1 in progress, 0 completed.")
    [call] = tool_calls(events)
    assert row_fields(call).summary == "0/1 completed ·   写组件  "
    assert web_golden(events).split("\n")[2:] == [
        "summary=0/1 completed ·   写组件", "suffix=<absent>", "panel=1 in progress", "item=in_progress 写组件",
    ]


# --- error, stopped and other non-ok rows -----------------------------------------------

PARALLEL = [_t("a", "in_progress"), _t("b", "in_progress")]
PARALLEL_ERROR = "Error: invalid todos: at most one task may be in_progress (got 2)"


@pytest.mark.parametrize("locale", ["en", "zh"])
def test_error_row_shows_the_failure_line_and_drops_the_suffix(locale: str) -> None:
    events = todo_log(compact({"todos": PARALLEL}), todos=None, result=PARALLEL_ERROR + "\nmore detail",
                      is_error=True)
    [call] = tool_calls(events)
    row = row_fields(call, locale)
    assert (row.state, row.state_label, row.summary, row.suffix, row.error_summary) == (
        "error", {"en": "Failed", "zh": "失败"}[locale], PARALLEL_ERROR, None, True)
    assert web_golden(events, locale).split("\n") == [*_golden_row(locale, PARALLEL_ERROR, None), "panel=<absent>"]


def test_error_output_starting_with_a_newline_removes_the_collapsed_content() -> None:
    events = todo_log(compact({"todos": PARALLEL}), todos=None, result="\nError: late line", is_error=True)
    assert web_golden(events).split("\n")[2:4] == ["summary=<absent>", "suffix=<absent>"]


def test_error_row_without_output_keeps_the_plan_summary_and_suffix() -> None:
    events = todo_log(compact({"todos": PARALLEL}), todos=None, result="", is_error=True)
    [call] = tool_calls(events)
    row = row_fields(call)
    assert (row.state, row.summary, row.suffix, row.error_summary) == ("error", "0/2 completed · a", "+1", False)


def test_error_row_with_only_a_structured_error_shows_name_and_code() -> None:
    events = todo_log(compact({"todos": PARALLEL}), todos=None, result="", is_error=True,
                      error={"name": "AbortError", "code": "ABORTED"})
    [call] = tool_calls(events)
    assert row_fields(call).summary == "AbortError: ABORTED"


@pytest.mark.parametrize("locale", ["en", "zh"])
def test_stopped_row_keeps_the_plan_summary_and_suffix(locale: str) -> None:
    events = todo_log(compact({"todos": PARALLEL}), todos=None, result="Error: interrupted", is_error=True,
                      error={"name": "AbortError", "code": "interrupted"})
    [call] = tool_calls(events)
    row = row_fields(call, locale)
    assert (row.state, row.state_label, row.suffix) == ("stopped", {"en": "Stopped", "zh": "已停止"}[locale], "+1")
    assert row.summary == {"en": "0/2 completed · a", "zh": "0/2 已完成 · a"}[locale]


def test_other_tools_get_the_generic_row_and_no_golden_row() -> None:
    call = ToolCall(seq=0, call_id="c9", name="read", args_raw='{"path":"a.txt\\nb","limit":3}')
    row = row_fields(call, "zh")
    assert (row.title, row.summary, row.suffix, row.state) == ("Tool call", "read · a.txt", None, "running")
    assert golden_text([], None) == "panel=<absent>"


# --- §1.2 panel examples, both locales ------------------------------------------------------

def _join(*segments: str) -> str:
    return EN_SPACE_DOT.join(segments)


PANELS: list[tuple[str, list[dict[str, Any]], str, str]] = [
    ("one-of-each", [_t("a", "completed"), _t("b", "in_progress"), _t("c", "pending")],
     _join("1 completed", "1 in progress", "1 pending"), _join("1 已完成", "1 进行中", "1 待处理")),
    ("nothing-done", [_t("b", "in_progress"), _t("c", "pending")],
     _join("1 in progress", "1 pending"), _join("1 进行中", "1 待处理")),
    ("three-active", [_t("a", "completed"), _t("b", "in_progress"), _t("c", "in_progress"), _t("d", "in_progress"),
                      _t("e", "pending")],
     _join("1 completed", "3 in progress", "1 pending"), _join("1 已完成", "3 进行中", "1 待处理")),
    ("all-completed", [_t("a", "completed")], "1 completed", "1 已完成"),
    ("fixture", FIXTURE_TODOS,
     _join("1 completed", "2 in progress", "1 pending"), _join("1 已完成", "2 进行中", "1 待处理")),
]


@pytest.mark.parametrize("locale", ["en", "zh"])
@pytest.mark.parametrize(("todos", "en", "zh"), [p[1:] for p in PANELS], ids=[p[0] for p in PANELS])
def test_panel_example(locale: str, todos: list[dict[str, Any]], en: str, zh: str) -> None:
    events = plan_log(todos)
    label = {"en": en, "zh": zh}[locale]
    assert web_golden(events, locale).split("\n")[4:] == [
        f"panel={label}", *(f"item={t['status']} {t['content']}" for t in todos)]
    assert panel_fields(todos, locale) == PanelFields(
        strings(locale).todo_title, label, tuple(PanelItem(t["status"], t["content"]) for t in todos))


def _no_plan_written() -> list[Any]:
    return todo_log(compact({"todos": PARALLEL}), todos=None, result=PARALLEL_ERROR, is_error=True)


def _empty_plan() -> list[Any]:
    return plan_log([])


def _cleared_by_a_later_turn() -> list[Any]:
    recs = todo_records(compact({"todos": FIXTURE_TODOS}), todos=FIXTURE_TODOS, result=FIXTURE_RESULT)
    recs.append({"type": "turn/start", "seq": recs[-1]["seq"] + 1, "time": recs[-1]["time"], "data": {"turn": 2}})
    return to_events(recs)


@pytest.mark.parametrize("locale", ["en", "zh"])
@pytest.mark.parametrize("build", [_no_plan_written, _empty_plan, _cleared_by_a_later_turn],
                         ids=["none", "empty", "after-turn-start"])
def test_panel_absent(locale: str, build: Any) -> None:
    golden = web_golden(build(), locale).split("\n")
    assert golden[-1] == "panel=<absent>"
    assert not any(line.startswith("item=") for line in golden)
    assert panel_fields([], locale) is None
    assert panel_fields(None, locale) is None


def test_panel_any_other_status_counts_as_pending() -> None:
    panel = panel_fields([_t("a", "done"), _t("b", "completed")])
    assert panel is not None
    assert panel.progress == _join("1 completed", "1 pending")


# --- locales ---------------------------------------------------------------------------------

def test_locale_strings() -> None:
    assert strings("en") is EN
    assert strings("zh") is ZH
    assert (ZH.todo_title, ZH.todo_row_title, EN.todo_title, EN.todo_row_title) == (
        "任务", "更新任务清单", "To-dos", "Update to-do list")
    with pytest.raises(ValueError, match="unknown locale"):
        strings("fr")


def test_interpolation_leaves_unknown_placeholders() -> None:
    assert interpolate("{done}/{total} 已完成 {other}", done=1, total=2) == "1/2 已完成 {other}"
