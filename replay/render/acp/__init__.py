"""ACP rendering: a session log → the frames the harness's ACP agent sent its client.

Public API:

* ``render_acp(events, *, session_id, mode="live"|"load", profile="2026-07"|"2026-08",
  terminal_output=False, cwd=None, presenters=None, repair=True) -> Iterator[dict]``:
  the notifications
  ``{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":…,"update":{…}}}``
  (and, live, the ``session/request_permission`` requests) of a session's events
  (``replay.log.reader.iter_events``), in the harness's key order. ``live``: what a
  client saw as the session ran (no user-message echo); ``load``: a ``session/load``
  replay (user messages included). ``profile``: the generation of the agent
  (``profiles.py``: 2026-07 the editor projection of acp-and-snapshots.md §A, 2026-08
  the automation transport of §A.10); ``detect_profile(events)`` reads it off a log.
* ``AcpSession(AcpOptions(...)).translate(event)``: the same, one event at a time.
* ``dump_notification(n) -> str``: the frame as ``JSON.stringify`` writes it (no newline).
* ``normalize_line(line, *, cwd, session_id) -> str`` / ``normalize_notification``:
  the goldens' placeholders (``{{cwd}}``, ``{{spillLocator:…}}``, ``{{sessionId}}``,
  ``{{updatedAt}}``).
* ``shipped_presenters() -> PresenterRegistry``: the per-tool presenters, chosen by
  tool name, each bound to its tool's parameter schema;
  ``registry.with_presenter(name, Presenter(call=…, result=…, parameters=…))`` adds or
  overrides one. A presenter only sees arguments that validate (``validation.py``).
  Views: ``GenericCall``, ``DiffCall``, ``TerminalCall``, ``GenericResult``,
  ``DiffResult``, ``TerminalResult``.

Mapping (one event → updates): text / reasoning deltas → ``agent_message_chunk`` /
``agent_thought_chunk`` (verbatim, empty text included); ``llm/retry`` → a message
chunk; ``user/message`` → ``user_message_chunk`` per text block (load only);
``tool/call`` → ``tool_call`` (presenter on valid arguments, generic fallback); ``tool/result`` →
``tool_call_update`` (``failed`` on ``isError``; nothing for a non-``append``
``surfaceOp``); ``todo/write`` → ``plan``; ``session/title`` →
``session_info_update``; an error ``turn/end`` carrying a failure object → a message
chunk. Everything else → nothing.
"""

from __future__ import annotations

from typing import Any

from replay.jsjson import dumps
from replay.render.acp.normalize import Normalizer, normalize_line, normalize_notification
from replay.render.acp.presenters import shipped_presenters
from replay.render.acp.profiles import DEFAULT_PROFILE, PROFILES, Profile, detect_profile
from replay.render.acp.translate import (
    AcpOptions,
    AcpSession,
    Mode,
    Notification,
    iso_time,
    render_acp,
)
from replay.render.acp.validation import ArgumentSchema
from replay.render.acp.views import (
    UNSET,
    Diff,
    DiffCall,
    DiffResult,
    GenericCall,
    GenericResult,
    Presenter,
    PresenterRegistry,
    TerminalCall,
    TerminalResult,
    ToolOutcome,
)


def dump_notification(notification: Any) -> str:
    """One frame as the harness writes it: ``JSON.stringify`` text, without the newline."""
    return dumps(notification)


__all__ = [
    "DEFAULT_PROFILE",
    "PROFILES",
    "UNSET",
    "AcpOptions",
    "AcpSession",
    "ArgumentSchema",
    "Diff",
    "DiffCall",
    "DiffResult",
    "GenericCall",
    "GenericResult",
    "Mode",
    "Normalizer",
    "Notification",
    "Presenter",
    "PresenterRegistry",
    "Profile",
    "TerminalCall",
    "TerminalResult",
    "ToolOutcome",
    "detect_profile",
    "dump_notification",
    "iso_time",
    "normalize_line",
    "normalize_notification",
    "render_acp",
    "shipped_presenters",
]
