"""Publishing against every signal: a site (``replay view -o``), a pending set
(``check --pending``), an accept and an import are whole and old or whole and new
after SIGINT, SIGTERM or SIGKILL at any step of their publication. The signal is sent
by the process itself at a named step (``replay.fs.FAULT``: ``kill@commit:N`` once the
journal is written and ``N`` steps are done, ``kill@write:N`` at the ``N``-th file
write), every step in turn, until a run gets past the last; after a kill, the tree is
read as the next run reads it (``replay.fs.recover`` first)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from replay.fs import FAULT, JOURNAL_PREFIX, Tree, recover
from tests.helpers import REPO, TODO_WRITE, corpus_file, dump, records

KILLED = -9
LEFT = (".replay-site-", ".replay-pending-", ".replay-aside-", JOURNAL_PREFIX)
"""What a run stages or leaves in a tree's root (never a reader's)."""


def _replay(*args: str, fault: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != FAULT}
    if fault is not None:
        env[FAULT] = fault
    return subprocess.run([sys.executable, "-m", "replay", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=300)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file below ``root`` (hidden leftovers of a run excluded) by its path."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.relative_to(root).parts[0].startswith(LEFT)}


def leftovers(root: Path) -> list[str]:
    """What runs left in ``root``: journals, staging and aside folders."""
    return sorted(p.name for p in root.iterdir() if p.name.startswith(LEFT))


def _log(root: Path, name: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(dump(records(TODO_WRITE)))


def _every_step(run: Callable[[str], subprocess.CompletedProcess[str]], prefix: str,
                check: Callable[[str, subprocess.CompletedProcess[str]], None], done_code: int = 0) -> int:
    """``run`` with the fault at ``prefix:0`` (``write`` counts from 1), ``prefix:1`` …
    until a run gets past the last step (it then exits ``done_code``, as without a
    fault); ``check`` after each run. The last step that stopped the run."""
    for step in range(1 if prefix == "write" else 0, 200):
        done = run(f"{prefix}:{step}")
        check(f"{prefix}:{step}", done)
        if done.returncode == done_code:
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
    assert leftovers(site) == []


@pytest.mark.slow
@pytest.mark.parametrize("action", ["kill", "term"])
def test_a_site_stopped_at_each_page_it_stages_is_the_old_one_and_the_next_run_publishes(tmp_path: Path,
                                                                                      action: str) -> None:
    """SIGKILL (SIGTERM) at every file write of a site's staging, each page created at
    its own name in the staging folder (no temporary file, no rename): the folder is
    the old site, whole, every time; a killed run's staging is removed by the next run,
    a terminated run's by itself; the last run publishes the new site, exactly as a
    run in a new folder writes it."""
    logs = tmp_path / "logs"
    _log(logs, "a/session.jsonl")
    site, fresh = tmp_path / "site", tmp_path / "fresh"
    assert _replay("view", str(logs), "-o", str(site), "--jobs", "1").returncode == 0
    old = snapshot(site)
    _log(logs, "b/session.jsonl")
    assert _replay("view", str(logs), "-o", str(fresh), "--jobs", "1").returncode == 0
    new = snapshot(fresh)

    def run(fault: str) -> subprocess.CompletedProcess[str]:
        return _replay("view", str(logs), "-o", str(site), "--jobs", "1", fault=f"{action}@{fault}")

    seen: list[str] = []  # which site each stopped run left: the old or the new

    def check(fault: str, done: subprocess.CompletedProcess[str]) -> None:
        if done.returncode == 0:
            return
        if action == "kill":
            assert done.returncode == KILLED, (fault, done.stderr)
            recover(Tree.named(site))  # what the next run does first
        else:
            assert (done.returncode, done.stderr) == (143, "replay view: terminated\n"), (fault, done.stderr)
            assert leftovers(site) == [], fault  # a terminated run removes its own staging
        now = snapshot(site)
        assert now in (old, new), fault
        seen.append("old" if now == old else "new")

    last = _every_step(run, "write", check)
    assert last > len(new)  # every page, the index and the marker were a step, then the commit's journal
    # Stopped at any write of the staging, the old site; at the journal's (the last write), SIGKILL
    # comes before it is written (the old site), and SIGTERM waits for the publication's end (the new).
    assert seen == ["old"] * (len(seen) - 1) + ["old" if action == "kill" else "new"], seen
    assert snapshot(site) == new
    assert leftovers(site) == []


TWO = ("parallel-plan-two", "multi-turn")
"""The scenarios of the small repo the pending tests run in."""


def _small_repo(tmp_path: Path) -> Path:
    """Two of the repo's scenarios and their goldens: a check of them takes a second."""
    root = tmp_path / "repo"
    for name in TWO:
        shutil.copytree(REPO / "scenarios" / name, root / "scenarios" / name)
        shutil.copytree(REPO / "goldens" / name, root / "goldens" / name)
    return root


def _flip(root: Path, scenario: str) -> None:
    path = root / "scenarios" / scenario / "scenario.json"
    doc = json.loads(path.read_text())
    todo = doc.setdefault("tools", {}).setdefault("todo_write", {})
    todo["allowParallelInProgress"] = not todo.get("allowParallelInProgress", True)
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def _true_manifest(pending: Path) -> None:
    """Every entry of the manifest names a file there that hashes to it."""
    manifest = pending / "manifest.json"
    if not manifest.exists():
        return
    for entry in json.loads(manifest.read_text())["entries"]:
        data = (pending / entry["scenario"] / entry["artefact"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["pending_sha256"], entry


@pytest.mark.slow
def test_a_pending_set_is_whole_after_a_kill_at_each_step(tmp_path: Path) -> None:
    """`check --pending` over an older pending set, killed at each file it writes and
    at each step of its commit: the pending folder (manifest and files) is the old set
    or the new one, whole, and its manifest is true; the next check is not refused."""
    root = _small_repo(tmp_path)
    pending = root / ".replay" / "pending"
    _flip(root, TWO[0])
    assert _replay("check", "--jobs", "1", "--pending", cwd=root).returncode == 1
    old = snapshot(pending)
    kept = tmp_path / "old-pending"
    shutil.copytree(pending, kept)
    _flip(root, TWO[1])
    assert _replay("check", "--jobs", "1", "--pending", str(tmp_path / "fresh"), cwd=root).returncode == 1
    new = snapshot(tmp_path / "fresh")
    assert len(new) > len(old) > 1

    def run(fault: str) -> subprocess.CompletedProcess[str]:
        shutil.rmtree(pending)
        shutil.copytree(kept, pending)
        return _replay("check", "--jobs", "1", "--pending", cwd=root, fault=fault)

    def check(fault: str, done: subprocess.CompletedProcess[str]) -> None:
        assert done.returncode in (KILLED, 1), (fault, done.stderr)
        pending_tree = Tree.named(pending)
        recover(pending_tree)  # what the next command that takes the folder's lock does first
        assert snapshot(pending) in (old, new), fault
        _true_manifest(pending)

    for prefix in ("write", "commit"):
        last = _every_step(lambda fault: run(f"kill@{fault}"), prefix, check, done_code=1)
        assert last >= (len(new) - len(old) if prefix == "write" else 3), prefix
    for signal_name, status in (("term", 143), ("int", 130)):  # held until the commit is done: the new set
        done = run(f"{signal_name}@commit:2")
        assert done.returncode == status and snapshot(pending) == new and leftovers(pending) == [], done.stderr
    assert _replay("check", "--jobs", "1", "--pending", cwd=root).returncode == 1
    assert snapshot(pending) == new
    assert leftovers(pending) == []  # what the dead runs staged is gone


@pytest.mark.slow
def test_an_accept_killed_at_any_step_is_finished_by_the_next_and_never_blames_the_files(tmp_path: Path) -> None:
    """`replay accept` killed while it writes the goldens and at each step of its commit:
    the manifest is true afterwards (it never lists a file that is gone), and the next
    accept accepts every golden without saying a pending file "changed after it was
    written": the goldens are then those the pending set held."""
    root = _small_repo(tmp_path)
    _flip(root, TWO[0])
    pending = root / ".replay" / "pending"
    assert _replay("check", "--jobs", "1", "--pending", cwd=root).returncode == 1
    kept_pending, kept_goldens = tmp_path / "old-pending", tmp_path / "old-goldens"
    shutil.copytree(pending, kept_pending)
    shutil.copytree(root / "goldens", kept_goldens)
    wanted = {f"{TWO[0]}/{name}": data for name, data in snapshot(pending / TWO[0]).items()}

    def run(fault: str) -> subprocess.CompletedProcess[str]:
        for folder, kept in ((pending, kept_pending), (root / "goldens", kept_goldens)):
            shutil.rmtree(folder)
            shutil.copytree(kept, folder)
        return _replay("accept", cwd=root, fault=fault)

    def check(fault: str, done: subprocess.CompletedProcess[str]) -> None:
        assert done.returncode in (KILLED, 0), (fault, done.stderr)
        _true_manifest(pending)
        again = _replay("accept", cwd=root)
        assert again.returncode == 0 and "changed after it was written" not in again.stdout + again.stderr, fault
        goldens = snapshot(root / "goldens")
        assert {k: goldens[k] for k in wanted} == wanted, fault
        assert not (pending / "manifest.json").exists()

    for fault in ("write:1", "write:4"):  # killed while it writes the goldens (the pending folder untouched)
        done = run(f"kill@{fault}")
        assert done.returncode == KILLED
        check(fault, done)
    _every_step(lambda fault: run(f"kill@{fault}"), "commit", check)


@pytest.mark.slow
def test_an_import_killed_before_it_publishes_leaves_no_scenario_and_blocks_nothing(tmp_path: Path) -> None:
    """`replay new --from-log` killed at each file it stages (and just before its one
    rename): no scenario of that name, `check` and `refresh` still run (the leftover
    is no scenario), and the next import removes what the dead one staged."""
    root = _small_repo(tmp_path)
    log = str(corpus_file(TODO_WRITE))
    for write in (1, 2, 3):
        done = _replay("new", "imported", "--from-log", log, cwd=root, fault=f"kill@write:{write}")
        if done.returncode != KILLED:
            break
        assert not (root / "scenarios" / "imported").exists()
        assert [p.name for p in (root / "scenarios").iterdir() if p.name.startswith(".new-")]
        checked = _replay("check", "--jobs", "1", cwd=root)
        assert checked.returncode == 0 and "rename the folder" not in checked.stdout, checked.stdout
        assert _replay("refresh", "--jobs", "1", "--dry-run", cwd=root).returncode == 0
    assert _replay("new", "imported", "--from-log", log, cwd=root).returncode == 0
    assert sorted(p.name for p in (root / "scenarios").iterdir()) == sorted([*TWO, "imported", "scenario.schema.json"])


def test_an_older_importers_leftover_is_named_and_never_a_scenario(tmp_path: Path) -> None:
    """A staging folder named as replay named it before (no process id), holding a
    whole scenario.json: `check` runs without it, and `replay new` says what it is."""
    root = _small_repo(tmp_path)
    leftover = root / "scenarios" / ".new-imported-0123456789ab"
    shutil.copytree(root / "scenarios" / TWO[0], leftover)
    checked = _replay("check", "--jobs", "1", cwd=root)
    assert checked.returncode == 0, checked.stdout
    made = _replay("new", "another", cwd=root)
    assert made.returncode == 0
    assert (f"{Path('scenarios') / leftover.name} is what an interrupted `replay new` left (it is never read as a "
            "scenario): delete it") in made.stdout
