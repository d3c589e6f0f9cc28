"""Load replay = the live stream minus its permission requests, plus the user-message
chunks at the positions of the user/message events (the translator is a pure function
of the event sequence; a crash tail's closers are part of both)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay.log.event import Event
from replay.log.reader import iter_events, read_log
from replay.log.repair import with_repair
from replay.log.source import file_source
from replay.render.acp import AcpOptions, AcpSession, dump_notification, render_acp
from replay.render.acp.stream import render_cwd
from tests.render.acp.corpus import corpus_logs

LOGS = corpus_logs()


def _events(path: Path) -> tuple[list[Event], str, str | None]:
    log = read_log(file_source(path))
    assert log.header is not None
    return list(iter_events(log.items())), log.header.id or "s", render_cwd(log.header.cwd)


def _user_chunks(event: Event, session_id: str) -> list[str]:
    """The user_message_chunk lines of a user/message, derived from the event alone
    (a steering/message the reader migrated into one shows nothing)."""
    if event.record.get("type") != "user/message":
        return []
    data = event.data if isinstance(event.data, dict) else {}
    envelope = data.get("envelope")
    shown = envelope.get("displayContent") if isinstance(envelope, dict) else None
    blocks = shown if shown is not None else data.get("content")
    return [dump_notification({"jsonrpc": "2.0", "method": "session/update", "params": {
        "sessionId": session_id, "update": {"sessionUpdate": "user_message_chunk",
                                            "content": {"type": "text", "text": b["text"]}}}})
            for b in blocks or [] if isinstance(b, dict) and b.get("type") == "text"]


def _check(events: list[Event], session_id: str, cwd: str | None, terminal: bool) -> None:
    live_session = AcpSession(AcpOptions(session_id, include_user_messages=False, terminal_output=terminal,
                                         cwd=cwd, permission_requests=True))
    live: list[str] = []
    expected_load: list[str] = []
    for event in with_repair(events):
        frames = live_session.translate(event)
        produced = [dump_notification(n) for n in frames]
        if event.type == "user/message":
            assert produced == []  # the live path never echoes the prompt
            expected_load.extend(_user_chunks(event, session_id))
        live.extend(produced)
        # A load replays no permission request (the agent sent them live).
        expected_load.extend(line for line, frame in zip(produced, frames, strict=True) if "id" not in frame)
    options: dict[str, Any] = {"session_id": session_id, "terminal_output": terminal, "cwd": cwd}
    assert [dump_notification(n) for n in render_acp(events, mode="live", **options)] == live
    assert [dump_notification(n) for n in render_acp(events, mode="load", **options)] == expected_load


@pytest.mark.parametrize("path", LOGS or [pytest.param(None, marks=pytest.mark.skip(reason="corpus absent"))],
                         ids=lambda p: "/".join(p.parts[-3:]) if isinstance(p, Path) else "corpus")
def test_load_is_live_plus_user_chunks(path: Path) -> None:
    events, session_id, cwd = _events(path)
    _check(events, session_id, cwd, terminal=True)


def _user_message(seq: int, texts: list[str], display: list[str] | None) -> Event:
    data: dict[str, Any] = {"id": f"u{seq}", "role": "user", "content": [{"type": "text", "text": t} for t in texts],
                            "source": {"kind": "user"}}
    if display is not None:
        data["envelope"] = {"displayContent": [{"type": "text", "text": t} for t in display]}
    return Event("user/message", seq, 0, data, 0,
                 {"type": "user/message", "seq": seq, "time": 0, "data": data, "surfaceOp": "append"})


_texts = st.lists(st.text(max_size=12), max_size=3)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_load_is_live_plus_user_chunks_with_inserted_messages(data: st.DataObject) -> None:
    if not LOGS:
        pytest.skip("corpus absent")
    path = data.draw(st.sampled_from(LOGS), label="log")
    events, session_id, cwd = _events(path)
    inserts = data.draw(st.lists(st.tuples(st.integers(0, len(events)), _texts, st.none() | _texts), max_size=4),
                        label="inserted user messages")
    for k, (at, texts, display) in enumerate(sorted(inserts, key=lambda t: -t[0])):
        events.insert(at, _user_message(10_000 + k, texts, display))
    _check(events, session_id, cwd, terminal=data.draw(st.booleans(), label="terminal"))
