"""The logs the browser tests load: real corpus logs mutated (``tests.render.web.builders``)
and a keyless run of a scenario written for the plan timeline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from replay.log.event import Event
from replay.log.reader import iter_events, read_log
from replay.log.source import file_source
from replay.scenarios.scenario import run_scenario
from tests.render.web.builders import compact, hostile_events, plan_log, to_events, todo_records

LONG_TASK = ("Refactor the entire authentication subsystem to use the new token broker, "
             "migrate every caller, keep the old session cookies readable during the rollout, "
             "and delete the legacy code paths once the dashboards stay green")[:200]
assert len(LONG_TASK) == 200 and LONG_TASK.strip() == LONG_TASK

PARALLEL_TODOS = [
    {"content": "read the code", "status": "completed"},
    {"content": LONG_TASK, "status": "in_progress"},
    {"content": "watch the background build", "status": "in_progress"},
    {"content": "survey the billing service", "status": "in_progress"},
    {"content": "write the fix", "status": "pending"},
]
PARALLEL_SUMMARY = f"1/5 completed · {LONG_TASK}"
PARALLEL_PROGRESS = "1 completed\u2002·\u20023 in progress\u2002·\u20021 pending"


def parallel_log() -> list[Event]:
    """One successful ``todo_write`` of a parallel plan whose first active task has 200 characters."""
    return plan_log(PARALLEL_TODOS)


def running_log() -> list[Event]:
    """The same call, still running (no result yet)."""
    return to_events(todo_records(compact({"todos": PARALLEL_TODOS}), todos=PARALLEL_TODOS, result=None))


HOSTILE_TODO = ("</script><script>window.__pwned='todo'</script><img src=x onerror=\"window.__pwned='img'\">"
                " \u2028 <!-- javascript:window.__pwned='js' \u2029 -->")
HOSTILE_USER = ("<img src=x onerror=\"window.__pwned='user'\"> <a href=\"javascript:window.__pwned='link'\">click</a>"
                " <script>window.__pwned='user-script'</script>")
HOSTILE_OUTPUT = ("</pre><script src=\"https://evil.example/x.js\"></script><img src=\"https://evil.example/p.png\">"
                  " javascript:window.__pwned=1 <style>@import url(https://evil.example/s.css)</style>")
HOSTILE_REASONING = "<iframe src=\"javascript:window.top.__pwned='frame'\"></iframe>"
HOSTILE_TITLE = "</title><script>window.__pwned='title'</script>"
HOSTILE_CALL_ID = "\"><script>window.__pwned='call'</script>"


def hostile_log() -> list[Event]:
    """A log whose todo content, user message, reasoning, tool output, title and call id
    hold markup, event handlers and ``javascript:`` URLs."""
    return hostile_events(todo=HOSTILE_TODO, user=HOSTILE_USER, output=HOSTILE_OUTPUT, reasoning=HOSTILE_REASONING,
                          title=HOSTILE_TITLE, call_id=HOSTILE_CALL_ID)


def _write(todos: list[tuple[str, str]]) -> dict[str, Any]:
    return {"toolCalls": [{"name": "todo_write",
                           "arguments": {"todos": [{"content": c, "status": s} for c, s in todos]}}]}


TIMELINE_SCENARIO: dict[str, Any] = {
    "description": "Three turns: a plan revised twice, cleared by the next turn, then a parallel plan.",
    "prompts": ["Plan and start the fix.", "How is it going?", "Now survey the services in parallel."],
    "tools": {"todo_write": {"allowParallelInProgress": True}},
    "model": {"script": [
        _write([("write the fix", "in_progress"), ("run the tests", "pending")]),
        _write([("write the fix", "completed"), ("run the tests", "in_progress")]),
        {"text": "The fix is written; the tests are running."},
        {"text": "Still running the tests."},
        _write([("survey auth", "in_progress"), ("survey billing", "in_progress"), ("summarize", "pending")]),
        _write([("survey auth", "completed"), ("survey billing", "in_progress"), ("summarize", "pending")]),
        {"text": "Auth is done; billing is next."},
    ]},
}


def timeline_log(folder: Path) -> tuple[Path, list[Event]]:
    """Run ``TIMELINE_SCENARIO`` keylessly under ``folder``; the log's path and its events."""
    scenario = folder / "timeline-plan"
    scenario.mkdir(parents=True)
    (scenario / "scenario.json").write_text(json.dumps(TIMELINE_SCENARIO, indent=2), encoding="utf-8")
    log = folder / "session.jsonl"
    log.write_bytes(run_scenario(scenario).logs[0].to_jsonl())
    return log, list(iter_events(read_log(file_source(str(log))).items()))
