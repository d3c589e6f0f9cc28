"""``replay export``: the tables of the shared corpus, read back with pyarrow and
DuckDB. ``sessions`` has one row per log the audit reports; every log's duration,
tool calls and tokens are what its lines hold (computed from the raw lines,
independently of replay: ``tests.render.web.log_numbers``); ``findings`` is the audit
JSON's findings, row for row; the tables are the same whatever runs the export; the
schema's version is pinned."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from replay.cli import main
from replay.export.schema import SCHEMA_VERSION, TABLES
from tests.helpers import corpus_root
from tests.render.web.log_numbers import log_numbers

pq = pytest.importorskip("pyarrow.parquet", reason="the export extra (pyarrow) is not installed")
duckdb = pytest.importorskip("duckdb", reason="the export extra (duckdb) is not installed")

pytestmark = pytest.mark.slow


def export(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["export", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.output


def rows(folder: Path, table: str) -> list[dict[str, Any]]:
    return pq.read_table(folder / f"{table}.parquet").to_pylist()  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def corpus() -> Path:
    root = corpus_root()
    if not root.is_dir():
        pytest.skip(f"the shared corpus {root} is absent (set REPLAY_CORPUS)")
    return root


@pytest.fixture(scope="module")
def audited(corpus: Path) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["audit", "--format", "json", "--jobs", "1", str(corpus)])
    return json.loads(result.stdout)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def exported(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, str]:
    out = tmp_path_factory.mktemp("export") / "out"
    code, text = export(str(corpus), "-o", str(out), "--jobs", "1", "--events")
    return out, code, text


def test_the_schema_version_is_pinned() -> None:
    """A change of any table's columns changes the version: update both, and the docs."""
    shape = json.dumps({table: [(c.name, c.type) for c in columns] for table, columns in TABLES.items()})
    assert (SCHEMA_VERSION, hashlib.sha256(shape.encode()).hexdigest()[:16]) == (1, "f6a6f51b0a1a29fe")


def test_sessions_has_one_row_per_log_the_audit_reports(exported: tuple[Path, int, str],
                                                       audited: dict[str, Any]) -> None:
    out, code, text = exported
    files = audited["files"]
    assert code == 1  # the audit finds errors in the corpus, as replay audit does
    assert text.splitlines()[0] == str(out)
    assert f"sessions: {len(files)} rows" in text.splitlines()
    sessions = rows(out, "sessions")
    assert [(s["path"], s["status"], s["events"], s["findings"]) for s in sessions] == \
        [(f["path"], f["status"], f["events"], len(f["findings"])) for f in files]
    assert sorted(p.name for p in out.iterdir()) == sorted([".replay-export", *(f"{t}.parquet" for t in TABLES)])


def test_every_session_holds_the_numbers_of_its_log(exported: tuple[Path, int, str]) -> None:
    """Duration, tool calls and tokens: what the log's lines hold (and what the session
    browser shows for it, which its own test holds to the same numbers)."""
    checked = 0
    for s in rows(exported[0], "sessions"):
        duration, calls, tokens = log_numbers(Path(s["path"]))
        ours = ("" if s["duration_ms"] is None else str(s["duration_ms"]), str(s["tool_calls"]),
                " ".join(str(s[k]) for k in ("input_tokens", "output_tokens", "cache_read_tokens",
                                            "cache_write_tokens", "reasoning_tokens")))
        assert ours == (duration, calls, tokens), s["path"]
        checked += 1
    assert checked >= 300


def test_the_tables_add_up_to_the_sessions(exported: tuple[Path, int, str]) -> None:
    """Each session's turns, steps, calls and tokens are the sums of its rows in the
    other tables; its events are the rows of the events table."""
    out = exported[0]
    con = duckdb.connect()
    for table in TABLES:
        con.read_parquet(str(out / f"{table}.parquet")).create_view(table)
    wrong = con.execute("""
        SELECT s.path FROM sessions s
        LEFT JOIN (SELECT path, count(*) n FROM turns GROUP BY path) t USING (path)
        LEFT JOIN (SELECT path, count(*) n, sum(input_tokens) i, sum(output_tokens) o, sum(reasoning_tokens) r
                   FROM steps GROUP BY path) st USING (path)
        LEFT JOIN (SELECT path, count(*) n, count(*) FILTER (status = 'failed') f FROM tool_calls GROUP BY path)
                  c USING (path)
        WHERE s.turns <> coalesce(t.n, 0) OR s.steps <> coalesce(st.n, 0) OR s.tool_calls <> coalesce(c.n, 0)
           OR s.tool_calls_failed <> coalesce(c.f, 0) OR s.input_tokens <> coalesce(st.i, 0)
           OR s.output_tokens <> coalesce(st.o, 0) OR s.reasoning_tokens <> coalesce(st.r, 0)
    """).fetchall()
    assert wrong == []
    assert con.execute("SELECT sum(events) FROM sessions").fetchall() == \
        con.execute("SELECT count(*) FROM events").fetchall()


def test_findings_are_the_audit_s_row_for_row(exported: tuple[Path, int, str], audited: dict[str, Any]) -> None:
    expected = [{"path": f["path"], **finding} for f in audited["files"] for finding in f["findings"]]
    assert rows(exported[0], "findings") == expected
    assert len(expected) > 100


def test_a_database_and_workers_give_the_same_tables(exported: tuple[Path, int, str], corpus: Path,
                                                     tmp_path: Path) -> None:
    database = tmp_path / "corpus.duckdb"
    code, text = export(str(corpus), "-o", str(database), "--jobs", "2", "--events")
    assert (code, text.splitlines()[0]) == (1, str(database))
    con = duckdb.connect(str(database), read_only=True)
    assert con.execute("SELECT schema_version, tables FROM replay_export").fetchall() == \
        [(SCHEMA_VERSION, list(TABLES))]
    for table in TABLES:
        ours = con.sql(f"SELECT * FROM {table}").to_arrow_table()
        theirs = pq.read_table(exported[0] / f"{table}.parquet")
        assert ours.to_pylist() == theirs.to_pylist(), table
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.duckdb"]  # no staging left beside it


def test_the_schema_page_lists_every_column() -> None:
    """docs/reference/export-schema.md is ``schema_markdown()``: every table, every column
    with its type and meaning (regenerate it with that function after a change)."""
    from replay.export.schema import schema_markdown
    from tests.helpers import REPO

    page = (REPO / "docs" / "reference" / "export-schema.md").read_text(encoding="utf-8")
    assert page == schema_markdown()
    for table, columns in TABLES.items():
        for c in columns:
            assert f"| `{c.name}` | `{c.type}` | {c.meaning} |" in page.split(f"## {table}", 1)[1]


def test_parts_written_by_workers_give_the_same_tables_in_bounded_row_groups(
        exported: tuple[Path, int, str], corpus: Path, tmp_path: Path) -> None:
    """With row groups of 40 rows, every log of 40 rows or more writes its rows as
    Parquet parts in the worker that read it; they are spliced in report order, so the
    tables are the same, and no row group has more than 40 rows."""
    from replay.check.audit import AuditRequest
    from replay.export.run import ExportRequest
    from replay.export.run import export as run_export

    out = tmp_path / "parts"
    result = run_export(ExportRequest(AuditRequest((str(corpus),), jobs=2), str(out), events=True, row_group=40))
    assert result.rows["events"] > 20_000
    for table in TABLES:
        ours = pq.ParquetFile(out / f"{table}.parquet")
        assert max(ours.metadata.row_group(i).num_rows for i in range(ours.num_row_groups)) <= 40, table
        assert ours.read().to_pylist() == pq.read_table(exported[0] / f"{table}.parquet").to_pylist(), table
    assert sorted(p.name for p in tmp_path.iterdir()) == ["parts"]


def test_every_session_holds_what_the_session_browser_shows(exported: tuple[Path, int, str], corpus: Path) -> None:
    """The same audit with the session browser's watch: each log's page facts (its header,
    times, turns, steps, calls and how they ended, tokens, models, plan, title,
    generation) are its sessions row's."""
    from replay.check.audit import Audit, AuditRequest
    from replay.check.engine import Attached
    from replay.view.site import PageWatch

    drafts: dict[str, Any] = {}

    def attached(item: Attached) -> None:
        drafts.setdefault(item.path, item.value.facts)  # type: ignore[attr-defined]

    Audit(AuditRequest((str(corpus),)), watch=PageWatch()).run(attached=attached)
    sessions = rows(exported[0], "sessions")
    assert len(drafts) == len(sessions)

    epoch = datetime(1970, 1, 1, tzinfo=UTC)

    def ms(value: Any) -> Any:
        return None if value is None else (value - epoch) // timedelta(milliseconds=1)

    for s in sessions:
        f = drafts[s["path"]]
        assert (s["session_id"], s["parent_session"], s["cwd"], ms(s["created"]), ms(s["first_time"]),
                s["duration_ms"], s["turns"], s["steps"], s["tool_calls"],
                (s["tool_calls"] - s["tool_calls_failed"] - s["tool_calls_interrupted"] - s["tool_calls_pending"],
                 s["tool_calls_failed"], s["tool_calls_interrupted"], s["tool_calls_pending"]),
                (s["input_tokens"], s["output_tokens"], s["cache_read_tokens"], s["cache_write_tokens"],
                 s["reasoning_tokens"]), tuple(s["models"]),
                None if s["plan_total"] is None else (s["plan_done"], s["plan_total"]), s["title"],
                s["generation"]) == \
            (f.session_id, f.parent, f.cwd, f.created, f.start, f.duration, f.turns, f.steps, f.calls, f.outcomes,
             f.tokens, f.models, f.plan, f.title, f.generation), s["path"]
