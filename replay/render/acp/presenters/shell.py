"""``bash``: a terminal card in the foreground, a generic execute card in the
background; the completion's exit status is read from the output's last line."""

from __future__ import annotations

import re
from typing import Any

from replay.render.acp.views import (
    CallView,
    GenericCall,
    GenericResult,
    Presenter,
    ResultView,
    TerminalCall,
    TerminalResult,
    ToolOutcome,
    args_object,
    fenced_console,
    optional_str,
    required_str,
    single_text,
    text_block,
)

_SIGNAL = re.compile(r"\[killed by signal: (.+)\]")
_EXIT = re.compile(r"\[exit code: (-?[0-9]+)\]")


def _background(args: dict[str, Any]) -> bool:
    return args.get("run_in_background") is True


def present_call(args: Any) -> CallView:
    a = args_object(args)
    command = required_str(a, "command")
    description = optional_str(a, "description")
    if _background(a):
        return GenericCall(title=command, kind="execute", raw_input=command,
                           content=None if description is None else [text_block(description)])
    return TerminalCall(title=command, description=description, cwd=optional_str(a, "workdir"))


def exit_status(output: str) -> tuple[int | None, str | None]:
    """(exit code, signal) from the output's final line: ``[killed by signal: X]``,
    ``[exit code: N]``, or neither (exit code 0)."""
    _head, newline, last = output.rpartition("\n")
    if newline:
        signal = _SIGNAL.fullmatch(last)
        if signal:
            return None, signal.group(1)
        code = _EXIT.fullmatch(last)
        if code:
            return int(code.group(1)), None
    return 0, None


def present_result(args: Any, outcome: ToolOutcome) -> ResultView | None:
    text = single_text(outcome.content)
    if text is None:
        return None
    if outcome.is_error or (isinstance(args, dict) and _background(args)):
        return GenericResult(content=[text_block(fenced_console(text))])
    code, signal = exit_status(text)
    return TerminalResult(output=text, exit_code=code, signal=signal)


PRESENTER = Presenter(call=present_call, result=present_result)
