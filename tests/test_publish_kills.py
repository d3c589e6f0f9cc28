"""Publishing against every signal: a site (``replay view -o``), a pending set
(``check --pending``), an accept and an import are whole and old or whole and new
after SIGINT, SIGTERM or SIGKILL at any step of their publication. The signal is sent
by the process itself at a named step (``replay.fs.FAULT``: ``kill@commit:N`` once the
journal is written and ``N`` steps are done, ``kill@write:N`` at the ``N``-th file
write), every step in turn, until a run gets past the last; after a kill, the tree is
read as the next run reads it (``replay.fs.recover`` first)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from replay.fs import FAULT, JOURNAL_PREFIX, Tree, recover
from tests.helpers import TODO_WRITE, dump, records

KILLED = -9


def _replay(*args: str, fault: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != FAULT}
    if fault is not None:
        env[FAULT] = fault
    return subprocess.run([sys.executable, "-m", "replay", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=300)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file below ``root`` (hidden leftovers of a run excluded) by its path."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.relative_to(root).parts[0].startswith(".replay-site-")
            and not p.name.startswith((JOURNAL_PREFIX, ".replay-aside-"))}


def _log(root: Path, name: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(dump(records(TODO_WRITE)))


def _every_step(run: Callable[[str], subprocess.CompletedProcess[str]], prefix: str,
                check: Callable[[str, subprocess.CompletedProcess[str]], None]) -> int:
    """``run`` with the fault at ``prefix:0``, ``prefix:1`` … until a run gets past
    the last step (it then exits 0, as without a fault); ``check`` after each run."""
    for step in range(200):
        done = run(f"{prefix}:{step}")
        check(f"{prefix}:{step}", done)
        if done.returncode == 0:
            return step
    raise AssertionError("no run got past the last step")


@pytest.mark.slow
@pytest.mark.parametrize("action", ["kill", "term", "int"])
def test_a_site_rebuilt_over_an_old_one_is_whole_after_a_signal_at_each_step(tmp_path: Path, action: str) -> None:
    """A site of two folders of logs rebuilt as one of three, with SIGKILL (SIGTERM,
    SIGINT) at the journal's write and after each rename of the publication: the
    folder is the old site or the new one, whole (never no ``rules/``, an index
    linking to missing pages, no index or no marker), and the next run is not refused."""
    logs = tmp_path / "logs"
    for name in ("a/session.jsonl", "b/session.jsonl"):
        _log(logs, name)
    site, fresh = tmp_path / "site", tmp_path / "fresh"
    assert _replay("view", str(logs), "-o", str(site), "--jobs", "1").returncode == 0
    old = snapshot(site)
    _log(logs, "c/session.jsonl")
    assert _replay("view", str(logs), "-o", str(fresh), "--jobs", "1").returncode == 0
    new = snapshot(fresh)
    assert old != new

    kept = tmp_path / "old"
    shutil.copytree(site, kept)

    def run(fault: str) -> subprocess.CompletedProcess[str]:
        shutil.rmtree(site)  # each run starts from the old site
        shutil.copytree(kept, site)
        return _replay("view", str(logs), "-o", str(site), "--jobs", "1", fault=fault)

    def check(fault: str, done: subprocess.CompletedProcess[str]) -> None:
        if action == "kill":
            assert done.returncode in (KILLED, 0), (fault, done.stderr)
            recover(Tree.named(site))  # what the next run does first
        else:
            signum = 15 if action == "term" else 2
            assert (done.returncode, done.stderr) in ((0, ""), (128 + signum, f"replay view: "
                    f"{'terminated' if action == 'term' else 'interrupted'}\n")), (fault, done.stderr)
        now = snapshot(site)
        assert now in (old, new), (fault, sorted(set(now) ^ set(old)), sorted(set(now) ^ set(new)))
        assert not [p.name for p in site.iterdir() if p.name.startswith(JOURNAL_PREFIX)]

    last = _every_step(lambda fault: run(f"{action}@{fault}"), "commit", check)
    assert last == 7  # the journal, then four names, the staging folder and what they replaced (steps 1 to 6)
    assert _replay("view", str(logs), "-o", str(site), "--jobs", "1").returncode == 0  # never refused afterwards


@pytest.mark.slow
def test_a_site_killed_while_it_is_staged_is_the_old_one_and_the_next_run_cleans_up(tmp_path: Path) -> None:
    """Killed at its first, fifth or tenth page written, or just before its journal:
    the old site, whole; the staging folder a dead run left is removed by the next run."""
    logs = tmp_path / "logs"
    _log(logs, "a/session.jsonl")
    site = tmp_path / "site"
    assert _replay("view", str(logs), "-o", str(site), "--jobs", "1").returncode == 0
    old = snapshot(site)
    _log(logs, "b/session.jsonl")
    for fault in ("kill@write:1", "kill@write:5", "kill@write:10", "kill@commit:journal"):
        done = _replay("view", str(logs), "-o", str(site), "--jobs", "1", fault=fault)
        assert done.returncode == KILLED
        assert snapshot(site) == old
    assert any(p.name.startswith(".replay-site-build-") for p in site.iterdir())
    assert _replay("view", str(logs), "-o", str(site), "--jobs", "1").returncode == 0
    assert sorted(p.name for p in site.iterdir()) == [".replay-site", "index.html", "rules", "sessions"]
