"""JSON values kept compact while a run holds a long recording: written with orjson and
compressed with Zstandard, read back when the run reaches them. A value orjson cannot
write (a lone surrogate, an integer beyond 64 bits) is kept as it is."""

from __future__ import annotations

from typing import Any

import orjson
import zstandard

_COMPRESS = zstandard.ZstdCompressor(level=1)
_DECOMPRESS = zstandard.ZstdDecompressor()


class Packed:
    """One JSON value, compressed (or, when it cannot be, kept as it is)."""

    __slots__ = ("_data",)

    def __init__(self, value: Any) -> None:
        try:
            # A copy: the compressor's result keeps the room of its worst case, as large as its input.
            self._data: Any = bytes(memoryview(_COMPRESS.compress(orjson.dumps(value))))
        except TypeError:
            self._data = [value]

    def value(self) -> Any:
        """The value, read back (a new copy each time it was compressed)."""
        if isinstance(self._data, bytes):
            return orjson.loads(_DECOMPRESS.decompress(self._data))
        return self._data[0]
