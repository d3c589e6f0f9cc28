"""Normalization of rendered ACP lines, exactly as the recorded goldens were normalized
(the harness's normalizer of 2026-07, older than the one in acp-and-snapshots.md §B.7).

Every string leaf is scrubbed, in order:

1. each cwd spelling (longest first; plain substring replacement) → ``{{cwd}}``;
2. ``/private{{cwd}}`` → ``{{cwd}}`` (macOS temporary directories);
3. spilled-output locators → ``{{spillLocator:<name>}}``;
4. the session id, then any UUID → ``{{sessionId}}``.

Then a ``session_info_update``'s ``updatedAt`` becomes ``{{updatedAt}}``, and a frame's
JSON-RPC ``id`` becomes its first-seen number in the stream (1, 2, …), as the harness's
normalizer numbers responses and the agent's own requests alike.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from replay.jsjson import dumps
from replay.log.values import CWD_PLACEHOLDER

CWD_TOKEN = CWD_PLACEHOLDER
"""The goldens' token for the session cwd: the fixtures' own placeholder."""
SESSION_TOKEN = "{{sessionId}}"
UPDATED_AT_TOKEN = "{{updatedAt}}"

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)
_SPILL_END = r"(?=\. Use read with offset/limit|\s|\)|$)"
_SPILL = re.compile(
    "(?:" + re.escape(CWD_TOKEN) + r"/\.spill"
    r"|(?:[A-Za-z]:)?(?:/tmp|/t)/(?:dsh-acp-snap-[0-9a-f]{9}|dsh-acp-snapshot-spill))"
    r"/session-[0-9a-f]{12}/[0-9a-f]{12}-([^\s/]+?)" + _SPILL_END
)


class Normalizer:
    """The scrub for one session: its cwd spellings and session id."""

    def __init__(self, cwds: Sequence[str] = (), session_id: str | None = None) -> None:
        spellings = {c for c in cwds if c and c != CWD_TOKEN}
        self._cwds = sorted(spellings, key=len, reverse=True)
        self._session_id = session_id if session_id and session_id != SESSION_TOKEN else None
        self._words = (*self._cwds, *([self._session_id] if self._session_id is not None else []))
        """What ``text`` looks for besides a ``-`` and a ``{``."""
        self._ids: dict[str, int] = {}

    def text(self, value: str) -> str:
        """``scrub(value)``, without its replacements and searches for a string that
        holds none of what they look for: every pattern but a cwd spelling and the
        session id holds a ``-`` or a ``{``."""
        if "-" in value or "{" in value or any(word in value for word in self._words):
            return self.scrub(value)
        return value

    def scrub(self, value: str) -> str:
        """Every scrub of the module's docstring, in order."""
        for cwd in self._cwds:
            value = value.replace(cwd, CWD_TOKEN)
        value = value.replace("/private" + CWD_TOKEN, CWD_TOKEN)
        value = _SPILL.sub(lambda m: "{{spillLocator:" + m.group(1) + "}}", value)
        if self._session_id is not None:
            value = value.replace(self._session_id, SESSION_TOKEN)
        return _UUID.sub(SESSION_TOKEN, value)

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items()}
        return value

    def notification(self, frame: Any) -> Any:
        """One frame of the stream, normalized (ids are numbered across the stream)."""
        out = self.value(frame)
        if isinstance(out, dict) and "id" in out:
            out["id"] = self._ids.setdefault(dumps(out["id"]), len(self._ids) + 1)
        params = out.get("params") if isinstance(out, dict) else None
        update = params.get("update") if isinstance(params, dict) else None
        if isinstance(update, dict) and update.get("sessionUpdate") == "session_info_update" \
                and "updatedAt" in update:
            update["updatedAt"] = UPDATED_AT_TOKEN
        return out


def normalize_notification(frame: Any, *, cwd: str | Sequence[str] | None, session_id: str | None) -> Any:
    """A copy of one JSON-RPC frame with its volatile values replaced by placeholders."""
    cwds = [cwd] if isinstance(cwd, str) else list(cwd or ())
    return Normalizer(cwds, session_id).notification(frame)


def normalize_line(line: str, *, cwd: str | Sequence[str] | None, session_id: str | None) -> str:
    """One serialized frame, normalized and re-serialized like the harness (no newline)."""
    return dumps(normalize_notification(json.loads(line), cwd=cwd, session_id=session_id))
