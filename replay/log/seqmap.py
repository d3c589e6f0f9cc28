"""Maps keyed by seq, compact: what a reading or an audit keeps for the events of a
whole log costs bytes in arrays, not a dict entry and an int object (about 100 bytes)
per event, while the seqs come in increasing order, as in every log the scanner
accepted; anything else is kept in a dict, with the same answers."""

from __future__ import annotations

import operator
import sys
from array import array
from bisect import bisect_left
from collections.abc import Iterable
from itertools import islice
from typing import Annotated, Any

import msgspec

LOW, HIGH = -(1 << 63), 1 << 63
"""The integers an ``array("q")`` holds."""


def extends(seq: Any, last: int | None) -> bool:
    """Whether ``seq`` extends an increasing array of seqs whose last is ``last``."""
    return type(seq) is int and LOW <= seq < HIGH and (last is None or seq > last)


class SeqBytes:
    """A map of seqs to values of ``size`` bytes, answering ``in``, ``get``, ``pop``
    and item assignment as a dict does: one sorted array of the seqs and one
    bytearray of the values (24 bytes an entry of 16) while the seqs come in
    increasing order and the values have that size (a removed one is marked), what
    does not fit in a dict."""

    __slots__ = ("_digests", "_gone", "_rest", "_seqs", "_size")

    def __init__(self, size: int) -> None:
        self._size = size
        self._seqs = array("q")
        self._digests = bytearray()
        self._gone = bytearray()
        self._rest: dict[Any, bytes] = {}

    def _index(self, seq: Any) -> int | None:
        if type(seq) not in (int, float, bool):  # what an array of ints cannot hold
            return None
        seqs = self._seqs
        i = bisect_left(seqs, seq)
        return i if i < len(seqs) and seqs[i] == seq and not self._gone[i] else None

    def __contains__(self, seq: object) -> bool:
        return seq in self._rest or self._index(seq) is not None

    def get(self, seq: Any) -> bytes | None:
        found = self._rest.get(seq)
        if found is not None:
            return found
        i = self._index(seq)
        return None if i is None else bytes(self._digests[i * self._size : (i + 1) * self._size])

    def pop(self, seq: Any, default: bytes | None = None) -> bytes | None:
        if seq in self._rest:
            return self._rest.pop(seq)
        found = self.get(seq)
        if found is None:
            return default
        i = self._index(seq)
        assert i is not None
        self._gone[i] = 1
        return found

    def __setitem__(self, seq: Any, digest: bytes) -> None:
        seqs = self._seqs
        if len(digest) == self._size and extends(seq, seqs[-1] if seqs else None) and seq not in self._rest:
            seqs.append(seq)
            self._digests += digest
            self._gone.append(0)
            return
        self.pop(seq)
        self._rest[seq] = digest


def _uuid_bytes(value: Any) -> bytes | None:
    """The 16 bytes of a UUID in its canonical spelling (lower-case hex, dashed), or
    ``None`` for anything else."""
    if type(value) is not str or len(value) != 36:
        return None
    try:
        raw = bytes.fromhex(value.replace("-", ""))
    except ValueError:
        return None
    return raw if len(raw) == 16 and _uuid_text(raw) == value else None


def _uuid_text(raw: bytes) -> str:
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


class SeqIds:
    """A map of seqs to ids (any value), answering ``get`` and item assignment as a
    dict does: an id that is a UUID in its canonical spelling (the harness's message
    ids) is kept as its 16 bytes in a ``SeqBytes``, any other value in a dict."""

    __slots__ = ("_other", "_uuids")

    def __init__(self) -> None:
        self._uuids = SeqBytes(16)
        self._other: dict[Any, Any] = {}

    def __setitem__(self, seq: Any, value: Any) -> None:
        raw = _uuid_bytes(value)
        if raw is None:
            self._uuids.pop(seq)
            self._other[seq] = value
        else:
            self._other.pop(seq, None)
            self._uuids[seq] = raw

    def get(self, seq: Any, default: Any = None) -> Any:
        if seq in self._other:
            return self._other[seq]
        raw = self._uuids.get(seq)
        return default if raw is None else _uuid_text(raw)


# -- snapshots: what a checkpoint keeps of a map (``replay.check.resume``) ----------------

_LITTLE = sys.byteorder == "little"


def int64s(values: Iterable[int]) -> bytes:
    """Integers of the ``array("q")`` range as 8 little-endian bytes each
    (``OverflowError`` for one outside it)."""
    packed = array("q", values)
    if not _LITTLE:
        packed.byteswap()
    return packed.tobytes()


def from_int64s(data: bytes) -> array[int]:
    """What ``int64s`` made (``ValueError``: not a whole number of integers)."""
    if len(data) % 8:
        raise ValueError("not a whole number of 8-byte integers")
    packed = array("q")
    packed.frombytes(data)
    if not _LITTLE:
        packed.byteswap()
    return packed


class SeqBytesState(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """A ``SeqBytes`` as its meaning: its seqs in increasing order (``int64s``) and
    their values, each of the map's size, in the same order."""

    seqs: bytes
    values: bytes


def _snapshot_bytes(found: SeqBytes) -> SeqBytesState | None:
    size = found._size
    pairs = [(seq, bytes(found._digests[i * size:(i + 1) * size]))
             for i, seq in enumerate(found._seqs) if not found._gone[i]]
    if found._rest:
        if not all(type(seq) is int and LOW <= seq < HIGH and len(value) == size
                   for seq, value in found._rest.items()):
            return None
        pairs = sorted([*pairs, *found._rest.items()])
    return SeqBytesState(int64s(seq for seq, _ in pairs), b"".join(value for _, value in pairs))


def _restored_bytes(size: int, state: SeqBytesState) -> SeqBytes:
    seqs = from_int64s(state.seqs)
    if len(state.values) != len(seqs) * size:
        raise ValueError("the values are not one of the map's size for each seq")
    if any(map(operator.ge, seqs, islice(seqs, 1, None))):
        raise ValueError("the seqs are not in increasing order")
    found = SeqBytes(size)  # what assigning each value in seq order leaves, made at once (a property test)
    found._seqs, found._digests, found._gone = seqs, bytearray(state.values), bytearray(len(seqs))
    return found


class SeqIdsState(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """A ``SeqIds`` as its meaning: the seqs whose id is a UUID, with its 16 bytes,
    and the others with theirs (a text, or none: ``None``), each seq once."""

    uuids: SeqBytesState
    other: list[tuple[Annotated[int, msgspec.Meta(ge=LOW, le=HIGH - 1)], str | None]]


def snapshot_ids(ids: SeqIds) -> SeqIdsState | None:
    """The state of ``ids``; ``None`` when an id is neither a text nor none, or a seq
    is no integer of the arrays' range (no checkpoint keeps it)."""
    uuids = _snapshot_bytes(ids._uuids)
    if uuids is None:
        return None
    other: list[tuple[int, str | None]] = []
    for seq, value in ids._other.items():
        if not (type(seq) is int and LOW <= seq < HIGH and (value is None or type(value) is str)):
            return None
        other.append((seq, value))
    other.sort(key=lambda pair: pair[0])
    return SeqIdsState(uuids, other)


def restored_ids(state: SeqIdsState) -> SeqIds:
    """A ``SeqIds`` with the meaning ``state`` says, built as a reading builds one
    (``ValueError``: a seq said twice, out of order, or a value of the wrong width)."""
    uuids = _restored_bytes(16, state.uuids)
    ids = SeqIds()  # what assigning each id in seq order leaves, made at once (a property test)
    last: int | None = None
    for seq, value in state.other:
        if (last is not None and seq <= last) or seq in uuids:
            raise ValueError("an id's seq is out of order or said twice")
        if _uuid_bytes(value) is not None:
            raise ValueError("a UUID among the other ids")  # a map keeps one with the UUIDs
        last = seq
    ids._uuids, ids._other = uuids, dict(state.other)
    return ids


def snapshot_bytes(found: SeqBytes) -> SeqBytesState | None:
    """The state of ``found``; ``None`` when a seq is no integer of the arrays' range."""
    return _snapshot_bytes(found)


def restored_bytes(size: int, state: SeqBytesState) -> SeqBytes:
    """A ``SeqBytes`` of ``size`` with the meaning ``state`` says, built by item
    assignment in seq order (``ValueError``: seqs out of order or said twice, values
    not of ``size``)."""
    return _restored_bytes(size, state)
