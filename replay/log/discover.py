"""The command line's paths to the work they name: logs and archives of logs, on this
machine (``replay.log.source``) or at a URL (``replay.log.remote``), in a stable order.
``file://`` URLs are local paths."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

from replay.log.source import DEFAULT_CAP, PassedOver, Unit, ignore, local_units, stdin_source
from replay.log.walk import Listed
from replay.urls import is_url, redact

__all__ = ["discover", "is_url", "local_path", "path_exists", "shown_path"]


def shown_path(path: str) -> str:
    """A command-line path as messages show it: a URL without its credentials."""
    return redact(path) if is_url(local_path(path)) else path


def local_path(path: str) -> str:
    """``file:///x`` is ``/x``: the same discovery rules as a local path, no fsspec."""
    return path[len("file://"):] if path.startswith("file://") else path


def path_exists(path: str) -> bool:
    """Whether a command-line path names something (``-`` always does); for a URL,
    ``replay.urls.NetworkError`` when it cannot be asked."""
    if path == "-":
        return True
    path = local_path(path)
    if is_url(path):
        from replay.log.remote import url_exists

        return url_exists(path)
    return os.path.exists(path)


class NoSuchPath(Exception):
    """A command-line path that names nothing (a usage error)."""


def require_paths(paths: Iterable[str]) -> None:
    """``NoSuchPath`` for the first path that names nothing."""
    for raw in paths:
        if not path_exists(raw):
            raise NoSuchPath(f"{shown_path(raw)}: no such file or directory")


def discover(paths: Iterable[str], passed_over: PassedOver = ignore, cap: int = DEFAULT_CAP,
             listed: Listed | None = None) -> Iterator[Unit]:
    """Expand the command line's paths into logs and archives to audit, in order.

    A file is taken as given (even if it is not a log: that is a finding); a folder
    (or a URL prefix) contributes every ``*.jsonl`` / ``*.jsonl.zstd`` below it,
    marked ``discovered`` (those whose first record is not a session header, such as
    transcripts and goldens, are passed over when read, so each file is opened
    once), and every ``.tar`` / ``.tar.zst`` archive, whose logs are found the same
    way when it is read. What a folder's or a URL's search leaves out is told to
    ``passed_over``; what cannot be kept on disk (standard input, a FIFO) is read
    under ``cap``. A URL that cannot be searched at all is a ``NetworkError``. Each
    local folder listed is added to ``listed``, if given (``replay.log.walk``).
    """
    for raw in paths:
        if raw == "-":
            yield stdin_source(cap=cap)
            continue
        path = local_path(raw)
        if is_url(path):
            from replay.log.remote import discover_url

            yield from discover_url(path, passed_over)
        else:
            yield from local_units(path, passed_over, cap, listed)
