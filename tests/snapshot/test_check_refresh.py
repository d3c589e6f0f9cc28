"""replay check / refresh on a copy of the repo's scenarios and goldens."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from replay.cli import main
from replay.fs import NO_FSYNC
from replay.goldens.lines import change_lines
from replay.goldens.store import GoldenStore, StoreLocked
from replay.scenarios.check import check_scenarios, refresh_scenarios
from tests.helpers import GOLDEN_COUNT, REPO, SCENARIO_COUNT


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A private copy of the repo's scenarios and goldens."""
    shutil.copytree(REPO / "scenarios", tmp_path / "scenarios")
    shutil.copytree(REPO / "goldens", tmp_path / "goldens", ignore=shutil.ignore_patterns(".refresh.lock"))
    return tmp_path


def _snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file() and p.name != ".refresh.lock"}


def _run(tree: Path, *args: str) -> tuple[int, str]:
    """``replay ARGS`` on the tree, in this process (on one process: ``--jobs 1``)."""
    jobs = ["--jobs", "1"] if args[0] in ("check", "refresh") else []
    result = CliRunner().invoke(main, [*args, *jobs, "--scenarios", str(tree / "scenarios"),
                                       "--goldens", str(tree / "goldens")])
    return result.exit_code, result.output


def test_the_repo_check_passes_and_writes_nothing(tree: Path) -> None:
    before = _snapshot(tree)
    code, out = _run(tree, "check")
    assert code == 0, out
    assert out.endswith(f"all {SCENARIO_COUNT} scenarios match their goldens\n")
    assert _snapshot(tree) == before


def test_refresh_right_after_changes_nothing(tree: Path) -> None:
    before = _snapshot(tree / "goldens")
    for _ in range(2):
        code, out = _run(tree, "refresh")
        assert code == 0
        assert out.splitlines()[-1].startswith("created 0, updated 0, unchanged ")
    assert _snapshot(tree / "goldens") == before  # bytes and mtimes


def _flip(tree: Path, scenario: str, parallel: bool) -> None:
    path = tree / "scenarios" / scenario / "scenario.json"
    doc = json.loads(path.read_text())
    doc["tools"]["todo_write"]["allowParallelInProgress"] = parallel
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def test_a_policy_flip_moves_every_golden_the_policy_shows_in(tree: Path) -> None:
    """What the diff of each golden says after a policy flip (the workflow around it,
    check, pending goldens, accept, refresh, is ``test_workflow.py``'s)."""
    _flip(tree, "recorded-parallel-plan", parallel=False)
    results = {r.name: r for r in check_scenarios(tree / "scenarios", tree / "goldens").scenarios}
    flipped = results.pop("recorded-parallel-plan")
    assert all(not r.failed for r in results.values())
    by_file = {f.name: f for f in flipped.files if f.failed}
    assert sorted(by_file) == ["load.expected.jsonl", "plan.expected.json", "session.expected.jsonl",
                               "stdio.expected.txt", "stdout.expected.jsonl", "tool-schemas.expected.json",
                               "web.expected.txt"]
    stdout_changes = "\n".join(change_lines(by_file["stdout.expected.jsonl"].changes))
    assert "event 7 removed plan: {\"entries\":[{\"content\":\"read the code\"" in stdout_changes
    assert "tool_call_update.status: \"completed\" → \"failed\"" in stdout_changes
    assert "+row=todo_write" not in change_lines(by_file["web.expected.txt"].changes)
    assert "-suffix=+1" in change_lines(by_file["web.expected.txt"].changes)
    assert any(c.text.startswith("initial[0].description:") and "Keep AT MOST ONE todo" in c.text
               for c in by_file["tool-schemas.expected.json"].changes)
    assert "final: " in "\n".join(change_lines(by_file["plan.expected.json"].changes))
    session_changes = "\n".join(change_lines(by_file["session.expected.jsonl"].changes))
    assert "event 16 removed todo/write: {\"time\":0,\"data\":{\"todos\":" in session_changes
    assert "isError: false → true" in session_changes
    code, out = _run(tree, "check", "recorded-parallel-plan")
    assert code == 1
    assert f"{tree / 'goldens'}/recorded-parallel-plan/tool-schemas.expected.json: differs" in out


def test_a_partial_refresh_touches_no_other_scenario(tree: Path) -> None:
    _flip(tree, "recorded-parallel-plan", parallel=False)
    _flip(tree, "parallel-plan-two", parallel=False)
    others = {k: v for k, v in _snapshot(tree / "goldens").items() if not k.startswith("recorded-parallel-plan")}
    assert _run(tree, "refresh", "recorded-parallel-plan")[0] == 0
    after = _snapshot(tree / "goldens")
    assert {k: v for k, v in after.items() if not k.startswith("recorded-parallel-plan")} == others
    # parallel-plan-two's config changed too, but it was not refreshed: check still names it.
    report = check_scenarios(tree / "scenarios", tree / "goldens")
    assert [r.name for r in report.scenarios if r.failed] == ["parallel-plan-two"] and report.failed


def test_missing_and_orphaned_goldens_fail_and_prune_removes_orphans(tree: Path) -> None:
    (tree / "goldens" / "zero-todos" / "plan.expected.json").unlink()
    (tree / "goldens" / "zero-todos" / "stale.expected.txt").write_text("old\n")
    (tree / "goldens" / "deleted-scenario").mkdir()
    (tree / "goldens" / "deleted-scenario" / "plan.expected.json").write_text("{}\n")
    failed = {(f.scenario, f.name, f.status) for r in check_scenarios(tree / "scenarios", tree / "goldens").scenarios
              for f in r.files if f.failed}
    assert failed == {("zero-todos", "plan.expected.json", "missing"),
                      ("zero-todos", "stale.expected.txt", "orphan"),
                      ("deleted-scenario", "plan.expected.json", "orphan")}
    result = refresh_scenarios(tree / "scenarios", tree / "goldens")
    assert result.counts()["created"] == 1 and result.counts()["orphan"] == 2
    assert (tree / "goldens" / "zero-todos" / "stale.expected.txt").exists()
    result = refresh_scenarios(tree / "scenarios", tree / "goldens", prune=True)
    assert result.counts()["deleted"] == 2
    assert not (tree / "goldens" / "deleted-scenario").exists()
    assert not any(r.failed for r in check_scenarios(tree / "scenarios", tree / "goldens").scenarios)


def test_unknown_scenario_is_a_usage_error(tree: Path) -> None:
    code, out = _run(tree, "check", "no-such-scenario")
    assert code == 2 and "no scenario named no-such-scenario" in out


def test_refresh_refuses_to_run_concurrently(tree: Path) -> None:
    store = GoldenStore(tree / "goldens")
    with store.lock():
        with pytest.raises(StoreLocked):
            refresh_scenarios(tree / "scenarios", tree / "goldens")
        code, out = _run(tree, "refresh")
        assert code == 1 and "another `replay refresh` is running" in out


def test_reports_json_github_and_junit(tree: Path) -> None:
    _flip(tree, "recorded-parallel-plan", parallel=False)
    code, out = _run(tree, "check", "recorded-parallel-plan", "--format", "json")
    doc = json.loads(out)
    assert code == 1 and doc["summary"] == {"scenarios": 1, "failed": 1, "files": 7, "failed_files": 7}
    code, out = _run(tree, "check", "recorded-parallel-plan", "--format", "github")
    assert code == 1 and out.count("::error file=") == 7
    junit = tree / "report.xml"
    _run(tree, "check", "--junit", str(junit))
    text = junit.read_text()
    assert text.startswith('<?xml version="1.0" encoding="utf-8"?>\n'
                           f'<testsuites name="replay check" tests="{GOLDEN_COUNT}" failures="7" errors="0" time="')
    assert text.count("<failure ") == 7 and 'name="recorded-parallel-plan"' in text


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("replay tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    yield


@pytest.mark.slow
def test_refresh_is_keyless(tree: Path, no_network: None) -> None:
    committed = {k: v[0] for k, v in _snapshot(REPO / "goldens").items()}
    shutil.rmtree(tree / "goldens")
    result = refresh_scenarios(tree / "scenarios", tree / "goldens")
    assert result.counts() == {"created": GOLDEN_COUNT} and not result.failed
    assert {k: v[0] for k, v in _snapshot(tree / "goldens").items()} == committed
    # And as a process with the environment scrubbed (no keys, no proxies, no HOME).
    shutil.rmtree(tree / "goldens")
    proc = subprocess.run([sys.executable, "-m", "replay", "refresh", "--scenarios", str(tree / "scenarios"),
                           "--goldens", str(tree / "goldens")], env={"PATH": os.environ.get("PATH", "")},
                          capture_output=True, cwd=REPO, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert {k: v[0] for k, v in _snapshot(tree / "goldens").items()} == committed


def _refresh_killed_at_a_rename(tree: Path, nth: int, after: bool) -> None:
    """A refresh in a child process that SIGKILLs itself at its ``nth`` rename of a
    written file into place: just before it (the new bytes complete beside the golden)
    or just after it. No handler, no ``finally`` runs: what a kill -9 or the OOM
    killer leaves."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            real, renames = os.replace, 0

            def replace(*args: Any, **kwargs: Any) -> None:
                nonlocal renames
                renames += 1
                if renames == nth and not after:
                    os.kill(os.getpid(), signal.SIGKILL)
                real(*args, **kwargs)
                if renames == nth and after:
                    os.kill(os.getpid(), signal.SIGKILL)

            os.replace = replace  # type: ignore[assignment]
            refresh_scenarios(tree / "scenarios", tree / "goldens")
        finally:
            os._exit(3)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, f"not killed at rename {nth}"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="kills a forked refresh")
def test_sigkill_never_leaves_a_half_written_golden(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Killed at the first golden's rename, just after a middle one's, and at the last:
    every golden is its old bytes or its new ones, never a part; the next refresh
    cleans up what the dead process left and finds nothing more to do."""
    monkeypatch.delenv(NO_FSYNC, raising=False)  # durability: the writes as users get them
    goldens = tree / "goldens"
    expected = {k: v[0] for k, v in _snapshot(goldens).items()}
    stale = {k: v + b"\nstale" for k, v in expected.items()}
    for nth, after in ((1, False), (len(expected) // 2, True), (len(expected), False)):
        for name, data in stale.items():  # every golden stale: the refresh rewrites them all
            (goldens / name).write_bytes(data)
        _refresh_killed_at_a_rename(tree, nth, after)
        now = {k: v[0] for k, v in _snapshot(goldens).items() if not k.split("/")[-1].startswith(".tmp-")}
        assert set(now) == set(expected)
        assert all(data in (expected[name], stale[name]) for name, data in now.items())
        written = sum(now[name] == expected[name] for name in now)
        assert written == (nth if after else nth - 1)  # one golden at a time, each whole
    assert refresh_scenarios(tree / "scenarios", goldens).counts()["created"] == 0
    assert not list(goldens.glob("*/.tmp-*"))
    assert _snapshot(goldens).keys() == expected.keys()
    assert not any(r.failed for r in check_scenarios(tree / "scenarios", goldens).scenarios)


def test_goldens_do_not_depend_on_scenario_order(tree: Path, tmp_path: Path) -> None:
    names = sorted(p.parent.name for p in (tree / "scenarios").glob("*/scenario.json"))
    fresh = tmp_path / "reversed"
    refresh_scenarios(tree / "scenarios", fresh, list(reversed(names)))
    assert {k: v[0] for k, v in _snapshot(fresh).items()} == {k: v[0] for k, v in _snapshot(tree / "goldens").items()}
