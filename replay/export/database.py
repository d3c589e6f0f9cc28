"""The DuckDB database of an export, built by DuckDB from the staged Parquet files of
its tables (read by DuckDB itself, not handed over as Python values), in a fresh
process: on one thread, within ``MEMORY``, and apart from the audit's memory (the
process that audited holds its heap; a forked one would count it again). The files'
paths are parameters, never SQL text; the tables' names are replay's own."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

MEMORY = "128MB"
"""What DuckDB may hold while it builds the database."""


def build(database: str, tables: dict[str, str], schema_version: int) -> None:
    """Write ``database`` with a table per ``tables`` entry (name: its Parquet file, in
    order) and ``replay_export`` (the schema version and the tables' names), in a
    process of its own; DuckDB's error, if any, raised here."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        pool.submit(_build, database, tables, schema_version).result()


def _build(database: str, tables: dict[str, str], schema_version: int) -> None:
    import duckdb

    con = duckdb.connect(database, config={"threads": 1, "memory_limit": MEMORY})
    try:
        for table, source in tables.items():
            con.execute(f'CREATE TABLE "{table}" AS SELECT * FROM read_parquet(?)', [source])
        con.execute("CREATE TABLE replay_export (schema_version INTEGER, tables VARCHAR[])")
        con.execute("INSERT INTO replay_export VALUES (?, ?)", [schema_version, list(tables)])
    finally:
        con.close()
