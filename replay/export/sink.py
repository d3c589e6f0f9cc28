"""Where an export's files go: a local folder (through ``replay.fs.Tree``: nothing
written through a link, every file atomic) or storage behind an fsspec URL
(``s3://…``, ``memory://…``; the remote extra). A ``Sink`` pickles, so each worker
process writes its own parts into the export's staging folder; names below the root
are replay's own (``check_name`` refuses anything else).

A URL has no atomic rename of a folder: the export is staged below the root, then
each file is moved into place and the staging prefix removed; an object store shows
the new files one by one."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from replay.describe import reason
from replay.fs import FsError, Tree, check_name


@dataclass(frozen=True)
class Sink:
    """A folder to write into: ``tree`` (local) or ``url`` (fsspec), not both."""

    tree: Tree | None = None
    url: str | None = None

    def __str__(self) -> str:
        return self.url if self.url is not None else str(self.tree)

    def _fs(self) -> tuple[Any, str]:
        from replay.extras import require

        fsspec = require("fsspec", "remote", f"writing to {self.url}")
        assert self.url is not None
        fs, root = fsspec.core.url_to_fs(self.url)
        return fs, root.rstrip("/")

    def _key(self, root: str, parts: tuple[str, ...]) -> str:
        for part in parts:
            check_name(part)
        return "/".join((root, *parts))

    def write(self, *parts: str, data: Iterable[bytes]) -> None:
        """Write the file ``parts`` below the root (its folders made as needed)."""
        if self.tree is not None:
            self.tree.write(*parts, data=data, what="export file", durable=False)
            return
        fs, root = self._fs()
        key = self._key(root, parts)
        try:
            with fs.open(key, "wb") as out:
                for chunk in data:
                    out.write(chunk)
        except OSError as exc:
            raise FsError(f"{self.url}/{'/'.join(parts)}: cannot write ({exc})") from None

    @contextlib.contextmanager
    def open(self, *parts: str) -> Any:
        """The file ``parts`` below the root, open for reading (seekable)."""
        if self.tree is not None:
            with self.tree.open(*parts, what="export part") as stream:
                yield stream
            return
        fs, root = self._fs()
        with fs.open(self._key(root, parts), "rb") as stream:
            yield stream

    @contextlib.contextmanager
    def create(self, *parts: str) -> Iterator[IO[bytes]]:
        """A new file ``parts`` below the root, open for writing: locally made in its
        folder's descriptor, never through a link, refused when something has its name
        (the export writes only into the staging folder it made)."""
        *folder, name = parts
        for part in parts:
            check_name(part)
        if self.tree is None:
            fs, root = self._fs()
            with fs.open(self._key(root, parts), "wb") as out:
                yield out
            return
        with self.tree.folder(*folder, create=True) as fd:
            assert fd is not None
            try:
                made = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644,
                               dir_fd=fd)
            except OSError as exc:
                raise FsError(f"{self.tree.at(*parts)}: cannot create it ({reason(exc)})") from None
        with os.fdopen(made, "wb") as out:
            yield out

    def local(self, *parts: str) -> Path:
        """The local path of ``parts`` (a DuckDB database is written by path)."""
        assert self.tree is not None
        for part in parts:
            check_name(part)
        return self.tree.at(*parts)

    def make_folder(self, *parts: str) -> None:
        if self.tree is not None:
            with self.tree.folder(*parts, create=True):
                pass

    def move(self, source: tuple[str, ...], target: tuple[str, ...]) -> None:
        if self.tree is not None:
            self.tree.move(source, target)
            return
        fs, root = self._fs()
        src, dst = self._key(root, source), self._key(root, target)
        if fs.exists(dst):
            fs.rm(dst)
        fs.mv(src, dst)

    def exists(self, *parts: str) -> bool:
        if self.tree is not None:
            return self.tree.exists(*parts)
        fs, root = self._fs()
        return bool(fs.exists(self._key(root, parts)))

    def remove_tree(self, *parts: str) -> None:
        if self.tree is not None:
            self.tree.remove_tree(*parts)
            return
        fs, root = self._fs()
        key = self._key(root, parts)
        with contextlib.suppress(FileNotFoundError, OSError):
            if fs.exists(key):
                fs.rm(key, recursive=True)

    def names(self) -> list[str]:
        """The names at the root (``[]``: it does not exist)."""
        if self.tree is not None:
            return [e.name for e in self.tree.entries()]
        fs, root = self._fs()
        try:
            return [str(p).rstrip("/").rsplit("/", 1)[-1] for p in fs.ls(root, detail=False)]
        except (FileNotFoundError, OSError):
            return []
