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

Writing: ``write_file(path, chunks)`` writes atomically (a temporary file beside the
target, renamed over it once complete) and raises ``OutputError`` naming the path and
the OS error, leaving no partial file; ``TextOut`` is a text stream over a binary one
(standard output) that encodes the same way and reports a failing stream the same way.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import secrets
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Protocol

import orjson

from replay.jsjson import escape_lone
from replay.style import LONE_SURROGATE


def utf8(text: str) -> bytes:
    """``text`` as UTF-8; a lone surrogate becomes U+FFFD."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return LONE_SURROGATE.sub("\ufffd", text).encode("utf-8")


_SLICE = 1 << 20


def _encoded(data: str | bytes) -> Iterator[bytes]:
    """``data`` as UTF-8, a long text in slices (never a second copy of all of it)."""
    if isinstance(data, bytes):
        yield data
    elif len(data) <= _SLICE:
        yield utf8(data)
    else:
        for start in range(0, len(data), _SLICE):
            yield utf8(data[start:start + _SLICE])


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
    """An output could not be written; the message names the path and the OS error."""


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def write_file(path: Path, chunks: Iterable[bytes | str]) -> None:
    """Write ``chunks`` (text is ``utf8``-encoded) to ``path`` atomically: into a
    temporary file beside it, fsynced, then renamed over it. On any failure the
    temporary file is removed, ``path`` is untouched, and ``OutputError`` says why.

    A path that names a device or a pipe (``/dev/null``, ``/dev/stdout``) is written in
    place; a symbolic link the caller named is followed to its file."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputError(f"{path}: cannot write ({_reason(exc)})") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        _write_in_place(path, chunks, st)
        return
    target = Path(os.path.realpath(path)) if st is not None else path
    try:
        fd, temp = _create_beside(target)
    except OSError as exc:
        raise OutputError(f"{path}: cannot write ({_reason(exc)})") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            _write_chunks(fh, chunks)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError):
            raise OutputError(f"{path}: cannot write ({_reason(exc)})") from None
        raise


def _write_chunks(fh: Writable, chunks: Iterable[bytes | str]) -> None:
    for chunk in chunks:
        for data in _encoded(chunk):
            fh.write(data)


def _write_in_place(path: Path, chunks: Iterable[bytes | str], st: os.stat_result) -> None:
    if stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{path}: cannot write (it is a folder)")
    try:
        with open(path, "wb") as fh:
            _write_chunks(fh, chunks)
    except OSError as exc:
        raise OutputError(f"{path}: cannot write ({_reason(exc)})") from None


_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def _create_beside(path: Path) -> tuple[int, Path]:
    """A new, empty file next to ``path`` (mode 0666 less the umask, as ``open`` makes)."""
    for _ in range(100):
        temp = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
        try:
            return os.open(temp, _CREATE, 0o666), temp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")


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
            for piece in _encoded(data):
                self._stream.write(piece)
        except OSError as exc:
            raise OutputError(f"{self._name}: cannot write ({_reason(exc)})") from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            raise OutputError(f"{self._name}: cannot write ({_reason(exc)})") from None
