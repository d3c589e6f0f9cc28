"""The HTML page: escaping, no network, the row/summary/suffix/panel hooks."""

from __future__ import annotations

import re

import pytest

from replay.render.web import html_page
from replay.render.web.page import CSS
from tests.helpers import SURFACE_REPLACE, index_of, records
from tests.render.web.builders import (
    FIXTURE_RESULT,
    FIXTURE_TODOS,
    compact,
    plan_log,
    to_events,
    todo_log,
    todo_records,
)
from tests.render.web.dom import Node, parse

ALLOWED_TAGS = {"#document", "html", "head", "meta", "title", "style", "body", "header", "h1", "main", "div", "details",
                "summary", "span", "pre", "section", "ul", "li"}

HOSTILE_TODO = '<script>alert("todo")</script>'
HOSTILE_USER = "<img src=x onerror=alert(1)> and javascript:alert(1)"
HOSTILE_OUTPUT = "</pre><script src=\"https://evil.example/x.js\"></script> javascript:alert(3) 'quoted' & more"
HOSTILE_REASONING = '<a href="javascript:alert(4)">click</a>'
HOSTILE_TITLE = "</title><script>alert(5)</script>"
HOSTILE_CALL_ID = '"><script>alert(6)</script>'


def _hostile_page() -> str:
    todos = [{"content": HOSTILE_TODO, "status": "in_progress"}, {"content": "b", "status": "in_progress"}]
    recs = todo_records(compact({"todos": todos}), todos=todos, result=HOSTILE_OUTPUT)
    recs[index_of(recs, "user/message")]["data"]["content"][0]["text"] = HOSTILE_USER
    recs[index_of(recs, "session/title")]["data"]["title"] = HOSTILE_TITLE
    message = recs[index_of(recs, "assistant/message")]["data"]["message"]
    message["content"][0]["text"] = HOSTILE_REASONING
    recs[index_of(recs, "tool/call")]["data"]["callId"] = HOSTILE_CALL_ID
    result = recs[index_of(recs, "tool/result")]["data"]["message"]
    result["source"]["callId"] = result["content"][0]["toolCallId"] = HOSTILE_CALL_ID
    return html_page(to_events(recs))


def _attrs(doc: Node) -> list[tuple[str, str, str]]:
    return [(n.tag, k, v) for n in doc.walk() for k, v in n.attrs.items()]


def test_every_log_string_is_escaped() -> None:
    page = _hostile_page()
    assert "<script" not in page.lower()
    assert "<img" not in page.lower() and "<a " not in page.lower()
    doc = parse(page)
    assert {n.tag for n in doc.walk()} <= ALLOWED_TAGS
    for tag, name, _ in _attrs(doc):
        assert name not in {"src", "href", "action", "formaction", "style", "srcset"}, (tag, name)
        assert not name.startswith("on"), (tag, name)
    text = doc.text
    for hostile in (HOSTILE_TODO, HOSTILE_USER, HOSTILE_OUTPUT, HOSTILE_REASONING, HOSTILE_TITLE):
        assert hostile in text
    assert doc.find("title").text == HOSTILE_TITLE
    row = doc.find("details", "tool")
    assert row.attrs["data-call-id"] == HOSTILE_CALL_ID
    assert row.find("span", "summary").text == f"0/2 completed · {HOSTILE_TODO}"


def test_the_page_loads_nothing_from_the_network() -> None:
    page = _hostile_page()
    without_log_text = page.replace("https://evil.example/x.js", "")
    assert not re.search(r"(?i)\b(?:https?|wss?|ftp):|//[a-z]", without_log_text)
    assert "url(" not in page and "@import" not in page
    assert "https://evil.example/x.js" not in [v for _, _, v in _attrs(parse(page))]
    csp = parse(page).find("meta", http_equiv="Content-Security-Policy").attrs["content"]
    assert "default-src 'none'" in csp


def _fixture_page(locale: str = "en") -> Node:
    events = todo_log(compact({"todos": FIXTURE_TODOS}), todos=FIXTURE_TODOS, result=FIXTURE_RESULT)
    return parse(html_page(events, locale=locale))


@pytest.mark.parametrize(("locale", "title", "summary", "panel_title", "progress"), [
    ("en", "Update to-do list", "1/4 completed · 实现 fixture 样本", "To-dos",
     "1 completed\u2002·\u20022 in progress\u2002·\u20021 pending"),
    ("zh", "更新任务清单", "1/4 已完成 · 实现 fixture 样本", "任务",
     "1 已完成\u2002·\u20022 进行中\u2002·\u20021 待处理"),
])
def test_row_and_panel_hooks(locale: str, title: str, summary: str, panel_title: str, progress: str) -> None:
    doc = _fixture_page(locale)
    assert doc.find("html").attrs["lang"] == locale
    row = doc.find("details", data_tool="todo_write")
    assert (row.attrs["data-state"], row.attrs["data-variant"]) == ("ok", "others")
    line = row.find("summary", "row")
    assert [c.classes[0] for c in line.element_children] == ["leading", "title", "sep", "summary", "summarySuffix"]
    assert line.find(cls="title").text == title
    summary_span = line.find("span", data_part="summary")
    suffix_span = line.find("span", data_part="suffix")
    assert summary_span.classes == ["summary"] and summary_span.text == summary
    assert suffix_span.classes == ["summarySuffix"] and suffix_span.text == "+1"
    assert not summary_span.find_all(cls="summarySuffix")  # a sibling after the summary, never inside it
    assert line.text == f"{title}{summary}+1"
    panel = doc.find("section", data_testid="todo-panel")
    assert panel.attrs["aria-label"] == panel_title
    assert panel.find(cls="title").text == panel_title
    assert panel.find("span", "progress", data_part="progress").text == progress
    assert [(li.attrs["data-status"], li.find(cls="content").text) for li in panel.find_all("li")] == [
        (t["status"], t["content"]) for t in FIXTURE_TODOS]
    assert "open" not in panel.find("details").attrs  # collapsed by default


def _css_rule(selector: str) -> str:
    match = re.search(r"(?m)^" + re.escape(selector) + r" \{([^}]*)\}", CSS)
    assert match, selector
    return match.group(1)


def test_the_summary_ellipsizes_and_the_suffix_stays() -> None:
    summary = _css_rule(".summary")
    for decl in ("flex: 1 1 auto", "min-width: 0", "overflow: hidden", "text-overflow: ellipsis",
                 "white-space: nowrap"):
        assert decl in summary
    suffix = _css_rule(".summarySuffix")
    for decl in ("flex: none", "margin-left: 4px", "white-space: nowrap"):
        assert decl in suffix
    assert "flex: none" in _css_rule(".row .title")


def test_error_row_markup() -> None:
    todos = [{"content": "a", "status": "in_progress"}, {"content": "b", "status": "in_progress"}]
    failure = "Error: invalid todos: at most one task may be in_progress (got 2)"
    doc = parse(html_page(todo_log(compact({"todos": todos}), todos=None, result=failure, is_error=True)))
    row = doc.find("details", data_tool="todo_write")
    assert row.attrs["data-state"] == "error"
    assert row.find(cls="stateLabel").text == "Failed"
    assert row.find("span", "summary").classes == ["summary", "errorSummary"]
    assert row.find("span", "summary").text == failure
    assert not row.find_all(cls="summarySuffix")
    assert row.find(cls="out").find("pre").text == failure
    assert not doc.find_all(data_testid="todo-panel")  # a rejected call writes no plan


def test_expanded_body_shows_pretty_args_and_output() -> None:
    doc = _fixture_page()
    row = doc.find("details", data_tool="todo_write")
    assert row.find(cls="in").find("pre").text.startswith('{\n  "todos": [\n    {\n      "content": "梳理需求",')
    assert row.find(cls="out").find("pre").text == FIXTURE_RESULT


def test_transcript_shows_messages_reasoning_and_turns() -> None:
    doc = parse(html_page(plan_log(FIXTURE_TODOS)))
    user = doc.find(cls="message", data_role="user", data_source="user")
    assert user.text.startswith("Use the todo_write tool")
    assistant = doc.find_all(cls="message", data_role="assistant")
    assert [b.text for b in assistant[0].element_children] == [
        'The user wants me to use todo_write to create exactly three todos, then reply with "DONE" and stop.']
    assert [(b.classes, b.text) for b in assistant[1].element_children] == [
        (["reasoning"], "Done."), (["text"], "DONE")]
    assert doc.find(cls="turn").attrs["data-turn"] == "1"
    assert doc.find("title").text == "Use the todo_write tool to"
    assert "<!doctype html>" in html_page(plan_log([]), title="t")


def test_no_panel_without_a_standing_plan() -> None:
    doc = parse(html_page(plan_log([])))
    assert not doc.find_all(data_testid="todo-panel")
    assert doc.find("details", data_tool="todo_write").find("span", "summary").text == "0/0 completed"


def test_surface_replacements_are_not_shown() -> None:
    events = to_events(records(SURFACE_REPLACE))
    doc = parse(html_page(events))
    assert "Earlier context was compacted" not in doc.text
    assert doc.find_all("details", "tool")


def test_unknown_locale_is_refused() -> None:
    with pytest.raises(ValueError):
        html_page(plan_log([]), locale="de")
