"""A page drafted from typed events (their typed fields, ``data`` decoded only where the
page shows it) is the page drafted from the exact reading's dict events, byte for byte:
on real corpus logs and on real logs whose records hypothesis bends (the bends of
``tests/log/test_typed.py``), with the events' records decoded beforehand (an audit's
rule asked for them) or not."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay.log.event import ChunkSpan, DictEvent, Event
from replay.log.reader import read_log
from replay.project.session import SessionFold
from replay.render.web.session_draft import DraftWriter, PageDraft
from replay.render.web.session_page import PageLinks, Report, page_chunks
from tests.helpers import bytes_source, examples
from tests.log.test_typed import LOGS, _lines, bent_log


def _drafted(data: bytes, typed: bool, touched: bool = False) -> PageDraft:
    log = read_log(bytes_source(data), typed=typed)
    writer = DraftWriter(log.header.record if log.header is not None else None, "en")
    for batch in (log.audit_batches() if typed else log.batches()):
        if touched:
            for item in batch:
                for ev in (item.chunks if isinstance(item, ChunkSpan) else [item]):
                    if isinstance(ev, Event):
                        ev.record  # noqa: B018 (a rule asked for it: the record is decoded, held)
        writer.batch(batch)
    return writer.done()


def _shown(draft: PageDraft) -> tuple[Any, ...]:
    """What a draft shows: its facts, its delegations' places, and its page (every
    place filled), whole."""
    page = b"".join(c.encode() if isinstance(c, str) else c
                    for c in page_chunks(draft, Report(), "session.jsonl", PageLinks(), "en"))
    return draft.facts, draft.links, page


def _same(data: bytes) -> None:
    exact = _shown(_drafted(data, typed=False))
    assert _shown(_drafted(data, typed=True)) == exact
    assert _shown(_drafted(data, typed=True, touched=True)) == exact


def _fold(data: bytes, typed: bool) -> tuple[Any, ...]:
    fold = SessionFold()
    for batch in read_log(bytes_source(data), typed=typed).batches():
        for item in batch:
            if isinstance(item, Event):
                fold.event(item)
    return (fold.first, fold.last, fold.turns, fold.steps, fold.calls, fold.title, fold.fallback_title, fold.prompt,
            fold.plan, fold.changes, fold.route, fold.usage(), fold.models(), fold.plan_progress(), fold.outcomes())


@pytest.mark.parametrize("log", LOGS)
def test_real_logs_draft_typed_as_exactly(log: str) -> None:
    data = b"\n".join(_lines(log)) + b"\n"
    assert any(isinstance(item, Event) and not isinstance(item, DictEvent)
               for batch in read_log(bytes_source(data)).batches() for item in batch) or "2026-06" in log
    _same(data)
    assert _fold(data, True) == _fold(data, False)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(LOGS), st.data())
def test_bent_real_logs_draft_typed_as_exactly(log: str, draw: st.DataObject) -> None:
    data = bent_log(log, draw)
    _same(data)
    assert _fold(data, True) == _fold(data, False)
