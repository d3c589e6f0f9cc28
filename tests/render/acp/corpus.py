"""The corpus logs the ACP tests render: every session log under the corpus root."""

from __future__ import annotations

from pathlib import Path

from replay.log.reader import iter_events, read_log
from replay.log.source import file_source
from replay.render.acp.stream import render_cwd
from replay.render.acp.translate import Notification, render_acp
from tests.helpers import corpus_root

SUITES = ("acp-2026-07-23", "acp-2026-06-29", "sessions-2026-08-20")


def corpus_logs() -> list[Path]:
    """Every ``*.jsonl`` in the three corpus folders whose first record is a session
    header (goldens and transcripts are passed over)."""
    root = corpus_root()
    found = []
    for suite in SUITES:
        for path in sorted((root / suite).rglob("*.jsonl")) if (root / suite).is_dir() else []:
            log = read_log(file_source(path))
            if log.is_session_log:
                found.append(path)
            log.close()
    return found


def render_log(path: Path, mode: str, terminal_output: bool) -> list[Notification]:
    log = read_log(file_source(path))
    header = log.header
    assert header is not None
    return list(render_acp(iter_events(log.items()), session_id=header.id or "session", mode="load"
                           if mode == "load" else "live", terminal_output=terminal_output,
                           cwd=render_cwd(header.cwd)))
