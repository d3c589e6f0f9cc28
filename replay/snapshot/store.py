"""The golden store: ``goldens/<scenario>/<artefact>`` on disk.

Writes are atomic (a temp file in the same folder, fsynced, then renamed over the
golden) and skipped when the bytes are unchanged, so an unchanged golden keeps its
mtime. A new golden gets the usual file mode (0666 less the umask: 0644 as a rule),
a rewritten one keeps the mode it had. A refresh holds an exclusive lock on the tree (released by the OS even when
the process is killed). Reading never writes.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import stat
import time
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
        current = self.read(scenario, name)
        if current == data:
            return "unchanged"
        _write_atomically(self.root / scenario, name, data, "golden")
        return "created" if current is None else "updated"

    def read_top(self, name: str, limit: int) -> bytes | None:
        """A file beside the scenario folders (a manifest): ``None`` when there is none;
        ``StoreError`` when it is a link, not a regular file, or over ``limit`` bytes."""
        path = self.root / name
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        except OSError as exc:
            reason = "a symbolic link; refused" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
            raise StoreError(f"{path}: cannot read it ({reason})") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise StoreError(f"{path}: cannot read it (not a regular file); refused")
        with os.fdopen(fd, "rb") as fh:
            try:
                data = fh.read(limit + 1)
            except OSError as exc:
                raise StoreError(f"{path}: cannot read it ({exc.strerror or exc})") from None
        if len(data) > limit:
            raise StoreError(f"{path}: larger than {limit} bytes; refused")
        return data

    def write_top(self, name: str, data: bytes) -> None:
        """Write a file beside the scenario folders atomically."""
        _write_atomically(self.root, name, data, "file")

    def delete_top(self, name: str) -> None:
        (self.root / name).unlink(missing_ok=True)
        _fsync_dir(self.root)

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
    def lock(self, wait: float = 0.0) -> Iterator[None]:
        """Exclusive use of the tree for one refresh (or accept); ``StoreLocked`` if it
        is still taken after ``wait`` seconds."""
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root / LOCK_NAME, os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            _flock(fd, wait, f"another `replay refresh` is running on {self.root}; wait for it to finish")
            yield
        finally:
            os.close(fd)

    @contextlib.contextmanager
    def lock_folder(self, wait: float = 0.0) -> Iterator[None]:
        """Exclusive use of the tree, held on the folder itself: no lock file is made
        in it (a pending folder holds exactly what was written to it)."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as exc:
            raise StoreError(f"{self.root}: cannot use it as a folder ({exc.strerror or exc})") from None
        try:
            _flock(fd, wait, f"{self.root} is in use by another replay command; wait for it to finish")
            yield
        finally:
            os.close(fd)


def _flock(fd: int, wait: float, taken: str) -> None:
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise StoreLocked(taken) from None
            time.sleep(0.05)


def _write_atomically(folder: Path, name: str, data: bytes, what: str) -> None:
    """``folder/name`` replaced by ``data`` at once: a temp file beside it, fsynced,
    renamed over it. A new file gets 0666 less the umask, a replaced one keeps its mode."""
    path = folder / name
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # Not mkstemp: its 0600 would make every rewritten golden private to its writer.
        temp = folder / f"{_TEMP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    except OSError as exc:
        raise StoreError(f"{path}: cannot write the {what} ({exc.strerror or exc})") from None
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
            raise StoreError(f"{path}: cannot write the {what} ({exc.strerror or exc})") from None
        raise
    _fsync_dir(folder)


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
