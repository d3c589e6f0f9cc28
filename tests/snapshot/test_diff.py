"""The semantic diff: aligned events, one line per difference, never empty."""

from __future__ import annotations

import json
from typing import Any

from replay.snapshot.diff import MAX_LINES, changes, value_changes


def _jsonl(records: list[Any]) -> bytes:
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records).encode()


def _note(i: int, status: str = "pending") -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {
        "sessionUpdate": "plan", "entries": [{"content": f"task {i}", "priority": "medium", "status": status}]}}}


def test_one_changed_field_is_one_line() -> None:
    old = [_note(i) for i in range(30)]
    new = [_note(i) for i in range(30)]
    new[16] = _note(16, "in_progress")
    assert changes("stdout.expected.jsonl", _jsonl(old), _jsonl(new)) == [
        'event 17 plan.entries[0].status: "pending" → "in_progress"']


def test_one_inserted_event_among_thousands_is_one_line() -> None:
    old = [_note(i) for i in range(3000)]
    new = [*old[:1500], _note(-1), *old[1500:]]
    assert changes("stdout.expected.jsonl", _jsonl(old), _jsonl(new)) == [
        'event 1501 (new) added plan: {"entries":[{"content":"task -1","priority":"medium","status":"pending"}]}']


def test_a_seq_shift_is_reported_once() -> None:
    log = [{"type": "turn/start", "seq": i, "time": 0, "data": {"turn": i + 1}} for i in range(10)]
    shifted = [{**r, "seq": r["seq"] - 1} for r in log[1:]]
    assert changes("session.expected.jsonl", _jsonl(log), _jsonl(shifted)) == [
        'event 1 removed turn/start: {"time":0,"data":{"turn":1}}',
        "events 2–10: seq shifted by -1 (events were added or removed before them)"]


def test_more_differences_than_deepdiff_lists_still_report() -> None:
    # deepdiff stops at max_diffs with a partial (or empty) result: the report says so.
    old = {f"k{i}": i for i in range(30_000)}
    new = {f"k{i}": i + 1 for i in range(30_000)}
    full = value_changes(old, new)
    assert full[-1] == "(value): too large to compare completely (over 20000 values); the list above is incomplete"
    assert 0 <= len(full) - 1 < 30_000
    lines = changes("plan.expected.json", json.dumps(old).encode(), json.dumps(new).encode())
    assert len(lines) == MAX_LINES + 1 and lines[-1].startswith("… and ")
    small = {f"k{i}": i for i in range(2000)}
    one = changes("plan.expected.json", json.dumps({**small, "x": 1}).encode(), json.dumps(small).encode())
    assert one == ["x: removed 1"]
    assert MAX_LINES == 40


def test_bytes_that_differ_only_in_spelling_never_give_an_empty_report() -> None:
    assert changes("a.json", b'{"a":1}', b'{"a": 1}') == [
        "the bytes differ (7 bytes in the golden, 8 from the run) though the content compares equal: check key "
        "order, number spelling or escaping"]
    assert changes("a.txt", b"x\n", b"x") == ["only the trailing newline differs"]


def test_text_is_a_unified_diff() -> None:
    assert changes("web.expected.txt", b"row=a\nsuffix=+1\npanel=x", b"row=a\nsuffix=<absent>\npanel=x") == [
        "@@ -1,3 +1,3 @@", " row=a", "-suffix=+1", "+suffix=<absent>", " panel=x"]
