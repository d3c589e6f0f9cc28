"""Memory stays flat in the size of the log: every reading command streams its log and
its output (a page reads the log twice rather than hold it), and the HTML page cuts
long tool outputs, showing their full size.

Memory is the peak of Python allocations (``tracemalloc``) during one in-process run:
a log four times longer (the same turns, each answer streamed in many deltas, so the
page is the same) must cost less than half of what it adds in bytes: holding the log,
even as its raw bytes, would cost more than all of it. The page itself (its plan
timeline, its tool rows) is held while written, so it may grow with its own size."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from replay.cli import main
from tests.helpers import TODO_WRITE, dump, index_of, records, todo_turns

COMMANDS = {
    # The audit cache off: a log served from the cache is not read at all, so the small log's
    # second run would measure no reading (or a reading, by whether its mtime looked racy).
    "audit": ["audit", "--format", "json", "--no-cache"],
    "render acp": ["render", "acp", "-o", "{out}"],
    "render acp --normalize": ["render", "acp", "--normalize", "-o", "{out}"],
    "render stdio": ["render", "stdio", "-o", "{out}"],
    "render web": ["render", "web", "-o", "{out}"],
    "render web --html": ["render", "web", "--html", "-o", "{out}"],
    "plan": ["plan"],
    "view": ["view", "--no-cache"],
}


def _peak(args: list[str], log: Path, out: Path, *, traced: bool = True) -> int:
    runner = CliRunner()
    if not traced:  # a run that only imports what the command needs: no peak to take
        result = runner.invoke(main, [*(a.replace("{out}", str(out)) for a in args), str(log)])
        assert result.exit_code in (0, 1), (args, result.output)
        return 0
    tracemalloc.start()
    try:
        result = runner.invoke(main, [*(a.replace("{out}", str(out)) for a in args), str(log)])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.exception is None or isinstance(result.exception, SystemExit), (args, result.exception)
    assert result.exit_code in (0, 1), (args, result.output)
    return peak


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("logs")
    small, large = folder / "small.jsonl", folder / "large.jsonl"
    small.write_bytes(dump(todo_turns(100)))
    large.write_bytes(dump(todo_turns(100, deltas=24)))  # the same page, four times the log
    assert 3.5 < large.stat().st_size / small.stat().st_size < 4.5
    return small, large


@pytest.mark.parametrize("name", list(COMMANDS))
def test_memory_is_flat_in_the_size_of_the_log(name: str, logs: tuple[Path, Path], tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    import replay.log.bounded

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    # Reading holds one block's events at a time; small blocks let small logs show it.
    monkeypatch.setattr(replay.log.bounded, "BLOCK", 1 << 15)
    small, large = logs
    _peak(COMMANDS[name], small, tmp_path / "a.out", traced=False)  # first: what it imports is not the log's
    a = _peak(COMMANDS[name], small, tmp_path / "a.out")
    b = _peak(COMMANDS[name], large, tmp_path / "b.out")
    added = large.stat().st_size - small.stat().st_size
    assert b - a < added / 2, f"{name}: {a / 1e6:.2f} MB → {b / 1e6:.2f} MB for {added / 1e6:.2f} MB more log"


def test_a_long_tool_output_is_cut_on_the_page_with_its_size(tmp_path: Path) -> None:
    recs = records(TODO_WRITE)
    result = recs[index_of(recs, "tool/result")]
    block = result["data"]["message"]["content"][0]["content"][0]
    block["text"] = "0123456789abcdef" * 40_000  # 640,000 characters
    path = tmp_path / "session.jsonl"
    path.write_bytes(dump(recs))
    out = tmp_path / "page.html"
    run = CliRunner().invoke(main, ["render", "web", "--html", "-o", str(out), str(path)])
    assert run.exit_code == 0, run.output
    page = out.read_text(encoding="utf-8")
    assert "0123456789abcdef" * 4096 + "</pre>" in page  # exactly the first 65,536 characters
    assert "0123456789abcdef" * 4097 not in page
    assert '<p class="clipped">… clipped: the first 65536 of 640000 characters are shown</p>' in page
    zh = tmp_path / "zh.html"
    run = CliRunner().invoke(main, ["render", "web", "--html", "--locale", "zh", "-o", str(zh), str(path)])
    assert "……已截断：显示前 65536 个字符，共 640000 个" in zh.read_text(encoding="utf-8")


@pytest.mark.parametrize("pad", [0, 1, 2])
def test_a_page_of_characters_cut_between_its_pieces_is_the_same_page_every_way(pad: int, tmp_path: Path) -> None:
    """A page is written in pieces of bytes (64 KiB at a time from its packed draft),
    which cut a character of two or three bytes wherever it falls: ``-o FILE``, standard
    output and ``html_page`` give the same page, and none is replaced."""
    from replay.render.web.session_page import html_page
    from tests.render.web.builders import to_events

    recs = records(TODO_WRITE)
    result = recs[index_of(recs, "tool/result")]
    block = result["data"]["message"]["content"][0]["content"][0]
    block["text"] = "x" * pad + "é中" * 20_000  # 2- and 3-byte characters across every piece's end
    path = tmp_path / "session.jsonl"
    path.write_bytes(dump(recs))
    out = tmp_path / "page.html"
    run = CliRunner().invoke(main, ["render", "web", "--html", "-o", str(out), str(path)])
    assert run.exit_code == 0, run.output
    written = out.read_bytes().decode("utf-8")  # strict: a cut character fails here
    assert "\ufffd" not in written
    assert "x" * pad + "é中" * 20_000 in written
    printed = CliRunner().invoke(main, ["render", "web", "--html", str(path)])
    assert printed.exit_code == 0, printed.output
    assert printed.output == written
    page = html_page(to_events(recs[1:]), header=recs[0])  # the page drafted from events alone
    assert "\ufffd" not in page
    assert "x" * pad + "é中" * 20_000 in page

PER_EVENT = 30
"""Bytes of memory a reading may keep per event of a log of tool calls: a few in arrays
(the surface's nodes, each tool result's print and message id); a dict entry and its
int objects, as were kept per surface event and tool result before, cost about 100."""


@pytest.fixture(scope="module")
def call_logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    from bench.bounds import calls_lines

    folder = tmp_path_factory.mktemp("calls")
    small, large = folder / "small.jsonl", folder / "large.jsonl"
    recs = records(TODO_WRITE)
    small.write_bytes(b"".join(calls_lines(recs, 2_000)))
    large.write_bytes(b"".join(calls_lines(recs, 8_000)))
    return small, large


CALL_COMMANDS = {
    "audit": COMMANDS["audit"],
    "render acp": COMMANDS["render acp"],
    "view -o DIR/": ["view", "--no-cache", "-o", "{out}/"],
    "view -o page.html": ["view", "--no-cache", "-o", "{out}"],
}


@pytest.mark.parametrize("name", list(CALL_COMMANDS))
def test_memory_per_tool_call_is_a_few_bytes(name: str, call_logs: tuple[Path, Path], tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A log four times longer, more than half of it tool calls and results: what the
    longer one costs more, per event it adds, is bounded (a long log of calls once cost
    its audit about 105 bytes an event, its ACP rendering 40, its page (a site's or one
    alone) 350; now 19, 6, 24 and 12: the page's draft spills its HTML, its places and
    its steps to a temporary file as it goes)."""
    import tempfile

    import replay.log.bounded
    import replay.project.spill
    import replay.render.web.page

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(replay.log.bounded, "BLOCK", 1 << 15)
    # What a short draft holds in memory (``HELD_BYTES``) and the short texts the escaping
    # remembers (``_REMEMBER``) are constants, not a cost per event.
    monkeypatch.setattr(replay.project.spill, "HELD_BYTES", 0)
    monkeypatch.setattr(replay.render.web.page, "_REMEMBER", 0)
    small, large = call_logs
    command = CALL_COMMANDS[name]
    _peak(command, small, tmp_path / "first.out", traced=False)
    a = _peak(command, small, tmp_path / "a.out")
    b = _peak(command, large, tmp_path / "b.out")
    added = 6_000
    assert (b - a) / added < PER_EVENT, f"{name}: {a / 1e6:.2f} MB → {b / 1e6:.2f} MB for {added:,} more events"
