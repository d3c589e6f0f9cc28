"""Fingerprints and baselines: an archive's findings written once, then only new
findings reported, whatever moves in the logs."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from hypothesis import example, given, settings
from hypothesis import strategies as st

from replay.check.baseline import Baseline, BaselineError, baseline_document, read_baseline
from replay.check.engine import audit_log
from replay.check.fingerprint import file_identity, fingerprint_findings, normalized, record_content
from replay.cli import main
from replay.findings import Finding, Severity
from replay.log.reader import read_log
from tests.helpers import bytes_source, corpus_root, dump

FOLDERS = ("acp-2026-06-29", "acp-2026-07-23", "sessions-2026-08-20")
HEADER = {"type": "session", "version": 0, "id": "s1", "createdAt": 0, "cwd": "/w", "delegationDepth": 0}


def test_what_a_fingerprint_leaves_out(tmp_path: Path) -> None:
    record = {"type": "tool/result", "seq": 9, "time": 5, "data": {"turn": 2, "step": 1, "message": {
        "id": "interrupted-tool-result-c1-9"}}, "sourceEventSeqs": [4], "surfaceOp": {"op": "replace", "start": 4,
                                                                                     "end": 4}}
    assert normalized(record) == {"type": "tool/result", "data": {"step": 1, "message": {
        "id": "interrupted-tool-result-c1"}}, "surfaceOp": {"op": "replace"}}
    moved = {**record, "seq": 12, "time": 7, "data": {**record["data"], "turn": 3, "message": {
        "id": "interrupted-tool-result-c1-12"}}, "sourceEventSeqs": [6], "surfaceOp": {"op": "replace", "start": 6,
                                                                                      "end": 6}}
    assert record_content(5, orjson.dumps(record)) == record_content(9, orjson.dumps(moved))
    assert record_content(5, orjson.dumps(record)) != record_content(5, orjson.dumps({**record, "type": "x"}))
    # The header is the file's own: nothing is left out of it.
    assert record_content(1, b'{"seq":1}') != record_content(1, b'{"seq":2}')
    assert record_content(3, b"{broken") != record_content(3, b"{broke")
    assert file_identity(str(tmp_path / "a" / "session.jsonl.zstd"), str(tmp_path)) == "a/session.jsonl"
    assert file_identity("<stdin>") == "<stdin>"


def test_two_equal_bad_records_are_two_findings() -> None:
    todo = {"type": "todo/write", "seq": 0, "time": 0, "data": {"todos": []}}
    data = dump([HEADER, todo, {**todo, "seq": 1}])
    report = audit_log(read_log(bytes_source(data)), fingerprints=True)
    assert [(f.rule, f.line) for f in report.findings] == [("D14", 2), ("D14", 3)]
    first, second = (f.fingerprint for f in report.findings)
    assert first and second and first != second
    # A finding without a line is known by its message, numbers aside.
    [a, b] = fingerprint_findings([Finding("A9", Severity.ERROR, "frame at byte 10"),
                                   Finding("A9", Severity.ERROR, "frame at byte 99")], [], "f")
    assert a.fingerprint != b.fingerprint  # the second of one kind


def test_a_baseline_file_that_cannot_be_used_is_named(tmp_path: Path) -> None:
    for body, problem in [(None, "cannot read the baseline"), ("{", "not a baseline (not JSON"),
                          ('{"replay-baseline": 2, "findings": []}', "not a baseline of this version"),
                          ('{"replay-baseline": 1, "findings": [{"file": "a"}]}', "findings[0] needs a string")]:
        path = tmp_path / "b.json"
        path.unlink(missing_ok=True)
        if body is not None:
            path.write_text(body)
        with pytest.raises(BaselineError, match=re.escape(problem)):
            read_baseline(path)
    result = CliRunner().invoke(main, ["audit", "--baseline", str(tmp_path / "none.json"), str(path)])
    assert result.exit_code == 2 and "Invalid value for --baseline" in result.output


@pytest.mark.parametrize(("make", "problem"), [
    ("fifo", "a FIFO (named pipe), not a regular file; refused"),
    ("/dev/zero", "a device, not a regular file; refused"),
    ("true", 'not a baseline of this version (a JSON object with "replay-baseline": 1 and a "findings" list)'),
])
def test_a_baseline_that_is_a_pipe_a_device_or_of_no_version_is_refused_at_once(tmp_path: Path, make: str,
                                                                                problem: str) -> None:
    """A FIFO would hang the audit, /dev/zero feed it a GiB of zeros, and ``true``
    pass for version 1: each is a usage error naming the file, before any log is read."""
    path = tmp_path / "b.json"
    if make == "fifo":
        os.mkfifo(path)
    elif make == "true":
        path.write_text('{"replay-baseline": true, "findings": []}')
    else:
        path = Path(make)
    result = CliRunner().invoke(main, ["audit", "--baseline", str(path), str(corpus_root())])
    assert result.exit_code == 2, result.output
    assert f"Invalid value for --baseline: {path}: " in result.output
    assert problem in " ".join(result.output.split())


# -- the archive scenario --------------------------------------------------------------


@pytest.fixture
def archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the three corpus folders, the working directory at its root."""
    for name in FOLDERS:
        source = corpus_root() / name
        if not source.exists():
            pytest.skip(f"corpus folder {source} is absent (set REPLAY_CORPUS to the shared corpus folder)")
        shutil.copytree(source, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _audit(*args: str) -> tuple[int, dict[str, Any]]:
    # --no-cache: the logs are rewritten between runs, which the cache would report (rule H1)
    result = CliRunner().invoke(main, ["audit", "--no-cache", "--format", "json", *args, *FOLDERS])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def _findings(doc: dict[str, Any]) -> list[tuple[str, str, int | None]]:
    return [(file["path"], f["rule"], f["line"]) for file in doc["files"] for f in file["findings"]]


def _records(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line]


def _write_baseline(tmp: Path) -> None:
    result = CliRunner().invoke(main, ["audit", "--write-baseline", "baseline.json", *FOLDERS])
    assert result.exit_code == 0
    assert result.stderr == "replay audit: wrote a baseline of 385 findings to baseline.json\n"
    assert len(json.loads((tmp / "baseline.json").read_text())["findings"]) == 385


@pytest.mark.slow
def test_appending_a_bad_record_reports_exactly_it(archive: Path) -> None:
    _write_baseline(archive)
    code, doc = _audit("--baseline", "baseline.json")
    assert (code, _findings(doc)) == (0, [])
    # A 2026-06 log with findings of its own (A4, B4, B5) gets one more bad record.
    log = archive / "acp-2026-06-29" / "multi-turn" / "session.jsonl"
    recs = _records(log)
    recs.append({"type": "todo/write", "seq": recs[-1]["seq"] + 1, "time": 0, "data": {"todos": []}})
    log.write_bytes(dump(recs))
    code, doc = _audit("--baseline", "baseline.json")
    assert code == 1
    assert _findings(doc) == [("acp-2026-06-29/multi-turn/session.jsonl", "D14", len(recs))]
    # The text report says so too, and what the baseline held back.
    text = CliRunner().invoke(main, ["audit", "--baseline", "baseline.json", *FOLDERS]).output
    assert "1 finding: 1 error, 0 warnings, 0 policy\n385 findings in the baseline not reported\n" in text


def _insert_good_records(recs: list[dict[str, Any]], at: int, good: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``good`` (seqs 0…) inserted before record ``at``, taking its seqs; every later
    seq (and the seqs records name: sourceEventSeqs, surfaceOp ranges) shifted past
    them. ``at == len(recs)`` appends them, from the seq after the last record's."""
    from tests.helpers import next_seq

    k = len(good)
    first = recs[at].get("seq", recs[at].get("seq0")) if at < len(recs) else next_seq(recs)

    def shift(n: Any) -> Any:
        return n + k if isinstance(n, int) and n >= first else n

    moved = []
    for rec in recs[at:]:
        rec = dict(rec)
        for key in ("seq", "seq0"):
            if key in rec:
                rec[key] = shift(rec[key])
        if isinstance(rec.get("sourceEventSeqs"), list):
            rec["sourceEventSeqs"] = [shift(s) for s in rec["sourceEventSeqs"]]
        if isinstance(rec.get("surfaceOp"), dict):
            rec["surfaceOp"] = {k2: shift(v) if k2 in ("start", "end") else v for k2, v in rec["surfaceOp"].items()}
        moved.append(rec)
    inserted = [{**g, "seq": first + i} for i, g in enumerate(good)]
    return recs[:at] + inserted + moved


def _user_message(n: int) -> dict[str, Any]:
    return {"type": "user/message", "seq": 0, "time": 0, "data": {
        "id": f"note-{n}", "role": "user", "source": {"kind": "user"},
        "content": [{"type": "text", "text": f"context {n}"}]}, "surfaceOp": "append"}


@pytest.mark.slow
def test_bad_records_that_moved_re_raise_nothing(archive: Path) -> None:
    _, before = _audit()
    _write_baseline(archive)
    moved_logs = {
        # A4 + D9 chunks outside any turn: good messages before them, seqs renumbered.
        "sessions-2026-08-20/apps_web_tests_snapshots/web-search-round/session.jsonl": [_user_message(1),
                                                                                        _user_message(2)],
        # A4, B4 migrations and B5 errors: a whole good turn before, later turns renumbered too.
        "acp-2026-06-29/multi-turn/session.jsonl": [
            {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}},
            {"type": "turn/end", "seq": 0, "time": 0, "data": {"turn": 1, "reason": {"kind": "completed"}}}],
        # B6 unknown event types, in a 2026-07 log with surface replacements.
        "acp-2026-07-23/hook-cc-posttool-context/session.jsonl": [_user_message(3)],
    }
    for relative, good in moved_logs.items():
        path = archive / relative
        recs = _records(path)
        new = _insert_good_records(recs, 1, good)
        if good[0]["type"] == "turn/start":
            for rec in new[1 + len(good):]:
                data = rec.get("data")
                if isinstance(data, dict) and isinstance(data.get("turn"), int):
                    data["turn"] += 1
        path.write_bytes(dump(new))
    _, after = _audit()
    # The logs really changed: the same findings, on other lines.
    moved = {(p, r) for p, r, _ in _findings(after) if p in moved_logs}
    assert moved == {(p, r) for p, r, _ in _findings(before) if p in moved_logs}
    assert {(p, r, line) for p, r, line in _findings(after) if p in moved_logs} != {
        (p, r, line) for p, r, line in _findings(before) if p in moved_logs}
    code, doc = _audit("--baseline", "baseline.json")
    assert (code, _findings(doc)) == (0, [])


def test_the_baseline_document_is_sorted_and_readable() -> None:
    from replay.check.engine import LogReport

    reports = [LogReport("b.jsonl", "findings", 1, [Finding("T5", Severity.ERROR, "m", 3, fingerprint="f2"),
                                                     Finding("A4", Severity.ERROR, "h", 1, fingerprint="f1")])]
    doc = baseline_document(reports)
    assert [(r["file"], r["rule"], r["line"]) for r in doc["findings"]] == [("b.jsonl", "A4", 1),
                                                                            ("b.jsonl", "T5", 3)]
    baseline = Baseline()
    assert baseline.apply(reports[0]) is reports[0]


def _fingerprinted(recs: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    report = audit_log(read_log(bytes_source(dump(recs))), fingerprints=True)
    return sorted((f.rule, f.fingerprint) for f in report.findings)


@settings(max_examples=40)
@given(st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=6))
@example(positions=[0])  # after the last record, alone
def test_good_records_inserted_anywhere_leave_every_fingerprint(positions: list[int]) -> None:
    """User messages (unconstrained anywhere) inserted at random places, before, between
    and after the bad records (position 0: after the last record), with every later seq
    renumbered: the same fingerprints."""
    from tests.helpers import TODO_WRITE, index_of, records

    recs = records(TODO_WRITE)
    i = index_of(recs, "todo/write")
    recs[i]["data"]["todos"][1]["status"] = "later"                     # T5
    # D14 twice: a todo/write before any turn (the seqs after it renumbered) and one after the last.
    recs = _insert_good_records(recs, 1, [{"type": "todo/write", "seq": 0, "time": 0, "data": {"todos": []}}])
    recs.append({"type": "todo/write", "seq": recs[-1]["seq"] + 1, "time": 0, "data": {"todos": []}})  # D14
    before = _fingerprinted(recs)
    assert [rule for rule, _ in before] == ["D14", "D14", "T5"]
    last_seq, count = recs[-1]["seq"], len(recs)
    places = sorted({1 + (p - 1) % count for p in positions}, reverse=True)  # 1 … count: count appends
    for n, at in enumerate(places):
        recs = _insert_good_records(recs, at, [_user_message(n)])
    assert recs[-1]["type"] == ("user/message" if places[0] == count else "todo/write")
    assert recs[-1]["seq"] == last_seq + len(places)
    assert _fingerprinted(recs) == before
