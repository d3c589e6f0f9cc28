"""The export folds a typed event from its body and the few fields it decodes alone
from the record's bytes (``replay.export.rows``); where those would differ from the
record's own decoding (a usage count beyond 64 bits, which the record's decoding
reads as a float) it decodes the record: the tables hold what the session fold makes
of the exact reading of the log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from replay.check.audit import AuditRequest
from replay.export.request import ExportRequest
from replay.export.run import export
from replay.findings import Finding
from replay.log.event import ChunkRun, Event
from replay.log.reader import Source, read_log
from replay.log.typed import TypedEvent, decode
from replay.project.session import session_fold
from replay.project.tools import tool_call
from tests.helpers import TODO_WRITE, ascii_dump, corpus_file, records

pq = pytest.importorskip("pyarrow.parquet", reason="the export extra (pyarrow) is not installed")

BIG = 10**30
"""A count beyond 64 bits: the record's decoding reads it as JavaScript does, a
float (no count), where the decoding of the field alone would give the integer."""


def _mutated(case: str) -> list[dict[str, Any]]:
    recs = records(TODO_WRITE)
    if case == "chunk":
        at = next(i for i, r in enumerate(recs) if r.get("type") == "assistant/chunk"
                  and r["data"]["chunk"].get("type") == "usage")
        recs[at]["data"]["chunk"]["usage"]["inputTokens"] = BIG
    return recs


def _exact(path: Path) -> tuple[dict[str, int], list[int]]:
    """The tokens and the calls' argument sizes the session fold makes of the log's
    exact reading (every record decoded, no typed event)."""
    log = read_log(Source(str(path), lambda: path.open("rb"), is_file=True), typed=False)
    events: list[Event] = [ev for batch in log.batches() for item in batch if not isinstance(item, Finding)
                           for ev in (item.events() if isinstance(item, ChunkRun) else [item])]
    assert not any(isinstance(ev, TypedEvent) for ev in events)
    fold = session_fold(events)
    usage = fold.usage()
    tokens = {"input_tokens": usage.input, "output_tokens": usage.output, "cache_read_tokens": usage.cache_read,
              "cache_write_tokens": usage.cache_write, "reasoning_tokens": usage.reasoning}
    sizes = [len(call.args_raw) for ev in events if ev.type == "tool/call" and (call := tool_call(ev)) is not None]
    return tokens, sizes


@pytest.mark.parametrize("case", ["chunk", "none"])
def test_the_typed_fold_gives_the_exact_reading_s_numbers(tmp_path: Path, case: str) -> None:
    if not corpus_file(TODO_WRITE).is_file():
        pytest.skip("the shared corpus is absent (set REPLAY_CORPUS)")
    recs = _mutated(case)
    path = tmp_path / "logs" / "session.jsonl"
    path.parent.mkdir()
    path.write_bytes(ascii_dump(recs))
    typed = [decode(json.dumps(r, separators=(",", ":")).encode()) for r in recs[1:]
             if r.get("type") in ("assistant/chunk", "assistant/message", "tool/call")]
    assert all(isinstance(ev, TypedEvent) for ev in typed)  # the mutated records are read typed
    export(ExportRequest(AuditRequest((str(path),)), str(tmp_path / "out")))
    session, = pq.read_table(tmp_path / "out" / "sessions.parquet").to_pylist()
    calls = pq.read_table(tmp_path / "out" / "tool_calls.parquet").to_pylist()
    tokens, sizes = _exact(path)
    assert {key: session[key] for key in tokens} == tokens
    assert [c["argument_chars"] for c in calls] == sizes
    assert all(0 <= count < 2**53 for count in tokens.values())  # the float counts for nothing


def test_a_chunk_whose_type_is_a_list_costs_its_log_no_row(tmp_path: Path) -> None:
    """A stream chunk whose ``type`` is a list (no set's key), its bytes naming usage
    elsewhere (so it is decoded), counts for nothing: the log keeps every row."""
    if not corpus_file(TODO_WRITE).is_file():
        pytest.skip("the shared corpus is absent (set REPLAY_CORPUS)")
    tables = {}
    for case in ("plain", "bent"):
        recs = records(TODO_WRITE)
        if case == "bent":
            at = next(i for i, r in enumerate(recs) if r.get("type") == "assistant/chunk"
                      and r["data"]["chunk"].get("type") not in ("usage", "finish"))
            recs[at]["data"]["chunk"]["type"] = []
            recs[at]["data"]["chunk"]["note"] = "usage"
        path = tmp_path / case / "logs" / "session.jsonl"
        path.parent.mkdir(parents=True)
        path.write_bytes(ascii_dump(recs))
        export(ExportRequest(AuditRequest((str(path),)), str(tmp_path / case / "out")))
        tables[case] = {t: [{k: v for k, v in row.items() if k != "path"}
                            for row in pq.read_table(tmp_path / case / "out" / f"{t}.parquet").to_pylist()]
                        for t in ("steps", "tool_calls", "turns")}
    assert tables["bent"] == tables["plain"]
    assert all(tables["plain"].values())
