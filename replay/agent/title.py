"""The harness's session-title model, as a keyless run plays it.

A harness with a model-backed title provider (``session-title-first-prompt-llm``)
asks an auxiliary model for a title once the first prompt is in: it logs the request
(``session/title-llm-request``: the provider, its route, the exact messages), streams
one call on that route, and — when the call finishes with ``stop`` and holds text
only — appends ``session/title`` with ``source: {kind: "provider", provider, model:
route}``. The text blocks, joined with a space, are normalized the harness's way:
escape sequences, control and bidi/invisible characters removed, whitespace folded
to single spaces, trimmed, then cut to the deployment's byte budget on a code-point
boundary. A call that fails, stalls, calls a tool, stops otherwise or yields no text
gives no title (the harness's title work is best effort).

The route is not the agent's: in the harness's keyless suite a second replay
provider serves it (``title-replay``) and plays ``replay.override.json``, while the
agent's calls derive from the log. ``TitleModel`` is that second route for a run
played from a recording: at each recorded title request it asks its model for one
call, and the recorded provider title that answers the request carries the model's
title instead of the recorded one (or is left out when the call gives none).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from replay.agent.model import Model, ModelCall

REQUEST = "session/title-llm-request"
TITLE = "session/title"

_ESCAPES = re.compile(
    r"(?:\x1b\]|\x9d)(?:(?!\x07|\x1b\\)[\s\S])*(?:\x07|\x1b\\|$)"  # OSC, terminated or not
    r"|(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b[@-_]"  # two-byte ESC sequences
)
_INVISIBLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064"
                        "\u2066-\u206f\ufeff]")
_SPACE = re.compile(r"\s+")


def normalize_title(text: str, max_bytes: int | None = None) -> str:
    """One clean line of at most ``max_bytes`` UTF-8 bytes (no limit: ``None``)."""
    line = _SPACE.sub(" ", _INVISIBLE.sub("", _ESCAPES.sub("", text))).strip()
    if max_bytes is not None and len(line.encode()) > max_bytes:
        kept, used = [], 0
        for char in line:
            used += len(char.encode())
            if used > max_bytes:
                break
            kept.append(char)
        line = "".join(kept).rstrip()
    return line


def title_of(call: ModelCall, max_bytes: int | None = None) -> str | None:
    """The title one title-model call gives, or ``None`` when it gives none."""
    if call.failure is not None or call.hang:
        return None
    finish = next((c.get("reason") for c in reversed(call.chunks) if c.get("type") == "finish"), None)
    if not isinstance(finish, dict) or finish.get("kind") != "stop":
        return None
    blocks = [c["block"] for c in call.chunks if c.get("type") == "block-end" and isinstance(c.get("block"), dict)]
    if any(b.get("type") == "tool-call" for b in blocks):
        return None
    text = " ".join(b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str))
    return normalize_title(text, max_bytes) or None


def _provider(data: Any, *path: str) -> Any:
    for key in path:
        data = data.get(key) if isinstance(data, dict) else None
    return data


@dataclass
class TitleModel:
    """The title route of one session: its model answers the recording's title
    requests, in order; each answer titles the next recorded provider title of the
    same provider."""

    model: Model
    max_bytes: int | None = None
    _pending: dict[str, list[str | None]] = field(default_factory=dict, repr=False)

    def request(self, data: Any) -> None:
        """A recorded ``session/title-llm-request`` is being replayed: one call."""
        provider = _provider(data, "titleProvider")
        self._pending.setdefault(str(provider), []).append(title_of(self.model.next_call(), self.max_bytes))

    def answers(self, data: Any) -> bool:
        """Whether a recorded ``session/title`` is a provider title this model answers."""
        if _provider(data, "source", "kind") != "provider":
            return False
        return bool(self._pending.get(str(_provider(data, "source", "provider"))))

    def title(self, data: dict[str, Any]) -> str | None:
        """The title this model gave for the request a recorded provider title answers."""
        return self._pending[str(_provider(data, "source", "provider"))].pop(0)
