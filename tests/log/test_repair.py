"""The crash repair's closers, as records and as the events a renderer replays."""

from __future__ import annotations

from replay.log.reader import iter_events, read_log
from replay.log.repair import NOT_STARTED_TEXT, STARTED_TEXT, with_repair
from tests.helpers import bytes_source, corpus_file, dump, records

CRASH_TAIL = "oracle-2026-07-23/event-crash-tail-not-started/session.jsonl"


def test_the_started_text_is_the_harness_sentence() -> None:
    assert STARTED_TEXT == (
        "The tool call was interrupted after it was recorded, but no result was durably recorded. Its "
        "outcome is unknown. Decide whether to retry from the tool semantics: retry only if the "
        "operation is read-only or idempotent; if it may have side effects, first verify external state "
        "or ask the user. Do not retry blindly.")
    assert NOT_STARTED_TEXT == ("The tool call was interrupted before the Harness recorded it as started. "
                                "Retry it if it is still needed.")
    # The harness printed it in full on an interrupted log (the answer key):
    golden = corpus_file("oracle-2026-07-23/event-crash-tail-not-started/load.expected.jsonl").read_text()
    assert STARTED_TEXT in golden and NOT_STARTED_TEXT in golden


def test_with_repair_appends_the_closers_after_the_last_event() -> None:
    recs = records(CRASH_TAIL)
    events = list(with_repair(iter_events(read_log(bytes_source(dump(recs))).items())))
    last = recs[-1]
    tail = [(e.type, e.seq, e.time, e.line) for e in events[len(recs) - 1:]]
    n = last["seq"]
    assert tail == [("tool/result", n + 1, last["time"], len(recs)),
                    ("tool/result", n + 2, last["time"], len(recs)),
                    ("step/end", n + 3, last["time"], len(recs)),
                    ("turn/end", n + 4, last["time"], len(recs))]
    started, not_started = events[-4].data, events[-3].data
    assert started["message"]["source"] == {"kind": "tool", "callId": "call_n1"}
    assert started["error"] == {"name": "ToolOutcomeUnknownError", "code": "TOOL_OUTCOME_UNKNOWN"}
    assert events[-4].record["sourceEventSeqs"] == [14]
    assert not_started["message"]["content"][0]["content"] == [{"type": "text", "text": NOT_STARTED_TEXT}]
    assert not_started["error"]["code"] == "TOOL_NOT_STARTED" and "sourceEventSeqs" not in events[-3].record
    assert events[-1].data == {"turn": 1, "reason": {"kind": "interrupted"}}


def test_a_closed_log_gets_no_closers() -> None:
    recs = records("oracle-2026-07-23/bash-valid/session.jsonl")
    events = list(with_repair(iter_events(read_log(bytes_source(dump(recs))).items())))
    assert [e.seq for e in events] == [r["seq"] for r in recs[1:]]
