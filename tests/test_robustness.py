"""Inputs a second review found crashing the CLI: each now gives a message and an
exit status, never a traceback (run in this process, through click's runner)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import REPO, TODO_WRITE, corpus_root, dump, index_of, records, replay_here, replay_in_a_process


def _replay(*args: str) -> subprocess.CompletedProcess[str]:
    run = replay_here(*args, env={"NO_COLOR": "1"})
    assert run.traceback is None, run.traceback
    return subprocess.CompletedProcess(args, run.code, run.stdout.decode(), run.stderr.decode())


@pytest.mark.parametrize("depth", [900, 1000, 1020])
def test_deeply_nested_values_render(tmp_path: Path, depth: int) -> None:
    recs = records(TODO_WRITE)
    recs[index_of(recs, "tool/call")]["data"]["arguments"] = "NESTED"  # then a value, not a string
    nested = "[" * depth + '{"todos":[]}' + "]" * depth
    path = tmp_path / "session.jsonl"
    path.write_bytes(dump(recs).replace(b'"NESTED"', nested.encode()))
    commands = [["render", "acp"], ["render", "acp", "--normalize"], ["render", "acp", "--load"],
                ["render", "stdio"], ["render", "web"], ["render", "web", "--html"], ["plan"], ["view"]]
    runs = replay_in_a_process(*([*args, str(path)] for args in commands), env={"NO_COLOR": "1"})
    for args, run in zip(commands, runs, strict=True):
        assert run.traceback is None, (args, run.traceback)
        assert run.code == 0, (args, run.stderr)
    page = Path(runs[-1].stdout.decode().strip())
    assert page.read_text(encoding="utf-8").startswith("<!doctype html>")
    page.unlink()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "scenarios" / "recorded-parallel-plan", tmp_path / "scenarios" / "recorded-parallel-plan")
    shutil.copytree(REPO / "goldens" / "recorded-parallel-plan", tmp_path / "goldens" / "recorded-parallel-plan")
    return tmp_path


def _check(tree: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return _replay("check", "--scenarios", str(tree / "scenarios"), "--goldens", str(tree / "goldens"), *extra)


def _recording(tree: Path) -> Path:
    return tree / "scenarios" / "recorded-parallel-plan" / "session.jsonl"


def _break_block_end(tree: Path, change: str) -> None:
    path = _recording(tree)
    recs = [json.loads(line) for line in path.read_bytes().split(b"\n") if line]
    end = next(r for r in recs if r.get("type") == "assistant/chunk" and r["data"]["chunk"]["type"] == "block-end")
    if change == "text is a number":
        end["data"]["chunk"]["block"] = {"type": "text", "text": 42}
    elif change == "index is a string":
        end["data"]["chunk"]["index"] = "0"
    elif change == "message is a string":
        message = next(r for r in recs if r.get("type") == "assistant/message")
        message["data"]["message"] = "hello"
    path.write_bytes(dump(recs))


@pytest.mark.parametrize("change", ["text is a number", "index is a string", "message is a string"])
def test_a_broken_recording_is_a_scenario_error(tree: Path, change: str) -> None:
    _break_block_end(tree, change)
    proc = _check(tree)
    if change == "message is a string":
        # Not model output: the recording still plays, and the next message names the provider.
        assert proc.returncode == 0
    else:
        assert proc.returncode == 1 and "✗ recorded-parallel-plan: did not run\n" in proc.stdout
        assert "cannot play the model" in proc.stdout


def test_a_recorded_call_the_run_never_asks_for_fails(tree: Path) -> None:
    path = _recording(tree)
    recs = [json.loads(line) for line in path.read_bytes().split(b"\n") if line]
    last = recs[-1]
    recs.append({"type": "assistant/chunk", "seq": last["seq"] + 1, "time": 0,
                 "data": {"turn": 1, "step": 9, "chunk": {"type": "finish", "reason": {"kind": "stop"}}}})
    path.write_bytes(dump(recs))
    proc = _check(tree)
    assert proc.returncode == 1
    assert "has 1 call the run never asked for" in proc.stdout


def test_a_scenario_json_that_is_not_utf8(tree: Path) -> None:
    (tree / "scenarios" / "recorded-parallel-plan" / "scenario.json").write_bytes(b'{"description": "\xff\xfe"}')
    proc = _check(tree)
    assert proc.returncode == 1 and "invalid scenario" in proc.stdout


def test_a_golden_that_is_a_folder(tree: Path) -> None:
    golden = tree / "goldens" / "recorded-parallel-plan" / "web.expected.txt"
    golden.unlink()
    golden.mkdir()
    proc = _check(tree)
    assert proc.returncode == 1 and "cannot read the golden" in proc.stdout
    proc = _replay("refresh", "--scenarios", str(tree / "scenarios"), "--goldens", str(tree / "goldens"))
    assert proc.returncode == 1 and "cannot read the golden" in proc.stdout


def test_unwritable_outputs_are_exit_1(tree: Path) -> None:
    target = tree / "no" / "such" / "dir" / "r.xml"
    proc = _check(tree, "--junit", str(target))
    assert proc.returncode == 1 and f"{target}: cannot write (No such file or directory)" in proc.stderr
    target = tree / "no" / "such" / "page.txt"
    proc = _replay("render", "web", "-o", str(target), str(_recording(tree)))
    assert proc.returncode == 1 and f"{target}: cannot write (No such file or directory)" in proc.stderr


def test_a_harness_folder_with_garbage_input_and_golden(tmp_path: Path) -> None:
    source = corpus_root() / "acp-2026-07-23" / "todo-plan"
    if not source.exists():
        pytest.skip(f"corpus folder {source} is absent (set REPLAY_CORPUS)")
    folder = tmp_path / "todo-plan"
    shutil.copytree(source, folder)
    (folder / "input.json").write_bytes(b"{not json")
    golden = next(p for p in (folder / "stdout.expected.jsonl", folder / "stdout.golden.jsonl") if p.exists())
    golden.write_bytes(golden.read_bytes() + b'{"method":"session/update","params":{"update":{"sessionUpdate":[1]}}}\n'
                       + b"\xff\xfe\n")
    assert _replay("render", "acp", str(folder)).returncode == 0
    proc = _replay("conformance", str(tmp_path))
    assert proc.returncode == 1 and "differs" in proc.stdout


@pytest.mark.parametrize("text", [b"{not json", b"[]", b"null"])
def test_a_scenario_json_that_is_not_a_scenario(tree: Path, text: bytes) -> None:
    (tree / "scenarios" / "recorded-parallel-plan" / "scenario.json").write_bytes(text)
    proc = _check(tree)
    assert proc.returncode == 1 and "invalid scenario" in proc.stdout
