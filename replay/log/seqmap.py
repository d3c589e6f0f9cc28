"""Maps keyed by seq, compact: what a reading or an audit keeps for the events of a
whole log costs bytes in arrays, not a dict entry and an int object (about 100 bytes)
per event, while the seqs come in increasing order, as in every log the scanner
accepted; anything else is kept in a dict, with the same answers."""

from __future__ import annotations

from array import array
from bisect import bisect_left
from typing import Any

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
