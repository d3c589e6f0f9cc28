"""``replay export PATH... -o OUT``, whole: every log found and audited exactly as
``replay audit`` finds and audits them (``replay.check.audit.Audit``: discovery,
caps, selection, baseline, ``--jobs``, ``--scheduler``), each read once, its rows
made where it is read (``replay.export.rows.ExportWatch``), and the tables written:

- a folder of Parquet files, one per table (``OUT/sessions.parquet``, …), or
- one DuckDB database (``-o FILE.duckdb``), or
- OpenTelemetry traces (``--format otlp``: ``replay.export.otlp``).

The worker that reads a log writes its rows as Parquet parts into a staging folder
of ``OUT`` (so memory stays flat and a cluster's workers write their own); the parts
are then joined in the order of the audit's report (the tables are the same, row for
row, whatever ran them), row groups bounded, and the result is published in one step
per file: the old tables are replaced only once the new ones are whole. Nothing is
written outside ``OUT`` (``FILE.duckdb``: outside its folder, and only the file and a
staging folder beside it). Values are data: written as the log holds them, never put
into SQL text (DuckDB reads the Arrow batches)."""

from __future__ import annotations

import contextlib
import os
import secrets
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from replay.check.audit import Audit
from replay.check.engine import Attached, LogReport
from replay.export.arrow import arrow_table, parquet_stream, pyarrow
from replay.export.request import ExportRefused, ExportRequest, ExportResult
from replay.export.rows import PART_TABLES, ExportWatch, LogFacts, Part
from replay.export.schema import OPTIONAL, SCHEMA_VERSION, TABLES, arrow_schema
from replay.export.sink import Sink
from replay.fs import FsError, Tree, abandoned
from replay.log.source import PassedOver, ignore
from replay.render.web.session_page import SEVERITIES, audit_status
from replay.urls import is_url
from replay.view.site import _CHILD

ROW_GROUP = 65536
"""Rows per Parquet row group, at most."""
STAGING = ".replay-export-staging-"
MARKER = ".replay-export"
"""The file that marks a folder as one ``replay export`` wrote (it may write there again)."""
DATABASE = "export.duckdb"


def _sessions_row(report: LogReport, facts: LogFacts | None) -> dict[str, Any]:
    values = dict(facts.values) if facts is not None else {}
    status, rule = audit_status(report)
    severity = min((f.severity for f in report.findings), key=SEVERITIES.index, default=None)
    found = _CHILD.search(report.path)
    values.update(path=report.path, child_index=int(found.group(1)) if found else None, events=report.events,
                  status=report.status, findings=len(report.findings),
                  worst_severity=severity.value if severity is not None else None,
                  worst_rule=rule if status != "ok" else None)
    return values


def _findings_rows(report: LogReport) -> Iterator[dict[str, Any]]:
    for f in report.findings:
        yield {"path": report.path, "rule": f.rule, "severity": f.severity.value, "line": f.line, "seq": f.seq,
               "type": f.type, "message": f.message}


def _columns(table: str, rows: list[dict[str, Any]]) -> dict[str, list[Any]]:
    return {c.name: [r.get(c.name) for r in rows] for c in TABLES[table]}


def _target(request: ExportRequest) -> tuple[Sink, str | None]:
    """Where the export goes, and for a database, its file name in that folder."""
    out, chosen = request.out, request.chosen
    if is_url(out):
        if chosen == "duckdb":
            raise ExportRefused(f"{out}: a DuckDB database is written to a local file; export Parquet to a URL")
        return Sink(url=out.rstrip("/")), None
    path = Path(out)
    if chosen == "duckdb":
        if path.is_dir():
            raise ExportRefused(f"{out}: a folder; a DuckDB database is a file (-o FILE.duckdb)")
        return Sink(tree=Tree.named(path.parent if str(path.parent) else Path("."))), path.name
    return Sink(tree=Tree.named(path)), None


def _claim(sink: Sink, database: str | None) -> None:
    """``ExportRefused`` when the folder holds anything but an export replay wrote."""
    if database is not None:
        return
    names = [n for n in sink.names() if not n.startswith(STAGING)]
    if names and MARKER not in names:
        raise ExportRefused(f"{sink}: not empty, and not an export replay wrote (it has no {MARKER}): name a new "
                            "or empty folder")


def _clean(sink: Sink) -> None:
    for name in sink.names():
        if name.startswith(STAGING) and (sink.url is not None or abandoned(name, STAGING)):
            sink.remove_tree(name)


class _Collected:
    """The reports and what the watch made of each, in the audit's order."""

    def __init__(self, on_report: Callable[[LogReport], None]) -> None:
        self.on_report = on_report
        self.waiting: dict[str, deque[Attached]] = {}
        self.sessions: list[dict[str, Any]] = []
        self.findings: list[dict[str, Any]] = []
        self.parts: dict[str, list[Part]] = {t: [] for t in PART_TABLES}
        self.failures: list[tuple[str, str]] = []

    def attached(self, item: Attached) -> None:
        self.waiting.setdefault(item.path, deque()).append(item)

    def reported(self, report: LogReport) -> None:
        queue = self.waiting.get(report.path)
        item = queue.popleft() if queue else None
        if queue is not None and not queue:
            del self.waiting[report.path]
        facts = item.value if item is not None and isinstance(item.value, LogFacts) else None
        if item is not None and item.failure is not None:
            self.failures.append((report.path, item.failure))
        self.sessions.append(_sessions_row(report, facts))
        self.findings.extend(_findings_rows(report))
        for part in facts.parts if facts is not None else ():
            self.parts[part.table].append(part)
        self.on_report(report)


def _part_batches(sink: Sink, staging: str, table: str, parts: list[Part]) -> Iterator[Any]:
    import pyarrow.parquet as pq

    for part in parts:
        with sink.open(staging, table, part.name) as stream:
            yield from pq.ParquetFile(stream).iter_batches()


def _table_batches(sink: Sink, staging: str, table: str, collected: _Collected) -> Iterator[Any]:
    if table == "sessions":
        yield from arrow_table(table, _columns(table, collected.sessions)).to_batches()
    elif table == "findings":
        yield from arrow_table(table, _columns(table, collected.findings)).to_batches()
    else:
        yield from _part_batches(sink, staging, table, collected.parts[table])


def _tables(request: ExportRequest) -> list[str]:
    return [t for t in TABLES if t not in OPTIONAL or (t == "events" and request.events)]


def _write_parquet(sink: Sink, staging: str, request: ExportRequest, collected: _Collected) -> dict[str, int]:
    rows = {}
    for table in _tables(request):
        data = parquet_stream(table, _table_batches(sink, staging, table, collected), request.row_group)
        sink.write(staging, "out", f"{table}.parquet", data=data)
        rows[table] = len(collected.sessions) if table == "sessions" else len(collected.findings) \
            if table == "findings" else sum(p.rows for p in collected.parts[table])
    sink.write(staging, "out", MARKER, data=[f"An export replay wrote (schema version {SCHEMA_VERSION}); each run "
                                              "rewrites its tables.\n".encode()])
    return rows


def _write_duckdb(sink: Sink, staging: str, request: ExportRequest, collected: _Collected) -> dict[str, int]:
    from replay.extras import require

    duckdb = require("duckdb", "export", "a DuckDB export")
    pa = pyarrow()
    sink.make_folder(staging, "out")
    path = sink.local(staging, "out", DATABASE)
    rows = {}
    con = duckdb.connect(str(path))
    try:
        for table in _tables(request):
            reader = pa.RecordBatchReader.from_batches(arrow_schema(table),
                                                       _table_batches(sink, staging, table, collected))
            con.register("replay_rows", reader)
            con.execute(f'CREATE TABLE "{table}" AS SELECT * FROM replay_rows')  # our own name, never a value
            con.unregister("replay_rows")
            rows[table] = con.execute(f'SELECT count(*) FROM "{table}"').fetchall()[0][0]
        con.execute("CREATE TABLE replay_export (schema_version INTEGER, tables VARCHAR[])")
        con.execute("INSERT INTO replay_export VALUES (?, ?)", [SCHEMA_VERSION, list(rows)])
    finally:
        con.close()
    return rows


def _publish(sink: Sink, staging: str, database: str | None, names: list[str]) -> None:
    """Each staged file takes the place of its old self."""
    if database is not None:
        sink.move((staging, "out", DATABASE), (database,))
        return
    for name in names:
        sink.move((staging, "out", name), (name,))


def export(request: ExportRequest, passed_over: PassedOver = ignore,
           on_report: Callable[[LogReport], None] = lambda report: None) -> ExportResult:
    """Audit the paths and export their sessions (see the module docstring)."""
    chosen = request.chosen
    pyarrow()
    if chosen == "otlp":
        from replay.export.otlp import export_traces

        return export_traces(request, passed_over, on_report)
    sink, database = _target(request)
    if sink.tree is not None:
        try:
            sink.tree.check_root()
        except FsError as exc:
            raise ExportRefused(str(exc)) from None
    _claim(sink, database)
    _clean(sink)
    staging = f"{STAGING}{os.getpid()}-{secrets.token_hex(4)}"
    sink.make_folder(staging)
    watch = ExportWatch(sink, staging, request.events, request.row_group)
    audit = Audit(request.audit, passed_over, watch=watch)
    collected = _Collected(on_report)
    try:
        result = audit.run(collected.reported, collected.attached)
        if chosen == "duckdb":
            rows = _write_duckdb(sink, staging, request, collected)
            _publish(sink, staging, database, [])
        else:
            rows = _write_parquet(sink, staging, request, collected)
            _publish(sink, staging, None, [*(f"{t}.parquet" for t in rows), MARKER])
    finally:
        with contextlib.suppress(FsError, OSError):
            sink.remove_tree(staging)
    return ExportResult(result, request.out, rows)
