"""The golden store: ``goldens/<scenario>/<artefact>`` on disk.

Writes are atomic (a temp file in the same folder, fsynced, then renamed over the
golden) and skipped when the bytes are unchanged, so an unchanged golden keeps its
mtime. A new golden gets the usual file mode (0666 less the umask: 0644 as a rule),
a rewritten one keeps the mode it had. A refresh holds an exclusive lock on the tree (released by the OS even when
the process is killed). Reading never writes.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

LOCK_NAME = ".refresh.lock"
_TEMP_PREFIX = ".tmp-"

Written = Literal["created", "updated", "unchanged"]


class StoreError(Exception):
    """A golden exists but cannot be read or written; the message names the file."""


class StoreLocked(Exception):
    """Another refresh holds the lock on this tree."""


class GoldenStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def scenarios(self) -> list[str]:
        """The scenario folders that hold goldens."""
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if p.is_dir() and not p.name.startswith("."))

    def files(self, scenario: str) -> list[str]:
        """The golden files of a scenario (temp files of an interrupted write excluded)."""
        folder = self.root / scenario
        if not folder.is_dir():
            return []
        return sorted(p.name for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))

    def read(self, scenario: str, name: str) -> bytes | None:
        """The golden's bytes; ``None`` when it does not exist. ``StoreError`` when it
        exists but cannot be read (a folder in its place, no permission)."""
        path = self.root / scenario / name
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreError(f"{path}: cannot read the golden ({exc.strerror or exc})") from None

    def write(self, scenario: str, name: str, data: bytes) -> Written:
        """Write one golden atomically; leave it untouched when the bytes are equal."""
        folder = self.root / scenario
        path = folder / name
        current = self.read(scenario, name)
        if current == data:
            return "unchanged"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            # Not mkstemp: its 0600 would make every rewritten golden private to its writer.
            temp = folder / f"{_TEMP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
        except OSError as exc:
            raise StoreError(f"{path}: cannot write the golden ({exc.strerror or exc})") from None
        try:
            with os.fdopen(fd, "wb") as fh:
                mode = _mode_of(path)
                if mode is not None:
                    os.fchmod(fh.fileno(), mode)
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(temp, path)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            if isinstance(exc, OSError):
                raise StoreError(f"{path}: cannot write the golden ({exc.strerror or exc})") from None
            raise
        _fsync_dir(folder)
        return "created" if current is None else "updated"

    def delete(self, scenario: str, name: str) -> None:
        folder = self.root / scenario
        (folder / name).unlink(missing_ok=True)
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
        _fsync_dir(self.root)

    def clean_temp_files(self) -> int:
        """Remove what an interrupted write left behind (never a golden itself)."""
        removed = 0
        for temp in self.root.glob(f"*/{_TEMP_PREFIX}*"):
            with contextlib.suppress(OSError):
                temp.unlink()
                removed += 1
        return removed

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Exclusive use of the tree for one refresh; ``StoreLocked`` if it is taken."""
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root / LOCK_NAME, os.O_CREAT | os.O_RDWR, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise StoreLocked(f"another `replay refresh` is running on {self.root}; wait for it to "
                                  "finish") from None
            yield
        finally:
            os.close(fd)


def _mode_of(path: Path) -> int | None:
    """The permission bits of the regular file a write replaces (``None``: none there)."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else None


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
