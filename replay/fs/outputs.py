"""The outputs a user names (``-o``, ``--junit``, ``$GITHUB_STEP_SUMMARY``) and temporary
files: written atomically, or in place where the path is a device or a pipe."""


from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from replay.describe import kind, reason
from replay.fs.tree import FsError, not_a_folder, write_atomically
from replay.output import OutputError, encoded


def write_output(path: Path, chunks: Iterable[bytes | str]) -> None:
    """Write an output the user named (``-o``, ``--junit``, ``--write-baseline``):
    atomically beside its target (a link they named is followed to its file), or in
    place when it names a device or a pipe (``/dev/null``, ``/dev/stdout``).
    ``OutputError`` names the path and says why; on failure ``path`` is untouched."""
    try:
        _write_output(path, chunks)
    except FsError as exc:
        raise OutputError(str(exc)) from None


def _write_output(path: Path, chunks: Iterable[bytes | str]) -> None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except NotADirectoryError:
        raise FsError(f"{path}: cannot write: {not_a_folder(path)}") from None
    except OSError as exc:
        raise FsError(f"{path}: cannot write ({reason(exc)})") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise FsError(f"{path}: cannot write (it is a folder)")
    if st is not None and not stat.S_ISREG(st.st_mode):
        try:
            with open(path, "wb") as fh:
                for chunk in chunks:
                    for piece in encoded(chunk):
                        fh.write(piece)
        except OSError as exc:
            raise FsError(f"{path}: cannot write ({reason(exc)})") from None
        return
    target = Path(os.path.realpath(path)) if st is not None else path
    try:
        dir_fd = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise FsError(f"{path}: cannot write ({reason(exc)})") from None
    try:
        write_atomically(dir_fd, path, target.name, chunks, "")
    finally:
        os.close(dir_fd)


def write_temporary(prefix: str, suffix: str, chunks: Iterable[bytes | str], what: str) -> Path:
    """A new file in the temporary folder (``$TMPDIR``) holding ``chunks``: its path.
    On failure nothing is left and ``OutputError`` names the folder and why."""
    try:
        fd, name = tempfile.mkstemp(prefix=prefix, suffix=suffix)
    except OSError as exc:
        raise OutputError(f"{tempfile.gettempdir()}: cannot write {what} ({reason(exc)})") from None
    os.close(fd)
    try:
        write_output(Path(name), chunks)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
    return Path(name)


def append_output(path: Path, text: str) -> None:
    """Append ``text`` to a file the user named (``$GITHUB_STEP_SUMMARY``): the one
    write that is not atomic, as the file is another program's, shared. ``FsError``
    names the path and says why it cannot be written."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
    except OSError as exc:
        raise FsError(f"{path}: cannot write ({reason(exc)})") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise FsError(f"{path}: cannot write: {kind(mode)}, not a regular file")
        with os.fdopen(fd, "ab", closefd=False) as fh:
            for piece in encoded(text):
                fh.write(piece)
    except OSError as exc:
        raise FsError(f"{path}: cannot write ({reason(exc)})") from None
    finally:
        os.close(fd)

