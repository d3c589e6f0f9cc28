"""The golden store: ``goldens/<scenario>/<artefact>``, a tree replay does not trust.

Every read and write goes through ``replay.fs`` (the confined tree): nothing below the
root is followed or written through a link, only regular files are read, reads are
bounded, writes are atomic and skipped when the bytes are unchanged (an unchanged
golden keeps its mtime). A refresh holds an exclusive lock on the tree, the pytest
plugin a shared one while it writes (released by the OS even when the process is
killed); the temp files a refresh cleans up are only those its own process or a dead
one left. Reading never writes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from replay.describe import reason
from replay.fs import FsError, Locked, Tree, Written
from replay.hints import command, line

LOCK_NAME = ".refresh.lock"
MAX_GOLDEN_BYTES = 1 << 30
"""The largest golden read."""

StoreError = FsError
"""A golden (or the tree) cannot be read or written as asked; the message names the
path and says why."""
StoreLocked = Locked
"""Another refresh (or a ``pytest --snapshot-update``) holds the lock on this tree."""

__all__ = ["LOCK_NAME", "MAX_GOLDEN_BYTES", "GoldenStore", "StoreError", "StoreLocked", "Written"]


def as_tree(root: Tree | Path) -> Tree:
    """A tree as given; a bare path is one the caller named (see ``Tree.named``)."""
    return root if isinstance(root, Tree) else Tree.named(root)


class GoldenStore:
    """Goldens by scenario and artefact name, in a confined tree."""

    def __init__(self, root: Tree | Path) -> None:
        self.tree = as_tree(root)

    @property
    def root(self) -> Path:
        return self.tree.path

    # -- listing ------------------------------------------------------------------------

    def scenarios(self) -> list[str]:
        """The scenario folders that hold goldens, and every link in their place (a
        link is listed so that reading it is refused and reported, never followed)."""
        return [e.name for e in self.tree.entries() if not e.name.startswith(".") and (e.is_dir or e.is_link)]

    def files(self, scenario: str) -> list[str]:
        """The golden files of a scenario: every entry but folders and hidden names
        (temp files of an interrupted write)."""
        return [e.name for e in self.tree.entries(scenario) if not e.name.startswith(".") and not e.is_dir]

    # -- reading and writing ------------------------------------------------------------

    def read(self, scenario: str, name: str) -> bytes | None:
        """The golden's bytes; ``None`` when it does not exist. ``StoreError`` when it
        exists but is not a regular file (a link, a folder, a FIFO) or cannot be read."""
        return self.tree.read(scenario, name, limit=MAX_GOLDEN_BYTES, what="the golden")

    @contextlib.contextmanager
    def open(self, scenario: str, name: str) -> Iterator[BinaryIO | None]:
        """The golden as a file to read (``None`` when it does not exist), with
        ``read``'s checks (a file over the read limit is refused before it is read);
        an error reading it is a ``StoreError``."""
        try:
            stream = self.tree.open(scenario, name, what="the golden", limit=MAX_GOLDEN_BYTES)
        except FileNotFoundError:
            yield None
            return
        with stream:
            try:
                yield stream
            except OSError as exc:
                raise StoreError(f"{self.tree.at(scenario, name)}: cannot read the golden ({reason(exc)})") from None

    def write(self, scenario: str, name: str, data: bytes) -> Written:
        """Write one golden atomically; leave it untouched when the bytes are equal."""
        current = self.read(scenario, name)
        if current == data:
            return "unchanged"
        self.tree.write(scenario, name, data=data, what="golden")
        return "created" if current is None else "updated"

    def delete(self, scenario: str, name: str) -> None:
        """Delete one golden (a link is removed itself, never what it points at), and
        the scenario's folder once empty."""
        self.tree.delete(scenario, name, what="the golden")
        self.tree.remove_folder_if_empty(scenario)

    # -- files beside the scenario folders (a manifest) ----------------------------------

    def read_top(self, name: str, limit: int) -> bytes | None:
        """A file beside the scenario folders (a manifest): ``None`` when there is none;
        ``StoreError`` when it is a link, not a regular file, or over ``limit`` bytes."""
        return self.tree.read(name, limit=limit, what="it")

    def write_top(self, name: str, data: bytes) -> None:
        """Write a file beside the scenario folders atomically."""
        self.tree.write(name, data=data)

    def delete_top(self, name: str) -> None:
        self.tree.delete(name)

    def clean_temp_files(self) -> int:
        """Remove the temp files an interrupted write left: only those of this process
        or of one that is no longer running, never through a link."""
        removed = 0
        for scenario in self.scenarios():
            with contextlib.suppress(FsError):
                removed += self.tree.clean_temp_files(scenario)
        return removed

    # -- the lock -----------------------------------------------------------------------

    @contextlib.contextmanager
    def lock(self, wait: float = 0.0, *, shared: bool = False) -> Iterator[None]:
        """Use of the tree: exclusive for a refresh or an accept (``StoreLocked`` if it
        is still taken after ``wait`` seconds), shared for the pytest plugin's writes.
        ``StoreError`` when the lock file cannot be taken (a folder or a link in its
        place, a tree that cannot be written)."""
        if shared:
            taken = (f"another {command('refresh')} holds {self.root}; waited {wait:g} s (let it finish, or raise "
                     "--replay-lock-wait)")
        else:
            taken = (f"another {command('refresh')} is running on {self.root} (or a pytest --snapshot-update is "
                     "writing to it); wait for it to finish")
        with self.tree.lock(LOCK_NAME, wait, taken, shared=shared, maker=line("refresh"),
                            needs="the golden folder must be writable to refresh it"):
            yield

    @contextlib.contextmanager
    def lock_folder(self, wait: float = 0.0) -> Iterator[None]:
        """Exclusive use of the tree, held on the folder itself: no lock file is made
        in it (a pending folder holds exactly what was written to it)."""
        with self.tree.lock_root(wait, f"{self.root} is in use by another replay command; wait for it to finish"):
            yield
