"""The confined tree itself: the descriptors, bounded reads and atomic writes below an
untrusted folder's root (the package's docstring says the rules)."""


from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import shutil
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import BinaryIO, Literal

from replay.describe import kind, reason
from replay.fs.faults import _write_fault
from replay.output import GATHER, encoded

TEMP_PREFIX = ".tmp-"
"""The prefix of every temporary file replay writes (``.tmp-<pid>-<random>``)."""

NO_FSYNC = "REPLAY_TEST_NO_FSYNC"
"""The environment variable that, set to ``1``, makes every fsync a no-op: for the test
suite, whose thousands of throwaway writes would each wait for the disk (a kill, even
``-9``, leaves the same files with or without them; only a power cut differs)."""

Written = Literal["created", "updated", "unchanged"]

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class FsError(Exception):
    """A file or folder cannot be used as asked; the message names the path and says why."""


class Locked(Exception):
    """Another command holds the lock asked for; the message says who and what to do."""


def check_name(name: str) -> None:
    """One path component: not empty, ``.``, ``..``, nor holding ``/`` or NUL."""
    if not name or name in (".", "..") or "/" in name or "\0" in name:
        raise FsError(f"{name!r}: not a file name (one path component)")


def _is_link(dir_fd: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode)
    except OSError:
        return False


def _link_refused(path: PurePath, instead: str) -> FsError:
    return FsError(f"{path}: a symbolic link; refused (replay never follows or writes through a link in a tree it "
                   f"does not trust: replace it with {instead}, or remove it)")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _fsync(fd: int) -> None:
    """``os.fsync``, unless ``NO_FSYNC`` says not to."""
    if os.environ.get(NO_FSYNC) != "1":
        os.fsync(fd)


def _sync(fd: int) -> None:
    with contextlib.suppress(OSError):
        _fsync(fd)


@dataclass(frozen=True, slots=True)
class Entry:
    """A name in a folder and what it is (``lstat``: a link is a link)."""

    name: str
    mode: int

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.mode)

    @property
    def is_file(self) -> bool:
        return stat.S_ISREG(self.mode)

    @property
    def is_link(self) -> bool:
        return stat.S_ISLNK(self.mode)


@dataclass(frozen=True)
class Tree:
    """A folder whose contents are not trusted (see the module docstring).

    ``path`` names it in messages. With ``base`` (``None``: the user named ``path``),
    ``path`` lies below the folder ``base`` and no component of it below ``base`` may be
    a link: ``Tree.found(Path("goldens"))`` is ``./goldens``, refused if it is a link."""

    path: Path
    base: Path | None = None

    @classmethod
    def named(cls, path: Path) -> Tree:
        """A folder the user named: the links in ``path`` itself are followed."""
        return cls(path)

    @classmethod
    def found(cls, path: Path, base: Path = Path(".")) -> Tree:
        """A folder replay finds on its own, ``path`` below ``base`` (default: the
        working directory): no component of ``path`` may be a link."""
        return cls(base / path if base != Path(".") else path, base)

    def __str__(self) -> str:
        return str(self.path)

    def at(self, *parts: str) -> Path:
        """How ``parts`` below the root are named in messages."""
        return self.path.joinpath(*parts)

    # -- descriptors --------------------------------------------------------------------

    def _root_parts(self) -> tuple[str, ...]:
        assert self.base is not None
        relative = self.path.relative_to(self.base) if self.base != Path(".") else self.path
        return tuple(p for p in relative.parts if p not in ("", "."))

    def _open_named(self) -> int | None:
        """A descriptor of a root the user named (the links in its path followed);
        ``None`` when it does not exist."""
        try:
            return os.open(self.path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        except NotADirectoryError:
            raise FsError(f"{self.path}: {not_a_folder(self.path)}; refused") from None
        except OSError as exc:
            raise FsError(f"{self.path}: cannot open the folder ({reason(exc)})") from None

    def open_root(self, create: bool = False) -> int | None:
        """A descriptor of the root (``None`` when it does not exist and ``create`` is
        false). ``FsError`` when it is a link (a found root), not a folder, or cannot be
        opened or made."""
        if self.base is None:
            fd = self._open_named()
            if fd is None and create:
                try:  # made only when missing (most writes find it there)
                    self.path.mkdir(parents=True, exist_ok=True)
                except FileExistsError:
                    pass  # not a folder: said when it is opened
                except NotADirectoryError:
                    raise FsError(f"{self.path}: cannot create the folder: {not_a_folder(self.path)}") from None
                except OSError as exc:
                    raise FsError(f"{self.path}: cannot create the folder ({reason(exc)})") from None
                fd = self._open_named()
            return fd
        try:
            fd = os.open(self.base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as exc:
            raise FsError(f"{self.base}: cannot open the folder ({reason(exc)})") from None
        shown = self.base if self.base != Path(".") else Path()
        for part in self._root_parts():
            shown = shown / part
            try:
                child = _open_folder(fd, part, shown, create)
            finally:
                os.close(fd)
            if child is None:
                return None
            fd = child
        return fd

    def check_root(self) -> None:
        """``FsError`` when the root cannot be opened as a folder (a link replay found, a
        file); a root that does not exist yet is fine."""
        with self.root():
            pass

    @contextlib.contextmanager
    def root(self, create: bool = False) -> Iterator[int | None]:
        """The root's descriptor (``None``: it does not exist), closed after."""
        fd = self.open_root(create)
        try:
            yield fd
        finally:
            if fd is not None:
                os.close(fd)

    @contextlib.contextmanager
    def folder(self, *parts: str, create: bool = False) -> Iterator[int | None]:
        """The descriptor of the folder ``parts`` below the root (``None``: missing),
        every component opened without following a link; closed after."""
        for part in parts:
            check_name(part)
        with self.root(create) as fd:
            if fd is None:
                yield None
                return
            current = fd
            opened: list[int] = []
            try:
                shown = self.path
                for part in parts:
                    shown = shown / part
                    child = _open_folder(current, part, shown, create)
                    if child is None:
                        yield None
                        return
                    opened.append(child)
                    current = child
                yield current
            finally:
                for child in opened:
                    os.close(child)

    # -- listing ------------------------------------------------------------------------

    def entries(self, *parts: str) -> list[Entry]:
        """What the folder ``parts`` holds (links as links), sorted by name; empty when
        it does not exist."""
        with self.folder(*parts) as fd:
            if fd is None:
                return []
            try:
                names = os.listdir(fd)
            except OSError as exc:
                raise FsError(f"{self.at(*parts)}: cannot list the folder ({reason(exc)})") from None
            found = []
            for name in sorted(names):
                try:
                    found.append(Entry(name, os.lstat(name, dir_fd=fd).st_mode))
                except OSError:
                    continue  # gone since it was listed
            return found

    def exists(self, *parts: str) -> bool:
        """Whether ``parts`` names anything (a link included), never following one."""
        *folder, name = parts
        check_name(name)
        with self.folder(*folder) as fd:
            if fd is None:
                return False
            try:
                os.lstat(name, dir_fd=fd)
            except OSError:
                return False
            return True

    def is_folder(self, *parts: str) -> bool:
        """Whether ``parts`` names a folder (a link to one is not), never following a link."""
        *folder, name = parts
        check_name(name)
        with self.folder(*folder) as fd:
            return fd is not None and _is_dir(fd, name)

    # -- reading ------------------------------------------------------------------------

    def read(self, *parts: str, limit: int, what: str = "the file") -> bytes | None:
        """A regular file's bytes (``None`` when it does not exist). ``FsError`` when it
        is a link, not a regular file, larger than ``limit``, or cannot be read."""
        *folder, name = parts
        check_name(name)
        with self.folder(*folder) as fd:
            if fd is None:
                return None
            try:
                return _read_regular(fd, name, self.at(*parts), limit, what)
            except FileNotFoundError:
                return None

    def open(self, *parts: str, what: str = "the file", limit: int | None = None) -> BinaryIO:
        """A regular file for reading, never through a link, of at most ``limit`` bytes
        when opened (``FsError`` otherwise, ``FileNotFoundError`` when it is not there)."""
        *folder, name = parts
        check_name(name)
        with self.folder(*folder) as fd:
            if fd is None:
                raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(self.at(*parts)))
            stream = _open_regular(fd, name, self.at(*parts), what)
        if limit is not None and os.fstat(stream.fileno()).st_size > limit:
            stream.close()
            raise FsError(f"{self.at(*parts)}: {what} is larger than {limit} bytes; refused")
        return stream

    # -- writing ------------------------------------------------------------------------

    def write(self, *parts: str, data: bytes | Iterable[bytes | str], what: str = "file",
              unchanged: bytes | None = None, durable: bool = True) -> Written:
        """Write a file atomically (its folders made as needed). ``unchanged``: the
        bytes it holds now when the caller read them (``data`` equal to them: nothing
        is written). ``durable=False`` leaves the flush to disk to the system (many files
        of a folder no one sees yet, made again by running the command again: a
        generated site), the write still atomic."""
        *folder, name = parts
        check_name(name)
        if isinstance(data, bytes) and unchanged is not None and data == unchanged:
            return "unchanged"
        with self.folder(*folder, create=True) as fd:
            assert fd is not None
            existed = _lexists(fd, name)
            write_atomically(fd, self.at(*parts), name, [data] if isinstance(data, bytes) else data, what,
                             durable=durable)
        return "updated" if existed else "created"

    @contextlib.contextmanager
    def writer(self, *parts: str, staged: bool = False) -> Iterator[Callable[..., None]]:
        """Many files written below the folder ``parts`` (made as needed) through one
        descriptor of it: ``write(*names, data=…, what="file", durable=True)`` writes the
        file ``names`` (its folders below ``parts`` made as needed, never through a
        link), atomically, as ``write`` writes one. The folder of the last file written
        is kept open: write a folder's files one after another.

        ``staged``: ``parts`` is a staging folder this run made, that no reader looks at
        and that is published whole (``Commit``): each file is new there, created at its
        own name (never over a file or through a link: ``FsError`` when something is
        there), with no temporary file and no rename (a run that dies leaves the staging
        folder, which the next removes)."""
        with self.folder(*parts, create=True) as fd:
            assert fd is not None
            root = self.at(*parts)
            held: list[tuple[tuple[str, ...], int]] = []

            def folder_of(names: tuple[str, ...]) -> int:
                if held and held[0][0] == names:
                    return held[0][1]
                for _, old in held:
                    os.close(old)
                held.clear()
                current = os.dup(fd)
                shown = root
                for name in names:
                    shown = shown / name
                    try:
                        child = _open_folder(current, name, shown, create=True)
                    finally:
                        os.close(current)
                    assert child is not None
                    current = child
                held.append((names, current))
                return current

            def write(*names: str, data: bytes | Iterable[bytes | str], what: str = "file",
                      durable: bool = True) -> None:
                for name in names:
                    check_name(name)
                *folder, name = names
                chunks = [data] if isinstance(data, bytes) else data
                if staged:
                    write_new(folder_of(tuple(folder)), root, names, chunks, what, durable=durable)
                else:
                    write_atomically(folder_of(tuple(folder)), root.joinpath(*names), name, chunks, what,
                                     durable=durable)

            try:
                yield write
            finally:
                for _, old in held:
                    os.close(old)

    def move(self, source: tuple[str, ...], target: tuple[str, ...]) -> None:
        """Rename the entry ``source`` (a file or a folder) to ``target``, both below the
        root (every folder opened without following a link; ``target``'s folder made as
        needed). A file replaces a file at ``target``; a folder takes the place of
        nothing (``FileExistsError`` when something is there)."""
        *source_folder, source_name = source
        *target_folder, target_name = target
        check_name(source_name)
        check_name(target_name)
        with self.folder(*source_folder) as src, self.folder(*target_folder, create=True) as dst:
            if src is None:
                raise FsError(f"{self.at(*source)}: gone")
            assert dst is not None
            if _is_dir(src, source_name) and _lexists(dst, target_name):
                raise FileExistsError(errno.EEXIST, "File exists", str(self.at(*target)))
            try:
                os.rename(source_name, target_name, src_dir_fd=src, dst_dir_fd=dst)
            except OSError as exc:
                raise FsError(f"{self.at(*target)}: cannot move {self.at(*source)} there ({reason(exc)})") from None

    def delete(self, *parts: str, what: str = "the file") -> bool:
        """Delete one file (a link is removed itself, never what it points at); whether
        there was one. ``FsError`` when it cannot be deleted (a folder in its place)."""
        *folder, name = parts
        check_name(name)
        with self.folder(*folder) as fd:
            if fd is None:
                return False
            try:
                os.unlink(name, dir_fd=fd)
            except FileNotFoundError:
                return False
            except OSError as exc:
                if exc.errno in (errno.EISDIR, errno.EPERM) and _is_dir(fd, name):
                    raise FsError(f"{self.at(*parts)}: a folder, not {what}; refused (remove it by hand)") from None
                raise FsError(f"{self.at(*parts)}: cannot delete {what} ({reason(exc)})") from None
            _sync(fd)
            return True

    def remove_folder_if_empty(self, *parts: str) -> None:
        """Remove the folder ``parts`` when it holds nothing (else leave it)."""
        *folder, name = parts
        check_name(name)
        with self.folder(*folder) as fd:
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.rmdir(name, dir_fd=fd)
                    _sync(fd)

    def remove_tree(self, *parts: str) -> None:
        """Remove the folder ``parts`` and all it holds, never following a link."""
        *folder, name = parts
        check_name(name)
        with self.folder(*folder) as fd:
            if fd is not None:
                shutil.rmtree(name, dir_fd=fd, ignore_errors=True)

    def touch(self, *parts: str) -> None:
        """Set the modification time of the folder ``parts`` to now (when it was last
        used: a cache's pruning reads it); nothing when it is missing."""
        with self.folder(*parts) as fd:
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.utime(fd)

    def status(self, *parts: str) -> tuple[int, int, int, int, int] | None:
        """The file's device, inode, size, modification and change times (ns), not through
        a link (``None``: not there): another once ``write`` replaced it."""
        *folder, name = parts
        check_name(name)
        with self.folder(*folder) as fd, contextlib.suppress(OSError):
            st = os.stat(name, dir_fd=fd, follow_symlinks=False) if fd is not None else None
            return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns) if st is not None else None
        return None

    def usage(self, *parts: str) -> tuple[int, int] | None:
        """The folder ``parts``: the bytes of the regular files it holds (not below
        it) and its modification time in nanoseconds; ``None`` when it is missing."""
        with self.folder(*parts) as fd:
            if fd is None:
                return None
            total = 0
            with contextlib.suppress(OSError):
                for name in os.listdir(fd):
                    with contextlib.suppress(OSError):
                        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                        if stat.S_ISREG(st.st_mode):
                            total += st.st_size
            return total, os.fstat(fd).st_mtime_ns

    def make_folder(self, *parts: str) -> None:
        """Make the folder ``parts`` (``FileExistsError`` when something has its name)."""
        *folder, name = parts
        check_name(name)
        with self.folder(*folder, create=True) as fd:
            assert fd is not None
            try:
                os.mkdir(name, dir_fd=fd)
            except FileExistsError:
                raise
            except OSError as exc:
                raise FsError(f"{self.at(*parts)}: cannot create the folder ({reason(exc)})") from None

    def rename_new(self, source: str, target: str) -> None:
        """Rename the entry ``source`` of the root to ``target``, which must not exist
        (``FileExistsError`` when it does)."""
        check_name(source)
        check_name(target)
        with self.root() as fd:
            if fd is None:
                raise FsError(f"{self.path}: the folder is gone")
            if _lexists(fd, target):
                raise FileExistsError(errno.EEXIST, "File exists", str(self.at(target)))
            try:
                os.rename(source, target, src_dir_fd=fd, dst_dir_fd=fd)
            except OSError as exc:
                raise FsError(f"{self.at(target)}: cannot create it ({reason(exc)})") from None
            _sync(fd)

    def clean_temp_files(self, *parts: str) -> int:
        """Remove the temporary files an interrupted write left in the folder ``parts``:
        only those of this process or of one that is no longer running."""
        removed = 0
        with self.folder(*parts) as fd:
            if fd is None:
                return 0
            with contextlib.suppress(OSError):
                for name in os.listdir(fd):
                    if abandoned(name):
                        with contextlib.suppress(OSError):
                            os.unlink(name, dir_fd=fd)
                            removed += 1
        return removed

    # -- locks --------------------------------------------------------------------------

    @contextlib.contextmanager
    def lock(self, name: str, wait: float, taken: str, *, shared: bool = False,
             maker: str = "replay", needs: str = "") -> Iterator[None]:
        """Hold a lock on the file ``name`` of the root (made as needed): exclusive, or
        ``shared``; ``Locked(taken)`` if it is still held elsewhere after ``wait``
        seconds. The OS releases it when the process ends, however it ends. Messages
        say that ``maker`` creates the file, and why the folder must be writable
        (``needs``)."""
        check_name(name)
        path = self.at(name)
        with self.root(create=True) as root_fd:
            assert root_fd is not None
            try:
                fd = os.open(name, os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o666,
                             dir_fd=root_fd)
            except OSError as exc:
                raise _lock_error(path, exc, root_fd, name, maker, needs) from None
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise FsError(f"{path}: {kind(mode)}, not the lock file; remove it ({maker} creates it)")
            _flock(fd, wait, taken, shared)
            yield
        finally:
            os.close(fd)

    @contextlib.contextmanager
    def lock_root(self, wait: float, taken: str) -> Iterator[None]:
        """Exclusive use of the tree, held on its root folder itself (made as needed):
        no lock file is made in it."""
        with self.root(create=True) as fd:
            assert fd is not None
            _flock(fd, wait, taken)
            yield


def within(path: Path, root: Path) -> bool:
    """Whether ``path``, links followed, is ``root`` or below it (where a command
    would write, compared with a tree it must not write into)."""
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(root))


def not_a_folder(path: Path) -> str:
    """Why ``path`` cannot be (or be made) a folder, naming the part of it at fault:
    ``afile is a regular file, not a folder`` for ``afile/site``."""
    parts = path.parts
    for end in range(1, len(parts) + 1):
        prefix = Path(*parts[:end])
        try:
            mode = os.stat(prefix).st_mode
        except OSError:
            break
        if not stat.S_ISDIR(mode):
            return f"{prefix} is {kind(mode)}, not a folder" if prefix != path else f"{kind(mode)}, not a folder"
    return "not a folder"


def _lmode(dir_fd: int, name: str) -> int | None:
    """The mode of ``name`` in ``dir_fd``, not through a link (``None``: nothing there)."""
    try:
        return os.lstat(name, dir_fd=dir_fd).st_mode
    except OSError:
        return None


def _lexists(dir_fd: int, name: str) -> bool:
    return _lmode(dir_fd, name) is not None


def _is_dir(dir_fd: int, name: str) -> bool:
    return stat.S_ISDIR(_lmode(dir_fd, name) or 0)


def _open_folder(dir_fd: int, name: str, path: PurePath, create: bool) -> int | None:
    """The folder ``name`` of ``dir_fd``, never through a link; ``None`` when missing."""
    for _ in range(2):
        try:
            return os.open(name, _DIR, dir_fd=dir_fd)
        except FileNotFoundError:
            if not create:
                return None
            try:
                os.mkdir(name, dir_fd=dir_fd)
            except FileExistsError:
                continue
            except OSError as exc:
                raise FsError(f"{path}: cannot create the folder ({reason(exc)})") from None
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR) and _is_link(dir_fd, name):
                raise _link_refused(path, "a folder") from None
            if exc.errno == errno.ENOTDIR:
                raise FsError(f"{path}: not a folder; refused") from None
            raise FsError(f"{path}: cannot open the folder ({reason(exc)})") from None
    raise FsError(f"{path}: cannot open the folder")


def _open_regular(dir_fd: int, name: str, path: PurePath, what: str) -> BinaryIO:
    try:
        fd = os.open(name, _READ, dir_fd=dir_fd)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _link_refused(path, "the file") from None
        raise FsError(f"{path}: cannot read {what} ({reason(exc)})") from None
    return _regular_stream(fd, path, what)


def _regular_stream(fd: int, path: PurePath, what: str) -> BinaryIO:
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise FsError(f"{path}: cannot read {what}: {kind(mode)}, not a regular file; refused")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def _read_stream(stream: BinaryIO, path: PurePath, limit: int, what: str) -> bytes:
    if os.fstat(stream.fileno()).st_size > limit:  # refused before it is read
        stream.close()
        raise FsError(f"{path}: {what} is larger than {limit} bytes; refused")
    with stream:
        try:
            data = stream.read(limit + 1)
        except OSError as exc:
            raise FsError(f"{path}: cannot read {what} ({reason(exc)})") from None
    if len(data) > limit:
        raise FsError(f"{path}: {what} is larger than {limit} bytes; refused")
    return data


def _read_regular(dir_fd: int, name: str, path: PurePath, limit: int, what: str) -> bytes:
    """``name`` in the folder ``dir_fd``, never through a link, a regular file of at most
    ``limit`` bytes (``FileNotFoundError`` when it is not there, else ``FsError``)."""
    return _read_stream(_open_regular(dir_fd, name, path, what), path, limit, what)


def read_named(path: Path, limit: int, what: str = "the file") -> bytes:
    """A file the user named (links in its path followed): a regular file of at most
    ``limit`` bytes, opened so that a FIFO cannot hang the command. ``FsError`` (which
    names the path and what it is) otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise FsError(f"{path}: cannot read {what} ({reason(exc)})") from None
    return _read_stream(_regular_stream(fd, path, what), path, limit, what)


def abandoned(name: str, prefix: str = TEMP_PREFIX) -> bool:
    """Whether ``name`` (``<prefix><pid>-…``) is what this process, or one that is no
    longer running, left behind."""
    if not name.startswith(prefix):
        return False
    pid_text = name[len(prefix):].split("-", 1)[0]
    if not pid_text.isdigit():
        return False  # not a name this version writes: another writer's, left alone
    pid = int(pid_text)
    return pid == os.getpid() or not _alive(pid)


def _mode_of(dir_fd: int, name: str) -> int | None:
    """The permission bits of the regular file a write replaces (``None``: none there)."""
    mode = _lmode(dir_fd, name)
    return stat.S_IMODE(mode) if mode is not None and stat.S_ISREG(mode) else None


def write_atomically(dir_fd: int, path: PurePath, name: str, chunks: Iterable[bytes | str], what: str,
                     durable: bool = True) -> None:
    """``name`` in the folder ``dir_fd`` replaced by ``chunks`` at once: a temporary file
    beside it, fsynced (unless not ``durable``), renamed over it (a link in its place is
    replaced, never written through). A new file gets 0666 less the umask, a replaced
    one keeps its mode. On any failure the temporary file is removed and ``FsError``
    names ``path`` (``what``: the file's role in messages, as in "cannot write the
    golden"; empty: "cannot write")."""
    failed = f"{path}: cannot write{' the ' + what if what else ''}"
    try:
        _write_fault()
    except OSError as exc:
        raise FsError(f"{failed} ({reason(exc)})") from None
    for _ in range(100):
        temp = f"{TEMP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
        try:
            fd = os.open(temp, _CREATE, 0o666, dir_fd=dir_fd)
            break
        except FileExistsError:
            continue
        except OSError as exc:
            if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT):
                raise FsError(f"{failed} ({reason(exc)})") from None
            raise FsError(f"{failed}: its folder does not take a new file ({reason(exc)}), and replay writes one "
                          "beside the target and renames it into place") from None
    else:
        raise FsError(f"{failed}: no free temporary name beside it")
    try:
        with os.fdopen(fd, "wb") as fh:
            mode = _mode_of(dir_fd, name)
            if mode is not None:
                os.fchmod(fh.fileno(), mode)
            for chunk in chunks:
                for piece in encoded(chunk):
                    fh.write(piece)
            fh.flush()
            if durable:
                _fsync(fh.fileno())
        os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=dir_fd)
        if isinstance(exc, OSError):
            if exc.errno == errno.EISDIR:
                raise FsError(f"{failed}: a folder is in its place; remove it by hand") from None
            raise FsError(f"{failed} ({reason(exc)})") from None
        raise
    if durable:
        _sync(dir_fd)




def write_new(dir_fd: int, root: PurePath, names: Sequence[str], chunks: Iterable[bytes | str], what: str,
              durable: bool = True) -> None:
    """A new file ``names[-1]`` in the folder ``dir_fd`` (``root`` / ``names``: its path,
    for messages) holding ``chunks``, created exclusively at its name (nothing there is
    replaced, no link followed), fsynced unless not ``durable``. For a folder no reader
    looks at yet (a staging folder published whole): no temporary file, no rename. On
    failure what was written of it is removed and ``FsError`` names its path."""
    name = names[-1]

    def failed() -> str:
        return f"{root.joinpath(*names)}: cannot write{' the ' + what if what else ''}"

    try:
        _write_fault()
        fd = os.open(name, _CREATE, 0o666, dir_fd=dir_fd)
    except FileExistsError:
        raise FsError(f"{failed()}: something is in its place in a folder replay has just made") from None
    except OSError as exc:
        raise FsError(f"{failed()} ({reason(exc)})") from None
    try:
        try:
            held = bytearray()  # written ``GATHER`` bytes at a time: a short page in one call
            for chunk in chunks:
                for piece in encoded(chunk):
                    held += piece
                if len(held) >= GATHER:
                    held = _written(fd, held)
            _written(fd, held)
            if durable:
                _fsync(fd)
        finally:
            os.close(fd)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=dir_fd)
        if isinstance(exc, OSError):
            raise FsError(f"{failed()} ({reason(exc)})") from None
        raise
    if durable:
        _sync(dir_fd)


def _written(fd: int, data: bytearray) -> bytearray:  # all of ``data`` written; a buffer for what comes next
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    return bytearray()


def _flock(fd: int, wait: float, taken: str, shared: bool = False) -> None:
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise Locked(taken) from None
            time.sleep(0.05)


def _lock_error(path: PurePath, exc: OSError, root_fd: int, name: str, maker: str, needs: str) -> FsError:
    if exc.errno == errno.ELOOP or _is_link(root_fd, name):
        return FsError(f"{path}: a symbolic link; refused (replay never takes its lock through a link: remove it)")
    if exc.errno == errno.EISDIR:
        return FsError(f"{path}: a folder, not the lock file; remove it ({maker} creates it)")
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return FsError(f"{path}: cannot create the lock file ({reason(exc)}); {needs or 'the folder must be writable'}")
    return FsError(f"{path}: cannot take the lock ({reason(exc)})")


