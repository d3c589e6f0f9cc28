"""Every fold and renderer is linear in the events, whatever the seq order.

The work is measured as the number of Python function calls and generator steps
(``sys.setprofile`` events), which does not depend on the machine: a linear fold does
about 4 times the work for 4 times the events, a quadratic one 16 times."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pytest

from replay.check.engine import audit_events
from replay.log.event import DictEvent, Event
from replay.project.tools import tool_calls
from replay.project.transcript import transcript
from replay.render.acp import render_acp
from replay.render.stdio import stdio_text
from replay.render.web import html_page, web_golden
from replay.render.web.timeline import timeline_steps
from replay.todo.plan import standing_plan
from tests.helpers import todo_turns


def _log(turns: int, disorder: str) -> list[Event]:
    return [DictEvent(r["type"], r["seq"], 0, r["data"], line, r)
            for line, r in enumerate(todo_turns(turns, disorder)[1:], start=2)]


FOLDS: dict[str, Callable[[list[Event]], Any]] = {
    "timeline": lambda evs: timeline_steps(evs),
    "html page": lambda evs: html_page(evs),
    "web golden": lambda evs: web_golden(evs),
    "standing plan": lambda evs: standing_plan(evs, at=len(evs) // 2),
    "tool calls": lambda evs: tool_calls(evs),
    "transcript": lambda evs: transcript(evs),
    "acp live": lambda evs: list(render_acp(evs, session_id="s")),
    "acp load": lambda evs: list(render_acp(evs, session_id="s", mode="load")),
    "stdio": lambda evs: stdio_text(evs),
    "audit": lambda evs: audit_events(evs),
}


def _work(fold: Callable[[list[Event]], Any], events: list[Event]) -> int:
    calls = 0

    def count(frame: Any, event: str, arg: Any) -> None:
        nonlocal calls
        calls += 1

    sys.setprofile(count)
    try:
        fold(events)
    finally:
        sys.setprofile(None)
    return calls


@pytest.mark.parametrize("disorder", ["none", "one", "reversed"])
@pytest.mark.parametrize("name", list(FOLDS))
def test_work_grows_linearly(name: str, disorder: str) -> None:
    fold = FOLDS[name]
    small = _work(fold, _log(100, disorder))
    large = _work(fold, _log(400, disorder))
    assert large / small < 5.0, f"{name} with seq disorder {disorder}: {small} → {large} calls for 4× the events"
