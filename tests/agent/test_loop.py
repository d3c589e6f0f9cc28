"""The keyless loop: deterministic logs that audit clean, recorded and scripted models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replay.agent.model import ModelError, RecordedModel
from replay.agent.writer import pack_chunks
from replay.jsjson import dumps
from replay.log.reader import iter_events, read_log
from replay.log.source import file_source
from replay.scenarios.scenario import ScenarioError, run_scenario
from replay.todo.plan import standing_plan
from tests.helpers import ACP, audit_bytes, bytes_source, corpus_file, corpus_root, summary


def _scenario(tmp_path: Path, body: dict[str, Any], name: str = "s") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "scenario.json").write_text(json.dumps(body))
    return folder


def _events(data: bytes) -> list:  # type: ignore[type-arg]
    return list(iter_events(read_log(bytes_source(data)).items()))


TODOS = [{"content": "audit the logs", "status": "in_progress"},
         {"content": "build the docs", "status": "in_progress"}]


def test_a_scripted_parallel_plan(tmp_path: Path) -> None:
    folder = _scenario(tmp_path, {
        "description": "parallel", "prompts": ["go"], "tools": {"todo_write": {"allowParallelInProgress": True}},
        "model": {"script": [{"toolCalls": [{"name": "todo_write", "arguments": {"todos": TODOS}}]},
                             {"text": "Both run."}]}})
    run = run_scenario(folder)
    data = run.logs[0].to_jsonl()
    assert summary(audit_bytes(data)) == []
    events = _events(data)
    assert [e.type for e in events if not e.type.startswith("assistant/chunk")] == [
        "turn/start", "step/start", "user/message", "request/header", "assistant/message", "tool/call",
        "todo/write", "tool/result", "step/end", "step/start", "assistant/message", "step/end", "turn/end"]
    assert standing_plan(events) == TODOS
    assert run_scenario(folder).logs[0].to_jsonl() == data  # deterministic


def test_the_single_policy_rejects_the_same_call(tmp_path: Path) -> None:
    folder = _scenario(tmp_path, {
        "description": "single", "prompts": ["go"], "tools": {"todo_write": {"allowParallelInProgress": False}},
        "model": {"script": [{"toolCalls": [{"name": "todo_write", "arguments": {"todos": TODOS}}]},
                             {"text": "Rejected."}]}})
    events = _events(run_scenario(folder).logs[0].to_jsonl())
    assert "todo/write" not in [e.type for e in events]
    result = next(e for e in events if e.type == "tool/result").data["message"]["content"][0]
    assert (result["isError"], result["content"][0]["text"]) == (
        True, "Error: invalid todos: at most one task may be in_progress (got 2)")


def test_a_subagent_child_with_its_own_tools_and_plan(tmp_path: Path) -> None:
    folder = _scenario(tmp_path, {
        "description": "child", "prompts": ["delegate"],
        "tools": {"todo_write": {"allowParallelInProgress": True}, "subagent": True},
        "model": {"script": [{"toolCalls": [{"name": "subagent", "arguments": {"prompt": "build it"}}]},
                             {"text": "Done."}]},
        "children": [{"tools": {"todo_write": {"allowParallelInProgress": False}}, "model": {"script": [
            {"toolCalls": [{"name": "todo_write",
                            "arguments": {"todos": [{"content": "b", "status": "in_progress"}]}}]},
            {"text": "Built."}]}}]})
    parent, child = run_scenario(folder).logs
    assert child.header["parentSession"] == parent.id and child.header["delegationDepth"] == 1
    for log in (parent, child):
        assert summary(audit_bytes(log.to_jsonl())) == []
    assert standing_plan(_events(child.to_jsonl())) == [{"content": "b", "status": "in_progress"}]
    assert standing_plan(_events(parent.to_jsonl())) is None
    result = next(e for e in _events(parent.to_jsonl()) if e.type == "tool/result")
    assert result.data["message"]["content"][0]["content"] == [{"type": "text", "text": "Built."}]
    header = next(e for e in _events(child.to_jsonl()) if e.type == "request/header")
    assert [t["name"] for t in header.data["header"]["tools"]] == ["todo_write"]


def test_an_error_turn(tmp_path: Path) -> None:
    folder = _scenario(tmp_path, {
        "description": "error", "prompts": ["go", "again"], "tools": {},
        "model": {"script": [{"text": "partial",
                              "error": {"message": "provider down (HTTP 503)", "code": "UNAVAILABLE"}},
                             {"text": "Recovered."}]}})
    data = run_scenario(folder).logs[0].to_jsonl()
    assert summary(audit_bytes(data)) == []
    ends = [e.data["reason"] for e in _events(data) if e.type == "turn/end"]
    assert ends == [{"kind": "error", "error": {"message": "provider down (HTTP 503)", "code": "UNAVAILABLE"}},
                    {"kind": "completed"}]


def test_an_exhausted_script_names_the_scenario_turn_and_step(tmp_path: Path) -> None:
    plan = {"name": "todo_write", "arguments": {"todos": [{"content": "x", "status": "in_progress"}]}}
    folder = _scenario(tmp_path, {"description": "short", "prompts": ["a", "b"],
                                  "tools": {"todo_write": {"allowParallelInProgress": True}},
                                  "model": {"script": [{"text": "one"}, {"toolCalls": [plan]},
                                                       {"toolCalls": [plan]}]}}, name="x")
    with pytest.raises(ScenarioError) as exc:
        run_scenario(folder)
    assert str(exc.value) == (f"{folder}/scenario.json: turn 2, step 3: the script has no step here (it holds 3, "
                              "all used); a turn ends at a step with text and no tool calls")


def test_an_exhausted_child_script_names_the_child(tmp_path: Path) -> None:
    folder = _scenario(tmp_path, {
        "description": "child", "prompts": ["delegate"], "tools": {"subagent": True},
        "model": {"script": [{"toolCalls": [{"name": "subagent", "arguments": {"prompt": "go"}}]}, {"text": "ok"}]},
        "children": [{"model": {"script": [{"toolCalls": [{"name": "nope"}]}]}}]})
    with pytest.raises(ScenarioError, match=r"scenario\.json: child 1, turn 1, step 2: the script has no step here"):
        run_scenario(folder)


def test_invalid_scenarios_say_what_is_wrong(tmp_path: Path) -> None:
    folder = _scenario(tmp_path, {"description": "bad", "prompts": [3], "tools": {"todo_write": {}},
                                  "model": {"script": [{"toolCalls": [{"nmae": "x"}]}]}, "colour": "red"})
    with pytest.raises(ScenarioError) as exc:
        run_scenario(folder)
    assert str(exc.value) == (
        f"{folder}/scenario.json: invalid scenario: prompts[0]: Input should be a valid string; "
        "tools.todo_write.allowParallelInProgress: Field required; model.script[0].toolCalls[0].nmae: unknown "
        'field; did you mean "name"?; colour: unknown field; see `replay schema scenario` for the fields')


@pytest.mark.parametrize(("model", "problem"), [
    ({}, 'model: a model is either "script": [...] or "recorded": true'),
    ({"script": [], "recorded": True}, 'model: a model is either "script": [...] or "recorded": true'),
    ({"script": [], "log": "x.jsonl"}, "model: log, override and title belong to a recorded model"),
    ({"recorded": True, "log": "../other/session.jsonl"},
     "model: '../other/session.jsonl' must be a path inside the scenario folder (relative, no '..')"),
])
def test_a_model_is_a_script_or_a_recording(tmp_path: Path, model: dict[str, Any], problem: str) -> None:
    folder = _scenario(tmp_path, {"description": "m", "prompts": ["a"], "tools": {}, "model": model})
    with pytest.raises(ScenarioError) as exc:
        run_scenario(folder)
    assert str(exc.value) == f"{folder}/scenario.json: invalid scenario: {problem}"


@pytest.mark.parametrize("name", ["todo-write", "multi-turn", "parallel-tool-calls", "subagent-fork-in-process"])
def test_corpus_logs_play_as_recorded_models(name: str) -> None:
    path = corpus_file(f"{ACP}/{name}/session.jsonl")
    log = read_log(file_source(path))
    events = list(iter_events(log.items()))
    model = RecordedModel.from_events(events)
    chunks = [e.data["chunk"] for e in events if e.type == "assistant/chunk"]
    finishes = sum(1 for c in chunks if c["type"] == "finish")
    assert finishes > 0 and len(model.calls) == finishes
    assert [c for call in model.calls for c in call.chunks] == chunks  # every chunk, in order, once
    assert all(call.chunks[-1]["type"] == "finish" and call.failure is None and not call.hang
               for call in model.calls)


def test_recorded_todo_write_replayed_keylessly_under_both_policies(tmp_path: Path) -> None:
    recording = corpus_file(f"{ACP}/todo-write/session.jsonl").read_bytes()
    for parallel, expect_plan in ((True, True), (False, False)):
        folder = tmp_path / f"p{parallel}"
        folder.mkdir()
        (folder / "session.jsonl").write_bytes(recording)
        (folder / "scenario.json").write_text(json.dumps({
            "description": "recorded", "prompts": ["Use the todo_write tool"],
            "tools": {"todo_write": {"allowParallelInProgress": parallel}}, "model": {"recorded": True}}))
        data = run_scenario(folder).logs[0].to_jsonl()
        assert summary(audit_bytes(data)) == []
        plan = standing_plan(_events(data))
        assert (plan is not None) is expect_plan


def test_a_truncated_recording_fails_loudly() -> None:
    events = _events(corpus_file(f"{ACP}/todo-write/session.jsonl").read_bytes())
    cut = [e for e in events if not (e.type == "assistant/chunk" and e.data["chunk"]["type"] == "finish"
                                     and e.data["step"] == 1)]
    with pytest.raises(ModelError, match="without a finish chunk"):
        RecordedModel.from_events(cut)


def test_packing_is_canonical_on_every_corpus_log() -> None:
    root = corpus_root() / ACP
    if not root.exists():
        pytest.skip(f"corpus folder {root} is absent (set REPLAY_CORPUS)")
    for path in sorted(root.glob("*/session*.jsonl")):
        log = read_log(file_source(path))
        assert log.header is not None
        records = [e.record for e in iter_events(log.items())]
        packed = b"".join((dumps(r) + "\n").encode() for r in [log.header.record, *pack_chunks(records)])
        assert packed == path.read_bytes(), path


todo_items = st.lists(st.fixed_dictionaries({
    "content": st.text(max_size=12), "status": st.sampled_from(["pending", "in_progress", "completed", "x"])}),
    max_size=4)
tool_call = st.fixed_dictionaries({
    "name": st.sampled_from(["todo_write", "nope"]),
    "arguments": st.one_of(st.fixed_dictionaries({"todos": todo_items}), st.text(max_size=20))})
step = st.fixed_dictionaries({}, optional={
    "reasoning": st.text(min_size=1, max_size=30), "text": st.text(min_size=1, max_size=30),
    "toolCalls": st.lists(tool_call, max_size=2)})


@given(steps=st.lists(step, min_size=1, max_size=5), parallel=st.booleans())
def test_every_log_the_loop_writes_audits_clean(steps: list[dict[str, Any]], parallel: bool) -> None:
    import tempfile

    script = [s for s in steps if s.get("toolCalls")] + [{"text": "end"}]
    with tempfile.TemporaryDirectory() as tmp:
        folder = _scenario(Path(tmp), {"description": "p", "prompts": ["go"],
                                       "tools": {"todo_write": {"allowParallelInProgress": parallel}},
                                       "model": {"script": script}})
        data = run_scenario(folder).logs[0].to_jsonl()
    assert [f for f in audit_bytes(data).findings if f.severity.value == "error"] == []
