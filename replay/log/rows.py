"""Packed chunk rows (spec §1.4): validation on read, as the harness does it."""

from __future__ import annotations

from itertools import accumulate
from typing import Any

from replay.jsjson import MAX_SAFE_INTEGER
from replay.log.event import ChunkRun
from replay.log.values import is_nonneg_safe_int, is_number, is_safe_int

_ROW_KEYS = frozenset({"type", "seq0", "time0", "data"})
_TEXT_KEYS = frozenset({"turn", "step", "index", "dt", "texts"})
_CALL_KEYS = frozenset({"turn", "step", "index", "dt", "id", "args"})
_CALL_KEYS_NAMED = _CALL_KEYS | {"name"}


class RowError(Exception):
    """A malformed storage row; the message completes "malformed <tag> storage row: …"."""


def decode_row(tag: str, record: dict[str, Any], line: int) -> ChunkRun:
    if record.keys() != _ROW_KEYS:
        raise RowError(f"envelope keys must be exactly type, seq0, time0, data (got {', '.join(record)})")
    seq0 = record["seq0"]
    time0 = record["time0"]
    data = record["data"]
    if not is_nonneg_safe_int(seq0):
        raise RowError("seq0 must be a non-negative safe integer")
    if not is_safe_int(time0):
        raise RowError("time0 must be a safe integer")
    if not isinstance(data, dict):
        raise RowError("data must be an object")
    keys = data.keys()
    is_call = tag == "tool-call-chunks"
    if is_call:
        if keys != _CALL_KEYS and keys != _CALL_KEYS_NAMED:
            raise RowError("data keys must be turn, step, index, dt, id, [name,] args")
        members = data["args"]
        field = "args"
    else:
        if keys != _TEXT_KEYS:
            raise RowError("data keys must be exactly turn, step, index, dt, texts")
        members = data["texts"]
        field = "texts"
    for key in ("turn", "step", "index"):
        if not is_number(data[key]):
            raise RowError(f"{key} must be a number")
    if type(members) is not list or not members or set(map(type, members)) != {str}:
        raise RowError(f"{field} must be a non-empty array of strings")
    dt = data["dt"]
    check_run(time0, seq0, dt, members)
    call_id = name = None
    if is_call:
        call_id = data["id"]
        if not isinstance(call_id, str):
            raise RowError("id must be a string")
        if "name" in data:
            name = data["name"]
            if not isinstance(name, str):
                raise RowError("name must be a string")
    return ChunkRun(
        tag, int(seq0), int(time0), data["turn"], data["step"], data["index"],
        dt, members, line, call_id, name,
    )


def check_run(time0: Any, seq0: Any, dt: Any, members: list[str]) -> None:
    """The checks that relate a row's fields (``dt`` against the members, the running
    time, the last seq), once each is known to be there; ``RowError`` when one fails.
    A typed row (``replay.log.typed``) is completed here too."""
    if type(dt) is not list or len(dt) != len(members) - 1:
        raise RowError(f"dt must be an array of {len(members) - 1} safe integers")
    if dt:
        if set(map(type, dt)) != {int} and not all(is_safe_int(g) for g in dt):
            raise RowError("dt must hold safe integers")
        running = list(accumulate(dt, initial=int(time0)))
        if min(running) < -MAX_SAFE_INTEGER or max(running) > MAX_SAFE_INTEGER \
                or min(dt) < -MAX_SAFE_INTEGER or max(dt) > MAX_SAFE_INTEGER:
            raise RowError("running time leaves the safe-integer range")
    if seq0 + len(members) - 1 > MAX_SAFE_INTEGER:
        raise RowError("seq0 + members leaves the safe-integer range")
