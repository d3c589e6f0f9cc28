"""Every input is bounded: zstd frames (the first one included) stream under the
record and log caps, standard input and devices stream under the same caps as files,
a folder search reads regular files only, and a record over the cap is an error.

Memory is asserted with ``tracemalloc`` (every bytes object a reader holds is a
Python allocation), reading with a count of the bytes taken from a stream: neither
depends on the machine's speed."""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
import zstandard
from click.testing import CliRunner

from replay.cli import main
from tests.helpers import REPO, TODO_WRITE, corpus_file, dump, next_seq, records, todo_turns

MIB = 1 << 20
_ZC = zstandard.ZstdCompressor(write_checksum=True)


def _audit(*args: str, input: Any = None) -> tuple[int, dict[str, Any], int]:
    """``replay audit --format json``: exit status, report, and the peak of Python
    memory (bytes) while it ran."""
    runner = CliRunner()
    tracemalloc.start()
    try:
        result = runner.invoke(main, ["audit", "--format", "json", *args], input=input)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, json.loads(result.stdout_bytes), peak


def _rules(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["rule"], f["severity"]) for f in report["files"][0]["findings"]]


def _header() -> bytes:
    return dump(records(TODO_WRITE)[:1])


def test_a_first_frame_that_goes_on_after_the_header_stops_the_reading(tmp_path: Path) -> None:
    # 64 MiB of records packed into frame 1 with the header (the harness refuses the log).
    body = b'{"type":"plan/mode","seq":0,"time":0,"data":{"active":false}}\n' * (64 * MIB // 62)
    path = tmp_path / "session.jsonl.zstd"
    path.write_bytes(_ZC.compress(_header() + body))
    code, report, peak = _audit(str(path))
    assert code == 1
    assert _rules(report) == [("A9", "error")]
    assert "first Zstandard frame must hold the session header line and nothing else" in \
        report["files"][0]["findings"][0]["message"]
    assert peak < 8 * MIB


def test_a_first_frame_without_a_newline_is_cut_at_the_record_cap(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl.zstd"
    path.write_bytes(_ZC.compress(b'{"type":"session","title":"' + b"x" * (64 * MIB)))
    code, report, peak = _audit("--max-record-bytes", str(MIB), str(path))
    assert code == 1
    assert _rules(report) == [("LIMIT", "error")]
    assert report["files"][0]["status"] == "unreadable"
    assert peak < 8 * MIB


def test_a_later_frame_bomb_is_cut_at_the_log_cap(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl.zstd"
    bomb = b'{"type":"x","data":"' + b"y" * (96 * MIB) + b'"}\n'
    path.write_bytes(_ZC.compress(_header()) + _ZC.compress(bomb))
    assert path.stat().st_size < 64 * 1024
    code, report, peak = _audit("--max-record-bytes", str(MIB), "--max-log-bytes", str(32 * MIB), str(path))
    assert code == 1
    assert _rules(report) == [("LIMIT", "error")]
    assert report["files"][0]["findings"][0]["message"].startswith("the decompressed log (or a decompression bomb) "
                                                                    f"exceeds the reader's limit of {32 * MIB} bytes")
    assert peak < 8 * MIB


def test_a_large_compressed_log_is_never_held_whole(tmp_path: Path) -> None:
    # 24 MiB of incompressible records in 1 MiB frames: a valid log, read as a stream.
    recs = records(TODO_WRITE)
    header, events = dump(recs[:1]), dump(recs[1:])
    seq = next_seq(recs)
    frames = [_ZC.compress(header), _ZC.compress(events)]
    rng = os.urandom(24 * MIB).hex()
    for start in range(0, len(rng), 2 * MIB):
        chunk = rng[start:start + 2 * MIB]
        batch = []
        for k in range(0, len(chunk), 4096):
            data = {"active": False, "n": chunk[k:k + 4096]}
            batch.append({"type": "plan/mode", "seq": seq, "time": 0, "data": data})
            seq += 1
        frames.append(_ZC.compress(dump(batch)))
    path = tmp_path / "session.jsonl.zstd"
    path.write_bytes(b"".join(frames))
    assert path.stat().st_size > 20 * MIB
    code, report, peak = _audit(str(path))
    assert code == 0, report
    assert report["files"][0]["events"] == seq
    assert peak < 12 * MIB


class _Stream(io.RawIOBase):
    """``size`` bytes, generated as they are read (``head``, then ``fill()`` over and
    over), counting what was read."""

    def __init__(self, size: int, fill: Any, head: bytes = b"") -> None:
        self.size, self.fill, self.buffered, self.taken = size, fill, head, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = min(len(buffer), self.size - self.taken)
        if n <= 0:
            return 0
        while len(self.buffered) < n:
            self.buffered += self.fill()
        buffer[:n], self.buffered = self.buffered[:n], self.buffered[n:]
        self.taken += n
        return n


def _events() -> Any:
    """Valid, contiguous events, a few thousand at a time."""
    seq = 0

    def more() -> bytes:
        nonlocal seq
        batch = b"".join(b'{"type":"plan/mode","seq":%d,"time":0,"data":{"active":false}}\n' % (seq + k)
                         for k in range(4096))
        seq += 4096
        return batch

    return more


def test_standard_input_of_zeros_stops_at_the_record_cap() -> None:
    stream = _Stream(96 * MIB, lambda: b"\0" * MIB)
    code, report, peak = _audit("--max-record-bytes", str(MIB), "-", input=stream)
    assert code == 1
    assert _rules(report) == [("LIMIT", "error")]
    assert report["files"][0]["path"] == "<stdin>" and report["files"][0]["status"] == "unreadable"
    assert stream.taken <= 4 * MIB
    assert peak < 8 * MIB


def test_standard_input_that_goes_on_stops_at_the_log_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    import replay.log.bounded

    # Small blocks, so that a small cap shows it: events are held a block at a time.
    monkeypatch.setattr(replay.log.bounded, "BLOCK", 1 << 15)
    stream = _Stream(96 * MIB, _events(), head=_header())
    code, report, peak = _audit("--max-log-bytes", str(2 * MIB), "-", input=stream)
    assert code == 1
    (limit,) = [f for f in report["files"][0]["findings"] if f["rule"] == "LIMIT"]
    assert limit["message"].startswith(f"the log exceeds the reader's limit of {2 * MIB} bytes")
    assert stream.taken <= 4 * MIB
    assert peak < 8 * MIB  # one block's events at a time: 2 MiB of events parsed would be ~30 MiB


def test_a_flood_of_damage_stops_the_reading() -> None:
    stream = _Stream(64 * MIB, lambda: b"\n" * MIB, head=_header())
    code, report, _ = _audit("-", input=stream)
    assert code == 1
    findings = report["files"][0]["findings"]
    assert findings[-1] == {"rule": "LIMIT", "severity": "error", "line": 10_002, "seq": None, "type": None,
                            "message": "more than 10000 records that are no event: the rest of the log, from line "
                                       "10002, was not read"}
    assert stream.taken <= 2 * MIB


def test_a_device_named_on_the_command_line_is_streamed_under_the_caps() -> None:
    code, report, peak = _audit("--max-record-bytes", str(MIB), "/dev/zero")
    assert code == 1
    assert _rules(report) == [("LIMIT", "error")]
    assert peak < 8 * MIB


def test_a_folder_search_reads_regular_files_only(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "good.jsonl").write_bytes(corpus_file(TODO_WRITE).read_bytes())
    os.mkfifo(logs / "fifo.jsonl")
    (logs / "zero.jsonl").symlink_to("/dev/zero")
    outside = tmp_path / "secret.jsonl"
    outside.write_bytes(corpus_file(TODO_WRITE).read_bytes())
    (logs / "out.jsonl").symlink_to(outside)
    (logs / "dangling.jsonl").symlink_to(tmp_path / "nowhere")
    (logs / "linked").symlink_to(tmp_path, target_is_directory=True)
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(logs / "sock.jsonl"))
    try:
        proc = subprocess.run([sys.executable, "-m", "replay", "audit", "--format", "json", str(logs)], cwd=REPO,
                              capture_output=True, timeout=60)
    finally:
        sock.close()
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert [Path(f["path"]).name for f in report["files"]] == ["good.jsonl"]
    assert {Path(p["path"]).name: p["reason"] for p in report["passed_over"]} == {
        "dangling.jsonl": "a broken symbolic link",
        "fifo.jsonl": "a FIFO (named pipe)",
        "linked": "a symbolic link to a folder (links are not followed)",
        "out.jsonl": "a symbolic link that leads out of the folder",
        "sock.jsonl": "a socket",
        "zero.jsonl": "a symbolic link that leads out of the folder",
    }
    assert f"replay audit: passed over {logs / 'fifo.jsonl'}: a FIFO (named pipe)" in proc.stderr.decode()


def test_a_record_over_the_cap_is_an_error_even_in_the_tail(tmp_path: Path) -> None:
    recs = records(TODO_WRITE)
    path = tmp_path / "session.jsonl"
    big = {"type": "session/title", "seq": len(recs) - 1, "time": 0,
           "data": {"title": "x" * (3 * 65536), "messageSeqs": [], "source": {"kind": "user"}}}
    path.write_bytes(dump([*recs, big]))  # after the last turn/end, newline-terminated
    code, report, _ = _audit("--max-record-bytes", "65536", str(path))
    assert code == 1
    assert _rules(report) == [("LIMIT", "error")]
    finding = report["files"][0]["findings"][0]
    assert finding["line"] == len(recs) + 1
    assert finding["message"] == ("the record exceeds the reader's limit of 65536 bytes and was not read "
                                  "(raise --max-record-bytes if this is a real log)")


@pytest.mark.parametrize("args", [["plan"], ["render", "stdio"], ["render", "web"]])
def test_render_input_from_a_device_is_capped_too(args: list[str]) -> None:
    result = CliRunner().invoke(main, [*args, "--max-record-bytes", str(MIB), "/dev/zero"])
    assert result.exit_code == 1
    assert "not a readable session log" in result.stderr


def test_seq_gaps_between_real_events_never_stop_the_reading(tmp_path: Path) -> None:
    # Every seq out of order: each record is an A7 finding, and still an event that is read.
    recs = todo_turns(2100, "reversed")
    path = tmp_path / "session.jsonl"
    path.write_bytes(dump(recs))
    result = CliRunner().invoke(main, ["audit", "--format", "json", str(path)])
    report = json.loads(result.stdout_bytes)["files"][0]
    assert report["events"] == len(recs) - 1 > 10_000
    assert "LIMIT" not in {f["rule"] for f in report["findings"]}


def test_what_a_folder_search_passes_over_is_listed_in_path_order(tmp_path: Path) -> None:
    """The report does not depend on the order the file system lists a folder in."""
    logs = tmp_path / "logs"
    (logs / "sub").mkdir(parents=True)
    (logs / "sub" / "good.jsonl").write_bytes(corpus_file(TODO_WRITE).read_bytes())
    names = ["h", "c", "f", "a", "g", "d", "b", "e"]
    for name in names:
        os.mkfifo(logs / f"{name}.jsonl")
        os.mkfifo(logs / "sub" / f"{name}.jsonl")
    result = CliRunner().invoke(main, ["audit", "--format", "json", str(logs)])
    assert result.exit_code == 0, result.output
    passed_over = [p["path"] for p in json.loads(result.stdout)["passed_over"]]
    assert passed_over == [str(logs / f"{name}.jsonl") for name in sorted(names)] + [
        str(logs / "sub" / f"{name}.jsonl") for name in sorted(names)]
