"""Zstandard session logs (spec §1.7): concatenated independent frames.

Frame boundaries are found structurally, without decompressing, so that a torn last
frame can be told apart from corruption. Every complete frame is decompressed (its
checksum verified by zstd) with a hard cap on the total plaintext, so a
decompression bomb is a finding, not an out-of-memory kill.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import zstandard

from replay.findings import Rule

A9 = Rule("A9", "format", "storage", "a .zstd log's frames are whole and intact")

MAGIC = b"\x28\xb5\x2f\xfd"
_READ = 1 << 20


class ZstdCorruption(Exception):
    """The container is corrupt in a way the harness refuses (rule A9)."""


class DecompressedTooLarge(Exception):
    """The plaintext exceeds the configured cap."""


@dataclass(frozen=True, slots=True)
class Frames:
    complete: list[tuple[int, int]]
    torn_start: int | None


def scan_frames(buf: bytes | memoryview) -> Frames:
    """Find complete frames and the start of a torn final frame, if any."""
    view = memoryview(buf)
    size = len(view)
    pos = 0
    complete: list[tuple[int, int]] = []
    while pos < size:
        start = pos
        if size - pos < 4:
            if bytes(view[pos:]) != MAGIC[: size - pos]:
                raise ZstdCorruption(f"bad frame magic at byte {start}")
            return Frames(complete, start)
        if bytes(view[pos : pos + 4]) != MAGIC:
            raise ZstdCorruption(f"bad frame magic at byte {start}")
        pos += 4
        if pos >= size:
            return Frames(complete, start)
        fhd = view[pos]
        pos += 1
        if fhd & 0x18:
            raise ZstdCorruption(f"reserved frame-header bits set in frame at byte {start}")
        fcs_flag = fhd >> 6
        single = bool(fhd & 0x20)
        checksum = bool(fhd & 0x04)
        did_size = (0, 1, 2, 4)[fhd & 0x03]
        fcs_size = (1 if single else 0, 2, 4, 8)[fcs_flag]
        pos += (0 if single else 1) + did_size + fcs_size
        while True:
            if pos + 3 > size:
                return Frames(complete, start)
            bh = view[pos] | (view[pos + 1] << 8) | (view[pos + 2] << 16)
            pos += 3
            last = bh & 1
            btype = (bh >> 1) & 3
            bsize = bh >> 3
            if btype == 3:
                raise ZstdCorruption(f"reserved block type in frame at byte {start}")
            pos += 1 if btype == 1 else bsize
            if pos > size:
                return Frames(complete, start)
            if last:
                break
        if checksum:
            pos += 4
            if pos > size:
                return Frames(complete, start)
        complete.append((start, pos))
    return Frames(complete, None)


def frame_plaintexts(
    buf: bytes, cap: int
) -> Iterator[tuple[bytes, bool, int]]:
    """Yield ``(plaintext_piece, from_complete_frame, frame_start)`` in order. A torn
    final frame is announced by an empty piece before whatever it recovers.

    Raises ``ZstdCorruption`` for a frame that fails validation and
    ``DecompressedTooLarge`` once more than ``cap`` bytes of plaintext were produced.
    """
    frames = scan_frames(buf)
    dctx = zstandard.ZstdDecompressor()
    total = 0
    view = memoryview(buf)
    spans: list[tuple[int, int, bool]] = [(s, e, True) for s, e in frames.complete]
    if frames.torn_start is not None:
        spans.append((frames.torn_start, len(view), False))
    for start, end, complete in spans:
        if not complete:
            yield b"", False, start  # announce the torn frame, even if nothing can be recovered
        reader = dctx.stream_reader(view[start:end], read_across_frames=False)
        try:
            while True:
                piece = reader.read(_READ)
                if not piece:
                    break
                total += len(piece)
                if total > cap:
                    raise DecompressedTooLarge(
                        f"decompressed size exceeds the limit of {cap} bytes"
                    )
                yield piece, complete, start
        except zstandard.ZstdError as exc:
            if complete:
                raise ZstdCorruption(
                    f"frame at byte {start} failed validation: {exc}"
                ) from None
            # A torn frame yields what a flush-mode decode recovers, then stops.
