"""The audit cache's run records (``replay.check.quick``): a re-audit answered from one
is byte for byte the audit it stands for, in every format; any change of a log, a
folder or ``[tool.replay.audit]`` sends the command to run again; a record is kept
only when its audit had nothing to say of the cache, and never read when broken."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import example, given, settings
from hypothesis import strategies as st

from replay.__main__ import _amended
from replay.check import quick
from replay.cli import main
from replay.report.registry import AUDIT_FORMATS
from tests.helpers import corpus_root, examples

OLD = 1_600_000_000 * 10**9
"""A modification time long past (a record keeps no status modified within 2 s)."""


class _Out:
    def __init__(self) -> None:
        self.buffer = io.BytesIO()


def _tree(root: Path, count: int = 3) -> list[Path]:
    sources = sorted((corpus_root() / "sessions-2026-08-20").rglob("session.jsonl"))[:count]
    if len(sources) < count:
        pytest.skip("the shared corpus is absent (set REPLAY_CORPUS to the shared corpus folder)")
    logs = []
    for i, source in enumerate(sources):
        target = root / "logs" / f"s{i}" / "session.jsonl"
        target.parent.mkdir(parents=True)
        target.write_bytes(source.read_bytes())
        logs.append(target)
    _age(root)
    return logs


def _age(root: Path, at: int = OLD) -> None:
    """Every file and folder below ``root`` modified long ago (a clock that moved on)."""
    for path in [*root.rglob("*"), root]:
        os.utime(path, ns=(at, at), follow_symlinks=False)


@contextlib.contextmanager
def _process(args: list[str]) -> Iterator[None]:
    """The state of a ``replay ARGS`` process: its arguments, and when it started."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "argv", ["replay", *args])
        yield


def _replay(args: list[str]) -> tuple[bool, int, bytes]:
    """``replay ARGS`` as its process runs it: whether the run record answered, the
    exit status and standard output."""
    with _process(args), pytest.MonkeyPatch.context() as patch:
        out = _Out()
        patch.setattr(sys, "stdout", out)
        code = quick.answered(args, _amended)
        if code is not None:
            return True, code, out.buffer.getvalue()
    with _process(args):
        result = CliRunner().invoke(main, args)
    return False, result.exit_code, result.stdout_bytes


def _slow(args: list[str]) -> tuple[int, bytes]:
    """``replay ARGS`` run in full, keeping no record."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(quick, "command_line", None)
        result = CliRunner().invoke(main, args)
    return result.exit_code, result.stdout_bytes


def _records(cache: Path) -> list[Path]:
    return sorted(cache.glob(f"*/{quick.RECORD_PREFIX}*"))


@pytest.mark.parametrize("fmt", list(AUDIT_FORMATS))
def test_a_re_audit_answered_from_its_record_is_the_warm_audit_byte_for_byte(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    args = ["audit", "--format", fmt, "--cache-dir", "cache", "logs"]
    cold = _replay(args)
    assert not cold[0] and len(_records(tmp_path / "cache")) == 1
    warm = _replay(args)
    assert warm[0]
    assert warm[1:] == _slow(args)
    assert _replay(args) == warm
    assert _slow([*args[:-1], "--no-cache", "logs"])[0] == warm[1]


_AMENDED = frozenset({"append", "rewrite", "touch", "restore", "chmod", "replace", "new", "remove", "rename",
                      "folder"})
"""The changes in the folders searched that a JSON report's plan amends (``replay.report.amend``)."""
_OPS = ["nothing", "append", "rewrite", "touch", "new", "remove", "rename", "config", "non-log", "folder", "restore",
        "chmod", "replace"]


def _apply(root: Path, op: str, which: int, step: int) -> bool:
    """A change of the tree, at a time of its own (``OLD`` + ``step`` seconds); whether
    something changed."""
    at = OLD + step * 10**9
    logs = sorted((root / "logs").rglob("*.jsonl"))
    path = logs[which % len(logs)] if logs else None
    touched: list[Path] = []
    if op == "append" and path is not None:
        data = path.read_bytes()
        path.write_bytes(data + data[data.rstrip(b"\n").rfind(b"\n") + 1:])
        touched = [path]
    elif op == "rewrite" and path is not None:
        data = bytearray(path.read_bytes())
        i = len(data) // 3
        data[i] = ord("#") if data[i] != ord("#") else ord("$")
        path.write_bytes(bytes(data))
        touched = [path]
    elif op == "touch" and path is not None:
        touched = [path]
    elif op == "new" and path is not None:
        copy = path.parent / f"new{step}.jsonl"
        shutil.copy(path, copy)
        touched = [copy, path.parent]
    elif op == "remove" and path is not None and any(p != path and not p.name.startswith("notes") for p in logs):
        # a session log is left (a notes file is no log: with none left, the audit has nothing to read)
        path.unlink()
        touched = [path.parent]
    elif op == "rename" and path is not None:
        path.rename(path.with_name(f"renamed{step}.jsonl"))
        touched = [path.parent]
    elif op == "config":
        config = root / "pyproject.toml"
        if config.exists():
            config.unlink()
            touched = [root]
        else:
            config.write_text('[tool.replay.audit]\nignore = ["D"]\n', encoding="utf-8")
            touched = [config, root]
    elif op == "non-log" and path is not None:
        other = path.parent / f"notes{step}.jsonl"
        other.write_text('{"not": "a header"}\n', encoding="utf-8")
        touched = [other, path.parent]
    elif op in ("restore", "chmod", "replace") and path is not None:  # the modification time put back
        before = path.stat().st_mtime_ns
        if op == "restore":
            data = bytearray(path.read_bytes())
            data[len(data) // 2] ^= 1
            with open(path, "r+b") as fh:
                fh.write(data)
        elif op == "chmod":
            path.chmod(path.stat().st_mode ^ 0o040)
        else:  # another file in its place: its folder's time put back too (tar x, rsync -a)
            folder_before = path.parent.stat().st_mtime_ns
            copy = path.with_name("copy.tmp")
            shutil.copy(logs[(which + 1) % len(logs)], copy)
            copy.replace(path)
            os.utime(path.parent, ns=(folder_before, folder_before))
        os.utime(path, ns=(before, before))
        return True
    elif op == "folder":
        folder = root / "logs" / f"more{step}"
        folder.mkdir()
        if path is not None:
            shutil.copy(path, folder / "session.jsonl")
            touched = [folder / "session.jsonl", folder, folder.parent]
    for changed in touched:
        os.utime(changed, ns=(at, at))
    return bool(touched)


@pytest.mark.slow
@settings(max_examples=examples(20), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_OPS), st.integers(0, 4)), min_size=1, max_size=5),
       st.sampled_from(["text", "json"]))
@example([("remove", 0), ("remove", 0), ("non-log", 0), ("remove", 1)], "json")  # only a notes file was left
def test_after_any_change_the_answer_is_the_audit_s(ops: list[tuple[str, int]], fmt: str) -> None:
    """A re-audit answered from a record is what an audit in full says with the same
    cache (the record holds a warm run's bytes); any change sends the command to run;
    and once nothing changes, the record answers."""
    import tempfile

    with tempfile.TemporaryDirectory() as scratch, pytest.MonkeyPatch.context() as patch:
        root = Path(scratch)
        _tree(root)
        patch.chdir(root)
        args = ["audit", "--format", fmt, "--cache-dir", "cache", "logs"]
        _replay(args)
        for step, (op, which) in enumerate(ops, 1):
            changed = _apply(root, op, which, step)
            before = root / "before"  # the cache as the command found it: what the audit in full would read
            if (root / "cache").exists():
                shutil.copytree(root / "cache", before, symlinks=True)
            answered, code, out = _replay(args)
            if answered:  # a pyproject.toml removed again: the record of the tree without it holds; a JSON
                # report amended for the logs whose contents changed (replay.report.amend)
                assert not changed or op == "config" or (fmt == "json" and op in _AMENDED), (op, step)
                assert (code, out) == _slow(["audit", "--format", fmt, "--cache-dir", "before", "logs"]), (op, step)
            shutil.rmtree(before, ignore_errors=True)
            for _ in range(2):  # a rewrite's run keeps no record; the next one does
                if _replay(args)[0]:
                    break
            again = _replay(args)
            assert again[0], (op, step)
            assert again[1:] == _slow(args), (op, step)


def test_no_record_of_a_log_modified_just_now_nor_of_an_audit_with_a_baseline_or_verify(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    logs = _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    soon = time.time_ns() + 3600 * 10**9
    os.utime(logs[0], ns=(soon, soon))  # a change within the clock's resolution could leave its status as it is
    args = ["audit", "--cache-dir", "cache", "logs"]
    assert [_replay(args)[0] for _ in range(3)] == [False] * 3
    assert _records(tmp_path / "cache") == []
    _age(tmp_path)
    baseline = tmp_path / "baseline.json"
    assert _slow(["audit", "--cache-dir", "cache", "--write-baseline", str(baseline), "logs"])[0] == 0
    for extra in (["--verify-cache"], ["--baseline", str(baseline)], ["--junit", "junit.xml"]):
        _age(tmp_path)
        assert [_replay([*args[:-1], *extra, "logs"])[0] for _ in range(2)] == [False, False], extra
    assert _records(tmp_path / "cache") == []


def _one_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], Path, bytes]:
    """A JSON audit of the tree with its cache in ``cache/``: its arguments, the one run
    record it wrote, and that record's bytes."""
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    args = ["audit", "--format", "json", "--cache-dir", "cache", "logs"]
    _replay(args)
    [record] = _records(tmp_path / "cache")
    return args, record, record.read_bytes()


def test_a_broken_record_is_passed_over_and_written_anew(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    args, record, whole = _one_record(tmp_path, monkeypatch)
    for broken in (whole[: len(whole) // 2], whole[:-1], b"", whole.replace(b"\0", b"\1", 1), whole[:-1] + b"!",
                   b"replay-audit-run/1\nx\n", quick.RUN_FORMAT + b"0 99999999999 1 00\n"):
        record.write_bytes(broken)
        assert _replay(args)[0] is False
        assert _replay(args) == (True, *_slow(args))


def test_a_record_whose_exit_status_was_altered_is_passed_over(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The digest covers the exit status too: a record whose status line changed (1 to
    0, or to a status no audit exits with) is not whole."""
    args, record, whole = _one_record(tmp_path, monkeypatch)
    head, rest = whole[len(quick.RUN_FORMAT):].split(b"\n", 1)
    code, *tail = head.split(b" ")
    assert code == b"1"
    for other in (b"0", b"2", b"+1", b"01", b"-1"):
        record.write_bytes(quick.RUN_FORMAT + b" ".join([other, *tail]) + b"\n" + rest)
        assert _replay(args)[0] is False, other
        assert _replay(args) == (True, 1, _slow(args)[1])


def test_a_change_of_replay_s_code_is_not_answered_from_a_record(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """An edit of replay's code (a checkout, an editable install) may change a report
    with the same version."""
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    args = ["audit", "--cache-dir", "cache", "logs"]
    assert [_replay(args)[0] for _ in range(2)] == [False, True]
    monkeypatch.setattr(quick, "code_digest", lambda: "0" * 32)
    assert _replay(args)[0] is False


@pytest.mark.parametrize("who", ["geteuid", "getegid", "getgroups"])
def test_another_user_is_not_answered_from_a_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    who: str) -> None:
    """What another user (``sudo replay audit``, a shared cache) may list and read is not
    what the record's audit could: a folder it cannot list would be passed over."""
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    args = ["audit", "--cache-dir", "cache", "logs"]
    assert [_replay(args)[0] for _ in range(2)] == [False, True]
    other = [12345] if who == "getgroups" else 12345
    monkeypatch.setattr(os, who, lambda: other)
    assert _replay(args)[0] is False


def test_a_pyproject_toml_changed_while_the_audit_ran_is_no_record_of_the_table_it_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The table is read as the audit starts: one copied in with its old modification
    time (``cp -p``) before the audit ends is not what its report was selected by."""
    from replay.check import audit as audit_module

    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.replay.audit]\nignore = ["D"]\n', encoding="utf-8")
    _age(tmp_path)
    args = ["audit", "--format", "json", "--cache-dir", "cache", "logs"]
    read = audit_module.find_config

    def read_then_replaced() -> object:
        found = read()
        config.write_text('[tool.replay.audit]\nselect = ["D"]\n', encoding="utf-8")
        os.utime(config, ns=(OLD, OLD))
        return found

    with monkeypatch.context() as patch:
        patch.setattr(audit_module, "find_config", read_then_replaced)
        assert _replay(args)[0] is False
    answered, code, _ = _replay(args)
    assert not answered and code == 0
    assert _replay(args) == (True, *_slow(args))


def test_a_log_rewritten_with_its_size_and_modification_time_kept_is_a_change(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``os.utime`` (``cp -p``, ``touch -r``) puts the modification time back, not the
    change time: a log rewritten in place to the same size is audited again."""
    [log, *_] = _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    args = ["audit", "--format", "json", "--cache-dir", "cache", "logs"]
    assert [_replay(args)[0] for _ in range(2)] == [False, True]
    before = log.stat()
    data = bytearray(log.read_bytes())
    data[len(data) // 2] = ord("#") if data[len(data) // 2] != ord("#") else ord("$")
    with open(log, "r+b") as fh:
        fh.write(data)
    os.utime(log, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (log.stat().st_ino, log.stat().st_size, log.stat().st_mtime_ns) == \
        (before.st_ino, before.st_size, before.st_mtime_ns)
    answered, _, out = _replay(args)
    assert answered and b'"rule": "H1"' in out  # the JSON report amended for the one log audited again


@pytest.mark.parametrize("named", [True, False])
def test_the_other_encoding_appearing_beside_a_cached_log_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named: bool) -> None:
    """Rule A10 asks whether the session's other encoding is beside a log in a production
    root: a log whose report is cached is judged again when that answer changed."""
    from tests.check.test_cache import _uncounted

    [log, *_] = _tree(tmp_path)
    root = tmp_path / "logs" / "--project--" / "s0"
    root.parent.mkdir()
    log.parent.rename(root)
    _age(tmp_path)
    monkeypatch.chdir(tmp_path)
    where = ["logs/--project--/s0/session.jsonl"] if named else ["logs"]
    args = ["audit", "--format", "json", "--cache-dir", "cache", *where]
    assert [_replay(args)[0] for _ in range(2)] == [False, True]
    twin = root / "session.jsonl.zstd"
    for step in (1, 2):
        if twin.exists():
            twin.unlink()
        else:
            twin.symlink_to("session.jsonl")  # the same session, in place of its other encoding
        os.utime(root, ns=(OLD + step * 10**9, OLD + step * 10**9))
        answered, code, out = _replay(args)
        want = _slow(["audit", "--format", "json", "--no-cache", *where])
        assert (not answered or not named) and (code, _uncounted("json", out.decode())) == (want[0], _uncounted(
            "json", want[1].decode())), step  # a folder's logs: the record's JSON report amended


def test_the_cache_folder_below_the_audited_one_is_no_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``replay audit .`` with the default cache: the audit writes below the folder it
    searched, which holds no log there; a log put there is found."""
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(quick.CACHE_ENV)
    args = ["audit", "--format", "json", "."]
    _replay(args)  # the cache made in the folder: modified now
    _age(tmp_path)
    assert [_replay(args)[0] for _ in range(2)] == [False, True]
    [space] = [p for p in (tmp_path / ".replay" / "cache").iterdir() if p.is_dir()]
    stray = space / "stray.jsonl"
    shutil.copy(sorted((tmp_path / "logs").rglob("*.jsonl"))[0], stray)
    _age(tmp_path)
    answered, _, out = _replay(args)
    assert not answered and b"stray.jsonl" in out


def test_a_found_cache_reached_through_a_link_is_not_answered_from(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(quick.CACHE_ENV)
    args = ["audit", "logs"]
    [_replay(args) for _ in range(2)]
    assert _replay(args)[0] is True
    (tmp_path / ".replay").rename(tmp_path / "elsewhere")
    (tmp_path / ".replay").symlink_to(tmp_path / "elsewhere")
    answered, _, _ = _replay(args)
    assert not answered


def test_the_command_answered_imports_no_rule_and_says_the_same(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """As a process: ``replay audit`` answered from its record imports neither the
    command line (click) nor the checkers, and writes what the audit would."""
    _tree(tmp_path)
    args = ["audit", "--format", "json", "--cache-dir", "cache", "logs"]
    command = [sys.executable, "-X", "importtime", "-m", "replay", *args]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    runs = [subprocess.run(command, cwd=tmp_path, capture_output=True, env=env, timeout=300) for _ in range(2)]
    assert b"replay.cli" in runs[0].stderr and b"replay.check.engine" in runs[0].stderr
    assert b"replay.cli" not in runs[1].stderr and b"replay.check.engine" not in runs[1].stderr
    assert b"click" not in runs[1].stderr
    monkeypatch.chdir(tmp_path)
    assert (runs[1].returncode, runs[1].stdout) == _slow(args)


def test_the_guide_says_what_a_run_record_does_in_the_code_s_numbers() -> None:
    guide = " ".join((Path(__file__).resolve().parents[2] / "docs" / "guides" / "audit.md").read_text(
        encoding="utf-8").split())
    for phrase in (f"its {quick.RECORDS_KEPT} most recent command lines",
                   f"within {['', 'one', 'two', 'three'][quick.RACY_NS // 10**9]} seconds of its start"):
        assert phrase in guide, phrase


def test_two_audits_at_once_leave_a_record_the_next_answers_from(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Two processes keep the same record (each written whole, then renamed): the next
    command is answered from one of them, and it says what the audit says."""
    _tree(tmp_path, 4)
    args = ["audit", "--format", "json", "--cache-dir", "cache", "logs"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    runs = [subprocess.Popen([sys.executable, "-m", "replay", *args], cwd=tmp_path, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env) for _ in range(2)]
    outs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [1, 1] and [err for _, err in outs] == [b"", b""]
    assert len(_records(tmp_path / "cache")) == 1
    assert not [p for p in (tmp_path / "cache").rglob(".tmp-*")]
    monkeypatch.chdir(tmp_path)
    assert _replay(args) == (True, *_slow(args))


@pytest.mark.slow
@pytest.mark.parametrize("fmt", list(AUDIT_FORMATS))
def test_the_shared_corpus_answered_from_its_record_is_the_audit_without_the_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    from tests.check.test_cache import _corpus, _uncounted

    _corpus(tmp_path)
    _age(tmp_path)
    monkeypatch.chdir(tmp_path)
    args = ["audit", "--format", fmt, "--cache-dir", "cache", "logs"]
    assert _replay(args)[0] is False
    answered, code, out = _replay(args)
    want = _slow(["audit", "--format", fmt, "--no-cache", "logs"])
    assert answered and code == want[0]
    assert _uncounted(fmt, out.decode()) == _uncounted(fmt, want[1].decode())


def test_a_namespace_keeps_its_newest_records_and_an_answer_marks_it_used(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from replay.check import cache as cache_module

    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cache_module, "RECORDS_KEPT", 2)
    aged: set[Path] = set()
    for i, fmt in enumerate(("text", "json", "github")):
        _replay(["audit", "--format", fmt, "--cache-dir", "cache", "logs"])
        for record in set(_records(tmp_path / "cache")) - aged:  # written in this order, a second apart
            os.utime(record, ns=(OLD + i * 10**9, OLD + i * 10**9))
            aged.add(record)
        os.utime(_records(tmp_path / "cache")[0].parent, ns=(OLD, OLD))
    [space] = {p.parent for p in _records(tmp_path / "cache")}
    assert len(_records(tmp_path / "cache")) == 2
    assert _replay(["audit", "--format", "text", "--cache-dir", "cache", "logs"])[0] is False  # the oldest went
    os.utime(space, ns=(OLD, OLD))  # the text run wrote a record there: only the answer may touch it now
    assert _replay(["audit", "--format", "github", "--cache-dir", "cache", "logs"])[0] is True
    assert space.stat().st_mtime_ns > OLD


def test_a_log_named_on_the_command_line_keeps_its_folder_and_other_encoding(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rule A10 asks whether the session's other encoding is beside the log: a name added
    to its folder, or the file a link in its place leads to appearing, is a change."""
    [log, *_] = _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    args = ["audit", "--format", "json", "--cache-dir", "cache", str(log.relative_to(tmp_path))]
    twin = log.with_name("session.jsonl.zstd")
    twin.symlink_to(tmp_path / "elsewhere.zstd")  # leads nowhere yet
    _age(log.parent)
    assert [_replay(args)[0] for _ in range(2)] == [False, True]
    (tmp_path / "elsewhere.zstd").write_bytes(b"")
    assert _replay(args)[0] is False
    twin.unlink()
    _age(log.parent)
    assert [_replay(args)[0] for _ in range(2)] == [False, True]
    (log.parent / "notes.txt").write_text("a new name in the folder\n", encoding="utf-8")
    os.utime(log.parent, ns=(OLD + 10**9, OLD + 10**9))
    answered, code, out = _replay(args)
    assert not answered and (code, out) == _slow(args)



def test_a_terminal_is_never_answered_from_a_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A record's bytes are checked whole, not who wrote them (a shared cache folder):
    what reaches a terminal is what this run's report passed through the sanitizer, so a
    terminal is answered by the audit itself, with the same report."""
    monkeypatch.setattr(quick, "_terminal", lambda fd: fd == 1)  # standard output is a terminal, for both runs
    args, _, _ = _one_record(tmp_path, monkeypatch)
    assert quick.answered(args) is None
    monkeypatch.setattr(quick, "_terminal", lambda fd: False)
    assert _replay(args)[0] is False  # a pipe: no record of the terminal's run is used; the audit writes its own
    assert _replay(args)[0] is True


def test_a_cache_folder_of_more_names_than_its_cap_is_not_taken_to_hold_no_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "cache"
    (folder / "a1-space").mkdir(parents=True)
    for i in range(5):
        (folder / "a1-space" / f"{i:x}.json").write_bytes(b"{}")
    assert quick.holds_no_log(str(folder))
    monkeypatch.setattr(quick, "MAX_CACHE_NAMES", 5)  # the namespace and 5 shards: one name too many
    assert not quick.holds_no_log(str(folder))


@pytest.mark.parametrize("fmt", list(AUDIT_FORMATS))
def test_a_record_s_report_is_the_report_written_not_made_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  fmt: str) -> None:
    """The run record keeps the report as it was written, its closing (the count from
    the cache) said again: the report is made once (and the answer is the warm audit's)."""
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    args = ["audit", "--format", fmt, "--cache-dir", "cache", "logs"]
    _replay(args)
    finished: list[str] = []
    reporter = AUDIT_FORMATS[fmt]
    real = reporter.finish

    def counted(self: object, result: object) -> None:
        finished.append(fmt)
        real(self, result)  # type: ignore[arg-type]

    monkeypatch.setattr(reporter, "finish", counted)
    for record in _records(tmp_path / "cache"):
        record.unlink()
    assert not _replay(args)[0] and finished == [fmt] and len(_records(tmp_path / "cache")) == 1
    monkeypatch.setattr(reporter, "finish", real)
    warm = _replay(args)
    assert warm[0] and warm[1:] == _slow(args)


def test_standard_output_is_not_copied_for_an_audit_that_can_keep_no_record(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a record keeps is copied as it is written only when the options leave room
    for a record (a baseline read or written, or the cache verified, rule one out)."""
    from replay import console

    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    baseline = tmp_path / "baseline.json"
    assert _slow(["audit", "--cache-dir", "cache", "--write-baseline", str(baseline), "logs"])[0] == 0
    copies: list[int] = []
    real = console.OutputCopy.__init__

    def spied(self: console.OutputCopy, limit: int) -> None:
        copies.append(limit)
        real(self, limit)

    monkeypatch.setattr(console.OutputCopy, "__init__", spied)
    again = str(tmp_path / "again.json")
    for extra in (["--verify-cache"], ["--baseline", str(baseline)], ["--write-baseline", again]):
        assert _replay(["audit", "--cache-dir", "cache", *extra, "logs"])[0] is False
    assert _records(tmp_path / "cache") == [] and copies == []
    assert _replay(["audit", "--cache-dir", "cache", "logs"])[0] is False
    assert copies == [quick.MAX_RECORD_BYTES] and len(_records(tmp_path / "cache")) == 1


def test_a_report_larger_than_a_record_is_not_copied_past_it() -> None:
    from replay.console import OutputCopy

    copy = OutputCopy(10)
    copy.add(b"0123456")
    assert copy.value() == b"0123456"
    copy.add(b"789a")  # 11 bytes: past the limit, the copy is dropped
    copy.add(b"b")
    assert copy.value() is None
