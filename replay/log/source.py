"""Finding logs: files, folders (recursively), and ``-`` for standard input."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from replay.log.reader import Source

_LOG_SUFFIXES = (".jsonl", ".jsonl.zstd", ".jsonl.zst")


def file_source(path: str | Path, discovered: bool = False) -> Source:
    def opener() -> BinaryIO:
        return open(path, "rb")

    return Source(str(path), opener, is_file=True, discovered=discovered)


def stdin_source(stream: BinaryIO | None = None) -> Source:
    """Standard input, read once and kept, so the log can be read again."""
    cache: list[bytes] = []

    def opener() -> BinaryIO:
        if not cache:
            cache.append((stream if stream is not None else sys.stdin.buffer).read())
        return io.BytesIO(cache[0])

    return Source("<stdin>", opener)


def display_path(path: str, cwd: str | None = None) -> str:
    """How a report names a log: relative to the working directory when the log is
    inside it, else as it was given; standard input as ``<stdin>``."""
    if path == "<stdin>":
        return path
    base = os.path.abspath(cwd if cwd is not None else os.getcwd())
    full = os.path.abspath(path)
    if full == base or not full.startswith(base.rstrip(os.sep) + os.sep):
        return os.path.normpath(path) if not os.path.isabs(path) else path
    return os.path.relpath(full, base)


def _walk(folder: str) -> Iterator[str]:
    found: list[str] = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        found.extend(os.path.join(root, name) for name in files if name.endswith(_LOG_SUFFIXES))
    found.sort()
    yield from found


def discover(paths: Iterable[str]) -> Iterator[Source]:
    """Expand the command line's paths into log sources, in a stable order.

    A file is taken as given (even if it is not a log: that is a finding); a folder
    contributes every ``*.jsonl`` / ``*.jsonl.zstd`` below it, marked ``discovered``:
    those whose first record is not a session header (transcripts, goldens) are
    passed over when read, so each file is opened once.
    """
    for raw in paths:
        if raw == "-":
            yield stdin_source()
        elif os.path.isdir(raw):
            for found in _walk(raw):
                yield file_source(found, discovered=True)
        else:
            yield file_source(raw)
