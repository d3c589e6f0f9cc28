"""Rows to Arrow and Parquet (pyarrow, the export extra), exactly: a value is written
as the log holds it. Two things a Parquet column cannot hold are said here, once: a
string with a lone surrogate (JavaScript's strings allow one, UTF-8 cannot encode it)
is written with U+FFFD in its place, the one character replay shows for it
everywhere; an integer outside the 64-bit range is written as null, and so is a time
outside JavaScript's dates (more than 8.64e15 ms from the epoch either way, which
every reader's timestamp holds)."""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator
from typing import Any

from replay.export.schema import INT, ITEMS, STRING, STRINGS, TABLES, TIME, arrow_schema
from replay.extras import require

INT_MIN, INT_MAX = -(1 << 63), (1 << 63) - 1
TIME_LIMIT = 8_640_000_000_000_000
"""Milliseconds from the epoch to the last date JavaScript's Date holds."""


_READY: list[Any] = []


def pyarrow() -> Any:
    """pyarrow, its memory pool chosen once per process: the system allocator instead
    of pyarrow's default (jemalloc or mimalloc), which keeps the memory of the many
    small tables an export makes after they are freed (unless
    ``ARROW_DEFAULT_MEMORY_POOL`` chooses)."""
    if _READY:
        return _READY[0]
    pa = require("pyarrow", "export", "exporting tables")
    if "ARROW_DEFAULT_MEMORY_POOL" not in os.environ:
        pa.set_memory_pool(pa.system_memory_pool())
    _READY.append(pa)
    return pa


class _NoPandas:
    """A finder that finds pandas missing: pyarrow asks whether each list it converts
    is a pandas object, and tries to import pandas to know (50 MB and 0.4 s, most of
    an export's memory above the audit's); the export converts lists only, so while it
    does, pandas, when it is not imported yet, is not found. pyarrow still imports it
    whenever it is asked for a pandas conversion."""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> None:
        if name == "pandas":
            raise ModuleNotFoundError("pandas is not needed to convert lists", name=name)


@contextlib.contextmanager
def _lists_only() -> Iterator[None]:
    if "pandas" in sys.modules or _NoPandas in sys.meta_path:
        yield
        return
    sys.meta_path.insert(0, _NoPandas)
    try:
        yield
    finally:
        sys.meta_path.remove(_NoPandas)


def _text(value: Any) -> Any:
    if not isinstance(value, str):
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return value


def _whole(value: Any) -> Any:
    return value if type(value) is int and INT_MIN <= value <= INT_MAX else None


def _time(value: Any) -> Any:
    return value if type(value) is int and -TIME_LIMIT <= value <= TIME_LIMIT else None


def _clean(kind: str, values: list[Any]) -> list[Any]:
    """The values a column of ``kind`` can hold: anything else is null (a row's
    value of another type than its column's, a text UTF-8 cannot hold: see above)."""
    if kind == STRING:
        return [_text(v) for v in values]
    if kind == INT:
        return [_whole(v) for v in values]
    if kind == TIME:
        return [_time(v) for v in values]
    if kind == STRINGS:
        return [[_text(s) for s in v] if isinstance(v, list) else None for v in values]
    if kind == ITEMS:
        return [[{k: _text(s) for k, s in item.items()} for item in v if isinstance(item, dict)]
                if isinstance(v, list) else None for v in values]
    return values


def columns_of(table: str, rows: list[tuple[Any, ...]]) -> dict[str, list[Any]]:
    """Rows of ``table`` (a value per column, in the order of ``TABLES``) as a list per column."""
    names = [c.name for c in TABLES[table]]
    if not rows:
        return {name: [] for name in names}
    return {name: list(values) for name, values in zip(names, zip(*rows, strict=True), strict=True)}


def arrow_table(table: str, columns: dict[str, list[Any]]) -> Any:
    """The rows of ``table`` (a list per column) as a pyarrow Table."""
    pa = pyarrow()
    schema = arrow_schema(table)
    arrays = []
    with _lists_only():
        for column, field in zip(TABLES[table], schema, strict=True):
            values = columns[column.name]
            if column.type == TIME:
                values = _clean(TIME, values)
            try:
                arrays.append(pa.array(values, field.type))
            except (pa.ArrowException, OverflowError, UnicodeError, TypeError, ValueError):
                arrays.append(pa.array(_clean(column.type, values), field.type))
    return pa.Table.from_arrays(arrays, schema=schema)


def parquet_bytes(table: str, columns: dict[str, list[Any]], row_group: int) -> bytes:
    """One Parquet file of the rows, its row groups at most ``row_group`` rows."""
    import pyarrow.parquet as pq

    out = io.BytesIO()
    pq.write_table(arrow_table(table, columns), out, row_group_size=row_group, compression="zstd")
    return out.getvalue()
