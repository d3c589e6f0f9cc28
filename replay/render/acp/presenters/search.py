"""Code search: ``glob``, ``grep`` and ``lsp`` (generic search cards)."""

from __future__ import annotations

from typing import Any

from replay.jsjson import js_string
from replay.render.acp.views import CallView, GenericCall, Presenter, args_object, optional_str, required_str


def present_glob(args: Any) -> CallView:
    a = args_object(args)
    pattern = required_str(a, "pattern")
    path = optional_str(a, "path")
    where = f" in {path}" if path is not None else ""
    return GenericCall(title=f"Glob {pattern}{where}", kind="search", raw_input=pattern)


def present_grep(args: Any) -> CallView:
    a = args_object(args)
    pattern = required_str(a, "pattern")
    path = optional_str(a, "path")
    include = optional_str(a, "include")
    where = f" in {path}" if path is not None else ""
    only = f" ({include})" if include is not None else ""
    return GenericCall(title=f"Grep {pattern}{where}{only}", kind="search", raw_input=pattern)


def present_lsp(args: Any) -> CallView:
    a = args_object(args)
    path = required_str(a, "file_path")
    operation, line, character = (js_string(a.get(k)) for k in ("operation", "line", "character"))
    return GenericCall(title=f"LSP {operation} {path}:{line}:{character}", kind="search",
                       locations=[{"path": path, "line": a.get("line")}])


GLOB = Presenter(call=present_glob)
GREP = Presenter(call=present_grep)
LSP = Presenter(call=present_lsp)
