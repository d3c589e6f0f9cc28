"""Rule metadata and the checker protocol every domain implements."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from replay.findings import Finding
from replay.log.event import ChunkRun, Event

Kind = Literal["format", "invariant", "policy"]
"""``format``: what today's harness refuses or migrates when it loads the log
(layers A–C, spec §4.1–4.3); ``invariant``: durable, config-independent rules
(layer D, §4.4); ``policy``: a what-if under one deployment's configuration."""


@dataclass(frozen=True, slots=True)
class RuleInfo:
    id: str
    kind: Kind
    domain: str
    summary: str


Found = list[Finding] | None
"""What a checker hook returns: ``None`` (the common, cheap case) or findings."""


class Checker(Protocol):
    """A stateful judge of one log, fed its events in order.

    ``interest`` names the event types ``event`` wants (``None``: every event);
    ``run`` sees packed chunk rows, still packed.
    """

    interest: frozenset[str] | None

    def event(self, ev: Event) -> Found: ...

    def run(self, run: ChunkRun) -> Found: ...

    def finish(self) -> Found: ...
