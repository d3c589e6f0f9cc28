"""A session's HTML page (``html_page``: the page ``replay view LOG``, ``render web
--html`` and the site make): escaping, no network, the row/summary/suffix/panel hooks."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from typing import Any

import pytest

from replay.log.event import DictEvent, Event
from replay.render.web import html_page
from replay.render.web.page_assets import CSS as PAGE_CSS
from replay.render.web.page_assets import SESSION_CSP as CSP
from replay.render.web.page_assets import SESSION_CSS as CSS
from replay.render.web.page_assets import SESSION_SCRIPT as SCRIPT
from replay.render.web.page_assets import source_hash
from replay.render.web.site_strings import SITE_EN
from replay.render.web.timeline import script_json, timeline_steps
from replay.todo.plan import standing_plan
from tests.helpers import SURFACE_REPLACE, records
from tests.render.web.builders import (
    FIXTURE_RESULT,
    FIXTURE_TODOS,
    compact,
    hostile_events,
    plan_log,
    to_events,
    todo_log,
)
from tests.render.web.dom import Node, parse

ALLOWED_TAGS = {"#document", "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "main",
                "div", "details", "summary", "span", "pre", "section", "ul", "ol", "li", "p", "button", "input",
                "script", "a", "code", "dl", "dt", "dd", "kbd", "label", "select", "option", "dialog", "form",
                "figure", "figcaption", "svg", "rect"}

HOSTILE_TODO = '<script>alert("todo")</script>'
HOSTILE_USER = "<img src=x onerror=alert(1)> and javascript:alert(1)"
HOSTILE_OUTPUT = "</pre><script src=\"https://evil.example/x.js\"></script> javascript:alert(3) 'quoted' & more"
HOSTILE_REASONING = '<a href="javascript:alert(4)">click</a>'
HOSTILE_TITLE = "</title><script>alert(5)</script>"
HOSTILE_CALL_ID = '"><script>alert(6)</script>'


def _hostile_page() -> str:
    return html_page(hostile_events(todo=HOSTILE_TODO, user=HOSTILE_USER, output=HOSTILE_OUTPUT,
                                    reasoning=HOSTILE_REASONING, title=HOSTILE_TITLE, call_id=HOSTILE_CALL_ID))


def _attrs(doc: Node) -> list[tuple[str, str, str]]:
    return [(n.tag, k, v) for n in doc.walk() for k, v in n.attrs.items()]


def _scripts(doc: Node) -> list[Node]:
    return doc.find_all("script")


def test_every_log_string_is_escaped() -> None:
    page = _hostile_page()
    doc = parse(page)
    data, code = _scripts(doc)  # the timeline's data block, then the page's own script; nothing else
    assert data.attrs == {"type": "application/json", "id": "plan-timeline-data"}
    assert code.attrs == {} and code.text == SCRIPT
    assert page.lower().count("<script") == 2
    assert "<img" not in page.lower()
    assert not re.search(r"[<>&\u2028\u2029]", data.text)  # log text cannot end the element
    steps = json.loads(data.text)["steps"]
    assert [content for _, _, content in steps[-1]["items"]] == [HOSTILE_TODO, "b"]
    assert {n.tag for n in doc.walk()} <= ALLOWED_TAGS
    for tag, name, value in _attrs(doc):
        assert name not in {"src", "action", "formaction", "style", "srcset"}, (tag, name)
        assert name != "href" or value.startswith("#"), (tag, name, value)  # a link to a place on the page
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
    without_log_text = re.sub(r'<meta http-equiv="Content-Security-Policy" content="[^"]*">', "",
                              page.replace("https://evil.example/x.js", ""))  # a hash may hold "//"
    without_log_text = without_log_text.replace(' xmlns="http://www.w3.org/2000/svg"', "")  # a name, not a fetch
    assert not re.search(r"(?i)\b(?:https?|wss?|ftp):|//[a-z]", without_log_text)
    assert "url(" not in page and "@import" not in page
    assert "https://evil.example/x.js" not in [v for _, _, v in _attrs(parse(page))]
    csp = parse(page).find("meta", http_equiv="Content-Security-Policy").attrs["content"]
    assert csp == CSP
    directives = dict(d.split(" ", 1) for d in csp.split("; "))
    assert directives["default-src"] == "'none'"
    assert directives["script-src"] == source_hash(SCRIPT)  # only the page's own script runs
    assert directives["style-src"] == source_hash(CSS)
    assert "unsafe" not in csp and "connect-src" not in directives and "img-src" not in directives
    assert directives["require-trusted-types-for"] == "'script'"  # no HTML-string sinks at all
    assert "innerHTML" not in SCRIPT and "insertAdjacentHTML" not in SCRIPT and "eval" not in SCRIPT


def test_the_csp_hashes_are_sha256_of_the_inline_texts() -> None:
    digest = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
    assert source_hash(SCRIPT) == f"'sha256-{digest}'"
    doc = parse(html_page(plan_log(FIXTURE_TODOS)))
    assert doc.find("style").text == CSS and _scripts(doc)[-1].text == SCRIPT


def _fixture_page(locale: str = "en") -> Node:
    events = todo_log(compact({"todos": FIXTURE_TODOS}), todos=FIXTURE_TODOS, result=FIXTURE_RESULT)
    return parse(html_page(events, locale=locale))


@pytest.mark.parametrize(("locale", "title", "summary", "suffix_name", "panel_title", "progress", "glyphs"), [
    ("en", "Update to-do list", "1/4 completed · 实现 fixture 样本", "1 more in progress", "To-dos",
     "1 completed\u2002·\u20022 in progress\u2002·\u20021 pending",
     ["Completed", "In progress", "In progress", "Pending"]),
    ("zh", "更新任务清单", "1/4 已完成 · 实现 fixture 样本", "另有 1 项进行中", "任务",
     "1 已完成\u2002·\u20022 进行中\u2002·\u20021 待处理", ["已完成", "进行中", "进行中", "待处理"]),
])
def test_row_and_panel_hooks(locale: str, title: str, summary: str, suffix_name: str, panel_title: str,
                             progress: str, glyphs: list[str]) -> None:
    doc = _fixture_page(locale)
    assert doc.find("html").attrs["lang"] == locale
    row = doc.find("details", data_tool="todo_write")
    assert (row.attrs["data-state"], row.attrs["data-variant"]) == ("ok", "others")
    line = row.find("summary", "row")
    assert [c.classes[0] for c in line.element_children] == ["anchor", "leading", "title", "sep", "summary",
                                                              "summarySuffix", "dur"]  # its seq's anchor, its time
    assert line.find(cls="title").text == title
    summary_span = line.find("span", data_part="summary")
    suffix_span = line.find("span", data_part="suffix")
    assert summary_span.classes == ["summary"] and summary_span.text == summary
    assert suffix_span.classes == ["summarySuffix"] and suffix_span.text == "+1"
    assert not summary_span.find_all(cls="summarySuffix")  # a sibling after the summary, never inside it
    assert line.text == f"{title}{summary}+1{line.find('span', 'dur').text}"
    assert (suffix_span.attrs["role"], suffix_span.attrs["aria-label"]) == ("img", suffix_name)
    panel = doc.find("section", data_testid="todo-panel")
    assert panel.attrs["aria-label"] == panel_title
    button = panel.find("button", "header")
    assert (button.attrs["type"], button.attrs["aria-expanded"]) == ("button", "false")  # collapsed by default
    assert button.find(cls="title").text == panel_title
    assert button.find("span", "progress", data_part="progress").text == progress
    listing = panel.find("ul", id=button.attrs["aria-controls"])
    assert "hidden" in listing.attrs
    assert [(li.attrs["data-status"], li.find(cls="content").text) for li in listing.find_all("li")] == [
        (t["status"], t["content"]) for t in FIXTURE_TODOS]
    assert [li.find(cls="glyph").attrs["aria-label"] for li in listing.find_all("li")] == glyphs


def _css_rule(selector: str) -> str:
    match = re.search(r"(?m)^" + re.escape(selector) + r" \{([^}]*)\}", PAGE_CSS)  # page.css, as written
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
    thinking = assistant[0].find("details", "thinking")
    assert "open" not in thinking.attrs  # reasoning is collapsed
    assert thinking.find("summary").text == "Reasoning"
    assert [b.text for b in thinking.find_all(cls="reasoning")] == [
        'The user wants me to use todo_write to create exactly three todos, then reply with "DONE" and stop.']
    assert [(b.tag, b.classes) for b in assistant[1].element_children] == [("details", ["thinking"]), ("div", ["text"])]
    assert (assistant[1].find(cls="reasoning").text, assistant[1].find(cls="text").text) == ("Done.", "DONE")
    zh = parse(html_page(plan_log(FIXTURE_TODOS), locale="zh"))
    assert zh.find("details", "thinking").find("summary").text == "推理过程"
    assert doc.find("section", "turnBlock").attrs["data-turn"] == "1"
    assert doc.find("title").text == doc.find("h1").text == user.text  # the prompt, whole (the title was cut)


@pytest.mark.parametrize(("result", "is_error", "error", "state", "icon"), [
    (FIXTURE_RESULT, False, None, "ok", "done"),
    ("Error: no", True, None, "error", "failed"),
    ("Error: stopped", True, {"name": "AbortError", "code": "interrupted"}, "stopped", "interrupted"),
    (None, False, None, "running", "pending"),
])
def test_the_row_icon_reads_right(result: str | None, is_error: bool, error: dict[str, str] | None, state: str,
                                  icon: str) -> None:
    """A call that is done shows a check, not the empty square that reads "not done"."""
    events = todo_log(compact({"todos": FIXTURE_TODOS}), todos=FIXTURE_TODOS, result=result, is_error=is_error,
                      error=error)
    row = parse(html_page(events)).find("details", data_tool="todo_write")
    assert row.attrs["data-state"] == state
    assert row.find("span", "leading").attrs == {"class": "leading", "aria-hidden": "true", "data-icon": icon}
    assert f".leading[data-icon={icon}]::before" in CSS


def test_every_label_of_the_page_is_localized() -> None:
    """The input and output labels and the title of a session without one (no title, no
    prompt, no path) were English in zh."""
    events = [e for e in todo_log(compact({"todos": FIXTURE_TODOS}), todos=FIXTURE_TODOS, result=FIXTURE_RESULT)
              if e.type not in ("session/title", "user/message")]
    for locale, labels, title in (("en", ["IN", "OUT"], "Session replay"), ("zh", ["输入", "输出"], "会话回放")):
        doc = parse(html_page(events, locale=locale))
        assert [n.text for n in doc.find_all(cls="label")] == labels
        assert doc.find("title").text == doc.find("h1").text == title
    assert '"Noto Sans CJK SC"' in CSS and '"WenQuanYi Micro Hei"' in CSS  # CJK fallbacks of a Linux desktop


def test_no_panel_without_a_standing_plan() -> None:
    doc = parse(html_page(plan_log([])))
    assert not doc.find_all(data_testid="todo-panel")
    assert doc.find("section", id="plan-timeline")  # the empty write is still a step
    assert doc.find("details", data_tool="todo_write").find("span", "summary").text == "0/0 completed"


def test_surface_replacements_are_not_shown() -> None:
    events = to_events(records(SURFACE_REPLACE))
    doc = parse(html_page(events))
    said = [n for n in doc.walk() if "Earlier context was compacted" in n.text and not n.element_children]
    assert said and all(n.tag == "pre" for n in said)  # only in the data of a collapsed event's line…
    replaced = [d for d in doc.find_all("details", "log") if d.find("span", "brief").text == SITE_EN.replaced]
    assert replaced and not [m for m in doc.find_all(cls="message") if "Earlier context" in m.text]  # …never shown
    assert doc.find_all("details", "tool")


def test_unknown_locale_is_refused() -> None:
    with pytest.raises(ValueError):
        html_page(plan_log([]), locale="de")


def _event(type_: str, seq: int, data: Any) -> Event:
    return DictEvent(type_, seq, 0, data, seq + 1, {"type": type_, "seq": seq, "data": data})


def _write(seq: int, *contents: str) -> Event:
    return _event("todo/write", seq, {"todos": [{"content": c, "status": "pending"} for c in contents]})


def test_timeline_steps_are_the_plan_changes() -> None:
    events = [_event("turn/start", 1, {"turn": 1}), _write(2, "a"), _write(3, "a", "b"),
              _event("turn/end", 4, {"turn": 1}), _event("turn/start", 5, {"turn": 2}),
              _event("turn/start", 6, {"turn": 3}), _write(7, "c")]
    steps = timeline_steps(events)
    # the turn/start that finds no plan (1, 6) changes nothing and is no step
    assert [(s.seq, s.cause) for s in steps] == [(2, "todo/write"), (3, "todo/write"), (5, "turn/start"),
                                                 (7, "todo/write")]
    for step in steps:
        plan = standing_plan(events, at=step.seq)
        assert (step.panel is None) == (not plan)
        if step.panel is not None and plan is not None:
            assert [i.content for i in step.panel.items] == [t["content"] for t in plan]
    # named in words: the turn, what happened, and how far the plan it left is done
    assert [s.label for s in steps] == ["turn 1 · plan written · 0 of 1 done", "turn 1 · plan written · 0 of 2 done",
                                        "turn 2 · new turn, plan cleared", "turn 3 · plan written · 0 of 1 done"]
    assert [s.label for s in timeline_steps(events, "zh")] == [
        "第 1 轮 · 写入计划 · 已完成 0/1", "第 1 轮 · 写入计划 · 已完成 0/2", "第 2 轮 · 新一轮，计划已清空",
        "第 3 轮 · 写入计划 · 已完成 0/1"]
    assert [s.position for s in timeline_steps(events, "zh")] == [f"第 {i} / 4 次" for i in range(1, 5)]


def test_a_write_outside_any_turn_is_named_by_its_seq() -> None:
    done = _event("todo/write", 3, {"todos": [{"content": "a", "status": "completed"},
                                              {"content": "b", "status": "pending"}]})
    assert [s.label for s in timeline_steps([done])] == ["seq 3 · plan written · 1 of 2 done"]


def test_timeline_agrees_with_standing_plan_when_seqs_are_out_of_order() -> None:
    events = [_event("turn/start", 1, {"turn": 1}), _write(5, "late"), _write(3, "early")]
    steps = timeline_steps(events)
    # ``replay plan --at 5`` keeps every event with seq <= 5, so the write at seq 3, read last, wins
    assert [(s.seq, [i.content for i in s.panel.items] if s.panel else None) for s in steps] == [
        (5, ["early"]), (3, ["early"])]


def test_script_json_cannot_end_the_script_element() -> None:
    value = {"x": "</script><script>alert(1)</script><!-- & \u2028\u2029 -->"}
    text = script_json(value)
    assert not re.search(r"[<>&\u2028\u2029]", text)
    assert json.loads(text) == value


@pytest.mark.parametrize("summary", [None, ""])
def test_a_row_without_a_summary_has_no_separator(summary: str | None) -> None:
    """A ``workflow`` row read ``Tool call · workflow ·``: no separator before nothing."""
    from replay.render.web.page import row_line_html
    from replay.render.web.page_strings import page_strings
    from replay.render.web.row import RowFields

    row = RowFields("workflow", "c1", "ok", None, "Tool call", summary, None)
    line = parse(row_line_html(row, page_strings("en"))).find("summary", "row")
    assert [c.classes[0] for c in line.element_children] == ["leading", "title"] and line.text == "Tool call"
    shown = parse(row_line_html(RowFields("workflow", "c1", "ok", None, "Tool call", "workflow", None),
                                page_strings("en"))).find("summary", "row")
    assert [c.classes[0] for c in shown.element_children] == ["leading", "title", "sep", "summary"]
