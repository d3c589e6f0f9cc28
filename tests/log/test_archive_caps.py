"""Hostile archives: every size a ``.tar`` or ``.tar.zst`` declares is checked before
anything is read for it. Each bomb is built here from hand-made headers (a few hundred
bytes on disk): a pax header declaring 3 GiB, a member declaring 1 TB (or 2**88 - 1
bytes), more members than the cap, chains of extended headers, a sparse map that
never ends. Each is a ``LIMIT`` (or ``IO``) finding for the archive, after the
reports of the logs before it; the links and devices named like logs are passed
over, and told."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import tarfile
import tracemalloc
from pathlib import Path
from typing import Any

import orjson
import pytest
import zstandard
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.check import engine, runner
from replay.check.engine import audit_archive
from replay.cli import main
from replay.log.archive import MAX_HEADER_BYTES, MAX_HEADER_CHAIN, MAX_NAME, archive_sources
from replay.log.reader import Limits
from replay.log.source import Archive, LocalFile
from replay.log.zstd import FrameWalk
from tests.helpers import REPO, TODO_WRITE, dump, records

LOG = dump(records(TODO_WRITE))
GIB = 1 << 30
TB = 10**12


def header(name: str, size: int = 0, kind: bytes = tarfile.REGTYPE, fmt: int = tarfile.GNU_FORMAT,
           **fields: Any) -> bytes:
    """A member header as a tar tool writes it (GNU: sizes past 8 GiB in base 256;
    pax: in a pax header of its own), declaring ``size`` bytes whatever follows."""
    info = tarfile.TarInfo(name)
    info.size, info.type = size, kind
    for key, value in fields.items():
        setattr(info, key, value)
    return info.tobuf(format=fmt)


def member(name: str, data: bytes) -> bytes:
    """A regular member with its data, padded to the block."""
    return header(name, len(data)) + data + bytes(-len(data) % tarfile.BLOCKSIZE)


END = bytes(2 * tarfile.BLOCKSIZE)


def zst(data: bytes) -> bytes:
    return zstandard.ZstdCompressor().compress(data)


def write(folder: Path, name: str, data: bytes) -> str:
    """The archive ``name`` (``.tar.zst``: compressed) in ``folder``; its path."""
    path = folder / name
    path.write_bytes(zst(data) if name.endswith(".zst") else data)
    return str(path)


def audit(*args: str) -> tuple[int, list[tuple[str, str, int, list[tuple[str, str]]]], dict[str, Any], str]:
    """``replay audit --format json ARGS`` in process: exit status, each report as
    ``(path, status, events, [(rule, message)])``, the document, standard error."""
    result = CliRunner().invoke(main, ["audit", "--format", "json", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    doc = orjson.loads(result.stdout)
    return result.exit_code, [(f["path"], f["status"], f["events"], [(x["rule"], x["message"]) for x in f["findings"]])
                              for f in doc["files"]], doc, result.stderr


def ok(path: str) -> tuple[str, str, int, list[tuple[str, str]]]:
    """The report of the clean log ``LOG`` at ``path``."""
    return (path, "ok", 115, [])


def limit(path: str, message: str) -> tuple[str, str, int, list[tuple[str, str]]]:
    return (path, "unreadable", 0, [("LIMIT", message)])


def damaged(path: str, message: str) -> tuple[str, str, int, list[tuple[str, str]]]:
    return (path, "unreadable", 0, [("IO", message)])


def log_over_cap(cap: int) -> str:
    return (f"the log exceeds the reader's limit of {cap} bytes and was not read (raise --max-log-bytes if this is a "
            "real log)")


def stream_over_cap(at: int, cap: int = GIB) -> str:
    return (f"the archive, read as one stream, from its member at byte {at} on exceeds the reader's limit of {cap} "
            "bytes and was not read (raise --max-log-bytes if this is a real archive)")


def headers_over_cap(at: int) -> str:
    return (f"the headers of the member at byte {at} (pax headers, GNU long names, a sparse map) take more than "
            f"{MAX_HEADER_BYTES} bytes or {MAX_HEADER_CHAIN} extended headers, the most replay reads for one member: "
            "the members from there on were not read (a tar tool never writes such headers: make the archive again)")


def cut_inside_a_member(at: int) -> str:
    return (f"the archive ends at byte {at}, inside a member: it was cut short, and the logs after the cut are "
            "missing (make the archive again)")


FIRST = member("logs/a.jsonl", LOG)
"""A clean log ahead of every bomb: its report stands."""


# -- extended headers ----------------------------------------------------------------


def sparse_map_without_end(blocks: int) -> bytes:
    """An old GNU sparse member whose map goes on in extension block after extension
    block (each saying another follows), for ``blocks`` blocks."""
    block = bytearray(header("logs/sparse.jsonl", 10))
    block[156:157] = tarfile.GNUTYPE_SPARSE
    block[482] = 1  # an extension block follows
    block[148:156] = b" " * 8
    block[148:156] = b"%06o\0 " % sum(block)
    extension = bytearray(tarfile.BLOCKSIZE)
    extension[504] = 1
    return bytes(block) + bytes(extension) * blocks


EXTENDED = {
    "a pax header declaring 3 GiB": header("pax", 3 * GIB, tarfile.XHDTYPE, tarfile.USTAR_FORMAT),
    "a global pax header declaring 3 GiB": header("pax", 3 * GIB, tarfile.XGLTYPE, tarfile.USTAR_FORMAT),
    "a GNU long name declaring 3 GiB": header("././@LongLink", 3 * GIB, tarfile.GNUTYPE_LONGNAME),
    "a GNU long link declaring 3 GiB": header("././@LongLink", 3 * GIB, tarfile.GNUTYPE_LONGLINK),
    "a pax header a block over the cap": header("pax", MAX_HEADER_BYTES - 1023, tarfile.XHDTYPE, tarfile.USTAR_FORMAT),
    "a chain of extended headers": (header("././@LongLink", 13, tarfile.GNUTYPE_LONGNAME)
                                    + b"logs/x.jsonl\0".ljust(tarfile.BLOCKSIZE, b"\0")) * (MAX_HEADER_CHAIN + 1),
    "a sparse map that never ends": sparse_map_without_end(MAX_HEADER_BYTES // tarfile.BLOCKSIZE),
}


@pytest.mark.parametrize("suffix", [".tar", ".tar.zst"])
@pytest.mark.parametrize("bomb", list(EXTENDED))
def test_extended_headers_over_the_cap_stop_the_archive_after_the_logs_before(tmp_path: Path, bomb: str,
                                                                              suffix: str) -> None:
    """``tarfile`` reads an extended header whole (a 3 GiB pax header was a
    ``MemoryError``), and a chain of them recursively: the read is refused before it
    is made, and the logs before stand."""
    data = FIRST + EXTENDED[bomb] + bytes(4 * MAX_HEADER_BYTES) + member("logs/b.jsonl", LOG) + END
    path = write(tmp_path, f"bomb{suffix}", data)
    for jobs in ("1", "2"):
        code, reports, _, _ = audit("--jobs", jobs, path)
        assert (code, reports) == (1, [ok(f"{path}/logs/a.jsonl"), limit(path, headers_over_cap(len(FIRST)))])


def test_a_global_header_keeps_what_tarfile_applies(tmp_path: Path) -> None:
    """A global pax header holds fields for every member after it; those tarfile does
    not apply (any number of them) are dropped, the ones it applies still are."""
    noise = {f"x.{i}": "y" for i in range(2000)}
    data = (tarfile.TarInfo.create_pax_global_header({**noise, "uname": "someone"})
            + member("logs/a.jsonl", LOG) + END)
    path = write(tmp_path, "global.tar", data)
    assert audit(path)[:2] == (0, [ok(f"{path}/logs/a.jsonl")])
    with tarfile.open(path) as whole:  # what tarfile makes of it alone: the same member
        assert whole.getmember("logs/a.jsonl").uname == "someone"


# -- declared sizes ------------------------------------------------------------------


def huge_members() -> dict[str, tuple[bytes, Any]]:
    """Archives of members that declare more than any archive holds, and their
    expected reports (as functions of the archive's path)."""
    at = len(FIRST)
    after = member("logs/c.jsonl", LOG) + END
    return {
        "a log declaring 1 TB.tar.zst": (FIRST + header("logs/big.jsonl", TB) + after, lambda p: [
            ok(f"{p}/logs/a.jsonl"), limit(f"{p}/logs/big.jsonl", log_over_cap(GIB)), limit(p, stream_over_cap(at))]),
        "a file declaring 1 TB.tar.zst": (FIRST + header("big.bin", TB) + after, lambda p: [
            ok(f"{p}/logs/a.jsonl"), limit(p, stream_over_cap(at))]),
        "a file declaring 2**88 - 1 bytes.tar.zst": (FIRST + header("big.bin", 2**88 - 1) + after, lambda p: [
            ok(f"{p}/logs/a.jsonl"), limit(p, stream_over_cap(at))]),
        "a pax size of 10**30.tar.zst": (FIRST + header("big.bin", 10**30, fmt=tarfile.PAX_FORMAT) + after,
                                         lambda p: [ok(f"{p}/logs/a.jsonl"), limit(p, stream_over_cap(at))]),
        "a log declaring 1 TB.tar": (FIRST + header("logs/big.jsonl", TB) + after, lambda p: [
            ok(f"{p}/logs/a.jsonl"), limit(f"{p}/logs/big.jsonl", log_over_cap(GIB)),
            damaged(p, cut_inside_a_member(len(FIRST + header("logs/big.jsonl", TB) + after)))]),
        "a file declaring 2**88 - 1 bytes.tar": (FIRST + header("big.bin", 2**88 - 1) + after, lambda p: [
            ok(f"{p}/logs/a.jsonl"), damaged(p, cut_inside_a_member(len(FIRST + header("big.bin", 1) + after)))]),
    }


def test_members_declaring_a_terabyte_and_more_end_at_once_in_a_real_process(tmp_path: Path) -> None:
    """A streamed tar is passed over by reading: a member declaring 1 TB took 62 s of
    decompressing nothing, 2**88 bytes never ended, and in a seekable ``.tar`` the
    seek was a ``ValueError``. Each is now a finding; the timeout is a hang guard."""
    cases = huge_members()
    paths = [write(tmp_path, name.replace(" ", "-"), data) for name, (data, _) in cases.items()]
    proc = subprocess.run([sys.executable, "-m", "replay", "audit", "--jobs", "1", "--format", "json", *paths],
                          cwd=REPO, capture_output=True, timeout=120, env={**os.environ, "NO_COLOR": "1"})
    assert proc.returncode == 1, proc.stderr.decode(errors="replace")
    got = [(f["path"], f["status"], f["events"], [(x["rule"], x["message"]) for x in f["findings"]])
           for f in orjson.loads(proc.stdout)["files"]]
    assert got == [report for path, (_, expect) in zip(paths, cases.values(), strict=True) for report in expect(path)]


def test_a_log_over_the_cap_in_a_seekable_tar_is_seeked_over_and_the_logs_after_it_read(tmp_path: Path) -> None:
    """In a ``.tar`` on disk, a member over ``--max-log-bytes`` is not read, and the
    ones after it are; a ``.tar.zst`` is read as one stream under the same cap, so
    it stops at that member (passing over it would read it)."""
    big = dump(records(TODO_WRITE) * 3)
    cap = len(LOG) + 4096
    data = FIRST + member("logs/big.jsonl", big) + member("logs/c.jsonl", LOG) + END
    plain, packed = write(tmp_path, "logs.tar", data), write(tmp_path, "logs.tar.zst", data)
    for jobs in ("1", "2"):
        code, reports, _, _ = audit("--jobs", jobs, "--max-log-bytes", str(cap), plain, packed)
        assert (code, reports) == (1, [
            ok(f"{plain}/logs/a.jsonl"), limit(f"{plain}/logs/big.jsonl", log_over_cap(cap)),
            ok(f"{plain}/logs/c.jsonl"),
            ok(f"{packed}/logs/a.jsonl"), limit(f"{packed}/logs/big.jsonl", log_over_cap(cap)),
            limit(packed, stream_over_cap(len(FIRST), cap))])


# -- member count ----------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".tar", ".tar.zst"])
def test_members_past_the_cap_are_a_limit_finding_for_the_archive(tmp_path: Path, suffix: str) -> None:
    """1 M empty members were read, kept and audited one by one (683 MB, 37 s); at
    most ``max_archive_members`` are read."""
    empty = header("logs/e.jsonl") + header("e.bin")
    data = FIRST + empty * 10 + member("logs/late.jsonl", LOG) + END
    path = write(tmp_path, f"many{suffix}", data)
    reports = audit_archive(Archive(path, LocalFile(path)), limits=Limits(max_archive_members=21))
    assert [(r.path, r.status, r.events, [(f.rule, f.message) for f in r.findings]) for r in reports] == [
        ok(f"{path}/logs/a.jsonl"), limit(path, (
            f"the archive holds more than 21 members, the most replay reads from one archive: the members from byte "
            f"{len(FIRST + empty * 10)} on were not read (extract the archive and audit its folder)"))]
    assert [r.path for r in audit_archive(Archive(path, LocalFile(path)), limits=Limits(max_archive_members=22))] == [
        f"{path}/logs/a.jsonl", f"{path}/logs/late.jsonl"]


def test_the_members_read_are_not_kept(tmp_path: Path) -> None:
    """Memory does not grow with the members read (tarfile kept every one: 1,500
    more members were 0.7 MB more)."""
    def peak(count: int) -> int:
        path = write(tmp_path, f"many-{count}.tar.zst", FIRST + header("e.bin") * count + END)
        tracemalloc.start()
        try:
            assert [s.path for s in archive_sources(Archive(path, LocalFile(path)))] == [f"{path}/logs/a.jsonl"]
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    assert peak(2000) - peak(500) < 300_000


# -- what is passed over, and how an archive is cut ------------------------------------


def test_links_and_devices_named_like_logs_are_passed_over_and_told(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Told as a folder search's are, on stderr and in the report, from a worker too."""
    monkeypatch.setattr(runner, "BATCH_UNITS", 1)  # each archive a batch: two batches start the workers
    data = (FIRST + header("logs/sym.jsonl", kind=tarfile.SYMTYPE, linkname="/etc/passwd")
            + header("logs/hard.jsonl", kind=tarfile.LNKTYPE, linkname="logs/a.jsonl")
            + header("logs/tty.jsonl", kind=tarfile.CHRTYPE) + header("logs/disk.jsonl.zstd", kind=tarfile.BLKTYPE)
            + header("logs/pipe.jsonl", kind=tarfile.FIFOTYPE) + header("logs/folder.jsonl/", kind=tarfile.DIRTYPE)
            + header("../out.jsonl", kind=tarfile.SYMTYPE, linkname="x") + header("logs/sym.bin", kind=tarfile.SYMTYPE)
            + END)
    path, other = write(tmp_path, "links.tar.zst", data), write(tmp_path, "other.tar", FIRST + END)
    why = [("logs/sym.jsonl", "a symbolic link (links in an archive are not followed)"),
           ("logs/hard.jsonl", "a hard link (links in an archive are not followed)"),
           ("logs/tty.jsonl", "a device"), ("logs/disk.jsonl.zstd", "a device"),
           ("logs/pipe.jsonl", "a FIFO (named pipe)")]
    passed = [(f"{path}/{name}", reason) for name, reason in why] + [
        (path, "a symbolic link (links in an archive are not followed)")]
    for jobs in ("1", "2"):
        code, reports, doc, err = audit("--jobs", jobs, path, other)
        assert (code, reports) == (0, [ok(f"{path}/logs/a.jsonl"), ok(f"{other}/logs/a.jsonl")])
        assert doc["passed_over"] == [{"path": p, "reason": r} for p, r in passed]
        assert err == "".join(f"replay audit: passed over {p}: {r}\n" for p, r in passed)


def test_a_small_tar_zst_cut_inside_its_only_block_says_so(tmp_path: Path) -> None:
    """It was "not a readable zstd-compressed tar archive (empty file)"."""
    data = zst(FIRST + END)
    path = tmp_path / "cut.tar.zst"
    path.write_bytes(data[:-10])
    assert audit(str(path))[:2] == (1, [damaged(str(path), (
        "the archive's Zstandard stream is cut short inside the frame that starts at byte 0 of the compressed file: "
        "the logs after the cut are missing (make the archive again)"))])
    (tmp_path / "empty.tar.zst").write_bytes(b"")  # nothing at all is still no tar archive
    assert audit(str(tmp_path / "empty.tar.zst"))[:2] == (1, [damaged(
        str(tmp_path / "empty.tar.zst"), "not a readable zstd-compressed tar archive (empty file)")])


def test_a_log_with_a_name_longer_than_a_file_can_have_is_reported_on_the_archive(tmp_path: Path) -> None:
    name = "logs/" + "n" * MAX_NAME + ".jsonl"
    data = FIRST + member(name, LOG) + member("logs/c.jsonl", LOG) + END
    path = write(tmp_path, "long.tar.zst", data)
    assert audit(path)[:2] == (1, [ok(f"{path}/logs/a.jsonl"), damaged(path, (
        f"the file cannot be read: a member named like a log has a name of {len(name)} characters, longer than a "
        f"file's can be ({MAX_NAME}), so it was not read; make the archive with the files' own names")),
        ok(f"{path}/logs/c.jsonl")])


def test_the_audit_of_an_archive_never_raises(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug of ours is an INTERNAL finding for the archive, after the logs before."""
    path = write(tmp_path, "logs.tar", FIRST + FIRST + END)

    def failing(*args: Any, **kwargs: Any) -> Any:
        sources = archive_sources(*args, **kwargs)
        yield next(sources)
        raise RuntimeError("a bug")

    monkeypatch.setattr(engine, "archive_sources", failing)
    reports = audit_archive(Archive(path, LocalFile(path)))
    assert [(r.path, r.status, [(f.rule, f.message) for f in r.findings]) for r in reports] == [
        (f"{path}/logs/a.jsonl", "ok", []),
        (path, "unreadable", [("INTERNAL", "replay failed on this archive (RuntimeError: a bug); please report it "
                                           "with the archive attached")])]


@settings(max_examples=50, deadline=None)
@given(frames=st.lists(st.tuples(st.binary(max_size=300) | st.integers(0, 400_000).map(lambda n: b"a" * n),
                                 st.booleans()), min_size=1, max_size=3),
       cut=st.integers(0, 10**9), chunks=st.lists(st.integers(1, 70_000), min_size=1, max_size=8))
def test_the_frame_walk_tells_a_stream_cut_inside_a_frame(frames: list[tuple[bytes, bool]], cut: int,
                                                          chunks: list[int]) -> None:
    """Fed in any pieces, the walk says whether the bytes end between frames."""
    packed = [zstandard.ZstdCompressor(write_checksum=checksum).compress(data) for data, checksum in frames]
    whole = b"".join(packed)
    ends = {0, *itertools.accumulate(len(frame) for frame in packed)}
    for at in (cut % (len(whole) + 1), *ends):
        walk, pos = FrameWalk(), 0
        for size in itertools.cycle(chunks):
            if pos >= at:
                break
            walk.feed(whole[pos:min(at, pos + size)])
            pos += size
        assert (walk.cut, walk.damaged) == (at not in ends, False)
