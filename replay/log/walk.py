"""The search of a folder for logs and archives: every regular ``*.jsonl`` /
``*.jsonl.zstd`` / ``.tar`` / ``.tar.zst`` file below it, sorted, each with what
``os.stat`` said of it, and every other candidate told to ``passed_over`` with the
reason (FIFOs, devices, sockets, links that lead out of the folder or nowhere, linked
folders, folders that cannot be listed).

It lists each folder once with ``os.scandir``, whose entries know their type (no
``lstat`` for a link test) and give the ``stat`` of a file in one call: the status a
cached audit compares (``replay.check.cache``) is the one the search made. A light
module: the audit cache's run records (``replay.check.quick``) use its names of logs and
archives before any checker is imported."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable

from replay.describe import kind, reason

LOG_SUFFIXES = (".jsonl", ".jsonl.zstd", ".jsonl.zst")
ARCHIVE_SUFFIXES = (".tar", ".tar.zst", ".tar.zstd")
_CANDIDATES = LOG_SUFFIXES + ARCHIVE_SUFFIXES

Told = Callable[[str, str], None]


Listed = list[tuple[str, bool, tuple[int, int, int, int, int] | None]]
"""Each folder a search listed, whether links were followed to it (``folder`` itself),
and its ``identity`` taken before it was listed (``None``: it had none)."""


def walk(folder: str, passed_over: Told, listed: Listed | None = None,
         root: str | None = None) -> list[tuple[str, os.stat_result]]:
    """The regular log files and archives below ``folder``, sorted by path, with their
    status; every other candidate is told to ``passed_over``, top-down, each folder's
    linked folders first and then its files, in name order (as ``os.walk`` with sorted
    names visits them). Each folder listed is added to ``listed``, if given. ``root``:
    the search ``folder`` is a folder of, if it is one (links may lead anywhere in it;
    ``folder`` itself is not followed)."""
    found: list[tuple[str, os.stat_result]] = []
    pending = [folder]
    while pending:
        top = pending.pop()
        if listed is not None:
            named = top is folder and root is None
            try:
                listed.append((top, named, identity(os.stat(top, follow_symlinks=named))))
            except OSError:
                listed.append((top, named, None))
        below, files = listing(top, root or folder, passed_over)
        found += files
        pending.extend(reversed(below))  # depth first, in name order
    found.sort(key=_first)
    return found


def listing(top: str, folder: str, passed_over: Told) -> tuple[list[str], list[tuple[str, os.stat_result]]]:
    """One folder ``top`` of the search of ``folder``: the folders in it to search, and
    its regular logs and archives with their status, each in name order (what else it
    holds is told to ``passed_over``: its linked folders, then its other candidates)."""
    try:
        with os.scandir(top) as entries_of:
            entries = list(entries_of)
    except OSError as exc:
        passed_over(exc.filename or folder, f"the folder cannot be listed ({reason(exc)})")
        return [], []
    dirs: list[os.DirEntry[str]] = []
    files: list[os.DirEntry[str]] = []
    for entry in entries:
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        (dirs if is_dir else files).append(entry)
    dirs.sort(key=_name)
    below: list[str] = []
    for entry in dirs:
        if entry.is_symlink():
            passed_over(entry.path, "a symbolic link to a folder (links are not followed)")
        else:
            below.append(entry.path)
    files.sort(key=_name)
    found: list[tuple[str, os.stat_result]] = []
    for entry in files:  # what is passed over is told in path order, as the logs are
        if not entry.name.endswith(_CANDIDATES):
            continue
        seen = _examine(entry, folder)
        if isinstance(seen, str):
            passed_over(entry.path, seen)
        else:
            found.append((entry.path, seen))
    return below, found


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _first(item: tuple[str, os.stat_result]) -> str:
    return item[0]


def _examine(entry: os.DirEntry[str], folder: str) -> os.stat_result | str:
    """What ``entry`` is when it is a log of ``folder``, or why it is not read."""
    link = entry.is_symlink()
    try:
        st = entry.stat()  # what a link leads to
    except OSError as exc:
        return "a broken symbolic link" if link else f"it cannot be examined ({reason(exc)})"
    if link:
        from pathlib import Path

        from replay.fs import within

        if not within(Path(entry.path), Path(folder)):
            return "a symbolic link that leads out of the folder"
    if not stat.S_ISREG(st.st_mode):
        return kind(st.st_mode)
    return st


def identity(st: os.stat_result) -> tuple[int, int, int, int, int]:
    """A file's storage identity: device, inode, size, modification and change times
    (nanoseconds)."""
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns
