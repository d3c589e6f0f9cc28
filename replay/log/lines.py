"""Split a byte stream into records and decode each one as the harness does (spec §1.1).

Records are separated by the single byte ``\\n`` only (never ``str.splitlines``). A
record is decoded as UTF-8 with replacement, then parsed as JSON without
``NaN``/``Infinity``. A final fragment with no ``\\n`` is a torn write and is never
parsed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

import orjson


class Line(NamedTuple):
    number: int
    """1-based line number in the logical stream (the header is line 1)."""
    payload: bytes | None
    """The record's bytes without ``\\n``; ``None`` when it exceeded the size cap."""
    end: int
    """Byte offset just after this record (plaintext offset for zstd)."""
    terminated: bool
    """False for a torn final fragment with no ``\\n``."""
    strict: bool
    """True when the record came from a complete zstd frame: no tail tolerance."""
    size: int


def iter_lines(segments: Iterable[tuple[bytes, bool]], max_record: int) -> Iterator[Line]:
    """Yield the records of a stream given as ``(bytes, strict)`` segments."""
    number = 0
    offset = 0
    pending: list[bytes] = []
    pending_len = 0
    oversize = False
    strict = False
    for data, strict in segments:
        if not data:
            continue
        parts = data.split(b"\n")
        tail = parts.pop()
        for part in parts:
            number += 1
            size = pending_len + len(part)
            offset += size + 1
            if oversize or size > max_record:
                yield Line(number, None, offset, True, strict, size)
            elif pending:
                pending.append(part)
                yield Line(number, b"".join(pending), offset, True, strict, size)
            else:
                yield Line(number, part, offset, True, strict, size)
            pending = []
            pending_len = 0
            oversize = False
        if tail:
            pending_len += len(tail)
            if oversize or pending_len > max_record:
                oversize = True
                pending = []
            else:
                pending.append(tail)
    if pending_len:
        number += 1
        offset += pending_len
        payload = None if oversize else b"".join(pending)
        yield Line(number, payload, offset, False, strict, pending_len)


class Unparsable(Exception):
    """A record that is not JSON the harness would accept."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def decode_json(payload: bytes) -> Any:
    """Parse one record; raise ``Unparsable`` with a reason the user can act on."""
    try:
        return orjson.loads(payload)
    except orjson.JSONDecodeError:
        pass
    # Slow path, only for records orjson refuses: invalid UTF-8 (the harness decodes
    # with replacement), integers beyond 64 bits (JavaScript parses them lossily).
    text = payload.decode("utf-8", "replace")
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise Unparsable("JSON nested too deeply to parse") from None
    except (ValueError, OverflowError) as exc:
        raise Unparsable(f"not valid JSON ({exc})") from None
