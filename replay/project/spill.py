"""Where what grows with the length of a log goes while a fold reads it, so that its
memory stays flat: a ``Spill`` of blocks in a temporary file, and a ``StepStore`` of
every step's facts that holds the few steps in use and spills the others there.

A spill pickles with its bytes (it travels from a worker process to the site); the
site keeps it in its own spool file instead, by reference (``Spill.moved``). A small
spill (the draft of a short log) keeps its blocks in memory, up to ``HELD_BYTES`` of its
own and ``HELD_BUDGET`` for every spill of the process together, so the thousands of short
logs of a site cost no write, read or truncation of the temporary file each."""

from __future__ import annotations

import contextlib
import os
import pickle
import tempfile
import threading
from array import array
from bisect import bisect_left
from collections.abc import Iterator, MutableMapping
from typing import IO, Any

from replay.project.session import StepFacts

PIECE = 1 << 16
"""Bytes copied at a time."""
HELD_BYTES = 1 << 16
"""Bytes a spill holds in memory before it goes to the temporary file."""
HELD_BUDGET = 32 << 20
"""Bytes every spill of a process holds in memory together, at most."""


class _Shared:
    """The one temporary file of this process's spills, opened when first needed and
    emptied when no spill uses it (one descriptor however many drafts wait: an archive's
    wait for its end). Read and written at given offsets (``os.pread``, ``os.pwrite``)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.file: IO[bytes] | None = None
        self.pid = 0
        self.users = 0
        self.end = 0
        self.held = 0
        """Bytes the spills of this process hold in memory…"""
        self.held_pid = 0
        """…counted since this process started (a forked one holds none of its parent's)."""

    def join(self) -> int:
        with self.lock:
            if self.file is None or self.pid != os.getpid():  # a forked process writes a file of its own
                self.file = tempfile.TemporaryFile(prefix="replay-spill-")  # noqa: SIM115 (kept open)
                self.pid, self.users, self.end = os.getpid(), 0, 0
            self.users += 1
            return self.file.fileno()

    def leave(self) -> None:
        with self.lock:
            if self.file is None or self.pid != os.getpid():
                return
            self.users -= 1
            if self.users == 0:
                self.file.truncate(0)
                self.end = 0

    def hold(self, size: int) -> bool:
        """Whether a spill may hold ``size`` more bytes in memory (then they are counted)."""
        with self.lock:
            if self.held_pid != os.getpid():
                self.held_pid, self.held = os.getpid(), 0
            if self.held + size > HELD_BUDGET:
                return False
            self.held += size
            return True

    def release(self, size: int) -> None:
        with self.lock:
            if self.held_pid == os.getpid():
                self.held = max(0, self.held - size)

    def append(self, fd: int, data: bytes) -> int:
        with self.lock:
            at = self.end
            self.end += len(data)
        os.pwrite(fd, data, at)
        return at


_SHARED = _Shared()


class _Lease:
    """A user of this process's temporary file (``_Shared``): its descriptor until
    ``close``, or until it is collected without being closed (a draft dropped halfway,
    its log's audit failed), so the file is emptied once no one reads it."""

    _fd: int
    _shared: bool

    def _join(self) -> None:
        self._fd = _SHARED.join()
        self._shared = True

    def close(self) -> None:
        """What was put in the temporary file is read no more: its place may be reused."""
        if self._shared:
            self._shared = False
            _SHARED.leave()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at exit, what it would tell may be gone
            self.close()


def _read(fd: int, at: int, size: int) -> bytes:
    data = os.pread(fd, size, at)
    while len(data) < size:  # a short read (a file is not a pipe, but the call allows it)
        more = os.pread(fd, size - len(data), at + len(data))
        if not more:
            raise OSError(f"a temporary file ended early ({len(data)} of {size} bytes)")
        data += more
    return data


class Spill(_Lease):
    """Blocks of bytes, each of a kind (a small number), appended in any order and read
    back kind by kind in the order they came (``put``, then ``blocks``): in memory while
    they are few (``HELD_BYTES``, within the process's ``HELD_BUDGET``), then in this
    process's temporary file (``_Shared``), until ``close`` or ``moved``."""

    def __init__(self) -> None:
        self.kinds = bytearray()
        self.starts: array[int] = array("q")
        self.sizes: array[int] = array("q")
        self._shared = False
        self._fd = -1
        self._held: list[bytes] | None = []
        """The blocks, while they are in memory (``None``: in the file, at ``starts``)."""
        self._size = 0

    def put(self, kind: int, data: bytes) -> None:
        if not data:
            return
        held = self._held
        if held is not None:
            if self._size + len(data) <= HELD_BYTES and _SHARED.hold(len(data)):
                held.append(data)
                self.kinds.append(kind)
                self.sizes.append(len(data))
                self._size += len(data)
                return
            self._to_file()
        self.starts.append(_SHARED.append(self._fd, data))
        self.kinds.append(kind)
        self.sizes.append(len(data))
        self._size += len(data)

    def _to_file(self) -> None:
        """The blocks held in memory written to the temporary file, and the next ones put there."""
        held, self._held = self._held, None
        assert held is not None
        self._join()
        for data in held:
            self.starts.append(_SHARED.append(self._fd, data))
        _SHARED.release(sum(map(len, held)))

    def blocks(self, kind: int) -> Iterator[bytes]:
        """The blocks of ``kind``, in order, each read when it is wanted."""
        held = self._held
        for i, k in enumerate(self.kinds):
            if k == kind:
                yield held[i] if held is not None else _read(self._fd, self.starts[i], self.sizes[i])

    def __len__(self) -> int:
        return self._size

    @property
    def held(self) -> bool:
        """Whether the blocks are in memory (not in a file)."""
        return self._held is not None

    def close(self) -> None:
        if self._held is not None:
            _SHARED.release(self._size)
            self._held = None
        super().close()

    def moved(self, into: IO[bytes]) -> Spill:
        """This spill's blocks copied to the end of ``into`` (this one closed), as a
        spill of that file: it does not pickle, it is found there again by ``placed``."""
        at = into.seek(0, os.SEEK_END)
        placed = Spill.__new__(Spill)
        placed.kinds, placed.starts, placed.sizes = self.kinds, array("q"), self.sizes
        if self._held is not None:
            for size in self.sizes:
                placed.starts.append(at)
                at += size
            into.write(b"".join(self._held))
        else:
            for i, size in enumerate(self.sizes):
                placed.starts.append(into.tell())
                start = self.starts[i]
                for offset in range(0, size, PIECE):
                    into.write(_read(self._fd, start + offset, min(PIECE, size - offset)))
        into.flush()
        placed._fd, placed._shared, placed._held, placed._size = into.fileno(), False, None, self._size
        self.close()
        return placed

    def where(self) -> tuple[bytes, bytes, bytes, int]:
        """What finds a moved spill in its file again (``placed``)."""
        return bytes(self.kinds), self.starts.tobytes(), self.sizes.tobytes(), self._size

    @classmethod
    def placed(cls, where: tuple[bytes, bytes, bytes, int], file: IO[bytes]) -> Spill:
        kinds, starts, sizes, size = where
        spill = cls.__new__(cls)
        spill.kinds = bytearray(kinds)
        spill.starts, spill.sizes = array("q"), array("q")
        spill.starts.frombytes(starts)
        spill.sizes.frombytes(sizes)
        spill._fd, spill._shared, spill._held, spill._size = file.fileno(), False, None, size
        return spill

    def __reduce__(self) -> tuple[Any, ...]:
        if self._held is not None:
            data = b"".join(self._held)
        else:
            data = b"".join(_read(self._fd, at, size) for at, size in zip(self.starts, self.sizes, strict=True))
        return _restored, (bytes(self.kinds), self.sizes.tobytes(), data)


def _restored(kinds: bytes, sizes: bytes, data: bytes) -> Spill:
    spill = Spill()
    table: array[int] = array("q")
    table.frombytes(sizes)
    at = 0
    for kind, size in zip(kinds, table, strict=True):
        spill.put(kind, data[at:at + size])
        at += size
    return spill


# -- the steps ---------------------------------------------------------------------------


LIVE = 64
"""Steps a ``StepStore`` holds as objects; the older ones are spilled."""
_PACKED = 1 << 31


def _packed(key: tuple[Any, Any]) -> int | None:
    """A key of two small non-negative integers as one integer (``None``: another key)."""
    turn, step = key
    if type(turn) is int and type(step) is int and 0 <= turn < _PACKED and 0 <= step < _PACKED:
        return turn << 32 | step
    return None


class StepStore(_Lease, MutableMapping[tuple[Any, Any], StepFacts]):
    """The steps of a ``SessionFold`` (``SessionFold(steps=StepStore())``), by their key,
    in the order they were first named, as a dict of them would be, holding at most
    ``LIVE`` as objects: an older one is pickled to a temporary file, found again by its
    key (in arrays: a few bytes a step) and made an object again when it is named
    again. A step is never removed."""

    def __init__(self) -> None:
        self._live: dict[tuple[Any, Any], tuple[int, StepFacts]] = {}
        self._keys: array[int] = array("q")
        """The packed keys, increasing…"""
        self._orders: array[int] = array("q")
        """…and each one's step (its number in the order first named)."""
        self._other: dict[tuple[Any, Any], int] = {}
        """The steps of other keys (or named out of order): their number."""
        self._at: array[int] = array("q")
        """Each step's pickle in the file (-1: held as an object)…"""
        self._size: array[int] = array("q")
        """…and its size."""
        self._shared = False
        """The temporary file is joined when a step is first spilled (most logs have fewer)."""

    def __len__(self) -> int:
        return len(self._at)

    def _number(self, key: tuple[Any, Any]) -> int | None:
        packed = _packed(key)
        keys = self._keys
        if packed is not None and keys and packed <= keys[-1]:
            i = bisect_left(keys, packed)
            if keys[i] == packed:
                return self._orders[i]
        return self._other.get(key)

    def get(self, key: tuple[Any, Any], default: Any = None) -> Any:
        held = self._live.get(key)
        if held is not None:
            return held[1]
        number = self._number(key)
        if number is None:
            return default
        facts: StepFacts = pickle.loads(_read(self._fd, self._at[number], self._size[number]))
        self._hold(key, number, facts)
        return facts

    def __getitem__(self, key: tuple[Any, Any]) -> StepFacts:
        found: StepFacts | None = self.get(key)
        if found is None:
            raise KeyError(key)
        return found

    def __contains__(self, key: object) -> bool:
        return isinstance(key, tuple) and (key in self._live or self._number(key) is not None)

    def __setitem__(self, key: tuple[Any, Any], facts: StepFacts) -> None:
        held = self._live.get(key)
        number = held[0] if held is not None else self._number(key)
        if number is None:
            number = len(self._at)
            self._at.append(-1)
            self._size.append(0)
            packed = _packed(key)
            if packed is not None and (not self._keys or packed > self._keys[-1]):
                self._keys.append(packed)
                self._orders.append(number)
            else:
                self._other[key] = number
        self._hold(key, number, facts)

    def _hold(self, key: tuple[Any, Any], number: int, facts: StepFacts) -> None:
        self._live[key] = (number, facts)
        self._at[number] = -1
        while len(self._live) > LIVE:
            old = next(iter(self._live))
            self._spill(old, *self._live.pop(old))

    def _spill(self, key: tuple[Any, Any], number: int, facts: StepFacts) -> None:
        if not self._shared:
            self._join()
        data = pickle.dumps(facts, protocol=pickle.HIGHEST_PROTOCOL)
        self._at[number], self._size[number] = _SHARED.append(self._fd, data), len(data)

    def __delitem__(self, key: tuple[Any, Any]) -> None:
        raise TypeError("a step is never removed")

    def values(self) -> Iterator[StepFacts]:  # type: ignore[override]
        """Every step, in the order first named (those spilled read back one by one)."""
        held = {number: facts for number, facts in self._live.values()}
        for number, at in enumerate(self._at):
            if at < 0:
                yield held[number]
            else:
                yield pickle.loads(_read(self._fd, at, self._size[number]))

    def __iter__(self) -> Iterator[tuple[Any, Any]]:
        return ((facts.turn, facts.step) for facts in self.values())

