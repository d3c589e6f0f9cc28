"""The goal controls: ``get_goal``, ``create_goal`` and ``update_goal`` (generic cards;
the results are shown raw).

``update_goal`` is titled by its action (``Pause goal``, ``Edit goal``, …; ``blocked``
reads ``Mark goal``) and its raw input is the most specific argument the call
carries: a non-empty ``blocked_reason``, else a non-empty ``objective``, else a
non-zero ``max_goal_rounds``, else the ``goal_id``."""

from __future__ import annotations

from typing import Any

from replay.render.acp.views import UNSET, CallView, GenericCall, Presenter, args_object, required_str


def present_get(args: Any) -> CallView:
    return GenericCall(title="Read current goal", kind="read")


def present_create(args: Any) -> CallView:
    return GenericCall(title="Create goal", kind="other", raw_input=args_object(args).get("objective", UNSET))


def action_title(action: str) -> str:
    verb = "Mark" if action == "blocked" else action[:1].upper() + action[1:]
    return f"{verb} goal"


def _has_text(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def action_detail(args: dict[str, Any]) -> Any:
    if _has_text(args.get("blocked_reason")):
        return args["blocked_reason"]
    if _has_text(args.get("objective")):
        return args["objective"]
    rounds = args.get("max_goal_rounds")
    if "max_goal_rounds" in args and rounds != 0:
        return rounds
    return args.get("goal_id", UNSET)


def present_update(args: Any) -> CallView:
    a = args_object(args)
    return GenericCall(title=action_title(required_str(a, "action")), kind="other", raw_input=action_detail(a))


GET = Presenter(call=present_get)
CREATE = Presenter(call=present_create)
UPDATE = Presenter(call=present_update)
