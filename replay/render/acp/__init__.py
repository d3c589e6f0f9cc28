"""ACP rendering: a session log → the ``session/update`` notifications the harness's
ACP bridge (the editor projection of 2026-07, acp-and-snapshots.md §A) sent.

Public API:

* ``render_acp(events, *, session_id, mode="live"|"load", terminal_output=False,
  cwd=None, presenters=None) -> Iterator[dict]``: the notifications
  ``{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":…,"update":{…}}}``
  of a session's events (``replay.log.reader.iter_events``), in the harness's key
  order. ``live``: what a client saw as the session ran (no user-message echo);
  ``load``: a ``session/load`` replay (user messages included).
* ``AcpSession(AcpOptions(...)).translate(event)``: the same, one event at a time.
* ``dump_notification(n) -> str``: the frame as ``JSON.stringify`` writes it (no newline).
* ``normalize_line(line, *, cwd, session_id) -> str`` / ``normalize_notification``:
  the goldens' placeholders (``{{cwd}}``, ``{{spillLocator:…}}``, ``{{sessionId}}``,
  ``{{updatedAt}}``).
* ``shipped_presenters() -> PresenterRegistry``: the per-tool presenters, chosen by
  tool name; ``registry.with_presenter(name, Presenter(call=…, result=…))`` adds or
  overrides one. Views: ``GenericCall``, ``DiffCall``, ``TerminalCall``,
  ``GenericResult``, ``DiffResult``, ``TerminalResult``.

Mapping (one event → updates): text / reasoning deltas → ``agent_message_chunk`` /
``agent_thought_chunk`` (verbatim, empty text included); ``llm/retry`` → a message
chunk; ``user/message`` → ``user_message_chunk`` per text block (load only);
``tool/call`` → ``tool_call`` (presenter, generic fallback); ``tool/result`` →
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
from replay.render.acp.translate import (
    AcpOptions,
    AcpSession,
    Mode,
    Notification,
    iso_time,
    render_acp,
)
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
    "UNSET",
    "AcpOptions",
    "AcpSession",
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
    "TerminalCall",
    "TerminalResult",
    "ToolOutcome",
    "dump_notification",
    "iso_time",
    "normalize_line",
    "normalize_notification",
    "render_acp",
    "shipped_presenters",
]
