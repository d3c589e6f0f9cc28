"""The presenters of the harness's shipped tools, one module per tool family.

``shipped_presenters()`` is the registry the renderer uses by default: each tool's
presenter bound to the parameter schema the harness offered the model for it
(``tool_schemas.json``: the 33 tools of the harness at the revision the ACP goldens
were recorded with, as its snapshot suite pinned them, reduced to what validation reads: the
annotations — descriptions, titles, examples — are left out). A call whose arguments do not
validate against its tool's schema is shown with the generic card, as the harness does
(``replay.render.acp.validation``).

Tools registered without a presenter (``subagent``, ``subagent_fork``,
``ask_user_question``, plugins' own tools, …) get the generic card: title = the tool
name, kind ``other``, raw input = the arguments. Add or override presenters with
``PresenterRegistry.with_presenter``; rebind schemas with ``with_parameters``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib.resources import files
from typing import Any

from replay.render.acp.presenters import (
    agent,
    cordis,
    fs,
    goal,
    plan,
    search,
    shell,
    tasks,
    terminal,
    web,
)
from replay.render.acp.views import Presenter, PresenterRegistry
from replay.todo.tool import TOOL_NAME

SHIPPED: Mapping[str, Presenter] = {
    "bash": shell.PRESENTER,
    "read": fs.READ,
    "edit": fs.EDIT,
    "write": fs.WRITE,
    TOOL_NAME: agent.TODO_WRITE,
    "skill": agent.SKILL,
    "run_code": agent.RUN_CODE,
    "ralph": agent.RALPH,
    "workflow": agent.WORKFLOW,
    "exit_plan_mode": plan.PRESENTER,
    "terminal_open": terminal.OPEN,
    "terminal_send": terminal.SEND,
    "terminal_read": terminal.READ,
    "terminal_signal": terminal.SIGNAL,
    "terminal_close": terminal.CLOSE,
    "terminal_list": terminal.LIST,
    "glob": search.GLOB,
    "grep": search.GREP,
    "lsp": search.LSP,
    "cordis_inspect": cordis.INSPECT,
    "cordis_mount": cordis.MOUNT,
    "cordis_unmount": cordis.UNMOUNT,
    "web_fetch": web.FETCH,
    "web_search": web.SEARCH,
    "task_output": tasks.OUTPUT,
    "task_list": tasks.LIST,
    "task_kill": tasks.KILL,
    "get_goal": goal.GET,
    "create_goal": goal.CREATE,
    "update_goal": goal.UPDATE,
}
"""Every shipped presenter, unbound (no schema): tool name → presenter."""


@cache
def shipped_tool_schemas() -> Mapping[str, Mapping[str, Any]]:
    """The parameter schema of every tool the harness registered: name → schema."""
    doc = json.loads(files(__package__).joinpath("tool_schemas.json").read_text(encoding="utf-8"))
    return {tool["name"]: tool["parameters"] for tool in doc["tools"]}


@cache
def shipped_presenters() -> PresenterRegistry:
    """The registry of every shipped tool's presenter, each validating against its
    tool's shipped schema (registries are immutable, so one instance is shared)."""
    return PresenterRegistry(SHIPPED).with_parameters(shipped_tool_schemas())


__all__ = ["SHIPPED", "shipped_presenters", "shipped_tool_schemas"]
