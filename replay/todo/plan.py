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


class SeqOutOfRange(ValueError):
    """A seq the log does not reach: ``first``/``last`` are its seq range (``None``
    for a log without events)."""

    def __init__(self, at: int, first: int | None, last: int | None) -> None:
        self.at, self.first, self.last = at, first, last
        where = "the log has no events" if first is None else f"this log's events have seqs {first} to {last}"
        super().__init__(f"seq {at} is outside the log: {where}")


def plan_at(events: Iterable[Event], at: int) -> list[Any] | None:
    """The plan in force right after the event with seq ``at``, which must be within
    the log's seq range (``SeqOutOfRange`` otherwise). One pass, whatever the size."""
    seqs: list[int] = []  # the least and the greatest seen

    def tracked() -> Iterator[Event]:
        for ev in events:
            if not seqs:
                seqs.extend((ev.seq, ev.seq))
            elif ev.seq < seqs[0]:
                seqs[0] = ev.seq
            elif ev.seq > seqs[1]:
                seqs[1] = ev.seq
            yield ev

    state = standing_plan(tracked(), at)
    if not seqs or not seqs[0] <= at <= seqs[1]:
        raise SeqOutOfRange(at, *(seqs or (None, None)))
    return state
