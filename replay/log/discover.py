"""The command line's paths to the work they name: logs and archives of logs, on this
machine (``replay.log.source``) or at a URL (``replay.log.remote``), in a stable order.
``file://`` URLs are local paths."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

from replay.log.source import DEFAULT_CAP, PassedOver, Unit, ignore, local_units, stdin_source


def is_url(path: str) -> bool:
    """A URL fsspec opens (``scheme://…``, or a chained ``a::b`` URL), not a local path."""
    scheme, sep, _ = path.partition("://")
    if sep and scheme and all(c.isalnum() or c in "+-." for c in scheme):
        return True
    return "::" in path


def local_path(path: str) -> str:
    """``file:///x`` is ``/x``: the same discovery rules as a local path, no fsspec."""
    return path[len("file://"):] if path.startswith("file://") else path


def path_exists(path: str) -> bool:
    """Whether a command-line path names something (``-`` always does)."""
    if path == "-":
        return True
    path = local_path(path)
    if is_url(path):
        from replay.log.remote import url_exists

        return url_exists(path)
    return os.path.exists(path)


def discover(paths: Iterable[str], passed_over: PassedOver = ignore, cap: int = DEFAULT_CAP) -> Iterator[Unit]:
    """Expand the command line's paths into logs and archives to audit, in order.

    A file is taken as given (even if it is not a log: that is a finding); a folder
    (or a URL prefix) contributes every ``*.jsonl`` / ``*.jsonl.zstd`` below it,
    marked ``discovered`` (those whose first record is not a session header, such as
    transcripts and goldens, are passed over when read, so each file is opened
    once), and every ``.tar`` / ``.tar.zst`` archive, whose logs are found the same
    way when it is read. What a local folder search leaves out is told to
    ``passed_over``; what cannot be kept on disk (standard input, a FIFO) is read
    under ``cap``.
    """
    for raw in paths:
        if raw == "-":
            yield stdin_source(cap=cap)
            continue
        path = local_path(raw)
        if is_url(path):
            from replay.log.remote import discover_url

            yield from discover_url(path)
        else:
            yield from local_units(path, passed_over, cap)
