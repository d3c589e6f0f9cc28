"""Web tools: ``web_fetch`` and ``web_search``: generic cards titled by the URL or the
query itself, which is also the raw input; the results are shown raw."""

from __future__ import annotations

from typing import Any

from replay.render.acp.views import CallView, GenericCall, Presenter, args_object, required_str


def present_fetch(args: Any) -> CallView:
    url = required_str(args_object(args), "url")
    return GenericCall(title=url, kind="fetch", raw_input=url)


def present_search(args: Any) -> CallView:
    query = required_str(args_object(args), "query")
    return GenericCall(title=query, kind="search", raw_input=query)


FETCH = Presenter(call=present_fetch)
SEARCH = Presenter(call=present_search)
