"""The places of a session page's draft (``replay.render.web.session_draft``), spilled
as they are found so that a draft's memory is flat in the length of its log: where each
element starts, the lines inside another element (a result inside its call's row), and
the texts that go at places of the HTML once known (``Slot``: a turn's or a step's
numbers), each in blocks of ``TABLE`` entries, zstd-compressed (a block of fewer than
``PACKED`` bytes, as a short log's are, is kept as it is: compressing it costs more than it
saves), in the draft's ``replay.project.spill.Spill``, beside its HTML (``BODY``). The
readers here give them back in order."""

from __future__ import annotations

import heapq
import pickle
from array import array
from bisect import bisect_right
from collections import deque
from collections.abc import Collection, Iterator
from typing import IO, cast

import zstandard

from replay.project.spill import Spill

BODY, STARTS, INNER, FILLED, LATE = range(5)
"""The kinds of a draft's blocks: its HTML, then its places (see ``Places``)."""
TABLE = 1024
"""Entries of a table gathered before they are spilled (16 KiB)."""
TEXTS = 256
"""Texts gathered before they are spilled."""
WAIT = 1024
"""Known texts that wait behind one not known yet before it is set aside (``LATE``)."""
PACKED = 4096
"""Bytes of a block from which it is compressed."""
_PLAIN, _ZSTD = b"\0", b"\1"
"""The first byte of a block: what follows is the block as it is, or compressed."""


def _packed(z: zstandard.ZstdCompressor | None, data: bytes) -> tuple[zstandard.ZstdCompressor | None, bytes]:
    """A block as it is spilled (and the compressor, made when first needed)."""
    if len(data) < PACKED:
        return z, _PLAIN + data
    z = z if z is not None else zstandard.ZstdCompressor(level=1)
    return z, _ZSTD + z.compress(data)


def _unpacked(block: bytes) -> bytes:
    return block[1:] if block[:1] == _PLAIN else zstandard.ZstdDecompressor().decompress(block[1:])


class Slot:
    """A place in the HTML whose text is known later (``None`` until then; ``""``: none)."""

    __slots__ = ("text",)

    def __init__(self) -> None:
        self.text: str | None = None


class Places:
    """The places of one draft as it is written: ``start`` and ``inner`` as elements are
    written, ``slot`` as a place is left; ``settle`` once texts are known (each is
    spilled in the order of the places, as soon as the texts of the places before it
    are known: a place still waiting when ``WAIT`` more are known is set aside, kept
    with its offset, and spilled at the end as ``LATE``); ``done`` at the end."""

    def __init__(self, spill: Spill) -> None:
        self.spill = spill
        self._z: zstandard.ZstdCompressor | None = None
        self._starts: array[int] = array("q")
        self._inner: array[int] = array("q")
        self._waiting: deque[tuple[int, int, Slot]] = deque()
        self._known: list[tuple[int, int, str]] = []
        self._late: list[tuple[int, int, Slot]] = []
        self._count = 0

    def start(self, line: int, offset: int) -> None:
        """An element whose first line is ``line`` (greater than every one before) starts at ``offset``."""
        self._starts = self._pair(STARTS, self._starts, line, offset)

    def inner(self, line: int, offset: int) -> None:
        """``line`` is inside the element that starts at ``offset`` (the last one said of a line holds)."""
        self._inner = self._pair(INNER, self._inner, line, offset)

    def _pair(self, kind: int, table: array[int], line: int, offset: int) -> array[int]:
        """``table`` with the pair added: a new one once it is full and spilled."""
        table.append(line)
        table.append(offset)
        if len(table) < 2 * TABLE:
            return table
        self._put(kind, table.tobytes())
        return array("q")

    def _put(self, kind: int, data: bytes) -> None:
        self._z, block = _packed(self._z, data)
        self.spill.put(kind, block)

    def slot(self, offset: int, slot: Slot) -> None:
        self._waiting.append((offset, self._count, slot))
        self._count += 1
        self.settle()

    def settle(self, final: bool = False) -> None:
        """Spill the places whose texts are known (``final``: every text is, ``None`` is none)."""
        waiting = self._waiting
        while waiting:
            offset, number, slot = waiting[0]
            if slot.text is None and not final:
                if len(waiting) <= WAIT:
                    break
                self._late.append(waiting.popleft())
                continue
            waiting.popleft()
            if slot.text:
                self._known.append((offset, number, slot.text))
                if len(self._known) >= TEXTS:
                    self._spill_known()

    def _spill_known(self) -> None:
        if self._known:
            self._put(FILLED, pickle.dumps(self._known, protocol=pickle.HIGHEST_PROTOCOL))
        self._known = []

    def done(self) -> None:
        self.settle(final=True)
        self._spill_known()
        late = [(offset, number, slot.text) for offset, number, slot in self._late if slot.text]
        if late:
            self._put(LATE, pickle.dumps(late, protocol=pickle.HIGHEST_PROTOCOL))
        self._late = []
        for kind, table in ((STARTS, self._starts), (INNER, self._inner)):
            if table:
                self._put(kind, table.tobytes())
        self._starts, self._inner = array("q"), array("q")


# -- reading them back -------------------------------------------------------------------


def _tables(spill: Spill, kind: int) -> Iterator[array[int]]:
    for block in spill.blocks(kind):
        table = array("q")
        table.frombytes(_unpacked(block))
        yield table


def _records(spill: Spill, kind: int) -> Iterator[tuple[int, int, str]]:
    for block in spill.blocks(kind):
        yield from pickle.loads(_unpacked(block))


def filled(spill: Spill) -> Iterator[tuple[int, str]]:
    """The texts to insert, by offset (in the order their places were left)."""
    if LATE not in spill.kinds:  # none was set aside: the places' own order
        for offset, _, text in _records(spill, FILLED):
            yield offset, text
        return
    for offset, _, text in heapq.merge(_records(spill, FILLED), _records(spill, LATE),
                                       key=lambda r: (r[0], r[1])):
        yield offset, text


def places(spill: Spill, lines: Collection[int]) -> dict[int, int]:
    """Where the findings of each of ``lines`` go: before the element that holds the
    line (the last element that starts at or before it; the start of the transcript if
    none), read in one pass over the tables."""
    found: dict[int, int] = {}
    wanted = set(lines)
    if not wanted:
        return found
    for table in _tables(spill, INNER):
        for i in range(0, len(table), 2):
            if table[i] in wanted:
                found[table[i]] = table[i + 1]
    rest = sorted(line for line in wanted if line not in found)
    j, current = 0, 0
    for table in _tables(spill, STARTS):
        starts = table[0::2]
        while j < len(rest) and rest[j] < starts[0]:
            found[rest[j]] = current
            j += 1
        while j < len(rest) and rest[j] <= starts[-1]:
            found[rest[j]] = table[2 * (bisect_right(starts, rest[j]) - 1) + 1]
            j += 1
        current = table[-1]
    for line in rest[j:]:
        found[line] = current
    return found


class _Reader:
    """The blocks of a kind as one stream (``read``), for a decompressor."""

    def __init__(self, blocks: Iterator[bytes]) -> None:
        self._blocks = blocks
        self._left = b""

    def read(self, size: int = -1) -> bytes:
        while not self._left:
            block = next(self._blocks, None)
            if block is None:
                return b""
            self._left = block
        if size < 0 or size >= len(self._left):
            piece, self._left = self._left, b""
        else:
            piece, self._left = self._left[:size], self._left[size:]
        return piece


def body(spill: Spill, compressed: bool, size: int) -> Iterator[bytes]:
    """The HTML, in pieces of at most ``size`` bytes once uncompressed, never joined."""
    if not compressed:
        yield from spill.blocks(BODY)
        return
    yield from zstandard.ZstdDecompressor().read_to_iter(cast(IO[bytes], _Reader(spill.blocks(BODY))), read_size=size,
                                                         write_size=size)
