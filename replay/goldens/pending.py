"""Pending goldens: what a run produced for goldens that differ, kept apart from the
goldens until someone accepts or rejects each one (insta's ``.snap.new``, as a folder
a CI job can hand over as an artefact).

``<folder>/<scenario>/<artefact>`` holds the new bytes, ``<folder>/manifest.json``
one entry per pending golden: the scenario, the artefact, the sha256 of the golden it
was compared with (``null`` when there was none), the sha256 of the new bytes, and the
replay version that made it. The folder may come from anywhere (a downloaded CI
artefact), so nothing in it is trusted: the manifest is bounded and validated
(pydantic, strict), names must be a scenario name and an artefact name replay writes
(nothing can point out of either tree), and the pending bytes must hash to their
entry. The bytes are read and written through ``GoldenStore``, the goldens' own store.

Accepting writes the golden atomically under the goldens' lock and drops the entry;
it is **refused** when the golden on disk is no longer the one the pending bytes were
compared with, so pending goldens from an old CI run never overwrite newer work.
Rejecting drops entries only.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, BinaryIO, Literal, Protocol, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StringConstraints,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from replay import __version__
from replay.fs import JOURNAL_PREFIX, Commit, FsError, Tree, abandoned, recover
from replay.goldens import PENDING_FOLDER
from replay.goldens.diff import Comparator, stream_changes
from replay.goldens.lines import Change
from replay.goldens.select import Selection, SelectorError
from replay.goldens.store import GoldenStore, StoreError, StoreLocked
from replay.hints import command
from replay.validation import validation_problems
from replay.words import counted

MANIFEST = "manifest.json"
FORMAT = 1
"""The manifest's ``format``: an integer (``true`` is not 1 here)."""
DEFAULT_FOLDER = Path(PENDING_FOLDER)
MAX_MANIFEST_BYTES = 16 << 20
MAX_ENTRIES = 100_000
STAGING = ".replay-pending-"
"""The hidden folder of the pending folder a run writes its pending goldens and manifest
in (``.replay-pending-<pid>-<random>``) before they are committed in one step."""
LOCK_WAIT = 30.0
"""How long a pending write waits for another (pytest workers write side by side)."""

Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]


class PendingError(Exception):
    """The pending folder cannot be used as it is (an invalid manifest, a link, a lock
    held elsewhere); the message names the file and says what to do."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _sha256_of(stream: BinaryIO) -> str:
    """The sha256 of a seekable file, read a block at a time; left at its start."""
    digest = hashlib.sha256()
    while block := stream.read(1 << 16):
        digest.update(block)
    stream.seek(0)
    return digest.hexdigest()


class Names(Protocol):
    """What may name a golden, as the caller says: the golden engine knows nothing of
    what makes a scenario or an artefact (``replay.scenarios`` derives both from its
    scenario name rule and its producers)."""

    def folder_problem(self, name: str) -> str | None:
        """Why ``name`` cannot name a golden folder (``None``: it can)."""

    def file_problem(self, name: str) -> str | None:
        """Why ``name`` cannot name a golden file (``None``: it can)."""

    def comparator(self, file: str) -> Comparator:
        """How the golden file ``file`` is compared (its producer's declaration)."""

    def accept_problem(self, folder: str, file: str) -> str | None:
        """Why accepting golden ``folder/file`` is refused, in words that say what to do
        (``None``: it may be accepted): it would be an orphan (nothing produces it), or
        what would produce it cannot be read."""


def _names(info: ValidationInfo) -> Names:
    names = info.context.get("names") if isinstance(info.context, dict) else None
    if names is None:
        raise ValueError("no name policy to check names against")  # a bug: every reader passes one
    return cast(Names, names)


class Entry(BaseModel):
    """One pending golden, as the manifest records it."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    scenario: str
    artefact: str
    golden_sha256: Sha256 | None
    """The golden the new bytes were compared with; ``None``: there was none."""
    pending_sha256: Sha256
    replay_version: Annotated[str, StringConstraints(min_length=1, max_length=64)]

    @field_validator("scenario", "artefact")
    @classmethod
    def _name(cls, value: str, info: ValidationInfo) -> str:
        names = _names(info)
        problem = names.folder_problem(value) if info.field_name == "scenario" else names.file_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value

    @property
    def key(self) -> str:
        return f"{self.scenario}/{self.artefact}"


class Manifest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    format: StrictInt = FORMAT
    entries: list[Entry] = Field(default_factory=list, max_length=MAX_ENTRIES)

    @field_validator("format")
    @classmethod
    def _format(cls, value: int) -> int:
        if value != FORMAT:
            raise ValueError(f"format {value} is not one this replay reads ({FORMAT})")
        return value

    @model_validator(mode="after")
    def _unique(self) -> Manifest:
        seen: set[str] = set()
        for entry in self.entries:
            if entry.key in seen:
                raise ValueError(f"{entry.key} is listed twice")
            seen.add(entry.key)
        return self


class PendingStore:
    """A pending folder: the bytes (a ``GoldenStore`` rooted there) and the manifest,
    whose names are checked against ``names``."""

    def __init__(self, root: Tree | Path, names: Names) -> None:
        self.files = GoldenStore(root)
        self.root = self.files.root
        self.names = names

    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST

    def manifest(self) -> Manifest:
        """The manifest (empty when there is none); ``PendingError`` when it cannot be trusted."""
        try:
            raw = self.files.read_top(MANIFEST, MAX_MANIFEST_BYTES)
        except StoreError as exc:
            raise PendingError(f"{exc}; delete {self.root} and run {command('check', '--pending')} again") from None
        if raw is None:
            return Manifest()
        try:
            return Manifest.model_validate_json(raw, context={"names": self.names})
        except ValidationError as exc:
            problems = "; ".join(validation_problems(exc)[:5])
            raise PendingError(f"{self.manifest_path}: not a pending-goldens manifest replay can use ({problems}); "
                               f"delete {self.root} and run {command('check', '--pending')} again") from None

    def staging(self) -> str:
        """A new staging folder's name (see ``STAGING``)."""
        return f"{STAGING}{os.getpid()}-{secrets.token_hex(4)}"

    def commit(self, staging: str, manifest: Manifest, moved: Iterable[Entry] = (),
               deleted: Iterable[tuple[str, str]] = ()) -> None:
        """In one step (``replay.fs.Commit``): the files of ``moved`` staged in
        ``staging`` take their places, the files ``deleted`` go, and ``manifest`` (staged
        here first) replaces the manifest; the staging folder is removed. Killed half-way,
        the next command that takes the folder's lock finishes it."""
        tree = self.files.tree
        try:
            commit = Commit(tree)
            for entry in moved:
                commit.replace((staging, entry.scenario, entry.artefact), (entry.scenario, entry.artefact))
            if manifest.entries:
                tree.write(staging, MANIFEST, data=(manifest.model_dump_json(indent=2) + "\n").encode(),
                           what="manifest")
                commit.replace((staging, MANIFEST), (MANIFEST,))
            else:
                commit.delete(MANIFEST)
            for scenario, artefact in deleted:  # after the manifest: it never lists a file that is gone
                commit.delete(scenario, artefact)
            commit.remove_tree(staging)
            commit.run()
        except FsError as exc:
            if not any(e.name.startswith(f"{JOURNAL_PREFIX}{os.getpid()}-") for e in tree.entries()):
                tree.remove_tree(staging)  # not begun: nothing of it is left
                raise PendingError(f"{str(exc).replace(f'{staging}/', '')}; nothing was written to "
                                   f"{self.root}: the folder is as it was") from None
            raise PendingError(f"{exc}; the next replay command that uses {self.root} finishes what was begun") \
                from None
        for scenario in sorted({scenario for scenario, _ in deleted}):
            tree.remove_folder_if_empty(scenario)

    def save(self, manifest: Manifest) -> None:
        """Replace the manifest (a commit of it alone)."""
        self.commit(self.staging(), manifest)

    def half_done(self) -> bool:
        """Whether a run that is no longer running left a commit of this folder half-done."""
        try:
            return any(e.is_file and abandoned(e.name, JOURNAL_PREFIX) for e in self.files.tree.entries())
        except FsError as exc:
            raise PendingError(str(exc)) from None

    def recover(self) -> None:
        """Finish what a killed run left half-committed, and remove what it staged."""
        tree = self.files.tree
        try:
            recover(tree)
            for entry in tree.entries():
                if entry.is_dir and abandoned(entry.name, STAGING):
                    tree.remove_tree(entry.name)
        except FsError as exc:
            raise PendingError(str(exc)) from None

    def path(self, entry: Entry) -> str:
        return f"{self.root}/{entry.key}"

    @contextmanager
    def lock(self, wait: float = LOCK_WAIT) -> Iterator[None]:
        try:
            with self.files.lock_folder(wait):
                self.recover()
                yield
        except StoreLocked:
            raise PendingError(f"{self.root} is in use by another replay command (a `check --pending`, an accept "
                               "or a pytest worker); wait for it to finish") from None
        except StoreError as exc:
            raise PendingError(str(exc)) from None


class PendingWriter:
    """Collects what ``check --pending`` (or the pytest plugin under CI) hands over,
    writing each pending golden's bytes at once into a staging folder; ``commit`` then
    puts them and the manifest in place, in one step. The caller holds the lock."""

    def __init__(self, store: PendingStore) -> None:
        self.store = store
        self.added: dict[str, Entry] = {}
        self.staging = store.staging()

    def add(self, scenario: str, artefact: str, golden: bytes | None, data: bytes) -> None:
        """Stage one pending golden; ``PendingError`` when its names are not ones a
        manifest may hold, or it cannot be written: then nothing of this run is left
        (what it staged is removed) and the message says so."""
        try:
            fields = {"scenario": scenario, "artefact": artefact,
                      "golden_sha256": None if golden is None else sha256(golden), "pending_sha256": sha256(data),
                      "replay_version": __version__}
            entry = Entry.model_validate(fields, context={"names": self.store.names})
        except ValidationError as exc:
            raise PendingError(f"{self.store.root}/{scenario}/{artefact}: not written as a pending golden "
                               f"({'; '.join(validation_problems(exc))})") from None
        tree = self.store.files.tree
        try:
            tree.write(self.staging, scenario, artefact, data=data, what="pending golden")
        except FsError as exc:
            written = sorted(self.added)
            self.discard()
            shown = str(exc).replace(f"{self.staging}/", "")
            listed = ", ".join(written[:5]) + (f" and {len(written) - 5} more" if len(written) > 5 else "")
            before = (f"the {counted(len(written), 'pending golden')} this run wrote before it ({listed}) "
                      f"{'was' if len(written) == 1 else 'were'} removed" if written
                      else "this run had written no other pending golden")
            raise PendingError(f"{shown}; nothing was written to {self.store.root}: {before}, and the folder is as "
                               "it was") from None
        self.added[entry.key] = entry

    def discard(self) -> None:
        """Remove what this run staged (nothing of it was committed)."""
        self.added.clear()
        self.store.files.tree.remove_tree(self.staging)

    def commit(self, replaced: Callable[[str, str], bool] | None = None) -> int:
        """Put this run's pending goldens in place and write the manifest, in one step:
        the old entries, less those ``replaced`` says this run was asked about (their
        files go too), plus this run's. The number now pending."""

        def gone(scenario: str, artefact: str) -> bool:
            return replaced is not None and replaced(scenario, artefact)

        kept = [e for e in self.store.manifest().entries
                if e.key not in self.added and not gone(e.scenario, e.artefact)]
        keep = {e.key for e in kept} | set(self.added)
        entries = sorted([*kept, *self.added.values()], key=lambda e: (e.scenario, e.artefact))
        deleted = []
        try:
            for scenario in self.store.files.scenarios():
                for name in self.store.files.files(scenario):
                    if f"{scenario}/{name}" not in keep and gone(scenario, name) \
                            and self.store.names.file_problem(name) is None:
                        deleted.append((scenario, name))
        except StoreError as exc:
            self.discard()
            raise PendingError(f"{exc} (nothing was written)") from None
        self.store.commit(self.staging, Manifest(entries=entries), self.added.values(), deleted)
        return len(entries)


def _again(entry: Entry) -> str:
    return f"run {command('check', '--pending')} again, or {command('reject', entry.key)}"


def checked_scope(selection: Selection, checked: Iterable[str]) -> Callable[[str, str], bool]:
    """What a check of ``checked`` scenarios under ``selection`` was asked about: a whole
    check (no selector) answers for every pending golden, a partial one for the selected
    goldens of the scenarios it ran."""
    if selection.everything:
        return lambda scenario, artefact: True
    ran = set(checked)
    return lambda scenario, artefact: scenario in ran and selection.wants(scenario, artefact)


Action = Literal["accepted", "rejected", "refused", "skipped"]


@dataclass(frozen=True)
class Decision:
    """What became of one pending golden; ``reason`` says why it was refused (or that
    an accept found the golden already equal)."""

    entry: Entry
    action: Action
    golden: str
    reason: str = ""


@dataclass
class PendingResult:
    """An accept, reject or review: each decision, and how many entries are still
    pending. It fails when an accept was refused."""

    pending: str
    decisions: list[Decision] = field(default_factory=list)
    left: int = 0
    quit: bool = False

    def count(self, action: Action) -> int:
        return sum(1 for d in self.decisions if d.action == action)

    @property
    def failed(self) -> bool:
        return any(d.action == "refused" for d in self.decisions)


@dataclass(frozen=True)
class EntryView:
    """A pending golden as review shows it: the changes from the golden to the new bytes."""

    entry: Entry
    golden: str
    status: Literal["differs", "new"]
    changes: tuple[Change, ...]


class Workflow:
    """Pending goldens against one golden tree and its scenarios: list, show, accept,
    reject. Each accept or reject takes the locks, re-reads the manifest, and writes it."""

    def __init__(self, pending: PendingStore, goldens: GoldenStore) -> None:
        self.pending = pending
        self.goldens = goldens

    def golden_path(self, entry: Entry) -> str:
        return f"{self.goldens.root}/{entry.key}"

    def entries(self, selection: Selection | None = None) -> list[Entry]:
        """The pending entries selected; ``SelectorError`` for a selector that selects none.
        A commit a killed run left half-done is finished first (under the lock)."""
        if self.pending.half_done():
            with self.pending.lock():  # which finishes it
                pass
        entries = self.pending.manifest().entries
        if selection is None or selection.everything:
            return entries
        unmatched = selection.unmatched((e.scenario, e.artefact) for e in entries)
        if unmatched:
            listed = ", ".join(e.key for e in entries[:10]) + (" …" if len(entries) > 10 else "")
            raise SelectorError(f"no pending golden matches {', '.join(unmatched)} in {self.pending.root} "
                                f"(pending: {listed or 'none'})")
        return [e for e in entries if selection.wants(e.scenario, e.artefact)]

    def _unverified(self, entry: Entry) -> StoreError:
        return StoreError(f"{self.pending.path(entry)} does not hash to its manifest entry (changed after it was "
                          f"written): {_again(entry)}")

    def _missing(self, entry: Entry) -> StoreError:
        return StoreError(f"{self.pending.path(entry)} is missing: {_again(entry)}")

    def _pending_bytes(self, entry: Entry) -> bytes:
        """The entry's pending bytes, verified against the manifest; ``StoreError`` (which
        says what to do) when they are missing or changed."""
        data = self.pending.files.read(entry.scenario, entry.artefact)
        if data is None:
            raise self._missing(entry)
        if sha256(data) != entry.pending_sha256:
            raise self._unverified(entry)
        return data

    def view(self, entry: Entry, full: bool = False) -> EntryView:
        """The changes an accept would make (read-only), read as they are compared (a
        file past the semantic diff's limit is never held). Only bytes that hash to the
        entry are shown: those are the bytes an accept writes (it checks the hash too)."""
        with (self.pending.files.open(entry.scenario, entry.artefact) as data,
              self.goldens.open(entry.scenario, entry.artefact) as golden):
            if data is None:
                raise self._missing(entry)
            if _sha256_of(data) != entry.pending_sha256:
                raise self._unverified(entry)
            found = tuple(stream_changes(self.pending.names.comparator(entry.artefact), golden, data, full))
        return EntryView(entry, self.golden_path(entry), "new" if golden is None else "differs", found)

    def accept(self, entries: Iterable[Entry]) -> list[Decision]:
        """Write each pending golden over its golden, unless it is stale (refused)."""
        wanted = list(entries)
        if not wanted:
            return []
        try:
            with self.goldens.lock(), self.pending.lock():
                return self._decide(wanted, self._accept_one)
        except (StoreLocked, StoreError) as exc:  # the goldens' lock is taken, or cannot be
            return [Decision(e, "refused", self.golden_path(e), str(exc)) for e in wanted]

    def reject(self, entries: Iterable[Entry]) -> list[Decision]:
        """Drop each pending golden; the goldens are not touched."""
        wanted = list(entries)
        if not wanted:
            return []
        with self.pending.lock():
            return self._decide(wanted, self._reject_one)

    def _decide(self, wanted: list[Entry], decide_one: Callable[[Entry], Decision]) -> list[Decision]:
        """Decide each entry (an accept writes its golden), then, in one step, drop the
        decided entries from the manifest and delete their files: what was refused (or
        could not be finished) stays. The pending folder is never changed before that
        step, so a run killed while it writes goldens leaves every entry pending and
        whole (the next accept finds those goldens already holding their bytes), and
        one killed during the step is finished by the next command."""
        manifest = self.pending.manifest()
        current = {e.key: e for e in manifest.entries}
        decisions = []
        try:
            for entry in wanted:
                if current.get(entry.key) != entry:
                    decisions.append(Decision(entry, "refused", self.golden_path(entry),
                                              f"{self.pending.path(entry)} changed while you looked at it (another "
                                              "replay command); look again"))
                    continue
                decision = decide_one(entry)
                if decision.action != "refused":
                    del current[entry.key]
                decisions.append(decision)
        finally:
            decided = [(d.entry.scenario, d.entry.artefact) for d in decisions if d.action != "refused"]
            if decided:
                self.pending.commit(self.pending.staging(), Manifest(entries=list(current.values())), (), decided)
        return decisions

    def _accept_one(self, entry: Entry) -> Decision:
        golden_path = self.golden_path(entry)

        def refuse(reason: str) -> Decision:
            return Decision(entry, "refused", golden_path, reason)

        problem = self.pending.names.accept_problem(entry.scenario, entry.artefact)
        if problem is not None:
            return refuse(problem)
        try:
            data = self._pending_bytes(entry)
            golden = self.goldens.read(entry.scenario, entry.artefact)
        except StoreError as exc:
            return refuse(str(exc))
        if golden == data:
            return self._drop(entry, Decision(entry, "accepted", golden_path, "the golden already holds these bytes"))
        now = None if golden is None else sha256(golden)
        if now != entry.golden_sha256:
            made = "no golden" if entry.golden_sha256 is None else f"sha256 {entry.golden_sha256[:12]}"
            found = "none" if now is None else f"sha256 {now[:12]}"
            return refuse(f"{golden_path} changed since this pending golden was made (it was made against {made}; "
                          f"the golden now is {found}): refused, so newer work is not overwritten; {_again(entry)}")
        try:
            self.goldens.write(entry.scenario, entry.artefact, data)
        except StoreError as exc:
            return refuse(str(exc))
        return self._drop(entry, Decision(entry, "accepted", golden_path))

    def _drop(self, entry: Entry, decision: Decision) -> Decision:
        """The entry's decision, its pending file to be deleted with the manifest's
        step; one that cannot be (a folder in its place) turns it into a refusal."""
        try:
            folder = self.pending.files.tree.is_folder(entry.scenario, entry.artefact)
        except FsError as exc:
            return Decision(entry, "refused", decision.golden, f"{exc}; it stays pending")
        if folder:
            return Decision(entry, "refused", decision.golden,
                            f"{self.pending.path(entry)}: a folder, not the golden; refused (remove it by "
                            "hand); it stays pending")
        return decision

    def _reject_one(self, entry: Entry) -> Decision:
        return self._drop(entry, Decision(entry, "rejected", self.golden_path(entry)))

    def left(self) -> int:
        return len(self.pending.manifest().entries)


def accept(workflow: Workflow, selection: Selection | None = None) -> PendingResult:
    """Accept every selected pending golden (all when nothing is selected)."""
    decisions = workflow.accept(workflow.entries(selection))
    return PendingResult(str(workflow.pending.root), decisions, workflow.left())


def reject(workflow: Workflow, selection: Selection | None = None) -> PendingResult:
    """Reject every selected pending golden (all when nothing is selected)."""
    decisions = workflow.reject(workflow.entries(selection))
    return PendingResult(str(workflow.pending.root), decisions, workflow.left())
