"""Archives of logs, ``.tar`` and ``.tar.zst``, read as they stream: never unpacked.

An archive's logs are its regular members named like logs (``*.jsonl``,
``*.jsonl.zstd``), in archive order, each a *discovered* log (one whose first record
is not a session header is passed over, as in a folder), reported as
``<archive>/<member name>``; a member named like a log that is a link or a device is
passed over, and told so. A ``.tar`` read from a seekable file is read in place:
each member is a window on the archive, read again from there when the audit needs a
second pass. A ``.tar.zst`` is one Zstandard stream: each member is taken from it
once, under the log cap, and kept (``stream_source``) for as long as it is audited.

Every size an archive declares is checked before anything is read for it, and a cap
broken is a ``LIMIT`` finding (see ``Limits``):

* a member that declares more than the log cap is not read (one found later in a
  seekable ``.tar`` is read as usual: the member in the way is seeked over);
* an archive read as a stream (a ``.tar.zst``, a ``.tar`` that cannot be seeked) is
  read at most to the log cap in all, compressed and decompressed: passing over a
  member means reading it, so the archive stops before a member that would pass it;
* at most ``max_archive_members`` members are read, and at most ``MAX_HEADER_BYTES``
  bytes of headers and ``MAX_HEADER_CHAIN`` extended headers for each (``tarfile``
  holds a pax header or a long name whole, and reads a chain of them recursively);
* a log named longer than ``MAX_NAME`` is reported under the archive's name, unread.

What a link or a device named like a log is, and the end of an archive cut short,
are told as they are: ``tarfile`` would skip the first without a word and take the
second for the end of the archive.

An archive is one unit of work: its members are audited one after another by the
process that opens it (a compressed stream cannot be split without reading it).
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import tarfile
from collections.abc import Callable, Iterator
from typing import IO, BinaryIO, Self, TypeVar

import zstandard

from replay.describe import kind, reason
from replay.findings import Finding
from replay.log.bounded import BLOCK, TooLarge
from replay.log.reader import IO as IO_RULE
from replay.log.reader import Limits, Source
from replay.log.scan import LIMIT, limit_finding
from replay.log.source import LOG_SUFFIXES, Archive, PassedOver, ignore, stream_source
from replay.log.zstd import MAX_WINDOW, FrameWalk

MAX_HEADER_BYTES = 64 << 10
"""The most bytes of headers read for one member: its header block, its extended
headers (pax headers, GNU long names) and its sparse map. A tar tool writes a few
hundred bytes of them (more with extended attributes); ``tarfile`` holds each whole
while it reads it."""
MAX_HEADER_CHAIN = 16
"""The most extended headers in a row before one member (a tar tool writes two or
three: a global and a member pax header, GNU long name and long link)."""
MAX_NAME = 4096
"""The longest member name taken as a file's (``PATH_MAX``): a log with a longer one is
reported under the archive's name and not read (its name would be held by every
report and by the audit's list of the archive's logs)."""
_APPLIED = frozenset(tarfile.PAX_FIELDS) | {"hdrcharset"}
"""The pax fields ``tarfile`` applies to members; a global header's others are dropped
(``tarfile`` would copy them all for each member with a header of its own)."""


_T = TypeVar("_T")


class ArchiveError(Exception):
    """The archive cannot be read (on, or from some member on); ``finding`` says why."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.message)
        self.finding = finding


def _damaged(message: str) -> ArchiveError:
    return ArchiveError(IO_RULE.error(message))


class _CutShort(OSError):
    """The archive ended inside a member's data (at byte ``at`` of its tar stream)."""

    def __init__(self, at: int) -> None:
        super().__init__(f"the archive ends at byte {at}")
        self.at = at


class _HeadersTooLarge(Exception):
    """A member's headers passed ``MAX_HEADER_BYTES`` or ``MAX_HEADER_CHAIN``."""


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


class _Compressed(io.RawIOBase):
    """The compressed bytes of a ``.tar.zst``, as the decompressor reads them: at most
    ``cap`` (``TooLarge``), their frames followed (``walk``) to tell a stream cut short."""

    def __init__(self, inner: IO[bytes], cap: int) -> None:
        self._inner = inner
        self._cap = cap
        self._read = 0
        self.walk = FrameWalk()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self._inner.read(len(buffer))
        n = len(data)
        self._read += n
        if self._read > self._cap:
            raise TooLarge(self._cap)
        self.walk.feed(data)
        memoryview(buffer).cast("B")[:n] = data
        return n


class _Plain:
    """The archive's tar stream as ``tarfile`` reads it (its ``read``, ``seek``,
    ``tell``). A seekable file is seeked in, never past its end (``_CutShort``). A
    stream is read forward only, seeking ahead by reading, never past ``cap`` bytes in
    all (``TooLarge``, raised before reading). While ``headers_left`` is set (a
    member's headers are being read), a read of more is refused before it is made."""

    def __init__(self, inner: IO[bytes], streamed: bool, cap: int) -> None:
        self._inner = inner
        self.streamed = streamed
        self._cap = cap
        self.pos = 0
        self._end = -1 if streamed else inner.seek(0, os.SEEK_END)
        if not streamed:
            inner.seek(0)
        self.headers_left: int | None = None

    def read(self, size: int = -1, /) -> bytes:
        if size < 0:
            size = (self._cap + 1 if self.streamed else self._end) - self.pos
        if self.headers_left is not None:
            if size > self.headers_left:
                raise _HeadersTooLarge
            self.headers_left -= size
        if self.streamed and self.pos + size > self._cap:
            raise TooLarge(self._cap)
        data = self._inner.read(size)
        if 0 < len(data) < size:  # a stream may hand out less than asked: tarfile wants it all
            parts = [data]
            got = len(data)
            while got < size and (more := self._inner.read(size - got)):
                parts.append(more)
                got += len(more)
            data = b"".join(parts)
        self.pos += len(data)
        return data

    def seek(self, pos: int, whence: int = os.SEEK_SET, /) -> int:
        if whence == os.SEEK_CUR:
            pos += self.pos
        elif whence != os.SEEK_SET:
            raise OSError("an archive's stream is not seeked from its end")
        if not self.streamed:
            if pos >= self._end > 0:  # tarfile reads on from there: nothing is left
                raise _CutShort(self._end)
            self.pos = self._inner.seek(pos)
            return self.pos
        if pos < self.pos:
            raise OSError("an archive read as a stream cannot go back")
        if pos > self._cap:
            raise TooLarge(self._cap)
        while self.pos < pos:
            data = self._inner.read(min(BLOCK, pos - self.pos))
            if not data:
                raise _CutShort(self.pos)
            self.pos += len(data)
        return pos

    def tell(self) -> int:
        return self.pos

    def write(self, data: bytes, /) -> int:
        raise OSError("an archive is only read")

    def close(self) -> None:
        return None


class _Headers:
    """Reads each member's headers for ``tarfile`` (``info_class``) under the header
    caps, and records how the reading of member headers ended: ``tarfile`` takes a
    missing, short or damaged header after the first as the end of the archive, so
    the logs after a cut would vanish without a word."""

    def __init__(self, plain: _Plain) -> None:
        self._plain = plain
        self._depth = 0
        self.error: tarfile.HeaderError | None = None
        self.offset = 0

    def info_class(self) -> type[tarfile.TarInfo]:
        headers = self

        class _Info(tarfile.TarInfo):
            @classmethod
            def fromtarfile(cls, tarfile_: tarfile.TarFile) -> Self:
                return headers.read(lambda: super(_Info, cls).fromtarfile(tarfile_), tarfile_.offset)

        return _Info

    def read(self, parse: Callable[[], _T], at: int) -> _T:
        """``parse`` (tarfile's reading of the header at ``at``, and of the member's
        after it when it is an extended header) under the caps."""
        outer = self._depth == 0
        if outer:
            self._plain.headers_left = MAX_HEADER_BYTES
        elif self._depth > MAX_HEADER_CHAIN:
            raise _HeadersTooLarge
        self._depth += 1
        try:
            return parse()
        except tarfile.HeaderError as exc:
            if outer:
                self.error, self.offset = exc, at
            raise
        except _HeadersTooLarge:
            if not outer:
                raise
            raise ArchiveError(LIMIT.error(
                f"the headers of the member at byte {at} (pax headers, GNU long names, a sparse map) take more "
                f"than {MAX_HEADER_BYTES} bytes or {MAX_HEADER_CHAIN} extended headers, the most replay reads for "
                "one member: the members from there on were not read (a tar tool never writes such headers: make "
                "the archive again)")) from None
        except (ArchiveError, OSError, TooLarge, zstandard.ZstdError, EOFError, tarfile.TarError):
            raise
        except Exception as exc:  # hostile bytes where tarfile expects none (a sparse map, a pax field)
            if not outer:
                raise
            raise _damaged(f"the member header at byte {at} is damaged ({type(exc).__name__}: {exc}): the logs "
                           "from there on were not read (make the archive again)") from None
        finally:
            self._depth -= 1
            if outer:
                self._plain.headers_left = None

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


def _failing(error: Callable[[], Exception]) -> Callable[[], BinaryIO]:
    """An opener that fails with ``error()``: what the log's report says."""
    def opener() -> BinaryIO:
        raise error()

    return opener


def _refused(name: str) -> Callable[[], BinaryIO]:
    return _failing(lambda: OSError(f"its member {name} leads out of the archive (an absolute name or a '..' part), "
                                    "so it was not read; make the archive with names relative to its root"))


def _too_long_a_name(name: str) -> Callable[[], BinaryIO]:
    return _failing(lambda: OSError(f"a member named like a log has a name of {len(name)} characters, longer than a "
                                    f"file's can be ({MAX_NAME}), so it was not read; make the archive with the "
                                    "files' own names"))


def _member_opener(tar: tarfile.TarFile, info: tarfile.TarInfo) -> Callable[[], BinaryIO]:
    def opener() -> BinaryIO:
        member = tar.extractfile(info)
        assert member is not None  # a regular member always has a file
        return _Member(member, info.name)

    return opener


def _member_kind(info: tarfile.TarInfo) -> str:
    """Why a member named like a log that is not a regular file is passed over."""
    if info.issym():
        return "a symbolic link (links in an archive are not followed)"
    if info.islnk():
        return "a hard link (links in an archive are not followed)"
    modes = {tarfile.FIFOTYPE: stat.S_IFIFO, tarfile.CHRTYPE: stat.S_IFCHR, tarfile.BLKTYPE: stat.S_IFBLK}
    return kind(modes.get(info.type, 0))


class _Reading:
    """One reading of an archive, from its first member header to where it stops."""

    def __init__(self, archive: Archive, limits: Limits, stream: IO[bytes]) -> None:
        self.archive = archive
        self.limits = limits
        self.streamed = archive.compressed or not stream.seekable()
        self.compressed: _Compressed | None = None
        plain: IO[bytes] = stream
        if archive.compressed:
            self.compressed = _Compressed(stream, limits.max_log_bytes)
            plain = zstandard.ZstdDecompressor(max_window_size=MAX_WINDOW).stream_reader(
                io.BufferedReader(self.compressed, BLOCK), read_across_frames=True, closefd=False)
        self.plain = _Plain(plain, self.streamed, limits.max_log_bytes)
        self.headers = _Headers(self.plain)

    def ended(self, message: str) -> ArchiveError:
        """The archive's reading ended early for ``message``'s reason, unless the
        compressed stream under it was cut short: then that is why."""
        if self.compressed is not None and self.compressed.walk.cut:
            return _damaged(f"the archive's Zstandard stream is cut short inside the frame that starts at byte "
                            f"{self.compressed.walk.frame} of the compressed file: the logs after the cut are missing "
                            "(make the archive again)")
        return _damaged(message)

    def unreadable(self, exc: Exception, opening: bool = False) -> ArchiveError:
        """The archive cannot be read on, for ``exc`` (raised while ``tarfile`` opens
        it, reading its first member header, when ``opening``)."""
        if isinstance(exc, ArchiveError):
            return exc
        if isinstance(exc, TooLarge):
            return ArchiveError(limit_finding(f"the archive, read as one stream, from byte {self.plain.pos} on",
                                              exc.cap, "--max-log-bytes", real="archive"))
        if isinstance(exc, _CutShort) or (isinstance(exc, tarfile.ReadError) and not opening
                                          and self.headers.error is None):
            at = exc.at if isinstance(exc, _CutShort) else self.plain.pos
            return self.ended(f"the archive ends at byte {at}, inside a member: it was cut short, and the logs "
                              "after the cut are missing (make the archive again)")
        if isinstance(exc, tarfile.TarError) and not opening:
            return self.ended(self.headers.problem() or f"{exc}")
        if isinstance(exc, OSError):
            return _damaged(f"cannot read the archive ({reason(exc)})")
        return self.ended(f"not a readable {'zstd-compressed ' if self.compressed else ''}tar archive ({exc})")

    def sources(self, tar: tarfile.TarFile, passed_over: PassedOver) -> Iterator[Source]:
        archive, cap = self.archive, self.limits.max_log_bytes
        count = 0
        while True:
            info = tar.next()
            tar.members.clear()  # type: ignore[attr-defined]  # tarfile keeps every member it reads
            if info is None:
                break
            count += 1
            if count > self.limits.max_archive_members:
                raise ArchiveError(LIMIT.error(
                    f"the archive holds more than {self.limits.max_archive_members} members, the most replay reads "
                    f"from one archive: the members from byte {info.offset} on were not read (extract the archive "
                    "and audit its folder)"))
            if len(tar.pax_headers) > len(_APPLIED):
                tar.pax_headers = {k: v for k, v in tar.pax_headers.items() if k in _APPLIED}
            name = info.name
            logged = name.endswith(LOG_SUFFIXES)
            where = archive.path if _leads_out(name) or len(name) > MAX_NAME else \
                f"{archive.path}/{name.removeprefix('./')}"
            over = logged and info.isreg() and info.size > cap
            if self.streamed and tar.offset > cap:
                # Passing over the member means reading it: the archive stops before it.
                if over:
                    yield Source(where, _failing(lambda: TooLarge(cap)), is_file=True, discovered=True)
                raise ArchiveError(limit_finding(
                    f"the archive, read as one stream, from its member at byte {info.offset} on", cap,
                    "--max-log-bytes", real="archive"))
            if logged and not info.isreg():
                if not info.isdir():
                    passed_over(where, _member_kind(info))
            elif logged and _leads_out(name):
                # Reported under the archive's own name: ``a.tar/../x/session.jsonl``
                # would be shown (and fingerprinted) as the file ``x/session.jsonl``.
                yield Source(archive.path, _refused(name), discovered=True)
            elif logged and len(name) > MAX_NAME:
                yield Source(archive.path, _too_long_a_name(name), discovered=True)
            elif over:
                yield Source(where, _failing(lambda: TooLarge(cap)), is_file=True, discovered=True)
            elif logged and self.streamed:
                yield stream_source(where, _member_opener(tar, info), cap, is_file=True, discovered=True)
            elif logged:
                yield Source(where, _member_opener(tar, info), is_file=True, discovered=True)
        problem = self.headers.problem()
        if problem is not None:
            raise self.ended(problem)


def archive_sources(archive: Archive, limits: Limits | None = None,
                    passed_over: PassedOver = ignore) -> Iterator[Source]:
    """The logs of an archive, in archive order. Audit each before asking for the
    next: a compressed archive moves on past it. What is passed over (a link, a
    device named like a log) is told to ``passed_over``. ``ArchiveError`` when the
    archive cannot be read further (the logs before it stand): its ``finding`` is
    the archive's."""
    limits = limits or Limits()
    try:
        stream = archive.open()
    except OSError as exc:
        raise _damaged(f"cannot read the archive ({reason(exc)})") from None
    except TooLarge as exc:
        raise ArchiveError(limit_finding("the archive", exc.cap, "--max-log-bytes", real="archive")) from None
    with contextlib.closing(stream):
        try:
            reading = _Reading(archive, limits, stream)
        except OSError as exc:
            raise _damaged(f"cannot read the archive ({reason(exc)})") from None
        failures = (ArchiveError, TooLarge, OSError, tarfile.TarError, zstandard.ZstdError, EOFError)
        try:
            tar = tarfile.open(fileobj=reading.plain, mode="r:", tarinfo=reading.headers.info_class())  # noqa: SIM115 (the with below)
        except failures as exc:
            raise reading.unreadable(exc, opening=True) from None
        with tar:
            try:
                yield from reading.sources(tar, passed_over)
            except failures as exc:
                raise reading.unreadable(exc) from None
