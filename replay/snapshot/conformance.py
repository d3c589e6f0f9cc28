"""ACP conformance: re-render each recorded harness scenario's ACP streams from its
primary session log and compare them, byte for byte, with its goldens.

What is compared, per scenario:

* **live**: the ``session/update`` lines and the agent's ``session/request_permission``
  requests of the stdout golden (or the lines of ``live.expected.jsonl``), against the
  live stream rendered from the log;
* **load**: ``load.expected.jsonl`` against the ``session/load`` replay rendered from
  the log; without one, the live golden as a load replays it (no permission requests)
  against the replay minus its user-message chunks (a load replays exactly what live
  streamed, plus the user's side). A profile without ``session/load`` has no load.

``available_commands_update`` and ``current_mode_update`` are left out: they come from
the agent's configuration, not from the log; so are ``elicitation/create`` requests
(their questions are not logged).

The renderer profile (``replay.render.acp.profiles``) is the flag's, or else chosen
per corpus root from the generation its logs were written in (most of them).

A prompt that is a slash command makes a scenario "not derivable" (the command's output
is never logged): outside the score. A scenario with ``replay.override.json`` had its
model calls scripted by the override rather than derived from the log; its log still
records what the override made the model do, so its streams are rendered from the log
like any other: byte-exact, it counts as exact (and is counted as overridden); if not,
it is "overridden" — outside the score, since only a keyless run with the override as
the model could tell whether the renderer or the log is at fault.

``check_conformance`` / ``run_conformance`` return data; ``replay.report.conformance``
formats it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from replay.log.event import Event
from replay.log.reader import iter_events, read_log
from replay.log.source import file_source
from replay.render.acp import PresenterRegistry
from replay.render.acp.profiles import DEFAULT_PROFILE, PROFILES, Profile, detect_profile
from replay.render.acp.stream import normalized_lines
from replay.render.acp.translate import Mode
from replay.snapshot.diff import LineDiff, align_lines
from replay.snapshot.harness import (
    HarnessScenario,
    find_harness_scenarios,
    golden_load_lines,
    golden_update_lines,
)

EXCLUDED_UPDATES = ("available_commands_update", "current_mode_update")
"""Updates that come from the agent's configuration, not from the log."""
COMPARED_REQUESTS = ("session/request_permission",)
"""The agent's requests a log determines."""
PERMISSION_REQUEST = '"method":"session/request_permission"'
USER_CHUNK = "user_message_chunk"

ConformanceStatus = Literal["exact", "differs", "not derivable", "overridden"]
ProfileSource = Literal["flag", "corpus", "log", "default"]


@dataclass(frozen=True, slots=True)
class ModeResult:
    """One stream of one scenario against its golden. ``matching`` golden lines were
    rendered, in order; ``missing`` golden lines were not rendered, ``extra`` rendered
    lines are not in the golden, ``changed`` pairs differ in place."""

    mode: Mode
    golden: str
    expected: int
    rendered: int
    matching: int
    missing: int = 0
    extra: int = 0
    changed: int = 0
    first_diff: LineDiff | None = None

    @property
    def exact(self) -> bool:
        return self.first_diff is None

    @property
    def what_differs(self) -> str:
        """What actually differs, in words."""
        if self.exact:
            return f"{self.expected} lines, byte-exact"
        parts = []
        if self.changed:
            parts.append(f"{self.changed} changed")
        if self.missing:
            parts.append(f"{self.missing} golden line{'s' if self.missing != 1 else ''} not rendered")
        if self.extra:
            parts.append(f"{self.extra} rendered line{'s' if self.extra != 1 else ''} not in the golden")
        return f"{self.matching}/{self.expected} golden lines rendered in order; " + ", ".join(parts)


@dataclass(frozen=True, slots=True)
class ConformanceResult:
    name: str
    folder: str
    status: ConformanceStatus
    profile: Profile
    profile_source: ProfileSource
    modes: tuple[ModeResult, ...] = ()
    reason: str | None = None
    overridden: bool = False

    @property
    def scored(self) -> bool:
        return self.status in ("exact", "differs")

    def mode(self, mode: Mode) -> ModeResult | None:
        return next((m for m in self.modes if m.mode == mode), None)


@dataclass(frozen=True, slots=True)
class ConformanceReport:
    scenarios: tuple[ConformanceResult, ...]

    @property
    def scored(self) -> tuple[ConformanceResult, ...]:
        return tuple(s for s in self.scenarios if s.scored)

    @property
    def exact(self) -> int:
        return sum(1 for s in self.scenarios if s.status == "exact")

    def count(self, status: ConformanceStatus) -> int:
        return sum(1 for s in self.scenarios if s.status == status)

    @property
    def overridden(self) -> tuple[ConformanceResult, ...]:
        return tuple(s for s in self.scenarios if s.overridden)

    def mode_score(self, mode: Mode) -> tuple[int, int]:
        """(exact, compared) over the scored scenarios for one mode."""
        compared = [m for s in self.scored if (m := s.mode(mode)) is not None]
        return sum(1 for m in compared if m.exact), len(compared)

    @property
    def profiles(self) -> dict[Profile, int]:
        return dict(Counter(s.profile for s in self.scenarios))

    @property
    def failed(self) -> bool:
        """A scored scenario differs (the CLI exits 1)."""
        return any(s.status == "differs" for s in self.scenarios)


def _log_events(path: Path) -> tuple[list[Event], str, str | None]:
    log = read_log(file_source(path))
    header = log.header
    events = list(iter_events(log.items()))
    return events, (header.id if header else None) or "", header.cwd if header else None


def rendered_update_lines(
    log_path: Path, *, terminal_output: bool, presenters: PresenterRegistry | None = None, mode: Mode = "live",
    profile: Profile = DEFAULT_PROFILE,
) -> list[str]:
    """One stream of one log, normalized the way the goldens were."""
    events, session_id, cwd = _log_events(log_path)
    return _render(events, session_id, cwd, mode, profile, terminal_output, presenters)


def _render(events: list[Event], session_id: str, cwd: str | None, mode: Mode, profile: Profile,
            terminal_output: bool, presenters: PresenterRegistry | None) -> list[str]:
    return normalized_lines(iter(events), session_id=session_id, header_cwd=cwd, mode=mode, profile=profile,
                            terminal_output=terminal_output, presenters=presenters, exclude=EXCLUDED_UPDATES)


def compare_mode(mode: Mode, golden: str, expected: Sequence[str], got: Sequence[str]) -> ModeResult:
    """Align the two streams and say what differs."""
    aligned = align_lines(expected, got)
    return ModeResult(mode, golden, len(expected), len(got), aligned.matching, aligned.missing, aligned.extra,
                      aligned.changed, aligned.first)


def _golden_name(scenario: HarnessScenario) -> str:
    path = scenario.live_golden or scenario.golden
    return path.name if path is not None else "(none)"


def check_conformance(
    scenario: HarnessScenario,
    presenters: PresenterRegistry | None = None,
    profile: Profile | None = None,
    profile_source: ProfileSource | None = None,
) -> ConformanceResult:
    """Render the scenario's streams and compare them with its goldens. Without a
    ``profile``, the one of its log's generation (else the default)."""
    events, session_id, cwd = _log_events(scenario.primary_log)
    if profile is None:
        detected = detect_profile(events)
        profile, profile_source = (detected, "log") if detected is not None else (DEFAULT_PROFILE, "default")
    source: ProfileSource = profile_source or "flag"
    terminal = scenario.terminal_output
    modes: list[ModeResult] = []

    live_expected = golden_update_lines(scenario, exclude=EXCLUDED_UPDATES, requests=COMPARED_REQUESTS)
    if scenario.live_golden is not None or scenario.golden is not None:
        got = _render(events, session_id, cwd, "live", profile, terminal, presenters)
        modes.append(compare_mode("live", _golden_name(scenario), live_expected, got))

    if PROFILES[profile].has_load:
        load_expected = golden_load_lines(scenario, exclude=EXCLUDED_UPDATES)
        got = _render(events, session_id, cwd, "load", profile, terminal, presenters)
        if load_expected is not None:
            modes.append(compare_mode("load", LOAD_NAME, load_expected, got))
        elif modes:
            # No load golden: a load replays what live streamed, plus the user's side.
            expected = [line for line in live_expected if PERMISSION_REQUEST not in line]
            got = [line for line in got if f'"sessionUpdate":"{USER_CHUNK}"' not in line]
            modes.append(compare_mode("load", f"{_golden_name(scenario)} as a load replays it", expected, got))

    overridden = scenario.override is not None
    status: ConformanceStatus = "exact" if all(m.exact for m in modes) else "overridden" if overridden else "differs"
    reason = None
    if scenario.slash_commands:
        status = "not derivable"
        reason = f"slash command prompt {scenario.slash_commands[0]!r}: its output is never logged"
    elif overridden and status == "exact":
        reason = f"{OVERRIDE_NOTE}; rendered from the log, byte-exact"
    elif overridden:
        reason = f"{OVERRIDE_NOTE}; only a keyless run with the override as the model can derive its stream"
    return ConformanceResult(scenario.name, str(scenario.folder), status, profile, source, tuple(modes), reason,
                          overridden)


OVERRIDE_NOTE = "replay.override.json scripted its model calls"


LOAD_NAME = "load.expected.jsonl"


def corpus_profile(scenarios: Iterable[HarnessScenario]) -> Profile | None:
    """The generation most of the corpus's logs were written in (``None``: no log
    tells)."""
    found: Counter[Profile] = Counter()
    for scenario in scenarios:
        log = read_log(file_source(scenario.primary_log))
        try:
            detected = detect_profile(iter_events(log.items()))  # stops at the first telling event
        finally:
            log.close()
        if detected is not None:
            found[detected] += 1
    return found.most_common(1)[0][0] if found else None


def run_conformance(
    roots: Iterable[Path], presenters: PresenterRegistry | None = None, profile: Profile | None = None
) -> ConformanceReport:
    """Check every scenario folder under the roots that has a golden; the profile is
    ``profile``, or else chosen per root from its logs' generation."""
    results: list[ConformanceResult] = []
    for root in roots:
        scenarios = [s for s in find_harness_scenarios([root]) if s.has_golden]
        chosen: Profile | None = profile
        source: ProfileSource = "flag"
        if chosen is None:
            chosen = corpus_profile(scenarios)
            source = "corpus" if chosen is not None else "default"
            chosen = chosen or DEFAULT_PROFILE
        results.extend(check_conformance(s, presenters, chosen, source) for s in scenarios)
    return ConformanceReport(tuple(results))
