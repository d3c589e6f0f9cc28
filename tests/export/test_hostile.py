"""Untrusted in, data out: a real log whose strings are hostile (terminal escapes,
bidi controls, NUL, lone surrogates, quotes and SQL) and whose integers are far
beyond 64 bits exports without a traceback, its strings round-trip exactly (a lone
surrogate, which UTF-8 cannot hold, as U+FFFD in Parquet and escaped in OTLP JSON),
and nothing is written outside OUT; an export to an fsspec URL (memory://) writes
the same tables; OUT is never a folder the export did not make."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.check.audit import AuditRequest
from replay.cli import main
from replay.export.run import ExportRequest, export
from replay.export.schema import TABLES
from tests.helpers import TODO_WRITE, ascii_dump, corpus_file, examples, hostile_text, index_of, records

pq = pytest.importorskip("pyarrow.parquet", reason="the export extra (pyarrow) is not installed")

EVIL = ["\x1b]52;c;cHduZWQ=\x07", "\u202egnp.exe", "\x00", "'); DROP TABLE sessions; --", "\ud800", "\"\\\n",
        "{{cwd}}", "\udfff!"]
HOSTILE = st.one_of(hostile_text(12), st.lists(st.sampled_from(EVIL), min_size=1, max_size=3).map("".join))


def in_log(text: str) -> str:
    """What the log holds of ``text`` once written as JSON and read (two surrogates that
    make a pair are one character in JSON)."""
    return json.loads(json.dumps(text))  # type: ignore[no-any-return]


def in_parquet(text: str) -> str:
    """What a Parquet string column holds of ``text``: itself, a lone surrogate U+FFFD."""
    return in_log(text).encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def hostile_log(folder: Path, texts: list[str], big: int) -> Path:
    recs = records(TODO_WRITE)
    recs[0]["cwd"], recs[0]["id"] = texts[0], texts[1]
    title = index_of(recs, "session/title")
    recs[title]["data"]["title"], recs[title]["data"]["source"] = f"t{texts[2]}", {"kind": "provider"}
    call = index_of(recs, "tool/call")
    recs[call]["data"]["name"] = texts[3]
    write = index_of(recs, "todo/write")
    recs[write]["data"]["todos"][0]["content"] = texts[4]
    recs[index_of(recs, "step/end")]["time"] = big
    path = folder / "logs" / "session.jsonl"
    path.parent.mkdir()
    path.write_bytes(ascii_dump(recs))
    return path


def run(path: Path, out: Path, fmt: str | None = None) -> Any:
    return export(ExportRequest(AuditRequest((str(path),)), str(out), fmt))  # type: ignore[arg-type]


@settings(max_examples=examples(40))
@given(texts=st.lists(HOSTILE, min_size=5, max_size=5), big=st.sampled_from([10**30, -(10**25), 2**63, 2**62, 5]))
def test_hostile_strings_round_trip_exactly(texts: list[str], big: int) -> None:
    if not corpus_file(TODO_WRITE).is_file():
        pytest.skip("the shared corpus is absent (set REPLAY_CORPUS)")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        log = hostile_log(root, texts, big)
        result = run(log, root / "out")
        assert result.rows["sessions"] == 1
        session, = pq.read_table(root / "out" / "sessions.parquet").to_pylist()
        assert (session["cwd"], session["session_id"], session["title"]) == \
            (in_parquet(texts[0]), in_parquet(texts[1]), in_parquet(f"t{texts[2]}"))
        calls = pq.read_table(root / "out" / "tool_calls.parquet").to_pylist()
        assert [c["tool"] for c in calls] == [in_parquet(texts[3])]
        plan = pq.read_table(root / "out" / "plans.parquet").to_pylist()
        assert plan[0]["items"][0]["content"] == in_parquet(texts[4])
        if big != 5:
            steps = pq.read_table(root / "out" / "steps.parquet").to_pylist()
            assert steps[0]["end"] is None  # beyond 64 bits, or beyond JavaScript's dates: null
        run(log, root / "traces", "otlp")
        doc, = (json.loads(p.read_bytes()) for p in (root / "traces").glob("*.otlp.json"))
        spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
        values = {a["key"]: a["value"].get("stringValue") for s in spans for a in s["attributes"]}
        assert values["gen_ai.conversation.id"] == in_log(texts[1])  # JSON holds a lone surrogate escaped
        assert values["gen_ai.tool.name"] == in_log(texts[3])
        assert sorted(os.listdir(root)) == ["logs", "out", "traces"]
        assert sorted(os.listdir(root / "logs")) == ["session.jsonl"]


def test_the_cli_exports_a_hostile_log_without_a_traceback(tmp_path: Path) -> None:
    if not corpus_file(TODO_WRITE).is_file():
        pytest.skip("the shared corpus is absent (set REPLAY_CORPUS)")
    log = hostile_log(tmp_path, ["\udfff", "\x1b[2J", "\u202e", "\x00", "'; --"], 2**62)
    for out in ("out", "out.duckdb"):
        result = CliRunner().invoke(main, ["export", str(log), "-o", str(tmp_path / out)])
        assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
        assert result.exit_code in (0, 1), result.output
    duckdb = pytest.importorskip("duckdb", reason="the export extra (duckdb) is not installed")
    con = duckdb.connect(str(tmp_path / "out.duckdb"), read_only=True)
    assert con.execute("SELECT cwd, session_id, title FROM sessions").fetchall() == [("\ufffd", "\x1b[2J", "t\u202e")]
    assert con.execute("SELECT step, \"end\" FROM steps WHERE \"end\" IS NULL").fetchall() == [(1, None)]


def test_an_fsspec_url_takes_the_same_tables(tmp_path: Path) -> None:
    fsspec = pytest.importorskip("fsspec", reason="the remote extra (fsspec) is not installed")
    log = corpus_file(TODO_WRITE)
    if not log.is_file():
        pytest.skip("the shared corpus is absent (set REPLAY_CORPUS)")
    url = f"memory://replay-export-test-{os.getpid()}/out"
    result = run(log, url)  # type: ignore[arg-type]
    assert result.out == url
    fs = fsspec.filesystem("memory")
    run(log, tmp_path / "local")
    try:
        names = sorted(p.rsplit("/", 1)[-1] for p in fs.ls(url.removeprefix("memory://"), detail=False))
        assert names == sorted([".replay-export", *(f"{t}.parquet" for t in TABLES if t != "events")])
        for table in TABLES:
            if table == "events":
                continue
            with fs.open(f"{url}/{table}.parquet", "rb") as stream:
                assert pq.read_table(stream).to_pylist() == \
                    pq.read_table(tmp_path / "local" / f"{table}.parquet").to_pylist(), table
    finally:
        fs.rm(url.removeprefix("memory://").rsplit("/", 1)[0], recursive=True)


def test_out_must_be_an_export_s_or_new(tmp_path: Path) -> None:
    log = corpus_file(TODO_WRITE)
    if not log.is_file():
        pytest.skip("the shared corpus is absent (set REPLAY_CORPUS)")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    result = CliRunner().invoke(main, ["export", str(log), "-o", str(tmp_path / "mine")])
    assert result.exit_code == 2 and "not an export replay wrote" in result.output
    assert os.listdir(tmp_path / "mine") == ["notes.txt"]
    result = CliRunner().invoke(main, ["export", str(log), "-o", "memory://x/y.duckdb"])
    assert result.exit_code == 2 and "a local file" in result.output
    for _ in range(2):  # an export's folder is rewritten
        result = CliRunner().invoke(main, ["export", str(log), "-o", str(tmp_path / "again")])
        assert result.exit_code == 0, result.output
