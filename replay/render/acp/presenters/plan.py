"""``exit_plan_mode``: the plan as the card's content, titled by its first Markdown
heading; the completion is titled ``Plan review``."""

from __future__ import annotations

import re
from typing import Any

from replay.render.acp.views import (
    CallView,
    GenericCall,
    GenericResult,
    Presenter,
    ResultView,
    ToolOutcome,
    args_object,
    required_str,
    text_block,
)

_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)


def plan_title(plan: str) -> str:
    match = _HEADING.search(plan)
    title = match.group(1).strip() if match else ""
    return title or "Plan"


def present_call(args: Any) -> CallView:
    plan = required_str(args_object(args), "plan")
    return GenericCall(title=plan_title(plan), kind="other", content=[text_block(plan)])


def present_result(args: Any, outcome: ToolOutcome) -> ResultView:
    return GenericResult(content=list(outcome.content), title="Plan review")


PRESENTER = Presenter(call=present_call, result=present_result)
