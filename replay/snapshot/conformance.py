"""ACP conformance: re-render each recorded harness scenario's live ACP stream from its
primary session log and compare it, byte for byte, with the ``session/update`` lines of
its stdout golden.

``available_commands_update`` and ``current_mode_update`` are left out of the
comparison: they come from the agent's configuration, not from the log. A scenario
whose prompt is a slash command is "not derivable" (the command's output is never
logged) and stays outside the score.

``check_scenario`` / ``run_conformance`` return data; ``format_text`` and
``format_json`` are pure formatters of it.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from replay.log.reader import iter_events, read_log
from replay.log.source import file_source
from replay.log.values import show
from replay.render.acp import PresenterRegistry
from replay.render.acp.stream import normalized_lines
from replay.snapshot.harness import HarnessScenario, find_harness_scenarios, golden_update_lines

EXCLUDED_UPDATES = ("available_commands_update", "current_mode_update")
"""Updates that come from the agent's configuration, not from the log."""

Status = Literal["exact", "differs", "not derivable"]


@dataclass(frozen=True, slots=True)
class LineDiff:
    """The first differing line (0-based among the compared lines): what was expected,
    what was rendered (``None`` when one side ran out), and a short semantic summary."""

    index: int
    expected: str | None
    got: str | None
    summary: str


@dataclass(frozen=True, slots=True)
class ScenarioResult:
    name: str
    folder: str
    status: Status
    expected: int
    rendered: int
    matching: int
    first_diff: LineDiff | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class ConformanceReport:
    scenarios: tuple[ScenarioResult, ...]

    @property
    def derivable(self) -> tuple[ScenarioResult, ...]:
        return tuple(s for s in self.scenarios if s.status != "not derivable")

    @property
    def exact(self) -> int:
        return sum(1 for s in self.scenarios if s.status == "exact")

    @property
    def failed(self) -> bool:
        """A derivable scenario differs (the CLI exits 1)."""
        return any(s.status == "differs" for s in self.scenarios)


def rendered_update_lines(
    log_path: Path, *, terminal_output: bool, presenters: PresenterRegistry | None = None
) -> list[str]:
    """The live ACP stream of one log, normalized the way the goldens were."""
    log = read_log(file_source(log_path))
    header = log.header
    return normalized_lines(iter_events(log.items()), session_id=(header.id if header else None) or "",
                            header_cwd=header.cwd if header else None, terminal_output=terminal_output,
                            presenters=presenters, exclude=EXCLUDED_UPDATES)


def compare_lines(expected: Sequence[str], got: Sequence[str]) -> tuple[int, LineDiff | None]:
    """(lines of ``expected`` matched in order, the first difference or ``None``)."""
    matcher = difflib.SequenceMatcher(None, list(expected), list(got), autojunk=False)
    matching = sum(block.size for block in matcher.get_matching_blocks())
    for i in range(max(len(expected), len(got))):
        exp = expected[i] if i < len(expected) else None
        act = got[i] if i < len(got) else None
        if exp != act:
            return matching, LineDiff(i, exp, act, describe_difference(exp, act))
    return matching, None


def describe_difference(expected: str | None, got: str | None) -> str:
    """A one-line semantic summary: which key differs, expected vs got."""
    if expected is None:
        return f"extra line rendered: {_kind(got)}"
    if got is None:
        return f"expected line not rendered: {_kind(expected)}"
    try:
        exp, act = json.loads(expected), json.loads(got)
    except ValueError:
        return "a line is not JSON"
    found = _first_difference(exp, act, "")
    if found is None:
        return "same JSON value, different bytes (key order or escaping)"
    return found


def _kind(line: str | None) -> str:
    try:
        frame = json.loads(line or "")
        return str(frame["params"]["update"]["sessionUpdate"])
    except (ValueError, KeyError, TypeError):
        return "?"


def _first_difference(exp: Any, act: Any, path: str) -> str | None:
    where = path or "(root)"
    if isinstance(exp, dict) and isinstance(act, dict):
        for key in exp:
            if key not in act:
                return f"{path}.{key}: expected {show(exp[key])}, missing"
            found = _first_difference(exp[key], act[key], f"{path}.{key}" if path else key)
            if found:
                return found
        for key in act:
            if key not in exp:
                return f"{path}.{key}: unexpected key, got {show(act[key])}"
        if list(exp) != list(act):
            return f"{where}: key order: expected {list(exp)}, got {list(act)}"
        return None
    if isinstance(exp, list) and isinstance(act, list):
        for i, (e, a) in enumerate(zip(exp, act, strict=False)):
            found = _first_difference(e, a, f"{path}[{i}]")
            if found:
                return found
        if len(exp) != len(act):
            return f"{where}: expected {len(exp)} items, got {len(act)}"
        return None
    if exp != act or type(exp) is not type(act):
        return f"{where}: expected {show(exp)}, got {show(act)}"
    return None


def check_scenario(scenario: HarnessScenario, presenters: PresenterRegistry | None = None) -> ScenarioResult:
    expected = golden_update_lines(scenario, exclude=EXCLUDED_UPDATES)
    folder = str(scenario.folder)
    slash = scenario.slash_commands
    if slash:
        return ScenarioResult(scenario.name, folder, "not derivable", len(expected), 0, 0,
                              reason=f"slash command prompt {slash[0]!r}: its output is never logged")
    got = rendered_update_lines(scenario.primary_log, terminal_output=scenario.terminal_output,
                                presenters=presenters)
    matching, first = compare_lines(expected, got)
    status: Status = "exact" if first is None else "differs"
    return ScenarioResult(scenario.name, folder, status, len(expected), len(got), matching, first)


def run_conformance(roots: Iterable[Path], presenters: PresenterRegistry | None = None) -> ConformanceReport:
    """Check every scenario folder under the roots that has a stdout golden."""
    scenarios = [s for s in find_harness_scenarios(roots) if s.golden is not None]
    return ConformanceReport(tuple(check_scenario(s, presenters) for s in scenarios))


def score_line(report: ConformanceReport) -> str:
    line = f"{report.exact}/{len(report.derivable)} scenarios byte-exact"
    skipped = len(report.scenarios) - len(report.derivable)
    return line + (f" ({skipped} not derivable)" if skipped else "")


def format_text(report: ConformanceReport) -> str:
    """A human-readable report: one line per scenario, details of each difference,
    then the score."""
    out = []
    for s in report.scenarios:
        out.append(f"{s.status:<13} {s.folder}  ({s.matching}/{s.expected} lines match)"
                   if s.status != "not derivable" else f"{s.status:<13} {s.folder}  ({s.reason})")
        if s.first_diff is not None:
            d = s.first_diff
            out.append(f"    line {d.index + 1}: {d.summary}")
            out.append(f"      expected: {_clip(d.expected)}")
            out.append(f"      got:      {_clip(d.got)}")
    out.append(score_line(report))
    return "\n".join(out) + "\n"


def _clip(line: str | None, width: int = 200) -> str:
    if line is None:
        return "(none)"
    return line if len(line) <= width else line[: width - 3] + "..."


def format_json(report: ConformanceReport) -> str:
    """The report as JSON (one document, trailing newline)."""
    doc = {
        "scenarios": [
            {
                "name": s.name,
                "folder": s.folder,
                "status": s.status,
                "expected": s.expected,
                "rendered": s.rendered,
                "matching": s.matching,
                "firstDiff": None if s.first_diff is None else {
                    "index": s.first_diff.index,
                    "expected": s.first_diff.expected,
                    "got": s.first_diff.got,
                    "summary": s.first_diff.summary,
                },
                "reason": s.reason,
            }
            for s in report.scenarios
        ],
        "summary": {
            "scenarios": len(report.scenarios),
            "derivable": len(report.derivable),
            "exact": report.exact,
            "differs": sum(1 for s in report.scenarios if s.status == "differs"),
            "notDerivable": len(report.scenarios) - len(report.derivable),
            "score": score_line(report),
        },
    }
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
