"""A folded heading says where its findings went, and a fold counts right (issue 27,
row 10): corpus logs, each broken the same way, audited together."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import dump, records, replay_here

LOGS = ("cancel", "error-finish", "fs-read", "multi-turn")


def _logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in LOGS:
        recs = records(f"acp-2026-07-23/{name}/session.jsonl")
        recs[2]["seq"] = 999  # an A7 error before the last turn/end, in every log
        (tmp_path / name).mkdir()
        (tmp_path / name / "session.jsonl").write_bytes(dump(recs))
    monkeypatch.chdir(tmp_path)


def test_a_heading_says_where_its_folded_findings_are(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _logs(tmp_path, monkeypatch)
    run = replay_here("audit", ".", "--jobs", "1")
    assert run.code == 1
    headings = [line for line in run.stdout.decode().splitlines() if line.endswith("below)")]
    assert headings == [
        'cancel/session.jsonl (9 events; 2 errors, 3 warnings; 4 of them under "Found in 3 or more files" below)',
        'error-finish/session.jsonl (7 events; 2 errors, 3 warnings; 4 of them under "Found in 3 or more files" '
        'below)',
        'fs-read/session.jsonl (106 events; 2 errors, 4 warnings; 4 of them under "Found in 3 or more files" below)',
        'multi-turn/session.jsonl (65 events; 2 errors, 3 warnings; 4 of them under "Found in 3 or more files" '
        'below)']


def test_a_heading_whose_every_finding_is_folded_says_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _logs(tmp_path, monkeypatch)
    run = replay_here("audit", ".", "--jobs", "1", "--select", "A7")
    out = run.stdout.decode()
    assert 'cancel/session.jsonl (9 events; 2 errors; all under "Found in 3 or more files" below)\n' in out


def test_a_kind_counted_per_log_is_folded_with_its_events_counted(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The B4 note on turn/start is one finding per log that stands for every such event
    of it: the fold counts the events apart, and its message is not one log's."""
    _logs(tmp_path, monkeypatch)
    run = replay_here("audit", ".", "--jobs", "1", "--select", "B4")
    lines = run.stdout.decode().splitlines()
    at = lines.index('  B4 warning: turn/start has the 2026-06/07 "trigger" field: loading drops it')
    assert lines[at + 1:at + 6] == [
        "    4 findings (5 events) in 4 files, first at:",
        "      cancel/session.jsonl:2",
        "      error-finish/session.jsonl:2",
        "      fs-read/session.jsonl:2",
        "      and 1 more file (--no-fold lists every finding)"]
    doc = json.loads(replay_here("audit", ".", "--jobs", "1", "--select", "B4", "--format", "json").stdout)
    [multi] = [f for f in doc["files"] if f["path"].endswith("multi-turn/session.jsonl")]
    assert [f["message"] for f in multi["findings"] if f["line"] == 2] == [
        'turn/start has the 2026-06/07 "trigger" field: loading drops it (2 such events in this log, the first on '
        'line 2)']
