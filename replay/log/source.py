"""Finding logs: files, folders (recursively), and ``-`` for standard input.

A regular file is opened again for each pass over it. Anything else named on the
command line (standard input, a FIFO, a character device such as ``/dev/stdin``) is
read once, under the log cap, through a ``Spool`` (kept in a temporary file so it
can be read again). A folder contributes its regular log files only; what it holds
and the search passes over (FIFOs, devices, sockets, links that lead out of the
folder or nowhere, linked folders, folders that cannot be listed) is reported to
``passed_over``.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from replay.log.bounded import Spool
from replay.log.reader import Limits, Source

_LOG_SUFFIXES = (".jsonl", ".jsonl.zstd", ".jsonl.zst")
_DEFAULT_CAP = Limits().max_log_bytes

PassedOver = Callable[[str, str], None]
"""Told ``(path, why)`` for each entry a folder search leaves out."""


def file_source(path: str | Path, discovered: bool = False, cap: int = _DEFAULT_CAP) -> Source:
    """A log file; one that is not a regular file (a FIFO, a device) is read once,
    at most ``cap`` bytes, and kept (see ``stream_source``)."""
    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        regular = True  # opening it reports why it cannot be read
    if not regular:
        return stream_source(str(path), lambda: open(path, "rb"), cap)

    def opener() -> BinaryIO:
        return open(path, "rb")

    return Source(str(path), opener, is_file=True, discovered=discovered)


def stream_source(name: str, connect: Callable[[], BinaryIO], cap: int = _DEFAULT_CAP) -> Source:
    """A stream that can be read only once (``connect`` is called at the first read),
    kept in a ``Spool`` so that every pass reads the same bytes; more than ``cap``
    bytes is a ``LIMIT`` finding."""
    spool: list[Spool] = []

    def opener() -> BinaryIO:
        if not spool:
            spool.append(Spool(connect(), cap))
        return spool[0].open()

    return Source(name, opener)


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


def stdin_source(stream: BinaryIO | None = None, cap: int = _DEFAULT_CAP) -> Source:
    """Standard input (or ``stream``), read once under the cap and kept."""
    return stream_source("<stdin>", lambda: stream if stream is not None else sys.stdin.buffer, cap)


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _walk(folder: str, passed_over: PassedOver) -> Iterator[str]:
    """The regular log files below ``folder``, sorted; every other candidate is told
    to ``passed_over`` with the reason."""
    root = os.path.realpath(folder)
    found: list[str] = []

    def unlistable(exc: OSError) -> None:
        passed_over(exc.filename or folder, f"the folder cannot be listed ({exc.strerror or exc})")

    for top, dirs, files in os.walk(folder, onerror=unlistable):
        dirs.sort()
        for name in dirs:
            path = os.path.join(top, name)
            if os.path.islink(path):
                passed_over(path, "a symbolic link to a folder (links are not followed)")
        for name in files:
            if not name.endswith(_LOG_SUFFIXES):
                continue
            path = os.path.join(top, name)
            why = _not_a_log_file(path, root)
            if why is None:
                found.append(path)
            else:
                passed_over(path, why)
    found.sort()
    yield from found


def _not_a_log_file(path: str, root: str) -> str | None:
    """Why ``path`` is not read as a log of the folder ``root`` (``None``: it is)."""
    link = os.path.islink(path)
    try:
        mode = os.stat(path).st_mode  # what a link leads to
    except OSError as exc:
        return "a broken symbolic link" if link else f"it cannot be examined ({exc.strerror or exc})"
    if link and not _inside(os.path.realpath(path), root):
        return "a symbolic link that leads out of the folder"
    if not stat.S_ISREG(mode):
        return _kind(mode)
    return None


def _ignore(path: str, why: str) -> None:
    return None


def discover(paths: Iterable[str], passed_over: PassedOver | None = None,
             cap: int = _DEFAULT_CAP) -> Iterator[Source]:
    """Expand the command line's paths into log sources, in a stable order.

    A path given is taken as given (even if it is not a log: that is a finding; even
    if it is a FIFO or a device: it is streamed under ``cap``); a folder contributes
    every regular ``*.jsonl`` / ``*.jsonl.zstd`` file below it, marked ``discovered``:
    those whose first record is not a session header (transcripts, goldens) are
    passed over when read, so each file is opened once. What the folder search leaves
    out is told to ``passed_over``.
    """
    tell = passed_over or _ignore
    for raw in paths:
        if raw == "-":
            yield stdin_source(cap=cap)
        elif os.path.isdir(raw):
            for found in _walk(raw, tell):
                yield file_source(found, discovered=True, cap=cap)
        else:
            yield file_source(raw, cap=cap)
