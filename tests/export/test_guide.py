"""docs/guides/export.md runs: its two export commands on the shared corpus, then every
SQL query (in DuckDB, on the database) and every pandas snippet (on the Parquet
folder), each giving the answer the guide prints after it."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from replay.cli import main
from tests.helpers import REPO, corpus_root

duckdb = pytest.importorskip("duckdb", reason="the export extra (duckdb) is not installed")
pytest.importorskip("pandas", reason="pandas (the test extra) is not installed")

pytestmark = pytest.mark.slow
GUIDE = REPO / "docs" / "guides" / "export.md"
BLOCK = re.compile(r"```(\w+)\n(.*?)```\n", re.S)


def answered() -> list[tuple[str, str, str]]:
    """Each query or snippet of the guide, with the answer printed after it."""
    blocks = BLOCK.findall(GUIDE.read_text(encoding="utf-8"))
    return [(kind, code, blocks[i + 1][1]) for i, (kind, code) in enumerate(blocks)
            if kind in ("sql", "python") and i + 1 < len(blocks) and blocks[i + 1][0] == "text"]


def table(con: object, sql: str) -> str:
    rel = con.sql(sql)  # type: ignore[attr-defined]
    lines = [" | ".join(rel.columns)] + [" | ".join(str(v) for v in row) for row in rel.fetchall()]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = corpus_root()
    if not root.is_dir():
        pytest.skip(f"the shared corpus {root} is absent (set REPLAY_CORPUS)")
    where = tmp_path_factory.mktemp("guide")
    (where / "corpus").symlink_to(root.resolve(), target_is_directory=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(where)
        for out in ("export/", "corpus.duckdb"):
            result = CliRunner().invoke(main, ["export", "corpus/", "-o", out, "--jobs", "1"])
            assert result.exit_code == 1, result.output  # the corpus has error findings
    return where


def test_the_guide_has_its_four_questions_answered_both_ways() -> None:
    kinds = [kind for kind, _, _ in answered()]
    assert kinds == ["sql", "python"] * 4


@pytest.mark.parametrize("number", range(8))
def test_every_answer_is_what_the_guide_prints(exported: Path, number: int, monkeypatch: pytest.MonkeyPatch) -> None:
    kind, code, expected = answered()[number]
    monkeypatch.chdir(exported)
    if kind == "sql":
        con = duckdb.connect("corpus.duckdb", read_only=True)
        try:
            assert table(con, code) == expected
        finally:
            con.close()
        # the same query on the Parquet folder
        files = duckdb.connect()
        for name in ("sessions", "turns", "steps", "tool_calls", "plans", "findings"):
            files.read_parquet(f"export/{name}.parquet").create_view(name)
        assert table(files, code) == expected
    else:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, str(GUIDE), "exec"), {})
        assert out.getvalue() == expected
