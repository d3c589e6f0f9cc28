"""The database is built by DuckDB in an interpreter of its own; when DuckDB cannot
write it, the export fails with DuckDB's words (an ``FsError``: exit 1, no traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest

from replay.export.database import build
from replay.fs import FsError

pytest.importorskip("duckdb", reason="the export extra (duckdb) is not installed")


def test_a_database_duckdb_cannot_write_is_an_fs_error(tmp_path: Path) -> None:
    database = tmp_path / "missing" / "out.duckdb"
    with pytest.raises(FsError) as failed:
        build(str(database), {"sessions": str(tmp_path / "sessions.parquet")}, 1)
    assert str(failed.value).startswith(f"{database}: DuckDB could not write it (IO Error: ")
    assert not database.parent.exists()
