"""Split a byte stream into records and decode each one as the harness does (spec §1.1).

Records are separated by the single byte ``\\n`` only (never ``str.splitlines``). A
record is decoded as UTF-8 with replacement, then parsed as JSON without
``NaN``/``Infinity``. A final fragment with no ``\\n`` is a torn write and is never
parsed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any, NamedTuple

import orjson

from replay import jsjson
from replay.log.bounded import Records


class Line(NamedTuple):
    number: int
    """1-based line number in the logical stream (the header is line 1)."""
    payload: bytes | bytearray | None
    """The record's bytes without ``\\n``; ``None`` when it exceeded the size cap."""
    end: int
    """Byte offset just after this record (plaintext offset for zstd)."""
    terminated: bool
    """False for a torn final fragment with no ``\\n``."""
    strict: bool
    """True when the record came from a complete zstd frame: no tail tolerance."""
    size: int


def split_header(
    segments: Iterable[tuple[bytes, bool]], max_record: int
) -> tuple[Line | None, Iterator[tuple[bytes, bool]]]:
    """Take the first record off a stream; return it and the rest of the stream. A
    first record longer than ``max_record`` stops the reading: it comes back with no
    payload, its ``size`` the bytes seen (more than ``max_record``)."""
    it = iter(segments)
    records = Records(max_record)
    strict = False
    for data, strict in it:
        nl = data.find(b"\n")
        if nl < 0:
            records.split(data)
            if records.pending > max_record:
                return Line(1, None, records.pending, False, strict, records.pending), iter(())
            continue
        size = records.pending + nl
        (payload,) = records.split(data[: nl + 1])
        rest = chain([(data[nl + 1 :], strict)], it)
        return Line(1, payload, size + 1, True, strict, size), rest
    if records.pending:
        return Line(1, records.tail(), records.pending, False, strict, records.pending), iter(())
    return None, iter(())


def split_records(segments: Iterable[tuple[bytes, bool]], max_record: int,
                  first_line: int = 2) -> Iterator[tuple[int, bytes | None]]:
    """Every record of a stream as ``(line number, bytes without the newline)``,
    undecoded, a final fragment without a newline included; ``None`` for a record
    over ``max_record`` bytes (never held whole: ``Records`` enforces the cap)."""
    number = first_line - 1
    records = Records(max_record)
    for data, _strict in segments:
        for payload in records.split(data):
            number += 1
            yield number, bytes(payload) if isinstance(payload, bytearray) else payload
    if records.pending:
        yield number + 1, records.tail()


class Unparsable(Exception):
    """A record that is not JSON the harness would accept."""


def decode_json(payload: bytes | bytearray) -> Any:
    """Parse one record; raise ``Unparsable`` with a reason the user can act on."""
    try:
        return orjson.loads(payload)
    except orjson.JSONDecodeError:
        pass
    # Slow path, only for records orjson refuses: invalid UTF-8 (the harness decodes
    # with replacement), integers beyond 64 bits (JavaScript parses them lossily).
    text = payload.decode("utf-8", "replace")
    try:
        return jsjson.loads(text)
    except RecursionError:
        raise Unparsable("JSON nested too deeply to parse") from None
    except (ValueError, OverflowError) as exc:
        raise Unparsable(f"not valid JSON ({exc})") from None
