"""One reader of harness scenario folders: ``render``, ``conformance`` and ``new
--from-log`` accept and refuse the same folders, read through ``replay.fs`` (no link
followed, regular files only, bounded), and a golden is read as it streams."""

from __future__ import annotations

import json
import os
import shutil
import tracemalloc
from pathlib import Path

import pytest
import zstandard
from click.testing import CliRunner

from replay.cli import main
from replay.goldens.streams import align_lines
from replay.log.harness import golden_update_lines, load_harness_scenario
from replay.scenarios.conformance import compare_mode, run_conformance
from tests.helpers import corpus_file

SCENARIO = "acp-2026-07-23/bash-spill"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A private copy of a corpus harness scenario folder, under ``tmp_path/root``."""
    target = tmp_path / "root" / "bash-spill"
    shutil.copytree(corpus_file(SCENARIO), target)
    return target


def _cli(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


def test_a_folder_holding_only_a_zstd_log_is_read_by_render_conformance_and_import(folder: Path,
                                                                                   tmp_path: Path) -> None:
    code, plain = _cli("render", "acp", folder)
    assert code == 0, plain
    log = folder / "session.jsonl"
    header, *events = log.read_bytes().splitlines(keepends=True)
    frames = zstandard.ZstdCompressor(write_checksum=True)  # the harness's layout: the header alone first
    (folder / "session.jsonl.zstd").write_bytes(frames.compress(header) + frames.compress(b"".join(events)))
    log.unlink()
    assert _cli("render", "acp", folder) == (0, plain)
    report = run_conformance([folder.parent])
    assert [(s.name, s.status) for s in report.scenarios] == [("bash-spill", "exact")]
    os.chdir(tmp_path)
    code, out = _cli("new", "imported", "--from-log", folder)
    assert code == 0, out


def test_a_primary_log_that_is_a_fifo_is_refused_alike(folder: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    log = folder / "session.jsonl"
    log.unlink()
    os.mkfifo(log)
    fifo = f"{log}: a FIFO (named pipe)"
    refused = f"{fifo}; replay reads only the regular files inside the folder: replace it with the file"
    code, out = _cli("render", "acp", folder)
    assert code == 2 and refused in out, out
    code, out = _cli("conformance", folder.parent)
    assert code == 2 and refused in out, out
    monkeypatch.chdir(tmp_path)
    code, out = _cli("new", "imported", "--from-log", folder)
    assert code == 2 and f"{fifo}; an import copies only the regular files inside the folder" in out, out


@pytest.mark.parametrize("what", ["fifo", "/dev/zero"])
def test_an_input_json_that_is_not_a_regular_file_is_left_out_unread(folder: Path, what: str) -> None:
    steps = folder / "input.json"
    steps.unlink()
    if what == "fifo":
        os.mkfifo(steps)  # read, it would hang: nobody writes it
    else:
        steps.symlink_to(what)  # read, it would never end
    scenario = load_harness_scenario(folder)
    kind = "a FIFO (named pipe)" if what == "fifo" else "a symbolic link"
    assert scenario.input is None
    assert scenario.notes == (f"input.json: not read ({kind}; replay reads only the regular files inside the "
                              "folder)",)
    code, out = _cli("render", "acp", folder)
    assert code == 0, out


def test_an_input_json_past_its_cap_is_left_out_as_the_importer_leaves_it(folder: Path) -> None:
    steps = folder / "input.json"
    steps.write_bytes(b" " * ((16 << 20) + 1))
    scenario = load_harness_scenario(folder)
    assert scenario.input is None
    assert scenario.notes == (f"input.json: not read ({steps}: the steps file is larger than 16777216 bytes; "
                              "refused)",)
    code, out = _cli("render", "acp", folder)
    assert code == 0, out


def test_a_golden_line_nested_too_deep_is_refused_at_its_line(folder: Path) -> None:
    golden = folder / "stdout.expected.jsonl"
    lines = golden.read_bytes().splitlines(keepends=True)
    deep = b"[" * 20_000 + b"]" * 20_000 + b"\n"
    golden.write_bytes(b"".join([*lines[:2], deep, *lines[2:]]))
    code, out = _cli("conformance", folder.parent)
    assert code == 2, out
    assert f"{golden}:3: a line nested too deep to parse; refused" in out


def test_a_large_golden_is_read_as_it_streams(folder: Path) -> None:
    """The golden is never held whole: memory is that of a block and of the lines kept."""
    golden = folder / "stdout.expected.jsonl"
    response = json.dumps({"jsonrpc": "2.0", "id": 7, "result": {}}).encode() + b"\n"
    kept = golden_update_lines(load_harness_scenario(folder))
    with golden.open("ab") as out:
        for _ in range(16):
            out.write(response * (1 << 14))  # 16 × 16 Ki responses, about 9.5 MB: none is an update
    scenario = load_harness_scenario(folder)
    tracemalloc.start()
    try:
        assert golden_update_lines(scenario) == kept
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert golden.stat().st_size > 9 << 20
    assert peak < 6 << 20  # read whole, decoded and split, it was over 30 MB


def test_an_alignment_of_many_equal_lines_runs_under_its_budget() -> None:
    """20,000 equal lines would cost difflib 20,000² probes: past the step budget the
    alignment is linear, and says so."""
    expected = ['{"a":1}'] * 20_000 + ['{"a":2}']
    got = ['{"a":1}'] * 19_999 + ['{"a":3}', '{"a":2}']
    aligned = align_lines(expected, got)
    assert aligned.approximate
    assert (aligned.matching, aligned.missing, aligned.extra, aligned.changed) == (20_000, 0, 0, 1)
    assert aligned.first is not None and aligned.first.summary == "a: expected 1, got 3"


def test_conformance_says_when_its_alignment_was_approximate() -> None:
    expected = ['{"a":1}'] * 20_000 + ['{"a":2}']
    got = ['{"a":1}'] * 19_999 + ['{"a":3}', '{"a":2}']
    result = compare_mode("live", "stdout.expected.jsonl", expected, got)
    assert result.approximate
    assert result.what_differs == ("20000/20001 golden lines rendered in order (too costly to align exactly: "
                                   "aligned linearly); 1 changed")
