"""The standing plan (spec §5) and the JavaScript trim set."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replay.log.event import DictEvent
from replay.log.reader import iter_events, read_log
from replay.log.source import file_source
from replay.todo.model import js_trim
from replay.todo.plan import SeqOutOfRange, plan_at, plan_changes, plans_at, standing_plan
from tests.helpers import ACP, audit_bytes, bytes_source, corpus_file, dump, records

TABLE = [
    (f"{ACP}/todo-write/session.jsonl",
     [{"content": "read the code", "status": "in_progress"},
      {"content": "watch the background build", "status": "in_progress"},
      {"content": "write the fix", "status": "pending"}], [98]),
    (f"{ACP}/repeat-tool-reminder/session.jsonl",
     [{"content": "watch the kettle boil", "status": "in_progress"}], [16, 27, 38, 52, 63]),
    (f"{ACP}/subagent-max-tokens-partial/session.1.jsonl",
     [{"content": "keep going", "status": "in_progress"}], [19]),
]


def _events(relative: str) -> list:  # type: ignore[type-arg]
    return list(iter_events(read_log(file_source(corpus_file(relative))).items()))


@pytest.mark.parametrize("relative, final, writes", TABLE, ids=[t[0].split("/")[-2] for t in TABLE])
def test_final_plan_matches_the_spec_table(relative: str, final: list, writes: list[int]) -> None:  # type: ignore[type-arg]
    events = _events(relative)
    assert standing_plan(events) == final
    assert [c.seq for c in plan_changes(events) if c.cause == "todo/write"] == writes


def test_a_new_turn_clears_the_plan() -> None:
    recs = records(f"{ACP}/todo-write/session.jsonl")
    recs.append({"type": "turn/start", "seq": 115, "time": 0, "data": {"turn": 2}})
    events = list(iter_events(read_log(bytes_source(dump(recs))).items()))
    assert standing_plan(events) is None
    assert standing_plan(events, at=114) == TABLE[0][1]
    assert standing_plan(events, at=97) is None  # before the first write


def test_plan_survives_turn_end() -> None:
    events = _events(f"{ACP}/todo-write/session.jsonl")
    assert events[-1].type == "turn/end"
    assert standing_plan(events, at=events[-1].seq) == standing_plan(events, at=98)


@pytest.mark.parametrize("text, trimmed", [
    ("  a  ", "a"),
    ("\ufeffa\u3000", "a"),          # JS strips BOM and ideographic space
    ("\x1ca\x1f", "\x1ca\x1f"),      # Python's strip would remove these; JS keeps them
    ("\x85a", "\x85a"),              # NEL: Python strips it, JS does not
    ("\u00a0\u2028a\u2029\u202f", "a"),
])
def test_js_trim(text: str, trimmed: str) -> None:
    assert js_trim(text) == trimmed


def test_content_python_would_strip_but_javascript_keeps_is_valid() -> None:
    recs = records(f"{ACP}/todo-write/session.jsonl")
    write = next(r for r in recs if r["type"] == "todo/write")
    write["data"]["todos"][0]["content"] = "read the code\x1c"
    assert audit_bytes(dump(recs)).findings == []


def test_plan_at_a_seq_outside_the_log_says_the_range() -> None:
    events = [DictEvent("turn/start", 3, 0, {"turn": 1}, 2, {}), DictEvent("todo/write", 4, 0, {"todos": []}, 3, {})]
    assert plan_at(events, 4) == []
    assert plan_at(events, 3) is None
    for at in (2, 5, -1):
        with pytest.raises(SeqOutOfRange, match=rf"seq {at} is outside the log: this log's events have seqs 3 to 4"):
            plan_at(iter(events), at)
    with pytest.raises(SeqOutOfRange, match="the log has no events"):
        plan_at([], 0)


@given(st.lists(st.tuples(st.sampled_from(["todo/write", "turn/start", "turn/end"]), st.integers(-5, 30)),
                max_size=40),
       st.lists(st.integers(-6, 31), max_size=10))
def test_plans_at_is_standing_plan_at_each_seq(shape: list[tuple[str, int]], seqs: list[int]) -> None:
    events = [DictEvent(t, seq, 0, {"todos": [{"content": f"c{i}", "status": "pending"}]}, i + 2, {})
              for i, (t, seq) in enumerate(shape)]
    changes = list(plan_changes(events))
    assert plans_at(changes, seqs) == [standing_plan(events, at=seq) for seq in seqs]
