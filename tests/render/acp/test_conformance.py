"""The recorded harness scenarios: every live ACP stream re-rendered from its log is
byte-exact against the golden's session/update lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay.goldens.streams import LineDiff, compare_lines
from replay.log.harness import (
    golden_update_lines,
    load_harness_scenario,
    slash_prompts,
    terminal_capability,
    update_lines,
)
from replay.report.conformance import ConformanceJson, ConformanceText
from replay.scenarios.conformance import (
    ConformanceReport,
    ConformanceResult,
    ModeResult,
    check_conformance,
    compare_mode,
    rendered_update_lines,
    run_conformance,
)
from tests.helpers import corpus_file, corpus_root

SUITES = ("acp-2026-07-23", "acp-2026-06-29")


def _folders() -> list[Path]:
    root = corpus_root()
    return sorted(p for suite in SUITES if (root / suite).is_dir() for p in (root / suite).iterdir() if p.is_dir())


FOLDERS = _folders()


@pytest.mark.parametrize(
    "folder",
    FOLDERS or [pytest.param(None, marks=pytest.mark.skip(reason=f"corpus {corpus_root()} is absent "
                                                                "(set REPLAY_CORPUS)"))],
    ids=lambda p: f"{p.parent.name}/{p.name}" if isinstance(p, Path) else "corpus",
)
def test_scenario_is_byte_exact(folder: Path) -> None:
    scenario = load_harness_scenario(folder)
    result = check_conformance(scenario)
    # A log with no model turn (the header alone) tells no generation: the default.
    assert (result.profile, result.profile_source) in (("2026-07", "log"), ("2026-07", "default"))
    assert [m.mode for m in result.modes] == ["live", "load"]
    for mode in result.modes:
        assert mode.first_diff is None, ConformanceText.render(ConformanceReport((result,)))
        assert mode.matching == mode.expected == mode.rendered
    assert result.status == "exact"


def test_all_58_scenarios_score_live_and_load() -> None:
    roots = [corpus_file(suite) for suite in SUITES]
    report = run_conformance(roots)
    assert len(report.scenarios) == 58
    assert [s.name for s in report.scenarios if s.status != "exact"] == []
    assert report.mode_score("live") == (58, 58) and report.mode_score("load") == (58, 58)
    assert [s.name for s in report.overridden] == [
        "cancel", "cancel-tool-calls", "error-finish", "session-sandbox-root", "subagent-depth-two-rejection",
        "workspace-context", "cancel", "error-finish"]
    assert ConformanceText.render(report).endswith(
        "\n58/58 scenarios byte-exact (live 58/58; load 58/58; profile 2026-07: 58); without an override "
        "50/50; with replay.override.json 8: 8/8 byte-exact derived by a keyless run with the override as the "
        "model; from the log 8/8\n")
    assert not report.failed


def test_the_comparison_notices_a_missing_capability() -> None:
    scenario = load_harness_scenario(corpus_file("acp-2026-07-23/fs-terminal-card"))
    assert scenario.terminal_output is True
    expected = golden_update_lines(scenario, exclude=("available_commands_update", "current_mode_update"))
    got = rendered_update_lines(scenario.primary_log, terminal_output=False)
    matching, diff = compare_lines(expected, got)
    assert diff is not None
    assert diff.summary.startswith("params.update.content: expected 2 items, got 1")
    assert matching == len(expected) - 2


def test_golden_lines_leave_out_configuration_updates() -> None:
    stdout = "\n".join([
        '{"jsonrpc":"2.0","id":1,"result":{}}',
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"x","update":'
        '{"sessionUpdate":"available_commands_update","availableCommands":[]}}}',
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"x","update":'
        '{"sessionUpdate":"current_mode_update","currentModeId":"plan"}}}',
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"x","update":'
        '{"sessionUpdate":"plan","entries":[]}}}',
        "",
    ])
    assert update_lines(stdout, exclude=("available_commands_update", "current_mode_update")) == [
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"x","update":'
        '{"sessionUpdate":"plan","entries":[]}}}']


def test_input_json_capability_and_slash_commands() -> None:
    assert terminal_capability({"steps": [{"op": "initialize", "terminalOutput": True}]}) is True
    assert terminal_capability({"steps": [{"op": "initialize",
                                           "clientCapabilities": {"_meta": {"terminal_output": True}}}]}) is True
    assert terminal_capability({"steps": [{"op": "initialize"}, {"op": "initialize", "terminalOutput": True}]}) \
        is False
    assert terminal_capability(None) is False
    steps = {"steps": [{"op": "prompt", "text": "hello"}, {"op": "prompt", "text": "/goal ship it"},
                       {"op": "promptContent", "content": [{"type": "text", "text": "/plan"}]}]}
    assert slash_prompts(steps) == ("/goal ship it", "/plan")


def _scenario(folder: Path, prompt: str, golden: str, **files: str) -> None:
    (folder / "session.jsonl").write_text(
        '{"type":"session","version":0,"id":"00000000-0000-0000-0000-000000000000","createdAt":0,'
        '"delegationDepth":0}\n')
    (folder / "input.json").write_text('{"steps":[{"op":"initialize"},{"op":"newSession"},'
                                       f'{{"op":"prompt","text":"{prompt}"}}]}}')
    (folder / "stdout.expected.jsonl").write_text(golden)
    for name, text in files.items():
        (folder / name.replace("_", ".")).write_text(text)


CHUNK = ('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{{sessionId}}","update":'
         '{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"goal set"}}}}')


def test_slash_command_scenario_is_not_derivable(tmp_path: Path) -> None:
    _scenario(tmp_path, "/goal finish", CHUNK + "\n")
    report = run_conformance([tmp_path])
    (result,) = report.scenarios
    assert (result.status, result.reason, result.profile, result.profile_source) == (
        "not derivable", "slash command prompt '/goal finish': its output is never logged", "2026-07", "default")
    assert [(m.mode, m.expected, m.rendered, m.missing) for m in result.modes] == [("live", 1, 0, 1),
                                                                                  ("load", 1, 0, 1)]
    assert not report.failed
    assert ConformanceText.render(report).splitlines()[-1] == (
        "0/0 scenarios byte-exact (profile 2026-07: 1); not derivable: 1")


def test_an_overridden_scenario_is_scored_by_its_keyless_run(tmp_path: Path) -> None:
    """The override plays the model in a keyless run; its stream differs from the golden:
    a scored difference (exit 1), with the from-the-log figure beside it."""
    _scenario(tmp_path, "hello", CHUNK + "\n", replay_override_json="[]")
    report = run_conformance([tmp_path])
    (result,) = report.scenarios
    assert (result.status, result.keyless, result.override_plays) == ("differs", "derived", "agent")
    assert result.overridden and result.scored and not result.exact_from_log
    assert [(m.mode, m.expected, m.rendered, m.missing) for m in result.modes] == [("live", 1, 0, 1),
                                                                                  ("load", 1, 0, 1)]
    assert result.reason == (
        "keyless run: replay.override.json played the model, the recording answered the tools it does not model; "
        "from the log: live: 0/1 golden lines rendered in order; 1 golden line not rendered; load: 0/1 golden "
        "lines rendered in order; 1 golden line not rendered")
    assert report.failed
    text = ConformanceText.render(report).splitlines()
    assert text[1] == ("    live vs stdout.expected.jsonl, golden line 1 / none rendered: expected line not rendered: "
                       "agent_message_chunk")
    assert text[-1] == (
        "0/1 scenarios byte-exact (live 0/1; load 0/1; profile 2026-07: 1); without an override 0/0; with "
        "replay.override.json 1: 0/1 byte-exact derived by a keyless run with the override as the model; from the "
        "log 0/1")
    doc = json.loads(ConformanceJson.render(report))
    assert doc["scenarios"][0]["keyless"] == {
        "outcome": "derived", "overridePlays": "agent",
        "fromLog": doc["scenarios"][0]["modes"]}  # the header-only log renders as the run's: nothing
    assert (doc["summary"]["overriddenExact"], doc["summary"]["overriddenKeyless"],
            doc["summary"]["overriddenExactFromLog"]) == (0, 1, 0)
    # nothing written beside the scenario's own files
    assert sorted(p.name for p in tmp_path.iterdir()) == ["input.json", "replay.override.json", "session.jsonl",
                                                          "stdout.expected.jsonl"]


def test_an_overridden_scenario_no_keyless_run_derives_is_not_scored(tmp_path: Path) -> None:
    _scenario(tmp_path, "hello", CHUNK + "\n", replay_override_json="[{")
    report = run_conformance([tmp_path])
    (result,) = report.scenarios
    assert (result.status, result.keyless, result.modes) == ("overridden", "no run", ())
    assert result.reason == (
        "replay.override.json scripted its model calls; no keyless run derives it: <imported scenario>/"
        "replay.override.json: the override is not JSON; from the log: live: 0/1 golden lines rendered in order; "
        "1 golden line not rendered; load: 0/1 golden lines rendered in order; 1 golden line not rendered")
    assert not report.failed
    lines = ConformanceText.render(report).splitlines()
    assert lines[0].startswith(f"overridden    {tmp_path}  (no stream compared) [")
    assert lines[1] == ("    from the log: live vs stdout.expected.jsonl, golden line 1 / none rendered: expected line "
                        "not rendered: agent_message_chunk")
    assert lines[-1] == (
        "0/0 scenarios byte-exact (profile 2026-07: 1); without an override 0/0; with replay.override.json 1: "
        "0/1 byte-exact derived by a keyless run with the override as the model (1 with no keyless run, not "
        "scored); from the log 0/1")
    doc = json.loads(ConformanceJson.render(report))
    assert doc["scenarios"][0]["keyless"]["outcome"] == "no run"
    assert doc["scenarios"][0]["keyless"]["fromLog"][0]["missing"] == 1


def test_without_keyless_runs_an_overridden_scenario_is_compared_from_its_log(tmp_path: Path) -> None:
    _scenario(tmp_path, "hello", CHUNK + "\n", replay_override_json="[]")
    report = run_conformance([tmp_path], keyless=False)
    (result,) = report.scenarios
    assert (result.status, result.keyless, result.scored) == ("overridden", None, False)
    assert result.reason == ("replay.override.json scripted its model calls; only a keyless run with the override "
                             "as the model can derive its stream")
    assert not report.failed
    assert ConformanceText.render(report).splitlines()[-1] == (
        "0/0 scenarios byte-exact (profile 2026-07: 1); without an override 0/0; with replay.override.json 1: "
        "0 byte-exact from the log, 1 not scored")


def test_the_report_says_what_actually_differs() -> None:
    expected = ['{"a":1}', '{"b":2}']
    extra = compare_mode("live", "g", expected, ['{"a":1}', '{"x":0}', '{"b":2}'])
    assert (extra.matching, extra.missing, extra.extra, extra.changed) == (2, 0, 1, 0)
    assert extra.what_differs == "2/2 golden lines rendered in order; 1 rendered line not in the golden"
    assert extra.first_diff == LineDiff(None, 1, None, '{"x":0}', "extra line rendered: ?")
    short = compare_mode("live", "g", expected, ['{"a":1}'])
    assert short.what_differs == "1/2 golden lines rendered in order; 1 golden line not rendered"
    changed = compare_mode("load", "g", expected, ['{"a":1}', '{"b":3}'])
    assert changed.what_differs == "1/2 golden lines rendered in order; 1 changed"
    assert changed.first_diff == LineDiff(1, 1, '{"b":2}', '{"b":3}', "b: expected 2, got 3")


def test_formatters() -> None:
    report = ConformanceReport((
        ConformanceResult("a", "/c/a", "exact", "2026-07", "corpus",
                       (ModeResult("live", "stdout.expected.jsonl", 2, 2, 2),)),
        ConformanceResult("b", "/c/b", "differs", "2026-08", "flag", (
            ModeResult("live", "stdout.expected.jsonl", 2, 2, 1, changed=1,
                       first_diff=LineDiff(1, 1, '{"k":1}', '{"k":2}', "k: expected 1, got 2")),)),
    ))
    assert report.failed
    assert ConformanceText.render(report) == (
        "exact         /c/a  (live: 2 lines, byte-exact)\n"
        "differs       /c/b  (live: 1/2 golden lines rendered in order; 1 changed)\n"
        "    live vs stdout.expected.jsonl, golden line 2 / rendered line 2: k: expected 1, got 2\n"
        '      expected: {"k":1}\n'
        '      got:      {"k":2}\n'
        "1/2 scenarios byte-exact (live 1/2; profile 2026-07: 1, profile 2026-08: 1)\n")
    doc = json.loads(ConformanceJson.render(report))
    assert doc["summary"] == {
        "scenarios": 2, "scored": 2, "exact": 1, "differs": 1, "overridden": 0, "overriddenExact": 0,
        "overriddenKeyless": 0, "overriddenExactFromLog": 0, "overriddenNotScored": 0, "notDerivable": 0,
        "profiles": {"2026-07": 1, "2026-08": 1},
        "live": {"exact": 1, "compared": 2}, "load": {"exact": 0, "compared": 0},
        "score": "1/2 scenarios byte-exact (live 1/2; profile 2026-07: 1, profile 2026-08: 1)"}
    assert doc["scenarios"][1] == {
        "name": "b", "folder": "/c/b", "status": "differs", "profile": "2026-08", "profileSource": "flag",
        "reason": None, "overridden": False, "modes": [{
            "mode": "live", "golden": "stdout.expected.jsonl", "exact": False, "expected": 2, "rendered": 2,
            "matching": 1, "missing": 0, "extra": 0, "changed": 1,
            "firstDiff": {"index": 1, "renderedIndex": 1, "expected": '{"k":1}', "got": '{"k":2}',
                          "summary": "k: expected 1, got 2"}}]}


def test_semantic_difference_summaries() -> None:
    assert compare_lines(["a"], ["a"]) == (1, None)
    _, diff = compare_lines(['{"u":{"t":"x","k":1}}'], ['{"u":{"k":1,"t":"x"}}'])
    assert diff is not None and diff.summary == "u: key order: expected ['t', 'k'], got ['k', 't']"
    _, diff = compare_lines(['{"u":{"t":"x"}}'], [])
    assert diff is not None and diff.summary == "expected line not rendered: ?"
    _, diff = compare_lines(['{"u":{"t":"x"}}'], ['{"u":{"t":"x","z":[1]}}'])
    assert diff is not None and diff.summary == "u.z: unexpected key, got [1]"
