"""Which generation of the harness wrote an event: the shape tells (``generation_of``).
A leaf of the renderers, so the session browser's drafting and the export read it without
loading the ACP renderer (``replay.render.acp.profiles`` says what each generation streamed).
"""

from __future__ import annotations

from replay.log.event import Event
from replay.log.typed import TypedEvent
from replay.render.choices import Profile

_LEGACY_TYPES = frozenset({"steering/message"})
_CURRENT_TYPES = frozenset({"request/context", "agent/inbox/spliced"})
_WRAPPED = frozenset({"assistant/message", "tool/result"})


def generation_of(event: Event) -> Profile | None:
    """The profile whose harness wrote this event's shape, when the shape tells:
    ``assistant/message`` / ``tool/result`` wrapped in a ``message`` (and the event
    types only today's harness writes) are 2026-08; the flat shapes, a ``turn/start``
    with a trigger and ``steering/message`` are 2026-07 and older. A typed event's
    shape is its type's (``replay.log.typed``: its surface events are wrapped, its
    ``turn/start`` holds only the turn), so its record is not decoded to tell."""
    if isinstance(event, TypedEvent):
        tag = event.type
        return "2026-08" if tag in _CURRENT_TYPES or tag in _WRAPPED else "2026-07" if tag in _LEGACY_TYPES else None
    record = event.record
    kind = record.get("type")
    data = record.get("data")
    if not isinstance(kind, str):
        return None
    if kind in _CURRENT_TYPES:
        return "2026-08"
    if kind in _LEGACY_TYPES:
        return "2026-07"
    if not isinstance(data, dict):
        return None
    if kind == "assistant/message":
        return "2026-08" if "message" in data else "2026-07" if "content" in data else None
    if kind == "tool/result":
        return "2026-08" if "message" in data else "2026-07" if "callId" in data else None
    if kind == "turn/start":
        return "2026-07" if "trigger" in data else None
    return None
