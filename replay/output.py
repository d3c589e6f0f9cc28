"""The output edge: how text and JSON become bytes, and how bytes reach a file or a stream.

A log may hold what JSON allows and Python's codecs refuse: lone surrogates
(``"\\ud800"`` is legal JSON and a legal JavaScript string) and integers of any size.
Neither may stop an output:

* ``utf8(text)``: UTF-8 with every lone surrogate written as U+FFFD, as Node writes
  such a string to a file or a terminal;
* ``json_bytes(value, indent=...)``: orjson's compact or 2-space JSON; a value orjson
  refuses (an integer beyond 64 bits, a lone surrogate, nesting deeper than 255) is
  written by the standard library instead, integers exactly, lone surrogates as
  ``\\uXXXX`` escapes (as ``JSON.stringify`` writes them), non-finite floats as ``null``;
* ``pretty_json(value)``: ``json.dumps(value, indent=2, ensure_ascii=False)`` with the
  same escapes.

Writing: ``TextOut`` is a text stream over a binary one (standard output) that encodes
the same way and turns a failing stream into ``OutputError``; files are written by
``replay.fs`` (``write_output``: atomically, with the same encoding).
"""

from __future__ import annotations

import errno
import io
import json
import math
from collections.abc import Iterable, Iterator
from typing import Any, Protocol

import orjson

from replay.describe import reason
from replay.jsjson import escape_lone
from replay.style import LONE_SURROGATE


def utf8(text: str) -> bytes:
    """``text`` as UTF-8; a lone surrogate becomes U+FFFD."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return LONE_SURROGATE.sub("\ufffd", text).encode("utf-8")


_SLICE = 1 << 20


def encoded(data: str | bytes) -> Iterator[bytes]:
    """``data`` as UTF-8, a long text in slices (never a second copy of all of it)."""
    if isinstance(data, bytes):
        yield data
    elif len(data) <= _SLICE:
        yield utf8(data)
    else:
        for start in range(0, len(data), _SLICE):
            yield utf8(data[start:start + _SLICE])


GATHER = 1 << 16
"""Characters of a stream's output held and written together (one write, one check
for Ctrl-C, where a frame or a line each would be one)."""


def gathered(chunks: Iterable[str]) -> Iterator[str]:
    """``chunks`` joined into pieces of about ``GATHER`` characters, in order; a chunk of
    that size or more is passed on alone (never copied into a larger one)."""
    held: list[str] = []
    size = 0
    for chunk in chunks:
        if len(chunk) >= GATHER:
            if held:
                yield "".join(held)
                held, size = [], 0
            yield chunk
            continue
        held.append(chunk)
        size += len(chunk)
        if size >= GATHER:
            yield "".join(held)
            held, size = [], 0
    if held:
        yield "".join(held)


_MAX_INT_BITS = 14_000
"""Integers up to ~4,200 digits are written exactly (Python's int→str limit is 4,300)."""


def _plain(value: Any) -> Any:
    """A copy that the standard library writes as valid JSON: non-finite floats and
    integers too long to write become ``null`` (what JavaScript would write)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if type(value) is int and value.bit_length() > _MAX_INT_BITS:
        return None
    return value


def json_text(value: Any, *, indent: bool = False) -> str:
    """JSON text of a value orjson may refuse (see the module docstring)."""
    text = json.dumps(_plain(value), ensure_ascii=False, indent=2 if indent else None,
                      separators=(",", ": ") if indent else (",", ":"))
    return escape_lone(text)


def json_bytes(value: Any, *, indent: bool = False) -> bytes:
    """orjson's JSON of ``value`` (2-space indented with ``indent``), for any JSON value."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else None)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json_text(value, indent=indent).encode("utf-8")


def pretty_json(value: Any) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)``, lone surrogates escaped."""
    return escape_lone(json.dumps(_plain(value), indent=2, ensure_ascii=False))


class Writable(Protocol):
    def write(self, data: bytes, /) -> object: ...

    def flush(self) -> object: ...


class OutputError(Exception):
    """An output could not be written; the message names the path and the OS error.
    ``broken_pipe``: the reader of standard output went away (``… | head``)."""

    def __init__(self, message: str, broken_pipe: bool = False) -> None:
        super().__init__(message)
        self.broken_pipe = broken_pipe


class TextOut(io.TextIOBase):
    """A text stream over a binary one (standard output): text is written as UTF-8,
    a lone surrogate as U+FFFD, a long text in slices. A failing stream (a full disk,
    a closed pipe) raises ``OutputError``."""

    def __init__(self, stream: Writable, name: str = "standard output") -> None:
        super().__init__()
        self._stream = stream
        self._name = name

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.write_bytes(text)
        return len(text)

    def write_bytes(self, data: str | bytes) -> None:
        try:
            for piece in encoded(data):
                self._stream.write(piece)
        except OSError as exc:
            raise self._failed(exc) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            raise self._failed(exc) from None

    def _failed(self, exc: OSError) -> OutputError:
        return OutputError(f"{self._name}: cannot write ({reason(exc)})", exc.errno == errno.EPIPE)


def show(value: Any, limit: int = 60) -> str:
    """A short JSON-ish rendering of a value for a finding's message."""
    try:
        text = orjson.dumps(value).decode()
    except TypeError:  # beyond 64 bits, a lone surrogate, deeper than orjson writes
        try:
            text = json_text(value)
        except RecursionError:
            text = "(a value nested too deeply to show)"
    return text if len(text) <= limit else text[: limit - 1] + "…"
