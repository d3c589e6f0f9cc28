"""Adversarial review of the run record's amendment (``replay.report.amend``): each
case changes the tree a JSON audit searched, then asks that the amended run (when a
record answers) writes what the audit in full writes with a copy of the cache taken
just before, exit status and standard output byte for byte."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import zstandard

from replay.check import quick
from replay.log.source import at_or_below
from tests.check.test_quick import OLD, _records, _replay, _slow, _tree

Op = Callable[[Path, list[Path]], list[Path]]


def _at(paths: list[Path], step: int = 1) -> None:
    at = OLD + step * 10**9
    for path in paths:
        os.utime(path, ns=(at, at), follow_symlinks=False)


def _args(roots: list[str], cache: str = "cache") -> list[str]:
    return ["audit", "--format", "json", "--cache-dir", cache, *roots]


def _check(root: Path, roots: list[str], op: Op) -> bool:
    """The tree made, audited (a record kept), changed by ``op``, audited again: the
    amended run's answer is the full audit's with the cache as it was; whether a
    record answered."""
    logs = _tree(root, 3)
    assert not _replay(_args(roots))[0]
    _at(op(root, logs))
    shutil.copytree(root / "cache", root / "before")
    answered, code, out = _replay(_args(roots))
    full = _slow(_args(roots, "before"))
    assert (code, out) == full, answered
    return answered


def _twin(root: Path, logs: list[Path]) -> list[Path]:
    twin = logs[0].with_name("session.jsonl.zstd")
    twin.write_bytes(zstandard.ZstdCompressor().compress(logs[0].read_bytes()))
    return [twin, twin.parent]


def _twin_only(root: Path, logs: list[Path]) -> list[Path]:
    twin = logs[0].with_name("session.jsonl.zstd")
    twin.write_bytes(zstandard.ZstdCompressor().compress(logs[0].read_bytes()))
    logs[0].unlink()
    return [twin, twin.parent]


def _file_to_folder(root: Path, logs: list[Path]) -> list[Path]:
    data = logs[0].read_bytes()
    logs[0].unlink()
    logs[0].mkdir()
    (logs[0] / "x.jsonl").write_bytes(data)
    return [logs[0] / "x.jsonl", logs[0], logs[0].parent]


def _folder_to_file(root: Path, logs: list[Path]) -> list[Path]:
    folder = logs[1].parent
    data = logs[1].read_bytes()
    shutil.rmtree(folder)
    folder.with_name(folder.name + ".jsonl").write_bytes(data)
    return [folder.with_name(folder.name + ".jsonl"), folder.parent]


def _odd_names(root: Path, logs: list[Path]) -> list[Path]:
    made = []
    for name in ("s0.jsonl", "s0-a/session.jsonl", "s0 b/session.jsonl", "s0/a.jsonl", "s0.x/session.jsonl",
                 "s0/session.jsonl.zst"):
        target = root / "logs" / name
        target.parent.mkdir(exist_ok=True)
        if name.endswith(".zst"):
            target.write_bytes(zstandard.ZstdCompressor().compress(logs[2].read_bytes()))
        else:
            target.write_bytes(logs[2].read_bytes())
        made += [target, target.parent]
    return made


def _rename_over(root: Path, logs: list[Path]) -> list[Path]:
    shutil.rmtree(logs[0].parent)
    logs[1].parent.rename(logs[0].parent)
    return [logs[0].parent, root / "logs"]


def _moved(root: Path, logs: list[Path]) -> list[Path]:
    logs[0].rename(logs[1].with_name("moved.jsonl"))
    return [logs[0].parent, logs[1].parent]


def _into_other(root: Path, logs: list[Path]) -> list[Path]:
    logs[0].parent.rename(logs[1].parent / "inner")
    return [root / "logs", logs[1].parent, logs[1].parent / "inner"]


def _linked_folder(root: Path, logs: list[Path]) -> list[Path]:
    folder = logs[2].parent
    shutil.rmtree(folder)
    folder.symlink_to(logs[0].parent.name)
    return [folder, folder.parent]


def _empty(root: Path, logs: list[Path]) -> list[Path]:
    (root / "logs" / "empty" / "deeper").mkdir(parents=True)
    return [root / "logs" / "empty" / "deeper", root / "logs" / "empty", root / "logs"]


def _new(root: Path, logs: list[Path]) -> list[Path]:
    target = root / "logs" / "a" / "session.jsonl"
    target.parent.mkdir()
    target.write_bytes(logs[1].read_bytes())
    return [target, target.parent, root / "logs"]


def _strange_names(root: Path, logs: list[Path]) -> list[Path]:
    made = []
    for name in (os.fsdecode(b"caf\xe9.jsonl"), "\u00e9t\u00e9.jsonl", "a\nb.jsonl", 'q"uote.jsonl',
                 "back\\slash.jsonl", "\x1b[31mred.jsonl", "\u202eevil.jsonl", "Z.jsonl", "_.jsonl", "~.jsonl"):
        target = logs[1].parent / name
        target.write_bytes(logs[2].read_bytes())
        made.append(target)
    return [*made, logs[1].parent]


_OPS: dict[str, Op] = {"strange names": _strange_names,
                       "twin": _twin, "twin only": _twin_only, "file to folder": _file_to_folder,
                       "folder to file": _folder_to_file, "odd names": _odd_names, "rename over": _rename_over,
                       "moved": _moved, "into other": _into_other, "linked folder": _linked_folder, "empty": _empty,
                       "new": _new}
_ROOTS = {"logs": ["logs"], "slash": ["logs/"], "dot": ["./logs"], "twice": ["logs", "./logs"],
          "dotdot": ["logs/../logs"], "double slash": ["logs//"], "split": ["logs/s1", "logs/s0", "logs/s2"],
          "nested": ["logs", "logs/s0"], "linked": ["logs", "link"], "absolute": ["ABS/logs"],
          "file beside": ["logs/s1/session.jsonl", "logs/s0", "logs"]}


@pytest.mark.parametrize("roots", list(_ROOTS.values()), ids=list(_ROOTS))
@pytest.mark.parametrize("op", list(_OPS.values()), ids=list(_OPS))
def test_structural_change_amended_as_the_full_audit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    roots: list[str], op: Op) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "link").symlink_to("logs/s0")
    answered = _check(tmp_path, [root.replace("ABS", str(tmp_path)) for root in roots], op)
    if roots == ["logs"] and op is not _linked_folder:  # a folder turned link is a search's change: run in full
        assert answered, "the plan amends a change of the folders it searched"


def _rewrite(record: Path, rows_of: Callable[[list[quick.Seen]], list[quick.Seen]]) -> None:
    """The record rewritten as anyone who may write the cache's folder can (its digest made again)."""
    code, seen, plan, report = quick._parts(record.read_bytes())
    rows = quick.seen_bytes(rows_of(quick.seen_rows(seen)))
    record.write_bytes(quick.record_bytes(rows, code, bytes(report), plan))


@pytest.mark.parametrize("changed", [False, True], ids=["unchanged", "amended"])
def test_a_hostile_cache_row_lists_no_folder_the_command_does_not_search(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changed: bool) -> None:
    """A record's row of kind ``CACHE`` names any folder: the run record's check lists
    it, and every folder below it (up to ``MAX_CACHE_NAMES`` names per row, each row
    again: many rows of a large folder are a hang), though neither the command's search
    nor its cache is there."""
    logs = _tree(tmp_path, 2)
    private = tmp_path / "private" / "inner"
    private.mkdir(parents=True)
    (private / "notes.txt").write_bytes(b"secret\n")
    monkeypatch.chdir(tmp_path)
    _replay(_args(["logs"]))
    [record] = _records(tmp_path / "cache")
    _rewrite(record, lambda rows: [*rows, *[(str(tmp_path / "private"), False, quick.CACHE, None)] * 3])
    if changed:
        _at([*logs, logs[0].parent], 5)
    listed: list[str] = []
    scandir = os.scandir

    def spy(path: object = ".") -> object:
        listed.append(os.path.abspath(os.fsdecode(path)))  # type: ignore[arg-type]
        return scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", spy)
    _replay(_args(["logs"]))
    outside = [path for path in listed if at_or_below(path, str(tmp_path / "private"))]
    assert not outside


@pytest.mark.parametrize("args", [["audit", "--format", "json", "."], ["audit", "--format", "json", "--cache-dir",
                                                                       "logs/../cache", "."]])
def test_a_record_of_a_search_through_the_cache_s_folder_still_answers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
    logs = _tree(tmp_path, 2)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(quick.CACHE_ENV, raising=False)
    assert not _replay(args)[0]
    _at([p for p in (tmp_path, tmp_path / ".replay") if p.exists()], 3)  # where the cache was made: long ago
    assert not _replay(args)[0]
    assert _replay(args)[0]
    _at([logs[0]], 5)
    assert _replay(args)[0]


@pytest.mark.parametrize("where", ["urls", "entries"])
def test_a_shard_nested_too_deep_is_a_shard_ignored_not_a_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """The cache's folder is anyone's who may write it: a shard whose JSON nests past the
    recursion limit (its entries are ``msgspec.Raw``, yet the shard's decoding walks
    them) is one this version did not write, as a shard of any other wrong shape is;
    the audit in full reports, it raises nothing."""
    logs = _tree(tmp_path, 2)
    monkeypatch.chdir(tmp_path)
    _replay(_args(["logs"]))
    deep = b"[" * 100_000 + b"]" * 100_000
    for shard in (tmp_path / "cache").glob("a1-*/*.json"):
        data = shard.read_bytes()
        data = data.replace(b'"urls":{}', b'"urls":{"x":%s}' % deep) if where == "urls" else \
            data.replace(b'"entries":{', b'"entries":{"x":%s,' % deep)
        shard.write_bytes(data)
    _at([logs[0]], 5)
    shutil.copytree(tmp_path / "cache", tmp_path / "before")
    from click.testing import CliRunner

    from replay.cli import main

    result = CliRunner().invoke(main, _args(["logs"], "before"))
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(quick, "command_line", None)  # the run the amendment falls back to, on the damaged cache
        again = CliRunner().invoke(main, _args(["logs"]))
    assert again.exception is None or isinstance(again.exception, SystemExit), repr(again.exception)


def test_an_amendment_given_up_leaves_the_full_run_the_cache_it_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A shard that is not one this version wrote (cut short: a disk's damage, anyone's
    write): the amendment audits the log that changed, meets the shard, which is a note
    (it gives up: the full run says it), but it has written the cache by then (the shard
    anew): the full run it leaves says nothing of the shard and counts its log as
    cached, where the full run on the cache as it was says the note and reads it again."""
    logs = _tree(tmp_path, 3)
    monkeypatch.chdir(tmp_path)
    _replay(_args(["logs"]))
    for shard in (tmp_path / "cache").glob("a1-*/*.json"):
        shard.write_bytes(shard.read_bytes()[:-5])
    _at([logs[0]], 5)
    shutil.copytree(tmp_path / "cache", tmp_path / "before")
    answered, code, out = _replay(_args(["logs"]))
    assert not answered
    assert (code, out) == _slow(_args(["logs"], "before"))


def _production(root: Path, logs: list[Path]) -> list[Path]:
    """The logs moved into a production session root (rule A10 judges them there)."""
    project = root / "logs" / "--home-dev-proj--"
    project.mkdir()
    moved = []
    for log in logs:
        log.parent.rename(project / log.parent.name)
        moved.append(project / log.parent.name / log.name)
    return moved


@pytest.mark.parametrize("op", ["twin", "twin gone", "twin only", "project renamed", "twin folder"])
def test_rule_a10_s_twin_in_a_production_root_amended_as_the_full_audit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, op: str) -> None:
    monkeypatch.chdir(tmp_path)
    logs = _production(tmp_path, _tree(tmp_path, 3))
    twin = logs[0].with_name("session.jsonl.zstd")
    if op == "twin gone":
        twin.write_bytes(zstandard.ZstdCompressor().compress(logs[0].read_bytes()))
    from tests.check.test_quick import _age

    _age(tmp_path)
    assert not _replay(_args(["logs"]))[0]
    touched = [twin.parent]
    if op in ("twin", "twin only"):
        twin.write_bytes(zstandard.ZstdCompressor().compress(logs[0].read_bytes()))
        touched.append(twin)
        if op == "twin only":
            logs[0].unlink()
    elif op == "twin gone":
        twin.unlink()
    elif op == "twin folder":
        twin.mkdir()
        touched.append(twin)
    else:
        project = twin.parent.parent
        project.rename(project.with_name("--home-dev-other--"))
        touched = [project.parent, project.with_name("--home-dev-other--")]
    _at(touched, 5)
    shutil.copytree(tmp_path / "cache", tmp_path / "before")
    answered, code, out = _replay(_args(["logs"]))
    assert (code, out) == _slow(_args(["logs"], "before")), answered


def test_a_log_in_a_folder_the_search_cannot_list_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder that cannot be listed (``chmod 311``: its files can be read, it cannot be
    searched) is passed over by the command's search, its logs unread; a record whose
    row for the folder is its status now (anyone who may write the cache can stat it)
    and whose log changed makes the amendment read that log, which the search never
    would (here the folder's listing refused, as for a user without its read bit)."""
    logs = _tree(tmp_path, 3)
    monkeypatch.chdir(tmp_path)
    _replay(_args(["logs"]))
    hidden = str(logs[1].parent)
    scandir = os.scandir

    def refusing(path: object = ".") -> object:
        if os.path.abspath(os.fsdecode(path)) == hidden:  # type: ignore[arg-type]
            raise PermissionError(13, "Permission denied", os.fsdecode(path))  # type: ignore[arg-type]
        return scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", refusing)
    data = logs[1].read_bytes()
    logs[1].write_bytes(data + data[data.rstrip(b"\n").rfind(b"\n") + 1:])
    _at([logs[1]], 5)
    shutil.copytree(tmp_path / "cache", tmp_path / "before")
    answered, code, out = _replay(_args(["logs"]))
    assert not answered
    assert (code, out) == _slow(_args(["logs"], "before"))


def test_a_folder_below_one_the_search_cannot_list_is_not_listed(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """As for a log: a folder the search reaches only through one it cannot list is
    never listed by the amendment (here a new log in it: its row changed)."""
    logs = _tree(tmp_path, 3)
    deep = logs[1].parent / "sub"
    deep.mkdir()
    (deep / "session.jsonl").write_bytes(logs[2].read_bytes())
    from tests.check.test_quick import _age

    _age(tmp_path)
    monkeypatch.chdir(tmp_path)
    _replay(_args(["logs"]))
    hidden = str(logs[1].parent)
    scandir = os.scandir
    listed: list[str] = []

    def refusing(path: object = ".") -> object:
        where = os.path.abspath(os.fsdecode(path))  # type: ignore[arg-type]
        listed.append(where)
        if where == hidden:
            raise PermissionError(13, "Permission denied", os.fsdecode(path))  # type: ignore[arg-type]
        return scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", refusing)
    (deep / "more.jsonl").write_bytes(logs[0].read_bytes())
    _at([deep / "more.jsonl", deep], 5)
    shutil.copytree(tmp_path / "cache", tmp_path / "before")
    listed.clear()
    answered, code, out = _replay(_args(["logs"]))
    assert not answered
    assert (code, out) == _slow(_args(["logs"], "before"))
    assert hidden in listed and str(deep) not in listed


@pytest.mark.parametrize("roots", [["other", "logs"], ["logs", "other"]])
def test_logs_new_to_a_folder_that_had_none_amended_as_the_full_audit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, roots: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "other").mkdir()
    os.utime(tmp_path / "other", ns=(OLD, OLD))

    def op(root: Path, logs: list[Path]) -> list[Path]:
        (root / "other" / "x").mkdir()
        (root / "other" / "x" / "session.jsonl").write_bytes(logs[0].read_bytes())
        (root / "other" / "a.jsonl").write_bytes(logs[1].read_bytes())
        return [root / "other" / "x" / "session.jsonl", root / "other" / "x", root / "other" / "a.jsonl",
                root / "other"]

    assert _check(tmp_path, roots, op)
