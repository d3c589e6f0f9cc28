"""Web tools: ``web_fetch`` and ``web_search`` (generic cards carrying the arguments).

No recorded golden shows these two; the shapes follow the tools' own presenters."""

from __future__ import annotations

from typing import Any

from replay.jsjson import js_string
from replay.render.acp.views import CallView, GenericCall, Presenter, args_object


def present_fetch(args: Any) -> CallView:
    a = args_object(args)
    return GenericCall(title=f"Fetch {js_string(a.get('url', ''))}", kind="fetch", raw_input=a)


def present_search(args: Any) -> CallView:
    a = args_object(args)
    return GenericCall(title=f"Search {js_string(a.get('query', ''))}", kind="search", raw_input=a)


FETCH = Presenter(call=present_fetch)
SEARCH = Presenter(call=present_search)
