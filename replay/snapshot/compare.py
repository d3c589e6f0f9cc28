"""Check and refresh: run scenarios keylessly and hold the goldens against the run.

``check_scenarios`` never writes to the goldens (with a ``Pending`` collector it hands
every golden that differs or is missing to it: ``replay check --pending``).
``refresh_scenarios`` writes exactly the goldens whose bytes changed (atomically),
under the store's lock; with ``prune`` it deletes orphans; with ``dry_run`` it writes
nothing and says what it would do. Only the selected scenarios' golden folders are
read or touched, so a partial run is safe for every other scenario.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal, Protocol

from replay.snapshot.artefacts import Producer, render_artefacts
from replay.snapshot.diff import Change, changes, new_file_changes
from replay.snapshot.scenario import SCENARIO_FILE, ScenarioError, run_scenario
from replay.snapshot.select import Selection
from replay.snapshot.store import GoldenStore, StoreError

FileStatus = Literal["ok", "differs", "missing", "orphan", "created", "updated", "unchanged", "deleted"]


@dataclass(frozen=True)
class FileResult:
    scenario: str
    name: str
    status: FileStatus
    changes: tuple[Change, ...] = ()
    seconds: float = 0.0
    """How long comparing (or writing) it took."""

    @property
    def failed(self) -> bool:
        return self.status in ("differs", "missing", "orphan")

    @property
    def line(self) -> int | None:
        """The golden line its first change starts on (``None``: none known)."""
        return next((c.line for c in self.changes if c.line is not None), None)


@dataclass
class ScenarioResult:
    name: str
    files: list[FileResult] = field(default_factory=list)
    error: str | None = None
    """Why the scenario did not run (or its goldens could not be read); names the file."""
    seconds: float = 0.0
    """How long running it and comparing (or writing) its goldens took."""
    exists: bool = True
    """``False``: a golden folder whose scenario does not exist."""

    @property
    def failed(self) -> bool:
        return self.error is not None or any(f.failed for f in self.files)


class Pending(Protocol):
    """Where ``check --pending`` puts what a run produced for a golden that differs
    (``golden`` its bytes now) or is missing (``golden`` ``None``)."""

    def add(self, scenario: str, artefact: str, golden: bytes | None, data: bytes) -> None: ...


def scenario_names(scenarios_root: Path) -> list[str]:
    if not scenarios_root.is_dir():
        return []
    # Any entry named scenario.json (a link, a FIFO) makes a scenario: running it says what is wrong.
    return sorted(p.name for p in scenarios_root.iterdir() if os.path.lexists(p / SCENARIO_FILE))


def as_selection(names: Selection | Sequence[str] | None) -> Selection:
    if isinstance(names, Selection):
        return names
    return Selection.parse(names or ())


def selected_scenarios(scenarios_root: Path, names: Selection | Sequence[str] | None) -> list[str]:
    """The scenarios to run: those the selectors name (``SelectorError`` for one that
    matches none), or all."""
    return as_selection(names).scenarios(scenario_names(scenarios_root), str(scenarios_root))


def _render(scenarios_root: Path, name: str, producers: list[Producer] | None) -> dict[str, bytes]:
    return render_artefacts(run_scenario(scenarios_root / name, scenarios_root), producers)


def check_scenario(scenarios_root: Path, store: GoldenStore, name: str, producers: list[Producer] | None = None,
                   *, selection: Selection | None = None, full: bool = False,
                   pending: Pending | None = None) -> ScenarioResult:
    """Compare the (selected) goldens of one scenario with a fresh run. Never writes
    to the goldens; ``pending`` gets the new bytes of each that differs or is missing."""
    started = time.perf_counter()
    result = ScenarioResult(name)
    try:
        produced = _render(scenarios_root, name, producers)
        _compare(store, name, produced, result, selection or Selection(), full, pending)
    except (ScenarioError, StoreError) as exc:
        result.error = str(exc)
    result.seconds = time.perf_counter() - started
    return result


def _compare(store: GoldenStore, name: str, produced: dict[str, bytes], result: ScenarioResult,
             selection: Selection, full: bool, pending: Pending | None) -> None:
    for file, data in produced.items():
        if not selection.wants(name, file):
            continue
        started = time.perf_counter()
        golden = store.read(name, file)
        if golden is None:
            found = FileResult(name, file, "missing", (Change(
                f"no golden: run `replay refresh {name}` to create it"),))
        elif golden == data:
            found = FileResult(name, file, "ok")
        else:
            found = FileResult(name, file, "differs", tuple(changes(file, golden, data, full)))
        if found.failed and pending is not None:
            pending.add(name, file, golden, data)
        result.files.append(FileResult(found.scenario, found.name, found.status, found.changes,
                                       time.perf_counter() - started))
    for file in store.files(name):
        if file not in produced and selection.wants(name, file):
            result.files.append(FileResult(name, file, "orphan", (Change(
                "no artefact of this scenario produces this file: delete it, or run `replay refresh --prune`"),)))


def orphan_scenarios(scenarios_root: Path, store: GoldenStore) -> list[ScenarioResult]:
    """Golden folders of scenarios that do not exist (and links in the golden tree,
    which are refused, never followed)."""
    known = set(scenario_names(scenarios_root))
    results = []
    for folder in store.scenarios():
        if folder in known:
            continue
        result = ScenarioResult(folder, exists=False)
        try:
            result.files = [FileResult(folder, f, "orphan", (Change(f"no scenario named {folder}: delete its golden "
                                                                    "folder, or run `replay refresh --prune`"),))
                            for f in store.files(folder)]
        except StoreError as exc:
            result.error = str(exc)
        results.append(result)
    return results


@dataclass(frozen=True)
class PendingWritten:
    """What ``check --pending`` left in the pending folder: ``count`` goldens in all
    (this run's and those of scenarios it did not check)."""

    folder: str
    count: int
    default: bool = True
    """Whether ``folder`` is the default (``.replay/pending``), so commands need not name it."""


@dataclass(frozen=True)
class CheckContext:
    """Where and how a check ran: what its reports cite (when, on which host) and what
    the next command it suggests must repeat."""

    scenarios_dir: str = "scenarios"
    tree_args: tuple[str, ...] = ()
    """The ``--scenarios``/``--goldens`` options as given (only those not at their default)."""
    started: datetime | None = None
    host: str = ""
    ci: bool = False
    """Run under CI (``CI`` set, or ``--ci``): no command that writes goldens is suggested."""
    pending: PendingWritten | None = None


@dataclass(frozen=True)
class CheckReport:
    """A check of scenarios against the goldens under ``goldens``; it fails when one
    scenario does (a golden differs, is missing or orphaned, or the run failed)."""

    goldens: str
    scenarios: list[ScenarioResult]
    context: CheckContext = CheckContext()

    @property
    def failed(self) -> bool:
        return any(r.failed for r in self.scenarios)

    @property
    def seconds(self) -> float:
        return sum(r.seconds for r in self.scenarios)


def check_scenarios(
    scenarios_root: Path, goldens_root: Path, names: Selection | Sequence[str] | None = None,
    producers: list[Producer] | None = None, *, full: bool = False, pending: Pending | None = None,
) -> CheckReport:
    """Check the selected scenarios (all, and orphan golden folders, when none is selected)."""
    selection = as_selection(names)
    store = GoldenStore(goldens_root)
    results = [check_scenario(scenarios_root, store, n, producers, selection=selection, full=full, pending=pending)
               for n in selected_scenarios(scenarios_root, selection)]
    if selection.everything:
        results.extend(orphan_scenarios(scenarios_root, store))
    return CheckReport(str(goldens_root), results, CheckContext(str(scenarios_root)))


@dataclass
class RefreshResult:
    """A refresh of the goldens under ``goldens``; it fails when a scenario could not be
    run or written (changed goldens are its purpose, not a failure), and, as a dry run,
    when something would change."""

    goldens: str
    scenarios: list[ScenarioResult]
    dry_run: bool = False

    def counts(self) -> Counter[str]:
        return Counter(f.status for s in self.scenarios for f in s.files)

    @property
    def changed(self) -> bool:
        counts = self.counts()
        return bool(counts["created"] or counts["updated"] or counts["deleted"])

    @property
    def failed(self) -> bool:
        return any(s.error is not None for s in self.scenarios) or (self.dry_run and self.changed)


def refresh_scenarios(
    scenarios_root: Path, goldens_root: Path, names: Selection | Sequence[str] | None = None, prune: bool = False,
    producers: list[Producer] | None = None, *, dry_run: bool = False, full: bool = False,
) -> RefreshResult:
    """Rewrite exactly the selected goldens that changed; ``prune`` deletes orphans.
    Keyless: the scenario's own script or recording plays the model. ``dry_run``
    writes nothing (not even the lock) and gives each golden that would change its
    changes (``full``: untruncated)."""
    selection = as_selection(names)
    store = GoldenStore(goldens_root)
    selected = selected_scenarios(scenarios_root, selection)
    refresh = _Refresh(scenarios_root, store, selection, prune, producers, dry_run, full)
    if dry_run:
        results = refresh.run(selected)
    else:
        with store.lock():
            store.clean_temp_files()
            results = refresh.run(selected)
    return RefreshResult(str(goldens_root), results, dry_run)


@dataclass
class _Refresh:
    scenarios_root: Path
    store: GoldenStore
    selection: Selection
    prune: bool
    producers: list[Producer] | None
    dry_run: bool
    full: bool

    def run(self, selected: list[str]) -> list[ScenarioResult]:
        results = [self.scenario(name) for name in selected]
        if self.selection.everything:
            for folder in self.store.scenarios():
                if folder not in selected:
                    result = ScenarioResult(folder, exists=False)
                    results.append(result)
                    try:
                        for file in self.store.files(folder):
                            result.files.append(self.orphan(folder, file))
                    except StoreError as exc:
                        result.error = str(exc)
        return results

    def scenario(self, name: str) -> ScenarioResult:
        started = time.perf_counter()
        result = ScenarioResult(name)
        try:
            produced = _render(self.scenarios_root, name, self.producers)
            for file, data in produced.items():
                if self.selection.wants(name, file):
                    result.files.append(self.write(name, file, data))
            for file in self.store.files(name):
                if file not in produced and self.selection.wants(name, file):
                    result.files.append(self.orphan(name, file))
        except (ScenarioError, StoreError) as exc:
            result.error = str(exc)
        result.seconds = time.perf_counter() - started
        return result

    def write(self, name: str, file: str, data: bytes) -> FileResult:
        if not self.dry_run:
            return FileResult(name, file, self.store.write(name, file, data))
        golden = self.store.read(name, file)
        if golden is None:
            return FileResult(name, file, "created", tuple(new_file_changes(data, self.full)))
        if golden == data:
            return FileResult(name, file, "unchanged")
        return FileResult(name, file, "updated", tuple(changes(file, golden, data, self.full)))

    def orphan(self, name: str, file: str) -> FileResult:
        if not self.prune:
            return FileResult(name, file, "orphan")
        if not self.dry_run:
            self.store.delete(name, file)
        return FileResult(name, file, "deleted")
