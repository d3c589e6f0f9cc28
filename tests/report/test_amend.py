"""A run record's JSON report amended for the logs whose contents changed
(``replay.report.amend``): the report is the one the audit in full writes with the same
cache, byte for byte, whatever was appended, cut, rewritten or touched; what a plan
cannot amend runs in full; a plan that is not one a full audit made is not used."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import msgspec
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.check import quick
from replay.report import amend
from tests.check.test_quick import OLD, _records, _replay, _slow, _tree
from tests.helpers import examples

_ARGS = ["audit", "--format", "json", "--cache-dir", "cache", "logs"]


def _archive(root: Path, count: int = 6) -> list[Path]:
    """``count`` real harness logs in folders of their own below ``root/logs``, aged."""
    return _tree(root, count)


def _change(log: Path, op: str, at: int) -> None:
    """One change of a log's contents (its folder untouched), at the time ``at``."""
    data = log.read_bytes()
    last = data[data.rstrip(b"\n").rfind(b"\n") + 1:]
    if op == "append":
        log.write_bytes(data + last)
    elif op == "torn":  # half a record: the tail stays provisional
        log.write_bytes(data + last[:len(last) // 2])
    elif op == "cut":  # shorter: rewritten (H1)
        log.write_bytes(data[:len(data) * 2 // 3])
    elif op == "rewrite":  # a byte of the first half changed (H1)
        changed = bytearray(data)
        changed[len(data) // 4] ^= 0x20
        log.write_bytes(bytes(changed))
    elif op == "duplicate":  # a record written twice: damage the audit reports
        log.write_bytes(data + last + last)
    os.utime(log, ns=(at, at))  # "touch" changes nothing but the time


def _full_with(root: Path, cache: Path) -> tuple[int, bytes]:
    """The audit in full, reading a copy of ``cache`` (what the amended run found)."""
    return _slow(["audit", "--format", "json", "--cache-dir", str(cache.relative_to(root)), "logs"])


@pytest.mark.slow
@settings(max_examples=examples(25), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.sampled_from(["append", "torn", "cut", "rewrite", "duplicate",
                                                                "touch"])), min_size=1, max_size=4),
       st.booleans())
def test_an_amended_report_is_the_full_audit_s_byte_for_byte(changes: list[tuple[int, str]], aged: bool) -> None:
    with tempfile.TemporaryDirectory() as scratch, pytest.MonkeyPatch.context() as patch:
        root = Path(scratch)
        logs = _archive(root)
        patch.chdir(root)
        assert not _replay(_ARGS)[0]
        for step, (which, op) in enumerate(changes, 1):
            # a clock that moved on (a record may be amended and kept), or a change just now (none is)
            _change(logs[which], op, OLD + step * 10**9 if aged else os.stat(logs[which]).st_mtime_ns + 1)
            shutil.copytree(root / "cache", root / "before")
            answered, code, out = _replay(_ARGS)
            assert answered, (step, op)  # only a log's contents changed: the plan amends its report
            assert (code, out) == _full_with(root, root / "before"), (step, op)
            shutil.rmtree(root / "before")
        again = _replay(_ARGS)
        assert again[0] and again[1:] == _slow(_ARGS)
        doc = orjson.loads(again[2])
        assert doc["summary"]["cached"] == len(logs)
        doc["summary"].pop("cached")
        assert doc == orjson.loads(_slow([*_ARGS[:-1], "--no-cache", "logs"])[1])


def test_an_amended_record_answers_the_next_run_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    logs = _archive(tmp_path, 3)
    monkeypatch.chdir(tmp_path)
    _replay(_ARGS)
    [record] = _records(tmp_path / "cache")
    before = record.read_bytes()
    _change(logs[1], "append", OLD + 10**9)
    answered, _, out = _replay(_ARGS)
    assert answered and orjson.loads(out)["summary"]["cached"] == 2
    [amended] = _records(tmp_path / "cache")
    assert amended == record and amended.read_bytes() != before  # the same command's record, written anew
    _, seen, _, _ = quick._parts(amended.read_bytes())
    assert quick.changes(seen) == []  # it saw the log as it is now: the next run is answered whole
    assert _replay(_ARGS) == (True, *_slow(_ARGS))


@pytest.mark.parametrize("spelling", ["./cache", "cache/", "{root}/cache"])
def test_the_cache_folder_however_spelled_is_the_record_s(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          spelling: str) -> None:
    logs = _archive(tmp_path, 3)
    monkeypatch.chdir(tmp_path)
    args = ["audit", "--format", "json", "--cache-dir", spelling.format(root=tmp_path), "logs"]
    _replay(args)
    _change(logs[1], "append", OLD + 10**9)
    shutil.copytree(tmp_path / "cache", tmp_path / "before")
    answered, code, out = _replay(args)
    assert answered  # amended, not run in full
    assert (code, out) == _full_with(tmp_path, tmp_path / "before")


@pytest.mark.parametrize("fmt", ["text", "sarif", "github"])
def test_a_report_of_another_format_is_not_amended(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   fmt: str) -> None:
    logs = _archive(tmp_path, 2)
    monkeypatch.chdir(tmp_path)
    args = ["audit", "--format", fmt, "--cache-dir", "cache", "logs"]
    assert [_replay(args)[0] for _ in range(2)] == [False, True]
    _change(logs[0], "append", OLD + 10**9)
    assert not _replay(args)[0]


def test_a_log_that_is_no_session_log_now_runs_the_audit_in_full(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    logs = _archive(tmp_path, 2)
    monkeypatch.chdir(tmp_path)
    _replay(_ARGS)
    logs[0].write_bytes(b'{"not": "a header"}\n')
    os.utime(logs[0], ns=(OLD + 10**9, OLD + 10**9))
    shutil.copytree(tmp_path / "cache", tmp_path / "before")
    answered, code, out = _replay(_ARGS)
    assert not answered  # passed over now: what a full audit says of it
    assert (code, out) == _full_with(tmp_path, tmp_path / "before")


_HOSTILE = [
    ("spans out of order", lambda logs, closing: [msgspec.structs.replace(logs[1], start=0), *logs[1:]], None),
    ("an entry past the closing", lambda logs, closing: logs, lambda logs, closing: logs[-1].end - 1),
    ("a closing past the report", lambda logs, closing: logs, lambda logs, closing: 10**12),
    ("no log found by a search", lambda logs, closing: [msgspec.structs.replace(log, found=False) for log in logs],
     None),
    ("another name", lambda logs, closing: [msgspec.structs.replace(log, path=log.path + "x") for log in logs], None),
    ("a name twice", lambda logs, closing: [logs[0], msgspec.structs.replace(logs[1], path=logs[0].path), *logs[2:]],
     None),
    ("a path the command line did not name", lambda logs, closing: [msgspec.structs.replace(log, group=7)
                                                                    for log in logs], None),
    ("paths out of order", lambda logs, closing: [*logs[:-1], msgspec.structs.replace(logs[-1], group=0)]
     if logs[-1].group else [msgspec.structs.replace(logs[0], group=1), *logs[1:]], None),
    ("no log", lambda logs, closing: [], None),
]


@pytest.mark.parametrize(("what", "logs_of", "closing_of"), _HOSTILE, ids=[h[0] for h in _HOSTILE])
def test_a_plan_no_full_audit_made_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, what: str,
                                               logs_of: object, closing_of: object) -> None:
    logs = _archive(tmp_path, 3)
    monkeypatch.chdir(tmp_path)
    _replay(_ARGS)
    [record] = _records(tmp_path / "cache")
    code, seen, plan_data, report = quick._parts(record.read_bytes())
    plan = amend._decode(plan_data)
    changed_logs = logs_of(plan.logs, plan.closing)  # type: ignore[operator]
    closing = closing_of(plan.logs, plan.closing) if closing_of is not None else plan.closing  # type: ignore[operator]
    hostile = msgspec.structs.replace(plan, logs=changed_logs, closing=closing)
    record.write_bytes(quick.record_bytes(seen, code, bytes(report), amend._encode(hostile)))
    _change(logs[2], "append", OLD + 10**9)
    shutil.copytree(tmp_path / "cache", tmp_path / "before")
    answered, code_now, out = _replay(_ARGS)
    assert not answered, what
    assert (code_now, out) == _full_with(tmp_path, tmp_path / "before")


def test_a_plan_of_bytes_msgpack_cannot_read_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    logs = _archive(tmp_path, 2)
    monkeypatch.chdir(tmp_path)
    _replay(_ARGS)
    [record] = _records(tmp_path / "cache")
    code, seen, plan_data, report = quick._parts(record.read_bytes())
    for plan in (b"\xff" * 7, plan_data[:len(plan_data) // 2], plan_data.replace(amend.PLAN_FORMAT.encode(),
                                                                                 b"replay-audit-plan/0")):
        record.write_bytes(quick.record_bytes(seen, code, bytes(report), plan))
        _change(logs[0], "append", os.stat(logs[0]).st_mtime_ns + 10**9)
        assert not _replay(_ARGS)[0]


def _structural(root: Path, logs: list[Path], op: str, step: int) -> None:
    """A change of what the folders searched hold, at a time of its own."""
    at = OLD + step * 10**9
    touched: list[Path] = []
    if op == "session":  # a new session: a folder of its own with its log
        folder = root / "logs" / f"new{step}"
        folder.mkdir()
        shutil.copy(logs[step % len(logs)], folder / "session.jsonl")
        touched = [folder / "session.jsonl", folder, folder.parent]
    elif op == "nested":  # a new folder with a folder in it
        folder = root / "logs" / f"deep{step}" / "a"
        folder.mkdir(parents=True)
        shutil.copy(logs[step % len(logs)], folder / "session.jsonl")
        touched = [folder / "session.jsonl", folder, folder.parent, folder.parent.parent]
    elif op == "beside":  # another log in a folder that has one
        target = logs[step % len(logs)].parent / f"more{step}.jsonl"
        shutil.copy(logs[(step + 1) % len(logs)], target)
        touched = [target, target.parent]
    elif op == "remove":
        present = sorted((root / "logs").rglob("*.jsonl"))
        if len(present) > 1:
            present[step % len(present)].unlink()
            touched = [present[step % len(present)].parent]
    elif op == "rename":
        present = sorted((root / "logs").rglob("*.jsonl"))
        target = present[step % len(present)]
        target.rename(target.with_name(f"renamed{step}.jsonl"))
        touched = [target.parent]
    elif op == "rmdir":
        folders = sorted(p for p in (root / "logs").iterdir() if p.is_dir())
        if len(folders) > 1:
            shutil.rmtree(folders[step % len(folders)])
            touched = [root / "logs"]
    elif op == "link":  # a link to a log elsewhere in the folder searched: a log of it
        present = sorted((root / "logs").rglob("*.jsonl"))
        link = root / "logs" / f"link{step}.jsonl"
        link.symlink_to(present[0].relative_to(root / "logs"))
        touched = [root / "logs"]
    for path in touched:
        os.utime(path, ns=(at, at), follow_symlinks=False)


@pytest.mark.slow
@settings(max_examples=examples(25), deadline=None)
@given(st.lists(st.sampled_from(["session", "nested", "beside", "remove", "rename", "rmdir", "link", "append"]),
                min_size=1, max_size=4))
def test_a_report_amended_for_logs_added_and_removed_is_the_full_audit_s(ops: list[str]) -> None:
    with tempfile.TemporaryDirectory() as scratch, pytest.MonkeyPatch.context() as patch:
        root = Path(scratch)
        logs = _archive(root, 4)
        sources = [root / "sources" / f"{i}.jsonl" for i in range(len(logs))]
        sources[0].parent.mkdir()
        for log, source in zip(logs, sources, strict=True):
            shutil.copy(log, source)
        patch.chdir(root)
        assert not _replay(_ARGS)[0]
        for step, op in enumerate(ops, 1):
            if op == "append":
                present = sorted((root / "logs").rglob("*.jsonl"))
                _change(present[step % len(present)], "append", OLD + step * 10**9)
            else:
                _structural(root, sources, op, step)
            shutil.copytree(root / "cache", root / "before")
            answered, code, out = _replay(_ARGS)
            # Only what the folders searched hold changed: amended (a record keeps the status of a
            # link to a log, not of the log, so one seen before answers nothing: the audit runs in full)
            left = any((root / "logs").rglob("*.jsonl"))  # none: the audit in full says there is nothing to read
            assert answered or "link" in ops[:step - 1] or not left, (step, op)
            assert (code, out) == _full_with(root, root / "before"), (step, op)
            shutil.rmtree(root / "before")
        if any((root / "logs").rglob("*.jsonl")):
            doc = orjson.loads(_replay(_ARGS)[2])
            doc["summary"].pop("cached")
            assert doc == orjson.loads(_slow([*_ARGS[:-1], "--no-cache", "logs"])[1])


@pytest.mark.parametrize("what", ["a log not a session's", "a link out of the folder", "an archive", "a FIFO"])
def test_a_new_file_the_audit_in_full_tells_of_runs_it_in_full(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               what: str) -> None:
    logs = _archive(tmp_path, 2)
    monkeypatch.chdir(tmp_path)
    _replay(_ARGS)
    folder = logs[0].parent
    if what == "a log not a session's":
        (folder / "notes.jsonl").write_bytes(b'{"not": "a header"}\n')
    elif what == "a link out of the folder":
        (folder / "out.jsonl").symlink_to(logs[1].resolve().parent.parent.parent / "cache")
    elif what == "an archive":
        import tarfile

        with tarfile.open(folder / "more.tar", "w") as tar:
            tar.add(logs[1], arcname="x/session.jsonl")
    else:
        os.mkfifo(folder / "pipe.jsonl")
    os.utime(folder, ns=(OLD + 10**9, OLD + 10**9))
    shutil.copytree(tmp_path / "cache", tmp_path / "before")
    answered, code, out = _replay(_ARGS)
    assert not answered
    assert (code, out) == _full_with(tmp_path, tmp_path / "before")


def _hostile(record: Path, logs_of: object, rows_of: object, report_of: object) -> None:
    """The record rewritten as anyone who may write the cache's folder can: its plan's
    logs, its rows and its report of their choice, its digest made again."""
    code, seen, plan_data, report = quick._parts(record.read_bytes())
    plan = amend._decode(plan_data)
    rows = quick.seen_bytes(rows_of(quick.seen_rows(seen)))  # type: ignore[operator]
    hostile = msgspec.structs.replace(plan, logs=logs_of(plan.logs), closing=plan.closing + 2)  # type: ignore[operator]
    record.write_bytes(quick.record_bytes(rows, code, report_of(bytes(report)), amend._encode(hostile)))  # type: ignore[operator]


@pytest.mark.parametrize("where", ["a log elsewhere", "a folder elsewhere", "up and out of the folder"])
def test_a_hostile_record_makes_no_read_of_what_the_command_does_not_search(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """A record names a log or a folder the command line does not search (a session log
    the user may read): the amended run reads none of it, let alone reports it."""
    logs = _archive(tmp_path, 2)
    private = tmp_path / "private"
    private.mkdir()
    (private / "session.jsonl").write_bytes(logs[0].read_bytes())
    monkeypatch.chdir(tmp_path)
    _replay(_ARGS)
    [record] = _records(tmp_path / "cache")
    end = amend._decode(quick._parts(record.read_bytes())[2]).logs[-1].end
    named = {"a log elsewhere": str(private / "session.jsonl"),
             "a folder elsewhere": str(private / "session.jsonl"),
             "up and out of the folder": "logs/s0/../../private/session.jsonl"}[where]
    extra = amend._Log(named, 0, end + 2, end + 2, 0, 0, 0, 0, 0, False, True)  # no length, after the last
    row = (str(private), False, quick.FOLDER, (0, 0, 0, 0, 0)) if where == "a folder elsewhere" else \
        (named, False, quick.FILE, (0, 0, 0, 0, 0))
    _hostile(record, lambda plan_logs: [*plan_logs, extra], lambda rows: [*rows, row],
             lambda report: report[:end] + b",\n" + report[end:])
    _change(logs[1], "append", OLD + 10**9)
    answered, _, out = _replay(_ARGS)
    assert not answered and b"private" not in out


def test_a_command_whose_options_say_a_line_keeps_no_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--jobs`` past the usable CPUs says so on stderr each time the command runs: a
    record, which says nothing, never answers it."""
    from replay.parallel import usable_cpus

    _archive(tmp_path, 2)
    monkeypatch.chdir(tmp_path)
    args = ["audit", "--format", "json", "--jobs", str(usable_cpus() + 1), "--cache-dir", "cache", "logs"]
    assert [_replay(args)[0] for _ in range(3)] == [False, False, False]
    assert not _records(tmp_path / "cache")
