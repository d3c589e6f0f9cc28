"""The typed reading (records decoded straight into ``replay.log.typed`` structs, the
checkers' typed handlers) is the exact reading (orjson, a dict view, the legacy
migrations, every core rule on the dict): the same events, the same damage, the same
findings, byte for byte, on real logs and on real logs whose records hypothesis bends
(duplicate keys, integers past the safe range or past 64 bits, ``5.0`` for a seq, lone
surrogates, invalid UTF-8, fields added, dropped or of another type, another event type,
legacy shapes, deep nesting)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay.check.engine import Policy, audit_items
from replay.findings import Finding
from replay.log import typed as typed_model
from replay.log.event import KNOWN_TYPES, ChunkRun, DictEvent, Event
from replay.log.reader import read_log
from tests.helpers import MULTI_TURN, PARALLEL_CALLS, SURFACE_REPLACE, TODO_WRITE, bytes_source, examples, records

LEGACY = "acp-2026-06-29/subagent-multi/session.jsonl"
"""A 2026-06 log: turn/start triggers, top-level tool results and assistant content."""
PACKED = "sessions-2026-08-20/apps_web_tests_snapshots/feedback-command/session.jsonl"
"""A log with packed chunk rows."""
LOGS = [TODO_WRITE, MULTI_TURN, PARALLEL_CALLS, SURFACE_REPLACE, LEGACY, PACKED]


def _lines(log: str) -> list[bytes]:
    return [json.dumps(r, ensure_ascii=False, separators=(",", ":")).encode() for r in records(log)]


def _item(item: object) -> tuple[object, ...]:
    if isinstance(item, Event):
        return ("event", item.type, repr(item.seq), repr(item.time), item.line, repr(item.data), repr(item.record),
                repr(item.surface_op))
    if isinstance(item, ChunkRun):
        return ("run", repr(item), [_item(ev) for ev in item.events()])
    assert isinstance(item, Finding)
    return ("finding", repr(item))


def _read(data: bytes, typed: bool) -> list[tuple[object, ...]]:
    return [_item(item) for batch in read_log(bytes_source(data), typed=typed).batches() for item in batch]


def _judged(data: bytes, typed: bool, spans: bool, policy: Policy) -> tuple[int, list[str]]:
    log = read_log(bytes_source(data), typed=typed)
    events, found = audit_items(log.audit_batches() if spans else log.batches(), log.header, policy)
    return events, [repr(f) for f in found]


def _same(data: bytes) -> None:
    assert _read(data, True) == _read(data, False)
    for policy in (Policy.PARALLEL, Policy.SINGLE):
        exact = _judged(data, False, False, policy)
        assert _judged(data, True, True, policy) == exact
        assert _judged(data, True, False, policy) == exact


@pytest.mark.parametrize("log", LOGS)
def test_real_logs_read_typed_as_exactly(log: str) -> None:
    data = b"\n".join(_lines(log)) + b"\n"
    typed = [item for batch in read_log(bytes_source(data)).batches() for item in batch
             if isinstance(item, Event) and not isinstance(item, DictEvent)]
    if log != LEGACY:
        assert typed, "the log's records are read typed"
    _same(data)


BENT_VALUES = st.sampled_from([
    0, -1, 1, 2**53 - 1, 2**53, -(2**53) + 1, -(2**53), 2**63, 2**64, 10**30, -(10**30), 5.0, 1.5, -0.0, 1e300,
    True, False, None, "", "5", "x\ud800y", "\udfff", "append", "user", "model", "tool", "completed", [], {},
    [1, 2], {"kind": "model"}, {"kind": "completed", "extra": 1},
])


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place inside a record a value sits at (keys of objects, indexes of arrays)."""
    found = [path]
    if isinstance(value, dict):
        for key, inner in value.items():
            found.extend(_paths(inner, (*path, key)))
    elif isinstance(value, list):
        for i, inner in enumerate(value[:4]):
            found.extend(_paths(inner, (*path, i)))
    return found


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def _alike(value: Any, draw: st.DrawFn) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return draw(st.sampled_from([value + 1, value - 1, 0, 1, 2**53 - 1, 2**53]))
    if isinstance(value, str):
        return draw(st.sampled_from(["zzz", "", value + "x", "completed", "model", "user", "tool", "append"]))
    return draw(BENT_VALUES)


@st.composite
def bent_record(draw: st.DrawFn, rec: Any) -> bytes:
    """One record bent: a value replaced, a key added or dropped, its type changed, a
    key repeated, its bytes made invalid UTF-8 or nested deep."""
    how = draw(st.sampled_from(["alike", "alike", "alike", "value", "value", "drop", "add", "type", "duplicate",
                                "duplicate", "utf8", "deep", "legacy"]))
    if not isinstance(rec, dict):
        return json.dumps(rec).encode()
    rec = json.loads(json.dumps(rec))
    paths = _paths(rec)
    if how == "alike":  # a value of the same JSON type, which keeps the record typed
        paths = [p for p in paths if p and not isinstance(_at(rec, p), (dict, list))] or paths
    path = draw(st.sampled_from(paths))
    holder = _at(rec, path[:-1]) if path else None
    if how == "alike" and path:
        holder[path[-1]] = _alike(_at(rec, path), draw)
    elif how == "value" and path:
        holder[path[-1]] = draw(BENT_VALUES)
    elif how == "drop" and path and isinstance(holder, dict):
        del holder[path[-1]]
    elif how == "add":
        target = _at(rec, path)
        if isinstance(target, dict):
            target[draw(st.sampled_from(["extra", "ignorable", "surfaceOp", "sourceEventSeqs", "line", "raw",
                                         "memo", "reason", "trigger", "callId", "content"]))] = draw(BENT_VALUES)
    elif how == "type":
        rec["type"] = draw(st.sampled_from([*sorted(KNOWN_TYPES), "text-chunks", "tool-call-chunks", "mode/set",
                                            "steering/message", "request/header-delta", "plugin/own", "", 5, None,
                                            ["turn/start"]]))
    elif how == "legacy" and isinstance(rec.get("data"), dict):
        data = rec["data"]
        if rec.get("type") == "turn/start":
            data["trigger"] = {"kind": "message"}
        elif rec.get("type") == "turn/end":
            data["reason"] = {"kind": draw(st.sampled_from(["aborted", "disposed", "error"])), "step": 1}
        elif "message" in data:
            message = data.pop("message")
            if isinstance(message, dict):
                data.update(content=message.get("content"), callId="c1")
        else:
            data["content"] = []
    text = json.dumps(rec, ensure_ascii=draw(st.booleans()), separators=(",", ":"))
    if how == "duplicate" and path:
        key = json.dumps(path[0])
        # The key again, first (the record's own value wins, as the last one) or last.
        if draw(st.booleans()):
            text = "{" + key + ":" + json.dumps(draw(BENT_VALUES)) + "," + text[1:]
        else:
            text = text[:-1] + "," + key + ":" + json.dumps(draw(BENT_VALUES)) + "}"
    data = text.encode("utf-8", "surrogatepass")
    if how == "utf8":
        at = data.find(b'":"')
        if at > 0:
            data = data[:at + 3] + draw(st.sampled_from([b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"])) \
                + data[at + 3:]
    elif how == "deep":
        depth = draw(st.sampled_from([typed_model.MAX_NESTING - 2, typed_model.MAX_NESTING + 5, 3000]))
        at = data.rfind(b"}")
        data = data[:at] + b',"deep":' + b"[" * depth + b"]" * depth + data[at:]
    return data


SHAPED = frozenset({"tool/result", "tool/call", "user/message", "assistant/message", "request/header", "turn/end",
                    "text-chunks", "reasoning-chunks", "tool-call-chunks"})


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(LOGS), st.data())
def test_bent_real_logs_read_and_judge_typed_as_exactly(log: str, draw: st.DataObject) -> None:
    _same(bent_log(log, draw))


def bent_log(log: str, draw: st.DataObject) -> bytes:
    """The corpus log ``log`` with one to three of its records bent (``bent_record``)."""
    lines = _lines(log)
    recs = records(log)
    shaped = [i for i, r in enumerate(recs) if i and r.get("type") in SHAPED]
    for _ in range(draw.draw(st.integers(1, 3))):
        # Half the time a record whose data has a shape of its own (most are chunks).
        index = draw.draw(st.sampled_from(shaped) if shaped and draw.draw(st.booleans())
                          else st.integers(1, len(lines) - 1))
        lines[index] = draw.draw(bent_record(recs[index]))
    return b"\n".join(lines) + b"\n"


def _leaves() -> list[tuple[str, int, tuple[Any, ...]]]:
    """(log, record index, path) of each distinct leaf of each event type's data in the
    logs (its first occurrence): every field a typed handler could read."""
    seen: set[tuple[Any, ...]] = set()
    found = []
    for log in LOGS:
        for index, rec in enumerate(records(log)):
            if not index or not isinstance(rec.get("data"), dict):
                continue
            for path in _paths(rec):
                key = (rec.get("type"), *(step if isinstance(step, str) else 0 for step in path))
                if path and not isinstance(_at(rec, path), (dict, list)) and key not in seen:
                    seen.add(key)
                    found.append((log, index, path))
    return found


def test_every_field_changed_alike_judges_typed_as_exactly() -> None:
    """Each field of each event type's records given another value of its JSON type
    (most keep the record typed; a value its struct refuses takes the exact path): a
    typed handler that passes over a field a rule reads shows here, every time, where
    chance might not draw the field."""
    cases = kept = 0
    for log, index, path in _leaves():
        rec = json.loads(json.dumps(records(log)[index]))
        value = _at(rec, path)
        other = (not value if isinstance(value, bool) else value + 1 if isinstance(value, int)
                 else value + "x" if isinstance(value, str) and value else "zzz" if isinstance(value, str) else None)
        if other is None:
            continue
        _at(rec, path[:-1])[path[-1]] = other
        lines = _lines(log)
        lines[index] = json.dumps(rec, separators=(",", ":")).encode()
        data = b"\n".join(lines) + b"\n"
        assert _judged(data, True, True, Policy.PARALLEL) == _judged(data, False, False, Policy.PARALLEL), \
            (log, index, path)
        cases += 1
        kept += any(isinstance(item, Event) and not isinstance(item, DictEvent) and item.line == index + 1
                    for batch in read_log(bytes_source(data)).batches() for item in batch)
    assert cases > 100 and kept > 100, (cases, kept)


def test_a_negative_seq_after_damage_is_a7_and_c2_in_both_readings() -> None:
    """After an unreadable record no seq is expected; a chunk with seq -1 there is A7
    (worded without an expected seq) and C2 (the envelope rule judges a seq below 0),
    typed or exact."""
    lines = _lines(MULTI_TURN)
    chunk = [i for i, r in enumerate(records(MULTI_TURN)) if r.get("type") == "assistant/chunk"][3]
    lines[chunk - 1] = b"garbage"
    rec = json.loads(lines[chunk])
    rec["seq"] = -1
    lines[chunk] = json.dumps(rec, separators=(",", ":")).encode()
    data = b"\n".join(lines) + b"\n"
    _same(data)
    log = read_log(bytes_source(data))
    found = [(f.rule, f.line, f.message) for f in audit_items(log.audit_batches(), log.header, Policy.PARALLEL)[1]
             if f.line == chunk + 1]
    fatal = ("Damage before the last complete turn (its turn/end is on line 38) is fatal: today's harness refuses "
             "this log")
    assert found == [
        ("A7", chunk + 1, "the event has seq -1 below 0: seqs count 0, 1, 2, … from the first event, with no gap or "
                          f"repeat. {fatal}"),
        ("C2", chunk + 1, "today's harness refuses this event: its seq must be a whole number from 0 to 2^53-1, "
                          "got -1"),
    ]
