"""Golden and scenario trees are not trusted: no command follows a symbolic link out
of them, writes or deletes through one, or hangs on a FIFO; the refresh lock copes
with a lock path that is a folder, a link or unwritable; temp-file cleanup removes
only what this process or a dead one left; the pytest plugin takes the lock too.

Every test runs the command and checks the exact message, the exit status, and that
nothing outside the tree changed: in this process, but where a real process is the
point (a FIFO that could hang the reader, a child without root's file powers)."""

from __future__ import annotations

import ctypes
import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO, replay_here

SCENARIO = "recorded-parallel-plan"


def _replay(*args: str, real: bool = False, unprivileged: bool = False) -> subprocess.CompletedProcess[str]:
    """``replay ARGS``: in this process, or (``real``) in a child process, given up on
    after a generous time (a FIFO read would block it forever)."""
    if not (real or unprivileged):
        run = replay_here(*args, env={"NO_COLOR": "1"})
        assert run.traceback is None, run.traceback
        return subprocess.CompletedProcess(args, run.code, run.stdout.decode(), run.stderr.decode())
    proc = subprocess.run([sys.executable, "-m", "replay", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "NO_COLOR": "1", "PYTHONDONTWRITEBYTECODE": "1"},
                          preexec_fn=_drop_root_file_powers if unprivileged and os.geteuid() == 0 else None)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    return proc


# capability numbers from linux/capability.h: CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER
_FILE_POWERS = (0, 1, 2, 3)
_PR_CAPBSET_DROP = 24


def _drop_root_file_powers() -> None:
    """In the child, before exec: root keeps its uid (so it can still run the
    interpreter wherever the checkout lives) but loses the capabilities that let it
    write through permission bits; exec then grants only the bounding set."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in _FILE_POWERS:
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) refused")


def _can_drop_root_file_powers(folder: Path) -> bool:
    """Whether a child of this process is refused writing into a read-only ``folder``."""
    probe = folder / "probe"
    probe.mkdir(mode=0o555)
    try:
        subprocess.run([sys.executable, "-c", f"open({str(probe / 'x')!r}, 'w')"], capture_output=True,
                       preexec_fn=_drop_root_file_powers if os.geteuid() == 0 else None, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        written = (probe / "x").exists()
        probe.chmod(0o755)
        shutil.rmtree(probe)
    return not written


def _snapshot(root: Path) -> dict[str, bytes | str]:
    """Every entry below ``root``: a file's bytes, a link's target, a folder's marker."""
    out: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.is_symlink():
            out[rel] = "-> " + os.readlink(path)
        elif path.is_dir():
            out[rel] = "dir"
        else:
            out[rel] = path.read_bytes()
    return out


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``repo/`` (one scenario, its goldens) and ``outside/`` (a folder of precious files)."""
    repo = tmp_path / "repo"
    shutil.copytree(REPO / "scenarios" / SCENARIO, repo / "scenarios" / SCENARIO)
    shutil.copytree(REPO / "goldens" / SCENARIO, repo / "goldens" / SCENARIO)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text("precious notes\n")
    (outside / "web.expected.txt").write_text("SECRET-TOKEN-42\n")
    (outside / ".tmp-1-abc").write_text("a temp-named precious file\n")
    return tmp_path


def _tree_args(tree: Path) -> list[str]:
    return ["--scenarios", str(tree / "repo" / "scenarios"), "--goldens", str(tree / "repo" / "goldens")]


def test_refresh_prune_never_deletes_through_a_linked_golden_folder(tree: Path) -> None:
    link = tree / "repo" / "goldens" / "gone-scenario"
    link.symlink_to(tree / "outside", target_is_directory=True)
    before = _snapshot(tree / "outside")
    proc = _replay("refresh", "--prune", *_tree_args(tree))
    assert _snapshot(tree / "outside") == before
    assert proc.returncode == 1
    assert f"✗ gone-scenario: {link}: a symbolic link; refused (replay never follows or writes through a link " \
           "in a tree it does not trust: replace it with a folder, or remove it)" in proc.stdout
    assert link.is_symlink()


def test_check_does_not_list_files_behind_a_linked_golden_folder(tree: Path) -> None:
    (tree / "repo" / "goldens" / "gone-scenario").symlink_to(tree / "outside", target_is_directory=True)
    proc = _replay("check", *_tree_args(tree))
    assert proc.returncode == 1
    assert "notes.txt" not in proc.stdout and "SECRET" not in proc.stdout
    assert "gone-scenario" in proc.stdout and "a symbolic link; refused" in proc.stdout


def test_a_golden_file_that_links_out_is_refused_not_read(tree: Path) -> None:
    golden = tree / "repo" / "goldens" / SCENARIO / "web.expected.txt"
    golden.unlink()
    golden.symlink_to(tree / "outside" / "web.expected.txt")
    for command in ("check", "refresh"):
        proc = _replay(command, *_tree_args(tree))
        assert proc.returncode == 1, command
        assert "SECRET" not in proc.stdout + proc.stderr, command
        assert f"{golden}: a symbolic link; refused" in proc.stdout, command
    assert (tree / "outside" / "web.expected.txt").read_text() == "SECRET-TOKEN-42\n"
    assert golden.is_symlink()


def test_a_linked_scenario_folder_is_refused(tree: Path) -> None:
    scenarios = tree / "repo" / "scenarios"
    shutil.move(scenarios / SCENARIO, tree / "outside" / SCENARIO)
    (scenarios / SCENARIO).symlink_to(tree / "outside" / SCENARIO, target_is_directory=True)
    shutil.rmtree(tree / "repo" / "goldens" / SCENARIO)
    before = _snapshot(tree / "outside")
    proc = _replay("refresh", SCENARIO, *_tree_args(tree))
    assert proc.returncode == 1
    assert f"{scenarios / SCENARIO}: a symbolic link; refused (replay never follows or writes through a link in a " \
           "tree it does not trust: replace it with a folder, or remove it)" in proc.stdout
    assert _snapshot(tree / "outside") == before
    assert not (tree / "repo" / "goldens" / SCENARIO).exists()


def test_a_scenario_file_that_links_out_is_refused(tree: Path) -> None:
    spec = tree / "repo" / "scenarios" / SCENARIO / "scenario.json"
    shutil.move(spec, tree / "outside" / "scenario.json")
    spec.symlink_to(tree / "outside" / "scenario.json")
    proc = _replay("check", *_tree_args(tree))
    assert proc.returncode == 1
    assert f"{spec}: a symbolic link; refused (replay never follows or writes through a link in a tree it does not " \
           "trust: replace it with the file, or remove it)" in proc.stdout


def test_a_fifo_in_the_trees_does_not_hang(tree: Path) -> None:
    golden = tree / "repo" / "goldens" / SCENARIO / "web.expected.txt"
    golden.unlink()
    os.mkfifo(golden)
    proc = _replay("check", *_tree_args(tree), real=True)
    assert proc.returncode == 1
    assert f"{golden}: cannot read the golden: a FIFO (named pipe), not a regular file; refused" in proc.stdout
    spec = tree / "repo" / "scenarios" / SCENARIO / "scenario.json"
    spec.unlink()
    os.mkfifo(spec)
    proc = _replay("check", *_tree_args(tree), real=True)
    assert proc.returncode == 1
    assert f"{spec}: cannot read the scenario: a FIFO (named pipe), not a regular file; refused" in proc.stdout


# -- the lock -----------------------------------------------------------------------


def test_a_lock_path_that_is_a_folder(tree: Path) -> None:
    lock = tree / "repo" / "goldens" / ".refresh.lock"
    lock.mkdir()
    proc = _replay("refresh", *_tree_args(tree))
    assert proc.returncode == 1
    assert proc.stderr.strip() == (f"replay refresh: {lock}: a folder, not the lock file; remove it (replay refresh "
                                   "creates it)")


def test_a_lock_path_that_is_a_link_creates_nothing_outside(tree: Path) -> None:
    lock = tree / "repo" / "goldens" / ".refresh.lock"
    lock.symlink_to(tree / "outside" / "created-by-the-lock")
    proc = _replay("refresh", *_tree_args(tree))
    assert proc.returncode == 1
    assert proc.stderr.strip() == (f"replay refresh: {lock}: a symbolic link; refused (replay never takes its lock "
                                   "through a link: remove it)")
    assert not (tree / "outside" / "created-by-the-lock").exists()


def test_an_unwritable_golden_tree_is_a_clear_error(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPO / "scenarios" / SCENARIO, repo / "scenarios" / SCENARIO)
    shutil.copytree(REPO / "goldens" / SCENARIO, repo / "goldens" / SCENARIO)
    for path in [repo, *repo.rglob("*")]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    if not _can_drop_root_file_powers(tmp_path):
        pytest.skip("running as root in a container that refuses prctl(PR_CAPBSET_DROP): root writes through "
                    "any permission bits here, so an unwritable tree cannot be made")
    proc = _replay("refresh", *_tree_args(tmp_path), unprivileged=True)
    assert proc.returncode == 1
    lock = repo / "goldens" / ".refresh.lock"
    assert proc.stderr.strip() == (f"replay refresh: {lock}: cannot create the lock file (Permission denied); "
                                   "the golden folder must be writable to refresh it")
    assert not lock.exists()


def test_a_held_lock_makes_the_plugin_wait_then_fail_clearly(tree: Path, pytester: pytest.Pytester,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tree / "repo"
    (repo / "tests").mkdir()
    (repo / "tests" / "test_goldens.py").write_text(
        "def test_goldens(replay_scenario, replay_snapshot):\n"
        f"    for name, data in replay_scenario({SCENARIO!r}).items():\n"
        f"        assert data == replay_snapshot(name=f'{SCENARIO}/{{name}}')\n")
    (repo / "goldens" / SCENARIO / "web.expected.txt").write_text("stale\n")
    lock = repo / "goldens" / ".refresh.lock"
    fd = os.open(lock, os.O_CREAT | os.O_RDONLY, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)  # a `replay refresh` at work (flock: another open file, even here, waits)
    # CI cleared: under CI the plugin writes pending goldens, not the goldens (and takes no lock).
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.chdir(repo)
    try:
        result = pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider", "tests", "--snapshot-update",
                                              "--replay-lock-wait", "1")
    finally:
        os.close(fd)
    assert result.ret != 0
    assert f"another `replay refresh` holds {repo / 'goldens'}; waited 1 s" in result.stdout.str()
    assert (repo / "goldens" / SCENARIO / "web.expected.txt").read_text() == "stale\n"


def test_temp_cleanup_keeps_what_a_live_writer_is_writing(tree: Path) -> None:
    folder = tree / "repo" / "goldens" / SCENARIO
    writer = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        live = folder / f".tmp-{writer.pid}-0a1b2c3d"
        live.write_bytes(b"half a golden")
        dead_pid = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                                  text=True).stdout.strip()
        dead = folder / f".tmp-{dead_pid}-4e5f6a7b"
        dead.write_bytes(b"left by a killed refresh")
        (tree / "repo" / "goldens" / "linked").symlink_to(tree / "outside", target_is_directory=True)
        before = _snapshot(tree / "outside")
        proc = _replay("refresh", SCENARIO, *_tree_args(tree))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert live.read_bytes() == b"half a golden"
        assert not dead.exists()
        assert _snapshot(tree / "outside") == before
    finally:
        writer.kill()
        writer.wait()
