"""Property: random damage to real logs never makes the auditor raise."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from replay.check.registry import RULES
from replay.jsjson import dumps
from replay.log.reader import iter_events, read_log
from replay.render.acp import render_acp
from replay.render.stdio import stdio_text
from replay.render.web import html_page, web_golden
from replay.todo.plan import standing_plan
from tests.helpers import ACP, audit_bytes, bytes_source, corpus_file

BASES = [f"{ACP}/todo-write/session.jsonl", f"{ACP}/agent-instructions/session.jsonl",
         f"{ACP}/subagent-fork-in-process/session.1.jsonl", "acp-2026-06-29/todo-plan/session.jsonl"]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**60), 2**60) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


def _check(data: bytes, base_lines: int) -> None:
    report = audit_bytes(data)
    for f in report.findings:
        assert f.rule in RULES and f.rule != "INTERNAL", f
        assert f.line is None or 1 <= f.line <= data.count(b"\n") + 1
    assert report.status in ("ok", "findings", "unreadable")
    # Whatever the reader hands on, every renderer and the plan fold take it.
    log = read_log(bytes_source(data))
    if log.header is None:
        return
    events = list(iter_events(log.items()))
    for mode in ("live", "load"):
        for note in render_acp(events, session_id=log.header.id or "s", mode=mode, cwd=log.header.cwd):
            assert isinstance(dumps(note), str)
    assert isinstance(stdio_text(events, terminal=True), str)
    assert isinstance(web_golden(events), str)
    assert html_page(events).startswith("<!doctype html>")
    standing_plan(events)


@given(base=st.sampled_from(BASES), ops=st.lists(
    st.tuples(st.sampled_from(["flip", "cut", "insert", "dup", "drop", "swap"]),
              st.integers(0, 10**9), st.binary(max_size=12)), min_size=1, max_size=5))
def test_byte_level_damage_never_raises(base: str, ops: list[tuple[str, int, bytes]]) -> None:
    data = bytearray(corpus_file(base).read_bytes())
    lines = bytes(data).split(b"\n")
    for op, at, blob in ops:
        if op == "flip" and data:
            data[at % len(data)] ^= (at % 255) + 1
        elif op == "cut":
            del data[at % (len(data) + 1):]
        elif op == "insert":
            data[at % (len(data) + 1):at % (len(data) + 1)] = blob
        else:
            lines = bytes(data).split(b"\n")
            if len(lines) > 2:
                i = at % (len(lines) - 1)
                j = (at // 7) % (len(lines) - 1)
                if op == "dup":
                    lines.insert(i, lines[i])
                elif op == "drop":
                    del lines[i]
                else:
                    lines[i], lines[j] = lines[j], lines[i]
            data = bytearray(b"\n".join(lines))
    _check(bytes(data), len(lines))


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


@given(base=st.sampled_from(BASES), picks=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 10**6),
                                                              json_values), min_size=1, max_size=4))
def test_value_level_damage_never_raises(base: str, picks: list[tuple[int, int, Any]]) -> None:
    recs = [orjson.loads(line) for line in corpus_file(base).read_bytes().split(b"\n") if line]
    for which, where, value in picks:
        rec_index = which % len(recs)
        paths = _paths(recs[rec_index])
        path = paths[where % len(paths)]
        if not path:
            recs[rec_index] = value
            continue
        node = recs[rec_index]
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    data = b"".join(orjson.dumps(r) + b"\n" for r in recs)
    _check(data, len(recs))


@given(st.lists(st.text(alphabet='ab\n{}"', max_size=40).map(str.encode), max_size=8),
       st.lists(st.sampled_from([b'{"type":"x","time":5}\n', b'{"time":1}', b"\n"]), max_size=3))
def test_replay_diff_normalizes_lines_as_a_whole_split_would(blocks: list[bytes], records: list[bytes]) -> None:
    """``replay diff --normalize`` normalizes its input a block at a time (linear in the
    input): what it writes is the whole input's lines, each normalized, however the
    input is cut into blocks; a line past the record cap is ``TooLarge``."""
    import pytest

    from replay.log.bounded import TooLarge
    from replay.scenarios.compare_logs import _normal, _normalized

    whole = b"".join([*records, *blocks])
    pieces = [*records, *blocks]
    lines = whole.split(b"\n")
    expected = b"\n".join(_normal(line) for line in lines[:-1]) + (b"\n" if len(lines) > 1 else b"") + \
        (_normal(lines[-1]) if lines[-1] else b"")
    assert b"".join(_normalized(iter(pieces), 1 << 20)) == expected
    assert b"".join(_normalized(iter([whole]), 1 << 20)) == expected
    if any(len(line) > 25 for line in lines):
        with pytest.raises(TooLarge):
            b"".join(_normalized(iter(pieces), 25))
