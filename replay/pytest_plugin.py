"""The pytest plugin (entry point ``pytest11``): run scenarios and hold their
artefacts against the top-level ``goldens/`` with syrupy.

Fixtures:

- ``replay_scenario(name) -> dict[str, bytes]``: run one scenario keylessly and return
  every artefact by file name (the same bytes ``replay refresh`` writes);
- ``replay_snapshot``: syrupy's ``snapshot`` bound to the golden store, so
  ``assert data == replay_snapshot(name=f"{scenario}/{artefact}")`` compares with
  ``goldens/<scenario>/<artefact>`` and ``pytest --snapshot-update`` rewrites it the
  way ``replay refresh`` does (atomically, only when the bytes changed).

syrupy's trap with goldens outside the test folder (a partial ``-k`` run flags, and
with ``--snapshot-update`` deletes, the goldens of tests that did not run) cannot
happen here: the extension never claims a file it finds on disk, so only goldens a
test asserted are ever read or written, and none is ever deleted. Orphaned goldens
are ``replay check``'s job (and ``replay refresh --prune``'s).

Options: ``--replay-scenarios DIR`` and ``--replay-goldens DIR`` (default
``scenarios/`` and ``goldens/`` under the rootdir).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from replay.snapshot.artefacts import render_artefacts
from replay.snapshot.diff import guess_changes
from replay.snapshot.scenario import run_scenario
from replay.snapshot.store import GoldenStore


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("replay")
    group.addoption("--replay-scenarios", default=None, help="folder of scenarios (default: <rootdir>/scenarios)")
    group.addoption("--replay-goldens", default=None, help="folder of goldens (default: <rootdir>/goldens)")


def _folder(config: pytest.Config, option: str, default: str) -> Path:
    value = config.getoption(option)
    return Path(value) if value else Path(config.rootpath) / default


@pytest.fixture
def replay_scenario(request: pytest.FixtureRequest) -> Callable[[str], dict[str, bytes]]:
    root = _folder(request.config, "--replay-scenarios", "scenarios")

    def run(name: str) -> dict[str, bytes]:
        return render_artefacts(run_scenario(root / name))

    return run


def golden_extension(root: Path) -> type[Any]:
    """A syrupy extension class that stores snapshot ``"<scenario>/<artefact>"`` at
    ``root/<scenario>/<artefact>``."""
    from syrupy.extensions.single_file import SingleFileSnapshotExtension

    store = GoldenStore(root)

    class ReplayGoldens(SingleFileSnapshotExtension):
        file_extension = ""
        write_immediately = True

        @classmethod
        def dirname(cls, *, test_location: Any) -> str:
            return str(root)

        @classmethod
        def get_location(cls, *, test_location: Any, index: Any) -> str:
            return str(root / str(index))

        def is_snapshot_location(self, *, location: str) -> bool:
            return False  # never claim a golden found on disk: partial runs stay safe

        def owns_snapshot_collection(self, *, filepath: str, test_location: Any) -> bool:
            return False

        def read_snapshot_data_from_location(self, *, snapshot_location: str, snapshot_name: str,
                                             session_id: str) -> bytes | None:
            path = Path(snapshot_location)
            return store.read(path.parent.name, path.name)

        @classmethod
        def write_snapshot_collection(cls, *, snapshot_collection: Any, name_order: Any = None) -> None:
            path = Path(snapshot_collection.location)
            data = next(iter(snapshot_collection)).data
            store.write(path.parent.name, path.name, bytes(data))

        def delete_snapshots(self, *, snapshot_location: str, snapshot_names: set[str]) -> None:
            return None  # goldens are never deleted from pytest; see replay refresh --prune

        def diff_lines(self, serialized_data: Any, snapshot_data: Any) -> Iterator[str]:
            yield from guess_changes(bytes(snapshot_data or b""), bytes(serialized_data))

    return ReplayGoldens


@pytest.fixture
def replay_snapshot(request: pytest.FixtureRequest, snapshot: Any) -> Any:
    return snapshot.use_extension(golden_extension(_folder(request.config, "--replay-goldens", "goldens")))
