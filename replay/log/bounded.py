"""Bounded reading of any byte stream: the one place the two caps are enforced.

* ``capped_blocks(read, cap)``: the blocks of a stream, at most ``cap`` bytes in all
  (``TooLarge`` past it), never more than one block held;
* ``Records(max_record)``: the records of a stream of blocks, split at ``\\n``; a
  record longer than ``max_record`` is never assembled (it comes out as ``None``);
* ``Spool``: a one-shot stream (standard input, a FIFO, a character device) kept as it
  is read, so it can be read again, from any offset, like a file: never more than the
  cap, never more than a block in memory (beyond, an anonymous temporary file).

Files, zstd frames, stdin and anything a later source hands over (a remote file) go
through these, so every reader has the same bounds.
"""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Callable, Iterator
from typing import BinaryIO

BLOCK = 1 << 20
"""Bytes read at a time."""


class TooLarge(Exception):
    """More than the cap arrived."""

    def __init__(self, cap: int) -> None:
        super().__init__(f"more than {cap} bytes")
        self.cap = cap


def capped_blocks(read: Callable[[int], bytes], cap: int, block: int | None = None) -> Iterator[bytes]:
    """The stream's blocks (of ``BLOCK`` bytes unless ``block`` says) until its end;
    ``TooLarge`` once more than ``cap`` bytes came."""
    size = block or BLOCK
    total = 0
    while True:
        data = read(size)
        if not data:
            return
        total += len(data)
        if total > cap:
            raise TooLarge(cap)
        yield data


class Records:
    """Split blocks into records at ``\\n`` (the single byte, never other line breaks).

    ``split(block)`` returns the records the block completes, in order, without their
    ``\\n``; a record longer than ``max_record`` is ``None`` and was never assembled:
    at most ``max_record`` bytes of an unfinished record are held. At the end,
    ``pending`` is the length of the unterminated last fragment (0 when the stream
    ended with ``\\n``) and ``tail()`` its bytes (``None`` when it is over the cap).
    """

    __slots__ = ("_buffer", "max_record", "pending")

    def __init__(self, max_record: int) -> None:
        self.max_record = max_record
        self.pending = 0
        self._buffer = bytearray()  # the unfinished record, while it fits the cap

    def split(self, data: bytes) -> list[bytes | bytearray | None]:
        parts: list[bytes | bytearray | None] = data.split(b"\n")  # type: ignore[assignment]
        tail = parts.pop()
        cap = self.max_record
        if len(parts) and self.pending:
            first = parts[0]
            assert first is not None
            if self.pending + len(first) > cap:
                parts[0] = None
            else:
                self._buffer += first  # grown in place: a long record is never copied whole
                parts[0] = self._buffer
            self._buffer = bytearray()
            self.pending = 0
        if len(data) > cap:  # only then can a part of this block alone be too long
            parts = [p if p is None or len(p) <= cap else None for p in parts]
        if tail:
            assert tail is not None
            self.pending += len(tail)
            if self.pending <= cap:
                self._buffer += tail
            else:
                self._buffer = bytearray()
        return parts

    def tail(self) -> bytes | None:
        """The unterminated last fragment (``None`` when over the cap or absent)."""
        return bytes(self._buffer) if self.pending and self.pending <= self.max_record else None


class Spool:
    """A stream that can be read only once, kept so it can be read again.

    ``open()`` gives an independent, seekable reader; readers pull from the stream on
    demand and what they pull is kept: in memory while it fits a block (a small log
    costs no file), else appended to an anonymous temporary file (deleted when
    closed, or when the process ends). More than ``cap`` bytes is ``TooLarge``.
    """

    def __init__(self, stream: BinaryIO, cap: int) -> None:
        self._stream = stream
        self.cap = cap
        self._file: BinaryIO | None = None
        self._held = bytearray()  # what was pulled, while it fits a block and no file is made
        self.size = 0
        self.ended = False

    def _fill(self, want: int) -> None:
        """Pull from the stream until ``want`` bytes are kept or it ends."""
        while self.size < want and not self.ended:
            data = self._stream.read(BLOCK)
            if not data:
                self.ended = True
                return
            if self.size + len(data) > self.cap:
                raise TooLarge(self.cap)
            if self._file is None and self.size + len(data) <= BLOCK:
                self._held += data
            else:
                if self._file is None:
                    self._file = tempfile.TemporaryFile(prefix="replay-spool-")  # noqa: SIM115 (kept open)
                    self._file.write(self._held)
                    self._held = bytearray()
                self._file.seek(0, os.SEEK_END)
                self._file.write(data)
                self._file.flush()
            self.size += len(data)

    def pread(self, size: int, offset: int) -> bytes:
        self._fill(offset + size)
        if offset >= self.size:
            return b""
        if self._file is None:
            return bytes(self._held[offset:offset + size])
        return os.pread(self._file.fileno(), min(size, self.size - offset), offset)

    def end(self) -> int:
        """The stream's full length (reading all of it, up to the cap)."""
        self._fill(self.cap + 1)
        return self.size

    def open(self) -> BinaryIO:
        return io.BufferedReader(_SpoolReader(self), BLOCK)

    def close(self) -> None:
        self._held = bytearray()
        if self._file is not None:
            self._file.close()
            self._file = None


class _SpoolReader(io.RawIOBase):
    def __init__(self, spool: Spool) -> None:
        self._spool = spool
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self._spool.pread(len(buffer), self._pos)
        n = len(data)
        memoryview(buffer).cast("B")[:n] = data
        self._pos += n
        return n

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        if whence == os.SEEK_SET:
            self._pos = offset
        elif whence == os.SEEK_CUR:
            self._pos += offset
        else:
            self._pos = self._spool.end() + offset
        return self._pos

    def tell(self) -> int:
        return self._pos
