"""Logs where they live: any URL fsspec opens (``s3://``, ``gs://``, ``az://``,
``memory://``, ``http(s)://``, chained ``tar://…::s3://…``, …).

A prefix (a "folder") is searched as a local folder is: every object named like a
log (``*.jsonl``, ``*.jsonl.zstd``) or an archive of logs (``*.tar``, ``*.tar.zst``)
below it, sorted by path, the logs marked *discovered*. A log is opened as a stream
in blocks of ``BLOCK`` bytes (never fetched whole), through the same reader and caps
as a local file. Credentials and endpoints come from where fsspec and its backends
look for them (environment, config files; ``FSSPEC_S3_ENDPOINT_URL`` and the like).

fsspec and its cloud backends are the optional extra ``replay[remote]``: they are
imported only when a URL is given, and their absence is a usage error naming it.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from replay.extras import MissingExtra, require
from replay.log.bounded import BLOCK
from replay.log.reader import Opener, Source
from replay.log.source import ARCHIVE_SUFFIXES, LOG_SUFFIXES, STORED_NAMES, Archive, Unit


def filesystem(url: str) -> tuple[Any, str]:
    """The filesystem of a URL and the path within it. ``MissingExtra`` when fsspec or
    the backend of the URL's scheme is not installed."""
    fsspec: Any = require("fsspec", "remote", "reading URLs")
    try:
        fs, path = fsspec.core.url_to_fs(url)  # an fsspec AbstractFileSystem (fsspec ships no types)
    except ImportError as exc:
        raise MissingExtra(f"reading {url.partition('://')[0]}:// URLs needs a backend fsspec could not import "
                           f"({exc}): pip install 'replay[remote]'") from None
    except ValueError as exc:  # an unknown protocol
        raise MissingExtra(f"{url}: {exc}") from None
    return fs, path


@dataclass(frozen=True, slots=True)
class RemoteFile(Opener):
    """An object at a URL. ``twin`` says whether the other encoding of the same
    session exists beside it, when the listing that found it already knows."""

    url: str
    known_size: int | None = None
    twin: bool | None = None

    def __call__(self) -> BinaryIO:
        fs, path = filesystem(self.url)
        opened: BinaryIO = fs.open(path, "rb", block_size=BLOCK, cache_type="readahead")
        return opened

    def size(self) -> int | None:
        return self.known_size

    def travels(self) -> bool:
        return "memory://" not in self.url

    def exists(self, location: str) -> bool:
        if self.twin is not None and _twin_of(self.url) == location:
            return self.twin
        fs, path = filesystem(location)
        return bool(fs.exists(path))


def _twin_of(location: str) -> str | None:
    folder, name = posixpath.split(location)
    other = STORED_NAMES.get(name)
    return f"{folder}/{other}" if other else None


def url_exists(url: str) -> bool:
    fs, path = filesystem(url)
    return bool(fs.exists(path))


def discover_url(url: str) -> Iterator[Unit]:
    """The logs and archives at a URL: below it when it is a prefix, else the object
    itself (taken as given, as a named file is)."""
    fs, root = filesystem(url)
    if not fs.isdir(root):
        yield _unit(url, None, False, None)
        return
    listing: dict[str, dict[str, Any]] = fs.find(root, detail=True)
    prefix = url.rstrip("/")
    base = root.rstrip("/")
    found = sorted(
        (prefix + name[len(base):], info) for name, info in listing.items()
        if info.get("type") == "file" and name.startswith(base + "/")
        and posixpath.basename(name).endswith(LOG_SUFFIXES + ARCHIVE_SUFFIXES))
    names = {location for location, _ in found}
    for location, info in found:
        size = info.get("size")
        twin = _twin_of(location)
        yield _unit(location, size if isinstance(size, int) else None, True, twin in names if twin else None)


def _unit(location: str, size: int | None, discovered: bool, twin: bool | None) -> Unit:
    opener = RemoteFile(location, size, twin)
    if location.endswith(ARCHIVE_SUFFIXES):
        return Archive(location, opener)
    return Source(location, opener, is_file=True, discovered=discovered)
