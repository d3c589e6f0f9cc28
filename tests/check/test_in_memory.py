"""Events given directly (no line scanner): C4 and D1 judge seq contiguity."""

from __future__ import annotations

from replay.check.engine import audit_events
from replay.log.reader import iter_events, read_log
from replay.log.source import file_source
from tests.helpers import TODO_WRITE, corpus_file


def _events() -> list:  # type: ignore[type-arg]
    return list(iter_events(read_log(file_source(corpus_file(TODO_WRITE))).items()))


def _rules(events: list) -> list[tuple[str, int]]:  # type: ignore[type-arg]
    return [(f.rule, f.seq) for f in audit_events(events)]  # type: ignore[misc]


def test_clean_events_have_no_findings() -> None:
    assert _rules(_events()) == []


def test_c4_gap_is_reported_once() -> None:
    events = _events()
    del events[6]  # seq 6 missing: seq 7 sits at index 6
    assert _rules(events) == [("C4", 7)]


def test_d1_repeated_seq_breaks_contiguity_and_monotonicity() -> None:
    events = _events()
    events.insert(6, events[6])  # seq 6 twice
    assert _rules(events) == [("C4", 6), ("D1", 6)]
