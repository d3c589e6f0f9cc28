"""The export's tables, every column with its type and meaning, named once: the
Parquet and DuckDB writers build their schemas from ``TABLES``, and the schema page
of the docs (docs/reference/export-schema.md) lists the same columns (a test holds
them equal). ``SCHEMA_VERSION`` changes whenever a column is added, removed, renamed
or changes its type or meaning; the export writes it into every file's metadata."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SCHEMA_VERSION = 1
"""The version of the tables' shape (written as ``replay.schema_version`` in every
Parquet file's metadata and in the DuckDB table ``replay_export``)."""

STRING, INT, TIME, BOOL, STRINGS, ITEMS = "string", "int64", "timestamp", "boolean", "list<string>", "list<item>"
"""The column types: text (UTF-8), a 64-bit integer, a time (UTC milliseconds), a
flag, a list of texts, and a plan's items (``content``, ``status``, ``active_form``:
texts)."""


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    type: str
    meaning: str


def _columns(*spec: tuple[str, str, str]) -> tuple[Column, ...]:
    return tuple(Column(*c) for c in spec)


_LOG = (("path", STRING, "the log, as the audit names it (its `path` in the audit's JSON report)"),
        ("session_id", STRING, "the header's session `id`"))
_TOKENS = (("input_tokens", INT, "uncached input tokens"), ("output_tokens", INT, "output tokens"),
           ("cache_read_tokens", INT, "input tokens read from the provider's cache"),
           ("cache_write_tokens", INT, "input tokens written to the provider's cache"),
           ("reasoning_tokens", INT, "reasoning tokens (apart from the output tokens: the counts are disjoint)"))

TABLES: dict[str, tuple[Column, ...]] = {
    "sessions": _columns(
        *_LOG,
        ("parent_session", STRING, "the header's `parentSession`: the session that started this one as a subagent"),
        ("child_index", INT, "`N` of a child's file name `session.N.jsonl` (the order its parent started it in)"),
        ("title", STRING, "the session's title as the session browser shows it: the latest `session/title`, else "
                          "the first prompt"),
        ("cwd", STRING, "the header's working directory"),
        ("created", TIME, "the header's `createdAt`"),
        ("first_time", TIME, "the earliest event time"),
        ("last_time", TIME, "the latest event time"),
        ("duration_ms", INT, "`last_time - first_time`, in milliseconds"),
        ("generation", STRING, "the harness generation the log's shapes tell (`2026-07`, `2026-08`), as "
                               "`--profile auto` chooses"),
        ("models", STRINGS, "the steps' models, each once, in the order they first appear"),
        ("turns", INT, "turns (`turn/start` … `turn/end`)"),
        ("steps", INT, "steps (model calls with the tools they asked for)"),
        ("tool_calls", INT, "tool calls (`tool/call` events)"),
        ("tool_calls_failed", INT, "tool calls that ended in an error result (not an interruption)"),
        ("tool_calls_interrupted", INT, "tool calls that were interrupted"),
        ("tool_calls_pending", INT, "tool calls with no result in the log"),
        *_TOKENS,
        ("plan_done", INT, "the standing plan's completed items at the end of the log (null: no plan)"),
        ("plan_total", INT, "the standing plan's items at the end of the log (null: no plan)"),
        ("events", INT, "events the audit read"),
        ("status", STRING, "the audit's status of the log: `ok`, `findings` or `unreadable`"),
        ("findings", INT, "the audit's findings (after the selection and the baseline)"),
        ("worst_severity", STRING, "the most severe finding's severity (`error`, `warning`, `policy`; null: none)"),
        ("worst_rule", STRING, "the rule with the most findings of the worst severity (the first in the rule "
                               "listing on a tie)"),
    ),
    "turns": _columns(
        *_LOG,
        ("turn", INT, "the turn's number, as the log gives it"),
        ("start", TIME, "the `turn/start` time"),
        ("end", TIME, "the `turn/end` time (null: the log ends inside the turn)"),
        ("duration_ms", INT, "`end - start`, in milliseconds"),
        ("end_reason", STRING, "the `turn/end` reason's kind (`completed`, `aborted`, `error`, …)"),
        ("steps", INT, "the turn's steps"),
    ),
    "steps": _columns(
        *_LOG,
        ("turn", INT, "the step's turn"),
        ("step", INT, "the step's number in its turn"),
        ("start", TIME, "the `step/start` time"),
        ("end", TIME, "the `step/end` time"),
        ("latency_ms", INT, "`end - start`, in milliseconds: the model call and the tools it asked for"),
        ("model", STRING, "the assistant message's model, else the model of the route in force"),
        *_TOKENS,
        ("finish_reason", STRING, "the kind of the step's last `finish` chunk (`stop`, `tool-calls`, `error`, …)"),
        ("attempts", INT, "the step's attempts: its `finish` chunks (a failed attempt is followed by a retry)"),
        ("failed_attempts", INT, "attempts that finished with an error"),
    ),
    "tool_calls": _columns(
        *_LOG,
        ("number", INT, "the call's place among the log's calls (0, 1, …)"),
        ("seq", INT, "the `tool/call` event's seq"),
        ("call_id", STRING, "the call's `callId`"),
        ("tool", STRING, "the tool's name"),
        ("turn", INT, "the call's turn"),
        ("step", INT, "the call's step"),
        ("status", STRING, "how it ended: `done`, `failed`, `interrupted` or `pending` (no result)"),
        ("start", TIME, "the `tool/call` time"),
        ("end", TIME, "the time of the `tool/result` that settled it"),
        ("duration_ms", INT, "`end - start`, in milliseconds"),
        ("argument_chars", INT, "characters of the arguments as the model wrote them"),
        ("result_chars", INT, "characters of the result's text"),
        ("error", STRING, "a failed or interrupted call's result text, else its structured error's `name: code`"),
    ),
    "plans": _columns(
        *_LOG,
        ("seq", INT, "the `todo/write` event's seq"),
        ("turn", INT, "the turn it was written in"),
        ("items", ITEMS, "the plan as written: each item's `content`, `status` and `active_form`"),
        ("done", INT, "its completed items"),
        ("total", INT, "its items"),
    ),
    "findings": _columns(
        ("path", STRING, "the log, as the audit names it"),
        ("rule", STRING, "the rule's id (the rule reference explains it)"),
        ("severity", STRING, "`error`, `warning` or `policy`"),
        ("line", INT, "the line of the log (null: the whole log)"),
        ("seq", INT, "the event's seq (null: not an event's)"),
        ("type", STRING, "the event's type"),
        ("message", STRING, "what is wrong, in words"),
    ),
    "events": _columns(
        *_LOG,
        ("seq", INT, "the event's seq"),
        ("type", STRING, "the event's type"),
        ("turn", INT, "its `data.turn`"),
        ("step", INT, "its `data.step`"),
        ("time", TIME, "its time"),
        ("line", INT, "the line of the log that holds it (a packed row holds many events)"),
    ),
}
"""Every table, in the order they are written; ``events`` only with ``--events``."""

OPTIONAL = ("events",)


def arrow_schema(table: str) -> Any:
    """The pyarrow schema of ``table``, with the schema version in its metadata."""
    import pyarrow as pa

    item = pa.struct([("content", pa.string()), ("status", pa.string()), ("active_form", pa.string())])
    types = {STRING: pa.string(), INT: pa.int64(), TIME: pa.timestamp("ms", tz="UTC"), BOOL: pa.bool_(),
             STRINGS: pa.list_(pa.string()), ITEMS: pa.list_(item)}
    return pa.schema([(c.name, types[c.type]) for c in TABLES[table]],
                     metadata={"replay.schema_version": str(SCHEMA_VERSION), "replay.table": table})


def schema_markdown() -> str:
    """The schema page of the docs (docs/reference/export-schema.md), from ``TABLES``."""
    out = [
        "# Export schema\n",
        "The tables an export writes ([the guide](../guides/export.md) shows how to query them), every "
        "column with its type and meaning. This page is the schema's own text (a test holds it equal to the "
        "code).\n",
        f"**Schema version {SCHEMA_VERSION}.** It changes whenever a column is added, removed, renamed or changes "
        "its type or meaning. A Parquet file carries it in its metadata (`replay.schema_version`, with "
        "`replay.table`); a DuckDB database in its table `replay_export` (`schema_version`, `tables`).\n",
        "Types: `string` is UTF-8 text, exactly as the log holds it (UTF-8 cannot hold a lone surrogate, which "
        "JavaScript's strings allow: one is written as U+FFFD); `int64` a 64-bit integer (a value beyond 64 bits "
        "is null); `timestamp` a time in milliseconds since the epoch, UTC (DuckDB's `TIMESTAMP WITH TIME ZONE`); "
        "`list<string>` a list of texts; `list<item>` a plan's items, each a struct of `content`, `status` and "
        "`active_form` (texts). Null is what the log does not say.\n",
    ]
    for table, columns in TABLES.items():
        note = " (with `--events`)" if table in OPTIONAL else ""
        out.append(f"## {table}{note}\n")
        out.append("| column | type | meaning |\n|---|---|---|")
        out.extend(f"| `{c.name}` | `{c.type}` | {c.meaning} |" for c in columns)
        out.append("")
    return "\n".join(out)
