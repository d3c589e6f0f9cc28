"""Right words for wrong places: an output under a file, a pending set on a full disk
(``replay.fs.FAULT``'s ``enospc``), a fork header whose seed is past its log."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from replay.fs import FAULT
from replay.log.reader import Source, iter_events, read_log
from tests.helpers import REPO, TODO_WRITE, corpus_file, dump, records, replay_here


@pytest.mark.parametrize(("argv", "said"), [
    (["view", "LOG", "LOG", "-o", "afile/site"], "replay view: afile/site: afile is a regular file, not a folder; "
                                                 "refused\n"),
    (["view", "LOG", "LOG", "-o", "afile/x/y"], "replay view: afile/x/y: afile is a regular file, not a folder; "
                                                "refused\n"),
    (["view", "LOG", "LOG", "-o", "afile"], "replay view: afile: a regular file, not a folder; refused\n"),
    (["view", "LOG", "-o", "afile/page.html"], "replay: afile/page.html: cannot write: afile is a regular file, "
                                               "not a folder\n"),
    (["render", "acp", "LOG", "-o", "afile/out.jsonl"], "replay: afile/out.jsonl: cannot write: afile is a regular "
                                                        "file, not a folder\n"),
])
def test_an_output_below_a_file_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str],
                                               said: str) -> None:
    """`-o afile/site` where `afile` is a file says so (was "not a folder, not a
    folder; refused", or "Not a directory")."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("mine\n")
    log = str(corpus_file(TODO_WRITE))
    run = replay_here(*[log if a == "LOG" else a for a in argv])
    assert (run.code, run.stderr.decode()) == (1, said)
    assert (tmp_path / "afile").read_text() == "mine\n"


def test_a_pending_set_on_a_full_disk_says_which_file_and_leaves_the_folder_as_it_was(tmp_path: Path) -> None:
    """`check --pending` whose third file meets a full disk: it names that file, lists
    the two it had written and removed, and the pending folder is as it was."""
    root = tmp_path / "repo"
    name = "parallel-plan-two"
    for tree in ("scenarios", "goldens"):
        shutil.copytree(REPO / tree / name, root / tree / name)
    path = root / "scenarios" / name / "scenario.json"
    doc = json.loads(path.read_text())
    todo = doc.setdefault("tools", {}).setdefault("todo_write", {})
    todo["allowParallelInProgress"] = not todo.get("allowParallelInProgress", True)
    path.write_text(json.dumps(doc, indent=2) + "\n")
    done = subprocess.run([sys.executable, "-m", "replay", "check", "--jobs", "1", "--pending"], cwd=root,
                          capture_output=True, text=True, timeout=300, env={**os.environ, FAULT: "enospc@write:3"})
    pending = Path(".replay") / "pending"
    assert (done.returncode, done.stderr) == (1, (
        f"replay check: {pending / name / 'session.expected.jsonl'}: cannot write the pending golden (No space left "
        f"on device); nothing was written to {pending}: the 2 pending goldens this run wrote before it ({name}/"
        f"load.expected.jsonl, {name}/plan.expected.json) were removed, and the folder is as it was\n"))
    assert [str(p.relative_to(root)) for p in sorted(root.joinpath(".replay").rglob("*"))] == [str(pending)]


def test_a_fork_header_whose_seed_is_past_its_log_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A header with seedLength 10**9 imported: refused, naming the seed and the log's
    length (was a scenario of 0 prompts, written, exit 0)."""
    monkeypatch.chdir(tmp_path)
    recs = records(TODO_WRITE)
    recs[0]["seedLength"] = 10**9
    log = tmp_path / "fork.jsonl"
    log.write_bytes(dump(recs))
    run = replay_here("new", "forked", "--from-log", str(log))
    assert run.code == 2
    events = sum(1 for _ in iter_events(read_log(Source(str(log), lambda: log.open("rb"), is_file=True)).items()))
    assert run.stderr.decode().endswith(
        f"Error: {log}: its header's seedLength (1000000000) is more than the log's {events} events: a fork's "
        "seed is events of the log itself, so no event would be its own (fix the header, or import its parent)\n")
    assert not (tmp_path / "scenarios" / "forked").exists()
