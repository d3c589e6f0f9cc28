"""The standing plan: the ``todos`` projection (spec §5).

Last ``todo/write`` wins; a ``turn/start`` clears it; ``turn/end`` keeps it. Every
surface that shows a plan reads it through this one fold.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from replay.log.event import Event


@dataclass(frozen=True, slots=True)
class PlanChange:
    """The standing plan right after the event at ``seq`` changed it."""

    seq: int
    cause: str
    """``todo/write`` or ``turn/start``."""
    todos: list[Any] | None


def plan_changes(events: Iterable[Event]) -> Iterator[PlanChange]:
    """Every change of the standing plan, in order."""
    for ev in events:
        if ev.type == "todo/write":
            data = ev.data
            todos = data.get("todos") if isinstance(data, dict) else None
            yield PlanChange(ev.seq, ev.type, todos if isinstance(todos, list) else None)
        elif ev.type == "turn/start":
            yield PlanChange(ev.seq, ev.type, None)


def standing_plan(events: Iterable[Event], at: int | None = None) -> list[Any] | None:
    """The plan in force after the event at seq ``at`` (the end of the log if ``None``)."""
    state: list[Any] | None = None
    for change in plan_changes(ev for ev in events if at is None or ev.seq <= at):
        state = change.todos
    return state
