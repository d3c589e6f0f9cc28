"""The cordis runtime tools: ``cordis_inspect``, ``cordis_mount``, ``cordis_unmount``."""

from __future__ import annotations

from typing import Any

from replay.jsjson import js_string
from replay.render.acp.views import CallView, GenericCall, Presenter, args_object, optional_str


def present_inspect(args: Any) -> CallView:
    a = args_object(args)
    what, name = optional_str(a, "what"), optional_str(a, "name")
    title = "Inspect cordis runtime"
    if what is not None:
        title += f": {what}"
        if name is not None:
            title += f": {name}"
    return GenericCall(title=title, kind="read")


def present_mount(args: Any) -> CallView:
    return GenericCall(title="Mount plugin into live cordis runtime", kind="execute", raw_input=args_object(args))


def present_unmount(args: Any) -> CallView:
    a = args_object(args)
    if "id" not in a:
        raise TypeError("argument 'id' is missing")
    return GenericCall(title=f"Unmount {js_string(a['id'])}", kind="delete")


INSPECT = Presenter(call=present_inspect)
MOUNT = Presenter(call=present_mount)
UNMOUNT = Presenter(call=present_unmount)
