"""The audit engine's dispatch: which hooks of a log's checkers each item meets.

A table per list of checker classes (and their ``shape()``), built the first time a log
needs it and filled as event classes and types arrive: the same in every log of the
process, so it is never built per log (a log's checkers are fresh objects, its plans
are not).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

from replay.checker import Checker, Found
from replay.log.event import Event

Hook = Callable[[Checker, Event], Found]
"""A checker's handler of one event, unbound: called with the log's checker."""
Plan = tuple[tuple[tuple[Hook, int], ...], int]
"""The hooks an event meets, in order (each with the index of its checker among the
log's), and whether it is a turn/start (1) or a turn/end (2), whose lines the
judgement needs."""
TableKey = tuple[tuple[type[Checker], Hashable], ...]


class Table:
    """The dispatch of one list of checker classes (and their ``shape``): which hooks
    each item meets. Built once per process for each such list (``table_of``) and filled
    as event classes and types arrive, never per log: a log's checkers are fresh
    objects, its plans are not."""

    __slots__ = ("by_name", "by_type", "chunk_judges", "every", "plans", "runs", "span_judge")

    def __init__(self, key: TableKey) -> None:
        self.every = [(c, shape, i) for i, (c, shape) in enumerate(key) if c.interest is None and c.overrides("event")]
        by_type: dict[str, list[tuple[type[Checker], int]]] = {}
        for i, (c, _) in enumerate(key):
            for t in c.interest or ():
                by_type.setdefault(t, []).append((c, i))
        self.by_type = by_type
        self.runs = tuple((c.run, i) for i, (c, _) in enumerate(key) if c.overrides("run"))
        # the order a single chunk meets them in
        chunk_judges = [(c, i) for c, _, i in self.every] + by_type.get("assistant/chunk", [])
        self.chunk_judges = tuple(i for _, i in chunk_judges)
        self.span_judge = (chunk_judges[0][0].chunks, chunk_judges[0][1]) if len(chunk_judges) == 1 else None
        self.plans: dict[type, Plan] = {}
        self.by_name: dict[str, Plan] = {}

    def plan(self, kind: type[Event], t: str) -> Plan:
        hooks = [(c.hook(kind, shape), i) for c, shape, i in self.every]
        if t != "assistant/chunk" or "assistant/chunk" in self.by_type:
            hooks += [(c.event, i) for c, i in self.by_type.get(t, ())]
        return (tuple((h, i) for h, i in hooks if h is not None),
                1 if t == "turn/start" else 2 if t == "turn/end" else 0)


_TABLES: dict[TableKey, Table] = {}
"""Each list of checker classes' dispatch, built the first time a log needs it (a
cache of what the classes say: the same in every log of the process)."""


def table_of(judges: Sequence[Checker]) -> Table:
    key = tuple((type(c), c.shape()) for c in judges)
    table = _TABLES.get(key)
    if table is None:
        table = _TABLES[key] = Table(key)
    return table
