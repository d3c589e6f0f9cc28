"""The assembled web snapshot's text format (web-stdio-todo.md §1.4).

Per ``todo_write`` call, in log order: ``row=``, ``title=``, ``summary=``, ``suffix=``;
then the panel of the standing plan at the end of the log: ``panel=`` and one
``item={status} {content}`` line per item. Every value is JavaScript-trimmed (the
harness reads ``textContent.trim()``); a missing element prints ``<absent>``. Lines
are joined with ``\\n``, with no trailing newline.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from replay.log.event import Event
from replay.project.tools import Pairing, ToolCall
from replay.render.web.panel import PanelFields, panel_fields
from replay.render.web.row import RowFields, row_fields
from replay.todo.model import js_trim
from replay.todo.plan import plan_change
from replay.todo.tool import TOOL_NAME

ABSENT = "<absent>"


def _field(name: str, text: str | None) -> str:
    return f"{name}={ABSENT if text is None else js_trim(text)}"


def row_lines(row: RowFields) -> Iterator[str]:
    yield _field("row", row.tool)
    yield _field("title", row.title)
    yield _field("summary", row.summary)
    yield _field("suffix", row.suffix)


def panel_lines(panel: PanelFields | None) -> Iterator[str]:
    if panel is None:
        yield _field("panel", None)
        return
    yield _field("panel", panel.progress)
    for item in panel.items:
        yield f"item={item.status} {js_trim(item.content)}"


def golden_text(rows: Iterable[RowFields], panel: PanelFields | None) -> str:
    """Format rows and a panel as the golden text."""
    lines = [line for row in rows for line in row_lines(row)]
    lines.extend(panel_lines(panel))
    return "\n".join(lines)


def web_golden(events: Iterable[Event], locale: str = "en") -> str:
    """The golden text of a log: every ``todo_write`` row, then the standing plan's panel.
    One pass; what it keeps is the ``todo_write`` calls still open and the rows."""
    rows: list[RowFields | ToolCall] = []
    slot: dict[int, int] = {}  # call number → its place in rows, while it is open
    pairing = Pairing()
    plan: list[Any] | None = None
    for ev in events:
        t = ev.type
        if t == "tool/call":
            got = pairing.call(ev)
            if got is not None and got[1].name == TOOL_NAME:
                slot[got[0]] = len(rows)
                rows.append(got[1])
        elif t == "tool/result":
            settled = pairing.result(ev)
            if settled is not None and settled[0] in slot:
                place = slot.pop(settled[0])
                call = rows[place]
                assert isinstance(call, ToolCall)
                rows[place] = row_fields(replace(call, result=settled[1]), locale)
        change = plan_change(ev)
        if change is not None:
            plan = change.todos
    fields = [row if isinstance(row, RowFields) else row_fields(row, locale) for row in rows]
    return golden_text(fields, panel_fields(plan, locale))
