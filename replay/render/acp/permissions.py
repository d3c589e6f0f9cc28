"""``session/request_permission``: the requests the agent sent its client, from the log.

A tool call that needs approval logs ``approval/asked`` (then ``approval/decided``).
The agent asks the client only when the session's approval policy is ``ask``;
under any other policy the ask is settled without the client (a ``never`` session
rejects it on the spot, as the hook scenarios show). The policy in force is the last
one the log states:

* an ``approval/policy`` event (``{"policy": "ask" | "never" | …}``, logs of 2026-07);
* else the ``approval:policy`` section of the latest runtime-context snapshot (a
  ``user/message`` from ``@deepseek-ai/dsh-system-prompt`` whose ``source.sections``
  carry the text the model was shown: ``Approval policy: ask. …`` or ``Approval
  prompts are disabled in this session …``; logs of 2026-08);
* else ``never`` (what the snapshot harness runs with unless told otherwise).

Each request carries the agent's own JSON-RPC id, counted from 0 per connection (the
goldens' normalizer maps it, like every id, to its first-seen number).
"""

from __future__ import annotations

import re
from typing import Any

from replay.log.event import Event

Frame = dict[str, Any]

OPTIONS = (
    {"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
    {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"},
)
_STATED = re.compile(r"Approval policy: ([A-Za-z-]+)")
_DISABLED = "Approval prompts are disabled"


def _policy_in_snapshot(data: dict[str, Any]) -> str | None:
    source = data.get("source")
    sections = source.get("sections") if isinstance(source, dict) else None
    if not isinstance(sections, list):
        return None
    for section in sections:
        if isinstance(section, dict) and section.get("name") == "approval:policy":
            text = section.get("text")
            if not isinstance(text, str):
                return None
            stated = _STATED.match(text)
            if stated:
                return stated.group(1)
            return "never" if text.startswith(_DISABLED) else None
    return None


class PermissionRequests:
    """One connection's permission requests: feed every event in log order."""

    __slots__ = ("_next_id", "_session_id", "policy")

    def __init__(self, session_id: str) -> None:
        self._session_id = session_id
        self._next_id = 0
        self.policy = "never"

    def frames(self, event: Event) -> list[Frame]:
        """The requests this event makes the agent send (and the policy it sets)."""
        data = event.data
        if not isinstance(data, dict):
            return []
        if event.type == "approval/policy":
            if isinstance(data.get("policy"), str):
                self.policy = data["policy"]
        elif event.type == "user/message":
            stated = _policy_in_snapshot(data)
            if stated is not None:
                self.policy = stated
        elif event.type == "approval/asked" and self.policy == "ask" and isinstance(data.get("callId"), str):
            frame = {"jsonrpc": "2.0", "id": self._next_id, "method": "session/request_permission",
                     "params": {"sessionId": self._session_id, "toolCall": {"toolCallId": data["callId"]},
                                "options": [dict(o) for o in OPTIONS]}}
            self._next_id += 1
            return [frame]
        return []


__all__ = ["OPTIONS", "Frame", "PermissionRequests"]
