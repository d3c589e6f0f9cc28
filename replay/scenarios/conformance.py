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
is never logged): outside the score.

A scenario with ``replay.override.json`` had its model calls scripted by the override,
not derived from its log: the harness derived its streams by a keyless run with the
override as the model. So does conformance (``derive_keyless``): the folder is imported
into a temporary directory as ``replay new --from-log --use-override`` would (the
override plays the model it scripts — the agent's, or the session-title model's —
and the recording answers the tools the loop does not model), run keylessly, and the
re-persisted log is rendered through the corpus's profile and compared like any other.
Those scenarios are scored by that derivation and counted apart; their streams
rendered straight from the recorded log are a second figure ("from the log"). One the
keyless run cannot derive (the import or the run fails) is "overridden": outside the
score, with the reason. Nothing outside the temporary directory is written.

``check_conformance`` / ``run_conformance`` return data; ``replay.report.conformance``
formats it.
"""

from __future__ import annotations

import io
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from replay.goldens.streams import LineDiff, align_lines
from replay.hints import command
from replay.log.event import KNOWN_TYPES, Event
from replay.log.harness import (
    HarnessScenario,
    find_harness_scenarios,
    golden_load_lines,
    golden_update_lines,
)
from replay.log.reader import Source, iter_events, read_log
from replay.log.source import file_source
from replay.render.acp import PresenterRegistry
from replay.render.acp.profiles import DEFAULT_PROFILE, PROFILES, Profile, detect_profile
from replay.render.acp.stream import normalized_lines
from replay.render.acp.translate import Mode
from replay.scenarios.artefacts import ACP_STREAM, normalize_log
from replay.scenarios.importer import ImportRefused, NewScenarioError, import_log
from replay.scenarios.scenario import ScenarioError, load_scenario, run_scenario
from replay.words import counted

EXCLUDED_UPDATES = ("available_commands_update", "current_mode_update")
"""Updates that come from the agent's configuration, not from the log."""
COMPARED_REQUESTS = ("session/request_permission",)
"""The agent's requests a log determines."""
PERMISSION_REQUEST = '"method":"session/request_permission"'
USER_CHUNK = "user_message_chunk"

ConformanceStatus = Literal["exact", "differs", "not derivable", "overridden"]
ProfileSource = Literal["flag", "corpus", "log", "default"]
OverridePlays = Literal["agent", "title"]
"""The model ``replay.override.json`` played in a keyless run: the agent's, or the
session-title model's."""
KeylessOutcome = Literal["derived", "no run"]
"""An overridden scenario's keyless run: it derived the streams, or it could not run."""


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
    approximate: bool = False
    """The streams were too costly to align exactly: aligned linearly (the counts are an
    upper bound of what differs)."""

    @property
    def exact(self) -> bool:
        return self.first_diff is None

    @property
    def what_differs(self) -> str:
        """What actually differs, in words."""
        if self.exact:
            return f"{counted(self.expected, 'line')}, byte-exact"
        parts = []
        if self.changed:
            parts.append(f"{self.changed} changed")
        if self.missing:
            parts.append(f"{counted(self.missing, 'golden line')} not rendered")
        if self.extra:
            parts.append(f"{counted(self.extra, 'rendered line')} not in the golden")
        aligned = " (too costly to align exactly: aligned linearly)" if self.approximate else ""
        return f"{self.matching}/{self.expected} golden lines rendered in order{aligned}; " + ", ".join(parts)


def what_differs(modes: Sequence[ModeResult]) -> str:
    """Every stream's result, in words."""
    return "; ".join(f"{m.mode}: {m.what_differs}" for m in modes) or "no stream compared"


@dataclass(frozen=True, slots=True)
class ConformanceResult:
    """One scenario. ``modes`` are the scored streams: rendered from the recorded log,
    or for a scenario with ``replay.override.json`` from the log a keyless run
    re-persisted (``keyless``: ``"derived"``; ``"no run"`` when it could not run, then
    ``modes`` is empty; ``None`` when none was tried). With a keyless run tried,
    ``from_log`` holds the streams rendered from the recorded log, and
    ``override_plays`` the model the override played."""

    name: str
    folder: str
    status: ConformanceStatus
    profile: Profile
    profile_source: ProfileSource
    modes: tuple[ModeResult, ...] = ()
    reason: str | None = None
    overridden: bool = False
    keyless: KeylessOutcome | None = None
    from_log: tuple[ModeResult, ...] = ()
    override_plays: OverridePlays | None = None

    @property
    def scored(self) -> bool:
        return self.status in ("exact", "differs")

    @property
    def streams(self) -> str:
        """What differs in the scored streams, in words."""
        return what_differs(self.modes)

    @property
    def exact_from_log(self) -> bool:
        """Every stream rendered from the recorded log is byte-exact."""
        return all(m.exact for m in (self.from_log if self.keyless is not None else self.modes))

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


def _log_events(source: Source) -> tuple[list[Event], str, str | None]:
    log = read_log(source)
    try:
        header = log.header
        events = list(iter_events(log.items()))
    finally:
        log.close()
    return events, (header.id if header else None) or "", header.cwd if header else None


def refused_types(events: Iterable[Event]) -> list[str]:
    """The event types of a log that make today's harness refuse it (unknown to it and
    not marked ignorable: rule B6), in order of first sight."""
    seen: dict[str, None] = {}
    for ev in events:
        if ev.type not in KNOWN_TYPES and ev.type not in seen and ev.record.get("ignorable") is not True:
            seen[ev.type] = None
    return list(seen)


def refused_note(types: Sequence[str]) -> str | None:
    """Why a log conformance renders is one the audit says today's harness refuses."""
    if not types:
        return None
    named = ", ".join(types)
    return (f"today's harness refuses this log ({named}: a type it does not know, rule B6 of {command('audit')}); "
            "the goldens are the streams the harness that wrote it recorded, and they are compared as they are")


def rendered_update_lines(
    log_path: Path, *, terminal_output: bool, presenters: PresenterRegistry | None = None, mode: Mode = "live",
    profile: Profile = DEFAULT_PROFILE,
) -> list[str]:
    """One stream of one log, normalized the way the goldens were."""
    events, session_id, cwd = _log_events(file_source(log_path))
    return _render(events, session_id, cwd, mode, profile, terminal_output, presenters)


def _render(events: list[Event], session_id: str, cwd: str | None, mode: Mode, profile: Profile,
            terminal_output: bool, presenters: PresenterRegistry | None) -> list[str]:
    return list(normalized_lines(iter(events), session_id=session_id, header_cwd=cwd, mode=mode, profile=profile,
                                 terminal_output=terminal_output, presenters=presenters, exclude=EXCLUDED_UPDATES))


def compare_mode(mode: Mode, golden: str, expected: Sequence[str], got: Sequence[str]) -> ModeResult:
    """Align the two streams and say what differs."""
    aligned = align_lines(expected, got, ACP_STREAM.focus)  # as the ACP streams producer compares
    return ModeResult(mode, golden, len(expected), len(got), aligned.matching, aligned.missing, aligned.extra,
                      aligned.changed, aligned.first, aligned.approximate)


def _golden_name(scenario: HarnessScenario) -> str:
    path = scenario.live_golden or scenario.golden
    return path.name if path is not None else "(none)"


def _compare(scenario: HarnessScenario, source: Source, profile: Profile,
             presenters: PresenterRegistry | None) -> tuple[ModeResult, ...]:
    """The streams of one log against the scenario's goldens."""
    events, session_id, cwd = _log_events(source)
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
    return tuple(modes)


def _refused(scenario: HarnessScenario) -> str | None:
    """``refused_note`` of the scenario's recorded log."""
    events, _, _ = _log_events(scenario.source())
    return refused_note(refused_types(events))


def _log_profile(scenario: HarnessScenario) -> Profile | None:
    """The generation one scenario's log was written in (``None``: it does not tell)."""
    log = read_log(scenario.source())
    try:
        return detect_profile(iter_events(log.items()))  # stops at the first telling event
    finally:
        log.close()


@dataclass(frozen=True, slots=True)
class KeylessRun:
    """What a keyless run with the override as the model gave: the streams of the log it
    re-persisted, and the model the override played; or why there is no such run."""

    modes: tuple[ModeResult, ...] = ()
    plays: OverridePlays | None = None
    problem: str | None = None
    log: bytes = b""
    """The re-persisted primary log, normalized as a refresh writes it."""


KEYLESS_NAME = "derived"
"""The scenario name of a keyless derivation (in its own temporary folder)."""


def derive_keyless(scenario: HarnessScenario, profile: Profile,
                   presenters: PresenterRegistry | None = None) -> KeylessRun:
    """Derive an overridden scenario's streams as the harness did: import its folder
    into a temporary directory with the override as the model it scripts (recorded
    tools; the audit's error findings do not stop it), run it keylessly, and compare
    the streams of the re-persisted log (normalized as a refresh writes it) with the
    goldens. Writes nothing outside the temporary directory."""
    with tempfile.TemporaryDirectory(prefix="replay-conformance-") as tmp:
        try:
            imported = import_log(Path(tmp), KEYLESS_NAME, scenario.folder, force=True, use_override=True,
                                  keep_run=True)
            model = load_scenario(imported.folder).model
            run = imported.run or run_scenario(imported.folder)
        except (NewScenarioError, ImportRefused, ScenarioError) as exc:
            where = str(Path(tmp) / KEYLESS_NAME)
            why = exc.run_error if isinstance(exc, ImportRefused) and exc.run_error else str(exc)
            return KeylessRun(problem=why.replace(where, "<imported scenario>").replace(tmp, "<temporary folder>"))
    plays: OverridePlays | None = "title" if model.title is not None else "agent" if model.override else None
    if plays is None:
        return KeylessRun(problem=f"the import did not let {scenario.override} play a model")
    data = normalize_log(run.logs[0])
    source = Source(f"<{scenario.name}: re-persisted>", lambda: io.BytesIO(data))
    return KeylessRun(_compare(scenario, source, profile, presenters), plays, log=data)


OVERRIDE_NOTE = "replay.override.json scripted its model calls"
_PLAYED = {"agent": "replay.override.json played the model, the recording answered the tools it does not model",
           "title": "replay.override.json played the session-title model, the log the agent's calls"}


def check_conformance(
    scenario: HarnessScenario,
    presenters: PresenterRegistry | None = None,
    profile: Profile | None = None,
    profile_source: ProfileSource | None = None,
    *,
    keyless: bool = True,
) -> ConformanceResult:
    """Render the scenario's streams and compare them with its goldens. Without a
    ``profile``, the one of its log's generation (else the default). A scenario with
    ``replay.override.json`` is derived by a keyless run (``derive_keyless``) unless
    ``keyless`` is false; then its recorded log alone is compared."""
    if profile is None:
        detected = _log_profile(scenario)
        profile, profile_source = (detected, "log") if detected is not None else (DEFAULT_PROFILE, "default")
    source: ProfileSource = profile_source or "flag"
    result = ConformanceResult(scenario.name, str(scenario.folder), "exact", profile, source,
                               _compare(scenario, scenario.source(), profile, presenters),
                               overridden=scenario.override is not None)
    exact = all(m.exact for m in result.modes)
    refused = _refused(scenario)
    if refused is not None:
        result = replace(result, reason=refused)
    if scenario.slash_commands:
        return replace(result, status="not derivable",
                       reason=f"slash command prompt {scenario.slash_commands[0]!r}: its output is never logged")
    if not result.overridden:
        return replace(result, status="exact" if exact else "differs")
    from_log = f"from the log: {'byte-exact' if exact else what_differs(result.modes)}"
    if not keyless:
        return replace(result, status="exact" if exact else "overridden",
                       reason=f"{OVERRIDE_NOTE}; {from_log}" if exact else
                       f"{OVERRIDE_NOTE}; only a keyless run with the override as the model can derive its stream")
    run = derive_keyless(scenario, profile, presenters)
    if run.problem is not None or run.plays is None:  # (a run that played no override has a problem)
        return replace(result, status="overridden", from_log=result.modes, modes=(), keyless="no run",
                       reason=f"{OVERRIDE_NOTE}; no keyless run derives it: {run.problem}; {from_log}")
    return replace(result, status="exact" if all(m.exact for m in run.modes) else "differs", modes=run.modes,
                   keyless="derived", from_log=result.modes, override_plays=run.plays,
                   reason=f"keyless run: {_PLAYED[run.plays]}; {from_log}")


def round_trip(harness: HarnessScenario, log: Path, profile: Profile | None = None) -> ConformanceResult:
    """The proof that an import reproduced its session: the ACP streams rendered from the
    re-persisted ``log`` (a refresh's ``session.expected.jsonl``), compared with the
    harness's goldens as conformance compares the recording's own — under the profile
    of the recording's generation (or ``profile``: a corpus's)."""
    if profile is None:
        profile = _log_profile(harness) or DEFAULT_PROFILE
    return check_conformance(replace(harness, primary_log=log, tree=None), profile=profile, profile_source="corpus",
                             keyless=False)


LOAD_NAME = "load.expected.jsonl"


def corpus_profile(scenarios: Iterable[HarnessScenario]) -> Profile | None:
    """The generation most of the corpus's logs were written in (``None``: no log
    tells)."""
    found: Counter[Profile] = Counter()
    for scenario in scenarios:
        detected = _log_profile(scenario)
        if detected is not None:
            found[detected] += 1
    return found.most_common(1)[0][0] if found else None


def run_conformance(
    roots: Iterable[Path], presenters: PresenterRegistry | None = None, profile: Profile | None = None,
    *, keyless: bool = True,
) -> ConformanceReport:
    """Check every scenario folder under the roots that has a golden; the profile is
    ``profile``, or else chosen per root from its logs' generation. ``keyless``: derive
    the overridden scenarios by a keyless run (see ``check_conformance``)."""
    results: list[ConformanceResult] = []
    for root in roots:
        scenarios = [s for s in find_harness_scenarios([root]) if s.has_golden]
        chosen: Profile | None = profile
        source: ProfileSource = "flag"
        if chosen is None:
            chosen = corpus_profile(scenarios)
            source = "corpus" if chosen is not None else "default"
            chosen = chosen or DEFAULT_PROFILE
        results.extend(check_conformance(s, presenters, chosen, source, keyless=keyless) for s in scenarios)
    return ConformanceReport(tuple(results))
