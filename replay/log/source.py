"""Finding logs: files, folders (recursively), and ``-`` for standard input."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

import zstandard

from replay.log.reader import Source
from replay.log.zstd import MAGIC

_LOG_SUFFIXES = (".jsonl", ".jsonl.zstd", ".jsonl.zst")
_SNIFF = 1 << 13


def file_source(path: Path, display: str | None = None) -> Source:
    def opener() -> BinaryIO:
        return open(path, "rb")

    return Source(display if display is not None else str(path), opener, is_file=True)


def stdin_source(stream: BinaryIO | None = None) -> Source:
    """Standard input, read once and kept, so the log can be read again."""
    cache: list[bytes] = []

    def opener() -> BinaryIO:
        if not cache:
            cache.append((stream if stream is not None else sys.stdin.buffer).read())
        return io.BytesIO(cache[0])

    return Source("<stdin>", opener)


def looks_like_session_log(path: Path) -> bool:
    """True when the first record of ``path`` is tagged ``"type":"session"``.

    Only a prefix of the file is read (the first zstd frame for compressed logs), so
    a folder of large transcripts is sorted out cheaply.
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(_SNIFF)
    except OSError:
        return False
    if head.startswith(MAGIC):
        try:
            reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(head), read_across_frames=False)
            head = reader.read(_SNIFF)
        except zstandard.ZstdError:
            return True  # a damaged compressed log is still a log to report on
    first = head.split(b"\n", 1)[0]
    return b'"type"' in first and b'"session"' in first and first.lstrip().startswith(b"{")


def _walk(folder: Path) -> Iterator[Path]:
    found: list[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in files:
            if name.endswith(_LOG_SUFFIXES):
                found.append(Path(root) / name)
    found.sort()
    for path in found:
        if looks_like_session_log(path):
            yield path


def discover(paths: Iterable[str]) -> Iterator[Source]:
    """Expand the command line's paths into log sources, in a stable order.

    A file is taken as given (even if it is not a log: that is a finding); a folder
    contributes every ``*.jsonl`` / ``*.jsonl.zstd`` below it whose first record is a
    session header; ``-`` is standard input.
    """
    for raw in paths:
        if raw == "-":
            yield stdin_source()
            continue
        path = Path(raw)
        if path.is_dir():
            for found in _walk(path):
                yield file_source(found)
        else:
            yield file_source(path, raw)
