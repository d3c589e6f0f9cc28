"""A whole log as normalized ACP lines: what goldens store and conformance compares.

Logs written by fixtures store the ``{{cwd}}`` placeholder as their cwd; path logic
(title relativization, terminal cwd) must run as it did live, so the log is rendered
with a stand-in absolute cwd and normalized back afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from replay.jsjson import dumps
from replay.log.event import Event
from replay.render.acp.normalize import CWD_TOKEN, Normalizer
from replay.render.acp.profiles import DEFAULT_PROFILE, Profile
from replay.render.acp.translate import Mode, Notification, render_acp
from replay.render.acp.views import PresenterRegistry

STAND_IN_CWD = "/replay-stand-in-cwd"


def render_cwd(header_cwd: str | None) -> str | None:
    """The cwd to render with: the header's, with a ``{{cwd}}`` placeholder replaced
    by the stand-in absolute path."""
    if header_cwd is not None and header_cwd.startswith(CWD_TOKEN):
        return STAND_IN_CWD + header_cwd[len(CWD_TOKEN):]
    return header_cwd


def normalized_lines(
    events: Iterable[Event],
    *,
    session_id: str,
    header_cwd: str | None,
    mode: Mode = "live",
    profile: Profile = DEFAULT_PROFILE,
    terminal_output: bool = False,
    presenters: PresenterRegistry | None = None,
    exclude: Iterable[str] = (),
) -> Iterator[str]:
    """The session's ACP stream, one normalized JSON line per frame, minus the
    ``session/update`` kinds in ``exclude``; one line at a time (nothing is held)."""
    cwd = render_cwd(header_cwd)
    normalizer = Normalizer([c for c in (header_cwd, cwd, STAND_IN_CWD) if c], session_id)
    skip = frozenset(exclude)
    frames = render_acp(events, session_id=session_id, mode=mode, profile=profile, terminal_output=terminal_output,
                        cwd=cwd, presenters=presenters)
    for frame in frames:
        if update_kind(frame) not in skip:
            yield dumps(normalizer.notification(frame))


def update_kind(frame: Notification) -> str | None:
    """A ``session/update``'s ``sessionUpdate``; ``None`` for any other frame."""
    params = frame.get("params")
    update = params.get("update") if isinstance(params, dict) else None
    kind = update.get("sessionUpdate") if isinstance(update, dict) else None
    return kind if isinstance(kind, str) else None
