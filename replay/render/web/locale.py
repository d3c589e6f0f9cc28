"""The web UI's strings (the ``conversation`` namespace, web-stdio-todo.md §1.3), as data.

Templates use ``{name}`` placeholders; ``interpolate`` replaces a known one with the
value's text and leaves an unknown one literal, like the harness.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from replay.render.choices import LOCALES, Locale

__all__ = ["EN", "LOCALES", "ZH", "Locale", "Strings", "strings"]


@dataclass(frozen=True, slots=True)
class Strings:
    """One locale's strings, named after the harness's keys."""

    todo_title: str
    """``todo.title``: the panel title."""
    todo_progress_done: str
    todo_progress_active: str
    todo_progress_pending: str
    todo_row_title: str
    """``todo.rowTitle``: the ``todo_write`` row title."""
    todo_completed: str
    """``todo.completed``: the head of the row summary."""
    row_running: str
    row_failed: str
    row_stopped: str


EN = Strings(
    todo_title="To-dos",
    todo_progress_done="{done} completed",
    todo_progress_active="{active} in progress",
    todo_progress_pending="{pending} pending",
    todo_row_title="Update to-do list",
    todo_completed="{done}/{total} completed",
    row_running="Running",
    row_failed="Failed",
    row_stopped="Stopped",
)

ZH = Strings(
    todo_title="任务",
    todo_progress_done="{done} 已完成",
    todo_progress_active="{active} 进行中",
    todo_progress_pending="{pending} 待处理",
    todo_row_title="更新任务清单",
    todo_completed="{done}/{total} 已完成",
    row_running="运行中",
    row_failed="失败",
    row_stopped="已停止",
)

_BY_LOCALE: Mapping[str, Strings] = {"en": EN, "zh": ZH}

GENERIC_TOOL_TITLE = "Tool call"
"""The generic tool card's title: a design literal, not localised."""

PANEL_JOINER = "\u2002·\u2002"
"""Between progress segments: EN SPACE, MIDDLE DOT, EN SPACE."""
SUMMARY_JOINER = " · "
"""In row summaries: ASCII space, MIDDLE DOT, ASCII space."""


def strings(locale: str) -> Strings:
    """The strings of ``locale`` (``en`` or ``zh``); ``ValueError`` for any other."""
    try:
        return _BY_LOCALE[locale]
    except KeyError:
        raise ValueError(f"unknown locale {locale!r} (expected one of: {', '.join(LOCALES)})") from None


_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@functools.lru_cache(maxsize=512)
def _names(template: str) -> tuple[frozenset[str], bool]:
    """A template's placeholders, and whether every brace in it is one of them (then
    ``str.format`` fills it as ``interpolate`` would, when it is given every name)."""
    names = frozenset(_PLACEHOLDER.findall(template))
    bare = _PLACEHOLDER.sub("", template)
    return names, "{" not in bare and "}" not in bare


def interpolate(template: str, **values: object) -> str:
    """Replace ``{name}`` by ``str(values[name])``; unknown placeholders stay literal."""
    names, plain = _names(template)
    if plain and names <= values.keys():  # format() of a value is its str() with no spec
        return template.format_map(values)
    return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), template)


@functools.lru_cache(maxsize=512)
def formatter(template: str, *names: str) -> Callable[..., str]:
    """``interpolate(template, ...)`` for the calls that give exactly ``names``, made
    once: ``template.format`` itself when that fills it as ``interpolate`` would."""
    found, plain = _names(template)
    if plain and found <= set(names):
        return template.format
    return functools.partial(interpolate, template)
