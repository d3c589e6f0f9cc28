"""Plain chunks judged as spans (``ChunkSpan``) give the findings, in the same order,
that judging each chunk as an event gives: on real logs, and on real logs whose chunks
hypothesis damages (a turn or step moved, a key added or dropped, a seq or time bent,
a record torn, a step/start or step/end dropped in the middle of a span)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay.check.core import CoreChecker
from replay.check.engine import Policy, _dispatch, audit_items
from replay.checker import Checker, Found
from replay.findings import Rule
from replay.log.event import ChunkSpan, Event
from replay.log.reader import read_log
from tests.helpers import MULTI_TURN, PARALLEL_CALLS, TODO_WRITE, bytes_source, dump, examples, records

LOGS = [TODO_WRITE, MULTI_TURN, PARALLEL_CALLS]


def _both(data: bytes, policy: Policy = Policy.PARALLEL) -> tuple[object, object]:
    one = read_log(bytes_source(data))
    by_event = audit_items(one.batches(), one.header, policy)
    two = read_log(bytes_source(data))
    by_span = audit_items(two.audit_batches(), two.header, policy)
    shown = [(f.rule, f.severity.value, f.line, f.seq, f.type, f.message) for f in by_event[1]]
    return (by_event[0], shown), (by_span[0], [(f.rule, f.severity.value, f.line, f.seq, f.type, f.message)
                                               for f in by_span[1]])


@pytest.mark.parametrize("log", LOGS)
def test_real_logs_read_with_spans(log: str) -> None:
    data = dump(records(log))
    spans = [item for batch in read_log(bytes_source(data)).audit_batches() for item in batch
             if isinstance(item, ChunkSpan)]
    assert spans, "the log has plain chunks: they come as spans"
    assert sum(s.count for s in spans) > len(spans)  # spans hold several chunks
    by_event, by_span = _both(data)
    assert by_event == by_span


def _mutate(recs: list[dict[str, Any]], index: int, how: str) -> list[dict[str, Any]]:
    recs = copy.deepcopy(recs)
    rec = recs[index]
    if not isinstance(rec, dict):
        return recs
    data = rec.get("data") if isinstance(rec.get("data"), dict) else None
    if how == "turn" and data is not None:
        data["turn"] = data.get("turn", 0) + 1 if isinstance(data.get("turn"), int) else 1
    elif how == "step" and data is not None:
        data["step"] = 7
    elif how == "step-float" and data is not None:
        data["step"] = float(data["step"]) if isinstance(data.get("step"), int) else 1.0
    elif how == "extra-key":
        rec["surfaceOp"] = "append"
    elif how == "no-time":
        rec.pop("time", None)
    elif how == "big-time":
        rec["time"] = 2**60
    elif how == "seq":
        rec["seq"] = rec.get("seq", 0) + 3 if isinstance(rec.get("seq"), int) else 0
    elif how == "drop":
        del recs[index]
    elif how == "duplicate":
        recs.insert(index, copy.deepcopy(rec))
    elif how == "garbage":
        recs[index] = "not an event"  # type: ignore[call-overload]
    return recs


MUTATIONS = ["turn", "step", "step-float", "extra-key", "no-time", "big-time", "seq", "drop", "duplicate",
             "garbage"]


# Per commit ("ci"), 150 examples: reintroduced span bugs (a span judged in one look
# when its turn, or its step, is not the open one's) were found within 37 and 86
# examples over 20 random seeds.
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(LOGS), st.data(), st.booleans())
def test_damaged_chunks_judge_as_events_do(log: str, draw: st.DataObject, single: bool) -> None:
    recs = records(log)
    chunks = [i for i, r in enumerate(recs) if r.get("type") in ("assistant/chunk", "step/start", "step/end",
                                                                 "turn/end")]
    for _ in range(draw.draw(st.integers(1, 3))):
        index = draw.draw(st.sampled_from(chunks))
        recs = _mutate(recs, min(index, len(recs) - 1), draw.draw(st.sampled_from(MUTATIONS)))
    by_event, by_span = _both(dump(recs), Policy.SINGLE if single else Policy.PARALLEL)
    assert by_event == by_span


@pytest.mark.parametrize("log", LOGS)
def test_dropped_turn_and_step_records_judge_as_events_do(log: str) -> None:
    """Every one and every pair of a log's turn and step records dropped (what decides
    which findings after damage the harness keeps): exhaustively, as chance rarely
    draws the pair that matters."""
    recs = records(log)
    frame = [i for i, r in enumerate(recs) if r.get("type") in ("turn/start", "turn/end", "step/start", "step/end")]
    for a, i in enumerate(frame):
        for j in frame[a:]:
            kept = [r for k, r in enumerate(recs) if k not in (i, j)]
            by_event, by_span = _both(dump(kept))
            assert by_event == by_span, (i, j)


W1 = Rule("W1", "invariant", "test", "every event is seen", explanation="The witness's own rule, for this test.",
          harness="Nothing: the harness has no such rule.")


class _Witness(Checker):
    """A second checker that wants every event: it sees each chunk of a span, in
    order, after the core has judged it, as with single events."""

    def __init__(self, seen: list[tuple[str, int]]) -> None:
        self.seen = seen

    def event(self, ev: Event) -> Found:
        self.seen.append(("witness", ev.line))
        return [W1.warning("seen", ev.line)] if ev.type == "assistant/chunk" else None


class _Core(CoreChecker):
    def __init__(self, seen: list[tuple[str, int]]) -> None:
        super().__init__()
        self.seen = seen

    def event(self, ev: Event) -> Found:
        self.seen.append(("core", ev.line))
        return super().event(ev)


def test_two_checkers_that_want_chunks_see_each_chunk_in_event_order() -> None:
    data = dump(records(MULTI_TURN))
    runs = []
    for spans in (False, True):
        seen: list[tuple[str, int]] = []
        log = read_log(bytes_source(data))
        done = _dispatch(log.audit_batches() if spans else log.batches(), [_Core(seen), _Witness(seen)])
        runs.append((seen, [(f.rule, f.line) for f in done.findings.kept], done.events))
    assert runs[0] == runs[1]
    events = [item for item in read_log(bytes_source(data)).items() if isinstance(item, Event)]
    plain = [ev for ev in events if ev.type == "assistant/chunk"]
    assert len(plain) > 5  # the log has plain chunks (its packed rows go to ``run``)
    assert [line for who, line in runs[1][0] if who == "witness"] == [ev.line for ev in events]
    assert ("W1", plain[0].line) in runs[1][1]


def test_findings_of_a_span_after_damage_are_kept_by_their_own_lines() -> None:
    """The second step's step/start and the only turn/end dropped: the span of that
    step's chunks starts on the damaged line (a seq gap), and its later chunks' D9
    findings come after the damage with no turn/end after them, so the harness would
    truncate them away: the span reports only what single events report."""
    recs = records(PARALLEL_CALLS)
    second_step = next(i for i, r in enumerate(recs) if r.get("type") == "step/start" and r["data"]["step"] == 2)
    del recs[second_step]
    recs = [r for r in recs if r.get("type") != "turn/end"]
    by_event, by_span = _both(dump(recs))
    assert by_event == by_span
    assert [(rule, line) for rule, _, line, *_ in by_span[1]] == [("D9", second_step + 1), ("A7", second_step + 1)]
