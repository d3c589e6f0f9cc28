"""Each fast path of the core checker says what its rule says: a record the envelope
fast path (``plain_envelope``) passes has no C2 finding, a message the message-shape
fast path (``well_formed_message``) passes has no B5 finding, on real records and on
real records bent as the typed-reading property bends them. (A plain chunk's fast path
is the envelope's plus D9; the chunk spans have their own properties.)"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.check.envelope import envelope_problems, plain_envelope
from replay.check.messages import message_problems, well_formed_message
from replay.findings import Finding
from replay.log.event import DictEvent
from replay.log.lines import Unparsable, decode_json
from tests.helpers import examples, records
from tests.log.test_typed import LEGACY, LOGS, PACKED, bent_record

ROLES = {"user/message": "user", "assistant/message": "assistant", "tool/result": "user"}


def _message(t: str, data: Any) -> Any:
    return data if t == "user/message" else data.get("message") if isinstance(data, dict) else None


def _judge(rec: Any) -> tuple[bool, bool]:
    """Hold each fast path to its rule on one record; say which fast paths passed it."""
    if type(rec) is not dict:
        return False, False
    seq = rec.get("seq")
    ev = DictEvent(str(rec.get("type")), seq if type(seq) is int else 0, rec.get("time"), rec.get("data"), 2, rec)
    envelope = plain_envelope(rec)
    if envelope:
        out: list[Finding] = []
        envelope_problems(ev, out)
        assert out == [], rec
    shaped = False
    for t, role in ROLES.items():
        message = _message(t, rec.get("data"))
        if well_formed_message(t, message, role):
            shaped = True
            out = []
            message_problems(DictEvent(t, ev.seq, ev.time, ev.data, 2, rec), message, role, out)
            assert out == [], (t, message)
    return envelope, shaped


@pytest.mark.parametrize("log", LOGS)
def test_fast_paths_pass_real_records(log: str) -> None:
    passed = [_judge(rec) for rec in records(log)[1:]]
    assert all(envelope for (envelope, _), rec in zip(passed, records(log)[1:], strict=True) if "seq0" not in rec)
    if log not in (LEGACY, PACKED):  # today's shapes: its messages take the fast path
        assert any(shaped for _, shaped in passed)


@settings(max_examples=examples(400), deadline=None)
@given(st.sampled_from(LOGS), st.data())
def test_fast_paths_say_what_their_rules_say(log: str, draw: st.DataObject) -> None:
    recs = records(log)
    index = draw.draw(st.integers(1, len(recs) - 1))
    try:
        rec = decode_json(draw.draw(bent_record(recs[index])))
    except Unparsable:
        return
    _judge(rec)
