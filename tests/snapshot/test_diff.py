"""The semantic diff: aligned events, one line per difference, each at its golden
line, never empty."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from replay.goldens.diff import JSON, TEXT, changes
from replay.goldens.lines import MAX_LINES, Change, change_lines
from replay.goldens.records import json_lines
from replay.goldens.values import value_changes
from tests.helpers import by_name


def _jsonl(records: list[Any]) -> bytes:
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records).encode()


def _note(i: int, status: str = "pending", content: str | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {
        "sessionUpdate": "plan", "entries": [{"content": content or f"task {i}", "priority": "medium",
                                              "status": status}]}}}


def test_one_changed_field_is_one_line_at_its_golden_line() -> None:
    old = [_note(i) for i in range(30)]
    new = [_note(i) for i in range(30)]
    new[16] = _note(16, "in_progress")
    assert changes(by_name("stdout.expected.jsonl"), _jsonl(old), _jsonl(new)) == [
        Change('event 17 plan.entries[0].status: "pending" → "in_progress"', 17)]


def test_a_blank_line_in_the_golden_moves_the_line_not_the_event() -> None:
    old = _jsonl([_note(0), _note(1)]).replace(b"\n", b"\n\n", 1)
    assert changes(by_name("stdout.expected.jsonl"), old, _jsonl([_note(0), _note(1, "completed")])) == [
        Change('event 2 plan.entries[0].status: "pending" → "completed"', 3)]


def test_one_inserted_event_among_thousands_is_one_line() -> None:
    old = [_note(i) for i in range(3000)]
    new = [*old[:1500], _note(-1), *old[1500:]]
    assert changes(by_name("stdout.expected.jsonl"), _jsonl(old), _jsonl(new)) == [Change(
        'event 1501 (new) added plan: {"entries":[{"content":"task -1","priority":"medium","status":"pending"}]}',
        1501)]


def test_a_seq_shift_is_reported_once() -> None:
    log = [{"type": "turn/start", "seq": i, "time": 0, "data": {"turn": i + 1}} for i in range(10)]
    shifted = [{**r, "seq": r["seq"] - 1} for r in log[1:]]
    assert changes(by_name("session.expected.jsonl"), _jsonl(log), _jsonl(shifted)) == [
        Change('event 1 removed turn/start: {"time":0,"data":{"turn":1}}', 1),
        Change("events 2–10: seq shifted by -1 (events were added or removed before them)", 2)]


def test_more_differences_than_deepdiff_lists_still_report() -> None:
    # deepdiff stops at max_diffs with a partial (or empty) result: the report says so.
    old = {f"k{i}": i for i in range(30_000)}
    new = {f"k{i}": i + 1 for i in range(30_000)}
    full = value_changes(old, new)
    assert full[-1] == "(value): too large to compare completely (over 20000 values); the list above is incomplete"
    assert 0 <= len(full) - 1 < 30_000
    lines = changes(JSON, json.dumps(old).encode(), json.dumps(new).encode())
    assert len(lines) == MAX_LINES + 1 and lines[-1].text.startswith("… and ") and lines[-1].line is None
    assert len(changes(JSON, json.dumps(old).encode(), json.dumps(new).encode(), full=True)) == \
        len(full)
    small = {f"k{i}": i for i in range(2000)}
    one = changes(JSON, json.dumps({**small, "x": 1}, indent=2).encode(),
                  json.dumps(small, indent=2).encode())
    assert one == [Change("x: removed 1", 2002)]
    assert MAX_LINES == 40


def test_bytes_that_differ_only_in_spelling_never_give_an_empty_report() -> None:
    assert changes(JSON, b'{"a":1}', b'{"a": 1}') == [Change(
        "the bytes differ (7 bytes in the golden, 8 from the run) though the content compares equal: check key "
        "order, number spelling or escaping")]
    assert changes(TEXT, b"x\ny\n", b"x\ny") == [Change("only the trailing newline differs", 2)]


def test_text_is_a_unified_diff_one_change_per_hunk_at_its_first_changed_line() -> None:
    assert changes(TEXT, b"row=a\nsuffix=+1\npanel=x", b"row=a\nsuffix=<absent>\npanel=x") == [
        Change("@@ -1,3 +1,3 @@", 2, (" row=a", "-suffix=+1", "+suffix=<absent>", " panel=x"))]
    old = "\n".join(f"line {i}" for i in range(1, 21)).encode()
    new = old.replace(b"line 3\n", b"line three\n").replace(b"line 15\n", b"line 15\nline 15b\n")
    found = changes(TEXT, old, new)
    assert [(c.text, c.line) for c in found] == [("@@ -2,3 +2,3 @@", 3), ("@@ -15,2 +15,3 @@", 16)]
    assert change_lines(found)[:5] == ["@@ -2,3 +2,3 @@", " line 2", "-line 3", "+line three", " line 4"]


def test_json_changes_name_the_line_of_the_value_or_of_its_parent_in_line_order() -> None:
    old = {"updates": [{"seq": 3, "todos": [{"content": "a", "status": "pending"}]}], "final": None}
    new = {"updates": [{"seq": 3, "todos": [{"content": "a", "status": "completed", "extra": 1}]}], "final": []}
    text = json.dumps(old, indent=2).encode()
    assert changes(JSON, text, json.dumps(new, indent=2).encode()) == [
        Change('updates[0].todos[0].extra: added 1', 6),
        Change('updates[0].todos[0].status: "pending" → "completed"', 8),
        Change("final: null → []", 13)]


def test_full_shows_values_untruncated() -> None:
    long_old, long_new = "x" * 200 + "old", "x" * 200 + "new"
    old, new = _jsonl([_note(0, content=long_old)]), _jsonl([_note(0, content=long_new)])
    short = changes(by_name("stdout.expected.jsonl"), old, new)[0].text
    assert "…" in short and len(short) < 200
    assert changes(by_name("stdout.expected.jsonl"), old, new, full=True)[0].text == \
        f"event 1 plan.entries[0].content: {json.dumps(long_old)} → {json.dumps(long_new)}"
    many_old = "\n".join(f"a{i}" for i in range(100)).encode()
    many_new = "\n".join(f"b{i}" for i in range(100)).encode()
    assert len(change_lines(changes(TEXT, many_old, many_new))) == MAX_LINES + 1
    assert len(change_lines(changes(TEXT, many_old, many_new, full=True))) == 201


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                 max_size=3), max_leaves=12)


@given(_json, st.sampled_from([None, 2]))
def test_json_lines_finds_every_value_where_it_is(value: Any, indent: int | None) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    lines = json_lines(text)
    expected: dict[tuple[Any, ...], Any] = {}

    def walk(v: Any, path: tuple[Any, ...]) -> None:
        expected[path] = v
        if isinstance(v, dict):
            for k, item in v.items():
                walk(item, (*path, k))
        elif isinstance(v, list):
            for i, item in enumerate(v):
                walk(item, (*path, i))

    walk(value, ())
    assert set(lines) == set(expected)
    rows = text.split("\n")
    for path, line in lines.items():
        # The line holds the value's first character: its key (for a member) or the value itself.
        shown = json.dumps(expected[path], indent=indent, ensure_ascii=False).split("\n")[0]
        assert shown in rows[line - 1]
