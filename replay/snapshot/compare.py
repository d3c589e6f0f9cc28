"""Check and refresh: run scenarios keylessly and hold the goldens against the run.

``check_scenarios`` never writes. ``refresh_scenarios`` writes exactly the goldens
whose bytes changed (atomically), under the store's lock; with ``prune`` it deletes
orphans. Only the named scenarios' golden folders are read or touched, so a partial
run is safe for every other scenario.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from replay.snapshot.artefacts import Producer, render_artefacts
from replay.snapshot.diff import changes
from replay.snapshot.scenario import SCENARIO_FILE, ScenarioError, run_scenario
from replay.snapshot.store import GoldenStore, StoreError

FileStatus = Literal["ok", "differs", "missing", "orphan", "created", "updated", "unchanged", "deleted"]


@dataclass(frozen=True)
class FileResult:
    scenario: str
    name: str
    status: FileStatus
    changes: tuple[str, ...] = ()

    @property
    def failed(self) -> bool:
        return self.status in ("differs", "missing", "orphan")


@dataclass
class ScenarioResult:
    name: str
    files: list[FileResult] = field(default_factory=list)
    error: str | None = None

    @property
    def failed(self) -> bool:
        return self.error is not None or any(f.failed for f in self.files)


class UnknownScenario(Exception):
    """A scenario named on the command line does not exist."""


def scenario_names(scenarios_root: Path) -> list[str]:
    if not scenarios_root.is_dir():
        return []
    return sorted(p.name for p in scenarios_root.iterdir() if (p / SCENARIO_FILE).is_file())


def selected_scenarios(scenarios_root: Path, names: Sequence[str] | None) -> list[str]:
    """The scenarios to run: the named ones (``UnknownScenario`` for a wrong name), or all."""
    known = scenario_names(scenarios_root)
    if not names:
        return known
    missing = [n for n in names if n not in known]
    if missing:
        raise UnknownScenario(f"no scenario named {', '.join(missing)} in {scenarios_root} (known: "
                              f"{', '.join(known) or 'none'})")
    return list(dict.fromkeys(names))


def _render(scenarios_root: Path, name: str, producers: list[Producer] | None) -> dict[str, bytes]:
    return render_artefacts(run_scenario(scenarios_root / name), producers)


def check_scenario(scenarios_root: Path, store: GoldenStore, name: str,
                   producers: list[Producer] | None = None) -> ScenarioResult:
    """Compare every golden of one scenario with a fresh run. Read-only."""
    result = ScenarioResult(name)
    try:
        produced = _render(scenarios_root, name, producers)
    except ScenarioError as exc:
        result.error = str(exc)
        return result
    try:
        _compare(store, name, produced, result)
    except StoreError as exc:
        result.error = str(exc)
    return result


def _compare(store: GoldenStore, name: str, produced: dict[str, bytes], result: ScenarioResult) -> None:
    for file, data in produced.items():
        golden = store.read(name, file)
        if golden is None:
            result.files.append(FileResult(name, file, "missing",
                                           (f"no golden: run `replay refresh {name}` to create it",)))
        elif golden == data:
            result.files.append(FileResult(name, file, "ok"))
        else:
            result.files.append(FileResult(name, file, "differs", tuple(changes(file, golden, data))))
    for file in store.files(name):
        if file not in produced:
            result.files.append(FileResult(name, file, "orphan", (
                "no artefact of this scenario produces this file: delete it, or run `replay refresh --prune`",)))


def orphan_scenarios(scenarios_root: Path, store: GoldenStore) -> list[ScenarioResult]:
    """Golden folders of scenarios that do not exist."""
    known = set(scenario_names(scenarios_root))
    return [ScenarioResult(folder, [
        FileResult(folder, f, "orphan", (f"no scenario named {folder}: delete its golden folder, or run "
                                          "`replay refresh --prune`",)) for f in store.files(folder)])
        for folder in store.scenarios() if folder not in known]


@dataclass(frozen=True)
class CheckReport:
    """A check of scenarios against the goldens under ``goldens``; it fails when one
    scenario does (a golden differs, is missing or orphaned, or the run failed)."""

    goldens: str
    scenarios: list[ScenarioResult]

    @property
    def failed(self) -> bool:
        return any(r.failed for r in self.scenarios)


def check_scenarios(
    scenarios_root: Path, goldens_root: Path, names: Sequence[str] | None = None,
    producers: list[Producer] | None = None,
) -> CheckReport:
    """Check the named scenarios (all, and orphan golden folders, when none is named)."""
    store = GoldenStore(goldens_root)
    results = [check_scenario(scenarios_root, store, n, producers) for n in selected_scenarios(scenarios_root, names)]
    if not names:
        results.extend(orphan_scenarios(scenarios_root, store))
    return CheckReport(str(goldens_root), results)


@dataclass
class RefreshResult:
    """A refresh of the goldens under ``goldens``; it fails when a scenario could not be
    run or written (changed goldens are its purpose, not a failure)."""

    goldens: str
    scenarios: list[ScenarioResult]

    def counts(self) -> Counter[str]:
        return Counter(f.status for s in self.scenarios for f in s.files)

    @property
    def failed(self) -> bool:
        return any(s.error is not None for s in self.scenarios)


def refresh_scenarios(
    scenarios_root: Path, goldens_root: Path, names: Sequence[str] | None = None, prune: bool = False,
    producers: list[Producer] | None = None,
) -> RefreshResult:
    """Rewrite exactly the goldens that changed; ``prune`` deletes orphans. Keyless:
    the scenario's own script or recording plays the model."""
    store = GoldenStore(goldens_root)
    selected = selected_scenarios(scenarios_root, names)
    results: list[ScenarioResult] = []
    with store.lock():
        store.clean_temp_files()
        for name in selected:
            result = ScenarioResult(name)
            results.append(result)
            try:
                produced = _render(scenarios_root, name, producers)
                for file, data in produced.items():
                    result.files.append(FileResult(name, file, store.write(name, file, data)))
                for file in store.files(name):
                    if file not in produced:
                        if prune:
                            store.delete(name, file)
                        result.files.append(FileResult(name, file, "deleted" if prune else "orphan"))
            except (ScenarioError, StoreError) as exc:
                result.error = str(exc)
        if not names:
            for folder in store.scenarios():
                if folder not in selected:
                    result = ScenarioResult(folder)
                    results.append(result)
                    for file in store.files(folder):
                        if prune:
                            store.delete(folder, file)
                        result.files.append(FileResult(folder, file, "deleted" if prune else "orphan"))
    return RefreshResult(str(goldens_root), results)
