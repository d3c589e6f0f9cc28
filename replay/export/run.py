"""``replay export PATH... -o OUT``, whole: every log found and audited exactly as
``replay audit`` finds and audits them (``replay.check.audit.Audit``: discovery,
caps, selection, baseline, ``--jobs``, ``--scheduler``), each read once, its rows
made where it is read (``replay.export.rows.ExportWatch``), and the tables written:

- a folder of Parquet files, one per table (``OUT/sessions.parquet``, …), or
- one DuckDB database (``-o FILE.duckdb``), or
- OpenTelemetry traces (``--format otlp``: ``replay.export.otlp``).

Each log's rows are made by the worker that reads it: a large log's are written
there as Parquet parts into a staging folder of ``OUT`` (so memory stays flat and a
cluster's workers write their own), a small log's travel back with its report. Each
table is written as the reports come, in their order (the tables are the same, row for
row, whatever ran them), row groups bounded, and the result is published file by file:
the old tables are replaced only once the new ones are whole. Nothing is
written outside ``OUT`` (``FILE.duckdb``: outside its folder, and only the file and a
staging folder beside it). Values are data: written as the log holds them, never put
into SQL text (DuckDB reads the staged Parquet: ``replay.export.database``)."""

from __future__ import annotations

import contextlib
import os
import posixpath
import re
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

from replay.check.audit import Audit
from replay.check.engine import Attachments, LogReport
from replay.export.arrow import arrow_table, columns_of, pyarrow
from replay.export.otlp import LogTrace, in_range
from replay.export.request import ExportRefused, ExportRequest, ExportResult
from replay.export.rows import PART_TABLES, ExportWatch, LogFacts, Part
from replay.export.schema import OPTIONAL, SCHEMA_VERSION, TABLES, arrow_schema
from replay.export.sink import Sink
from replay.fs import FsError, Tree, abandoned, write_output
from replay.log.source import PassedOver, display_path, ignore
from replay.output import json_bytes
from replay.render.web.session_draft import SEVERITIES
from replay.render.web.session_page import audit_status
from replay.urls import is_url
from replay.view.site import _CHILD, folder_name, page_name

ROW_GROUP = 65536
"""Rows per Parquet row group, at most."""
STAGING = ".replay-export-staging-"
MARKER = ".replay-export"
"""The file that marks a folder as one ``replay export`` wrote (it may write there again)."""
DATABASE = "export.duckdb"
CONVERT_ROWS = 4096
"""Rows of small logs held as Python values before they are made Arrow (at once)."""


_SESSION_COLUMNS = [c.name for c in TABLES["sessions"]]


def _sessions_row(report: LogReport, facts: LogFacts | None) -> tuple[Any, ...]:
    values = dict(facts.values) if facts is not None else {}
    status, rule = audit_status(report)
    severity = min((f.severity for f in report.findings), key=SEVERITIES.index, default=None)
    found = _CHILD.search(report.path)
    values.update(path=report.path, child_index=int(found.group(1)) if found else None, events=report.events,
                  status=report.status, findings=len(report.findings),
                  worst_severity=severity.value if severity is not None else None,
                  worst_rule=rule if status != "ok" else None)
    return tuple(map(values.get, _SESSION_COLUMNS))


def _findings_rows(report: LogReport) -> list[tuple[Any, ...]]:
    """The report's findings as rows of ``findings`` (its columns' order)."""
    path = report.path
    return [(path, f.rule, f.severity.value, f.line, f.seq, f.type, f.message) for f in report.findings]


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


class _Table:
    """One table being written into the staging folder as the reports come: small
    logs' rows held until they make a row group, a large log's parts spliced in where
    it comes, so the rows are in the order of the report and memory is flat."""

    def __init__(self, stack: contextlib.ExitStack, sink: Sink, staging: str, table: str, row_group: int) -> None:
        import pyarrow.parquet as pq

        self.pa = pyarrow()
        self.sink, self.staging, self.table, self.row_group = sink, staging, table, row_group
        self.schema = arrow_schema(table)
        out = stack.enter_context(sink.create(staging, "out", f"{table}.parquet"))
        self.writer = pq.ParquetWriter(out, self.schema, compression="zstd")
        stack.callback(self.writer.close)
        self.held: list[Any] = []
        self.held_rows = 0
        self.pending: list[tuple[Any, ...]] = []
        """Rows not made Arrow yet, a value per column in the order of ``TABLES``."""
        self.rows = 0

    def add(self, table: Any) -> None:
        if table.num_rows:
            self.held.append(table)
            self.held_rows += table.num_rows
            self.rows += table.num_rows
            if self.held_rows >= self.row_group:
                self._write(whole=False)

    def add_rows(self, rows: list[tuple[Any, ...]]) -> None:
        pending = self.pending
        pending.extend(rows)
        if len(pending) >= CONVERT_ROWS:
            self._convert()

    def _convert(self) -> None:
        if self.pending:
            rows, self.pending = self.pending, []
            self.add(arrow_table(self.table, columns_of(self.table, rows)))

    def _write(self, whole: bool) -> None:
        if not self.held:
            return
        group = self.pa.concat_tables(self.held)
        size = self.row_group
        at = 0
        while group.num_rows - at >= size or (whole and at < group.num_rows):
            self.writer.write_table(group.slice(at, size), row_group_size=size)
            at += size
        rest = group.slice(at)
        self.held, self.held_rows = ([rest] if rest.num_rows else []), rest.num_rows

    def splice(self, parts: list[Part]) -> None:
        """A large log's parts, after the rows before them."""
        import pyarrow.parquet as pq

        self._convert()
        self._write(whole=True)
        for part in parts:
            with self.sink.open(self.staging, self.table, part.name) as stream:
                for batch in pq.ParquetFile(stream).iter_batches(batch_size=self.row_group):
                    self.writer.write_table(self.pa.Table.from_batches([batch], schema=self.schema),
                                            row_group_size=self.row_group)
                    self.rows += batch.num_rows

    def finish(self) -> None:
        self._convert()
        self._write(whole=True)


class _Collected:
    """The reports and what the watch made of each, in the audit's order, written into
    the tables as they come."""

    def __init__(self, tables: dict[str, _Table], on_report: Callable[[LogReport], None]) -> None:
        self.tables = tables
        self.on_report = on_report
        self.waiting = Attachments()
        self.attached = self.waiting.add

    def reported(self, report: LogReport) -> None:
        item = self.waiting.take(report)
        facts = item.value if item is not None and isinstance(item.value, LogFacts) else None
        tables = self.tables
        tables["sessions"].add_rows([_sessions_row(report, facts)])
        if report.findings:
            tables["findings"].add_rows(_findings_rows(report))
        if facts is not None:
            for name, rows in facts.tables.items():
                if name in tables:
                    tables[name].add_rows(rows)
            for name in PART_TABLES:
                parts = [p for p in facts.parts if p.table == name]
                if parts and name in tables:
                    tables[name].splice(parts)
        self.on_report(report)


def _tables(request: ExportRequest) -> list[str]:
    return [t for t in TABLES if t not in OPTIONAL or (t == "events" and request.events)]


def _write_duckdb(sink: Sink, staging: str, request: ExportRequest) -> None:
    from replay.export.database import build

    build(str(sink.local(staging, "out", DATABASE)),
          {table: str(sink.local(staging, "out", f"{table}.parquet")) for table in _tables(request)}, SCHEMA_VERSION)


def _publish(sink: Sink, staging: str, database: str | None, names: list[str]) -> None:
    """Each staged file takes the place of its old self."""
    if database is not None:
        sink.move((staging, "out", DATABASE), (database,))
        return
    for name in names:
        sink.move((staging, "out", name), (name,))


# -- traces -------------------------------------------------------------------------------


def _names(text: str, session_id: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(session_id)}(?![\w-])", text) is not None


def _families(traces: list[tuple[str, LogTrace]]) -> list[tuple[str, LogTrace]]:
    """Each child log's session linked under the ``subagent`` call that started it (the
    call whose result names its session id, else its parent's next free one) in the
    log of its ``parentSession`` in the same folder; the logs that are roots, in order."""
    by_id: dict[tuple[str, str], LogTrace] = {}
    for path, trace in traces:
        if trace.session_id:
            by_id.setdefault((posixpath.dirname(path), trace.session_id), trace)
    free: dict[int, list[tuple[int, str, str]]] = {}
    linked: set[int] = set()
    for path, trace in traces:
        parent = by_id.get((posixpath.dirname(path), trace.parent_session or ""))
        if parent is None or parent is trace or not trace.parent_session:
            continue
        if id(parent) in linked and _ancestor(trace, parent, by_id, path):
            continue
        calls = free.setdefault(id(parent), list(parent.delegations))
        call = next((c for c in calls if trace.session_id and _names(c[2], trace.session_id)), None) \
            or (calls[0] if calls else None)
        holder = parent.root
        if call is not None:
            calls.remove(call)
            holder = next(s for s in parent.root.walk() if s.span_id == call[1])
        trace.root.parent = holder.span_id
        holder.children.append(trace.root)
        linked.add(id(trace))
    return [(path, trace) for path, trace in traces if id(trace) not in linked]


def _ancestor(trace: LogTrace, parent: LogTrace, by_id: dict[tuple[str, str], LogTrace], path: str) -> bool:
    """Whether ``trace`` is already above ``parent`` (a loop of parentSession headers)."""
    seen: set[int] = set()
    current: LogTrace | None = parent
    folder = posixpath.dirname(path)
    while current is not None and id(current) not in seen:
        if current is trace:
            return True
        seen.add(id(current))
        current = by_id.get((folder, current.parent_session or "")) if current.parent_session else None
    return False


def _staging_name() -> str:
    return f"{STAGING}{os.getpid()}-{secrets.token_hex(4)}"


def _claimed(sink: Sink, database: str | None) -> str:
    """The output checked (a confined root), claimed as an export's and cleaned of a dead
    run's leftovers; the name of this run's staging folder in it."""
    if sink.tree is not None:
        try:
            sink.tree.check_root()
        except FsError as exc:
            raise ExportRefused(str(exc)) from None
    _claim(sink, database)
    _clean(sink)
    return _staging_name()


def _export_traces(request: ExportRequest, passed_over: PassedOver,
                   on_report: Callable[[LogReport], None]) -> ExportResult:
    from replay.export.otlp import request as trace_request
    from replay.export.otlp import trace_id

    stream = request.out.endswith(".jsonl")
    sink = Sink(url=request.out.rstrip("/")) if is_url(request.out) and not stream else \
        Sink(tree=Tree.named(Path(request.out))) if not stream else None
    staging = _claimed(sink, None) if sink is not None else _staging_name()
    watch = ExportWatch(Sink(), staging, traces=True, content=request.with_content)
    traces: list[tuple[str, LogTrace]] = []
    waiting = Attachments()

    def reported(report: LogReport) -> None:
        item = waiting.take(report)
        if item is not None and isinstance(item.value, LogTrace):
            traces.append((report.path, item.value))
        on_report(report)

    result = Audit(request.audit, passed_over, watch=watch).run(reported, waiting.add)
    roots = _families(traces)
    documents = []
    spans = 0
    for path, trace in roots:
        root = trace.root
        low = in_range(root.start) or 0
        high = in_range(root.end)
        root.place(low, high if high is not None and high >= low else low)
        document = trace_request(trace_id(path), [root])
        spans += len(document["resourceSpans"][0]["scopeSpans"][0]["spans"])
        documents.append((path, document))
    if sink is None:
        lines = (json_bytes(doc) + b"\n" for _, doc in documents)
        if is_url(request.out):
            folder, _, name = request.out.rpartition("/")
            Sink(url=folder).write(name, data=lines)
        else:
            write_output(Path(request.out), lines)
    else:
        taken: set[str] = set()
        names = []
        try:
            for path, doc in documents:
                shown = display_path(path)
                page = page_name(folder_name(posixpath.dirname(shown)), posixpath.basename(shown) or shown, taken)
                name = page.removesuffix(".html") + ".otlp.json"
                sink.write(staging, name, data=[json_bytes(doc) + b"\n"])
                names.append(name)
            sink.write(staging, MARKER, data=[b"OTLP/JSON traces replay wrote; each run rewrites them.\n"])
            for name in [*names, MARKER]:
                sink.move((staging, name), (name,))
        finally:
            with contextlib.suppress(FsError, OSError):
                sink.remove_tree(staging)
    return ExportResult(result, request.out, {"sessions": len(traces), "traces": len(documents), "spans": spans})


def export(request: ExportRequest, passed_over: PassedOver = ignore,
           on_report: Callable[[LogReport], None] = lambda report: None) -> ExportResult:
    """Audit the paths and export their sessions (see the module docstring)."""
    chosen = request.chosen
    pyarrow()
    if chosen == "otlp":
        return _export_traces(request, passed_over, on_report)
    sink, database = _target(request)
    staging = _claimed(sink, database)
    sink.make_folder(staging)
    watch = ExportWatch(sink, staging, request.events, request.row_group)
    audit = Audit(request.audit, passed_over, watch=watch)
    try:
        with contextlib.ExitStack() as stack:
            tables = {name: _Table(stack, sink, staging, name, request.row_group) for name in _tables(request)}
            collected = _Collected(tables, on_report)
            result = audit.run(collected.reported, collected.attached)
            for table in tables.values():
                table.finish()
        rows = {name: table.rows for name, table in tables.items()}
        if chosen == "duckdb":
            _write_duckdb(sink, staging, request)
            _publish(sink, staging, database, [])
        else:
            sink.write(staging, "out", MARKER, data=[f"An export replay wrote (schema version {SCHEMA_VERSION}); "
                                                      "each run rewrites its tables.\n".encode()])
            _publish(sink, staging, None, [*(f"{t}.parquet" for t in rows), MARKER])
    finally:
        with contextlib.suppress(FsError, OSError):
            sink.remove_tree(staging)
    return ExportResult(result, request.out, rows)
