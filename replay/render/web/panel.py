"""The web plan panel (web-stdio-todo.md §1.2): the standing plan above the composer.

``panel_fields`` takes the standing plan as ``replay.todo.plan.standing_plan``
returns it; it never recomputes the plan. ``None`` and ``[]`` give no panel.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from replay.jsjson import js_string
from replay.render.web.locale import PANEL_JOINER, Strings, interpolate, strings


@dataclass(frozen=True, slots=True)
class PanelItem:
    """One ``<li data-status=…>``: the status as written, the content as written."""

    status: str
    content: str


@dataclass(frozen=True, slots=True)
class PanelFields:
    """The panel: its title, its progress label (the header) and its items in order."""

    title: str
    progress: str
    items: tuple[PanelItem, ...]


def progress_label(todos: list[Any], s: Strings) -> str:
    """``{done} completed · {active} in progress · {pending} pending``, zero segments
    left out, joined by EN SPACE · EN SPACE. Any other status counts as pending."""
    done = sum(1 for t in todos if _text(t, "status") == "completed")
    active = sum(1 for t in todos if _text(t, "status") == "in_progress")
    pending = len(todos) - done - active
    segments = [
        interpolate(template, **{key: count})
        for template, key, count in (
            (s.todo_progress_done, "done", done),
            (s.todo_progress_active, "active", active),
            (s.todo_progress_pending, "pending", pending),
        )
        if count
    ]
    return PANEL_JOINER.join(segments)


def _text(item: Any, key: str) -> str:
    """A field as the DOM would show it; shapes the invariant forbids show as best effort."""
    value = item.get(key) if isinstance(item, dict) else None
    if value is None:
        return ""
    return js_string(value)


def panel_fields(plan: list[Any] | None, locale: str = "en") -> PanelFields | None:
    """The panel for a standing plan in ``locale``; ``None`` when there is no panel."""
    s = strings(locale)
    if not plan:
        return None
    items = tuple(PanelItem(_text(t, "status"), _text(t, "content")) for t in plan)
    return PanelFields(s.todo_title, progress_label(plan, s), items)
