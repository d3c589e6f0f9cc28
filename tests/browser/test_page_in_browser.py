"""A session's HTML page (``html_page``: the page ``replay view LOG``, ``render web
--html`` and the site make) in a real headless Chromium: truncation, escaping, no
network, the panel's toggle, the plan timeline against ``replay plan --at``, locales and
the accessibility tree."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from replay.render.web import html_page
from tests.browser.conftest import Opener, keep_screenshot
from tests.browser.logs import (
    HOSTILE_OUTPUT,
    HOSTILE_REASONING,
    HOSTILE_TITLE,
    HOSTILE_TODO,
    HOSTILE_USER,
    LONG_TASK,
    PARALLEL_PROGRESS,
    PARALLEL_SUMMARY,
    PARALLEL_TODOS,
    hostile_log,
    parallel_log,
    running_log,
    timeline_log,
)
from tests.helpers import REPO
from tests.render.web.builders import FIXTURE_RESULT, FIXTURE_TODOS, compact, todo_log

if TYPE_CHECKING:
    from playwright.sync_api import Page

ROW = "details.tool[data-tool=todo_write] > summary.row"
PANEL = "section[data-testid=todo-panel]"
PANEL_BUTTON = f"{PANEL} > button.header"

MEASURE_ROW = """(selector) => {
  const row = document.querySelector(selector);
  const summary = row.querySelector("[data-part=summary]");
  const suffix = row.querySelector("[data-part=suffix]");
  const box = (el) => { const r = el.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width}; };
  return {row: box(row), summary: box(summary), suffix: box(suffix),
    summaryScroll: summary.scrollWidth, summaryClient: summary.clientWidth,
    suffixScroll: suffix.scrollWidth, suffixClient: suffix.clientWidth,
    summaryText: summary.textContent, suffixText: suffix.textContent,
    pageScroll: document.documentElement.scrollWidth};
}"""


@pytest.mark.parametrize("width", [320, 480, 1280])
def test_the_summary_ellipsizes_and_the_suffix_stays_whole(open_page: Opener, tmp_path: Path, width: int) -> None:
    loaded = open_page(html_page(parallel_log()), width=width, scale=2)
    m: dict[str, Any] = loaded.page.evaluate(MEASURE_ROW, ROW)
    assert m["summaryScroll"] > m["summaryClient"], "the 200-character task name is truncated"
    row, summary, suffix = m["row"], m["summary"], m["suffix"]
    assert suffix["width"] > 0
    assert row["left"] <= suffix["left"] and suffix["right"] <= row["right"], (row, suffix)
    assert row["top"] <= suffix["top"] and suffix["bottom"] <= row["bottom"], (row, suffix)
    assert m["suffixScroll"] <= m["suffixClient"], "the suffix itself is not clipped"
    assert summary["right"] <= suffix["left"], "the suffix follows the summary, never over it"
    assert (m["summaryText"], m["suffixText"]) == (PARALLEL_SUMMARY, "+2"), "the DOM keeps the full name"
    assert m["pageScroll"] <= width, "nothing overflows the viewport sideways"
    assert loaded.errors == [] and loaded.foreign_requests == []
    if width == 320:
        shot = tmp_path / "row-320px-parallel-plan.png"
        loaded.page.locator(ROW).screenshot(path=str(shot))
        keep_screenshot(shot)


def test_nothing_in_a_log_runs_or_loads(open_page: Opener) -> None:
    loaded = open_page(html_page(hostile_log()))
    page = loaded.page
    page.locator(PANEL_BUTTON).click()
    for details in page.locator("details").all():
        details.locator("> summary").click()
    for jump in page.locator("#plan-timeline-steps button").all():
        jump.click()
    page.get_by_text("click", exact=False).first.click()
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert loaded.foreign_requests == []
    assert loaded.errors == [], "no CSP violation: nothing even tried to run or load"
    assert page.evaluate("document.querySelectorAll('img, iframe, object, embed, link').length") == 0
    links = page.evaluate("Array.from(document.links, (a) => a.getAttribute('href'))")
    assert links and all(href.startswith("#") for href in links), links  # each to a place on the page
    assert page.evaluate("Array.from(document.forms, (f) => f.method)") == ["dialog"]  # the help's close button
    assert page.evaluate("document.scripts.length") == 2  # the timeline's data block and the page's script
    assert page.title() == HOSTILE_TITLE
    assert page.locator(".message[data-role=user][data-source=user] .text").text_content() == HOSTILE_USER
    assert page.locator(".message[data-role=assistant] .reasoning").first.text_content() == HOSTILE_REASONING
    assert page.locator("details.tool .out pre").text_content() == HOSTILE_OUTPUT
    assert page.locator(f"{ROW} [data-part=summary]").text_content() == f"0/2 completed · {HOSTILE_TODO}"
    assert page.locator("#todo-panel-list li .content").first.text_content() == HOSTILE_TODO
    assert page.locator("#plan-timeline-view li .content").first.text_content() == HOSTILE_TODO
    assert page.locator("#todo-panel-list li .content").first.is_visible()


def test_the_policy_stops_markup_that_escaped_escaping(open_page: Opener) -> None:
    """Defence in depth: markup spliced in raw (as an escaping bug would) neither runs
    nor loads, while the page's own script still does."""
    page_html = html_page(parallel_log()).replace("<main", (
        "<script>window.__pwned='inline'</script><img src='https://evil.example/p.png' "
        "onerror=\"window.__pwned='handler'\"><link rel=stylesheet href='https://evil.example/s.css'><main"), 1)
    loaded = open_page(page_html)
    assert loaded.page.evaluate("typeof window.__pwned") == "undefined"
    blocked = " ".join(loaded.errors)
    assert blocked.count("Content Security Policy") >= 3, loaded.errors
    assert loaded.page.locator("#plan-timeline-view li").count() == len(PARALLEL_TODOS)  # the page's script ran


def _expanded(page: Page) -> tuple[str | None, bool]:
    return page.locator(PANEL_BUTTON).get_attribute("aria-expanded"), page.locator("#todo-panel-list").is_visible()


def test_the_panel_toggles_by_click_and_keyboard(open_page: Opener, tmp_path: Path) -> None:
    loaded = open_page(html_page(parallel_log()), width=480, scale=2)
    page = loaded.page
    button = page.locator(PANEL_BUTTON)
    assert button.get_attribute("aria-controls") == "todo-panel-list"
    assert _expanded(page) == ("false", False), "collapsed by default"
    button.click()
    assert _expanded(page) == ("true", True)
    button.click()
    assert _expanded(page) == ("false", False)
    button.focus()
    page.keyboard.press("Enter")
    assert _expanded(page) == ("true", True)
    page.keyboard.press("Space")
    assert _expanded(page) == ("false", False)
    page.keyboard.press("Space")
    assert _expanded(page) == ("true", True)
    assert page.locator(f"{PANEL} li").evaluate_all("(items) => items.map((li) => li.dataset.status)") == [
        t["status"] for t in PARALLEL_TODOS]
    assert page.locator(f"{PANEL} .progress").text_content() == PARALLEL_PROGRESS
    assert loaded.errors == []
    button.blur()
    shot = tmp_path / "panel-expanded.png"
    page.locator(PANEL).screenshot(path=str(shot))
    keep_screenshot(shot)


def _cli_plan(log: Path, seq: int) -> Any:
    proc = subprocess.run([sys.executable, "-m", "replay", "plan", "--at", str(seq), str(log)],
                          cwd=REPO, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def _shown(page: Page) -> list[tuple[str | None, str | None]]:
    items = page.locator("#plan-timeline-view li")
    return [(li.get_attribute("data-status"), li.locator(".content").text_content()) for li in items.all()]


def test_the_timeline_shows_the_plan_replay_plan_gives(open_page: Opener, tmp_path: Path) -> None:
    log, events = timeline_log(tmp_path)
    loaded = open_page(html_page(events))
    page = loaded.page
    jumps = page.locator("#plan-timeline-steps button")
    steps = [(int(b.get_attribute("data-seq") or ""), b.get_attribute("data-cause")) for b in jumps.all()]
    expected_causes = ["todo/write", "todo/write", "turn/start", "todo/write", "todo/write"]
    assert [cause for _, cause in steps] == expected_causes
    view = page.locator("#plan-timeline-view")
    assert view.get_attribute("data-seq") == str(steps[-1][0]), "it opens on the standing plan"
    for index in (1, 2, 3):  # a revised plan, the clearing turn/start, a parallel plan
        seq = steps[index][0]
        page.locator(f"#plan-timeline-steps button[data-seq='{seq}']").click()
        assert view.get_attribute("data-seq") == str(seq)
        assert page.locator(f"#plan-timeline-steps button[data-seq='{seq}']").get_attribute("aria-current") == "step"
        plan = _cli_plan(log, seq)
        if plan is None:
            assert _shown(page) == [] and view.locator(".empty").text_content() == "No plan"
        else:
            assert _shown(page) == [(t["status"], t["content"]) for t in plan]
        label = page.locator(f"#plan-timeline-steps button[data-seq='{seq}']").text_content() or ""
        assert label.startswith("turn ") and label in (page.locator("#plan-timeline-status").text_content() or "")
    # the range input and the previous/next buttons step too
    slider = page.locator("#plan-timeline-range")
    slider.focus()
    page.keyboard.press("Home")
    assert view.get_attribute("data-seq") == str(steps[0][0])
    assert page.locator("#plan-timeline-prev").is_disabled()
    page.keyboard.press("ArrowRight")
    assert view.get_attribute("data-seq") == str(steps[1][0])
    page.locator("#plan-timeline-next").click()
    assert view.get_attribute("data-seq") == str(steps[2][0])
    page.locator("#plan-timeline-prev").click()
    assert view.get_attribute("data-seq") == str(steps[1][0])
    assert _shown(page) == [(t["status"], t["content"]) for t in _cli_plan(log, steps[1][0])]
    assert loaded.errors == [] and loaded.foreign_requests == []


@pytest.mark.parametrize(("locale", "title", "summary", "suffix_name", "panel_title", "progress"), [
    ("en", "Update to-do list", "1/4 completed · 实现 fixture 样本", "1 more in progress", "To-dos",
     "1 completed\u2002·\u20022 in progress\u2002·\u20021 pending"),
    ("zh", "更新任务清单", "1/4 已完成 · 实现 fixture 样本", "另有 1 项进行中", "任务",
     "1 已完成\u2002·\u20022 进行中\u2002·\u20021 待处理"),
])
def test_the_locales_show_the_harness_strings(open_page: Opener, locale: str, title: str, summary: str,
                                              suffix_name: str, panel_title: str, progress: str) -> None:
    events = todo_log(compact({"todos": FIXTURE_TODOS}), todos=FIXTURE_TODOS, result=FIXTURE_RESULT)
    page = open_page(html_page(events, locale=locale)).page
    assert page.evaluate("document.documentElement.lang") == locale
    assert page.locator(f"{ROW} .title").text_content() == title
    assert page.locator(f"{ROW} [data-part=summary]").text_content() == summary
    suffix = page.locator(f"{ROW} [data-part=suffix]")
    assert (suffix.text_content(), suffix.get_attribute("aria-label")) == ("+1", suffix_name)
    assert page.locator(f"{PANEL} > button .title").text_content() == panel_title
    assert page.locator(f"{PANEL} .progress").text_content() == progress
    assert page.locator(PANEL).get_attribute("aria-label") == panel_title
    took = page.locator(f"{ROW} .dur").text_content()
    assert page.locator(f"{ROW}").text_content() == f"{title}{summary}+1{took}"


@pytest.mark.parametrize(("locale", "suffix_name", "panel_name", "running"), [
    ("en", "2 more in progress", "To-dos 1 completed · 3 in progress · 1 pending", "Running"),
    ("zh", "另有 2 项进行中", "任务 1 已完成 · 3 进行中 · 1 待处理", "运行中"),
])
def test_the_accessibility_tree_names_the_suffix_and_the_toggle(open_page: Opener, locale: str, suffix_name: str,
                                                                panel_name: str, running: str) -> None:
    page = open_page(html_page(running_log(), locale=locale)).page
    row = page.locator(ROW).aria_snapshot()
    assert f'img "{suffix_name}"' in row, row
    assert running in row, "the row's state is announced"
    assert LONG_TASK in row
    assert page.get_by_role("img", name=suffix_name).count() == 1
    toggle = page.get_by_role("button", name=panel_name)
    assert toggle.count() == 1
    assert "[expanded]" not in page.locator(PANEL).aria_snapshot()
    toggle.click()
    panel = page.locator(PANEL).aria_snapshot()
    assert f'button "{panel_name}" [expanded]' in panel, panel
    assert panel.count("listitem") == len(PARALLEL_TODOS)
