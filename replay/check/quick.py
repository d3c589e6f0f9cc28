"""The audit cache's fast path: ``replay audit`` run again with nothing changed is
answered from a **run record** before any checker, click or report module is
imported (``replay.__main__`` asks ``answered`` first).

A run record is kept in the cache's namespace folder (``replay.check.cache``) by an
audit that could be answered again unchanged. Its file is named by a digest of what
the command's output can depend on beyond the logs (``run_key``): replay's version
and code, Python's version, the working directory, the command line, replay's
environment variables and ``NO_COLOR``, the user and groups (what may be listed and
read), and whether standard output and standard error are terminals. It holds the
exit status, the report's bytes as a warm audit writes them (every log from the
cache), and what that report depends on:

* every folder the search listed, with its status taken before it was listed (a
  name added, removed or renamed in it changes its modification time);
* every log and archive the audit read or looked up, with the status the cache
  compared (a folder's logs: never through a link; one named on the command line:
  the file it names, with its folder and the session's other encoding, which rule
  A10 looks for), and every file of a folder that was no session log;
* every ``pyproject.toml`` the search for ``[tool.replay.audit]`` could find, from
  the working directory up (or that there is none), as it was before the table was
  read and still is when the audit ends.

An audit is answered from its record when every status is the same now; else the
command runs as it would have. A record is written only when its audit used the
cache with nothing to say about it, to no terminal (one is never answered from a record:
its bytes are checked whole, not who wrote them): no ``--verify-cache``, ``--baseline``,
``--write-baseline``, ``--junit`` or ``--scheduler``, no note, nothing passed over,
no rewritten log, every report kept, and no file, folder or ``pyproject.toml``
modified within ``RACY_NS`` of the audit's start (its clock could not tell a later
change). ``RECORDS_KEPT`` records are kept per namespace, the newest."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import signal
import stat
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from replay import __version__
from replay.log.walk import ARCHIVE_SUFFIXES, LOG_SUFFIXES, identity

RUN_FORMAT = b"replay-audit-run/3\n"
"""The first line of a run record."""
RECORD_PREFIX = "run-"
RECORDS_KEPT = 8
"""The run records a namespace keeps (the newest): one per command line used."""
RACY_NS = 2_000_000_000
"""A file modified this recently when it was looked at may change again within the
resolution of its clock without its status changing: the cache digests it again
before its report is reused, and no run record keeps it."""
CACHE_ENV = "REPLAY_CACHE_DIR"
"""The environment variable that names the cache's folder (as ``--cache-dir``)."""
CACHE_FOLDER = Path(".replay") / "cache"
"""The cache's folder below the working directory, by default."""
NAMESPACE_PREFIX = "a1-"
MAX_RECORD_BYTES = 1 << 30
"""The largest run record read back (a report larger than this keeps none)."""
MAX_CACHE_NAMES = 100_000
"""The most names ``holds_no_log`` looks at in the cache folder (namespaces, shards,
records): past it the answer is no (no record is kept, or answers)."""

Status = tuple[int, int, int, int, int]
"""A storage identity: device, inode, size, modification and change times (ns)."""
Seen = tuple[str, bool, int, Status | None]
"""What a record holds of one path: the path, whether links are followed to it, what it
is (``FILE``, ``FOLDER``, ``OTHER``, ``CACHE``), and its status (``None``: nothing there)."""
FILE, FOLDER, OTHER, CACHE = 0, 1, 2, 3
"""A regular file; a folder; anything else (a FIFO, a device); the cache's own folder,
searched by an audit of a folder that holds it: it and every folder below it must hold
no file named like a log or an archive and no link to a folder (the audit writes there,
so its status changes)."""

command_line: list[str] | None = None
"""The arguments of the ``replay`` process, as ``answered`` got them (``None``: replay
was not started as a command, so no record can be written)."""
started_ns: int = 0
"""When ``answered`` was asked: no status modified later than ``RACY_NS`` before it is
recorded."""


@functools.cache
def code_digest() -> str:
    """A digest of replay's own code (its modules and package data): a change of it
    may change a report, with or without a new version."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.blake2b(digest_size=16)
    found = []
    for folder, folders, files in os.walk(root):
        folders[:] = [name for name in folders if name != "__pycache__"]  # compiled code: what the sources say
        found += [Path(folder, name) for name in files if name.endswith((".py", ".json"))]
    for path in sorted(found):
        digest.update(str(path.relative_to(root)).encode("utf-8", "surrogatepass") + b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def _terminal(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


def run_key(argv: Sequence[str], environ: Mapping[str, str], cwd: str) -> str:
    """The name of the run record of ``replay ARGV`` in ``cwd`` with ``environ``."""
    digest = hashlib.blake2b(digest_size=16)
    env = sorted((k, v) for k, v in environ.items() if k.startswith("REPLAY_") or k == "NO_COLOR")
    user = (os.geteuid(), os.getegid(), sorted(os.getgroups()))  # what it may list and read
    for part in (RUN_FORMAT.decode(), __version__, sys.version, code_digest(), cwd, tuple(argv), env, user,
                 _terminal(1), _terminal(2)):
        digest.update(repr(part).encode("utf-8", "surrogatepass") + b"\0")
    return RECORD_PREFIX + digest.hexdigest()


def cache_folder(argv: Sequence[str], environ: Mapping[str, str]) -> tuple[str, bool] | None:
    """The cache folder ``replay audit ARGV`` uses and whether replay found it (its
    components may be no link) rather than the user named it; ``None``: no cache."""
    named: str | None = None
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg in ("--no-cache", "--verify-cache"):
            return None
        if arg == "--cache-dir":
            if i + 1 >= len(argv):
                return None
            named = argv[i + 1]
        elif arg.startswith("--cache-dir="):
            named = arg[len("--cache-dir="):]
    if named is None:
        named = environ.get(CACHE_ENV) or None
    if named is not None:
        return (named, False) if named else None
    return str(CACHE_FOLDER), True


def _open_cache(folder: str, found: bool) -> int:
    """A descriptor of the cache's folder (``OSError`` when it cannot be opened as the
    cache would be: a link in a found folder's path, not a folder)."""
    if not found:
        return os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    for part in Path(folder).parts:
        try:
            child = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
        finally:
            os.close(fd)
        fd = child
    return fd


def _read_at(dir_fd: int, name: str) -> bytes:
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=dir_fd)
    with open(fd, "rb", buffering=0) as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_RECORD_BYTES:
            raise OSError(f"{name}: not a run record")
        data = fh.read(MAX_RECORD_BYTES + 1)  # bounded: the file may have grown since its status
        if len(data) > MAX_RECORD_BYTES:
            raise OSError(f"{name}: not a run record")
        return data


def status(path: str, follow: bool) -> tuple[int, Status] | None:
    """What ``path`` is (``FILE``, ``FOLDER``, ``OTHER``; a link itself is ``OTHER``
    unless ``follow``) and its status; ``None``: nothing is there."""
    try:
        st = os.stat(path) if follow else os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    kind = FOLDER if stat.S_ISDIR(st.st_mode) else FILE if stat.S_ISREG(st.st_mode) else OTHER
    return kind, identity(st)


def holds_no_log(folder: str) -> bool:
    """Whether ``folder`` and the folders below it hold no file a search would read or
    pass over (one named like a log or an archive) and no link to a folder; no, past
    ``MAX_CACHE_NAMES`` names."""
    pending, left = [folder], MAX_CACHE_NAMES
    while pending:
        try:
            with os.scandir(pending.pop()) as listing:
                for entry in listing:
                    left -= 1
                    if left < 0 or entry.name.endswith(LOG_SUFFIXES + ARCHIVE_SUFFIXES):
                        return False
                    if entry.is_dir():
                        if entry.is_symlink():
                            return False
                        pending.append(entry.path)
        except OSError:
            return False
    return True


def config_candidates(cwd: str) -> list[str]:
    """Where ``[tool.replay.audit]`` may be read from: ``pyproject.toml`` in the working
    directory and each folder above it (``replay.check.selection.find_config``)."""
    folder = Path(os.path.abspath(cwd))
    return [str(candidate / "pyproject.toml") for candidate in (folder, *folder.parents)]


Changed = tuple[Seen, "tuple[int, Status] | None"]
"""A status a record kept that is another now: what the record saw, and what is there
now (``None``: nothing)."""


def changes(seen: bytes, own: str | None = None) -> list[Changed] | None:
    """What changed of the statuses a record (``record_bytes``) kept in ``seen``: an
    empty list when nothing did; ``None`` when the cache's folder below an audited one
    holds a log now (an amendment, ``replay.report.amend``, decides what else it can
    answer). ``own``: the cache's folder (absolute), the one folder a row of kind
    ``CACHE`` may name (a record is anyone's who may write the cache's folder: it lists
    nothing else, and that folder once)."""
    fields = seen.split(b"\0")
    if len(fields) % 2 != 1 or fields[-1]:
        raise ValueError("not a run record")
    changed: list[Changed] = []
    lstat, stat_, kinds, other, cache = os.lstat, os.stat, _KIND_DIGITS, b"%d" % OTHER, b"%d" % CACHE
    looked = False
    for i in range(0, len(fields) - 1, 2):
        path, numbers = fields[i], fields[i + 1]
        follow = numbers[:1]  # a row that is not one a record writes differs from every status: _row refuses it
        if numbers[2:3] == cache:
            if own is None or os.fsdecode(path) != own:
                raise ValueError("not a run record")  # a folder that is not the cache's
            if not looked and not holds_no_log(own):
                return None
            looked = True
            continue
        try:  # the path as the record keeps it (bytes): no decoding for the rows that did not change
            st = stat_(path) if follow == b"1" else lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            if len(numbers) > 3:
                changed.append((_row(os.fsdecode(path), numbers), None))
            continue
        now = b"%s %s %d %d %d %d %d" % (follow, kinds.get(st.st_mode & 0o170000, other), st.st_dev,
                                         st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        if now != numbers:  # the bytes kept, compared
            decoded = os.fsdecode(path)
            changed.append((_row(decoded, numbers), status(decoded, follow == b"1")))
    return changed


_KIND_DIGITS = {stat.S_IFREG: b"%d" % FILE, stat.S_IFDIR: b"%d" % FOLDER}
"""What ``status`` says a file of each type is, as a record keeps it."""


def _row(path: str, numbers: bytes) -> Seen:
    follow, kind, *rest = (int(n) for n in numbers.split())
    if len(rest) not in (0, 5) or follow not in (0, 1) or kind not in (FILE, FOLDER, OTHER, CACHE):
        raise ValueError("not a run record")
    return path, bool(follow), kind, (rest[0], rest[1], rest[2], rest[3], rest[4]) if rest else None


Amender = Callable[[bytes, bytes, memoryview, Sequence["Changed"], tuple[str, bool, str], str],
                   "tuple[int, bytes, str | None] | None"]
"""What amends a record's report for what changed (``replay.report.amend.amended``)."""


def answered(argv: list[str], amend: Amender | None = None) -> int | None:
    """The exit status of ``replay ARGV`` when its run record answers it, the report
    written to standard output; ``None``: the command is to run. ``amend``: what amends
    a record's report for what changed, if any (else only a record of nothing changed
    answers)."""
    global command_line, started_ns
    started_ns = time.time_ns()
    command_line = list(argv)
    if not argv or argv[0] != "audit":
        return None
    where = cache_folder(argv, os.environ)
    if where is None or getattr(sys.stdout, "buffer", None) is None:
        return None  # no cache, or a standard output replaced by a text-only one
    if _terminal(1):  # a record is checked whole, not who wrote it: a terminal is shown what this run sanitized
        return None
    try:
        key = run_key(argv, os.environ, os.getcwd())
        root = _open_cache(*where)
    except (OSError, ValueError):
        return None
    note: str | None = None  # what an amended run says after its report (as the full run does)
    try:
        for name in sorted(os.listdir(root)):
            if not name.startswith(NAMESPACE_PREFIX):
                continue
            try:
                space = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=root)
            except OSError:
                continue
            try:
                try:
                    data = _read_at(space, key)
                except OSError:
                    continue
                try:
                    code, seen, plan, report = _parts(data)
                    changed = changes(seen, os.path.abspath(where[0]))
                except (ValueError, OSError):
                    continue
                if changed is None or (changed and (not plan or amend is None)):
                    continue
                if changed and amend is not None:
                    try:
                        answer = amend(plan, seen, report, changed, (where[0], where[1], name), key)
                    except (ValueError, OSError):
                        answer = None
                    if answer is None:
                        continue  # another namespace's record may answer (a configuration changed back)
                    code, report, note = answer[0], memoryview(answer[1]), answer[2]
                with contextlib.suppress(OSError):
                    os.utime(space)  # used now: its pruning by age reads it
            finally:
                os.close(space)
            return _write(report, code, None if note is None else f"replay {argv[0]}: {note}")
    except OSError:
        return None
    finally:
        os.close(root)
    return None


BROKEN_PIPE = 128 + signal.SIGPIPE
"""The exit status when the reader of standard output went away (as ``replay.console``'s)."""


def _write(report: memoryview, code: int, note: str | None = None) -> int:
    """The report written, then the ``note`` line said (as the audit says its notes)."""
    out = sys.stdout.buffer
    try:
        out.write(report)
        out.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return BROKEN_PIPE
    except OSError as exc:
        from replay.describe import reason

        sys.stderr.write(f"replay: standard output: cannot write ({reason(exc)})\n")
        return 1
    if note is not None and sys.stderr is not None:
        from replay.style import sanitize

        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(f"{sanitize(note)}\n")
            sys.stderr.flush()
    return code


def seen_config(cwd: str) -> list[Seen] | None:
    """What a record keeps of the ``pyproject.toml`` files, taken before the table is
    read (``None``: one of them cannot be looked at)."""
    seen: list[Seen] = []
    for path in config_candidates(cwd):
        try:
            now = status(path, True)
        except OSError:
            return None
        seen.append((path, True, FILE, None) if now is None else (path, True, *now))
    return seen


def seen_beside(path: str) -> list[Seen] | None:
    """What a record keeps of a log named on the command line besides the log: its
    folder (rule A10 asks whether the session's other encoding is there) and that other
    encoding, where the log's name has one (``None``: one cannot be looked at)."""
    from replay.log.source import STORED_NAMES

    folder, name = os.path.split(path)
    around = [folder or os.curdir]
    if name in STORED_NAMES:
        around.append(os.path.join(folder, STORED_NAMES[name]))
    seen: list[Seen] = []
    for where in around:
        try:
            now = status(where, True)
        except OSError:
            return None
        seen.append((where, True, FILE, None) if now is None else (where, True, *now))
    return seen


def recent(identity: Status, started: int) -> bool:
    """Whether a status was modified too near the audit's start to be trusted (a later
    change could leave it as it is)."""
    return identity[3] > started - RACY_NS


EXIT_STATUSES = (b"0", b"1")
"""The exit statuses a run record may hold (those of an audit that reported)."""


def record_bytes(rows: bytes, code: int, report: bytes, plan: bytes = b"") -> bytes:
    """A run record: its format's line; a line of the exit status, the lengths of what
    it saw (``rows``: ``seen_bytes``), of its plan and of the report, and a digest of the
    status and all three; what it saw; the plan (how its report is amended for what
    changed, ``replay.report.amend``; empty: it is not); the report."""
    status = b"%d" % code
    digest = hashlib.blake2b(status + b"\n", digest_size=16)
    for part in (rows, plan, report):
        digest.update(b"%d\n" % len(part))
        digest.update(part)
    line = b"%s %d %d %d %s\n" % (status, len(rows), len(plan), len(report), digest.hexdigest().encode())
    return b"".join((RUN_FORMAT, line, rows, plan, report))


def seen_bytes(seen: Sequence[Seen]) -> bytes:
    """What a record saw, as it keeps it: each path, NUL, its numbers, NUL (no path holds a NUL)."""
    return b"".join(os.fsencode(path) + b"\0" + b" ".join(b"%d" % n for n in (follow, kind, *(identity or ())))
                    + b"\0" for path, follow, kind, identity in seen)


def seen_rows(seen: bytes, kinds: bytes = b"0123") -> list[Seen]:
    """What ``seen_bytes`` kept, of the kinds ``kinds`` (their digits) (``ValueError``:
    it is not that)."""
    fields = seen.split(b"\0")
    if len(fields) % 2 != 1 or fields[-1]:
        raise ValueError("not a run record")
    return [_row(os.fsdecode(fields[i]), fields[i + 1]) for i in range(0, len(fields) - 1, 2)
            if fields[i + 1][2:3] in kinds]


def seen_without(seen: bytes, dropped: Callable[[str], bool]) -> bytes:
    """``seen`` without the rows whose paths are ``dropped``."""
    fields = seen.split(b"\0")
    if len(fields) % 2 != 1 or fields[-1]:
        raise ValueError("not a run record")
    return b"".join(fields[i] + b"\0" + fields[i + 1] + b"\0" for i in range(0, len(fields) - 1, 2)
                    if not dropped(os.fsdecode(fields[i])))


def _parts(data: bytes) -> tuple[int, bytes, bytes, memoryview]:
    """The exit status, what was seen, the plan and the report of a run record
    (``ValueError``: it is none, or not whole)."""
    if not data.startswith(RUN_FORMAT):
        raise ValueError("not a run record")
    end = data.index(b"\n", len(RUN_FORMAT))
    code, rows, plan, size, digest = data[len(RUN_FORMAT):end].split(b" ")
    sizes = [int(rows), int(plan), int(size)]
    if code not in EXIT_STATUSES or min(sizes) < 0 or end + 1 + sum(sizes) != len(data):
        raise ValueError("not a whole run record")
    view = memoryview(data)
    check = hashlib.blake2b(code + b"\n", digest_size=16)
    at = end + 1
    parts = []
    for n in sizes:
        check.update(b"%d\n" % n)
        check.update(view[at:at + n])
        parts.append(view[at:at + n])
        at += n
    if check.hexdigest().encode() != digest:
        raise ValueError("not a whole run record")
    return int(code), bytes(parts[0]), bytes(parts[1]), parts[2]
