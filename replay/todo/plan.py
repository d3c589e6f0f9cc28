"""The standing plan: the ``todos`` projection (spec §5).

Last ``todo/write`` wins; a ``turn/start`` clears it; ``turn/end`` keeps it. Every
surface that shows a plan reads it through this one fold.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from replay.log.event import Event
from replay.log.typed import TurnStart


@dataclass(frozen=True, slots=True)
class PlanChange:
    """The standing plan right after the event at ``seq`` changed it."""

    seq: int
    cause: str
    """``todo/write`` or ``turn/start``."""
    todos: list[Any] | None
    turn: Any = None
    """A ``turn/start``'s turn number as the log gives it (a write's turn is that of
    the ``turn/start`` before it)."""


def plan_change(ev: Event) -> PlanChange | None:
    """How one event changes the standing plan (``None``: it does not)."""
    if ev.type == "todo/write":
        data = ev.data
        todos = data.get("todos") if isinstance(data, dict) else None
        return PlanChange(ev.seq, ev.type, todos if isinstance(todos, list) else None)
    if type(ev) is TurnStart:  # typed: its turn, read without decoding its data
        return PlanChange(ev.seq, ev.type, None, ev.body.turn)
    if ev.type == "turn/start":
        return PlanChange(ev.seq, ev.type, None, ev.data.get("turn") if isinstance(ev.data, dict) else None)
    return None


def plan_changes(events: Iterable[Event]) -> Iterator[PlanChange]:
    """Every change of the standing plan, in order."""
    for ev in events:
        change = plan_change(ev)
        if change is not None:
            yield change


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


def plans_at(changes: Sequence[PlanChange], seqs: Iterable[int]) -> list[list[Any] | None]:
    """``standing_plan(events, at=seq)`` for each of ``seqs`` at once, from the log's
    plan changes (in log order): the plan at a seq is the last change, in log order,
    among those at or before that seq, whatever order the seqs come in. One sort of
    the changes, then a binary search per seq (linear when the seqs are in order)."""
    order = sorted(range(len(changes)), key=lambda i: changes[i].seq)
    sorted_seqs = [changes[i].seq for i in order]
    latest: list[int] = []  # the latest change (in log order) among the first k+1 in seq order
    for i in order:
        latest.append(max(i, latest[-1]) if latest else i)
    found: list[list[Any] | None] = []
    for seq in seqs:
        k = bisect_right(sorted_seqs, seq)
        found.append(changes[latest[k - 1]].todos if k else None)
    return found
