"""Load replay = the live stream minus its permission requests, plus the user-message
chunks at the positions of the user/message events (the translator is a pure function
of the event sequence; a crash tail's closers are part of both).

What the user chunks say is never derived here from the event the translator reads:
it is written out for a real log, and known by construction for inserted messages."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay.log.event import DictEvent, Event
from replay.log.reader import iter_events, read_log
from replay.log.repair import with_repair
from replay.log.source import file_source
from replay.render.acp import AcpOptions, AcpSession, dump_notification, render_acp
from replay.render.acp.stream import render_cwd
from tests.helpers import TODO_WRITE, corpus_file
from tests.render.acp.corpus import corpus_logs

LOGS = corpus_logs()


def _events(path: Path) -> tuple[list[Event], str, str | None]:
    log = read_log(file_source(path))
    assert log.header is not None
    return list(iter_events(log.items())), log.header.id or "s", render_cwd(log.header.cwd)


def _user_chunk(session_id: str, text: str) -> str:
    """One ``user_message_chunk`` frame, as the ACP wire format spells it."""
    return ('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":' + dump_notification(session_id)
            + ',"update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":'
            + dump_notification(text) + "}}}}")


def _check(events: list[Event], session_id: str, cwd: str | None, terminal: bool,
           user_texts: Mapping[Event, list[str]] | None = None) -> None:
    """The live stream never echoes a user/message; the load stream is the live one
    without its permission requests (a load replays none), with user chunks at the
    user/message events, and nothing else added. For a user/message in ``user_texts``
    (event → the texts it must show) the chunks are exactly those texts; for any other,
    they are checked for their kind only (a steering/message the reader migrated into a
    user/message shows nothing)."""
    def session(load: bool) -> AcpSession:
        return AcpSession(AcpOptions(session_id, include_user_messages=load, terminal_output=terminal, cwd=cwd,
                                     permission_requests=not load))

    live_session, load_session = session(False), session(True)
    live: list[str] = []
    expected_load: list[str] = []
    for event in with_repair(events):
        frames = live_session.translate(event)
        produced = [dump_notification(n) for n in frames]
        replayed = [dump_notification(n) for n in load_session.translate(event)]
        if event.type == "user/message":
            assert produced == []  # the live path never echoes the prompt
            if user_texts is not None and event in user_texts:
                assert replayed == [_user_chunk(session_id, t) for t in user_texts[event]]
            if event.record.get("type") != "user/message":
                assert replayed == []
            assert all('"sessionUpdate":"user_message_chunk"' in line for line in replayed)
        else:
            assert replayed == [line for line, frame in zip(produced, frames, strict=True) if "id" not in frame]
        live.extend(produced)
        expected_load.extend(replayed)
    options: dict[str, Any] = {"session_id": session_id, "terminal_output": terminal, "cwd": cwd}
    assert [dump_notification(n) for n in render_acp(events, mode="live", **options)] == live
    assert [dump_notification(n) for n in render_acp(events, mode="load", **options)] == expected_load


@pytest.mark.parametrize("path", LOGS or [pytest.param(None, marks=pytest.mark.skip(reason="corpus absent"))],
                         ids=lambda p: "/".join(p.parts[-3:]) if isinstance(p, Path) else "corpus")
def test_load_is_live_plus_user_chunks(path: Path) -> None:
    events, session_id, cwd = _events(path)
    _check(events, session_id, cwd, terminal=True)


PROMPT = ('Use the todo_write tool to record a plan with exactly three todos for work running in parallel: "read '
          'the code" (in_progress), "watch the background build" (in_progress), "write the fix" (pending). Send all '
          "three in one todo_write call. Then reply with the single word DONE and stop.")
RUNTIME_CONTEXT = (
    "Current runtime context. This snapshot supersedes earlier runtime-context snapshots.\n\nCurrent DSH file "
    "policy: danger-full-access. The DSH file sandbox does not restrict file modifications by available "
    "operations.\n\nApproval prompts are disabled in this session: actions that require approval are rejected "
    "automatically — do not request sandbox escalation (do not set `sandbox_permissions`).")


def test_the_user_chunks_of_a_real_log() -> None:
    events, session_id, cwd = _events(corpus_file(TODO_WRITE))
    users = [e for e in events if e.type == "user/message"]
    assert [e.seq for e in users] == [4, 5]
    _check(events, session_id, cwd, terminal=False, user_texts={users[0]: [PROMPT], users[1]: [RUNTIME_CONTEXT]})


def _user_message(seq: int, texts: list[str], display: list[str] | None) -> Event:
    data: dict[str, Any] = {"id": f"u{seq}", "role": "user", "content": [{"type": "text", "text": t} for t in texts],
                            "source": {"kind": "user"}}
    if display is not None:
        data["envelope"] = {"displayContent": [{"type": "text", "text": t} for t in display]}
    return DictEvent("user/message", seq, 0, data, 0,
                 {"type": "user/message", "seq": seq, "time": 0, "data": data, "surfaceOp": "append"})


_texts = st.lists(st.text(max_size=12), max_size=3)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_load_is_live_plus_user_chunks_with_inserted_messages(data: st.DataObject) -> None:
    if not LOGS:
        pytest.skip("corpus absent")
    path = data.draw(st.sampled_from(LOGS), label="log")
    events, session_id, cwd = _events(path)
    user_texts: dict[Event, list[str]] = {}
    inserts = data.draw(st.lists(st.tuples(st.integers(0, len(events)), _texts, st.none() | _texts), max_size=4),
                        label="inserted user messages")
    for k, (at, texts, display) in enumerate(sorted(inserts, key=lambda t: -t[0])):
        message = _user_message(10_000 + k, texts, display)
        events.insert(at, message)
        user_texts[message] = display if display is not None else texts  # what the user was shown
    _check(events, session_id, cwd, terminal=data.draw(st.booleans(), label="terminal"), user_texts=user_texts)
