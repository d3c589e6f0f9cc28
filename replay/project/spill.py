"""Where what grows with the length of a log goes while a fold reads it, so that its
memory stays flat: a ``Spill`` of blocks in a temporary file, and a ``StepStore`` of
every step's facts that holds the few steps in use and spills the others there.

A spill pickles with its bytes (it travels from a worker process to the site); the
site keeps it in its own spool file instead, by reference (``Spill.moved``)."""

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
    back kind by kind in the order they came (``put``, then ``blocks``), in this
    process's temporary file (``_Shared``) until ``close`` or ``moved``."""

    def __init__(self) -> None:
        self.kinds = bytearray()
        self.starts: array[int] = array("q")
        self.sizes: array[int] = array("q")
        self._join()
        self._size = 0

    def put(self, kind: int, data: bytes) -> None:
        if not data:
            return
        self.starts.append(_SHARED.append(self._fd, data))
        self.kinds.append(kind)
        self.sizes.append(len(data))
        self._size += len(data)

    def blocks(self, kind: int) -> Iterator[bytes]:
        """The blocks of ``kind``, in order, each read when it is wanted."""
        for i, k in enumerate(self.kinds):
            if k == kind:
                yield _read(self._fd, self.starts[i], self.sizes[i])

    def __len__(self) -> int:
        return self._size

    def moved(self, into: IO[bytes]) -> Spill:
        """This spill's blocks copied to the end of ``into`` (this one closed), as a
        spill of that file: it does not pickle, it is found there again by ``placed``."""
        into.seek(0, os.SEEK_END)
        placed = Spill.__new__(Spill)
        placed.kinds, placed.starts, placed.sizes = self.kinds, array("q"), self.sizes
        for i, size in enumerate(self.sizes):
            placed.starts.append(into.tell())
            at = self.starts[i]
            for offset in range(0, size, PIECE):
                into.write(_read(self._fd, at + offset, min(PIECE, size - offset)))
        into.flush()
        placed._fd, placed._shared, placed._size = into.fileno(), False, self._size
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
        spill._fd, spill._shared, spill._size = file.fileno(), False, size
        return spill

    def __reduce__(self) -> tuple[Any, ...]:
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
        self._join()

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

