"""The presenters of the harness's shipped tools, one module per tool family.

``shipped_presenters()`` is the registry the renderer uses by default. Tools not in it
(``subagent``, ``subagent_fork``, plugins' own tools, …) get the generic card: title =
the tool name, kind ``other``, raw input = the arguments. Add or override presenters
with ``PresenterRegistry.with_presenter``.
"""

from __future__ import annotations

from replay.render.acp.presenters import agent, cordis, fs, plan, search, shell, terminal, web
from replay.render.acp.views import PresenterRegistry


def shipped_presenters() -> PresenterRegistry:
    """A fresh registry of every shipped tool's presenter, chosen by tool name."""
    return PresenterRegistry({
        "bash": shell.PRESENTER,
        "read": fs.READ,
        "edit": fs.EDIT,
        "write": fs.WRITE,
        "todo_write": agent.TODO_WRITE,
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
    })


__all__ = ["shipped_presenters"]
