"""``--jobs``: the audit (and check) report is byte-identical whatever the number of
worker processes; a worker killed mid-run is an ``INTERNAL`` finding for the file it
held and the rest of the report is complete; Ctrl-C exits 130 with no traceback and
no process left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from replay.check import runner
from replay.cli import main
from replay.parallel import HOLD_ENV
from tests.helpers import MULTI_TURN, REPO, corpus_root, dump, records

pytestmark = pytest.mark.slow


def _corpus_paths() -> list[str]:
    root = corpus_root()
    if not root.is_dir():
        pytest.skip(f"the shared corpus {root} is absent (set REPLAY_CORPUS)")
    return sorted(str(p) for p in root.iterdir())


def _audit(*args: str) -> tuple[int, bytes]:
    result = CliRunner().invoke(main, ["audit", "--no-cache", *args])  # each run reads every log
    return result.exit_code, result.stdout_bytes


def test_the_report_is_the_same_for_any_jobs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small batches (five logs), so workers finish out of order and results wait."""
    paths = _corpus_paths()
    monkeypatch.setattr(runner, "BATCH_UNITS", 5)
    code, one = _audit("--jobs", "1", "--format", "json", *paths)
    assert code == 1 and orjson.loads(one)["summary"]["files"] > 300
    for jobs in ("2", "3"):
        assert _audit("--jobs", jobs, "--format", "json", *paths) == (code, one)
    assert _audit("--jobs", "2", "--format", "text", *paths) == _audit("--jobs", "1", "--format", "text", *paths)


def test_check_reports_the_same_for_any_jobs() -> None:
    runs = [CliRunner().invoke(main, ["check", "--jobs", jobs, "--format", "json", "--scenarios",
                                      str(REPO / "scenarios"), "--goldens", str(REPO / "goldens")])
            for jobs in ("1", "2")]
    assert [r.exit_code for r in runs] == [0, 0]
    assert runs[0].stdout_bytes == runs[1].stdout_bytes


# -- a real process, its workers killed or interrupted ------------------------------------

_SIZE = 12_000_000
"""Bytes of each long log: larger than a batch (each is a task of its own). A test that
needs a worker in the middle of one holds it there (``HOLD_ENV``), whatever the speed."""


_LOGS = 4
"""Long logs in the folder: two for each of the two workers."""


def _long_log(size: int) -> bytes:
    """A clean log of about ``size`` bytes: the turns of a real one, repeated with
    seqs and turn numbers shifted."""
    recs = records(MULTI_TURN)
    head, body = recs[0], recs[1:]
    count = sum(len(r["data"]["texts"]) if "seq0" in r else 1 for r in body)
    turns = sum(1 for r in body if r["type"] == "turn/start")
    one = sum(len(orjson.dumps(r)) + 1 for r in body)
    out = [orjson.dumps(head)]
    for k in range(size // one + 1):
        for r in body:
            r = dict(r)
            r["seq0" if "seq0" in r else "seq"] += k * count
            data = r.get("data")
            if isinstance(data, dict) and isinstance(data.get("turn"), int):
                r["data"] = {**data, "turn": data["turn"] + k * turns}
            out.append(orjson.dumps(r))
    return b"\n".join(out) + b"\n"


@pytest.fixture(scope="module")
def long_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("long")
    data = _long_log(_SIZE)
    for k in range(_LOGS):
        (folder / f"log-{k}").mkdir()
        (folder / f"log-{k}" / "session.jsonl").write_bytes(data)
    return folder


def _held_by_a_worker(proc: subprocess.Popen[bytes], marker: Path) -> int:
    """The pid of the worker that holds its first log (``HOLD_ENV``), once it does: at
    the run's own pace, whatever the machine's load."""
    for _ in range(6000):
        if (marker.exists() and marker.read_bytes()) or proc.poll() is not None:
            break
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()
    return int(marker.read_bytes())


def _default_sigint() -> None:
    """In the child, before exec: SIGINT's default action, as a terminal's foreground
    command has it. A test run started in the background of a script (``… &``)
    ignores SIGINT, and a command started ignoring it rightly goes on ignoring it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(folder: Path, *first: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """``replay audit --jobs 2 --format json FIRST... FOLDER`` in a session of its own,
    its standard input a pipe this test holds."""
    return subprocess.Popen([sys.executable, "-m", "replay", "audit", "--jobs", "2", "--format", "json", *first,
                             str(folder)], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True, preexec_fn=_default_sigint,
                            env={**os.environ, **(env or {})})


def _interrupted_run(folder: Path, marker: Path) -> subprocess.Popen[bytes]:
    """An audit that cannot end before this test lets it: standard input, a log that
    has not ended, comes first (read in this process while the workers audit the
    folder), and a worker holds its first log (``HOLD_ENV``: ``marker``), so a signal
    sent now comes before any report, with a worker in the middle of a log."""
    marker.unlink(missing_ok=True)
    proc = _start(folder, "-", env={HOLD_ENV: str(marker)})
    assert proc.stdin is not None
    proc.stdin.write(dump(records(MULTI_TURN)[:4]))
    proc.stdin.flush()
    _held_by_a_worker(proc, marker)
    return proc


def _files(report: bytes) -> dict[str, Any]:
    return {f["path"]: f for f in orjson.loads(report)["files"]}


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to find the worker processes")
def test_a_killed_worker_is_an_internal_finding_for_its_file(long_logs: Path) -> None:
    code, one = _audit("--jobs", "1", "--format", "json", str(long_logs / "log-0"))
    assert code == 0
    (alone,) = _files(one).values()  # every log of the folder is this one: the same report, but the path
    marker = long_logs.parent / f"held-{os.getpid()}"
    marker.unlink(missing_ok=True)
    proc = _start(long_logs, env={HOLD_ENV: str(marker)})  # a worker waits, holding a log, until it is killed
    victim = _held_by_a_worker(proc, marker)  # kept until the run ends: a worker started in its place goes on
    os.kill(victim, signal.SIGKILL)
    out, err = proc.communicate(timeout=120)
    marker.unlink()
    assert proc.returncode == 1, err
    assert b"Traceback" not in err
    got = _files(out)
    assert sorted(got) == [str(long_logs / f"log-{k}" / "session.jsonl") for k in range(_LOGS)]
    lost = [path for path, f in got.items() if f != {**alone, "path": path}]
    assert len(lost) == 1, lost
    (finding,) = got[lost[0]]["findings"]
    assert got[lost[0]]["status"] == "unreadable" and finding["rule"] == "INTERNAL"
    assert finding["message"].startswith(f"the worker process (pid {victim}) that held it died (killed, or out of "
                                         "memory) before it finished; the rest of the audit is complete")
    summary = orjson.loads(out)["summary"]
    assert (summary["files"], summary["failed"], summary["errors"]) == (_LOGS, 1, 1)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to find the processes")
def test_ctrl_c_stops_cleanly_and_leaves_no_process(long_logs: Path) -> None:
    proc = _interrupted_run(long_logs, long_logs.parent / f"held-ctrl-c-{os.getpid()}")
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole foreground group
    began = time.monotonic()
    out, err = proc.communicate(timeout=120)
    assert time.monotonic() - began < 30  # the held worker was stopped, not waited for (it holds for a minute)
    assert (proc.returncode, out, err) == (130, b"", b"replay audit: interrupted\n")
    left = [pid for pid in os.listdir("/proc") if pid.isdigit() and _session(int(pid)) == proc.pid]
    assert left == []


def _session(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[4])
    except (OSError, ValueError, IndexError):
        return None


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to find the processes")
def test_sigint_to_the_command_alone_stops_its_workers(long_logs: Path) -> None:
    """A SIGINT sent to the command only (not from a terminal): it stops the workers."""
    proc = _interrupted_run(long_logs, long_logs.parent / f"held-sigint-{os.getpid()}")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert out == b""
    assert (proc.returncode, err) == (130, b"replay audit: interrupted\n")
    assert [pid for pid in os.listdir("/proc") if pid.isdigit() and _session(int(pid)) == proc.pid] == []
