"""The pytest plugin on syrupy: partial runs are safe, and --snapshot-update is the
same refresh as `replay refresh`.

Each inner test session runs in this process through pytest's ``pytester`` (the
plugin is loaded from its entry point, as for any user); only the two-worker run
starts processes, its xdist workers (one such run: they cost seconds)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from replay import extras, pytest_plugin
from replay.cli import main
from replay.scenarios.check import refresh_scenarios
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
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("CI", raising=False)  # .ci/run sets it; the tests that want it set it themselves
    root = pytester.path
    for name in ("parallel-plan-two", "recorded-parallel-plan", "zero-todos"):
        shutil.copytree(REPO / "scenarios" / name, root / "scenarios" / name)
        shutil.copytree(REPO / "goldens" / name, root / "goldens" / name)
    (root / "tests").mkdir()
    (root / "tests" / "test_goldens.py").write_text(TEST_FILE)
    return root


def _pytest(pytester: pytest.Pytester, *args: str) -> tuple[int, str]:
    """Run pytest on the project; its exit status and everything it printed."""
    result = pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider", "tests", *args)
    return int(result.ret), result.stdout.str() + result.stderr.str()


def _tree(root: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.startswith(".")}


def _flip(project: Path, scenario: str) -> None:
    path = project / "scenarios" / scenario / "scenario.json"
    doc = json.loads(path.read_text())
    doc["tools"]["todo_write"]["allowParallelInProgress"] = False
    path.write_text(json.dumps(doc))


def test_a_partial_run_does_not_flag_other_goldens(project: Path, pytester: pytest.Pytester) -> None:
    code, out = _pytest(pytester, "-k", "zero")
    assert code == 0, out
    assert "1 passed" in out and "unused" not in out


def test_a_partial_update_leaves_every_other_golden_untouched(project: Path, pytester: pytest.Pytester) -> None:
    _flip(project, "recorded-parallel-plan")
    _flip(project, "parallel-plan-two")
    before = _tree(project / "goldens")
    code, out = _pytest(pytester, "-k", "recorded", "--snapshot-update")
    assert code == 0, out
    after = _tree(project / "goldens")
    changed = {k for k in after if after[k] != before[k]}
    assert changed == {f"recorded-parallel-plan/{n}" for n in (
        "load.expected.jsonl", "plan.expected.json", "session.expected.jsonl", "stdio.expected.txt",
        "stdout.expected.jsonl", "tool-schemas.expected.json", "web.expected.txt")}
    assert set(after) == set(before)  # nothing deleted
    # parallel-plan-two changed too but was not selected: its goldens still say so.
    code, out = _pytest(pytester, "-k", "parallel-plan-two")
    assert code == 1 and "snapshot" in out


def test_an_update_with_no_paths_deletes_no_golden_it_did_not_touch(project: Path,
                                                                    pytester: pytest.Pytester) -> None:
    """Run with no test paths (pytest collects from its rootdir), syrupy takes every
    file it finds beside a snapshot and does not own for an unused snapshot and deletes
    it: goldens no test covers must survive, byte for byte."""
    shutil.copytree(REPO / "goldens" / "multi-turn", project / "goldens" / "multi-turn")
    before = _tree(project / "goldens")
    result = pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider", "--snapshot-update")
    assert result.ret == 0, result.stdout.str()
    assert _tree(project / "goldens") == before
    assert "Deleted" not in result.stdout.str()


def test_snapshot_update_is_the_same_refresh_as_replay_refresh(project: Path, pytester: pytest.Pytester,
                                                                tmp_path: Path) -> None:
    _flip(project, "parallel-plan-two")
    twin = tmp_path / "twin"
    shutil.copytree(project / "scenarios", twin / "scenarios")
    shutil.copytree(project / "goldens", twin / "goldens")
    code, out = _pytest(pytester, "--snapshot-update")
    assert code == 0, out
    refresh_scenarios(twin / "scenarios", twin / "goldens")
    assert {k: v[0] for k, v in _tree(project / "goldens").items()} == \
        {k: v[0] for k, v in _tree(twin / "goldens").items()}
    code, out = _pytest(pytester)
    assert code == 0 and "3 passed" in out


def _readme_snippet() -> str:
    """The README's pytest example, verbatim."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("### The pytest plugin\n", 1)[1]
    return section.split("```python\n", 1)[1].split("```\n", 1)[0]


def test_the_readme_snippet_runs_as_written(project: Path, pytester: pytest.Pytester) -> None:
    (project / "tests" / "test_goldens.py").write_text(_readme_snippet())
    code, out = _pytest(pytester)
    assert code == 0, out
    assert "3 passed" in out


def test_a_failing_assertion_names_the_golden_and_the_line(project: Path, pytester: pytest.Pytester) -> None:
    _flip(project, "parallel-plan-two")
    code, out = _pytest(pytester, "-k", "parallel-plan-two")
    assert code == 1
    assert "goldens/parallel-plan-two/load.expected.jsonl: differs from this run:" in out
    assert "goldens/parallel-plan-two/load.expected.jsonl:8: event 8 removed plan: " in out


def test_a_missing_golden_is_named_by_its_path(project: Path, pytester: pytest.Pytester) -> None:
    (project / "goldens" / "zero-todos" / "load.expected.jsonl").unlink()
    code, out = _pytest(pytester, "-k", "zero")
    assert code == 1
    assert "Snapshot 'goldens/zero-todos/load.expected.jsonl' does not exist!" in out
    assert "goldens/zero-todos/load.expected.jsonl: no such golden; `pytest --snapshot-update` (or `replay " \
           "refresh`) writes it:" in out
    assert "[zero-todosload" not in out


def test_update_writes_without_syrupys_warnings(project: Path, pytester: pytest.Pytester) -> None:
    _flip(project, "parallel-plan-two")
    (project / "goldens" / "zero-todos" / "plan.expected.json").unlink()
    code, out = _pytest(pytester, "--snapshot-update", "-W", "error::UserWarning")
    assert code == 0, out
    assert "Can not relate" not in out and "UserWarning" not in out
    assert (project / "goldens" / "zero-todos" / "plan.expected.json").is_file()


def test_without_syrupy_the_error_says_what_to_install(project: Path, pytester: pytest.Pytester,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = _pytest(pytester, "-p", "no:syrupy", "-k", "zero")
    assert code == 1
    assert "replay_snapshot needs syrupy's `snapshot` fixture, but syrupy's plugin is not active" in out
    monkeypatch.setattr(pytest_plugin, "_syrupy_installed", lambda: False)  # as if it were not installed
    monkeypatch.setattr(extras, "installed_from", lambda: None)  # as installed from the index
    code, out = _pytest(pytester, "-p", "no:syrupy", "-k", "zero")
    assert code == 1
    assert "replay_snapshot needs syrupy: `pip install 'deepseek-harness-replay[pytest]'`" in out
    assert "fixture 'snapshot' not found" not in out


def test_under_ci_snapshot_update_writes_pending_goldens(project: Path, pytester: pytest.Pytester,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    _flip(project, "parallel-plan-two")
    before = _tree(project / "goldens")
    code, out = _pytest(pytester, "--snapshot-update")
    assert code == 1  # the goldens still differ: CI must not pass
    assert _tree(project / "goldens") == before
    manifest = json.loads((project / ".replay" / "pending" / "manifest.json").read_text())
    assert [e["artefact"] for e in manifest["entries"]] == [
        "load.expected.jsonl", "plan.expected.json", "session.expected.jsonl", "stdio.expected.txt",
        "stdout.expected.jsonl", "tool-schemas.expected.json", "web.expected.txt"]
    assert {e["scenario"] for e in manifest["entries"]} == {"parallel-plan-two"}
    assert ("CI is set: --snapshot-update wrote 7 pending goldens to .replay/pending instead of the goldens "
            "(--replay-force-update writes the goldens). Keep that folder as the job's artefact; then, in your "
            "checkout: replay review") in out
    # The pending goldens are what replay accept takes.
    result = CliRunner().invoke(main, ["accept", "--pending", str(project / ".replay" / "pending"), "--scenarios",
                                       str(project / "scenarios"), "--goldens", str(project / "goldens")])
    assert result.exit_code == 0 and result.output.endswith("accepted 7, rejected 0; nothing left pending\n")
    assert _pytest(pytester)[0] == 0


def test_under_ci_force_update_writes_the_goldens(project: Path, pytester: pytest.Pytester,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "1")
    _flip(project, "parallel-plan-two")
    code, out = _pytest(pytester, "--snapshot-update", "--replay-force-update")
    assert code == 0, out
    assert not (project / ".replay").exists()
    assert _pytest(pytester)[0] == 0


@pytest.mark.slow
def test_under_ci_two_workers_write_one_manifest(project: Path, pytester: pytest.Pytester, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The one run on two xdist workers (two processes): under CI their pending goldens
    go to one manifest, and what they wrote is what ``replay refresh`` writes."""
    pytest.importorskip("xdist", reason="pytest-xdist is not installed (pip install -e '.[test]')")
    monkeypatch.setenv("CI", "true")
    _flip(project, "parallel-plan-two")
    _flip(project, "recorded-parallel-plan")
    twin = tmp_path / "twin"
    shutil.copytree(project / "scenarios", twin / "scenarios")
    shutil.copytree(project / "goldens", twin / "goldens")
    before = _tree(project / "goldens")
    code, out = _pytest(pytester, "-n", "2", "--snapshot-update")
    assert code == 1 and _tree(project / "goldens") == before
    manifest = json.loads((project / ".replay" / "pending" / "manifest.json").read_text())
    assert len(manifest["entries"]) == 14
    assert "--snapshot-update wrote 14 pending goldens to .replay/pending" in out
    result = CliRunner().invoke(main, ["accept", "--pending", str(project / ".replay" / "pending"), "--scenarios",
                                       str(project / "scenarios"), "--goldens", str(project / "goldens")])
    assert result.exit_code == 0, result.output
    refresh_scenarios(twin / "scenarios", twin / "goldens")
    assert {k: v[0] for k, v in _tree(project / "goldens").items()} == \
        {k: v[0] for k, v in _tree(twin / "goldens").items()}
