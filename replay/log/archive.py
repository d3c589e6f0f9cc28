"""Archives of logs, ``.tar`` and ``.tar.zst``, read as they stream: never unpacked.

An archive's logs are its regular members named like logs (``*.jsonl``,
``*.jsonl.zstd``), in archive order, each a *discovered* log (one whose first record
is not a session header is passed over, as in a folder), reported as
``<archive>/<member name>``. A ``.tar`` read from a seekable file is read in place:
each member is a window on the archive, read again from there when the audit needs a
second pass. A ``.tar.zst`` is one Zstandard stream: each member is taken from it
once, under the log cap, and kept (``stream_source``) for as long as it is audited. The readers' caps
apply to each member as to any log.

An archive is one unit of work: its members are audited one after another by the
process that opens it (a compressed stream cannot be split without reading it).
"""

from __future__ import annotations

import contextlib
import io
import tarfile
from collections.abc import Callable, Iterator
from typing import IO, BinaryIO, Self

import zstandard

from replay.log.reader import Source
from replay.log.source import DEFAULT_CAP, LOG_SUFFIXES, Archive, stream_source
from replay.log.zstd import MAX_WINDOW


class ArchiveError(Exception):
    """The archive cannot be read (on, or from some member on); the message says why."""


class _Member(io.BufferedIOBase, BinaryIO):
    """A member's bytes; a damaged archive under it is an ``OSError`` (what readers
    report as an unreadable file), not a ``tarfile`` error."""

    def __init__(self, inner: IO[bytes], name: str) -> None:
        self._inner = inner
        self._name = name

    def _damaged(self, exc: Exception) -> OSError:
        return OSError(f"the archive is damaged inside {self._name} ({exc})")

    def read(self, size: int | None = -1) -> bytes:
        try:
            return self._inner.read(-1 if size is None else size)
        except (tarfile.TarError, zstandard.ZstdError, EOFError) as exc:
            raise self._damaged(exc) from None

    def read1(self, size: int = -1) -> bytes:
        return self.read(size)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return self._inner.seekable()

    def seek(self, offset: int, whence: int = 0) -> int:
        try:
            return self._inner.seek(offset, whence)
        except (tarfile.TarError, zstandard.ZstdError, EOFError) as exc:
            raise self._damaged(exc) from None

    def tell(self) -> int:
        return self._inner.tell()

    def close(self) -> None:
        self._inner.close()
        super().close()


class _End:
    """How the reading of an archive's member headers ended: ``tarfile`` takes a
    missing, short or damaged header after the first as the end of the archive, so
    the logs after a cut would vanish without a word; this records which it was."""

    def __init__(self) -> None:
        self.error: tarfile.HeaderError | None = None
        self.offset = 0

    def info_class(self) -> type[tarfile.TarInfo]:
        end = self

        class _Info(tarfile.TarInfo):
            @classmethod
            def fromtarfile(cls, tarfile_: tarfile.TarFile) -> Self:
                try:
                    return super().fromtarfile(tarfile_)
                except tarfile.HeaderError as exc:
                    end.error, end.offset = exc, tarfile_.offset
                    raise

        return _Info

    def problem(self) -> str | None:
        """Why the archive is incomplete (``None``: it ended with its end-of-archive
        marker, a block of zeros)."""
        exc, at = self.error, self.offset
        kind = type(exc).__name__  # tarfile's header errors are not in its typed API
        if kind == "EOFHeaderError":
            return None
        if kind in ("EmptyHeaderError", "NoneType"):
            return (f"the archive ends at byte {at} without its end-of-archive marker: it was cut short after a "
                    "member, and any logs after the cut are missing (make the archive again)")
        if kind == "TruncatedHeaderError":
            return (f"the archive is cut short inside the member header at byte {at}: the logs after the cut "
                    "are missing (make the archive again)")
        return (f"the member header at byte {at} is damaged ({exc}): the logs from there on were not read "
                "(make the archive again)")


def _leads_out(name: str) -> bool:
    """An absolute member name, or one with a ``..`` part: it names no place in the archive."""
    return name.startswith("/") or ".." in name.split("/")


def _refused(name: str) -> Callable[[], BinaryIO]:
    def opener() -> BinaryIO:
        raise OSError(f"its member {name} leads out of the archive (an absolute name or a '..' part), so it "
                      "was not read; make the archive with names relative to its root")

    return opener


def _member_opener(tar: tarfile.TarFile, info: tarfile.TarInfo) -> Callable[[], BinaryIO]:
    def opener() -> BinaryIO:
        member = tar.extractfile(info)
        assert member is not None  # a regular member always has a file
        return _Member(member, info.name)

    return opener


@contextlib.contextmanager
def _opened(archive: Archive, end: _End) -> Iterator[tuple[tarfile.TarFile, bool]]:
    """The archive as a tar, and whether it is read as a stream (each member once)."""
    try:
        stream = archive.open()
    except OSError as exc:
        raise ArchiveError(f"cannot read the archive ({exc.strerror or exc})") from None
    try:
        streamed = archive.compressed or not stream.seekable()
        plain: IO[bytes] = stream
        if archive.compressed:
            plain = zstandard.ZstdDecompressor(max_window_size=MAX_WINDOW).stream_reader(
                stream, read_across_frames=True, closefd=False)
        with tarfile.open(fileobj=plain, mode="r|" if streamed else "r:", tarinfo=end.info_class()) as tar:
            yield tar, streamed
    except (tarfile.TarError, zstandard.ZstdError, OSError, EOFError) as exc:
        raise ArchiveError(f"not a readable {'zstd-compressed ' if archive.compressed else ''}tar archive "
                           f"({exc})") from None
    finally:
        stream.close()


def archive_sources(archive: Archive, cap: int = DEFAULT_CAP) -> Iterator[Source]:
    """The logs of an archive, in archive order. Audit each before asking for the
    next: a compressed archive moves on past it. ``ArchiveError`` when the archive
    cannot be read further (the logs before it stand)."""
    end = _End()
    with _opened(archive, end) as (tar, streamed):
        for info in tar:
            if not info.isreg() or not info.name.endswith(LOG_SUFFIXES):
                continue
            if _leads_out(info.name):
                # Reported under the archive's own name: ``a.tar/../x/session.jsonl``
                # would be shown (and fingerprinted) as the file ``x/session.jsonl``.
                yield Source(archive.path, _refused(info.name), discovered=True)
                continue
            name = f"{archive.path}/{info.name.removeprefix('./')}"
            opener = _member_opener(tar, info)
            if streamed:
                yield stream_source(name, opener, cap, is_file=True, discovered=True)
            else:
                yield Source(name, opener, is_file=True, discovered=True)
    problem = end.problem()
    if problem is not None:
        raise ArchiveError(problem)
