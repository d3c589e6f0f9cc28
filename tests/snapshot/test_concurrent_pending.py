"""Concurrent ``check --pending``, ``accept``, ``reject`` and ``refresh`` on one tree
(issue 27, point 6): whatever runs beside what, and in whatever order the processes get
the locks, every golden is whole (its old bytes or the run's new bytes), the manifest
is true (every entry's file is there and hashes to it), no temporary file is left,
nothing ends in a traceback, and ``check`` passes exactly when every golden is new."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import REPO, examples

SCENARIO = "parallel-plan-two"
RENAME = ('"watch the background build"', '"watch the nightly build"')
COMMANDS = {
    "check --pending": ["check", SCENARIO, "--pending", "--jobs", "1"],
    "accept": ["accept"],
    "reject": ["reject"],
    "refresh": ["refresh", SCENARIO, "--jobs", "1"],
}


def _tree(root: Path) -> None:
    shutil.copytree(REPO / "scenarios" / SCENARIO, root / "scenarios" / SCENARIO)
    shutil.copytree(REPO / "goldens" / SCENARIO, root / "goldens" / SCENARIO)
    script = root / "scenarios" / SCENARIO / "scenario.json"
    script.write_text(script.read_text(encoding="utf-8").replace(*RENAME), encoding="utf-8")


def _replay(root: Path, *argv: str) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "GITHUB_STEP_SUMMARY")}
    return subprocess.Popen([sys.executable, "-m", "replay", *argv], cwd=root, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture(scope="module")
def versions(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """The goldens of the scenario before the rename, and after a refresh of it."""
    root = tmp_path_factory.mktemp("versions")
    _tree(root)
    old = _files(root / "goldens" / SCENARIO)
    proc = _replay(root, *COMMANDS["refresh"])
    proc.communicate(timeout=300)
    assert proc.returncode == 0
    return old, _files(root / "goldens" / SCENARIO)


@pytest.mark.slow
@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                          HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(sorted(COMMANDS)), min_size=2, max_size=3), st.booleans())
def test_concurrent_pending_accept_and_refresh_leave_the_trees_whole(
        tmp_path_factory: pytest.TempPathFactory, versions: tuple[dict[str, bytes], dict[str, bytes]],
        commands: list[str], pending_first: bool) -> None:
    old, new = versions
    root = tmp_path_factory.mktemp("tree")
    _tree(root)
    if pending_first:  # pending goldens from an earlier run wait already
        first = _replay(root, *COMMANDS["check --pending"])
        first.communicate(timeout=300)
        assert first.returncode == 1
    procs = [(name, _replay(root, *COMMANDS[name])) for name in commands]
    for name, proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode in (0, 1), (name, proc.returncode, out, err)
        assert b"Traceback" not in err, (name, err)
    goldens = _files(root / "goldens" / SCENARIO)
    assert goldens.keys() == old.keys()
    for artefact, data in goldens.items():
        assert data in (old[artefact], new[artefact]), artefact  # whole: old or new, never a mix or a cut
    pending = root / ".replay" / "pending"
    if (pending / "manifest.json").exists():
        manifest = json.loads((pending / "manifest.json").read_bytes())
        for entry in manifest["entries"]:
            held = (pending / entry["scenario"] / entry["artefact"]).read_bytes()
            assert hashlib.sha256(held).hexdigest() == entry["pending_sha256"], entry
            assert held == new[entry["artefact"]]  # what the run made, nothing else
    left = [p for p in root.rglob("*") if p.name.startswith(".tmp-")]
    assert not left, left
    check = _replay(root, "check", SCENARIO, "--jobs", "1")
    check.communicate(timeout=300)
    assert check.returncode == (0 if goldens == new else 1)
