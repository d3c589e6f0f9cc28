"""The golden store: ``goldens/<scenario>/<artefact>`` on disk.

Writes are atomic (a temp file in the same folder, fsynced, then renamed over the
golden) and skipped when the bytes are unchanged, so an unchanged golden keeps its
mtime. A new golden gets the usual file mode (0666 less the umask: 0644 as a rule), a
rewritten one keeps the mode it had. A refresh holds an exclusive lock on the tree,
the pytest plugin a shared one while it writes (released by the OS even when the
process is killed). Reading never writes.

The tree is not trusted (a pull request may put anything in it): below the root,
nothing is followed or written through a symbolic link (every folder and file is
opened relative to its parent's descriptor, never following a link), only regular
files are read (a FIFO cannot hang a check), reads are bounded, and the temp files a
refresh cleans up are only those its own process or a dead one left.
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
from typing import BinaryIO, Literal

LOCK_NAME = ".refresh.lock"
_TEMP_PREFIX = ".tmp-"
MAX_GOLDEN_BYTES = 1 << 30
"""The largest golden read."""

Written = Literal["created", "updated", "unchanged"]

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class StoreError(Exception):
    """A golden (or the tree) cannot be read or written as asked; the message names
    the path and says why."""


class StoreLocked(Exception):
    """Another refresh (or a ``pytest --snapshot-update``) holds the lock on this tree."""


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a folder" if stat.S_ISDIR(mode) else "not a file"


def _link_refused(path: Path, instead: str) -> StoreError:
    return StoreError(f"{path}: a symbolic link; refused (replay never follows or writes through a link in the "
                      f"golden tree: replace it with {instead}, or remove it)")


def _check_name(name: str) -> None:
    if not name or name in (".", "..") or "/" in name or "\0" in name:
        raise StoreError(f"{name!r}: not a golden name (one path component)")


def _is_link(dir_fd: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode)
    except OSError:
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class GoldenStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    # -- descriptors --------------------------------------------------------------------

    def _root_fd(self, create: bool = False) -> int | None:
        """The root folder (given by the caller: a link there is followed); ``None``
        when it does not exist and ``create`` is false."""
        if create:
            try:
                self.root.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"{self.root}: cannot create the golden folder ({_reason(exc)})") from None
        try:
            return os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreError(f"{self.root}: cannot open the golden folder ({_reason(exc)})") from None

    def _folder_fd(self, root_fd: int, scenario: str, create: bool = False) -> int | None:
        """A scenario's golden folder, never through a link; ``None`` when missing."""
        _check_name(scenario)
        path = self.root / scenario
        for _ in range(2):
            try:
                return os.open(scenario, _DIR, dir_fd=root_fd)
            except FileNotFoundError:
                if not create:
                    return None
                try:
                    os.mkdir(scenario, dir_fd=root_fd)
                except FileExistsError:
                    continue
                except OSError as exc:
                    raise StoreError(f"{path}: cannot create the golden folder ({_reason(exc)})") from None
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR) and _is_link(root_fd, scenario):
                    raise _link_refused(path, "a folder") from None
                if exc.errno == errno.ENOTDIR:
                    raise StoreError(f"{path}: not a folder; refused") from None
                raise StoreError(f"{path}: cannot open the golden folder ({_reason(exc)})") from None
        raise StoreError(f"{path}: cannot open the golden folder")

    @contextlib.contextmanager
    def _folder(self, scenario: str, create: bool = False) -> Iterator[tuple[int, int | None]]:
        """``(root descriptor, scenario folder descriptor or None)``, both closed after."""
        root_fd = self._root_fd(create)
        if root_fd is None:
            yield -1, None
            return
        try:
            folder_fd = self._folder_fd(root_fd, scenario, create)
            try:
                yield root_fd, folder_fd
            finally:
                if folder_fd is not None:
                    os.close(folder_fd)
        finally:
            os.close(root_fd)

    # -- listing ------------------------------------------------------------------------

    def scenarios(self) -> list[str]:
        """The scenario folders that hold goldens, and every link in their place (a
        link is listed so that reading it is refused and reported, never followed)."""
        try:
            with os.scandir(self.root) as entries:
                return sorted(e.name for e in entries if not e.name.startswith(".")
                              and (e.is_symlink() or e.is_dir(follow_symlinks=False)))
        except (FileNotFoundError, NotADirectoryError):
            return []
        except OSError as exc:
            raise StoreError(f"{self.root}: cannot list the golden folder ({_reason(exc)})") from None

    def files(self, scenario: str) -> list[str]:
        """The golden files of a scenario: every entry but folders and hidden names
        (temp files of an interrupted write)."""
        with self._folder(scenario) as (_, folder_fd):
            if folder_fd is None:
                return []
            names = []
            for name in os.listdir(folder_fd):
                if name.startswith("."):
                    continue
                try:
                    mode = os.lstat(name, dir_fd=folder_fd).st_mode
                except OSError:
                    continue
                if not stat.S_ISDIR(mode):
                    names.append(name)
            return sorted(names)

    # -- reading and writing ------------------------------------------------------------

    def read(self, scenario: str, name: str) -> bytes | None:
        """The golden's bytes; ``None`` when it does not exist. ``StoreError`` when it
        exists but is not a regular file (a link, a folder, a FIFO) or cannot be read."""
        _check_name(name)
        path = self.root / scenario / name
        with self._folder(scenario) as (_, folder_fd):
            if folder_fd is None:
                return None
            try:
                return _read_regular(folder_fd, name, path, MAX_GOLDEN_BYTES, "the golden")
            except FileNotFoundError:
                return None

    @contextlib.contextmanager
    def open(self, scenario: str, name: str) -> Iterator[BinaryIO | None]:
        """The golden as a file to read (``None`` when it does not exist), with ``read``'s
        checks; an error reading it is a ``StoreError``."""
        _check_name(name)
        path = self.root / scenario / name
        with self._folder(scenario) as (_, folder_fd):
            try:
                fh = None if folder_fd is None else _open_regular(folder_fd, name, path, MAX_GOLDEN_BYTES,
                                                                  "the golden")
            except FileNotFoundError:
                fh = None
        if fh is None:
            yield None
            return
        with fh:
            try:
                yield fh
            except OSError as exc:
                raise StoreError(f"{path}: cannot read the golden ({_reason(exc)})") from None

    def write(self, scenario: str, name: str, data: bytes) -> Written:
        """Write one golden atomically; leave it untouched when the bytes are equal."""
        current = self.read(scenario, name)
        if current == data:
            return "unchanged"
        with self._folder(scenario, create=True) as (_, folder_fd):
            assert folder_fd is not None
            _write_atomically(folder_fd, self.root / scenario, name, data, "golden")
        return "created" if current is None else "updated"

    # -- files beside the scenario folders (a manifest) ----------------------------------

    def read_top(self, name: str, limit: int) -> bytes | None:
        """A file beside the scenario folders (a manifest): ``None`` when there is none;
        ``StoreError`` when it is a link, not a regular file, or over ``limit`` bytes."""
        _check_name(name)
        root_fd = self._root_fd()
        if root_fd is None:
            return None
        try:
            return _read_regular(root_fd, name, self.root / name, limit, "it")
        except FileNotFoundError:
            return None
        finally:
            os.close(root_fd)

    def write_top(self, name: str, data: bytes) -> None:
        """Write a file beside the scenario folders atomically."""
        _check_name(name)
        root_fd = self._root_fd(create=True)
        assert root_fd is not None
        try:
            _write_atomically(root_fd, self.root, name, data, "file")
        finally:
            os.close(root_fd)

    def delete_top(self, name: str) -> None:
        _check_name(name)
        root_fd = self._root_fd()
        if root_fd is None:
            return
        try:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name, dir_fd=root_fd)
            with contextlib.suppress(OSError):
                os.fsync(root_fd)
        finally:
            os.close(root_fd)

    def delete(self, scenario: str, name: str) -> None:
        """Delete one golden (a link is removed itself, never what it points at), and
        the scenario's folder once empty."""
        _check_name(name)
        path = self.root / scenario / name
        with self._folder(scenario) as (root_fd, folder_fd):
            if folder_fd is None:
                return
            try:
                os.unlink(name, dir_fd=folder_fd)
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise StoreError(f"{path}: cannot delete the golden ({_reason(exc)})") from None
            if not os.listdir(folder_fd):
                with contextlib.suppress(OSError):
                    os.rmdir(scenario, dir_fd=root_fd)
            with contextlib.suppress(OSError):
                os.fsync(root_fd)

    def clean_temp_files(self) -> int:
        """Remove the temp files an interrupted write left: only those of this process
        or of one that is no longer running (``.tmp-<pid>-…``), never through a link."""
        removed = 0
        root_fd = self._root_fd()
        if root_fd is None:
            return 0
        try:
            for scenario in self.scenarios():
                try:
                    folder_fd = self._folder_fd(root_fd, scenario)
                except StoreError:
                    continue
                if folder_fd is None:
                    continue
                try:
                    for name in os.listdir(folder_fd):
                        if self._abandoned(name):
                            with contextlib.suppress(OSError):
                                os.unlink(name, dir_fd=folder_fd)
                                removed += 1
                finally:
                    os.close(folder_fd)
        finally:
            os.close(root_fd)
        return removed

    @staticmethod
    def _abandoned(name: str) -> bool:
        if not name.startswith(_TEMP_PREFIX):
            return False
        pid_text = name[len(_TEMP_PREFIX):].split("-", 1)[0]
        if not pid_text.isdigit():
            return False  # not a name this version writes: another writer's, left alone
        pid = int(pid_text)
        return pid == os.getpid() or not _alive(pid)

    # -- the lock -----------------------------------------------------------------------

    @contextlib.contextmanager
    def lock(self, wait: float = 0.0, *, shared: bool = False) -> Iterator[None]:
        """Use of the tree: exclusive for a refresh or an accept (``StoreLocked`` if it
        is still taken after ``wait`` seconds), shared for the pytest plugin's writes.
        ``StoreError`` when the lock file cannot be taken (a folder or a link in its
        place, a tree that cannot be written)."""
        root_fd = self._root_fd(create=True)
        assert root_fd is not None
        path = self.root / LOCK_NAME
        try:
            try:
                fd = os.open(LOCK_NAME, os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                             0o666, dir_fd=root_fd)
            except OSError as exc:
                raise self._lock_error(path, exc, root_fd) from None
        finally:
            os.close(root_fd)
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise StoreError(f"{path}: {_kind(mode)}, not the lock file; remove it (replay refresh creates it)")
            if shared:
                taken = (f"another `replay refresh` holds {self.root}; waited {wait:g} s (let it finish, or raise "
                         "--replay-lock-wait)")
            else:
                taken = (f"another `replay refresh` is running on {self.root} (or a pytest --snapshot-update is "
                         "writing to it); wait for it to finish")
            _flock(fd, wait, taken, shared)
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
            raise StoreError(f"{self.root}: cannot use it as a folder ({_reason(exc)})") from None
        try:
            _flock(fd, wait, f"{self.root} is in use by another replay command; wait for it to finish")
            yield
        finally:
            os.close(fd)

    @staticmethod
    def _lock_error(path: Path, exc: OSError, root_fd: int) -> StoreError:
        if exc.errno == errno.ELOOP or _is_link(root_fd, LOCK_NAME):
            return StoreError(f"{path}: a symbolic link; refused (replay never takes its lock through a link: "
                              "remove it)")
        if exc.errno == errno.EISDIR:
            return StoreError(f"{path}: a folder, not the lock file; remove it (replay refresh creates it)")
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return StoreError(f"{path}: cannot create the lock file ({_reason(exc)}); the golden folder must be "
                              "writable to refresh it")
        return StoreError(f"{path}: cannot take the lock ({_reason(exc)})")


def _flock(fd: int, wait: float, taken: str, shared: bool = False) -> None:
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise StoreLocked(taken) from None
            time.sleep(0.05)


def _read_regular(dir_fd: int, name: str, path: Path, limit: int, what: str) -> bytes:
    """``name`` in the folder ``dir_fd``, never through a link, a regular file of at most
    ``limit`` bytes (``FileNotFoundError`` when it is not there, else ``StoreError``)."""
    with _open_regular(dir_fd, name, path, limit, what) as fh:
        try:
            data = fh.read(limit + 1)
        except OSError as exc:
            raise StoreError(f"{path}: cannot read {what} ({_reason(exc)})") from None
    if len(data) > limit:
        raise StoreError(f"{path}: larger than {limit} bytes; refused")
    return data


def _open_regular(dir_fd: int, name: str, path: Path, limit: int, what: str) -> BinaryIO:
    """``name`` in the folder ``dir_fd`` opened to read, never through a link, a regular
    file of at most ``limit`` bytes when opened (``FileNotFoundError`` when it is not
    there, else ``StoreError``)."""
    try:
        fd = os.open(name, _READ, dir_fd=dir_fd)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _link_refused(path, "the file") from None
        raise StoreError(f"{path}: cannot read {what} ({_reason(exc)})") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise StoreError(f"{path}: cannot read {what}: not a regular file ({_kind(info.st_mode)}); refused")
    if info.st_size > limit:
        os.close(fd)
        raise StoreError(f"{path}: larger than {limit} bytes; refused")
    return os.fdopen(fd, "rb")


def _write_atomically(dir_fd: int, folder: Path, name: str, data: bytes, what: str) -> None:
    """``name`` in the folder ``dir_fd`` replaced by ``data`` at once: a temp file beside
    it, fsynced, renamed over it (a link in its place is replaced, never written
    through). A new file gets 0666 less the umask, a replaced one keeps its mode."""
    path = folder / name
    temp = f"{_TEMP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=dir_fd)
    except OSError as exc:
        raise StoreError(f"{path}: cannot write the {what} ({_reason(exc)})") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            mode = _mode_of(dir_fd, name)
            if mode is not None:
                os.fchmod(fh.fileno(), mode)
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=dir_fd)
        if isinstance(exc, OSError):
            raise StoreError(f"{path}: cannot write the {what} ({_reason(exc)})") from None
        raise
    with contextlib.suppress(OSError):
        os.fsync(dir_fd)


def _mode_of(dir_fd: int, name: str) -> int | None:
    """The permission bits of the regular file a write replaces (``None``: none there)."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return None
    return stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else None
