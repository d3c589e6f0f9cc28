"""A baseline's paths are matched relative to where it was written, and a baseline that
matches nothing is said (issue 27, row 6)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.helpers import dump, records, replay_here

LOGS = ("multi-turn", "cancel", "error-finish")


def _archive(tmp_path: Path) -> Path:
    """``work/logs/<name>/session.jsonl``: corpus logs, each with a seq broken before its
    last turn/end (an A7 error)."""
    work = tmp_path / "work"
    for name in LOGS:
        recs = records(f"acp-2026-07-23/{name}/session.jsonl")
        recs[2]["seq"] = 999
        (work / "logs" / name).mkdir(parents=True)
        (work / "logs" / name / "session.jsonl").write_bytes(dump(recs))
    return work


def test_a_baseline_written_inside_a_folder_holds_from_its_parent(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    work = _archive(tmp_path)
    monkeypatch.chdir(work)
    wrote = replay_here("audit", "logs/", "--write-baseline", "audit-baseline.json", "--jobs", "1")
    assert wrote.code == 0, wrote.stderr
    doc = json.loads((work / "audit-baseline.json").read_text(encoding="utf-8"))
    assert doc["root"] == "."
    held = len(doc["findings"])
    assert held > len(LOGS)
    for where, args in ((work, ("logs/",)), (tmp_path, ("work/logs/",)), (work / "logs", (".",))):
        monkeypatch.chdir(where)
        baseline = os.path.relpath(work / "audit-baseline.json")
        run = replay_here("audit", *args, "--baseline", baseline, "--jobs", "1")
        assert (run.code, run.stderr) == (0, b""), (where, run.stderr)
        assert run.stdout.decode().splitlines()[-2:] == [
            "0 findings: 0 errors, 0 warnings, 0 policy", f"{held} findings in the baseline not reported"]


def test_a_baseline_written_to_a_subfolder_names_its_root_from_there(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    work = _archive(tmp_path)
    monkeypatch.chdir(work)
    (work / ".replay").mkdir()
    assert replay_here("audit", "logs", "--write-baseline", ".replay/baseline.json", "--jobs", "1").code == 0
    assert json.loads((work / ".replay" / "baseline.json").read_text(encoding="utf-8"))["root"] == ".."
    monkeypatch.chdir(tmp_path)
    run = replay_here("audit", "work/logs", "--baseline", "work/.replay/baseline.json", "--jobs", "1")
    assert (run.code, run.stderr) == (0, b"")


def test_a_baseline_that_matches_nothing_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = _archive(tmp_path)
    monkeypatch.chdir(work)
    assert replay_here("audit", "logs/", "--write-baseline", "audit-baseline.json", "--jobs", "1").code == 0
    doc = json.loads((work / "audit-baseline.json").read_text(encoding="utf-8"))
    held = len(doc["findings"])
    # Without "root" (as before it was written), its paths are the working directory's.
    del doc["root"]
    (work / "audit-baseline.json").write_text(json.dumps(doc), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    run = replay_here("audit", "work/logs/", "--baseline", "work/audit-baseline.json", "--jobs", "1")
    assert run.code == 1
    assert run.stderr.decode() == (
        f"replay audit: no finding of this audit matched the {held} entries of the baseline work/audit-baseline.json, "
        "so every finding is reported; its paths are relative to the folder the audit that wrote it "
        "ran from, which it does not name: run this audit from there\n")
    # With its root, and the logs moved away from it.
    doc["root"] = "."
    (work / "audit-baseline.json").write_text(json.dumps(doc), encoding="utf-8")
    (work / "logs").rename(work / "moved")
    run = replay_here("audit", "work/moved/", "--baseline", "work/audit-baseline.json", "--jobs", "1")
    assert run.code == 1
    assert run.stderr.decode() == (
        f"replay audit: no finding of this audit matched the {held} entries of the baseline work/audit-baseline.json, "
        f"so every finding is reported; its paths are relative to {work}, where the audit that wrote "
        "it ran: were the logs moved?\n")
