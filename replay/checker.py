"""The checker base every domain's judge extends (the session core in
``replay.check.core``, the todo domain in ``replay.todo.rules``).

It sits below both packages, so a domain's rules never import the engine that runs
them: ``replay.check`` imports the domains, never the other way round.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from replay.findings import Finding, Rule
from replay.log.event import ChunkRun, ChunkSpan, Event

Found = list[Finding] | None
"""What a checker hook returns: ``None`` (the common, cheap case) or findings."""


def event_error(rule: Rule, ev: Event, message: str) -> Finding:
    """An error of ``rule`` at the event ``ev`` (its line, seq and type)."""
    return rule.error(message, ev.line, ev.seq, ev.type)


class Checker:
    """A stateful judge of one log, fed its events in order by the audit engine.

    Lifecycle: ``event`` for each event whose type is in ``interest`` (every event when
    ``interest`` is ``None``), ``run`` for each packed chunk row (still packed: one call
    for a row of many ``assistant/chunk`` deltas), ``chunks`` for each span of plain
    chunks when it is the only checker that wants them (by default: ``event`` for each
    chunk of the span), then ``finish`` once at the end of the log. Every hook is a
    no-op by default, so a checker overrides only what it judges; the engine does not
    even call a hook that is not overridden.
    """

    interest: frozenset[str] | None = None

    def event(self, ev: Event) -> Found:
        """Judge one event."""
        return None

    def run(self, run: ChunkRun) -> Found:
        """Judge one packed chunk row."""
        return None

    def chunks(self, span: ChunkSpan) -> Found:
        """Judge a span of plain chunks: what ``event`` finds on each of them, in order
        (override it to judge the span in one look)."""
        out: list[Finding] = []
        for ev in span.events():
            found = self.event(ev)
            if found:
                out.extend(found)
        return out or None

    def shape(self) -> Hashable:
        """What, besides its class, the checker's ``hook`` depends on (the engine looks
        the hooks up once per process for each class and shape, not per log)."""
        return None

    @classmethod
    def hook(cls, kind: type[Event], shape: Hashable) -> Callable[[Any, Event], Found] | None:
        """What the engine calls, with the log's checker, for each event of the class
        ``kind`` when the checker's ``shape()`` is ``shape``: ``event``, unless the
        checker has a handler of its own for that class (``None``: nothing in such an
        event for it to judge). The same findings as ``event``, found faster."""
        return cls.event

    def finish(self) -> Found:
        """Judge what only the whole log shows."""
        return None

    @classmethod
    def overrides(cls, hook: str) -> bool:
        """Whether this checker has its own ``hook`` (the engine skips the no-ops)."""
        return getattr(cls, hook) is not getattr(Checker, hook)
