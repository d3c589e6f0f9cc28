"""Agent-loop tools with small generic cards: ``todo_write``, ``skill``, ``run_code``
(Code Mode), ``ralph`` and ``workflow``."""

from __future__ import annotations

from typing import Any

from replay.render.acp.views import (
    UNSET,
    CallView,
    GenericCall,
    GenericResult,
    Presenter,
    ResultView,
    ToolOutcome,
    args_object,
    required_str,
)


def present_todo_write(args: Any) -> CallView:
    todos = args_object(args).get("todos", UNSET)
    return GenericCall(title="Update todo list", kind="other", raw_input=todos)


def present_skill(args: Any) -> CallView:
    name = required_str(args_object(args), "name")
    return GenericCall(title=f"Load skill {name}", kind="read", raw_input=name)


def present_run_code(args: Any) -> CallView:
    code = required_str(args_object(args), "code")
    return GenericCall(title=code, kind="execute", raw_input=code)


def present_ralph(args: Any) -> CallView:
    return GenericCall(title="ralph", raw_input=args_object(args).get("objective", UNSET))


def present_ralph_result(args: Any, outcome: ToolOutcome) -> ResultView:
    return GenericResult()


def present_workflow(args: Any) -> CallView:
    a = args_object(args)
    meta = a.get("meta")
    name = meta.get("name") if isinstance(meta, dict) else None
    title = f"workflow: {name}" if isinstance(name, str) and name else "workflow"
    return GenericCall(title=title, kind="other", raw_input=a.get("script", UNSET))


TODO_WRITE = Presenter(call=present_todo_write)
SKILL = Presenter(call=present_skill)
RUN_CODE = Presenter(call=present_run_code)
RALPH = Presenter(call=present_ralph, result=present_ralph_result)
WORKFLOW = Presenter(call=present_workflow)
