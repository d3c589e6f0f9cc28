"""The audit cache (``replay.check.cache``): reports byte for byte those of an audit
without it, cold, warm and after appends; rule H1 for a rewritten log, never for one
only touched, copied or restored; one writer (merges, concurrent audits, a kill while
writing); a broken cache ignored with one line and written anew; pruning."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import msgspec
import orjson
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.check import cache as cache_module
from replay.check import resume
from replay.check.audit import Audit, AuditRequest
from replay.check.cache import FAULT_ENV, CacheRequest
from replay.check.engine import AuditResult
from replay.cli import main
from replay.report.registry import AUDIT_FORMATS
from tests.helpers import REPO, corpus_root, examples

FOLDERS = ("acp-2026-06-29", "acp-2026-07-23", "sessions-2026-08-20")


def _corpus(tmp_path: Path) -> Path:
    root = corpus_root()
    if not all((root / name).exists() for name in FOLDERS):
        pytest.skip(f"corpus folders {FOLDERS} are absent (set REPLAY_CORPUS to the shared corpus folder)")
    logs = tmp_path / "logs"
    for name in FOLDERS:
        shutil.copytree(root / name, logs / name)
    for path in logs.rglob("*"):
        if path.is_file():
            path.chmod(0o644)
    return logs


def _cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["audit", *args])
    return result.exit_code, result.stdout, result.stderr


def _uncounted(fmt: str, text: str) -> str:
    """A report without the cache's count (what an audit without the cache writes)."""
    if fmt == "json":
        doc = orjson.loads(text)
        doc["summary"].pop("cached", None)
        return orjson.dumps(doc).decode()
    return re.sub(r" \(\d+ from the cache\)", "", text)


def _count(fmt: str, text: str) -> int | None:
    if fmt == "json":
        return int(orjson.loads(text)["summary"].get("cached", 0))
    found = re.search(r" \((\d+) from the cache\)", text)
    return int(found[1]) if found else 0


def _logs(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.jsonl") if p.is_file())


def _append_a_line(path: Path) -> None:
    """The log's last complete record appended again (a log that grew)."""
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    with path.open("ab") as fh:
        fh.write((lines[-1] if lines[-1].endswith(b"\n") else b"\n" + lines[-1]) if lines else b"{}\n")


@pytest.mark.slow
@pytest.mark.parametrize("fmt", list(AUDIT_FORMATS))
def test_every_format_is_byte_identical_cold_warm_and_after_appends(tmp_path: Path, fmt: str) -> None:
    logs = _corpus(tmp_path)
    cache = str(tmp_path / "cache")
    args = ("--format", fmt, str(logs))
    want = _cli("--no-cache", *args)
    assert want[0] == 1
    cold = _cli("--cache-dir", cache, *args)
    assert cold == want  # a cold cache changes nothing, not even a count
    warm = _cli("--cache-dir", cache, *args)
    assert (warm[0], _uncounted(fmt, warm[1]), warm[2]) == (want[0], _uncounted(fmt, want[1]), want[2])
    files = len(orjson.loads(_cli("--no-cache", "--format", "json", str(logs))[1])["files"])
    if fmt in ("text", "json"):
        assert _count(fmt, warm[1]) == files
    grown = [Path(f["path"]) for f in orjson.loads(_cli("--no-cache", "--format", "json", str(logs))[1])["files"]][::7]
    for path in grown:
        _append_a_line(path)
    want = _cli("--no-cache", *args)
    after = _cli("--cache-dir", cache, *args)
    assert (after[0], _uncounted(fmt, after[1]), after[2]) == (want[0], _uncounted(fmt, want[1]), want[2])
    if fmt in ("text", "json"):
        assert _count(fmt, after[1]) == files - len(grown)


def _audit(folder: Path, cache: Path | None, **options: object) -> AuditResult:
    """An audit through the library; with a cache, every log gets a checkpoint to go
    on from (the corpus's logs are below the default threshold)."""
    request = AuditRequest((str(folder),), cache=None if cache is None else CacheRequest(cache, resume_from=0),
                           **options)  # type: ignore[arg-type]
    return Audit(request).run()


def _without_h1(result: AuditResult) -> list[tuple[str, int, list[object]]]:
    return [(r.path, r.events, [f for f in r.findings if f.rule != "H1"]) for r in result.reports]


def _h1(result: AuditResult) -> dict[str, str]:
    return {r.path: f.message for r in result.reports for f in r.findings if f.rule == "H1"}


def _small(tmp_path: Path, count: int = 4) -> list[Path]:
    logs = tmp_path / "logs"
    logs.mkdir()
    sources = sorted((corpus_root() / "sessions-2026-08-20").rglob("session.jsonl"))[:count]
    if len(sources) < count:
        pytest.skip("the shared corpus is absent (set REPLAY_CORPUS to the shared corpus folder)")
    out = []
    for i, source in enumerate(sources):
        target = logs / f"s{i}" / "session.jsonl"
        target.parent.mkdir()
        target.write_bytes(source.read_bytes())
        out.append(target)
    return out


def test_a_changed_byte_is_named_with_its_block_and_said_once(tmp_path: Path) -> None:
    paths = _small(tmp_path)
    folder, cache = tmp_path / "logs", tmp_path / "cache"
    assert _h1(_audit(folder, cache)) == {}
    data = bytearray(paths[1].read_bytes())
    at = len(data) // 3
    data[at] = ord("X") if data[at] != ord("X") else ord("Y")
    paths[1].write_bytes(bytes(data))
    found = _audit(folder, cache)
    [message] = _h1(found).values()
    end = min(len(data), (at // cache_module.BLOCK + 1) * cache_module.BLOCK) - 1
    start = at // cache_module.BLOCK * cache_module.BLOCK
    assert re.fullmatch(rf"this log was rewritten: bytes {start}–{end} differ from what the audit of "
                        r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC read \(the first change among the "
                        rf"{len(data)} bytes audited then\); a session log is only ever appended to, so it was "
                        "audited again in full", message)
    assert _without_h1(found) == _without_h1(_audit(folder, None))
    assert found.cached == 3
    again = _audit(folder, cache)
    assert _h1(again) == {} and again.cached == 4  # said once: the cache holds the log as it is now


def test_a_log_truncated_and_appended_to_again_was_rewritten_and_a_shorter_one_too(tmp_path: Path) -> None:
    paths = _small(tmp_path)
    folder, cache = tmp_path / "logs", tmp_path / "cache"
    _audit(folder, cache)
    data = paths[0].read_bytes()
    lines = data.splitlines(keepends=True)
    paths[0].write_bytes(b"".join(lines[:-2]) + lines[-1] + lines[-2])  # the last two records swapped
    shorter = paths[2].read_bytes()
    paths[2].write_bytes(shorter[: len(shorter) // 2])
    found = _h1(_audit(folder, cache))
    assert set(found) == {str(paths[0]), str(paths[2])}
    assert "differ from what the audit of" in found[str(paths[0])]
    assert (f"the log is now {len(shorter) // 2} bytes long, shorter than the {len(shorter)} bytes audited "
            in found[str(paths[2])])
    assert f"bytes {len(shorter) // 2}–{len(shorter) - 1} are gone" in found[str(paths[2])]


def test_touch_a_copy_with_a_new_mtime_and_a_restored_checkout_are_not_rewrites(tmp_path: Path) -> None:
    paths = _small(tmp_path)
    folder, cache = tmp_path / "logs", tmp_path / "cache"
    want = _without_h1(_audit(folder, None))
    _audit(folder, cache)
    os.utime(paths[0])  # touch
    copy = paths[1].with_name("copy")
    shutil.copy(paths[1], copy)
    os.replace(copy, paths[1])  # a copy over it: another inode, a new mtime
    os.utime(paths[1], ns=(1, 1))
    result = _audit(folder, cache)
    assert (_h1(result), result.cached, _without_h1(result)) == ({}, 4, want)
    pristine = tmp_path / "pristine"
    shutil.copytree(folder, pristine)
    shutil.rmtree(folder)
    shutil.copytree(pristine, folder)  # a fresh checkout: every file new, a restored cache beside it
    result = _audit(folder, cache)
    assert (_h1(result), result.cached, _without_h1(result)) == ({}, 4, want)


def test_a_half_written_last_line_is_not_audited_as_final(tmp_path: Path) -> None:
    [path] = _small(tmp_path, 1)
    folder, cache = tmp_path / "logs", tmp_path / "cache"
    whole = path.read_bytes()
    lines = whole.splitlines(keepends=True)
    half = len(lines[-1]) // 2
    path.write_bytes(b"".join(lines[:-1]) + lines[-1][:half])
    torn = _audit(folder, cache)
    assert _without_h1(torn) == _without_h1(_audit(folder, None))
    path.write_bytes(b"".join(lines[:-1]) + lines[-1][:half] + b"#garbage")  # the torn tail rewritten
    path.write_bytes(whole)  # then the line written whole: an append to the lines audited
    done = _audit(folder, cache)
    assert (_h1(done), _without_h1(done)) == ({}, _without_h1(_audit(folder, None)))


Op = tuple[str, int, int]


@settings(max_examples=examples(40))
@given(st.lists(st.tuples(st.sampled_from(["append", "half", "truncate", "rewrite", "touch", "copy"]),
                          st.integers(0, 2), st.integers(0, 10**6)), min_size=1, max_size=6))
def test_appends_truncations_and_rewrites_between_audits(ops: list[Op]) -> None:
    """After any changes, the cached audit is the uncached one but for H1, which is
    said exactly when the bytes an earlier audit settled no longer begin the log."""
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(scratch)
        paths = _small(tmp, 3)
        folder, cache = tmp / "logs", tmp / "cache"
        _audit(folder, cache)
        settled = {p: p.read_bytes()[: p.read_bytes().rfind(b"\n") + 1] for p in paths}
        for op, which, at in ops:
            path = paths[which]
            data = path.read_bytes()
            if op == "append":
                _append_a_line(path)
            elif op == "half":
                path.write_bytes(data + b'{"type":"turn/st')
            elif op == "truncate":
                path.write_bytes(data[: at % (len(data) + 1)])
            elif op == "rewrite" and data:
                i = at % len(data)
                path.write_bytes(data[:i] + (b"#" if data[i:i + 1] != b"#" else b"$") + data[i + 1:])
            elif op == "touch":
                os.utime(path)
            else:
                copy = path.with_name("copy")
                shutil.copy(path, copy)
                os.replace(copy, path)
            result = _audit(folder, cache)
            reported = {r.path for r in result.reports}  # a file emptied is no session log: not reported
            wanted = {str(p) for p in paths if not p.read_bytes().startswith(settled[p])} & reported
            assert set(_h1(result)) == wanted
            assert _without_h1(result) == _without_h1(_audit(folder, None))
            settled = {p: p.read_bytes()[: p.read_bytes().rfind(b"\n") + 1] for p in paths}


def test_verify_cache_reads_every_log_and_finds_what_the_identity_hid(tmp_path: Path) -> None:
    paths = _small(tmp_path)
    folder, cache = tmp_path / "logs", tmp_path / "cache"
    _audit(folder, cache)
    data = bytearray(paths[3].read_bytes())
    data[len(data) // 2] ^= 1
    paths[3].write_bytes(bytes(data))
    # The cache made to believe the log is as it was (bit rot keeps an identity, a clock may).
    [space] = [p for p in cache.iterdir() if p.is_dir()]
    st = os.stat(paths[3])
    for shard in space.glob("*.json"):
        doc = orjson.loads(shard.read_bytes())
        for entry in doc["entries"].values():
            if entry["reports"] and entry["reports"][0][0] == str(paths[3]):
                entry["identity"] = [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]
                entry["racy"] = False
        shard.write_bytes(orjson.dumps(doc))
    assert _h1(_audit(folder, cache)) == {}
    verified = Audit(AuditRequest((str(folder),), cache=CacheRequest(cache, verify=True))).run()
    assert set(_h1(verified)) == {str(paths[3])} and verified.cached == 3


# -- one writer ------------------------------------------------------------------------------


def test_two_caches_written_one_after_the_other_keep_each_others_entries(tmp_path: Path) -> None:
    paths = _small(tmp_path)
    cache = tmp_path / "cache"
    first = Audit(AuditRequest((str(paths[0].parent), str(paths[1].parent)), cache=CacheRequest(cache)))
    second = Audit(AuditRequest((str(paths[2].parent), str(paths[3].parent)), cache=CacheRequest(cache)))
    assert first.cache is not None
    save, first.cache.save = first.cache.save, lambda: None  # type: ignore[method-assign]
    first.run()  # it read an empty cache, and waits to write
    second.run()  # as did this one, which writes first
    save()
    assert _audit(tmp_path / "logs", cache).cached == 4


def _replaced_after_it_was_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                ) -> tuple[Callable[[], None], cache_module.AuditCache]:
    """An audit that read the one shard (every entry in it) and waits to write, while
    another replaced that shard with the third log's entry: its save, and its cache."""
    monkeypatch.setattr(cache_module, "SHARDS", 1)
    paths = _small(tmp_path)
    cache = tmp_path / "cache"
    Audit(AuditRequest((str(paths[0].parent),), cache=CacheRequest(cache))).run()
    first = Audit(AuditRequest((str(paths[0].parent), str(paths[1].parent)), cache=CacheRequest(cache)))
    second = Audit(AuditRequest((str(paths[2].parent),), cache=CacheRequest(cache)))
    assert first.cache is not None
    save, first.cache.save = first.cache.save, lambda: None  # type: ignore[method-assign]
    first.run()
    second.run()
    return save, first.cache


def test_a_shard_replaced_after_it_was_read_is_read_again_before_it_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A writer merges into the shard on disk now: one it read whose file another audit
    replaced since is read again (one it read that is unchanged is not)."""
    save, _ = _replaced_after_it_was_read(tmp_path, monkeypatch)
    save()
    assert _audit(tmp_path / "logs", tmp_path / "cache").cached == 3


def test_a_shard_unchanged_since_it_was_read_is_not_read_again(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    paths = _small(tmp_path)
    cache = tmp_path / "cache"
    Audit(AuditRequest((str(tmp_path / "logs"),), cache=CacheRequest(cache))).run()
    _append_a_line(paths[1])
    read: list[str] = []
    real = cache_module.AuditCache._read

    def counted(self: cache_module.AuditCache, shard: str) -> dict[str, object]:
        read.append(shard)
        return real(self, shard)  # type: ignore[return-value]

    monkeypatch.setattr(cache_module.AuditCache, "_read", counted)
    assert _audit(tmp_path / "logs", cache).cached == 3
    assert len(read) == len(set(read)) > 0  # each shard read once: the one written was not read again


def test_a_shard_read_again_when_its_write_failed_is_not_written_stale_by_a_later_save(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The entries kept of a shard are those of the file whose status is kept: a shard
    read again (another audit replaced it) whose write then failed is written, at the
    next save, with the other audit's entry."""
    from replay.fs import Tree

    save, first = _replaced_after_it_was_read(tmp_path, monkeypatch)
    real = Tree.write
    failed: list[str] = []

    def failing_once(self: Tree, *parts: str, **options: object) -> object:
        if len(parts) == 2 and not failed:  # the shard's write (not the tag, not the .gitignore)
            failed.append(parts[-1])
            raise OSError(28, "No space left on device")
        return real(self, *parts, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(Tree, "write", failing_once)
    save()
    assert failed and first.notes
    save()
    assert _audit(tmp_path / "logs", tmp_path / "cache").cached == 3


def _popen(cache: Path, folder: Path, env: dict[str, str] | None = None, read: bool = True) -> subprocess.Popen[bytes]:
    """``replay audit`` of ``folder`` as its own process; ``read``: its output is read
    (``communicate``), else it goes nowhere (a JSON report is written as the logs are
    audited: a pipe no one reads would hold the run up)."""
    out = subprocess.PIPE if read else subprocess.DEVNULL
    return subprocess.Popen([sys.executable, "-m", "replay", "audit", "--format", "json", "--cache-dir", str(cache),
                             str(folder)], cwd=REPO, stdout=out, stderr=out, env={**os.environ, **(env or {})})


def test_two_audits_started_together_neither_corrupt_nor_lose_entries(tmp_path: Path) -> None:
    logs = _corpus(tmp_path)
    cache = tmp_path / "cache"
    want = _cli("--no-cache", "--format", "json", str(logs))[1]
    runs = [_popen(cache, logs / FOLDERS[0]), _popen(cache, logs / FOLDERS[1]), _popen(cache, logs)]
    outs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [1, 1, 1]
    assert all(err == b"" for _, err in outs)
    assert _uncounted("json", outs[2][0].decode()) == _uncounted("json", want)
    code, out, err = _cli("--cache-dir", str(cache), "--format", "json", str(logs))
    assert (code, err) == (1, "") and _uncounted("json", out) == _uncounted("json", want)
    assert _count("json", out) == len(orjson.loads(want)["files"])


def test_an_audit_killed_while_writing_leaves_a_cache_the_next_uses_or_discards(tmp_path: Path) -> None:
    logs = _corpus(tmp_path)
    cache, marker = tmp_path / "cache", tmp_path / "writing"
    want = _cli("--no-cache", "--format", "json", str(logs))[1]
    run = _popen(cache, logs, {FAULT_ENV: str(marker)}, read=False)
    for _ in range(6000):  # the run's own pace: it says when it is writing
        if marker.exists() or run.poll() is not None:
            break
        time.sleep(0.05)
    assert marker.exists(), run.communicate()
    run.send_signal(signal.SIGKILL)
    run.wait(timeout=60)
    [space] = [p for p in cache.iterdir() if p.is_dir()]
    assert [p.name for p in space.iterdir() if p.name.startswith(".tmp-")]  # killed in the middle
    code, out, err = _cli("--cache-dir", str(cache), "--format", "json", str(logs))
    assert (code, err) == (1, "") and _uncounted("json", out) == _uncounted("json", want)
    assert 0 < _count("json", out) < len(orjson.loads(want)["files"])  # the first shard was whole
    assert not [p.name for p in space.iterdir() if p.name.startswith(".tmp-")]
    code, out, err = _cli("--cache-dir", str(cache), "--format", "json", str(logs))
    assert _count("json", out) == len(orjson.loads(want)["files"])


# -- a cache that cannot be used -----------------------------------------------------------------


def test_a_corrupt_or_foreign_shard_is_ignored_with_one_line_and_written_anew(tmp_path: Path) -> None:
    paths = _small(tmp_path)
    folder, cache = tmp_path / "logs", tmp_path / "cache"
    want = _cli("--no-cache", str(folder))
    _cli("--cache-dir", str(cache), str(folder))
    [space] = [p for p in cache.iterdir() if p.is_dir()]
    shards = sorted(space.glob("*.json"))
    shards[0].write_bytes(b"\x00garbage{")
    for shard in shards[1:]:
        doc = orjson.loads(shard.read_bytes())
        doc["namespace"] = "a1-" + "0" * 32
        shard.write_bytes(orjson.dumps(doc))
    code, out, err = _cli("--cache-dir", str(cache), str(folder))
    assert (code, out) == want[:2]
    [line] = err.splitlines()
    assert line.startswith(f"replay audit: the audit cache at {space}/") and line.endswith(": ignored, written anew")
    code, out, err = _cli("--cache-dir", str(cache), str(folder))
    assert (code, err, _count("text", out)) == (want[0], "", len(paths))


@pytest.mark.parametrize("bad", [{"size": "big"}, {"length": 10**15}, {"blocks": "AAAA"}, {"reports": 7}])
def test_a_shard_with_an_entry_of_another_shape_is_ignored_with_one_line_and_written_anew(
        tmp_path: Path, bad: dict[str, object]) -> None:
    """An entry is decoded when its log is looked up: one that is not of this format (or
    holds more than its log) makes its whole shard ignored then, as a shard that is not
    JSON of this format is, and never a wrong report."""
    paths = _small(tmp_path)
    folder, cache = tmp_path / "logs", tmp_path / "cache"
    want = _cli("--no-cache", str(folder))
    _cli("--cache-dir", str(cache), str(folder))
    [space] = [p for p in cache.iterdir() if p.is_dir()]
    [shard, *_] = [p for p in sorted(space.glob("*.json")) if orjson.loads(p.read_bytes())["entries"]]
    doc = orjson.loads(shard.read_bytes())
    first = next(iter(doc["entries"]))
    doc["entries"][first] = {**doc["entries"][first], **bad}
    shard.write_bytes(orjson.dumps(doc))
    code, out, err = _cli("--cache-dir", str(cache), str(folder))
    assert (code, _uncounted("text", out)) == want[:2] and _count("text", out) < len(paths)
    [line] = err.splitlines()
    assert line == f"replay audit: the audit cache at {shard} is not a cache this version of replay wrote: " \
        "ignored, written anew"
    code, out, err = _cli("--cache-dir", str(cache), str(folder))
    assert (code, err, _count("text", out)) == (want[0], "", len(paths))


def test_a_cache_folder_that_is_a_file_or_a_link_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _small(tmp_path, 2)
    folder = tmp_path / "logs"
    (tmp_path / "file").write_text("not a folder")
    code, out, err = _cli("--cache-dir", str(tmp_path / "file"), str(folder))
    assert code == 2 and "is a file" in err  # a folder named for it must be one: a usage error
    monkeypatch.delenv(cache_module.CACHE_ENV)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / ".replay").mkdir()
    (tmp_path / ".replay" / "cache").symlink_to(tmp_path / "elsewhere")
    code, out, err = _cli("logs")
    assert (code, out) == _cli("--no-cache", "logs")[:2] and list((tmp_path / "elsewhere").iterdir()) == []
    [line] = err.splitlines()
    assert line.startswith("replay audit: the audit cache is not used: ") and "link" in line


def test_the_default_cache_is_below_the_working_directory_and_says_what_it_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _small(tmp_path, 2)
    monkeypatch.delenv(cache_module.CACHE_ENV)
    monkeypatch.chdir(tmp_path)
    _cli("logs")
    root = tmp_path / ".replay" / "cache"
    assert (root / "CACHEDIR.TAG").read_bytes().startswith(b"Signature: 8a477f597d28d172789f06886806bc55")
    assert (root / ".gitignore").read_text() == "*\n"
    assert _count("text", _cli("logs")[1]) == 2
    assert _count("text", _cli("--select", "A", "logs")[1]) == 0  # another selection, another namespace
    assert len([p for p in root.iterdir() if p.is_dir()]) == 2


def test_no_url_is_cached_without_what_identifies_its_bytes(tmp_path: Path) -> None:
    """fsspec's memory filesystem has no ``ukey`` of its own (a digest of its listing
    is no identity of the bytes): audited every time."""
    fsspec = pytest.importorskip("fsspec")
    [path] = _small(tmp_path, 1)
    cache = tmp_path / "cache"
    fsspec.filesystem("memory").pipe(f"/{tmp_path.name}/session.jsonl", path.read_bytes())
    url = f"memory://{tmp_path.name}/session.jsonl"
    for _ in range(2):
        code, out, _ = _cli("--cache-dir", str(cache), url)
        assert code == 1 and _count("text", out) == 0 and "s0" not in out
    assert [p for p in cache.rglob("*") if p.is_file() and p.suffix == ".json"] == []


SECRET, TOKEN = "hunter2-password", "tok-0123456789abcdef"


def _served_log(tmp_path: Path) -> tuple[dict[str, object], dict[str, object]]:
    """A log served over HTTP: its bytes and headers (``ETag``), which a test changes."""
    [path] = _small(tmp_path, 1)
    return {"body": path.read_bytes()}, {"ETag": '"v1"'}


def test_a_log_at_a_url_is_kept_by_its_etag_and_no_credential(tmp_path: Path) -> None:
    """Over HTTP (a loopback server): the report is reused while the ETag is the same
    (the object is asked for with HEAD, its body not read); a new ETag is audited
    again; the cache holds neither the password of the URL nor its token."""
    pytest.importorskip("aiohttp")
    from tests.loopback import Handler, http_server

    state, headers = _served_log(tmp_path)

    def log(h: Handler) -> None:
        h.reply(200, state["body"], "application/x-ndjson", {k: str(v) for k, v in headers.items()})  # type: ignore[arg-type]

    cache = tmp_path / "cache"
    with http_server({"/logs/session.jsonl": log}) as (base, served):
        url = base.replace("http://", f"http://replay:{SECRET}@") + f"/logs/session.jsonl?token={TOKEN}"
        want = _cli("--no-cache", "--format", "json", url)
        served.idle()
        asked = len(served.requests)
        cold = _cli("--cache-dir", str(cache), "--format", "json", url)
        served.idle()
        cold_asked = [method for method, _, _ in served.requests[asked:]]
        warm = _cli("--cache-dir", str(cache), "--format", "json", url)
        served.idle()
        warm_asked = [method for method, _, _ in served.requests[asked + len(cold_asked):]]
        # Looked up (HEAD), not read: one GET fewer (the one left asks whether the URL exists).
        assert warm_asked.count("HEAD") == 1 and warm_asked.count("GET") == cold_asked.count("GET") - 1
        assert [_count("json", r[1]) for r in (cold, warm)] == [0, 1]
        assert {(r[0], _uncounted("json", r[1]), r[2]) for r in (want, cold, warm)} == \
            {(want[0], _uncounted("json", want[1]), want[2])}
        body = state["body"]
        assert isinstance(body, bytes)
        state["body"] = body + body[body.rstrip(b"\n").rfind(b"\n") + 1:]
        headers["ETag"] = '"v2"'
        grown = _cli("--cache-dir", str(cache), "--format", "json", url)
        assert _count("json", grown[1]) == 0
        assert _uncounted("json", grown[1]) == _uncounted("json", _cli("--no-cache", "--format", "json", url)[1])
        assert _count("json", _cli("--cache-dir", str(cache), "--format", "json", url)[1]) == 1
    kept = b"".join(p.read_bytes() for p in cache.rglob("*") if p.is_file())
    assert b'"v2"' in kept.replace(b'\\"', b'"')
    for secret in (SECRET, TOKEN, "replay:"):
        assert secret.encode() not in kept


@pytest.mark.parametrize("served", [{}, {"ETag": 'W/"weak"'}, {"Last-Modified": "Wed, 02 Dec 2026 10:00:00 GMT"}])
def test_a_log_at_a_url_without_a_strong_validator_is_audited_every_time(
        tmp_path: Path, served: dict[str, str]) -> None:
    pytest.importorskip("aiohttp")
    from tests.loopback import Handler, http_server

    state, _ = _served_log(tmp_path)

    def log(h: Handler) -> None:
        h.reply(200, state["body"], "application/x-ndjson", served)  # type: ignore[arg-type]

    cache = tmp_path / "cache"
    with http_server({"/session.jsonl": log}) as (base, _):
        counts = [_count("text", _cli("--cache-dir", str(cache), f"{base}/session.jsonl")[1]) for _ in range(2)]
    assert counts == [0, 0]
    assert [p for p in cache.rglob("*") if p.is_file() and p.suffix == ".json"] == []


def test_a_log_past_the_log_cap_is_neither_hashed_nor_cached(tmp_path: Path) -> None:
    """The cache reads no more of a log than the audit may: one past ``--max-log-bytes``
    is left to the audit (its LIMIT finding) on every run."""
    [path] = _small(tmp_path, 1)
    cache = tmp_path / "cache"
    cap = str(path.stat().st_size // 2)
    runs = [_cli("--cache-dir", str(cache), "--max-log-bytes", cap, str(path)) for _ in range(2)]
    assert [(code, _count("text", out)) for code, out, _ in runs] == [(1, 0), (1, 0)]
    assert all("LIMIT" in out for _, out, _ in runs)
    assert [p for p in cache.rglob("*") if p.is_file() and p.suffix == ".json"] == []


def test_old_namespaces_are_pruned_by_age_then_by_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _small(tmp_path, 1)
    folder, cache = tmp_path / "logs", tmp_path / "cache"
    cache.mkdir()
    old, recent, other = cache / ("a1-" + "1" * 32), cache / ("a1-" + "2" * 32), cache / "mine"
    for made in (old, recent, other):
        made.mkdir()
        (made / "0.json").write_bytes(b"x" * 1000)
    day = 86_400 * 10**9
    now = time.time_ns()
    os.utime(old, ns=(now - (cache_module.MAX_AGE_DAYS + 1) * day,) * 2)
    os.utime(recent, ns=(now - day,) * 2)
    _audit(folder, cache)
    assert other.exists() and not old.exists() and recent.exists()
    monkeypatch.setattr(cache_module, "MAX_TOTAL_BYTES", 10)
    _small_log = next(folder.rglob("*.jsonl"))
    _small_log.write_bytes(_small_log.read_bytes() + b"\n")
    _audit(folder, cache)
    assert other.exists() and not recent.exists()
    assert len([p for p in cache.iterdir() if p.is_dir() and p.name.startswith("a1-")]) == 1


def test_the_shard_format_is_what_the_module_writes(tmp_path: Path) -> None:
    [path] = _small(tmp_path, 1)
    cache = tmp_path / "cache"
    _audit(tmp_path / "logs", cache)
    [shard] = cache.rglob("*.json")
    doc = orjson.loads(shard.read_bytes())
    [entry] = doc["entries"].values()
    assert doc["format"] == cache_module.FORMAT and doc["namespace"] == shard.parent.name
    size = path.stat().st_size
    assert (entry["size"], entry["length"]) == (size, path.read_bytes().rfind(b"\n") + 1)
    assert len(msgspec.json.decode(orjson.dumps(entry["blocks"]), type=bytes)) == \
        -(-size // cache_module.BLOCK) * cache_module.DIGEST


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_session_browser_is_the_same_site_from_the_cache(tmp_path: Path) -> None:
    _small(tmp_path, 3)
    folder, cache = tmp_path / "logs", str(tmp_path / "cache")
    runs = [CliRunner().invoke(main, ["view", *extra, str(folder), "-o", str(tmp_path / name)])
            for name, extra in (("plain", ["--no-cache"]), ("cold", ["--cache-dir", cache]),
                                ("warm", ["--cache-dir", cache]))]
    assert [r.exit_code for r in runs] == [1, 1, 1] and runs[0].stderr == runs[1].stderr == runs[2].stderr
    plain = _tree(tmp_path / "plain")
    assert _tree(tmp_path / "cold") == plain == _tree(tmp_path / "warm")
    assert [p for p in Path(cache).rglob("*.json")]


def test_the_guide_says_what_the_cache_does_in_the_code_s_numbers() -> None:
    guide = " ".join((REPO / "docs" / "guides" / "audit.md").read_text(encoding="utf-8").split())
    for phrase in (f"used for {cache_module.MAX_AGE_DAYS} days is removed",
                   f"holds at most {cache_module.MAX_TOTAL_BYTES >> 20} MiB",
                   f"each {cache_module.BLOCK >> 10} KiB of it", f"its {cache_module.SHARDS} shard files",
                   f"within {['', 'one', 'two', 'three'][cache_module.RACY_NS // 10**9]} seconds",
                   f"`{cache_module.CACHE_ENV}`", f"`{cache_module.CACHE_FOLDER}/`",
                   f"at least {cache_module.RESUME_FROM_BYTES >> 20} MiB",
                   f"larger than {resume.MAX_CHECKPOINT_BYTES >> 20} MiB", f"a `{cache_module.RESUME_PREFIX}…` file"):
        assert phrase in guide, phrase


def test_a_finding_comes_back_from_the_cache_whole() -> None:
    """Every field of a finding is kept (a field added to ``Finding`` must be added to
    the cache's row, or this fails)."""
    from dataclasses import fields

    from replay.check.engine import LogReport
    from replay.findings import Finding, Severity

    finding = Finding("B4", Severity.WARNING, "m", 3, 2, "turn/start", True, "g", "f" * 32, 7)
    assert len(fields(Finding)) == len(cache_module._FindingRow.__args__)  # type: ignore[attr-defined]
    report = LogReport("p", "findings", 9, [finding])
    assert cache_module._report(cache_module._stored(report)) == report


def test_an_entry_of_impossible_numbers_is_a_broken_shard_not_a_traceback(tmp_path: Path) -> None:
    _small(tmp_path, 2)
    folder, cache = tmp_path / "logs", tmp_path / "cache"
    want = _cli("--no-cache", str(folder))
    for broken in ({"length": -5}, {"length": 10**9}, {"blocks": ""}):
        shutil.rmtree(cache, ignore_errors=True)
        _cli("--cache-dir", str(cache), str(folder))
        for shard in cache.rglob("*.json"):
            doc = orjson.loads(shard.read_bytes())
            for entry in doc["entries"].values():
                entry.update(broken)
            shard.write_bytes(orjson.dumps(doc))
        code, out, err = _cli("--cache-dir", str(cache), str(folder))
        assert (code, out) == want[:2] and err.endswith(": ignored, written anew\n") and len(err.splitlines()) == 1


def test_a_report_of_replay_s_own_failure_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from replay.check import engine

    _small(tmp_path, 2)
    folder, cache = tmp_path / "logs", tmp_path / "cache"

    def failing(*args: object, **kwargs: object) -> object:
        raise RuntimeError("a bug")

    with monkeypatch.context() as patch:
        patch.setattr(engine, "audit_log", failing)
        failed = _audit(folder, cache)
    assert {f.rule for r in failed.reports for f in r.findings} == {"INTERNAL"}
    again = _audit(folder, cache)
    assert (again.cached, _without_h1(again)) == (0, _without_h1(_audit(folder, None)))
