"""The web tool row (web-stdio-todo.md §1.1): what one tool call's collapsed row shows.

The ``todo_write`` row reads the call's *arguments* (never the ``todo/write`` event)
and its result; other tools get the generic card (title ``Tool call``, generic
summary). Texts are the DOM texts, untrimmed; the golden formatter trims.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from replay.jsjson import parse
from replay.project.tools import Outcome, ToolCall, first_line, is_js_object, outcome
from replay.render.web.locale import GENERIC_TOOL_TITLE, SUMMARY_JOINER, Strings, interpolate, strings
from replay.todo.model import js_trim
from replay.todo.tool import TOOL_NAME

RowState = Literal["running", "ok", "error", "stopped"]
_STATES: dict[Outcome, RowState] = {"pending": "running", "done": "ok", "failed": "error", "interrupted": "stopped"}
"""The harness's name for each outcome of a call (``replay.project.tools.outcome``)."""


@dataclass(frozen=True, slots=True)
class RowFields:
    """One collapsed tool row."""

    tool: str
    """``data-tool``: the tool name."""
    call_id: str
    state: RowState
    """``data-state``."""
    state_label: str | None
    """The visually hidden state label before the row (``None`` when ``ok``)."""
    title: str
    summary: str | None
    """The ``.summary`` span's text; ``None`` when the collapsed content is absent."""
    suffix: str | None
    """The ``.summarySuffix`` span's text (``+N``); ``None`` when there is no such span."""
    error_summary: bool = False
    """The summary is the failure line (the span also has class ``errorSummary``)."""


@dataclass(frozen=True, slots=True)
class PlanSummary:
    """The summary of a ``todo_write`` call's arguments, before the row's state applies."""

    text: str
    suffix: str | None


def row_state(call: ToolCall) -> RowState:
    return _STATES[outcome(call.result)]


Parsed = tuple[bool, Any]
"""``replay.jsjson.parse`` of a call's raw arguments, when a caller has it already."""


def generic_summary(name: str, args_raw: str, call_id: str, parsed: Parsed | None = None) -> str:
    """The generic fallback: ``"{name} · " + base`` (see §1.1)."""
    return name + SUMMARY_JOINER + _generic_base(args_raw, call_id, parsed)


def _generic_base(args_raw: str, call_id: str, parsed: Parsed | None) -> str:
    if args_raw == "":
        return call_id
    ok, value = parsed if parsed is not None else parse(args_raw)
    if not ok or not is_js_object(value):
        return first_line(args_raw)
    values = value.values() if isinstance(value, dict) else value
    for item in values:
        if isinstance(item, str) and item != "":
            return first_line(item)
    return first_line(args_raw)


def plan_summary(args_raw: str, call_id: str, s: Strings, name: str = TOOL_NAME,
                 parsed: Parsed | None = None) -> PlanSummary:
    """The ``todo_write`` summary and ``+N`` suffix computed from the raw arguments
    (``parsed``: their ``parse``, when the caller has it)."""
    ok, root = parsed if parsed is not None else parse(args_raw)
    todos = root.get("todos") if ok and isinstance(root, dict) else None
    if not isinstance(todos, list) or not all(is_js_object(t) for t in todos):
        return PlanSummary(generic_summary(name, args_raw, call_id, (ok, root)), None)
    done = sum(1 for t in todos if _field(t, "status") == "completed")
    active = [t for t in todos if _field(t, "status") == "in_progress"]
    first = _field(active[0], "content") if active else None
    named = isinstance(first, str) and js_trim(first) != ""
    head = interpolate(s.todo_completed, done=done, total=len(todos))
    if not named:
        return PlanSummary(head, None)
    assert isinstance(first, str)
    extra = len(active) - 1
    return PlanSummary(head + SUMMARY_JOINER + first, f"+{extra}" if extra > 0 else None)


def _field(item: Any, key: str) -> Any:
    return item.get(key) if isinstance(item, dict) else None


def row_fields(call: ToolCall, locale: str = "en", parsed: Parsed | None = None) -> RowFields:
    """The collapsed row of one tool call in ``locale`` (``en`` or ``zh``); ``parsed``:
    ``call.parsed``, when the caller has it."""
    s = strings(locale)
    state = row_state(call)
    label = {"running": s.row_running, "error": s.row_failed, "stopped": s.row_stopped}.get(state)
    if call.name == TOOL_NAME:
        title = s.todo_row_title
        plan = plan_summary(call.args_raw, call.call_id, s, call.name, parsed)
        summary: str | None = plan.text
        suffix = plan.suffix
    else:
        title = GENERIC_TOOL_TITLE
        summary, suffix = generic_summary(call.name, call.args_raw, call.call_id, parsed), None
    output = call.result.output if call.result is not None else None
    if state == "error" and output is not None:
        failure = first_line(output)
        return RowFields(call.name, call.call_id, state, label, title, failure or None, None, error_summary=True)
    return RowFields(call.name, call.call_id, state, label, title, summary, suffix)
