"""Produced bytes held against the goldens of one golden folder: what a check finds
(each file ok, differing, missing or an orphan, with its changes) and what a refresh
writes or deletes. Goldens are read as they are compared (``golden_changes``): a
golden past the semantic diff's limit is never held."""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal, Protocol

from replay.goldens.diff import Comparator, new_file_changes, stream_changes
from replay.goldens.lines import Change, same_content
from replay.goldens.select import Selection
from replay.goldens.store import GoldenStore
from replay.hints import command

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


class Pending(Protocol):
    """Where ``check --pending`` puts what a run produced for a golden that differs
    (``golden`` its bytes now) or is missing (``golden`` ``None``)."""

    def add(self, scenario: str, artefact: str, golden: bytes | None, data: bytes) -> None: ...


Comparators = Callable[[str], Comparator]
"""How each golden file is compared, by its name: the producers' declarations (the caller's)."""


def golden_changes(store: GoldenStore, scenario: str, file: str, data: bytes, compare: Comparator,
                   full: bool = False) -> tuple[Change, ...] | None:
    """The changes from a golden to ``data``: ``None`` when there is no such golden,
    ``()`` when it holds these bytes. The golden is read as it is compared (a golden
    past the semantic diff's limit is never held)."""
    with store.open(scenario, file) as golden:
        if golden is None:
            return None
        run = io.BytesIO(data)
        if same_content(golden, run):
            return ()
        return tuple(stream_changes(compare, golden, run, full))


def compare_folder(store: GoldenStore, folder: str, produced: Mapping[str, bytes], selection: Selection,
                   comparators: Comparators, full: bool = False, pending: Pending | None = None) -> list[FileResult]:
    """A check of the selected goldens of ``folder`` against the bytes ``produced``
    (by file name); ``pending`` gets the new bytes of each that differs or is missing.
    Never writes to the goldens."""
    results = []
    for file, data in produced.items():
        if not selection.wants(folder, file):
            continue
        started = time.perf_counter()
        against = golden_changes(store, folder, file, data, comparators(file), full)
        if against is None:
            found = FileResult(folder, file, "missing", (Change(
                f"no golden: run {command('refresh', folder)} to create it"),))
        elif not against:
            found = FileResult(folder, file, "ok")
        else:
            found = FileResult(folder, file, "differs", against)
        if found.failed and pending is not None:
            pending.add(folder, file, None if against is None else store.read(folder, file), data)
        results.append(FileResult(found.scenario, found.name, found.status, found.changes,
                                  time.perf_counter() - started))
    for file in store.files(folder):
        if file not in produced and selection.wants(folder, file):
            why = f"no artefact of this scenario produces this file: delete it, or run {command('refresh', '--prune')}"
            results.append(FileResult(folder, file, "orphan", (Change(why),)))
    return results


def refresh_folder(store: GoldenStore, folder: str, produced: Mapping[str, bytes], selection: Selection,
                   comparators: Comparators, *, prune: bool = False, dry_run: bool = False,
                   full: bool = False) -> list[FileResult]:
    """Write the selected goldens of ``folder`` whose bytes changed (``dry_run``: say
    what would change, with the changes); ``prune`` deletes the files nothing produces."""
    results = []
    for file, data in produced.items():
        if selection.wants(folder, file):
            results.append(_write(store, folder, file, data, comparators(file), dry_run, full))
    for file in store.files(folder):
        if file not in produced and selection.wants(folder, file):
            results.append(_orphan(store, folder, file, prune, dry_run))
    return results


def orphan_folder(store: GoldenStore, folder: str, *, prune: bool = False, dry_run: bool = True,
                  check: bool = True) -> list[FileResult]:
    """The files of a golden folder nothing produces any more: as a check reports them
    (``check``), or as a refresh keeps or (``prune``) deletes them."""
    if check:
        why = (Change(f"no scenario named {folder}: delete its golden folder, or run "
                      f"{command('refresh', '--prune')}"),)
        return [FileResult(folder, f, "orphan", why) for f in store.files(folder)]
    return [_orphan(store, folder, f, prune, dry_run) for f in store.files(folder)]


def _write(store: GoldenStore, folder: str, file: str, data: bytes, compare: Comparator, dry_run: bool,
           full: bool) -> FileResult:
    if not dry_run:
        return FileResult(folder, file, store.write(folder, file, data))
    against = golden_changes(store, folder, file, data, compare, full)
    if against is None:
        return FileResult(folder, file, "created", tuple(new_file_changes(data, full)))
    if not against:
        return FileResult(folder, file, "unchanged")
    return FileResult(folder, file, "updated", against)


def _orphan(store: GoldenStore, folder: str, file: str, prune: bool, dry_run: bool) -> FileResult:
    if not prune:
        return FileResult(folder, file, "orphan")
    if not dry_run:
        store.delete(folder, file)
    return FileResult(folder, file, "deleted")
