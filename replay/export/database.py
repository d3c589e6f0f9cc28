"""The DuckDB database of an export, built by DuckDB from the staged Parquet files of
its tables (read by DuckDB itself, not handed over as Python values), in a fresh
interpreter of its own: on one thread, within ``MEMORY``, and apart from the audit's
memory (the process that audited holds its heap, and a forked one would count it
again; duckdb is not imported there at all). The child runs ``_BUILD`` alone (no
module of replay, nor the parent's main script; ``-P``: not the current folder's
modules either); what it is given comes as JSON on its standard input: the files'
paths are parameters, never SQL text, and the tables' names are replay's own."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

from replay.extras import MissingExtra, missing
from replay.fs import FsError

MEMORY = "128MB"
"""What DuckDB may hold while it builds the database."""

_BUILD = """\
import json, sys
import duckdb
job = json.load(sys.stdin)
con = duckdb.connect(job["database"], config={"threads": 1, "memory_limit": job["memory"]})
try:
    for table, source in job["tables"]:
        con.execute('CREATE TABLE "%s" AS SELECT * FROM read_parquet(?)' % table, [source])
    con.execute("CREATE TABLE replay_export (schema_version INTEGER, tables VARCHAR[])")
    con.execute("INSERT INTO replay_export VALUES (?, ?)", [job["version"], [t for t, _ in job["tables"]]])
finally:
    con.close()
"""


def build(database: str, tables: dict[str, str], schema_version: int) -> None:
    """Write ``database`` with a table per ``tables`` entry (name: its Parquet file, in
    order) and ``replay_export`` (the schema version and the tables' names);
    ``FsError`` with DuckDB's last words when it could not."""
    if importlib.util.find_spec("duckdb") is None:
        raise MissingExtra(missing("duckdb", "export", "a DuckDB export"))
    job = {"database": database, "tables": list(tables.items()), "version": schema_version, "memory": MEMORY}
    done = subprocess.run([sys.executable, "-P", "-c", _BUILD], input=json.dumps(job).encode(),
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        last = lines[-1] if lines else f"exit status {done.returncode}"
        name, colon, words = last.partition(": ")
        raise FsError(f"{database}: DuckDB could not write it ({words if colon and ' ' not in name else last})")
