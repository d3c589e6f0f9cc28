"""Todo rules: the durable invariant T1–T5 (config-independent: it never counts
``in_progress`` items) and the policy what-if P1, kept apart from it."""

from __future__ import annotations

from typing import Any

from replay.checker import Checker, Found
from replay.findings import Rule, Severity
from replay.log.event import Event
from replay.log.values import show
from replay.todo.model import STATUSES, js_trim

T1 = Rule("T1", "invariant", "todo", "todo/write todos is an array")
T2 = Rule("T2", "invariant", "todo", "todo/write entries are objects")
T3 = Rule("T3", "invariant", "todo", "todo/write content is a non-empty string, already trimmed (JavaScript trim)")
T4 = Rule("T4", "invariant", "todo", "todo/write content is unique within the list")
T5 = Rule("T5", "invariant", "todo", "todo/write status is pending, in_progress or completed")
P1 = Rule("P1", "policy", "todo", "what-if: a single-active deployment would reject more than one in_progress")

_INTEREST = frozenset({"todo/write"})


def todo_problem(todos: Any) -> tuple[Rule, str] | None:
    """The first T-rule a ``todos`` value breaks, as ``(rule, message)``, in the
    harness's order (it stops at the first failure)."""
    if not isinstance(todos, list):
        return T1, f"todo/write todos must be an array, got {show(todos)}"
    seen: set[str] = set()
    for i, item in enumerate(todos):
        # A JS array entry passes the object test and then fails T3 (spec §4.4).
        if not isinstance(item, dict | list):
            return T2, f"todo/write entries must be objects (entry {i} is {show(item)})"
        content = item.get("content") if isinstance(item, dict) else None
        if not isinstance(content, str) or content == "" or js_trim(content) != content:
            return T3, (f"todo/write content must be non-empty and already trimmed (entry {i} "
                          f"content {show(content)})")
        if content in seen:
            return T4, f"todo/write repeats content {show(content)} (entry {i})"
        seen.add(content)
        status = item.get("status") if isinstance(item, dict) else None
        if status not in STATUSES:
            return T5, f"todo/write carries unknown status {show(status)} (entry {i})"
    return None


def _todos(ev: Event) -> Any:
    data = ev.data
    return data.get("todos") if isinstance(data, dict) else None


class TodoChecker(Checker):
    """T1–T5 on every ``todo/write``."""

    interest = _INTEREST

    def event(self, ev: Event) -> Found:
        problem = todo_problem(_todos(ev))
        if problem is None:
            return None
        rule, message = problem
        return [rule.error(message, ev.line, ev.seq, ev.type)]


class SingleActivePolicy(Checker):
    """P1: what a deployment with ``allowParallelInProgress=false`` would have refused."""

    interest = _INTEREST

    def event(self, ev: Event) -> Found:
        todos = _todos(ev)
        if not isinstance(todos, list):
            return None
        active = [t.get("content") for t in todos if isinstance(t, dict) and t.get("status") == "in_progress"]
        if len(active) <= 1:
            return None
        return [P1.finding(Severity.POLICY,
                           f"{len(active)} todos in_progress ({', '.join(show(a) for a in active)}): a "
                           "deployment with allowParallelInProgress=false would have rejected this call",
                           ev.line, ev.seq, ev.type)]
