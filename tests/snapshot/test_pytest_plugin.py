"""The pytest plugin on syrupy: partial runs are safe, and --snapshot-update is the
same refresh as `replay refresh`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from replay.snapshot.compare import refresh_scenarios
from tests.helpers import REPO

TEST_FILE = '''
import pytest

SCENARIOS = ["parallel-plan-two", "recorded-parallel-plan", "zero-todos"]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_goldens(scenario, replay_scenario, replay_snapshot):
    for name, data in replay_scenario(scenario).items():
        assert data == replay_snapshot(name=f"{scenario}/{name}")
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name in ("parallel-plan-two", "recorded-parallel-plan", "zero-todos"):
        shutil.copytree(REPO / "scenarios" / name, tmp_path / "scenarios" / name)
        shutil.copytree(REPO / "goldens" / name, tmp_path / "goldens" / name)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_goldens.py").write_text(TEST_FILE)
    return tmp_path


def _pytest(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests", *args],
                          cwd=project, capture_output=True, text=True, timeout=120)


def _tree(root: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.startswith(".")}


def _flip(project: Path, scenario: str) -> None:
    path = project / "scenarios" / scenario / "scenario.json"
    doc = json.loads(path.read_text())
    doc["tools"]["todo_write"]["allowParallelInProgress"] = False
    path.write_text(json.dumps(doc))


def test_a_partial_run_does_not_flag_other_goldens(project: Path) -> None:
    proc = _pytest(project, "-k", "zero")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout and "unused" not in proc.stdout


def test_a_partial_update_leaves_every_other_golden_untouched(project: Path) -> None:
    _flip(project, "recorded-parallel-plan")
    _flip(project, "parallel-plan-two")
    before = _tree(project / "goldens")
    proc = _pytest(project, "-k", "recorded", "--snapshot-update")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    after = _tree(project / "goldens")
    changed = {k for k in after if after[k] != before[k]}
    assert changed == {f"recorded-parallel-plan/{n}" for n in (
        "load.expected.jsonl", "plan.expected.json", "session.expected.jsonl", "stdio.expected.txt",
        "stdout.expected.jsonl", "tool-schemas.expected.json", "web.expected.txt")}
    assert set(after) == set(before)  # nothing deleted
    # parallel-plan-two changed too but was not selected: its goldens still say so.
    proc = _pytest(project, "-k", "parallel-plan-two")
    assert proc.returncode == 1 and "snapshot" in proc.stdout


def test_snapshot_update_is_the_same_refresh_as_replay_refresh(project: Path, tmp_path: Path) -> None:
    _flip(project, "parallel-plan-two")
    twin = tmp_path / "twin"
    shutil.copytree(project / "scenarios", twin / "scenarios")
    shutil.copytree(project / "goldens", twin / "goldens")
    proc = _pytest(project, "--snapshot-update")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    refresh_scenarios(twin / "scenarios", twin / "goldens")
    assert {k: v[0] for k, v in _tree(project / "goldens").items()} == \
        {k: v[0] for k, v in _tree(twin / "goldens").items()}
    proc = _pytest(project)
    assert proc.returncode == 0 and "3 passed" in proc.stdout


def test_two_workers_write_the_same_goldens(project: Path, tmp_path: Path) -> None:
    pytest.importorskip("xdist", reason="pytest-xdist is not installed (pip install -e '.[test]')")
    _flip(project, "parallel-plan-two")
    _flip(project, "recorded-parallel-plan")
    twin = tmp_path / "twin"
    shutil.copytree(project / "scenarios", twin / "scenarios")
    shutil.copytree(project / "goldens", twin / "goldens")
    proc = _pytest(project, "-n", "2", "--snapshot-update")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    refresh_scenarios(twin / "scenarios", twin / "goldens")
    assert {k: v[0] for k, v in _tree(project / "goldens").items()} == \
        {k: v[0] for k, v in _tree(twin / "goldens").items()}
