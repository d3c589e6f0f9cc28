"""Zstandard session logs (spec §1.7): concatenated independent frames, read as a stream.

Frame boundaries are found structurally, without decompressing (reading only the
frame and block headers and seeking over block contents), one frame ahead of the
decompression, so that a torn last frame can be told apart from corruption. Each
frame is then decompressed on its own (its checksum verified by zstd), in pieces of
at most ``PIECE`` bytes, with a hard cap on the total plaintext: memory stays flat
whatever a frame expands to, the compressed file is never held, and the work is
linear in the plaintext read.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from typing import BinaryIO

import zstandard

from replay.findings import Rule

A9 = Rule(
    "A9", "format", "storage", "a .zstd log's frames are whole and intact",
    explanation="""
        A .jsonl.zstd log is a series of independent Zstandard frames, each with a checksum: the first
        frame holds exactly the header line, and every later frame holds whole records (one append
        batch). A bad frame magic, reserved bits, a failed checksum, a frame that ends inside a
        record, or damage inside a complete frame is corruption. Only a last frame that is cut short
        is a torn tail (rule A8). A decompressed size beyond --max-log-bytes is treated as a
        decompression bomb (a LIMIT error).""",
    harness="""
        Refuses the log as a corrupt Zstandard session log; a torn last frame is truncated at its
        start on load, keeping the complete records recovered from it.""",
)

MAGIC = b"\x28\xb5\x2f\xfd"
PIECE = 1 << 20
"""Largest plaintext piece handed on."""
MAX_WINDOW = 1 << 27
"""zstd's own default limit on a frame's window (the memory a decoder may need)."""


class ZstdCorruption(Exception):
    """The container is corrupt in a way the harness refuses (rule A9)."""


class DecompressedTooLarge(Exception):
    """The plaintext (or the compressed file) exceeds the configured cap."""


def _header_size(fhd: int, start: int) -> int:
    """The size of a frame's header (its magic number and descriptor byte included),
    from the descriptor byte ``fhd``. ``ZstdCorruption`` for reserved bits."""
    if fhd & 0x18:
        raise ZstdCorruption(f"reserved frame-header bits set in frame at byte {start}")
    single = bool(fhd & 0x20)
    return 5 + (0 if single else 1) + (0, 1, 2, 4)[fhd & 0x03] + (1 if single else 0, 2, 4, 8)[fhd >> 6]


def _block(head: bytes | bytearray, start: int) -> tuple[int, bool]:
    """The size of a block's content (after its 3-byte header ``head``) and whether it
    is its frame's last block. ``ZstdCorruption`` for the reserved block type."""
    bh = head[0] | (head[1] << 8) | (head[2] << 16)
    block_type = (bh >> 1) & 3
    if block_type == 3:
        raise ZstdCorruption(f"reserved block type in frame at byte {start}")
    return (1 if block_type == 1 else bh >> 3), bool(bh & 1)


def _checksum_size(fhd: int) -> int:
    """The size of the content checksum that ends a frame with descriptor ``fhd``."""
    return 4 if fhd & 0x04 else 0


def _frame_end(stream: BinaryIO, start: int, size: int) -> int | None:
    """The end offset of the frame at ``start`` (``None`` when the data ends inside
    it: a torn frame), from its headers alone. ``ZstdCorruption`` on bad structure."""
    stream.seek(start)
    magic = stream.read(4)
    if magic != MAGIC:
        if len(magic) < 4 and magic == MAGIC[: len(magic)]:
            return None
        raise ZstdCorruption(f"bad frame magic at byte {start}")
    fhd_byte = stream.read(1)
    if not fhd_byte:
        return None
    fhd = fhd_byte[0]
    pos = start + _header_size(fhd, start)
    while True:
        if pos + 3 > size:
            return None
        stream.seek(pos)
        head = stream.read(3)
        if len(head) < 3:
            return None
        length, last = _block(head, start)
        pos += 3 + length
        if pos > size:
            return None
        if last:
            break
    pos += _checksum_size(fhd)
    return pos if pos <= size else None


class FrameWalk:
    """The frames of a Zstandard stream followed as its bytes go by (``feed``), from
    their headers alone, without decompressing: whether the bytes so far end inside a
    frame (``cut``), as a stream cut short does, or between two frames. The work is a
    few steps per block, the memory a header's bytes."""

    _MAGIC, _DESCRIPTOR, _HEADER, _BLOCK, _CONTENT, _CHECKSUM = range(6)

    def __init__(self) -> None:
        self.frame = 0
        """Where the frame being read (or the next one) starts."""
        self.damaged = False
        """The structure is not Zstandard's (the decompressor says how): no longer followed."""
        self._pos = 0
        self._step = self._MAGIC
        self._need = 4  # the bytes the step still wants
        self._held = bytearray()  # the header bytes of the step, while it wants more
        self._fhd = 0
        self._last = False

    @property
    def cut(self) -> bool:
        """The bytes so far end inside a frame."""
        return not self.damaged and (self._step != self._MAGIC or bool(self._held))

    def feed(self, data: bytes) -> None:
        view = memoryview(data)
        at, end = 0, len(view)
        while at < end and not self.damaged:
            take = min(self._need, end - at)
            if self._step not in (self._HEADER, self._CONTENT, self._CHECKSUM):  # only headers are kept
                self._held += view[at:at + take]
            at += take
            self._pos += take
            self._need -= take
            try:
                while not self._need and not self.damaged:
                    self._advance()
            except ZstdCorruption:
                self.damaged = True

    def _advance(self) -> None:
        """The step is complete: on to the next."""
        step, held = self._step, bytes(self._held)
        self._held.clear()
        if step == self._MAGIC:
            if held != MAGIC:
                self.damaged = True
                return
            self.frame = self._pos - 4
            self._step, self._need = self._DESCRIPTOR, 1
        elif step == self._DESCRIPTOR:
            self._fhd = held[0]
            self._step, self._need = self._HEADER, _header_size(self._fhd, self.frame) - 5
        elif step == self._BLOCK:
            length, self._last = _block(held, self.frame)
            self._step, self._need = self._CONTENT, length
        elif step == self._CONTENT and not self._last:
            self._step, self._need = self._BLOCK, 3
        elif step == self._CONTENT:
            self._step, self._need = self._CHECKSUM, _checksum_size(self._fhd)
        elif step == self._HEADER:
            self._step, self._need = self._BLOCK, 3
        else:  # the checksum: the frame is whole
            self._step, self._need = self._MAGIC, 4


class _Span(io.RawIOBase):
    """Bytes ``[start, end)`` of a stream, as a file for the decompressor."""

    def __init__(self, stream: BinaryIO, start: int, end: int) -> None:
        self._stream = stream
        self._pos = start
        self._end = end

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        want = min(len(buffer), self._end - self._pos)
        if want <= 0:
            return 0
        self._stream.seek(self._pos)
        data = self._stream.read(want)
        n = len(data)
        memoryview(buffer).cast("B")[:n] = data
        self._pos += n
        return n


def frame_plaintexts(stream: BinaryIO, cap: int) -> Iterator[tuple[bytes, bool, int]]:
    """Yield ``(plaintext_piece, from_complete_frame, frame_start)`` in order, reading
    ``stream`` (seekable, positioned anywhere) from its start. A torn final frame is
    announced by an empty piece before whatever a flush-mode decode recovers from it.

    Raises ``ZstdCorruption`` for a frame that fails validation and
    ``DecompressedTooLarge`` once the compressed file, or the plaintext, exceeds ``cap``
    bytes.
    """
    size = stream.seek(0, os.SEEK_END)
    if size > cap:
        raise DecompressedTooLarge(f"compressed size exceeds the limit of {cap} bytes")
    dctx = zstandard.ZstdDecompressor(max_window_size=MAX_WINDOW)
    total = 0
    start = 0
    while start < size:
        end = _frame_end(stream, start, size)
        complete = end is not None
        if not complete:
            yield b"", False, start  # announce the torn frame, even if nothing can be recovered
        span = io.BufferedReader(_Span(stream, start, end if end is not None else size), PIECE)
        reader = dctx.stream_reader(span, read_size=PIECE, read_across_frames=False, closefd=False)
        try:
            while True:
                piece = reader.read(PIECE)
                if not piece:
                    break
                total += len(piece)
                if total > cap:
                    raise DecompressedTooLarge(f"decompressed size exceeds the limit of {cap} bytes")
                yield piece, complete, start
        except zstandard.ZstdError as exc:
            if complete:
                raise ZstdCorruption(f"frame at byte {start} failed validation: {exc}") from None
            # A torn frame yields what a flush-mode decode recovers, then stops.
        if end is None:
            return
        start = end
