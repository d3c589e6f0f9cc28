"""Outputs that cannot be written: exit 1 with the path and the OS error, and no
partial file left behind (real processes, with the file size capped by
``RLIMIT_FSIZE`` to stand for a full disk)."""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from replay.report.audit import AuditJson
from tests.helpers import REPO, TODO_WRITE, corpus_file

_CAP = 256


def _small_disk() -> None:
    """The child may write files of at most ``_CAP`` bytes; a longer write fails (EFBIG)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (_CAP, _CAP))


def _replay(*args: str, cwd: Path = REPO, small_disk: bool = True,
            stdout: int | None = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "replay", *args], cwd=cwd, stdout=stdout, stderr=subprocess.PIPE,
                          text=True, timeout=120, env={**os.environ, "NO_COLOR": "1", "PYTHONDONTWRITEBYTECODE": "1"},
                          preexec_fn=_small_disk if small_disk else None)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


@pytest.fixture
def out_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


@pytest.mark.parametrize("args", [
    ["render", "web", "--html", "-o", "{out}"],
    ["render", "acp", "-o", "{out}"],
    ["audit", "--junit", "{out}"],
])
def test_a_full_disk_is_exit_1_and_leaves_no_file(out_dir: Path, args: list[str]) -> None:
    log = str(corpus_file(TODO_WRITE))
    target = out_dir / "report.out"
    proc = _replay(*[a.replace("{out}", str(target)) for a in args], log)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == f"replay: {target}: cannot write (File too large)"
    assert list(out_dir.iterdir()) == []


def test_a_full_disk_keeps_the_previous_file(out_dir: Path) -> None:
    target = out_dir / "page.html"
    target.write_bytes(b"the previous page")
    proc = _replay("render", "web", "--html", "-o", str(target), str(corpus_file(TODO_WRITE)))
    assert proc.returncode == 1
    assert target.read_bytes() == b"the previous page"
    assert list(out_dir.iterdir()) == [target]


def test_check_junit_on_a_full_disk(tmp_path: Path) -> None:
    for part in ("scenarios", "goldens"):
        shutil.copytree(REPO / part / "recorded-parallel-plan", tmp_path / part / "recorded-parallel-plan")
    target = tmp_path / "junit.xml"
    proc = _replay("check", "--scenarios", str(tmp_path / "scenarios"), "--goldens", str(tmp_path / "goldens"),
                   "--junit", str(target))
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == f"replay: {target}: cannot write (File too large)"
    assert not target.exists()


def test_view_on_a_full_disk_leaves_no_page(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "replay", "view", str(corpus_file(TODO_WRITE))], cwd=REPO,
                          capture_output=True, text=True, timeout=120, preexec_fn=_small_disk,
                          env={**os.environ, "TMPDIR": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"})
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 1
    assert "cannot write (File too large)" in proc.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [["audit", "--format", "json"], ["audit"], ["render", "acp"], ["plan"],
                                     ["view"]])
def test_a_full_standard_output_is_exit_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          command: list[str]) -> None:
    """Whatever the command and the size of what it prints (a report, a page's path),
    a standard output that takes nothing is exit 1 and one line, never a traceback."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # view's page
    with open("/dev/full", "wb") as full:
        proc = _replay(*command, str(corpus_file(TODO_WRITE)), small_disk=False, stdout=full.fileno())
    assert (proc.returncode, proc.stderr) == (1, "replay: standard output: cannot write (No space left on device)\n")


def test_an_output_in_a_missing_folder_is_exit_1(tmp_path: Path) -> None:
    target = tmp_path / "no" / "such" / "page.txt"
    proc = _replay("render", "web", "-o", str(target), str(corpus_file(TODO_WRITE)), small_disk=False)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == f"replay: {target}: cannot write (No such file or directory)"


def test_an_output_to_a_device_is_written_in_place(tmp_path: Path) -> None:
    proc = _replay("render", "acp", "-o", "/dev/null", str(corpus_file(TODO_WRITE)), small_disk=False)
    assert proc.returncode == 0, proc.stderr
    assert Path("/dev/null").is_char_device()


def test_an_output_in_a_folder_that_takes_no_new_file_says_why(tmp_path: Path) -> None:
    """``-o /proc/self/status``: the file exists, but its folder refuses the temporary
    file an atomic write needs; the message says that, not "no such file"."""
    proc = _replay("render", "web", "-o", "/proc/self/status", str(corpus_file(TODO_WRITE)), small_disk=False)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        "replay: /proc/self/status: cannot write: its folder does not take a new file (No such file or directory), "
        "and replay writes one beside the target and renames it into place")


@pytest.mark.parametrize("args", [["audit", "--format", "json"], ["render", "acp"], ["rules"],
                                  ["schema", "scenario"]])
def test_a_reader_that_goes_away_ends_the_command_quietly(args: list[str]) -> None:
    """``replay … | head``: no "cannot write (Broken pipe)", no traceback; the status a
    shell reports for grep in the same place (128 + SIGPIPE). The pipe's reader is
    gone before the command writes anything, so the first write fails, whatever the
    size of the output."""
    log = [str(corpus_file(TODO_WRITE))] if args[0] in ("audit", "render") else []
    argv = [sys.executable, "-m", "replay", *args, *log]
    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run(argv, cwd=REPO, stdout=write, stderr=subprocess.PIPE, timeout=120,
                              env={**os.environ, "NO_COLOR": "1"})
    finally:
        os.close(write)
    assert (proc.returncode, proc.stderr.decode()) == (128 + signal.SIGPIPE, "")


def test_a_json_audit_that_fails_at_its_end_writes_no_half_report(tmp_path: Path) -> None:
    """The JSON report is made as the logs are audited but written only once whole: a
    baseline that cannot be written (after every log was audited) leaves standard output
    empty, for a report of the whole corpus (far more than the entries held in memory)."""
    corpus = corpus_file("acp-2026-07-23").parent
    blocker = tmp_path / "afile"
    blocker.write_text("")
    proc = _replay("audit", "--format", "json", "--no-cache", "--write-baseline", str(blocker / "base.json"),
                   str(corpus), small_disk=False)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == f"replay: {blocker / 'base.json'}: cannot write: {blocker} is a regular file, not a folder\n"
    whole = _replay("audit", "--format", "json", "--no-cache", str(corpus), small_disk=False)
    assert len(whole.stdout) > 4 * AuditJson.HELD  # the report that would have been cut
