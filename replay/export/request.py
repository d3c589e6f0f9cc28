"""What ``replay export`` is asked, and what it did."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from replay.check.audit import AuditRequest
from replay.check.engine import AuditResult

Format = Literal["parquet", "duckdb", "otlp"]
FORMATS: tuple[Format, ...] = ("parquet", "duckdb", "otlp")
DUCKDB_SUFFIXES = (".duckdb", ".ddb")
"""An ``OUT`` with one of these suffixes is a DuckDB database (else a Parquet folder)."""
ROW_GROUP = 65536
"""Rows per Parquet row group, at most."""


class ExportRefused(Exception):
    """``OUT`` cannot take the export (a usage error)."""


@dataclass(frozen=True)
class ExportRequest:
    """What ``replay export PATH... -o OUT`` was asked."""

    audit: AuditRequest
    out: str
    """A folder, a ``FILE.duckdb`` or a URL, as typed."""
    format: Format | None = None
    """``None``: ``duckdb`` when ``out`` ends in ``.duckdb``, else ``parquet``."""
    events: bool = False
    """Also the ``events`` table (one row per event)."""
    with_content: bool = False
    """otlp: the messages, arguments and results as span attributes."""
    row_group: int = ROW_GROUP

    @property
    def chosen(self) -> Format:
        if self.format is not None:
            return self.format
        return "duckdb" if self.out.endswith(DUCKDB_SUFFIXES) else "parquet"


@dataclass(frozen=True)
class ExportResult:
    audit: AuditResult
    out: str
    """Where the export is (the folder, the database, the traces' folder)."""
    rows: dict[str, int] = field(default_factory=dict)
    """Rows written per table (otlp: ``traces``, the files; ``spans``)."""


