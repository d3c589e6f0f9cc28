"""Log sources on this machine: files, folders (recursively), ``-`` for standard input,
and what a folder search finds (logs and archives of logs).

A ``Source`` is one log; an ``Archive`` is a ``.tar``/``.tar.zst`` file whose logs are
found when it is read (``replay.log.archive``). Both are plain data when their opener
is an ``Opener`` (``LocalFile`` here, ``RemoteFile`` for URLs), so they can travel to a
worker process or a Dask worker.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from replay.log.reader import Opener, Source

LOG_SUFFIXES = (".jsonl", ".jsonl.zstd", ".jsonl.zst")
ARCHIVE_SUFFIXES = (".tar", ".tar.zst", ".tar.zstd")


@dataclass(frozen=True, slots=True)
class LocalFile(Opener):
    """A file on this machine (or on storage every worker mounts at the same path)."""

    path: str

    def __call__(self) -> BinaryIO:
        return open(self.path, "rb")

    def size(self) -> int | None:
        try:
            return os.stat(self.path).st_size
        except OSError:
            return None


@dataclass(frozen=True, slots=True)
class Archive:
    """A ``.tar`` or ``.tar.zst`` archive of logs; ``path`` names it in reports, and
    each of its logs as ``<path>/<member name>``."""

    path: str
    open: Callable[[], BinaryIO]

    @property
    def compressed(self) -> bool:
        return self.path.endswith((".tar.zst", ".tar.zstd"))


Unit = Source | Archive
"""What discovery yields and a worker audits: one log, or one archive of logs."""


def file_source(path: str | Path, discovered: bool = False) -> Source:
    return Source(str(path), LocalFile(str(path)), is_file=True, discovered=discovered)


def stream_source(name: str, connect: Callable[[], BinaryIO], is_file: bool = False,
                  discovered: bool = False) -> Source:
    """A stream that can be read only once (``connect`` is called at the first read),
    kept so that every pass reads the same bytes."""
    cache: list[bytes] = []

    def opener() -> BinaryIO:
        if not cache:
            cache.append(connect().read())
        return io.BytesIO(cache[0])

    return Source(name, opener, is_file=is_file, discovered=discovered)


def stdin_source(stream: BinaryIO | None = None) -> Source:
    """Standard input (or ``stream``), read once and kept."""
    return stream_source("<stdin>", lambda: stream if stream is not None else sys.stdin.buffer)


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
        found.extend(os.path.join(root, name) for name in files if name.endswith(LOG_SUFFIXES + ARCHIVE_SUFFIXES))
    found.sort()
    yield from found


def _unit(path: str, discovered: bool) -> Unit:
    if path.endswith(ARCHIVE_SUFFIXES):
        return Archive(path, LocalFile(path))
    return file_source(path, discovered=discovered)


def local_units(path: str) -> Iterator[Unit]:
    """A path on this machine: a folder's logs and archives (the logs ``discovered``),
    or the file itself."""
    if os.path.isdir(path):
        for found in _walk(path):
            yield _unit(found, discovered=True)
    else:
        yield _unit(path, discovered=False)
