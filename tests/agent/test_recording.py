"""A recording plays the model, the tools the loop does not model, and the events the
loop does not write; overrides replace or patch the derived calls."""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.agent.model import ModelError, OverrideError, RecordedModel, apply_override
from replay.agent.recording import Recording
from replay.log.event import Event
from replay.log.reader import iter_events, read_log
from replay.log.source import file_source
from replay.scenarios.artefacts import render_artefacts
from replay.scenarios.importer import ImportRefused, NewScenarioError, import_log
from replay.scenarios.scenario import ScenarioError, run_scenario
from tests.helpers import audit_bytes, bytes_source, corpus_file, dump, examples, records, summary

OLD = "acp-2026-07-23"


def _events(path: Path) -> list[Event]:
    return list(iter_events(read_log(file_source(path)).items()))


def _run_events(data: bytes) -> list[Event]:
    return list(iter_events(read_log(bytes_source(data)).items()))


TOOL_CALL = {"kind": "chunks", "chunks": [
    {"type": "block-start", "index": 0, "blockType": "tool-call"},
    {"type": "block-end", "index": 0, "block": {"type": "tool-call", "id": "call_edited", "name": "read",
                                                 "arguments": '{"file_path": "config.txt"}'}},
    {"type": "finish", "reason": {"kind": "tool-calls"}}]}


def test_a_stream_that_threw_is_a_throw_entry() -> None:
    model = RecordedModel.from_events(_events(corpus_file(f"{OLD}/error-finish/session.jsonl")))
    assert [(c.chunks, c.failure, c.hang) for c in model.calls] == [
        ([], {"message": "simulated provider error (HTTP 401)", "code": "AUTH"}, False)]


def test_a_cancelled_stream_is_a_hang_entry() -> None:
    model = RecordedModel.from_events(_events(corpus_file(f"{OLD}/cancel/session.jsonl")))
    assert [(c.chunks, c.failure, c.hang) for c in model.calls] == [
        ([{"type": "block-start", "index": 0, "blockType": "text"},
          {"type": "text-delta", "index": 0, "text": "partial"}], None, True)]


def test_recorded_tool_results_by_call_id_with_duration_and_error_flag() -> None:
    recording = Recording.from_events(_events(corpus_file(f"{OLD}/fs-policy-reject/session.jsonl")))
    assert recording.called_tools() == ["edit", "read"]
    cwd = "/var/folders/2c/psb0_fmx7hbgz558xjt_f0l00000gn/T/acp-snap-cwd-QzoqnB"
    first = recording.calls["call_00_x0zlnXl5JOxLrAYL9y7P0119"]
    assert (first.name, first.outcome.is_error, first.outcome.duration_ms) == ("edit", True, 6)
    assert first.outcome.content == [{"type": "text", "text": f'Error: edit requires reading "{cwd}/settings.txt" '
                                                              "first"}]
    assert first.outcome.extra == {"error": {"name": "FsError", "code": "FS_NOT_OBSERVED"}}
    last = recording.calls["call_00_GVknJu2tksKkP4lALCwh0926"]
    assert (last.outcome.is_error, last.outcome.duration_ms) == (False, 17)
    assert last.outcome.extra == {"meta": {"diffs": [{"path": "settings.txt", "oldText": "color: blue",
                                                      "newText": "color: green"}]}}


@pytest.mark.parametrize(("doc", "problem"), [
    ({"entries": []}, 'override: the document is an array of entries, or {"patches": [{"at": i, "entry": …}, …]}'),
    ([{"kind": "sing"}], "override[0]: an entry is an object whose kind is chunks, throw or hang"),
    ([{"kind": "throw", "chunks": [], "message": "x"}],
     "override[0]: a throw entry has exactly the keys chunks, code, kind, message, status (got chunks, kind, "
     "message)"),
    ([{"kind": "chunks", "chunks": [{"type": "text-delta", "index": 0, "text": "x"}]}],
     "override[0].chunks: a chunks entry ends with a finish chunk"),
    ([{"kind": "chunks", "chunks": [{"type": "finish"}]}], "override[0].chunks[0] is a finish without a reason object"),
    ({"patches": [{"at": 5, "entry": {"kind": "hang"}}]},
     "override.patches[0].at: must be a unique call index from 0 to 1 (got 5)"),
])
def test_overrides_are_validated_strictly(doc: Any, problem: str) -> None:
    calls = RecordedModel.from_events(_events(corpus_file(f"{OLD}/text-turn/session.jsonl"))).calls
    with pytest.raises(OverrideError) as exc:
        apply_override(calls, doc)
    assert str(exc.value) == problem


def test_a_patch_replaces_or_appends_by_call_index() -> None:
    calls = RecordedModel.from_events(_events(corpus_file(f"{OLD}/text-turn/session.jsonl"))).calls
    patched = apply_override(calls, {"patches": [{"at": 0, "entry": {"kind": "hang", "readyFile": "x"}},
                                                 {"at": 1, "entry": TOOL_CALL}]})
    assert [(c.hang, c.failure is None, len(c.chunks)) for c in patched] == [(True, True, 2), (False, True, 3)]


def _imported(tmp_path: Path, name: str, scenario: dict[str, Any] | None = None) -> Path:
    """A harness folder copied as a recorded scenario (what `replay new --from-log` writes)."""
    source = corpus_file(f"{OLD}/{name}")
    folder = tmp_path / name
    folder.mkdir()
    shutil.copyfile(source / "session.jsonl", folder / "session.jsonl")
    header = read_log(file_source(source / "session.jsonl")).header
    assert header is not None
    doc = {"description": name, "prompts": [json.loads((source / "input.json").read_text())["steps"][2]["text"]],
           "tools": {"recorded": ["read", "edit"]}, "cwd": header.cwd, "model": {"recorded": True}}
    doc.update(scenario or {})
    (folder / "scenario.json").write_text(json.dumps(doc))
    return folder


def test_a_call_the_recording_never_made_fails_naming_turn_step_and_call(tmp_path: Path) -> None:
    folder = _imported(tmp_path, "fs-edit")
    (folder / "replay.override.json").write_text(json.dumps({"patches": [{"at": 0, "entry": TOOL_CALL}]}))
    body = json.loads((folder / "scenario.json").read_text())
    body["model"]["override"] = "replay.override.json"
    (folder / "scenario.json").write_text(json.dumps(body))
    with pytest.raises(ScenarioError) as exc:
        run_scenario(folder)
    assert str(exc.value) == (f"{folder}/scenario.json: turn 1, step 1, call call_edited (read): the recording has "
                              "no result for this call (the scenario asks something the log never did: re-record, "
                              "or revert the edit)")


def test_a_call_with_other_arguments_is_not_answered(tmp_path: Path) -> None:
    folder = _imported(tmp_path, "fs-edit")
    data = (folder / "session.jsonl").read_text()
    first_call = next(ev for ev in _events(folder / "session.jsonl") if ev.type == "tool/call")
    edited = data.replace('"arguments":"{\\"file_path\\": \\"config.txt\\"}"}}',
                          '"arguments":"{\\"file_path\\": \\"other.txt\\"}"}}', 1)
    assert edited != data and first_call.data["name"] == "read"
    (folder / "session.jsonl").write_text(edited)
    with pytest.raises(ScenarioError, match=r"turn 1, step 1, call call_00_S6krdIDHoSCGWv7WnXX97617 \(read\): the "
                                            r"recording made this call with other arguments"):
        run_scenario(folder)


def test_foreign_events_come_back_at_their_point_with_seqs_moved(tmp_path: Path) -> None:
    folder = _imported(tmp_path, "fs-edit")
    run = run_scenario(folder)
    data = run.logs[0].to_jsonl()
    events = _run_events(data)
    kinds = [e.type for e in events if e.type != "assistant/chunk"]
    assert kinds[:5] == ["turn/start", "user/message", "session/title", "step/start", "request/header"]
    prompt = next(e for e in events if e.type == "user/message")
    title = next(e for e in events if e.type == "session/title")
    assert title.data["messageSeqs"] == [prompt.seq]
    header = next(e for e in events if e.type == "request/header")
    assert header.data == {"header": {"config": {"provider": "deepseek", "model": "deepseek-v4-flash"},
                                      "system": "{{system}}", "tools": "{{tools}}"}, "reason": "initial"}
    assert summary(audit_bytes(data)) == []


def test_the_unused_recording_calls_are_reported(tmp_path: Path) -> None:
    folder = _imported(tmp_path, "multi-turn", {"prompts": ["only the first"], "tools": {}})
    with pytest.raises(ScenarioError) as exc:
        run_scenario(folder)
    assert str(exc.value) == (f"{folder}/scenario.json: the model of the primary session has 1 call the run never "
                              "asked for: the run diverged from the recording or script (re-record, or fix the "
                              "script)")


def test_a_truncated_recording_names_its_line() -> None:
    events = _events(corpus_file(f"{OLD}/fs-edit/session.jsonl"))
    cut = [e for e in events if not (e.type == "assistant/chunk" and e.data["chunk"]["type"] == "finish"
                                     and e.data["step"] == 1)]
    with pytest.raises(ModelError) as exc:
        RecordedModel.from_events(cut)
    assert str(exc.value) == ("the recorded stream of turn 1 step 1 ends without a finish chunk (line 7) and the "
                              "turn neither failed nor was cancelled there; the recording needs an override")


_JSON = st.recursive(st.none() | st.booleans() | st.integers(-2, 3) | st.text(max_size=4),
                     lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=5)


def _mutate(recs: list[dict[str, Any]], data: st.DataObject) -> None:
    """Put a hostile value somewhere in one event of a real log."""
    event = recs[data.draw(st.integers(1, len(recs) - 1), label="event")]
    target: Any = event
    for _ in range(data.draw(st.integers(0, 3), label="depth")):
        keys = sorted(target) if isinstance(target, dict) else []
        if not keys:
            break
        key = data.draw(st.sampled_from(keys), label="key")
        if not isinstance(target[key], dict) or data.draw(st.booleans(), label="stop"):
            target[key] = data.draw(_JSON, label="value")
            return
        target = target[key]
    if isinstance(target, dict) and target:
        target[data.draw(st.sampled_from(sorted(target)), label="key")] = data.draw(_JSON, label="value")


@pytest.mark.slow
@settings(max_examples=examples(50), deadline=None)
@given(st.data())
def test_a_hostile_recording_fails_as_a_scenario_error_never_a_traceback(data: st.DataObject) -> None:
    recs = records(f"{OLD}/fs-edit/session.jsonl")
    _mutate(recs, data)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "s"
        folder.mkdir()
        (folder / "session.jsonl").write_bytes(dump(recs))
        (folder / "scenario.json").write_text(json.dumps({
            "description": "hostile", "prompts": ["p"], "tools": {"recorded": ["read", "edit"]},
            "model": {"recorded": True}}))
        with contextlib.suppress(ScenarioError):
            render_artefacts(run_scenario(folder))
        with contextlib.suppress(NewScenarioError, ImportRefused):
            import_log(Path(tmp) / "scenarios", "imported", folder / "session.jsonl", force=True)
            with contextlib.suppress(ScenarioError):
                render_artefacts(run_scenario(Path(tmp) / "scenarios" / "imported"))


# -- a long recording held compactly ------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec="utf-8") | st.characters(categories=["Cs"])),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20)


@given(JSON_VALUES)
def test_a_packed_value_reads_back_exactly(value: Any) -> None:
    """Compressed where orjson can write it, kept as it is where not (a lone surrogate,
    an integer beyond 64 bits): either way the value read back is the value, key order
    and types included."""
    from replay.agent.packed import Packed

    back = Packed(value).value()
    assert back == value and json.dumps(back) == json.dumps(value)


RECORDED = ["acp-2026-07-23/advanced-toolchain", "acp-2026-07-23/cancel-tool-calls",
            "oracle-2026-07-23/event-surface-replace-bash", "oracle-2026-07-23/event-surface-replace-next-turn"]


@pytest.mark.parametrize("relative", RECORDED)
def test_keeping_only_the_seqs_foreign_events_name_changes_no_run(relative: str, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The shortcut (a seq map for the seqs foreign events name: titles' messageSeqs,
    replacements' ranges, sources) against the exact path (every seq mapped): the run
    of an imported real session writes the same bytes."""
    imported = import_log(tmp_path / "scenarios", "s", corpus_file(relative), force=True)
    compact = [log.to_jsonl() for log in run_scenario(imported.folder).logs]
    import replay.scenarios.scenario as scenario

    monkeypatch.setattr(scenario, "referenced_seqs", lambda events, seed=0: None)
    exact = [log.to_jsonl() for log in run_scenario(imported.folder).logs]
    assert compact == exact
