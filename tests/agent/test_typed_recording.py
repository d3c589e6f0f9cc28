"""A recording is read from its typed events' structs (``Keyer.event_key``,
``turn_and_step``, one pass for the model and the recording): everything a run takes
from it is what the exact reading of the same log gives (every record decoded as a
dict, no typed event), on every session log of the shared corpus and on mutated ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay.agent.model import ModelError, RecordedModel
from replay.agent.recording import Keyer, Recording, referenced_seqs
from replay.log.event import Event
from replay.log.reader import Source, iter_events, read_log
from replay.log.typed import TypedEvent, turn_and_step
from tests.helpers import MULTI_TURN, PARALLEL_CALLS, TODO_WRITE, ascii_dump, corpus_root, examples, records


def _events(path: Path, typed: bool) -> list[Event]:
    log = read_log(Source(str(path), lambda: path.open("rb"), is_file=True), typed=typed)
    return list(iter_events(log.items()))


def _logs() -> list[Path]:
    root = corpus_root()
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*.jsonl") if p.read_bytes()[:40].find(b'"session"') >= 0)


def _seed(events: list[Event], path: Path) -> int:
    first = path.read_bytes().split(b"\n", 1)[0]
    seed = json.loads(first).get("seedLength") if first.startswith(b"{") else None
    return seed if isinstance(seed, int) else 0


def _model(events: list[Event], seed: int) -> Any:
    try:
        return [(c.chunks, c.failure, c.hang, c.source) for c in RecordedModel.from_events(events, seed).calls]
    except ModelError as exc:
        return str(exc)


def _recording(events: list[Event], seed: int) -> Any:
    rec = Recording.from_events(events, seed, referenced_seqs(events, seed))
    foreign = [(anchor, f.seq, f.type, f.record.value()) for anchor, f in rec.foreign]
    return foreign, rec.own, rec.turns, rec.orders, rec.calls, rec.attempts


def _same(path: Path) -> int:
    """Asserts the typed and the exact readings give a run the same; the typed events read."""
    typed, exact = _events(path, True), _events(path, False)
    assert not any(isinstance(ev, TypedEvent) for ev in exact)
    assert len(typed) == len(exact)
    fast, slow = Keyer(), Keyer()
    for a, b in zip(typed, exact, strict=True):
        assert turn_and_step(a) == turn_and_step(b), (path, a)
        assert fast.event_key(a) == slow.key(b.type, b.data, b.surface_op), (path, a)
    seed = _seed(exact, path)
    assert _model(typed, seed) == _model(exact, seed)
    assert _recording(typed, seed) == _recording(exact, seed)
    return sum(isinstance(ev, TypedEvent) for ev in typed)


def test_every_corpus_log_gives_a_run_what_its_exact_reading_gives() -> None:
    logs = _logs()
    if not logs:
        pytest.skip("the shared corpus is absent (set REPLAY_CORPUS)")
    typed = sum(_same(path) for path in logs)
    assert len(logs) > 100 and typed > 10_000  # the typed path is the one taken


_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.integers(2**53, 2**64), st.floats(0, 3),
                    st.sampled_from(["", "user", "model", "tool", "call_1", "finish"]), st.lists(st.integers(0, 2)),
                    st.dictionaries(st.sampled_from(["kind", "callId", "type"]), st.integers(0, 2)))
_PATHS = [("turn",), ("step",), ("callId",), ("source", "kind"), ("message", "source", "callId"),
          ("message", "source", "kind"), ("message", "content"), ("chunk", "type"), ("chunk",), ("reason",)]


def _set(data: Any, path: tuple[str, ...], value: Any) -> None:
    for key in path[:-1]:
        if not isinstance(data, dict) or not isinstance(data.get(key), dict):
            return
        data = data[key]
    if isinstance(data, dict):
        data[path[-1]] = value


_TYPES = ["turn/start", "turn/end", "step/start", "step/end", "user/message", "assistant/chunk",
          "assistant/message", "tool/call", "tool/result", "todo/write"]
_OPS = ["field", "data", "surfaceOp", "earlier", "between"]


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(log=st.sampled_from([TODO_WRITE, MULTI_TURN, PARALLEL_CALLS]),
       edits=st.lists(st.tuples(st.sampled_from(_TYPES), st.integers(0, 50), st.sampled_from(_OPS),
                                st.sampled_from(_PATHS), _VALUES, st.integers(1, 4)), min_size=1, max_size=5))
def test_a_mutated_log_gives_a_run_what_its_exact_reading_gives(
        tmp_path: Path, log: str, edits: list[tuple[str, int, str, tuple[str, ...], Any, int]]) -> None:
    """A record of each type the loop writes, edited where its key is read: a field set
    to a value a struct refuses or takes (a float turn, a list for a call id, a source
    of another kind), its data or its ``surfaceOp`` replaced, or the record moved
    earlier or between two turns (a prompt before its turn, a todo list between turns). The edited record
    is then read exactly, or typed, and named the same either way."""
    if not (corpus_root() / log).is_file():
        pytest.skip("the shared corpus is absent (set REPLAY_CORPUS)")
    recs = records(log)
    for kind, nth, op, path, value, back in edits:
        places = [i for i, r in enumerate(recs) if i and r.get("type") == kind]
        if not places:
            continue
        at = places[nth % len(places)]
        rec = recs[at]
        if op == "field":
            _set(rec.get("data"), path, value)
        elif op == "data":
            rec["data"] = value
        elif op == "surfaceOp":
            rec["surfaceOp"] = value
        elif op == "earlier":
            recs.insert(max(1, at - back), recs.pop(at))
        else:  # after a turn's end, before the next turn starts
            moved = recs.pop(at)
            ends = [i for i, r in enumerate(recs) if r.get("type") == "turn/end"] or [len(recs) - 1]
            recs.insert(ends[back % len(ends)] + 1, moved)
    target = tmp_path / "session.jsonl"
    target.write_bytes(ascii_dump(recs))
    _same(target)
