"""Scenarios with ``replay.override.json``: derived as the harness derived them, by a
keyless run with the override as the model (the ``replay new --from-log`` path, recorded
tools) — the agent's model, or the session-title model on its own route."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from replay.agent.model import ModelCall
from replay.agent.title import normalize_title, title_of
from replay.cli import main
from replay.log.event import Event
from replay.log.harness import find_harness_scenarios, load_harness_scenario
from replay.log.reader import Source, iter_events, read_log
from replay.log.source import file_source
from replay.render.acp.stream import normalized_lines
from replay.scenarios.check import refresh_scenarios
from replay.scenarios.conformance import derive_keyless, run_conformance
from replay.scenarios.importer import import_log
from replay.scenarios.scenario import ScenarioError, run_scenario
from tests.helpers import ACP, corpus_file, corpus_root

CORPORA = ("acp-2026-07-23", "acp-2026-06-29", ACP)
TITLE_SCENARIO = f"{ACP}/session-title-after-turn"


def _events(source: Source) -> tuple[list[Event], str, Any]:
    log = read_log(source)
    header = log.header
    assert header is not None
    return list(iter_events(log.items())), header.id or "", header.cwd


def _streams(source: Source, terminal: bool) -> dict[str, list[str]]:
    """Both streams of a log under the richer 2026-07 profile (tool cards, plans, titles)."""
    events, session_id, cwd = _events(source)
    return {mode: list(normalized_lines(iter(events), session_id=session_id, header_cwd=cwd, mode=mode,
                                        profile="2026-07", terminal_output=terminal))
            for mode in ("live", "load")}


def test_every_overridden_scenario_of_the_three_corpora_derives_keylessly() -> None:
    roots = [corpus_root() / c for c in CORPORA]
    missing = [str(r) for r in roots if not r.is_dir()]
    if missing:
        pytest.skip(f"corpus folders absent: {', '.join(missing)} (set REPLAY_CORPUS)")
    counts = {}
    for corpus, root in zip(CORPORA, roots, strict=True):
        report = run_conformance([root])
        overridden = report.overridden
        derived = [s for s in overridden if s.keyless == "derived" and s.status == "exact"]
        counts[corpus] = (len(derived), len(overridden))
        assert [s.name for s in overridden if s not in derived] == [], corpus
        assert all(s.exact_from_log for s in overridden)
        assert {s.name: s.override_plays for s in overridden if s.override_plays != "agent"} == (
            {"session-title-after-turn": "title"} if corpus == ACP else {})
    assert counts == {"acp-2026-07-23": (6, 6), "acp-2026-06-29": (2, 2), ACP: (12, 12)}


@pytest.mark.parametrize("corpus", CORPORA)
def test_a_keyless_run_reproduces_the_recorded_session(corpus: str) -> None:
    """Beyond the goldens (today's agent streams only final text): the log the keyless
    run re-persisted holds the recording's events, type for type, and renders under
    the editor-projection profile — tool cards, plans, titles — exactly as the
    recording does."""
    root = corpus_root() / corpus
    if not root.is_dir():
        pytest.skip(f"{root} is absent (set REPLAY_CORPUS)")
    found = [s for s in find_harness_scenarios([root]) if s.override is not None]
    assert found
    for harness in found:
        run = derive_keyless(harness, "2026-07")
        assert run.problem is None, harness.name
        derived = Source("derived", lambda run=run: io.BytesIO(run.log))  # type: ignore[misc]
        recorded = file_source(harness.primary_log)
        assert [e.type for e in _events(derived)[0]] == [e.type for e in _events(recorded)[0]], harness.name
        assert _streams(derived, harness.terminal_output) == _streams(recorded, harness.terminal_output), \
            harness.name


def _title_events(log: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.decode().splitlines() if '"type":"session/title"' in line]


def _import_title_scenario(tmp_path: Path, override: Any = None) -> Path:
    """The title scenario imported with its override as the title model; ``override``:
    the imported override then edited to these entries."""
    result = import_log(tmp_path / "scenarios", "title", corpus_file(TITLE_SCENARIO), use_override=True)
    assert result.notes[0] == (
        "replay.override.json: copied and used as the session-title model (it gives the recorded provider titles; "
        "the agent's calls derive from the log, as in the harness's keyless suite)")
    if override is not None:
        (result.folder / "replay.override.json").write_text(json.dumps(override))
    return result.folder


def _title_entry(*texts: str, finish: str = "stop") -> dict[str, Any]:
    chunks: list[dict[str, Any]] = []
    for i, text in enumerate(texts):
        chunks += [{"type": "block-start", "index": i, "blockType": "text"},
                   {"type": "text-delta", "index": i, "text": text},
                   {"type": "block-end", "index": i, "block": {"type": "text", "text": text}}]
    return {"kind": "chunks", "chunks": [*chunks, {"type": "finish", "reason": {"kind": finish}}]}


def test_the_title_override_plays_the_title_model_not_the_agent(tmp_path: Path) -> None:
    """The harness's keyless suite serves the title route (title-replay/title-model) from
    the override and the agent's from the log; the import does the same, and the run's
    provider title is the title model's answer."""
    folder = _import_title_scenario(tmp_path)
    doc = json.loads((folder / "scenario.json").read_text(encoding="utf-8"))
    assert doc["model"] == {"recorded": True, "title": {"override": "replay.override.json"}}
    assert not refresh_scenarios(tmp_path / "scenarios", tmp_path / "goldens", ["title"]).failed
    log = (tmp_path / "goldens" / "title" / "session.expected.jsonl").read_bytes()
    assert [(t["seq"], t["data"]["title"], t["data"]["source"]["kind"]) for t in _title_events(log)] == [
        (6, "Reply with exactly TITLE_DONE. Do", "fallback"), (18, "Late durable session title", "provider")]
    assert b'"text":"TITLE_DONE"' in (tmp_path / "goldens" / "title" / "stdout.expected.jsonl").read_bytes()
    # Without the title route the override would play the agent: its reply becomes the title's text.
    plain = import_log(tmp_path / "plain", "title", corpus_file(TITLE_SCENARIO))
    assert plain.notes[0] == (
        'replay.override.json: copied, not used: it scripts the session-title model, and the recording holds the '
        'titles it gave (set "title": {"override": "replay.override.json"} in the model, or import with '
        "--use-override, to use it)")


def test_the_title_is_the_title_model_s_answer_not_the_recorded_one(tmp_path: Path) -> None:
    folder = _import_title_scenario(tmp_path, [_title_entry(" \x1b[31mEdited\x1b[0m ", "title\u202e\n")])
    run = run_scenario(folder)
    provider = [e["data"] for e in run.logs[0].events if e["type"] == "session/title"][-1]
    assert provider == {"title": "Edited title", "messageSeqs": [4], "source": {
        "kind": "provider", "provider": "session-title-first-prompt-llm",
        "model": {"provider": "title-replay", "model": "title-model"}}}


@pytest.mark.parametrize("entry", [
    {"kind": "throw", "chunks": [], "message": "title route down", "code": "UNAVAILABLE"},
    _title_entry("cut short", finish="max-tokens"),
    _title_entry(" \u200b "),
])
def test_a_title_call_that_gives_no_title_leaves_the_title_out(tmp_path: Path, entry: dict[str, Any]) -> None:
    run = run_scenario(_import_title_scenario(tmp_path, [entry]))
    titles = [e["data"]["source"]["kind"] for e in run.logs[0].events if e["type"] == "session/title"]
    assert titles == ["fallback"]
    assert [e["type"] for e in run.logs[0].events][-1] == "turn/end"


@pytest.mark.parametrize(("entries", "problem"), [
    ([], "turn 1, the title request: the title model: the recording has no model call here: it holds 0 calls"),
    ([_title_entry("one"), _title_entry("two")],
     "the model of the title model of the primary session has 1 call the run never asked for"),
])
def test_the_title_model_s_calls_must_match_the_requests(tmp_path: Path, entries: list[Any], problem: str) -> None:
    folder = _import_title_scenario(tmp_path, entries)
    with pytest.raises(ScenarioError) as exc:
        run_scenario(folder)
    assert problem in str(exc.value)
    assert str(exc.value).startswith(f"{folder}/scenario.json: ")


def test_title_normalization_follows_the_harness() -> None:
    assert normalize_title("  A\tB\n\nC  ") == "A B C"
    assert normalize_title("\x1b]0;set\x07Clean\x1b]8;;x") == "Clean"
    assert normalize_title("\x9b1mBold\x1bM\x1bc\x00\x7f\u2066x\ufeff") == "Boldcx"  # ESC c: not a sequence
    assert normalize_title("héllo wörld", 7) == "héllo"  # cut on a character boundary, then trimmed
    assert normalize_title("日本語", 5) == "日"
    stop = {"type": "finish", "reason": {"kind": "stop"}}
    text = {"type": "block-end", "index": 0, "block": {"type": "text", "text": "T"}}
    call = {"type": "block-end", "index": 1, "block": {"type": "tool-call", "id": "c", "name": "x", "arguments": ""}}
    assert title_of(ModelCall([text, stop])) == "T"
    assert title_of(ModelCall([text, call, stop])) is None
    assert title_of(ModelCall([text])) is None
    assert title_of(ModelCall([text, stop], hang=True)) is None
    assert title_of(ModelCall([text, stop], failure={"message": "m", "code": "C"})) is None


def test_the_title_scenario_is_derived_through_the_title_route() -> None:
    harness = load_harness_scenario(corpus_file(TITLE_SCENARIO))
    run = derive_keyless(harness, "2026-08")
    assert (run.problem, run.plays, [m.exact for m in run.modes]) == (None, "title", [True])
    assert [t["data"]["title"] for t in _title_events(run.log)] == [
        "Reply with exactly TITLE_DONE. Do", "Late durable session title"]


def test_replay_new_use_override(tmp_path: Path) -> None:
    source = corpus_file(TITLE_SCENARIO)
    scenarios = str(tmp_path / "scenarios")
    result = CliRunner().invoke(main, ["new", "t", "--from-log", str(source), "--scenarios", scenarios,
                                       "--use-override"])
    assert result.exit_code == 0
    assert ("note: replay.override.json: copied and used as the session-title model (it gives the recorded provider "
            "titles; the agent's calls derive from the log, as in the harness's keyless suite)\n") in result.output
    doc = json.loads((tmp_path / "scenarios" / "t" / "scenario.json").read_text(encoding="utf-8"))
    assert doc["model"] == {"recorded": True, "title": {"override": "replay.override.json"}}
    result = CliRunner().invoke(main, ["new", "e", "--from-log", str(corpus_file(f"{ACP}/error-finish")),
                                       "--scenarios", scenarios, "--use-override"])
    assert result.exit_code == 0
    doc = json.loads((tmp_path / "scenarios" / "e" / "scenario.json").read_text(encoding="utf-8"))
    assert doc["model"] == {"recorded": True, "override": "replay.override.json"}
