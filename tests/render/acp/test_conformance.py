"""The recorded harness scenarios: every live ACP stream re-rendered from its log is
byte-exact against the golden's session/update lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from replay.snapshot.conformance import (
    ConformanceReport,
    LineDiff,
    ScenarioResult,
    check_scenario,
    compare_lines,
    format_json,
    format_text,
    rendered_update_lines,
    run_conformance,
)
from replay.snapshot.harness import (
    golden_update_lines,
    load_harness_scenario,
    slash_prompts,
    terminal_capability,
    update_lines,
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
    result = check_scenario(scenario)
    assert result.first_diff is None, format_text(ConformanceReport((result,)))
    assert result.status == "exact"
    assert result.matching == result.expected == result.rendered


def test_all_58_scenarios_score() -> None:
    roots = [corpus_file(suite) for suite in SUITES]
    report = run_conformance(roots)
    assert len(report.scenarios) == 58
    assert [s.name for s in report.scenarios if s.status != "exact"] == []
    assert format_text(report).endswith("\n58/58 scenarios byte-exact\n")
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


def test_slash_command_scenario_is_not_derivable(tmp_path: Path) -> None:
    (tmp_path / "session.jsonl").write_text(
        '{"type":"session","version":0,"id":"00000000-0000-0000-0000-000000000000","createdAt":0,'
        '"delegationDepth":0}\n')
    (tmp_path / "input.json").write_text('{"steps":[{"op":"initialize"},{"op":"newSession"},'
                                         '{"op":"prompt","text":"/goal finish"}]}')
    (tmp_path / "stdout.expected.jsonl").write_text(
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{{sessionId}}","update":'
        '{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"goal set"}}}}\n')
    report = run_conformance([tmp_path])
    assert report.scenarios == (ScenarioResult(
        tmp_path.name, str(tmp_path), "not derivable", 1, 0, 0,
        reason="slash command prompt '/goal finish': its output is never logged"),)
    assert not report.failed
    assert format_text(report) == (f"not derivable {tmp_path}  (slash command prompt '/goal finish': its output "
                                   "is never logged)\n0/0 scenarios byte-exact (1 not derivable)\n")


def test_formatters() -> None:
    report = ConformanceReport((
        ScenarioResult("a", "/c/a", "exact", 2, 2, 2),
        ScenarioResult("b", "/c/b", "differs", 2, 2, 1,
                       LineDiff(1, '{"k":1}', '{"k":2}', "k: expected 1, got 2")),
    ))
    assert report.failed
    assert format_text(report) == (
        "exact         /c/a  (2/2 lines match)\n"
        "differs       /c/b  (1/2 lines match)\n"
        "    line 2: k: expected 1, got 2\n"
        '      expected: {"k":1}\n'
        '      got:      {"k":2}\n'
        "1/2 scenarios byte-exact\n")
    assert format_json(report) == """{
  "scenarios": [
    {
      "name": "a",
      "folder": "/c/a",
      "status": "exact",
      "expected": 2,
      "rendered": 2,
      "matching": 2,
      "firstDiff": null,
      "reason": null
    },
    {
      "name": "b",
      "folder": "/c/b",
      "status": "differs",
      "expected": 2,
      "rendered": 2,
      "matching": 1,
      "firstDiff": {
        "index": 1,
        "expected": "{\\"k\\":1}",
        "got": "{\\"k\\":2}",
        "summary": "k: expected 1, got 2"
      },
      "reason": null
    }
  ],
  "summary": {
    "scenarios": 2,
    "derivable": 2,
    "exact": 1,
    "differs": 1,
    "notDerivable": 0,
    "score": "1/2 scenarios byte-exact"
  }
}
"""


def test_semantic_difference_summaries() -> None:
    assert compare_lines(["a"], ["a"]) == (1, None)
    _, diff = compare_lines(['{"u":{"t":"x","k":1}}'], ['{"u":{"k":1,"t":"x"}}'])
    assert diff is not None and diff.summary == "u: key order: expected ['t', 'k'], got ['k', 't']"
    _, diff = compare_lines(['{"u":{"t":"x"}}'], [])
    assert diff is not None and diff.summary == "expected line not rendered: ?"
    _, diff = compare_lines(['{"u":{"t":"x"}}'], ['{"u":{"t":"x","z":[1]}}'])
    assert diff is not None and diff.summary == "u.z: unexpected key, got [1]"
