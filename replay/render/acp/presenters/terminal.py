"""The PTY tools: ``terminal_open``, ``terminal_send`` (a terminal card whose result is
the output only, no exit entry; in the background a generic card titled by the
session), ``terminal_read``, ``terminal_signal``, ``terminal_close`` and
``terminal_list``."""

from __future__ import annotations

from typing import Any

from replay.jsjson import js_string
from replay.render.acp.views import (
    UNSET,
    CallView,
    GenericCall,
    Presenter,
    ResultView,
    TerminalCall,
    TerminalResult,
    ToolOutcome,
    args_object,
    optional_str,
    single_text,
)


def _session(args: dict[str, Any]) -> str:
    if "sessionId" not in args:
        raise TypeError("argument 'sessionId' is missing")
    return js_string(args["sessionId"])


def present_open(args: Any) -> CallView:
    a = args_object(args)
    label = a["name"] if a.get("name") is not None else a.get("type")  # `name ?? type`
    return GenericCall(title=f"Open terminal {js_string(label)}", kind="execute")


def _background(args: dict[str, Any]) -> bool:
    return args.get("run_in_background") is True


def present_send(args: Any) -> CallView:
    a = args_object(args)
    if _background(a):
        return GenericCall(title=f"Send to terminal {_session(a)} in background", kind="execute",
                           raw_input=a.get("text", UNSET))
    return TerminalCall(title=optional_str(a, "text") or "(send input)", description=f"Terminal {_session(a)}")


def present_send_result(args: Any, outcome: ToolOutcome) -> ResultView | None:
    if outcome.is_error or (isinstance(args, dict) and _background(args)):
        return None
    text = single_text(outcome.content)
    return None if text is None else TerminalResult(output=text)


def present_read(args: Any) -> CallView:
    a = args_object(args)
    return GenericCall(title=f"Read terminal {_session(a)}", kind="read", raw_input=a)


def present_signal(args: Any) -> CallView:
    a = args_object(args)
    return GenericCall(title=f"Signal terminal {_session(a)}", kind="execute", raw_input=a)


def present_close(args: Any) -> CallView:
    return GenericCall(title=f"Close terminal {_session(args_object(args))}", kind="delete")


def present_list(args: Any) -> CallView:
    return GenericCall(title="List terminal sessions", kind="read")


OPEN = Presenter(call=present_open)
SEND = Presenter(call=present_send, result=present_send_result)
READ = Presenter(call=present_read)
SIGNAL = Presenter(call=present_signal)
CLOSE = Presenter(call=present_close)
LIST = Presenter(call=present_list)
