"""Reading logs: zstd containers, damage, line splitting, discovery, legacy shapes."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
import zstandard

from replay.check.engine import audit_log, audit_sources
from replay.log.discover import discover
from replay.log.event import ChunkRun, Event
from replay.log.reader import Limits, iter_events, read_log
from replay.log.source import file_source
from tests.helpers import (
    ACP,
    TODO_WRITE,
    audit_bytes,
    bytes_source,
    corpus_file,
    dump,
    index_of,
    records,
    summary,
)

_ZC = zstandard.ZstdCompressor(write_checksum=True)


def _frames(*batches: bytes) -> bytes:
    return b"".join(_ZC.compress(b) for b in batches)


def _split(data: bytes, at: int) -> tuple[bytes, bytes, bytes]:
    lines = data.splitlines(keepends=True)
    return lines[0], b"".join(lines[1:at]), b"".join(lines[at:])


def test_zstd_log_reads_like_the_plain_one() -> None:
    plain = corpus_file(TODO_WRITE).read_bytes()
    header, first, rest = _split(plain, 20)
    packed = _frames(header, first, rest)
    a, b = audit_bytes(plain), audit_bytes(packed)
    assert (a.events, summary(a)) == (b.events, summary(b)) == (115, [])


def test_zstd_torn_last_frame_is_a_tail_not_corruption() -> None:
    recs = records(TODO_WRITE)
    header, first, _ = _split(dump(recs), len(recs))
    # A small torn frame: nothing in it can be recovered.
    extra = [{"type": "turn/start", "seq": 115, "time": 0, "data": {"turn": 2}},
             {"type": "step/start", "seq": 116, "time": 0, "data": {"turn": 2, "step": 1}}]
    torn = _ZC.compress(dump(extra))
    report = audit_bytes(_frames(header, first) + torn[: len(torn) - 6])
    assert report.events == 115
    assert [(f.rule, f.severity.value) for f in report.findings] == [("A8", "warning")]
    assert "keeps the 0 complete records" in report.findings[0].message
    # A large torn frame: the complete records before the cut are recovered.
    more = [{"type": "session/title", "seq": 115 + i, "time": 0,
             "data": {"title": f"title {i} " + "x" * 200, "messageSeqs": [], "source": {"kind": "user"}}}
            for i in range(2000)]
    torn = _ZC.compress(dump(more))
    report = audit_bytes(_frames(header, first) + torn[: len(torn) // 2])
    recovered = report.events - 115
    assert 0 < recovered < 2000
    assert {(f.rule, f.severity.value) for f in report.findings} <= {("A8", "warning")}
    assert f"keeps the {recovered} complete records" in next(
        f.message for f in report.findings if "Zstandard frame" in f.message)


@pytest.mark.parametrize("damage, needle", [
    ("magic", "bad frame magic"),
    ("checksum", "failed validation"),
    ("two-line header frame", "first Zstandard frame must hold the session header line and nothing else"),
    ("record split across frames", "ends inside a record (a frame must hold whole records)"),
])
def test_zstd_corruption_is_a9(damage: str, needle: str) -> None:
    plain = corpus_file(TODO_WRITE).read_bytes()
    header, first, rest = _split(plain, 20)
    if damage == "magic":
        data = _frames(header, first) + b"\x00\x00\x00\x00" + _ZC.compress(rest)[4:]
    elif damage == "checksum":
        frame = bytearray(_ZC.compress(rest))
        frame[-1] ^= 0xFF
        data = _frames(header, first) + bytes(frame)
    elif damage == "two-line header frame":
        data = _frames(header + first, rest)
    else:
        data = _frames(header, first + rest[:10], rest[10:])
    report = audit_bytes(data)
    a9 = [f for f in report.findings if f.rule == "A9"]
    assert a9 and all(f.severity.value == "error" for f in a9)
    assert needle in a9[0].message


def test_zstd_decompression_bomb_is_a_finding() -> None:
    header = dump(records(TODO_WRITE)[:1])
    bomb = _frames(header, b'{"type":"x","data":"' + b"x" * (50 << 20) + b'"}\n')
    assert len(bomb) < 100_000
    report = audit_bytes(bomb, limits=Limits(max_log_bytes=8 << 20))
    assert [(f.rule, f.severity.value) for f in report.findings] == [("LIMIT", "error")]
    assert "decompression bomb" in report.findings[0].message


def test_oversized_record_is_a_finding() -> None:
    recs = records(TODO_WRITE)
    recs[index_of(recs, "session/title")]["data"]["title"] = "x" * 5000
    report = audit_bytes(dump(recs), limits=Limits(max_record_bytes=4096))
    assert summary(report) == [("LIMIT", "error", 8)]
    assert "exceeds the reader's limit of 4096 bytes" in report.findings[0].message


def test_line_separators_inside_strings_do_not_split_records() -> None:
    recs = records(TODO_WRITE)
    recs[index_of(recs, "session/title")]["data"]["title"] = "a\u2028b\u2029c\x85d\x0ce\rf"
    assert summary(audit_bytes(dump(recs))) == []


def test_invalid_utf8_is_decoded_with_replacement_like_the_harness() -> None:
    recs = records(TODO_WRITE)
    i = index_of(recs, "session/title")
    recs[i]["data"]["title"] = "MARKER"
    data = dump(recs).replace(b"MARKER", b"bad \xff\xfe byte")
    report = audit_bytes(data)
    assert summary(report) == []
    title = next(e for e in iter_events(read_log(bytes_source(data)).items()) if e.type == "session/title")
    assert title.data["title"] == "bad \ufffd\ufffd byte"


def test_placeholders_are_accepted_where_fixtures_use_them() -> None:
    recs = records(TODO_WRITE)
    recs[0]["id"] = "{{sessionId}}"
    recs[0]["cwd"] = "{{cwd}}/workspace"
    recs[index_of(recs, "request/header")]["data"]["header"]["tools"] = "{{tools}}"
    assert summary(audit_bytes(dump(recs))) == []


def test_packed_row_expands_as_the_spec_example() -> None:
    row = {"type": "text-chunks", "seq0": 0, "time0": 1785381572250,
           "data": {"turn": 2, "step": 1, "index": 1, "dt": [117223942, 0, 0], "texts": ["M", "ARM", "AL", "ADE"]}}
    items = list(read_log(bytes_source(dump([records(TODO_WRITE)[0], row]))).items())
    runs = [i for i in items if isinstance(i, ChunkRun)]
    assert len(runs) == 1
    expanded = [e.record for e in runs[0].events()]
    assert expanded == [
        {"type": "assistant/chunk", "seq": 0, "time": 1785381572250,
         "data": {"turn": 2, "step": 1, "chunk": {"type": "text-delta", "index": 1, "text": "M"}}},
        {"type": "assistant/chunk", "seq": 1, "time": 1785498796192,
         "data": {"turn": 2, "step": 1, "chunk": {"type": "text-delta", "index": 1, "text": "ARM"}}},
        {"type": "assistant/chunk", "seq": 2, "time": 1785498796192,
         "data": {"turn": 2, "step": 1, "chunk": {"type": "text-delta", "index": 1, "text": "AL"}}},
        {"type": "assistant/chunk", "seq": 3, "time": 1785498796192,
         "data": {"turn": 2, "step": 1, "chunk": {"type": "text-delta", "index": 1, "text": "ADE"}}},
    ]


def test_tool_call_rows_carry_id_and_name_on_every_member() -> None:
    events = list(iter_events(read_log(file_source(corpus_file(TODO_WRITE))).items()))
    assert [e.seq for e in events] == list(range(115))
    deltas = [e.data["chunk"] for e in events if e.type == "assistant/chunk"
              and e.data["chunk"]["type"] == "tool-call-delta"]
    assert deltas and all(list(d) == ["type", "index", "id", "name", "argumentsDelta"] for d in deltas)
    args = "".join(d["argumentsDelta"] for d in deltas)
    assert orjson.loads(args)["todos"][1] == {"content": "watch the background build", "status": "in_progress"}


def test_legacy_shapes_are_normalized_into_the_current_view() -> None:
    path = corpus_file("acp-2026-06-29/todo-plan/session.jsonl")
    events = {e.type: e for e in iter_events(read_log(file_source(path)).items())}
    session_id = "259ed557-03cf-4f50-9592-fc7fdbece7f3"
    assert events["turn/start"].data == {"turn": 1}
    user = events["user/message"].data
    assert (user["id"], user["role"]) == (f"legacy-message:{session_id}:1", "user")
    result = events["tool/result"].data["message"]
    assert result["role"] == "user" and result["source"]["kind"] == "tool"
    block = result["content"][0]
    assert block["type"] == "tool-result" and block["toolCallId"] == result["source"]["callId"]
    assert block["content"][0]["text"].startswith("Updated todo list:")
    assistant = events["assistant/message"].data
    assert list(assistant) == ["turn", "step", "message", "usage"]
    assert assistant["message"]["source"] == {"kind": "model"}


def test_discovery_finds_logs_by_their_header(tmp_path: Path) -> None:
    log = corpus_file(TODO_WRITE).read_bytes()
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "session.jsonl").write_bytes(log)
    (tmp_path / "a" / "seed.jsonl").write_bytes(log)
    (tmp_path / "a" / "stdout.expected.jsonl").write_bytes(b'{"jsonrpc":"2.0"}\n')
    (tmp_path / "b" / "deep").mkdir(parents=True)
    (tmp_path / "b" / "deep" / "session.jsonl.zstd").write_bytes(_frames(*_split(log, 30)))
    (tmp_path / "notes.txt").write_text("not a log")
    candidates = [Path(s.path).relative_to(tmp_path).as_posix() for s in discover([str(tmp_path)])]
    assert candidates == ["a/seed.jsonl", "a/session.jsonl", "a/stdout.expected.jsonl", "b/deep/session.jsonl.zstd"]
    reports = list(audit_sources(discover([str(tmp_path)])))
    assert [(Path(r.path).name, r.status, r.events) for r in reports] == [
        ("seed.jsonl", "ok", 115), ("session.jsonl", "ok", 115), ("session.jsonl.zstd", "ok", 115)]
    # Named explicitly, a file that is not a log is reported, not passed over.
    (explicit,) = audit_sources(discover([str(tmp_path / "a" / "stdout.expected.jsonl")]))
    assert [(f.rule, f.line) for f in explicit.findings] == [("A4", 1)]
    assert explicit.findings[0].message.startswith('the first line is not a session header: its "type" is null')


def test_storage_identity_in_a_production_root(tmp_path: Path) -> None:
    recs = records(TODO_WRITE)
    recs[0]["cwd"] = "/home/dev/proj"
    data = dump(recs)
    good = tmp_path / "--home-dev-proj--" / recs[0]["id"] / "session.jsonl"
    good.parent.mkdir(parents=True)
    good.write_bytes(data)
    assert audit_log(read_log(file_source(good))).findings == []
    moved = tmp_path / "--elsewhere--" / recs[0]["id"] / "session.jsonl"
    moved.parent.mkdir(parents=True)
    moved.write_bytes(data)
    report = audit_log(read_log(file_source(moved)))
    assert summary(report) == [("A10", "error", 1)]
    assert "--home-dev-proj--" in report.findings[0].message
    (good.parent / "session.jsonl.zstd").write_bytes(_frames(*_split(data, 30)))
    assert summary(audit_log(read_log(file_source(good)))) == [("A10", "error", 1)]


def test_unreadable_file_is_a_finding(tmp_path: Path) -> None:
    missing = tmp_path / "gone.jsonl"
    report = audit_log(read_log(file_source(missing)))
    assert report.status == "unreadable"
    assert [(f.rule, f.severity.value) for f in report.findings] == [("IO", "error")]


def test_items_stream_in_file_order() -> None:
    items = list(read_log(file_source(corpus_file(f"{ACP}/packed-chunks/session.jsonl"))).items())
    lines = [i.line for i in items if isinstance(i, Event | ChunkRun)]
    assert lines == sorted(lines) and len(lines) == 35


def test_a_flood_of_damage_is_capped_per_rule() -> None:
    data = dump(records(TODO_WRITE)[:1]) + b"garbage\n" * 1000
    report = audit_bytes(data)
    assert len(report.findings) == 101
    assert [f.rule for f in report.findings] == ["A6"] * 101
    assert report.findings[-1].message.startswith("900 more A6 findings between lines 102 and 1001")


@pytest.mark.parametrize(("first", "shown"), [(b"null", "null"), (b"[1]", "array"), (b'"s"', "string"),
                                             (b"1.5", "number"), (b"true", "boolean")])
def test_a_first_line_that_is_not_an_object_names_its_json_type(first: bytes, shown: str) -> None:
    report = audit_bytes(first + b"\n")
    assert [(f.rule, f.message) for f in report.findings] == [
        ("A4", f"the first line should be the session header, a JSON object, but it is a JSON {shown}")]


def test_a_reading_resumes_only_on_a_plain_file_where_a_line_ends(tmp_path: Path) -> None:
    """``LogRead.resume``: from a place after a newline inside the log's cap, on a plain
    file not yet read; anywhere else it refuses, and the reading is the one from the start."""
    from replay.log.legacy import Migrator
    from replay.log.scan import ScanState
    from tests.helpers import bytes_source

    header = b'{"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}\n'
    first = b'{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}\n'
    second = b'{"type":"turn/end","seq":1,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}\n'
    log = tmp_path / "session.jsonl"
    log.write_bytes(header + first + second)
    at = len(header + first)

    def lines(reading: object) -> list[int | None]:
        return [item.line for batch in reading.batches() for item in batch]  # type: ignore[attr-defined]

    cold = lines(read_log(file_source(str(log))))
    reading = read_log(file_source(str(log)))
    assert reading.resume(ScanState(2, at, 1), Migrator("s1"))
    assert lines(reading) == [3] and reading.read_whole
    assert reading.scan is not None and reading.scan.total == log.stat().st_size
    for place in (ScanState(2, at - 1, 1), ScanState(2, at + 1, 1), ScanState(2, 10, 1), ScanState(2, 1 << 40, 1),
                  ScanState(2, at, 1, pending=3), ScanState(2, at, 1, stopped=True), ScanState(0, at, 1)):
        refused = read_log(file_source(str(log)))
        assert not refused.resume(place, Migrator("s1"))
        assert lines(refused) == cold
    streamed = read_log(bytes_source(header + first + second))
    assert not streamed.resume(ScanState(2, at, 1), Migrator("s1")) and lines(streamed) == cold
    packed = tmp_path / "session.jsonl.zstd"
    packed.write_bytes(b"".join(zstandard.ZstdCompressor().compress(part) for part in (header, first, second)))
    assert not read_log(file_source(str(packed))).resume(ScanState(2, at, 1), Migrator("s1"))
