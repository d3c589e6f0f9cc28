"""File tools: ``read`` (a generic read card with a line window), ``edit`` and
``write`` (diff cards; the completion shows the applied diffs from ``meta.diffs``)."""

from __future__ import annotations

from typing import Any

from replay.jsjson import js_string
from replay.log.values import is_number
from replay.render.acp.views import (
    UNSET,
    CallView,
    Diff,
    DiffCall,
    DiffResult,
    GenericCall,
    Presenter,
    ResultView,
    ToolOutcome,
    args_object,
    required_str,
)


def present_read(args: Any) -> CallView:
    a = args_object(args)
    path = required_str(a, "file_path")
    offset: Any = a.get("offset")
    limit: Any = a.get("limit")
    title = f"Read {path}"
    if is_number(limit) and limit > 0:
        first: Any = offset if is_number(offset) else 1
        title += f" ({js_string(first)} - {js_string(first + limit - 1)})"
    elif offset is not None:
        title += f" (from line {js_string(offset)})"
    line = offset if offset is not None else 1
    return GenericCall(title=title, kind="read", locations=[{"path": path, "line": line}])


def _edit_args(args: Any) -> tuple[str, Diff]:
    a = args_object(args)
    path = required_str(a, "file_path")
    old = a.get("old_string")
    new = required_str(a, "new_string")
    return path, Diff(path, old if isinstance(old, str) and old else None, new)


def present_edit(args: Any) -> CallView:
    path, diff = _edit_args(args)
    return DiffCall(title=f"Edit {path}", diffs=[diff], locations=[{"path": path}])


def meta_diffs(meta: Any) -> list[Diff] | None:
    """``meta.diffs`` when it is a list of well-formed diffs, else ``None``."""
    if meta is UNSET or not isinstance(meta, dict) or not isinstance(meta.get("diffs"), list):
        return None
    diffs = []
    for item in meta["diffs"]:
        if not isinstance(item, dict):
            return None
        path, old, new = item.get("path"), item.get("oldText"), item.get("newText")
        if not isinstance(path, str) or not isinstance(new, str) or not (old is None or isinstance(old, str)):
            return None
        diffs.append(Diff(path, old, new))
    return diffs


def present_edit_result(args: Any, outcome: ToolOutcome) -> ResultView | None:
    if outcome.is_error:
        return None
    path, _ = _edit_args(args)
    diffs = meta_diffs(outcome.meta)
    if not diffs:
        return None
    return DiffResult(diffs=diffs, title=f"Edit {path}")


def _write_args(args: Any) -> tuple[str, str]:
    a = args_object(args)
    return required_str(a, "file_path"), required_str(a, "content")


def present_write(args: Any) -> CallView:
    path, content = _write_args(args)
    return DiffCall(title=f"Write {path}", diffs=[Diff(path, None, content)], locations=[{"path": path}])


def present_write_result(args: Any, outcome: ToolOutcome) -> ResultView | None:
    if outcome.is_error:
        return None
    path, content = _write_args(args)
    diffs = meta_diffs(outcome.meta) or [Diff(path, None, content)]
    return DiffResult(diffs=diffs, title=f"Write {path}")


READ = Presenter(call=present_read)
EDIT = Presenter(call=present_edit, result=present_edit_result)
WRITE = Presenter(call=present_write, result=present_write_result)
