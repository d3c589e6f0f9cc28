"""The pytest plugin (entry point ``pytest11``): run scenarios and hold their
artefacts against the top-level ``goldens/`` with syrupy (the optional extra ``pytest``).

Fixtures:

- ``replay_scenario(name) -> dict[str, bytes]``: run one scenario keylessly and return
  every artefact by file name (the same bytes ``replay refresh`` writes);
- ``replay_snapshot``: syrupy's ``snapshot`` bound to the golden store, so
  ``assert data == replay_snapshot(name=f"{scenario}/{artefact}")`` compares with
  ``goldens/<scenario>/<artefact>`` and ``pytest --snapshot-update`` rewrites it the
  way ``replay refresh`` does (atomically, only when the bytes changed).

``scenario_names(folder)`` lists the scenarios of a folder (for ``parametrize``).

A failing assertion names the golden and each change as ``goldens/<scenario>/<artefact>:<line>``;
a missing golden is named as such.

Under CI (``CI`` set, as insta and jest read it) ``--snapshot-update`` writes nothing
into ``goldens/``: each golden it would have written becomes a pending golden
(``--replay-pending``, default ``.replay/pending`` under the rootdir) for
``replay review`` / ``replay accept``, and the session fails; ``--replay-force-update``
writes the goldens anyway.

syrupy's trap with goldens outside the test folder (a partial ``-k`` run flags, and
with ``--snapshot-update`` deletes, the goldens of tests that did not run) cannot
happen here: the extension never claims a file it finds on disk, so only goldens a
test asserted are ever read or written, and none is ever deleted. Orphaned goldens
are ``replay check``'s job (and ``replay refresh --prune``'s).

Options: ``--replay-scenarios DIR`` and ``--replay-goldens DIR`` (default
``scenarios/`` and ``goldens/`` under the rootdir), ``--replay-pending DIR``,
``--replay-force-update``, ``--replay-lock-wait SECONDS`` (default 60: how long a
golden write waits while a ``replay refresh`` holds the tree).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from replay.extras import missing
from replay.fs import Tree
from replay.goldens.diff import changes, new_file_changes
from replay.goldens.pending import DEFAULT_FOLDER, PendingStore, PendingWriter
from replay.goldens.store import GoldenStore
from replay.hints import command, in_ci, line
from replay.report.snapshot import change_text
from replay.scenarios.artefacts import comparator, render_artefacts
from replay.scenarios.check import scenario_names
from replay.scenarios.names import pending_store
from replay.scenarios.scenario import run_scenario
from replay.style import PLAIN, sanitize
from replay.words import counted

__all__ = ["golden_extension", "replay_scenario", "replay_snapshot", "scenario_names"]

_PENDING_KEY = "replay_pending_written"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("replay")
    group.addoption("--replay-scenarios", default=None, help="folder of scenarios (default: <rootdir>/scenarios)")
    group.addoption("--replay-goldens", default=None, help="folder of goldens (default: <rootdir>/goldens)")
    group.addoption("--replay-pending", default=None,
                    help=f"under CI, where --snapshot-update puts pending goldens "
                         f"(default: <rootdir>/{DEFAULT_FOLDER})")
    group.addoption("--replay-force-update", action="store_true", default=False,
                    help="under CI, let --snapshot-update write the goldens themselves")
    group.addoption("--replay-lock-wait", type=float, default=60.0,
                    help=f"seconds a golden write waits for a running {command('refresh')} (default: 60)")


def _tree(config: pytest.Config, option: str, default: str | Path) -> Tree:
    """The folder an option names (the user's: links in its path followed), or the
    rootdir's own ``default`` (no component of it may be a link): see ``replay.fs``."""
    value = config.getoption(option)
    return Tree.named(Path(value)) if value else Tree.found(Path(default), base=Path(config.rootpath))


def _folder(config: pytest.Config, option: str, default: str | Path) -> Path:
    return _tree(config, option, default).path


def _shown(path: Path, config: pytest.Config) -> str:
    """A golden's path as a person opens it: relative to the rootdir when inside it."""
    try:
        return str(path.relative_to(config.rootpath))
    except ValueError:
        return str(path)


@dataclass
class _Writes:
    """Where ``--snapshot-update`` writes: the goldens, or under CI the pending folder."""

    goldens: GoldenStore
    pending: PendingStore | None
    written: int = 0
    lock_wait: float = 60.0
    """Seconds a golden write waits for a ``replay refresh`` that holds the tree."""

    def write(self, scenario: str, artefact: str, data: bytes) -> None:
        if self.pending is None:
            # Shared: test workers write side by side; a refresh (exclusive) excludes them.
            with self.goldens.lock(self.lock_wait, shared=True):
                self.goldens.write(scenario, artefact, data)
            return
        with self.pending.lock():
            writer = PendingWriter(self.pending)
            writer.add(scenario, artefact, self.goldens.read(scenario, artefact), data)
            writer.commit()
        self.written += 1


_WRITES = pytest.StashKey[_Writes]()
_WORKERS_WROTE = pytest.StashKey[int]()


def _writes(config: pytest.Config) -> _Writes:
    writes = config.stash.get(_WRITES, None)
    if writes is None:
        ci_pending = in_ci(os.environ) and not config.getoption("--replay-force-update")
        scenarios = _tree(config, "--replay-scenarios", "scenarios")
        pending = pending_store(_tree(config, "--replay-pending", DEFAULT_FOLDER), scenarios) if ci_pending else None
        writes = _Writes(GoldenStore(_tree(config, "--replay-goldens", "goldens")), pending,
                         lock_wait=config.getoption("--replay-lock-wait"))
        config.stash[_WRITES] = writes
    return writes


@pytest.fixture
def replay_scenario(request: pytest.FixtureRequest) -> Callable[[str], dict[str, bytes]]:
    root = _tree(request.config, "--replay-scenarios", "scenarios")

    def run(name: str) -> dict[str, bytes]:
        return render_artefacts(run_scenario(root.at(name), root))

    return run


def golden_extension(goldens: Tree | Path, writes: _Writes | None = None,
                     shown: Callable[[Path], str] = str) -> type[Any]:
    """A syrupy extension class that stores snapshot ``"<scenario>/<artefact>"`` at
    ``goldens/<scenario>/<artefact>``, writing through ``writes`` (the golden store
    there by default); ``shown`` is how a golden's path is printed."""
    from syrupy.data import SnapshotCollections
    from syrupy.extensions.single_file import SingleFileSnapshotExtension

    store = GoldenStore(goldens)
    root = store.root
    target = writes if writes is not None else _Writes(store, None)

    class ReplayGoldens(SingleFileSnapshotExtension):
        file_extension = ""
        write_immediately = True
        golden: str | None = None
        """The golden last read (what a failing assertion's diff is about)."""
        artefact = ""
        """Its file name: what says how it is compared."""

        @classmethod
        def dirname(cls, *, test_location: Any) -> str:
            return str(root)

        @classmethod
        def get_location(cls, *, test_location: Any, index: Any) -> str:
            return str(root / str(index))

        @classmethod
        def get_snapshot_name(cls, *, test_location: Any, index: Any = 0) -> str:
            # syrupy names a missing snapshot by this ("Snapshot '…' does not exist!"): the golden's path.
            return shown(root / str(index))

        @classmethod
        def matches_test_location(cls, *, test_location: Any, snapshot_location: str) -> bool:
            return True  # goldens live by scenario, not by test file: there is nothing to relate

        def is_snapshot_location(self, *, location: str) -> bool:
            return False  # never claim a golden found on disk: partial runs stay safe

        def discover_snapshots(self, *, test_location: Any, ignore_extensions: Any = None) -> Any:
            # Nothing is discovered: syrupy takes every file of a folder it searches and
            # does not own for an unknown snapshot, and `--snapshot-update` deletes those
            # (every golden a run did not touch). Goldens are pruned by `replay refresh
            # --prune` alone.
            return SnapshotCollections()

        def owns_snapshot_collection(self, *, filepath: str, test_location: Any) -> bool:
            return False

        def read_snapshot_data_from_location(self, *, snapshot_location: str, snapshot_name: str,
                                             session_id: str) -> bytes | None:
            path = Path(snapshot_location)
            self.golden = shown(path)
            self.artefact = path.name
            return store.read(path.parent.name, path.name)

        @classmethod
        def write_snapshot(cls, *, snapshot_location: str, snapshots: list[tuple[Any, Any, Any]],
                           name_order: Any = None) -> None:
            # In place of syrupy's: no folder made outside the store (the store makes its
            # own), no warning that a golden does not sit beside its test (by design), and
            # under CI the bytes go to the pending folder instead.
            path = Path(snapshot_location)
            for data, _location, _index in snapshots:
                target.write(path.parent.name, path.name, bytes(data))

        def delete_snapshots(self, *, snapshot_location: str, snapshot_names: set[str]) -> None:
            return None  # goldens are never deleted from pytest; see replay refresh --prune

        def diff_lines(self, serialized_data: Any, snapshot_data: Any) -> Iterator[str]:
            golden = self.golden or "the golden"
            new = bytes(serialized_data)
            if not snapshot_data:
                yield (f"{sanitize(golden)}: no such golden; `pytest --snapshot-update` (or {command('refresh')}) "
                       "writes it:")
                found = new_file_changes(new)
            else:
                yield f"{sanitize(golden)}: differs from this run:"
                found = changes(comparator(self.artefact), bytes(snapshot_data), new)
            yield from change_text(golden, found, PLAIN, "").splitlines()

    return ReplayGoldens


def _syrupy_installed() -> bool:
    return importlib.util.find_spec("syrupy") is not None


def _syrupy_missing() -> str:
    """Why syrupy's ``snapshot`` fixture is not there."""
    if not _syrupy_installed():
        return missing("syrupy", "pytest", "replay_snapshot")
    return ("replay_snapshot needs syrupy's `snapshot` fixture, but syrupy's plugin is not active (is it disabled "
            "with `-p no:syrupy`?)")


@pytest.fixture
def replay_snapshot(request: pytest.FixtureRequest) -> Any:
    try:
        snapshot = request.getfixturevalue("snapshot")
    except pytest.FixtureLookupError:
        pytest.fail(_syrupy_missing(), pytrace=False)
    config = request.config
    return snapshot.use_extension(golden_extension(_tree(config, "--replay-goldens", "goldens"), _writes(config),
                                                   lambda p: _shown(p, config)))


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    written = _written(config)
    if hasattr(config, "workeroutput"):  # an xdist worker: the controller adds it up
        config.workeroutput[_PENDING_KEY] = written
        return
    if written and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _written(config: pytest.Config) -> int:
    writes = config.stash.get(_WRITES, None)
    return (writes.written if writes is not None else 0) + config.stash.get(_WORKERS_WROTE, 0)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    config: pytest.Config = node.config
    done = getattr(node, "workeroutput", {}).get(_PENDING_KEY, 0)
    config.stash[_WORKERS_WROTE] = config.stash.get(_WORKERS_WROTE, 0) + int(done)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    written = _written(config)
    if not written:
        return
    folder = _folder(config, "--replay-pending", DEFAULT_FOLDER)
    where = () if folder == Path(config.rootpath) / DEFAULT_FOLDER else ("--pending", _shown(folder, config))
    terminalreporter.write_sep("-", "replay: pending goldens", red=True)
    terminalreporter.write_line(
        f"CI is set: --snapshot-update wrote {counted(written, 'pending golden')} to {_shown(folder, config)} "
        f"instead of the goldens (--replay-force-update writes the goldens). Keep that folder as the job's "
        f"artefact; then, in your checkout: {line('review', *where)}")
