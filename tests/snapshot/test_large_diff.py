"""Goldens past the semantic diff's limit: compared line by line as they are read, in
memory of a few lines, with a report that says so, is capped, and starts at the first
line that differs. Under the limit, reports are those of the semantic diff."""

from __future__ import annotations

import io
import json
import re
import shutil
import tracemalloc
from pathlib import Path
from typing import Any

import zstandard
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from replay.cli import main
from replay.goldens.diff import (
    JSON,
    JSONL,
    SEMANTIC_DIFF_BYTES,
    TEXT,
    changes,
    new_file_changes,
    semantic_changes,
    stream_changes,
)
from replay.goldens.lines import COUNT_LINES, MAX_LINES, Change, change_lines
from replay.goldens.pending import Entry, Workflow, sha256
from replay.goldens.store import GoldenStore
from replay.pytest_plugin import golden_extension
from replay.scenarios.check import check_scenario, render_scenario
from replay.scenarios.names import pending_store
from tests.helpers import REPO, by_name

SCENARIO, ARTEFACT = "multi-turn", "stdout.expected.jsonl"


def _jsonl(records: list[Any]) -> bytes:
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records).encode()


def _note(golden: int | None, run: int, limit: str) -> Change:
    sizes = f"this run {run:,} bytes" if golden is None else f"golden {golden:,} bytes, this run {run:,}"
    return Change(f"too large to compare record by record ({sizes}; the limit is {limit}): compared line by line")


def _plan(i: int, status: str = "pending") -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {
        "sessionUpdate": "plan", "entries": [{"content": f"task {i}", "priority": "medium", "status": status}]}}}


def test_past_the_limit_a_changed_record_is_a_hunk_at_its_line_after_one_line_saying_so() -> None:
    old = [_plan(i) for i in range(6)]
    new = [*old[:3], _plan(3, "completed"), *old[4:]]
    rows = _jsonl(old).decode().splitlines()
    found = changes(by_name("stdout.expected.jsonl"), _jsonl(old), _jsonl(new), limit=100)
    assert found == [
        _note(len(_jsonl(old)), len(_jsonl(new)), "100 bytes"),
        Change("@@ -3,3 +3,3 @@", 4, (" " + rows[2], "-" + rows[3], "+" + rows[3].replace("pending", "completed"),
                                     " " + rows[4]))]
    # Under the limit, the same files get the semantic diff.
    assert changes(by_name("stdout.expected.jsonl"), _jsonl(old), _jsonl(new)) == [
        Change('event 4 plan.entries[0].status: "pending" → "completed"', 4)]


def test_the_line_diff_writes_the_hunks_a_unified_diff_with_one_line_of_context_writes() -> None:
    lines = "\n".join(f"line {i}" for i in range(1, 21)).encode()
    cases = [
        (b"row=a\nsuffix=+1\npanel=x", b"row=a\nsuffix=<absent>\npanel=x"),
        (lines, lines.replace(b"line 3\n", b"line three\n").replace(b"line 15\n", b"line 15\nline 15b\n")),
        (lines, lines.replace(b"line 2\n", b"").replace(b"line 6\n", b"line six\n")),  # two apart: one hunk
        (lines, lines.replace(b"line 2\n", b"").replace(b"line 7\n", b"line seven\n")),  # three apart: two
        (b"a\nb\nc\n", b"z\na\nb\nc\n"),
    ]
    for old, new in cases:
        assert changes(TEXT, old, new, limit=1)[1:] == semantic_changes(TEXT, old,
                                                                                        new)
    # A file's last line break ends its last line: no empty line after it (unified diff's text has one).
    assert changes(TEXT, b"a\nb\nc\n", b"a\nb\nc\nd\n", limit=1)[1:] == [
        Change("@@ -3 +3,2 @@", 4, (" c", "+d"))]


def test_a_line_without_its_line_break_says_so_and_the_trailing_newline_alone_is_one_line() -> None:
    assert changes(TEXT, b"a\nb", b"a\nc\n", limit=1)[1:] == [
        Change("@@ -1,2 +1,2 @@", 2, (" a", "-b", "\\ No newline at end of file", "+c"))]
    assert changes(TEXT, b"a\nb\nc\n", b"a\nb\nc", limit=1) == [
        _note(6, 5, "1 bytes"), Change("only the trailing newline differs", 3)]
    assert changes(TEXT, b"x", b"x\ny", limit=1)[1:] == [Change("@@ -1 +1,2 @@", 1, (
        "-x", "\\ No newline at end of file", "+x", "+y", "\\ No newline at end of file"))]


def test_the_line_diff_is_capped_with_full_too_and_counts_what_it_leaves_out() -> None:
    old = "".join(f"a{i}\n" for i in range(100)).encode()
    new = "".join(f"b{i}\n" for i in range(100)).encode()
    for full in (False, True):
        found = changes(TEXT, old, new, full, limit=10)
        # One hunk of 200 lines: its header and 39 of them are shown, 161 counted.
        assert found == [_note(390, 390, "10 bytes"), Change("@@ -1,100 +1,100 @@", 1,
                                                             tuple(f"-a{i}" for i in range(39))),
                         Change("… and 161 more differences")]
        assert len(change_lines(found[1:])) == MAX_LINES + 1


def test_a_long_line_is_shown_around_its_first_difference() -> None:
    # Cut at 200 characters, from 40 before the difference (never inside a character).
    old = b"x" * 150_000 + b"old" + b"y" * 150_000 + b"\n"
    wide = ("€" * 100_000 + "A" + "." * 1000 + "\n").encode()
    found = changes(TEXT, old + wide, old.replace(b"old", b"new") + wide.replace(b"A", b"B"), limit=1)
    assert found[1:] == [Change("@@ -1,2 +1,2 @@", 1, (
        "-…" + "x" * 40 + "old" + "y" * 157 + "…", "+…" + "x" * 40 + "new" + "y" * 157 + "…",
        "-…" + "€" * 14 + "A" + "." * 185 + "…", "+…" + "€" * 14 + "B" + "." * 185 + "…"))]


def test_a_new_file_and_content_of_unknown_kind_past_the_limit_are_lines_too() -> None:
    assert new_file_changes(b"x\ny\n", limit=1) == [_note(None, 4, "1 bytes"),
                                                   Change("@@ -0,0 +1,2 @@", 1, ("+x", "+y"))]
    assert new_file_changes(b"x\ny\n") == [Change("@@ -1 +1,3 @@", 1, ("+x", "+y", " "))]
    old, new = json.dumps({"a": 1, "b": [1, 2]}, indent=1).encode(), json.dumps({"a": 2, "b": [1, 2]}, indent=1)
    assert changes(JSON, old, new.encode(), limit=1)[1:] == [Change("@@ -1,3 +1,3 @@", 2, (
        " {", '- "a": 1,', '+ "a": 2,', '  "b": ['))]
    assert changes(JSON, old, new.encode()) == [Change("a: 1 → 2", 2)]
    assert changes(JSONL, b"same\n", b"same\n", limit=1) == []


_LINES = st.lists(st.sampled_from(["", "a", "b", "{}", '{"a":1}', "[1,2]", "x y"]), max_size=12)


def _text(rows: list[str], newline: bool) -> bytes:
    return ("\n".join(rows) + ("\n" if newline and rows else "")).encode()


@given(_LINES, st.booleans(), _LINES, st.booleans(), st.sampled_from([".jsonl", ".json", ".txt"]), st.booleans())
def test_under_the_limit_the_report_is_the_semantic_diffs(old: list[str], old_nl: bool, new: list[str],
                                                          new_nl: bool, kind: str, full: bool) -> None:
    a, b = _text(old, old_nl), _text(new, new_nl)
    name = f"x.expected{kind}"
    reference = semantic_changes(by_name(name), a, b, full)
    at_the_limit = max(len(a), len(b))
    assert changes(by_name(name), a, b, full, limit=at_the_limit) == reference
    assert changes(by_name(name), a, b, full) == reference
    assert stream_changes(by_name(name), io.BytesIO(a), io.BytesIO(b), full, limit=at_the_limit) == reference


def _first_line(a: bytes, b: bytes) -> int:
    """The golden line where ``b`` first differs from ``a``: the line holding the first
    byte that differs (the last line when only line breaks at the end differ)."""
    if a.rstrip(b"\n") == b.rstrip(b"\n"):
        return a.rstrip(b"\n").count(b"\n") + 1
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return a[:at].count(b"\n") + 1


@given(_LINES, st.booleans(), _LINES, st.booleans(), st.booleans())
def test_past_the_limit_the_report_is_never_empty_and_starts_at_the_first_line_that_differs(
        old: list[str], old_nl: bool, new: list[str], new_nl: bool, full: bool) -> None:
    a, b = _text(old, old_nl), _text(new, new_nl)
    limit = max(len(a), len(b)) - 1
    if limit < 0:
        return
    found = changes(JSONL, a, b, full, limit=limit)
    assert stream_changes(JSONL, io.BytesIO(a), io.BytesIO(b), full, limit=limit) == found
    if a == b:
        assert found == []
        return
    assert found[0] == _note(len(a), len(b), f"{limit:,} bytes")
    assert found[1].line == _first_line(a, b)
    assert len(change_lines(found[1:])) <= MAX_LINES + 1


def _large_golden(size: int) -> bytes:
    """About ``size`` bytes of the records of the multi-turn scenario's ACP golden, each
    with its text changed (a record without text gets a field)."""
    records = [json.loads(line) for line in (REPO / "goldens" / SCENARIO / ARTEFACT).read_bytes().splitlines()]
    out = bytearray()
    number = 0
    while len(out) < size:
        record = json.loads(json.dumps(records[number % len(records)]))
        content = record["params"]["update"].get("content")
        if isinstance(content, dict) and isinstance(content.get("text"), str):
            content["text"] += f" #{number}"
        else:
            record["copy"] = number
        out += json.dumps(record, separators=(",", ":")).encode() + b"\n"
        number += 1
    return bytes(out)


def _tree(root: Path, golden: bytes) -> Path:
    shutil.copytree(REPO / "scenarios" / SCENARIO, root / "scenarios" / SCENARIO)
    shutil.copytree(REPO / "goldens" / SCENARIO, root / "goldens" / SCENARIO)
    (root / "goldens" / SCENARIO / ARTEFACT).write_bytes(golden)
    return root


def test_check_of_a_golden_past_the_limit_says_it_compares_lines_and_cites_the_first(tmp_path: Path) -> None:
    golden = _large_golden(SEMANTIC_DIFF_BYTES + 1)
    root = _tree(tmp_path, golden)
    run = (REPO / "goldens" / SCENARIO / ARTEFACT).read_bytes()
    result = CliRunner().invoke(main, ["check", SCENARIO, "--scenarios", str(root / "scenarios"), "--goldens",
                                       str(root / "goldens")])
    assert result.exit_code == 1
    path = f"{root}/goldens/{SCENARIO}/{ARTEFACT}"
    first = golden.decode().splitlines()[0]
    assert len(first) <= 200  # shown whole
    old_lines, new_lines = golden.count(b"\n"), run.count(b"\n")
    lines = result.output.splitlines()
    start = lines.index(f"    {path}: differs")
    assert lines[start + 1: start + 4] == [
        f"      too large to compare record by record (golden {len(golden):,} bytes, this run {len(run):,}; the "
        "limit is 1 MiB): compared line by line",
        f"      {path}:1: @@ -1,{old_lines} +1,{new_lines} @@",
        f"        -{first}"]


def _peak(work: Any) -> tuple[Any, int]:
    """What ``work()`` returns, and the most memory Python allocated while it ran."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        result = work()
        return result, tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


def test_check_holds_neither_the_large_golden_nor_a_parse_of_it(tmp_path: Path) -> None:
    golden = _large_golden(3 * SEMANTIC_DIFF_BYTES)
    root = _tree(tmp_path, golden)
    run = render_scenario(root / "scenarios", None, SCENARIO)
    result, peak = _peak(lambda: check_scenario(root / "scenarios", GoldenStore(root / "goldens"), SCENARIO,
                                                rendered=run))
    differs = [f for f in result.files if f.status == "differs"]
    assert [f.name for f in differs] == [ARTEFACT] and differs[0].changes[0].text.startswith("too large")
    assert peak < len(golden) // 4, peak  # the semantic diff held ~15x the golden; reading it whole, 1x


def test_review_of_a_large_pending_golden_reads_it_as_it_compares(tmp_path: Path) -> None:
    data = _large_golden(3 * SEMANTIC_DIFF_BYTES)
    root = _tree(tmp_path, (REPO / "goldens" / SCENARIO / ARTEFACT).read_bytes())
    pending = pending_store(root / "pending", root / "scenarios")
    pending.files.write(SCENARIO, ARTEFACT, data)
    golden = (root / "goldens" / SCENARIO / ARTEFACT).read_bytes()
    entry = Entry.model_validate({"scenario": SCENARIO, "artefact": ARTEFACT, "golden_sha256": sha256(golden),
                                  "pending_sha256": sha256(data), "replay_version": "test"},
                                 context={"names": pending.names})
    workflow = Workflow(pending, GoldenStore(root / "goldens"))
    view, peak = _peak(lambda: workflow.view(entry))
    assert view.status == "differs"
    old_lines, new_lines = golden.count(b"\n"), data.count(b"\n")
    assert view.changes[:2] == (_note(len(golden), len(data), "1 MiB"),
                                Change(f"@@ -1,{old_lines} +1,{new_lines} @@", 1, view.changes[1].body))
    assert peak < len(data) // 4, peak


def test_the_pytest_plugins_diff_of_a_large_golden_is_the_line_diff(tmp_path: Path) -> None:
    old = b"".join(b"%d\n" % i for i in range(200_000))
    assert len(old) > SEMANTIC_DIFF_BYTES
    new = old.replace(b"0\n", b"zero\n", 1)
    lines = list(golden_extension(tmp_path)().diff_lines(new, old))
    assert lines == ["the golden: differs from this run:",
                     f"too large to compare record by record (golden {len(old):,} bytes, this run {len(new):,}; "
                     "the limit is 1 MiB): compared line by line",
                     "the golden:1: @@ -1,2 +1,2 @@", "  -0", "  +zero", "   1"]


_NEWLINES = 32 << 20
"""32 MiB of newlines: 33 million lines, which a line diff formatted one by one for
minutes (about 2 s a MiB) though it prints 40."""


_NOT_COMPARED = re.compile(r"… and more differences: the report is full, and nothing after golden line ([0-9,]+) "
                           r"was compared \(([0-9,]+) more golden lines, ([0-9,]+) more lines of this run\)")


def _not_compared(lines: list[str]) -> tuple[int, int, int]:
    """(the last golden line compared, the golden's lines left, the run's), from the
    line that ends a report that stopped comparing."""
    found = [m for line in lines if (m := _NOT_COMPARED.fullmatch(line.strip()))]
    assert len(found) == 1, lines[-5:]
    line, golden, run = (int(g.replace(",", "")) for g in found[0].groups())
    return line, golden, run


def test_a_full_report_stops_comparing_and_counts_the_lines_left(tmp_path: Path) -> None:
    """``replay diff`` of a 1 KB zstd file holding 32 MiB of newlines: the report is full
    after 40 lines; some lines more are aligned to count what is left out, and the rest
    is only counted, a block at a time (with --normalize too)."""
    a = tmp_path / "newlines.jsonl.zstd"
    a.write_bytes(zstandard.ZstdCompressor().compress(b"\n" * _NEWLINES))
    assert a.stat().st_size < 2048
    b = tmp_path / "one.jsonl"
    b.write_bytes(b'{"a":1}\n')
    for normalize in ([], ["--normalize"]):
        result = CliRunner().invoke(main, ["diff", "--no-color", *normalize, str(a), str(b)])
        assert result.exit_code == 1, result.output
        lines = result.output.splitlines()
        assert lines[-1] == f"{a} and {b} differ"
        line, golden, run = _not_compared(lines)
        assert line + golden == _NEWLINES and run == 0 and line < 2 * COUNT_LINES
        assert len(lines) == MAX_LINES + 3  # the note, the hunk (its header, 39 rows), the end, the verdict


def test_check_of_a_golden_of_newlines_stops_once_its_report_is_full(tmp_path: Path) -> None:
    root = _tree(tmp_path, b"\n" * _NEWLINES)
    result = CliRunner().invoke(main, ["check", SCENARIO, "--scenarios", str(root / "scenarios"), "--goldens",
                                       str(root / "goldens"), "--no-color"])
    assert result.exit_code == 1
    line, golden, left = _not_compared(result.output.splitlines())
    assert line + golden == _NEWLINES and left == 0 and line < 2 * COUNT_LINES
