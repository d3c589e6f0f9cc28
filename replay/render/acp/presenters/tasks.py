"""The background-task controls: ``task_output``, ``task_list`` and ``task_kill``
(generic cards; the task id is the raw input; the results are shown raw)."""

from __future__ import annotations

from typing import Any

from replay.render.acp.views import CallView, GenericCall, Presenter, args_object, required_str


def present_output(args: Any) -> CallView:
    task = required_str(args_object(args), "task_id")
    return GenericCall(title=f"Read output from background task {task}", kind="read", raw_input=task)


def present_list(args: Any) -> CallView:
    return GenericCall(title="List background tasks", kind="read")


def present_kill(args: Any) -> CallView:
    task = required_str(args_object(args), "task_id")
    return GenericCall(title=f"Kill background task {task}", kind="execute", raw_input=task)


OUTPUT = Presenter(call=present_output)
LIST = Presenter(call=present_list)
KILL = Presenter(call=present_kill)
