"""Renderer profiles: what each generation of the harness's ACP agent streamed.

``2026-07`` — the editor projection (the bridge at its last revision that streamed
tool calls and plans; acp-and-snapshots.md §A). One event → zero or more
``session/update`` notifications, live or as a ``session/load`` replay: every text and
reasoning delta as its own chunk, tool calls and their completions through the
presenter registry, plans, session titles, retry and failure notices, user messages
on load; live, the permission requests the session's approval policy sent the client.

``2026-08`` — the automation transport the bridge was reduced to (§A.10): only the
**committed** assistant text and images, each block as one whole
``agent_message_chunk`` when its ``assistant/message`` is written, and the
``session/request_permission`` requests. No thoughts, tool cards, plans, titles,
commands or modes, and no ``session/load``.

``detect_profile`` tells the two apart by the log's generation: the shapes the
harness of each date wrote (``generation_of``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from replay.log.event import Event
from replay.render.acp.permissions import Frame, PermissionRequests
from replay.render.choices import DEFAULT_PROFILE, Profile
from replay.render.generation import generation_of

__all__ = ["DEFAULT_PROFILE", "PROFILES", "AutomationSession", "Profile", "ProfileInfo", "detect_profile"]


@dataclass(frozen=True, slots=True)
class ProfileInfo:
    name: Profile
    streams: str
    has_load: bool


PROFILES: dict[Profile, ProfileInfo] = {
    "2026-07": ProfileInfo(
        "2026-07",
        "the editor projection: message and thought chunks per delta, tool calls and updates through the "
        "presenter registry, plans, session titles, retry and failure notices, user messages on load; live, "
        "the permission requests",
        has_load=True),
    "2026-08": ProfileInfo(
        "2026-08",
        "the automation transport: each committed assistant text or image block as one agent_message_chunk, "
        "and the permission requests; no session/load",
        has_load=False),
}

# Shapes only one generation writes (the raw record, before the reader's migration).
def detect_profile(events: Iterable[Event]) -> Profile | None:
    """The profile of the first event whose shape tells the generation; ``None`` when
    none does (a log with no model turn)."""
    for event in events:
        found = generation_of(event)
        if found is not None:
            return found
    return None


def _message_content(block: Any) -> dict[str, Any] | None:
    if not isinstance(block, dict):
        return None
    if block.get("type") == "text" and isinstance(block.get("text"), str):
        return {"type": "text", "text": block["text"]}
    if block.get("type") == "image":
        content = {"type": "image", "data": block.get("data"), "mimeType": block.get("mimeType")}
        if "uri" in block:
            content["uri"] = block["uri"]
        return content
    return None


class AutomationSession:
    """The 2026-08 agent's stream for one session: feed events in log order."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self._permissions = PermissionRequests(session_id)

    def translate(self, event: Event) -> list[Frame]:
        frames = self._permissions.frames(event)
        if event.type == "assistant/message" and isinstance(event.data, dict):
            message = event.data.get("message")
            blocks = message.get("content") if isinstance(message, dict) else None
            for block in blocks if isinstance(blocks, list) else ():
                content = _message_content(block)
                if content is not None:
                    frames.append({"jsonrpc": "2.0", "method": "session/update", "params": {
                        "sessionId": self.session_id,
                        "update": {"sessionUpdate": "agent_message_chunk", "content": content}}})
        return frames


__all__ = ["DEFAULT_PROFILE", "PROFILES", "AutomationSession", "Profile", "ProfileInfo", "detect_profile",
           "generation_of"]
