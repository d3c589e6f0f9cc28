"""Log sources on this machine: files, folders (recursively), ``-`` for standard input,
and what a folder search finds (logs and archives of logs).

A ``Source`` is one log; an ``Archive`` is a ``.tar``/``.tar.zst`` file whose logs are
found when it is read (``replay.log.archive``). Both are plain data when their opener
is an ``Opener`` (``LocalFile`` here, ``RemoteFile`` for URLs), so they can travel to a
worker process or a Dask worker.

A regular file is opened again for each pass over it. Anything else named on the
command line (standard input, a FIFO, a character device such as ``/dev/stdin``) is
read once, under the log cap, through a ``Spool`` (kept in a temporary file so it
can be read again), in the process that found it. A folder contributes its regular
log files and archives only; what it holds and the search passes over (FIFOs,
devices, sockets, links that lead out of the folder or nowhere, linked folders,
folders that cannot be listed) is reported to ``passed_over``.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import BinaryIO

from replay.fs import FsError, Tree
from replay.log.bounded import Spool
from replay.log.reader import Limits, Opener, Source
from replay.log.walk import ARCHIVE_SUFFIXES as ARCHIVE_SUFFIXES
from replay.log.walk import LOG_SUFFIXES as LOG_SUFFIXES
from replay.log.walk import Listed, identity, walk
from replay.urls import is_url

SESSION_LOG = "session.jsonl"
"""A session's log, as the harness names it in a session folder (a scenario folder's
primary log); child N's is ``child_log(N)``."""
STORED_NAMES = {SESSION_LOG: f"{SESSION_LOG}.zstd", f"{SESSION_LOG}.zstd": SESSION_LOG}
"""A production root stores a session's log under one of two names (plain, zstd):
each name to the other (rule A10 looks for both)."""


def child_log(index: int) -> str:
    """The log of child session ``index`` in a session folder: ``session.N.jsonl``."""
    return SESSION_LOG.replace(".jsonl", f".{index}.jsonl")
DEFAULT_CAP = Limits().max_log_bytes

PassedOver = Callable[[str, str], None]
"""Told ``(path, why)`` for each entry a folder search leaves out."""


@dataclass(frozen=True, slots=True)
class LocalFile(Opener):
    """A file on this machine (or on storage every worker mounts at the same path)."""

    path: str
    known_size: int | None = None
    """Its size when the folder search saw it (``None``: look when asked)."""
    known_identity: tuple[int, int, int, int, int] | None = None
    """Its storage identity when the folder search saw it (``replay.log.walk.identity``;
    ``None``: not seen): what the audit cache compares, with no second ``stat``."""

    def __call__(self) -> BinaryIO:
        return open(self.path, "rb")

    def size(self) -> int | None:
        if self.known_size is not None:
            return self.known_size
        try:
            return os.stat(self.path).st_size
        except OSError:
            return None


@dataclass(frozen=True, slots=True)
class TreeFile(Opener):
    """A file of a tree replay does not trust (``replay.fs.Tree``), opened through it:
    never through a link, a regular file only (else an ``OSError`` that says why)."""

    tree: Tree
    parts: tuple[str, ...]

    def __call__(self) -> BinaryIO:
        try:
            return self.tree.open(*self.parts, what="the log")
        except FsError as exc:
            raise OSError(str(exc)) from None


def tree_source(tree: Tree, parts: tuple[str, ...]) -> Source:
    """A log in a confined tree (a scenario's recording)."""
    return Source(str(tree.at(*parts)), TreeFile(tree, parts), is_file=True)


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


def _regular(path: str | Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True  # opening it reports why it cannot be read


def file_source(path: str | Path, discovered: bool = False, cap: int = DEFAULT_CAP) -> Source:
    """A log file; one that is not a regular file (a FIFO, a device) is read once,
    at most ``cap`` bytes, and kept (see ``stream_source``)."""
    if not _regular(path):
        return stream_source(str(path), LocalFile(str(path)), cap)
    return Source(str(path), LocalFile(str(path)), is_file=True, discovered=discovered)


def stream_source(name: str, connect: Callable[[], BinaryIO], cap: int = DEFAULT_CAP, is_file: bool = False,
                  discovered: bool = False) -> Source:
    """A stream that can be read only once (``connect`` is called at the first read),
    kept in a ``Spool`` so that every pass reads the same bytes; more than ``cap``
    bytes is a ``LIMIT`` finding. Read where it was found (it does not travel)."""
    spool: list[Spool] = []

    def opener() -> BinaryIO:
        if not spool:
            spool.append(Spool(connect(), cap))
        return spool[0].open()

    return Source(name, opener, is_file=is_file, discovered=discovered)


def stdin_source(stream: BinaryIO | None = None, cap: int = DEFAULT_CAP) -> Source:
    """Standard input (or ``stream``), read once under the cap and kept."""
    return stream_source("<stdin>", lambda: stream if stream is not None else sys.stdin.buffer, cap)


def display_path(path: str, cwd: str | None = None) -> str:
    """How a report names a log: relative to the working directory when the log is
    inside it, else as it was given; standard input as ``<stdin>``, a log at a URL
    as its URL (as ``replay.urls.redact`` shows it)."""
    if path == "<stdin>" or is_url(path):
        return path
    base = os.path.abspath(cwd if cwd is not None else os.getcwd())
    full = os.path.abspath(path)
    if base.startswith("//") or full.startswith("//"):  # POSIX's implementation-defined root
        return _display_path_parts(path, base, full)
    # Both are normalised absolute names: inside ``base`` is a prefix ending at a "/"
    # (one name per report: the walk of a large archive calls this thousands of times).
    root = base.endswith("/")
    if full == base or not full.startswith(base) or not (root or full[len(base)] == "/"):
        return os.path.normpath(path) if not os.path.isabs(path) else path  # a name: links are not looked at
    return full[len(base) if root else len(base) + 1:]


def _display_path_parts(path: str, base: str, full: str) -> str:
    """``display_path`` compared part by part (the exact rule; tests hold the fast one to it)."""
    base_parts, full_parts = PurePath(base), PurePath(full)
    if full_parts == base_parts or not full_parts.is_relative_to(base_parts):
        return os.path.normpath(path) if not os.path.isabs(path) else path
    return os.path.relpath(full_parts, base_parts)


def _unit(path: str, cap: int) -> Unit:
    """A path named on the command line."""
    if path.endswith(ARCHIVE_SUFFIXES) and _regular(path):
        return Archive(path, LocalFile(path))
    return file_source(path, cap=cap)


def at_or_below(path: str, top: str) -> bool:
    """Whether ``path`` is ``top`` or names something inside it: a file in a folder, a
    member of an archive (``archive.tar/member``); both written with ``/``."""
    return path == top or path.startswith(top.rstrip("/") + "/")


def ignore(path: str, why: str) -> None:
    """A ``PassedOver`` that tells no one."""
    return None


def local_units(path: str, passed_over: PassedOver = ignore, cap: int = DEFAULT_CAP,
                listed: Listed | None = None) -> Iterator[Unit]:
    """A path on this machine: a folder's regular logs and archives (the logs
    ``discovered``; each folder listed added to ``listed``, if given), or the path
    itself, taken as given (even if it is not a log: that is a finding; even if it is
    a FIFO or a device: it is streamed under ``cap``)."""
    if os.path.isdir(path):
        for found, st in walk(path, passed_over, listed):  # regular files: nothing to spool
            opener = LocalFile(found, st.st_size, identity(st))
            yield Archive(found, opener) if found.endswith(ARCHIVE_SUFFIXES) else \
                Source(found, opener, is_file=True, discovered=True)
    else:
        yield _unit(path, cap)
