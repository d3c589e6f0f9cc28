"""Property: the stores that keep a session page's draft flat in the length of its log
(``replay.project.spill``, ``replay.render.web.draft_places``) give what the plain ones
would: a ``StepStore`` holding two steps reads as a dict of every step, and a page drafted
with blocks of two entries, two texts waiting at most, and two steps held is the page
drafted with none of them spilled."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.bounds import calls_lines
from replay.findings import Finding, Severity
from replay.log.reader import iter_events, read_log
from replay.project import spill
from replay.project.session import StepFacts
from replay.render.web import draft_places
from replay.render.web.session_page import Report, html_page
from tests.helpers import TODO_WRITE, bytes_source, records

KEYS = st.tuples(st.none() | st.integers(-2, 3) | st.just(2**40), st.none() | st.integers(-1, 4))


@given(ops=st.lists(st.tuples(KEYS, st.integers(0, 3)), max_size=40))
def test_a_step_store_reads_as_a_dict(ops: list[tuple[tuple[Any, Any], int]]) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(spill, "LIVE", 2)
        store = spill.StepStore()
        plain: dict[tuple[Any, Any], StepFacts] = {}
        for key, n in ops:
            for steps in (store, plain):
                found = steps.get(key)
                if found is None:
                    found = steps[key] = StepFacts(*key)
                found.attempts += n
                found.model = f"m{n}" if n else found.model
            assert (key in store) and len(store) == len(plain)
        assert list(store) == list(plain)
        assert [(s.turn, s.step, s.attempts, s.model) for s in store.values()] == \
            [(s.turn, s.step, s.attempts, s.model) for s in plain.values()]
        store.close()


BASE = list(calls_lines(records(TODO_WRITE), 120))
"""A log of tool calls: turns of ten steps of two calls each."""


def _page(data: bytes, lines: list[int], small: bool) -> str:
    log = read_log(bytes_source(data))
    events = list(iter_events(log.items()))
    found = tuple(Finding("S1", Severity.WARNING, "here", line) for line in lines)
    with pytest.MonkeyPatch.context() as mp:
        for module, name in ((draft_places, "TABLE"), (draft_places, "TEXTS"), (draft_places, "WAIT"),
                             (draft_places, "PACKED"), (spill, "LIVE"), (spill, "HELD_BYTES")):
            mp.setattr(module, name, 2 if small else 1 << 30)
        return html_page(events, report=Report(events=len(events), findings=found))


@settings(max_examples=40, deadline=None)
@given(ops=st.lists(st.tuples(st.sampled_from(["drop", "dup", "swap"]), st.integers(1, len(BASE) - 1),
                              st.integers(1, len(BASE) - 1)), max_size=8),
       lines=st.lists(st.integers(2, len(BASE) + 10), max_size=6))
def test_a_page_drafted_in_small_blocks_is_the_same_page(ops: list[tuple[str, int, int]], lines: list[int]) -> None:
    """Steps and turns started again or never ended, results before their calls: the
    places spilled in blocks of two (each compressed), texts set aside after two waited,
    two steps held, nothing held in memory; against none of them spilled or compressed."""
    recs = list(BASE)
    for op, i, j in ops:
        i, j = i % len(recs), j % len(recs)
        if op == "drop" and i:
            del recs[i]
        elif op == "dup" and i:
            recs.insert(j or 1, recs[i])
        elif op == "swap" and i and j:
            recs[i], recs[j] = recs[j], recs[i]
    data = b"".join(recs)
    assert _page(data, lines, small=True) == _page(data, lines, small=False)


def test_stores_dropped_without_being_closed_let_the_temporary_file_be_emptied() -> None:
    """A draft dropped halfway (its log's audit failed) closes neither its spill nor its
    steps: collected, each leaves the process's temporary file, which is emptied once
    no one reads it, instead of growing with every log of a site."""
    import gc

    users, held = spill._SHARED.users, spill._SHARED.held
    steps, blocks, small = spill.StepStore(), spill.Spill(), spill.Spill()
    for n in range(spill.LIVE + 3):  # a few steps spilled to the file
        steps[(1, n)] = StepFacts(1, n)
    blocks.put(0, b"x" * (spill.HELD_BYTES + 1))  # more than a spill holds in memory
    small.put(0, b"x" * 100)  # held in memory: the file is not joined
    assert spill._SHARED.users == users + 2
    assert spill._SHARED.end > 0
    assert spill._SHARED.held == held + 100
    del steps, blocks, small
    gc.collect()
    assert spill._SHARED.users == users
    assert spill._SHARED.held == held
    if users == 0:
        assert spill._SHARED.end == 0


@given(st.lists(st.tuples(st.integers(0, 4), st.binary(max_size=40)), max_size=30), st.integers(0, 200),
       st.booleans(), st.booleans())
def test_a_spill_reads_back_its_blocks_held_or_filed_moved_or_pickled(
        puts: list[tuple[int, bytes]], held: int, moved: bool, pickled: bool) -> None:
    """Blocks put in memory (up to ``HELD_BYTES``), then in the temporary file, read back
    kind by kind in order: as they are, moved to a spool, or after a pickle's trip."""
    import pickle
    import tempfile

    with pytest.MonkeyPatch.context() as mp, tempfile.TemporaryFile() as spool:
        mp.setattr(spill, "HELD_BYTES", held)
        blocks = spill.Spill()
        for kind, data in puts:
            blocks.put(kind, data)
        if pickled:
            blocks = pickle.loads(pickle.dumps(blocks))
        if moved:
            spool.write(b"before")
            blocks = blocks.moved(spool)
        for kind in range(5):
            assert list(blocks.blocks(kind)) == [data for k, data in puts if k == kind and data]
        assert len(blocks) == sum(len(data) for _, data in puts)
        blocks.close()
