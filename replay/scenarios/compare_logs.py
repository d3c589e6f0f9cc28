"""``replay diff A B``: two session logs, two goldens, or a log against a scenario's
re-persisted golden, compared with the golden engine's semantic diff (records aligned,
one line per change, seq shifts folded; past its size limit, line by line, as read).

A zstd log is compared by its plaintext. With ``normalize``, the volatile values are
normalized on both sides as the goldens have them (``normalize_record``: times zeroed),
so a harness log compares with the ``session.expected.jsonl`` a refresh wrote. Each
side is read under the log cap and held in a spool (memory, then a temporary file), so
a large log costs what the line diff holds, not its size."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, cast

import orjson

from replay.describe import reason
from replay.fs import FsError, read_named
from replay.goldens.diff import stream_changes
from replay.goldens.lines import Change, same_content
from replay.jsjson import dumps
from replay.log.bounded import BLOCK, Records, TooLarge, capped_blocks
from replay.log.reader import Limits
from replay.log.zstd import DecompressedTooLarge, ZstdCorruption, frame_plaintexts
from replay.output import utf8
from replay.scenarios.artefacts import SESSION_LOG, comparator, is_artefact_name, normalize_record

_SPOOL = 1 << 20
"""A side is kept in memory up to this many bytes, then in a temporary file."""


@dataclass(frozen=True)
class LogDiff:
    """What ``replay diff`` found: the changes from ``a`` to ``b`` (cited by ``a``'s lines)."""

    a: str
    b: str
    changes: tuple[Change, ...]

    @property
    def same(self) -> bool:
        return not self.changes


def _plaintext(path: Path, cap: int) -> Iterator[bytes]:
    """The file's bytes (a zstd log's plaintext), at most ``cap`` of them."""
    with open(path, "rb") as stream:
        if path.name.endswith((".zstd", ".zst")):
            for piece, _, _ in frame_plaintexts(stream, cap):
                yield piece
        else:
            yield from capped_blocks(stream.read, cap, BLOCK)


def _normal(line: bytes | bytearray) -> bytes:
    """One line normalized (``normalize_record``); a line that is not a record as it is."""
    if not line.startswith(b"{"):
        return bytes(line)  # not an object: no record (and no exception to raise per line)
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return bytes(line)
    return utf8(dumps(normalize_record(record))) if isinstance(record, dict) else bytes(line)


def _normalized(blocks: Iterator[bytes], max_record: int) -> Iterator[bytes]:
    """A byte stream with each line normalized, split as the reader splits records (a
    line longer than ``max_record`` is ``TooLarge``), a block at a time: a block that
    holds no ``{`` starts no record, and is passed on as it is."""
    records = Records(max_record)
    for block in blocks:
        parts = records.split(block)
        if not parts:
            continue
        if None in parts:
            raise TooLarge(max_record)
        lines = cast(list[bytes], parts)
        rest = [_normal(line) for line in lines[1:]] if b"{" in block else lines[1:]
        yield b"\n".join([_normal(lines[0]), *rest]) + b"\n"  # the first may have begun in an earlier block
    if records.pending:
        tail = records.tail()
        if tail is None:
            raise TooLarge(max_record)
        yield _normal(tail)


@contextlib.contextmanager
def _side(path: Path, limits: Limits, normalize: bool) -> Iterator[BinaryIO]:
    """One side, ready to compare: a seekable spool of its (normalized) plaintext."""
    if not path.is_file():
        read_named(path, 0)  # says what it is instead (a folder, a FIFO, …), as an FsError
    with tempfile.SpooledTemporaryFile(_SPOOL) as spool:
        try:
            blocks = _plaintext(path, limits.max_log_bytes)
            for piece in _normalized(blocks, limits.max_record_bytes) if normalize else blocks:
                spool.write(piece)
        except (OSError, TooLarge, DecompressedTooLarge, ZstdCorruption) as exc:
            why = reason(exc) if isinstance(exc, OSError) else str(exc)
            raise FsError(f"{path}: cannot read it to compare ({why})") from None
        spool.seek(0)
        yield cast(BinaryIO, spool)


def diff_logs(a: Path, b: Path, *, normalize: bool = False, full: bool = False,
              limits: Limits | None = None) -> LogDiff:
    """The changes from ``a`` to ``b``, compared as goldens are: a golden (by ``a``'s
    name, else ``b``'s) as its producer declares, anything else as a session log (whose
    lines, when they are not JSON, are compared as text)."""
    limits = limits or Limits()
    compare = next((comparator(p.name) for p in (a, b) if is_artefact_name(p.name)), SESSION_LOG)
    with _side(a, limits, normalize) as left, _side(b, limits, normalize) as right:
        found = [] if same_content(left, right) else stream_changes(compare, left, right, full)
    return LogDiff(str(a), str(b), tuple(found))
