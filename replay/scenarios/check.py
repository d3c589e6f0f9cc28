"""Check and refresh: run scenarios keylessly and hold the goldens against the run.

``check_scenarios`` never writes to the goldens (with a ``Pending`` collector it hands
every golden that differs or is missing to it: ``replay check --pending``).
``refresh_scenarios`` writes exactly the goldens whose bytes changed (atomically),
under the store's lock; with ``prune`` it deletes orphans; with ``dry_run`` it writes
nothing and says what it would do. Only the selected scenarios' golden folders are
read or touched, so a partial run is safe for every other scenario.
"""

from __future__ import annotations

import functools
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from replay.fs import FsError, Tree, within
from replay.goldens import PENDING_FOLDER
from replay.goldens.compare import FileResult, Pending, compare_folder, orphan_folder, refresh_folder
from replay.goldens.pending import PendingError, PendingWriter, checked_scope
from replay.goldens.select import Selection
from replay.goldens.store import GoldenStore, StoreError, as_tree
from replay.parallel import Batch, in_order
from replay.scenarios.artefacts import Producer, comparator, render_artefacts
from replay.scenarios.names import pending_store
from replay.scenarios.scenario import (
    SCENARIO_FILE,
    SCENARIO_NAME_RULE,
    STAGING,
    ScenarioError,
    is_scenario_name,
    run_scenario,
)


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


def scenario_names(scenarios_root: Tree | Path) -> list[str]:
    """The scenarios of a tree: every folder holding an entry named ``scenario.json``
    (a link, a FIFO: running it says what is wrong), and every link in a folder's
    place (refused when run, never followed); not what ``replay new`` stages (``STAGING``:
    a killed import's leftover is no scenario). ``StoreError`` when the tree's root is
    a link replay found (see ``replay.fs``) or cannot be listed."""
    tree = as_tree(scenarios_root)
    return [e.name for e in tree.entries() if not e.name.startswith(STAGING)
            and (e.is_link or (e.is_dir and tree.exists(e.name, SCENARIO_FILE)))]


def as_selection(names: Selection | Sequence[str] | None) -> Selection:
    if isinstance(names, Selection):
        return names
    return Selection.parse(names or ())


class NoScenarios(Exception):
    """The scenario folder holds no scenario (a usage error)."""


class PendingInsideTree(Exception):
    """The pending folder asked for lies inside the golden or scenario tree (a usage error)."""


def selected_scenarios(scenarios_root: Tree | Path, names: Selection | Sequence[str] | None) -> list[str]:
    """The scenarios to run: those the selectors name (``SelectorError`` for one that
    matches none), or all; ``NoScenarios`` when the tree holds none."""
    found = as_selection(names).scenarios(scenario_names(scenarios_root), str(scenarios_root))
    if not found:
        raise NoScenarios(f"no scenarios in {scenarios_root} (a scenario is a folder with {SCENARIO_FILE})")
    return found


@dataclass(frozen=True, slots=True)
class Rendered:
    """What a keyless run of one scenario produced: its artefacts by golden file name,
    or why it could not run; and how long that took."""

    artefacts: dict[str, bytes] | None
    error: str | None = None
    seconds: float = 0.0


def render_scenario(scenarios_root: Tree | Path, producers: list[Producer] | None, name: str) -> Rendered:
    """Run one scenario keylessly and render its artefacts (pure: writes nothing)."""
    started = time.perf_counter()
    tree = as_tree(scenarios_root)
    if not is_scenario_name(name):
        return Rendered(None, f"{tree.at(name)}: {SCENARIO_NAME_RULE}; rename the folder")
    try:
        artefacts = render_artefacts(run_scenario(tree.at(name), tree), producers)
    except ScenarioError as exc:
        return Rendered(None, str(exc), time.perf_counter() - started)
    return Rendered(artefacts, None, time.perf_counter() - started)


def _lost(name: str, why: str) -> Rendered:
    return Rendered(None, f"{name}: replay could not run this scenario: {why}")


def render_scenarios(scenarios_root: Tree | Path, names: Iterable[str], producers: list[Producer] | None = None,
                     jobs: int = 1, fork: bool = True) -> Iterator[tuple[str, Rendered]]:
    """Each scenario's run, in the order of ``names``. Scenarios are independent, so
    with ``jobs`` > 1 they run on worker processes (``replay.parallel``), with the same
    results; nothing is written: comparing and writing stay with the caller.
    ``fork=False`` when the caller holds a lock on a file: workers from a fresh
    interpreter do not share it, so the lock ends with the caller, whatever happens."""
    chosen = list(names)
    work = functools.partial(render_scenario, scenarios_root, producers)
    runs = in_order(work, (Batch([name]) for name in chosen), min(jobs, len(chosen)), _lost, fork=fork)
    yield from zip(chosen, runs, strict=True)


def check_scenario(scenarios_root: Tree | Path, store: GoldenStore, name: str, producers: list[Producer] | None = None,
                   *, selection: Selection | None = None, full: bool = False,
                   pending: Pending | None = None, rendered: Rendered | None = None) -> ScenarioResult:
    """Compare the (selected) goldens of one scenario with a fresh run (or with its
    ``rendered`` run, from ``render_scenarios``). Never writes to the goldens;
    ``pending`` gets the new bytes of each that differs or is missing."""
    run = rendered if rendered is not None else render_scenario(scenarios_root, producers, name)
    started = time.perf_counter()
    result = ScenarioResult(name, error=run.error)
    if run.artefacts is not None:
        try:
            result.files.extend(compare_folder(store, name, run.artefacts, selection or Selection(), comparator, full,
                                                     pending))
        except StoreError as exc:
            result.error = str(exc)
    result.seconds = run.seconds + time.perf_counter() - started
    return result


def orphan_scenarios(scenarios_root: Tree | Path, store: GoldenStore) -> list[ScenarioResult]:
    """Golden folders of scenarios that do not exist (and links in the golden tree,
    which are refused, never followed)."""
    known = set(scenario_names(scenarios_root))
    results = []
    for folder in store.scenarios():
        if folder in known:
            continue
        result = ScenarioResult(folder, exists=False)
        try:
            result.files = orphan_folder(store, folder)
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
    waiting: PendingWritten | None = None
    """Pending goldens an earlier run left in the default folder (a check without
    ``--pending`` says so, and how to review them)."""


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


def _waiting(scenarios: Tree) -> PendingWritten | None:
    """The pending goldens waiting in the default folder (``None``: none, or a folder
    that cannot be read: a check that does not use it says nothing of it)."""
    folder = pending_store(Tree.found(Path(PENDING_FOLDER)), scenarios)
    try:
        count = len(folder.manifest().entries)
    except (PendingError, FsError):
        return None
    return PendingWritten(str(folder.root), count) if count else None


def check_scenarios(
    scenarios_root: Tree | Path, goldens_root: Tree | Path, names: Selection | Sequence[str] | None = None,
    producers: list[Producer] | None = None, *, full: bool = False, pending: Tree | Path | None = None,
    jobs: int = 1, context: CheckContext | None = None, on_scenario: Callable[[ScenarioResult], None] | None = None,
) -> CheckReport:
    """Check the selected scenarios (all, and orphan golden folders, when none is
    selected), running them on ``jobs`` worker processes; ``on_scenario`` hears each
    result as it is made. Never writes to the goldens. With a ``pending`` folder,
    each golden that differs or is missing is written there, as this run made it,
    under the folder's lock, and its manifest is committed: the report says how many
    are pending (``context.pending``)."""
    selection = as_selection(names)
    scenarios = as_tree(scenarios_root)
    store = GoldenStore(goldens_root)
    selected = selected_scenarios(scenarios, selection)
    store.tree.check_root()  # a linked root is refused before anything runs
    context = context or CheckContext(str(scenarios))

    def check(writer: Pending | None) -> list[ScenarioResult]:
        # Workers from a fresh interpreter when a pending folder's lock is held here.
        runs = render_scenarios(scenarios, selected, producers, jobs, fork=writer is None)
        results = []
        for name, run in runs:
            result = check_scenario(scenarios, store, name, producers, selection=selection, full=full,
                                    pending=writer, rendered=run)
            results.append(result)
            if on_scenario is not None:
                on_scenario(result)
        if selection.everything:
            results.extend(orphan_scenarios(scenarios, store))
        return results

    if pending is None:
        return CheckReport(str(store.root), check(None), replace(context, waiting=_waiting(scenarios)))
    folder = pending_store(pending, scenarios)
    if any(within(folder.root, tree.path) for tree in (store.tree, scenarios)):
        raise PendingInsideTree(f"{folder.root}: inside the golden or scenario tree; pending goldens go elsewhere "
                                f"(the default is {PENDING_FOLDER})")
    with folder.lock():
        folder.manifest()  # an untrusted manifest is refused before anything runs
        writer = PendingWriter(folder)
        try:
            results = check(writer)
        except BaseException:
            writer.discard()  # nothing of an interrupted or failed run is published
            raise
        count = writer.commit(checked_scope(selection, selected))
    written = PendingWritten(str(folder.root), count, folder.root == Path(PENDING_FOLDER))
    return CheckReport(str(store.root), results, replace(context, pending=written))


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
    scenarios_root: Tree | Path, goldens_root: Tree | Path, names: Selection | Sequence[str] | None = None,
    prune: bool = False, producers: list[Producer] | None = None, *, dry_run: bool = False, full: bool = False,
    jobs: int = 1,
) -> RefreshResult:
    """Rewrite exactly the selected goldens that changed; ``prune`` deletes orphans.
    Keyless: the scenario's own script or recording plays the model. ``dry_run``
    writes nothing (not even the lock) and gives each golden that would change its
    changes (``full``: untruncated). Scenarios run on ``jobs`` worker processes;
    every write is made here, under the lock, atomically."""
    selection = as_selection(names)
    store = GoldenStore(goldens_root)
    selected = selected_scenarios(scenarios_root, selection)
    store.tree.check_root()
    refresh = _Refresh(scenarios_root, store, selection, prune, producers, dry_run, full, jobs)
    if dry_run:
        results = refresh.run(selected)
    else:
        with store.lock():
            store.clean_temp_files()
            results = refresh.run(selected)
    return RefreshResult(str(goldens_root), results, dry_run)


@dataclass
class _Refresh:
    scenarios_root: Tree | Path
    store: GoldenStore
    selection: Selection
    prune: bool
    producers: list[Producer] | None
    dry_run: bool
    full: bool
    jobs: int

    def run(self, selected: list[str]) -> list[ScenarioResult]:
        runs = render_scenarios(self.scenarios_root, selected, self.producers, self.jobs, fork=self.dry_run)
        results = [self.scenario(name, run) for name, run in runs]
        if self.selection.everything:
            for folder in self.store.scenarios():
                if folder not in selected:
                    result = ScenarioResult(folder, exists=False)
                    results.append(result)
                    try:
                        result.files = orphan_folder(self.store, folder, prune=self.prune, dry_run=self.dry_run,
                                                     check=False)
                    except StoreError as exc:
                        result.error = str(exc)
        return results

    def scenario(self, name: str, run: Rendered) -> ScenarioResult:
        started = time.perf_counter()
        result = ScenarioResult(name, error=run.error)
        if run.artefacts is not None:
            try:
                result.files = refresh_folder(self.store, name, run.artefacts, self.selection, comparator,
                                              prune=self.prune, dry_run=self.dry_run, full=self.full)
            except StoreError as exc:
                result.error = str(exc)
        result.seconds = run.seconds + time.perf_counter() - started
        return result
