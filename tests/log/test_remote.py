"""Logs where they live: ``memory://``, ``file://``, S3 (a local moto server the test
starts), and ``.tar``/``.tar.zst`` archives find and audit the same logs as the local
copy, with the same report but for the paths. A missing extra is a usage error that
names it."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
import zstandard
from click.testing import CliRunner

from replay import extras
from replay.cli import main
from tests.helpers import REPO, TODO_WRITE, corpus_root, dump, records

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def corpus() -> Path:
    root = corpus_root()
    if not root.is_dir():
        pytest.skip(f"the shared corpus {root} is absent (set REPLAY_CORPUS)")
    return root


def _files(root: Path) -> list[Path]:
    return sorted((p for p in root.rglob("*") if p.is_file()), key=str)  # the order discovery sorts in


def _audit(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["audit", "--no-cache", "--format", "json", *args])  # each run reads
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def _local(corpus: Path) -> tuple[int, str]:
    return _audit("--jobs", "1", str(corpus))


def test_memory_urls_audit_as_the_local_copy(corpus: Path) -> None:
    fsspec = pytest.importorskip("fsspec", reason="fsspec is the remote extra")
    fs = fsspec.filesystem("memory")
    for path in _files(corpus):
        fs.pipe(f"/corpus-copy/{path.relative_to(corpus).as_posix()}", path.read_bytes())
    try:
        code, local = _local(corpus)
        for jobs in ("1", "2"):  # memory:// exists in this process only: its logs are read here
            got = _audit("--jobs", jobs, "memory://corpus-copy")
            assert got == (code, local.replace(f"{corpus}/", "memory://corpus-copy/"))
    finally:
        fs.rm("/corpus-copy", recursive=True)


def test_file_urls_are_local_paths(corpus: Path) -> None:
    assert _audit("--jobs", "1", f"file://{corpus}") == _local(corpus)


def _tar(corpus: Path, compressed: bool) -> bytes:
    """The corpus as a tar (members in sorted order), zstd-compressed or not."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for path in _files(corpus):
            tar.add(path, arcname=f"./{path.relative_to(corpus).as_posix()}", recursive=False)
    data = buf.getvalue()
    return zstandard.ZstdCompressor(level=3).compress(data) if compressed else data


@pytest.mark.parametrize("suffix", [".tar", ".tar.zst"])
def test_an_archive_audits_as_the_folder_it_was_made_from(corpus: Path, tmp_path: Path, suffix: str) -> None:
    archive = tmp_path / f"corpus{suffix}"
    archive.write_bytes(_tar(corpus, compressed=suffix != ".tar"))
    code, local = _local(corpus)
    for jobs in ("1", "2"):
        got = _audit("--jobs", jobs, str(archive))
        assert got == (code, local.replace(f"{corpus}/", f"{archive}/"))
    # Found in a folder, an archive's logs come in the folder's order, as a subfolder's would.
    (tmp_path / "a.jsonl").write_bytes(dump(records(TODO_WRITE)))
    _, found = _audit("--jobs", "2", str(tmp_path))
    paths = [f["path"] for f in orjson.loads(found)["files"]]
    assert paths == [str(tmp_path / "a.jsonl"), *(f["path"].replace(f"{corpus}/", f"{archive}/")
                                                  for f in orjson.loads(local)["files"])]


def _production_root(folder: Path) -> Path:
    """A production root holding one session in both encodings (A10), plus a clean one."""
    recs = records(TODO_WRITE)
    recs[0]["cwd"] = "/home/dev/proj"
    data = dump(recs)
    session = folder / "--home-dev-proj--" / str(recs[0]["id"])
    session.mkdir(parents=True)
    (session / "session.jsonl").write_bytes(data)
    header, rest = data.split(b"\n", 1)
    frames = zstandard.ZstdCompressor()  # the header line in a frame of its own (spec §1.7)
    (session / "session.jsonl.zstd").write_bytes(frames.compress(header + b"\n") + frames.compress(rest))
    return folder


@pytest.mark.parametrize("order", ["plain first", "zstd first"])
def test_an_archive_sees_both_encodings_of_a_session_whatever_its_order(tmp_path: Path, order: str) -> None:
    root = _production_root(tmp_path / "root")
    code, local = _audit(str(root))
    both = [f for f in orjson.loads(local)["files"]]
    assert [[x["rule"] for x in f["findings"]] for f in both] == [["A10"], ["A10"]]
    members = _files(root)
    if order == "zstd first":
        members.reverse()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for path in members:
            tar.add(path, arcname=path.relative_to(root).as_posix(), recursive=False)
    archive = tmp_path / "root.tar.zst"
    archive.write_bytes(zstandard.ZstdCompressor().compress(buf.getvalue()))
    code2, got = _audit(str(archive))
    files = {f["path"].removeprefix(f"{archive}/"): f for f in orjson.loads(got)["files"]}
    assert code2 == code
    assert files == {f["path"].removeprefix(f"{root}/"): {**f, "path": f"{archive}/" + f["path"].removeprefix(
        f"{root}/")} for f in both}


def test_a_damaged_archive_keeps_the_logs_before_the_damage(corpus: Path, tmp_path: Path) -> None:
    data = _tar(corpus, compressed=True)
    archive = tmp_path / "cut.tar.zst"
    archive.write_bytes(data[: len(data) // 2])
    code, got = _audit(str(archive))
    reports = orjson.loads(got)["files"]
    assert code == 1 and len(reports) > 10
    last = reports[-1]
    assert last["path"] == str(archive) and last["status"] == "unreadable"
    assert [f["rule"] for f in last["findings"]] == ["IO"]
    assert last["findings"][0]["message"] == (
        "the archive's Zstandard stream is cut short inside the frame that starts at byte 0 of the compressed file: "
        "the logs after the cut are missing (make the archive again)")


def test_a_missing_extra_is_a_usage_error_naming_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "fsspec", None)  # import fsspec now fails
    monkeypatch.setattr(extras, "installed_from", lambda: None)  # as installed from the index
    result = CliRunner().invoke(main, ["audit", "s3://bucket/logs"])
    assert result.exit_code == 2
    assert "reading URLs needs fsspec: `pip install 'deepseek-harness-replay[remote]'`" in result.output
    monkeypatch.setitem(sys.modules, "distributed", None)
    (tmp_path / "x.jsonl").write_bytes(b"")
    result = CliRunner().invoke(main, ["audit", "--scheduler", "tcp://127.0.0.1:1", str(tmp_path / "x.jsonl")])
    assert result.exit_code == 2
    assert "--scheduler (a Dask cluster) needs distributed: `pip install 'deepseek-harness-replay[dask]'`" in (
        result.output)


# -- S3, against a moto server on the loopback -------------------------------------------


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    server_module = pytest.importorskip("moto.server", reason="moto[server] (a test extra) is not installed")
    pytest.importorskip("s3fs", reason="s3fs (the remote extra) is not installed")
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()


_S3_ENV = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
           "AWS_EC2_METADATA_DISABLED": "true"}


def test_s3_audits_as_the_local_copy(corpus: Path, s3_endpoint: str, tmp_path: Path) -> None:
    """A corpus folder (logs, goldens and transcripts mixed) and a production root
    holding one session in both encodings (A10, judged from the listing). One folder:
    each object costs the moto server a request."""
    import s3fs

    local = tmp_path / "copy"
    shutil.copytree(corpus / "acp-2026-06-29", local / "acp-2026-06-29")
    _production_root(local / "root")
    fs = s3fs.S3FileSystem(endpoint_url=s3_endpoint, key="testing", secret="testing")
    fs.mkdir("logs")
    fs.pipe({f"logs/archive/{path.relative_to(local).as_posix()}": path.read_bytes() for path in _files(local)})
    code, want = _audit("--jobs", "1", str(local))
    assert code == 1 and '"rule": "A10"' in want
    env = {**os.environ, **_S3_ENV, "FSSPEC_S3_ENDPOINT_URL": s3_endpoint}
    for jobs in ("1", "2"):
        proc = subprocess.run([sys.executable, "-m", "replay", "audit", "--no-cache", "--jobs", jobs, "--format",
                               "json", "s3://logs/archive"], cwd=REPO, capture_output=True, env=env, timeout=300)
        assert proc.returncode == code, proc.stderr.decode(errors="replace")
        assert proc.stdout.decode() == want.replace(f"{local}/", "s3://logs/archive/")


def test_a_log_over_the_cap_is_reported_wherever_it_was_found(tmp_path: Path) -> None:
    """Found in a folder or an archive, a log larger than ``--max-log-bytes`` (even
    one whose header lies past the first block read) is a LIMIT finding, never passed
    over as "not a session log"; a file that is not a log is still passed over. A
    ``.tar.zst`` is read whole, under the same cap, so it stops there too."""
    data = dump(records(TODO_WRITE))
    cap = str(len(data) // 2)
    folder = tmp_path / "logs"
    (folder / "s").mkdir(parents=True)
    (folder / "s" / "session.jsonl").write_bytes(data)
    (folder / "s" / "transcript.jsonl").write_bytes(b'{"type":"line"}\n')
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        tar.add(folder / "s", arcname="s")
    (tmp_path / "logs.tar").write_bytes(buf.getvalue())
    (tmp_path / "logs.tar.zst").write_bytes(zstandard.ZstdCompressor().compress(buf.getvalue()))
    message = (f"the log exceeds the reader's limit of {cap} bytes and was not read (raise --max-log-bytes if "
               "this is a real log)")
    with tarfile.open(fileobj=io.BytesIO(buf.getvalue())) as tar:
        at = tar.getmember("s/session.jsonl").offset
    for jobs in ("1", "2"):
        code, got = _audit("--jobs", jobs, "--max-log-bytes", cap, str(folder), str(tmp_path / "logs.tar"),
                           str(tmp_path / "logs.tar.zst"))
        assert code == 1
        assert [(f["path"], f["status"], [(x["rule"], x["message"]) for x in f["findings"]])
                for f in orjson.loads(got)["files"]] == [
            *((str(where), "unreadable", [("LIMIT", message)])
              for where in (folder / "s" / "session.jsonl", f"{tmp_path}/logs.tar/s/session.jsonl",
                            f"{tmp_path}/logs.tar.zst/s/session.jsonl")),
            (f"{tmp_path}/logs.tar.zst", "unreadable", [("LIMIT", (
                f"the archive, read as one stream, from its member at byte {at} on exceeds the reader's limit of "
                f"{cap} bytes and was not read (raise --max-log-bytes if this is a real archive)"))])]


def _member_offsets(data: bytes) -> list[int]:
    """The byte offset of each member header of a tar."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
        return [info.offset for info in tar.getmembers()]


@pytest.mark.parametrize("compressed", [False, True])
@pytest.mark.parametrize("cut", ["at a member boundary", "inside a member header", "a damaged member header"])
def test_an_archive_cut_short_says_so_and_keeps_the_logs_before(corpus: Path, tmp_path: Path, cut: str,
                                                                 compressed: bool) -> None:
    """tarfile takes a missing, short or damaged header after the first as the end of
    the archive: the logs after it would vanish without a word. They are reported."""
    data = _tar(corpus / "acp-2026-06-29", compressed=False)
    offsets = _member_offsets(data)
    at = offsets[len(offsets) // 2]
    if cut == "at a member boundary":
        damaged = data[:at]
        message = (f"the archive ends at byte {at} without its end-of-archive marker: it was cut short after a "
                   "member, and any logs after the cut are missing (make the archive again)")
    elif cut == "inside a member header":
        damaged = data[: at + 100]
        message = (f"the archive is cut short inside the member header at byte {at}: the logs after the cut are "
                   "missing (make the archive again)")
    else:
        damaged = data[:at] + b"\xff" * 512 + data[at + 512:]
        message = (f"the member header at byte {at} is damaged (bad checksum): the logs from there on were not read "
                   "(make the archive again)")
    archive = tmp_path / ("cut.tar.zst" if compressed else "cut.tar")
    archive.write_bytes(zstandard.ZstdCompressor().compress(damaged) if compressed else damaged)
    whole = tmp_path / "whole.tar"
    whole.write_bytes(data)
    _, complete = _audit("--jobs", "1", str(whole))
    with tarfile.open(fileobj=io.BytesIO(data[:at]), mode="r|") as head:
        kept = {info.name.removeprefix("./") for info in head}
    before = [{**f, "path": f["path"].replace(str(whole), str(archive))} for f in orjson.loads(complete)["files"]
              if f["path"].removeprefix(f"{whole}/") in kept]
    assert len(before) > 3
    for jobs in ("1", "2"):
        code, got = _audit("--jobs", jobs, str(archive))
        reports = orjson.loads(got)["files"]
        assert code == 1
        assert reports[:-1] == before
        assert (reports[-1]["path"], reports[-1]["status"], [(f["rule"], f["message"]) for f in
                                                             reports[-1]["findings"]]) == (
            str(archive), "unreadable", [("IO", message)])


def test_a_member_named_out_of_the_archive_is_reported_on_the_archive(tmp_path: Path) -> None:
    """``a.tar/../../x/session.jsonl`` would be shown, and fingerprinted, as the file
    ``x/session.jsonl``: such a member is reported under the archive's own name."""
    data = dump(records(TODO_WRITE))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name in ("ok/session.jsonl", "../../x/session.jsonl", "/abs/session.jsonl"):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    archive = tmp_path / "logs.tar"
    archive.write_bytes(buf.getvalue())
    for jobs in ("1", "2"):
        code, got = _audit("--jobs", jobs, str(archive))
        reports = orjson.loads(got)["files"]
        assert code == 1
        assert [r["path"] for r in reports] == [f"{archive}/ok/session.jsonl", str(archive), str(archive)]
        assert [(r["status"], [(f["rule"], f["message"]) for f in r["findings"]]) for r in reports[1:]] == [
            ("unreadable", [("IO", f"the file cannot be read: its member {name} leads out of the archive (an "
                                   "absolute name or a '..' part), so it was not read; make the archive with names "
                                   "relative to its root")])
            for name in ("../../x/session.jsonl", "/abs/session.jsonl")]
