"""The audit cache: each log's report kept with what the log held when it was audited,
so that the next audit of the same archive reads only what changed (``replay audit``
and ``replay view``; on by default, ``--no-cache`` to skip it).

Where it lives: ``.replay/cache/`` below the working directory (found as a confined
tree: no component may be a link), or the folder ``--cache-dir`` (or
``$REPLAY_CACHE_DIR``) names. Below it, one folder per **namespace**: a digest of
everything that can change a report (replay's version and a digest of its own code,
the rule table, the policy, the selection with ``[tool.replay.audit]``, whether
findings are fingerprinted, the caps). A namespace holds ``SHARDS`` shard files, each
a JSON document of the entries whose key falls in it. Namespaces unused for
``MAX_AGE_DAYS`` days are removed, then the oldest until the cache holds at most
``MAX_TOTAL_BYTES``.

**An entry** is one log file (or one archive) named on the command line or found in
a folder: its storage identity (device, inode, size, modification and change times
in nanoseconds), its size, the length audited (up to its last complete line; a
``.jsonl.zstd`` log, up to its last complete frame), a BLAKE2b digest of each
``BLOCK`` bytes of it, and its reports as the rules judged them (before the selection
and the baseline, which the caller applies); a plain log of at least
``RESUME_FROM_BYTES``, the digest of its checkpoint (a file of its own beside the
shards, ``RESUME_PREFIX`` and the entry's key, written by this process alone). A log named as a session's log is kept
apart by whether the session's other encoding is beside it (rule A10 reports that).
For a log met again:

* the same identity: its report is reused, the log unread (``--verify-cache`` reads
  and digests it all the same, and reuses the report only when the bytes match);
* another identity, the same bytes (``touch``, a copy, a restored CI cache): the
  report is reused;
* longer, the bytes audited unchanged: audited again from where its last audit stood
  after them (its checkpoint, ``replay.check.resume``, kept for a plain log of at least
  ``RESUME_FROM_BYTES``; a smaller one, or one without a usable checkpoint, from its
  start): the report is byte for byte the one a cold audit gives;
* shorter, or the bytes audited changed: audited again in full, and its report
  gains rule H1's finding (``replay.check.history``), said once.

A file modified within ``RACY_NS`` of being looked at may change again within the
resolution of its clock without its identity changing: its entry is marked racy and
its bytes are digested again before its report is reused (what git does with its
index). Standard input, FIFOs and URLs are never cached; nor are the archives of a
``Watch`` (the session browser drafts every page of an archive as it reads it).

**One writer**: worker processes return reports; this module, in the parent, looks
logs up before the work is handed out and writes the entries after it, under the
namespace's lock, each shard read again, merged and written atomically (``replay.fs``),
so two audits at once keep each other's entries. A shard that cannot be read, is not
JSON of this format or of another namespace is ignored (one note for the caller to
show) and written anew. The cache holds paths and digests, never a URL.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Literal

import msgspec

from replay import __version__
from replay.check.engine import Attached, LogReport, Watch
from replay.check.fingerprint import Fingerprints
from replay.check.history import Rewrite, rewritten
from replay.check.quick import CACHE_ENV as CACHE_ENV
from replay.check.quick import CACHE_FOLDER as CACHE_FOLDER
from replay.check.quick import (
    FILE,
    NAMESPACE_PREFIX,
    RACY_NS,
    RECORD_PREFIX,
    RECORDS_KEPT,
    Seen,
    code_digest,
    seen_beside,
)
from replay.check.resume import MAX_CHECKPOINT_BYTES, ResumableSource, head_of
from replay.check.storage import twin_location
from replay.findings import Severity, restored
from replay.fs import FsError, Locked, Tree
from replay.log.reader import Limits, Source, read_log
from replay.log.source import STORED_NAMES, Archive, LocalFile, PassedOver, Unit, at_or_below, ignore
from replay.log.walk import identity as _identity
from replay.log.zstd import MAGIC, FrameWalk

FORMAT = "replay-audit-cache/1"
SHARDS = 16
BLOCK = 1 << 16
"""The bytes each digest of a log covers: a rewrite is located to one such block."""
DIGEST = 16
"""The size of each digest (BLAKE2b)."""
MAX_AGE_DAYS = 30
"""A namespace no audit used for this many days is removed."""
MAX_TOTAL_BYTES = 256 << 20
"""The most the cache's namespaces hold together: the oldest go first (never the one in use)."""
RESUME_FROM_BYTES = 1 << 20
"""A plain log at least this long gets a checkpoint (``replay.check.resume``): when it
grows, its audit goes on from where the last one stood. A shorter log costs less to
audit again than its checkpoint costs to keep."""
RESUME_PREFIX = "resume-"
"""The name of a checkpoint's file in the namespace's folder, before its entry's key."""
LOCK_SECONDS = 30.0
"""How long a writer waits for another audit writing the same namespace."""
FAULT_ENV = "REPLAY_TEST_CACHE_FAULT"
"""For the tests only: a path; after writing its first shard, a writer creates this
file, leaves a half-written temporary file and waits to be killed."""

_NOT_KEPT = frozenset({"INTERNAL", "IO"})
"""A report with a finding of these rules is not kept: it says what went wrong this time."""
_NAMESPACE = re.compile(rf"^{re.escape(NAMESPACE_PREFIX)}[0-9a-f]{{32}}$")
_TAG = b"Signature: 8a477f597d28d172789f06886806bc55\n# replay's audit cache (see docs/guides/audit.md)\n"
"""CACHEDIR.TAG: backup tools skip a folder that has it."""


@dataclass(frozen=True, slots=True)
class CacheRequest:
    """Where the cache is (``folder``; ``None``: ``.replay/cache`` below the working
    directory) and whether every cached log is read again (``verify``)."""

    folder: Path | None = None
    verify: bool = False
    resume_from: int = RESUME_FROM_BYTES
    """Plain logs at least this long get checkpoints to go on from."""

    def tree(self) -> Tree:
        return Tree.named(self.folder) if self.folder is not None else Tree.found(CACHE_FOLDER)


# -- what a shard holds ------------------------------------------------------------------

_Count = Annotated[int, msgspec.Meta(ge=0)]
_FindingRow = tuple[str, Severity, str, int | None, int | None, str | None, bool, str | None, str | None, int]
"""A finding's fields, in their order (``replay.findings.Finding``)."""


class _Report(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    path: str
    status: Literal["ok", "findings", "unreadable"]
    events: _Count
    findings: list[_FindingRow]


class _Entry(msgspec.Struct, forbid_unknown_fields=True):
    identity: tuple[int, int, int, int, int]
    racy: bool
    size: _Count
    length: _Count
    blocks: bytes
    edge: bytes
    audited: str
    reports: list[_Report]
    passed: list[tuple[str, str]]
    """What the reading of an archive passed over (a link, a device named like a log), and why."""
    resume: bytes = b""
    """The digest of the checkpoint kept of the log's audit (empty: none)."""


class _UrlEntry(msgspec.Struct, forbid_unknown_fields=True):
    """A log or archive at a URL: what identified its bytes (``replay.log.remote.validator``)."""

    validator: str
    audited: str
    reports: list[_Report]
    passed: list[tuple[str, str]]


_Kept = _Entry | _UrlEntry


class _Shard(msgspec.Struct, forbid_unknown_fields=True):
    format: str
    namespace: str
    entries: dict[str, msgspec.Raw]
    urls: dict[str, msgspec.Raw] = msgspec.field(default_factory=dict)
    """Each entry's JSON, decoded when it is looked up (a look-up of a few logs decodes no
    other, a shard written again copies the others as they are)."""


_Held = _Kept | tuple[bool, msgspec.Raw]
"""An entry of a shard read: decoded, or whether it is a URL's and its JSON."""
_decode_shard = msgspec.json.Decoder(_Shard).decode
_decode_entry = msgspec.json.Decoder(_Entry).decode
_decode_url = msgspec.json.Decoder(_UrlEntry).decode
_encode = msgspec.json.Encoder()


def _stored(report: LogReport) -> _Report:
    return _Report(report.path, report.status, report.events,
                   [(f.rule, f.severity, f.message, f.line, f.seq, f.type, f.tail, f.group, f.fingerprint,
                     f.events) for f in report.findings])


def _report(stored: _Report) -> LogReport:
    return LogReport(stored.path, stored.status, stored.events,
                     [restored(*row) for row in stored.findings])


# -- the namespace -----------------------------------------------------------------------


def namespace(*parts: object) -> str:
    """The namespace of an audit: a digest of replay's version and code and of
    ``parts`` (each by its ``repr``: the rule table, the policy, the selection, the
    caps, …)."""
    digest = hashlib.blake2b(digest_size=DIGEST)
    for part in (FORMAT, __version__, code_digest(), *parts):
        digest.update(repr(part).encode("utf-8", "surrogatepass") + b"\0")
    return f"{NAMESPACE_PREFIX}{digest.hexdigest()}"


# -- reading a log's bytes ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Scan:
    """What a log holds now: its size, the length an audit of it settles (up to its
    last complete line or frame), the digest of every ``BLOCK`` of it, and the digest
    of the bytes from the block of ``earlier`` (an earlier audit's length) to it."""

    size: int
    length: int
    blocks: bytes
    edge: bytes
    earlier_edge: bytes | None
    plain: bool
    """Not Zstandard: an audit of it can go on from a checkpoint."""
    earlier_lines: int | None
    """The lines that end in the first ``earlier`` bytes, when the last of them is a
    newline (``None``: it is not, or there is no ``earlier``): a checkpoint says it too."""


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=DIGEST).digest()


def _edge(fd: int, length: int) -> bytes:
    """The digest of the bytes from the start of ``length``'s block up to it."""
    start = length - length % BLOCK
    return _digest(os.pread(fd, length - start, start))


def _scan(path: str, earlier: int | None, lines: bool = False) -> _Scan:
    """Read and digest the file at ``path`` (``OSError`` when it cannot be); with
    ``lines``, count the lines that end in its first ``earlier`` bytes (for a checkpoint)."""
    # Non-blocking, and only a regular file: a path swapped for a FIFO since it was
    # looked at is never waited on.
    with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb", buffering=0) as fh:
        fd = fh.fileno()
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path}: not a regular file")
        blocks = bytearray()
        size = length = count = 0
        ends = False
        walk: FrameWalk | None = None
        while True:
            block = fh.read(BLOCK)
            if not block:
                break
            if lines and earlier is not None and size < earlier:
                part = earlier - size
                count += block.count(b"\n", 0, part)
                if part <= len(block):
                    ends = block[part - 1] == 0x0A
            if size == 0 and block[:4] == MAGIC:
                walk = FrameWalk()
            if walk is not None:
                walk.feed(block)
            else:
                newline = block.rfind(b"\n")
                if newline >= 0:
                    length = size + newline + 1
            blocks += hashlib.blake2b(block, digest_size=DIGEST).digest()
            size += len(block)
        if walk is not None:
            length = walk.frame if walk.cut else size
        earlier_edge = _edge(fd, earlier) if earlier is not None and earlier <= size else None
        return _Scan(size, length, bytes(blocks), _edge(fd, length), earlier_edge, walk is None,
                     count if ends and walk is None else None)


def _change(entry: _Entry, now: _Scan) -> Rewrite | None:
    """How the bytes an earlier audit read differ now (``None``: unchanged)."""
    whole = entry.length // BLOCK
    compared = min(whole, now.size // BLOCK)
    for i in range(compared):
        if entry.blocks[i * DIGEST:(i + 1) * DIGEST] != now.blocks[i * DIGEST:(i + 1) * DIGEST]:
            return Rewrite(i * BLOCK, min((i + 1) * BLOCK, entry.length), entry.length, entry.audited)
    if now.size < entry.length:
        return Rewrite(now.size, entry.length, entry.length, entry.audited, shorter=True)
    if entry.length % BLOCK and now.earlier_edge != entry.edge:
        return Rewrite(whole * BLOCK, entry.length, entry.length, entry.audited)
    return None


# -- one audit's use of the cache --------------------------------------------------------


def _key(kind: str, path: str) -> str:
    text = f"{kind}\0{path}" if kind == "u" else f"{kind}\0{os.path.abspath(path)}\0{path}"
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=DIGEST).hexdigest()


def _shard(key: str) -> str:
    """The shard file of an entry's key."""
    return f"{int(key[:8], 16) % SHARDS:x}.json"


@dataclass(slots=True)
class _Hit:
    reports: list[LogReport]
    unit: Unit
    identity: tuple[int, int, int, int, int] | None
    """``None``: a log at a URL."""
    passed: list[tuple[str, str]] = field(default_factory=list)


@dataclass(slots=True)
class _Miss:
    """A unit handed to the audit, and what the cache will make of its reports."""

    unit: Unit
    key: str | None = None
    """``None``: not cached (standard input, a URL, a file that could not be read)."""
    identity: tuple[int, int, int, int, int] | None = None
    scan: _Scan | None = None
    rewrite: Rewrite | None = None
    validator: str | None = None
    """For a log at a URL, what identified its bytes when it was looked up."""
    reports: list[LogReport] = field(default_factory=list)
    passed: list[tuple[str, str]] = field(default_factory=list)

    def owns(self, report: LogReport) -> bool:
        path = self.unit.path
        if isinstance(self.unit, Archive):
            return at_or_below(report.path, path)
        return report.path == path and not self.reports


class AuditCache:
    """One audit's use of the cache: ``units`` passes on the units to audit (looking
    the others up), ``reports`` gives every report in order (the cached ones among
    the audited), ``save`` writes what changed. ``hits`` counts the logs whose report
    came from the cache; ``notes`` says what went wrong with the cache (one line
    each, at most one per kind of trouble), never failing the audit."""

    def __init__(self, request: CacheRequest, key: str, limits: Limits, fingerprints: Fingerprints = False,
                 watch: Watch | None = None) -> None:
        self.request, self.namespace, self.limits = request, key, limits
        self.fingerprints, self.watch = fingerprints, watch
        self.tree = request.tree()
        self.hits = 0
        self.notes: list[str] = []
        self._shards: dict[str, dict[str, _Held]] = {}
        self._read_at: dict[str, tuple[int, int, int, int, int]] = {}
        """The status of each shard file when it was read (what ``_write`` need not read again)."""
        self._updates: dict[str, dict[str, _Kept]] = {}
        self._slots: deque[_Hit | _Miss] = deque()
        self._passed: PassedOver = ignore
        self._finished: Callable[[], None] | None = None
        self._broken = False
        self.found: set[str] = set()
        """The logs (not archives) a folder's search found that were looked up: those a
        run record's plan may amend (``replay.report.amend``)."""
        self.seen: list[Seen] | None = []
        """Each unit looked up, as a run record keeps it (``replay.check.quick``);
        ``None`` once one is not kept, or was rewritten: no record can be written."""
        self._now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        try:
            self.tree.check_root()
        except FsError as exc:
            self._note(f"the audit cache is not used: {exc}")
            self._broken = True

    # -- notes -----------------------------------------------------------------------

    def _note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def _unreadable(self, shard: str, why: str) -> None:
        if not any(note.startswith("the audit cache at") for note in self.notes):
            self._note(f"the audit cache at {self.tree.at(self.namespace, shard)} {why}: ignored, written anew")

    # -- shards ----------------------------------------------------------------------

    def _read(self, shard: str) -> dict[str, _Held]:
        """The entries of a shard on disk (none when it is missing or unusable)."""
        status = self.tree.status(self.namespace, shard)  # before the bytes: a later change is one
        try:
            data = self.tree.read(self.namespace, shard, limit=MAX_TOTAL_BYTES, what="the cache shard")
        except FsError as exc:
            self._unreadable(shard, f"cannot be read ({exc})")
            return {}
        if data is None:
            return {}
        try:
            doc = _decode_shard(data)
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):  # nested past the limit: not ours
            self._unreadable(shard, "is not a cache this version of replay wrote")
            return {}
        if doc.format != FORMAT or doc.namespace != self.namespace:
            self._unreadable(shard, "belongs to another cache")
            return {}
        if status is not None:
            self._read_at[shard] = status
        held: dict[str, _Held] = {key: (False, raw) for key, raw in doc.entries.items()}
        held.update((key, (True, raw)) for key, raw in doc.urls.items())
        return held

    def _current(self, shard: str) -> dict[str, _Held]:
        """The entries of a shard on disk now, under the namespace's lock: those read
        before when its file is the one read then (no other audit replaced it since)."""
        read = self._shards.get(shard)
        known = self._read_at.get(shard)
        if read is not None and known is not None and self.tree.status(self.namespace, shard) == known:
            return dict(read)
        fresh = self._shards[shard] = self._read(shard)  # what the status now kept is of
        return dict(fresh)

    def _entry(self, key: str) -> _Kept | None:
        shard = _shard(key)
        entries = self._shards.get(shard)
        if entries is None:
            entries = self._shards[shard] = {} if self._broken else self._read(shard)
        held = entries.get(key)
        if not isinstance(held, tuple):
            return held
        try:
            kept: _Kept | None = _decode_url(held[1]) if held[0] else _decode_entry(held[1])
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
            kept = None
        if kept is None or (isinstance(kept, _Entry) and
                            (kept.length > kept.size or len(kept.blocks) != -(-kept.size // BLOCK) * DIGEST)):
            self._unreadable(shard, "is not a cache this version of replay wrote")
            entries.clear()  # the whole shard ignored, and written anew
            return None
        entries[key] = kept
        return kept

    def _update(self, key: str, entry: _Kept) -> None:
        self._updates.setdefault(_shard(key), {})[key] = entry

    # -- looking up ------------------------------------------------------------------

    def _look_up(self, unit: Unit) -> _Hit | _Miss:
        followed = not isinstance(unit.open, LocalFile) or unit.open.known_identity is None
        # Named on the command line: what the audit looks at beside it, taken before the
        # look-up asks whether the other encoding is there (a later change is one).
        named = isinstance(unit.open, LocalFile) and unit.open.known_identity is None
        beside = seen_beside(unit.path) if named and self.seen is not None else []
        slot = self._looked_up(unit)
        if isinstance(unit, Source) and unit.discovered:
            self.found.add(unit.path)
        if self.seen is not None:
            if beside is None or slot.identity is None or \
                    (isinstance(slot, _Miss) and (slot.key is None or slot.rewrite is not None)):
                self.seen = None
            else:
                self.seen.append((unit.path, followed, FILE, slot.identity))
                self.seen += beside
        return slot

    def _looked_up(self, unit: Unit) -> _Hit | _Miss:
        if self._broken:
            return _Miss(unit)
        if not isinstance(unit.open, LocalFile):
            return self._remote(unit)
        archive = isinstance(unit, Archive)
        if isinstance(unit, Source) and not unit.is_file:
            return _Miss(unit)
        if archive and self.watch is not None:
            return _Miss(unit)  # the session browser drafts an archive's pages as it reads it
        kind = "a" if archive else "d" if isinstance(unit, Source) and unit.discovered else "f"
        if not archive and os.path.basename(unit.path) in STORED_NAMES and os.path.exists(twin_location(unit.path)):
            kind += "2"  # rule A10: the session's other encoding is beside it (its report says so)
        key = _key(kind, unit.path)
        identity = unit.open.known_identity  # the folder search's status: no second stat
        if identity is None:
            try:
                st = os.stat(unit.path)
            except OSError:
                return _Miss(unit)  # the audit says why it cannot be read
            if not stat.S_ISREG(st.st_mode):
                return _Miss(unit)  # not a regular file: the audit says what it is
            identity = _identity(st)
        if not archive and identity[2] > self.limits.max_log_bytes:
            return _Miss(unit)  # past the log cap: the audit says what it is
        kept = self._entry(key)
        entry = kept if isinstance(kept, _Entry) else None
        if entry is not None and entry.identity == identity and not entry.racy and not self.request.verify:
            return self._hit(entry, unit, identity)
        try:
            scan = _scan(unit.path, entry.length if entry is not None else None,
                         entry is not None and bool(entry.resume))
        except OSError:
            return _Miss(unit)
        if entry is not None and scan.size == entry.size and scan.blocks == entry.blocks:
            racy = time.time_ns() - identity[3] < RACY_NS
            if entry.identity != identity or entry.racy != racy:
                self._update(key, msgspec.structs.replace(entry, identity=identity, racy=racy))
            return self._hit(entry, unit, identity)
        rewrite = _change(entry, scan) if entry is not None and not archive else None
        if isinstance(unit, Source) and self.watch is None and scan.plain and scan.length >= self.request.resume_from:
            checkpoint = self._checkpoint(key, entry, scan) if entry is not None and rewrite is None else None
            unit = ResumableSource(unit.path, unit.open, unit.is_file, unit.discovered, checkpoint)
        return _Miss(unit, key, identity, scan, rewrite)

    def _checkpoint(self, key: str, entry: _Entry, scan: _Scan) -> bytes | None:
        """The checkpoint of the log's last audit, when it is the one its entry names
        and it resumes where the entry's bytes end, after the lines they hold (any
        other, or none: the log is audited from its start)."""
        if not entry.resume or scan.earlier_lines is None:
            return None
        try:
            data = self.tree.read(self.namespace, RESUME_PREFIX + key, limit=MAX_CHECKPOINT_BYTES,
                                  what="the checkpoint")
        except FsError:
            return None
        if data is None or _digest(data) != entry.resume or head_of(data) != (entry.length, scan.earlier_lines):
            return None
        return data

    def _remote(self, unit: Unit) -> _Hit | _Miss:
        """A log or archive at a URL: its report reused while what identifies its bytes
        (an ETag, a checksum: ``validator``) is the same; else audited again in full
        (its bytes are not digested: no rule H1). Kept by its name as reports show it,
        which holds no credentials."""
        from replay.log.remote import RemoteFile, validator

        if not isinstance(unit.open, RemoteFile) or (isinstance(unit, Archive) and self.watch is not None):
            return _Miss(unit)
        now = validator(unit.open)
        if now is None:
            return _Miss(unit)
        key = _key("u", unit.path)
        entry = self._entry(key)
        if isinstance(entry, _UrlEntry) and entry.validator == now and not self.request.verify:
            return self._hit(entry, unit, None)
        return _Miss(unit, key, validator=now)

    def _hit(self, entry: _Kept, unit: Unit, identity: tuple[int, int, int, int, int] | None) -> _Hit:
        path = unit.path
        reports = [_report(stored) for stored in entry.reports]
        if isinstance(unit, Source):  # the name it is given now (the key has it too)
            reports = [LogReport(path, r.status, r.events, r.findings) for r in reports]
        return _Hit(reports, unit, identity, [(path, why) for path, why in entry.passed])

    def units(self, units: Iterable[Unit]) -> Iterator[Unit]:
        """The units to audit, of ``units``; the others are looked up."""
        for unit in units:
            slot = self._look_up(unit)
            self._slots.append(slot)
            if isinstance(slot, _Miss):
                yield slot.unit

    # -- the reports, in order ---------------------------------------------------------

    def passed_over(self, told: PassedOver) -> PassedOver:
        """``told``, which the audit of the units passed on tells what an archive's
        reading passes over, kept for the archive's entry too."""
        def tell(path: str, why: str) -> None:
            for slot in self._slots:
                if isinstance(slot, _Miss) and isinstance(slot.unit, Archive) and \
                        at_or_below(path, slot.unit.path):
                    slot.passed.append((path, why))
                    break
            told(path, why)

        return tell

    def reports(self, audited: Iterable[LogReport], passed_over: PassedOver = ignore,
                attached: Callable[[Attached], None] | None = None,
                finished: Callable[[], None] | None = None) -> Iterator[LogReport]:
        """Every report in the order of the units: those of ``audited`` (the audit of
        the units ``units`` passed on) among the cached ones. What the reading of a
        cached archive passed over goes to ``passed_over``, what the watch makes of a
        cached log (read here, for it alone) to ``attached``, before its reports;
        ``finished`` is told each cached unit done (as the audit tells the others)."""
        self._passed = passed_over
        self._finished = finished
        slots = self._slots
        for report in audited:
            while slots:
                slot = slots[0]
                if isinstance(slot, _Hit):
                    slots.popleft()
                    yield from self._told(slot, attached)
                    continue
                if slot.owns(report):
                    slot.reports.append(report)
                    yield self._judged(slot, report)
                    if isinstance(slot.unit, Source):
                        slots.popleft()
                        self._done(slot)
                    break
                slots.popleft()
                self._done(slot)
            else:  # not a unit this cache passed on (never happens): told as it is
                yield report
        while slots:
            slot = slots.popleft()
            if isinstance(slot, _Hit):
                yield from self._told(slot, attached)
            else:
                self._done(slot)

    def _told(self, hit: _Hit, attached: Callable[[Attached], None] | None) -> Iterator[LogReport]:
        for path, why in hit.passed:
            self._passed(path, why)
        for report in hit.reports:
            self.hits += 1
            if self.watch is not None and isinstance(hit.unit, Source):
                self._watch(hit.unit, report, attached)
            yield report
        if self._finished is not None:
            self._finished()

    def _watch(self, source: Source, report: LogReport, attached: Callable[[Attached], None] | None) -> None:
        """Let the watch read a log whose report is cached, as it reads one audited."""
        assert self.watch is not None
        log = read_log(source, self.limits)
        watching = self.watch.start(log)
        for _ in watching.watched(log.audit_batches()):
            pass
        watching.finish(report)
        for item in self.watch.drain():
            if attached is not None:
                attached(item)

    def _judged(self, miss: _Miss, report: LogReport) -> LogReport:
        """A report as the audit gives it: with rule H1's finding for a rewritten log
        (and without the checkpoint the cache keeps)."""
        if report.checkpoint is not None:  # for the cache alone
            report = LogReport(report.path, report.status, report.events, report.findings)
        if miss.rewrite is None or not isinstance(miss.unit, Source):
            return report
        found = rewritten(miss.rewrite, report.path, self.fingerprints)
        status = "findings" if report.status == "ok" else report.status
        return LogReport(report.path, status, report.events, [found, *report.findings])

    def _done(self, miss: _Miss) -> None:
        if not self._kept(miss):
            self.seen = None

    def _kept(self, miss: _Miss) -> bool:
        """Keep a unit's reports, if the log did not change while it was audited."""
        if miss.key is not None and miss.validator is not None:
            return self._kept_url(miss, miss.key, miss.validator)
        if miss.key is None or miss.scan is None or miss.identity is None:
            return False
        try:
            st = os.stat(miss.unit.path)
        except OSError:
            return False
        if _identity(st) != miss.identity or st.st_size != miss.scan.size:
            return False  # it changed while it was read: the next audit looks again
        if any(f.rule in _NOT_KEPT for r in miss.reports for f in r.findings):
            return False  # replay failed on it, or a read failed: the next audit tries again
        racy = time.time_ns() - st.st_mtime_ns < RACY_NS
        scan = miss.scan
        entry = _Entry(miss.identity, racy, scan.size, scan.length, scan.blocks, scan.edge, self._now,
                       [_stored(r) for r in miss.reports], miss.passed)
        try:
            _encode.encode(entry)
        except (UnicodeEncodeError, msgspec.EncodeError):
            return False  # a name or a message JSON cannot carry (a lone surrogate): not kept
        self._update(miss.key, msgspec.structs.replace(entry, resume=self._keep_checkpoint(miss.key, miss)))
        return True

    def _keep_checkpoint(self, key: str, miss: _Miss) -> bytes:
        """Write the checkpoint the audit of a log gave, when it resumes at the length
        its entry settles; the digest its entry names (empty: none kept). Written as it
        comes (a checkpoint is not held until the shards are): an entry names the
        digest of its own, so two audits at once never go on from each other's."""
        checkpoint = miss.reports[0].checkpoint if len(miss.reports) == 1 else None
        for report in miss.reports:
            report.checkpoint = None
        head = head_of(checkpoint) if checkpoint is not None else None
        if self._broken or checkpoint is None or miss.scan is None or head is None or head[0] != miss.scan.length:
            return b""
        try:
            self.tree.write(self.namespace, RESUME_PREFIX + key, data=checkpoint, what="checkpoint", durable=False)
        except (FsError, OSError):
            return b""
        return _digest(checkpoint)

    def _kept_url(self, miss: _Miss, key: str, before: str) -> bool:
        from replay.log.remote import RemoteFile, validator

        if any(f.rule in _NOT_KEPT for r in miss.reports for f in r.findings):
            return False
        if not isinstance(miss.unit.open, RemoteFile) or validator(miss.unit.open) != before:
            return False  # it changed while it was read (or cannot be asked now): looked at again next time
        entry = _UrlEntry(before, self._now, [_stored(r) for r in miss.reports], miss.passed)
        try:
            _encode.encode(entry)
        except (UnicodeEncodeError, msgspec.EncodeError):
            return False
        self._update(key, entry)
        return True

    # -- writing -----------------------------------------------------------------------

    def save(self) -> None:
        """Write the entries that changed (each shard merged with what is on disk now),
        then prune old namespaces. A cache that cannot be written is a note."""
        if self._broken:
            return
        try:
            if self._updates:
                self._write()
            else:
                self.tree.touch(self.namespace)
            self._prune()
        except (FsError, Locked, OSError, ValueError, msgspec.EncodeError) as exc:
            self._note(f"the audit cache was not written: {exc}")

    def keep_run(self, name: str, data: bytes) -> str | None:
        """Write the run record ``name`` (``replay.check.quick``) in the namespace, and
        remove all but its ``RECORDS_KEPT`` newest records; the note to show when it
        cannot be written (the next audit runs in full)."""
        tree, space = self.tree, self.namespace
        try:
            tree.write(space, name, data=data, what="run record", durable=False)
            with tree.folder(space) as fd:
                if fd is None:
                    return None
                records = []
                for entry in tree.entries(space):
                    if entry.is_file and entry.name.startswith(RECORD_PREFIX) and entry.name != name:
                        with contextlib.suppress(OSError):
                            records.append((os.stat(entry.name, dir_fd=fd, follow_symlinks=False).st_mtime_ns,
                                            entry.name))
            for _, old in sorted(records, reverse=True)[RECORDS_KEPT - 1:]:
                tree.delete(space, old, what="the run record")
        except (FsError, OSError) as exc:
            return f"the audit cache was not written: {exc}"
        return None

    def _write(self) -> None:
        tree, name = self.tree, self.namespace
        with tree.root(create=True):
            pass
        if not tree.exists("CACHEDIR.TAG"):
            tree.write("CACHEDIR.TAG", data=_TAG, what="cache tag", durable=False)
            tree.write(".gitignore", data=b"*\n", what="cache's .gitignore", durable=False)
        with tree.lock(f"{name}.lock", LOCK_SECONDS, "another audit is writing the cache",
                       needs="the cache is written there"):
            tree.clean_temp_files(name)
            fault = os.environ.get(FAULT_ENV)
            for shard in sorted(self._updates):
                entries = self._current(shard)
                entries.update(self._updates[shard])
                parts: tuple[dict[str, object], dict[str, object]] = ({}, {})  # the logs', the URLs'
                for key, held in entries.items():
                    url = held[0] if isinstance(held, tuple) else isinstance(held, _UrlEntry)
                    parts[url][key] = held[1] if isinstance(held, tuple) else held
                doc = {"format": FORMAT, "namespace": name, "entries": parts[0], "urls": parts[1]}
                tree.write(name, shard, data=_encode.encode(doc), what="cache shard", durable=False)
                if fault:
                    _fault(tree, name, fault)
        self._updates.clear()

    def _prune(self) -> None:
        tree = self.tree
        found: list[tuple[int, int, str]] = []
        for entry in tree.entries():
            if entry.is_dir and _NAMESPACE.match(entry.name) and entry.name != self.namespace:
                usage = tree.usage(entry.name)
                if usage is not None:
                    found.append((usage[1], usage[0], entry.name))
        current = tree.usage(self.namespace)
        total = sum(size for _, size, _ in found) + (current[0] if current is not None else 0)
        oldest = time.time_ns() - MAX_AGE_DAYS * 86_400 * 1_000_000_000
        for used, size, name in sorted(found):
            if used < oldest or total > MAX_TOTAL_BYTES:
                tree.remove_tree(name)
                tree.delete(f"{name}.lock", what="the lock file")
                total -= size


def _fault(tree: Tree, name: str, marker: str) -> None:
    """The tests' kill while writing: a temporary file half written beside the shards,
    the marker made, then a wait for the kill (a minute at most)."""
    with tree.folder(name) as fd:
        assert fd is not None
        temp = os.open(f".tmp-{os.getpid()}-fault", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600, dir_fd=fd)
        os.write(temp, b'{"format":"replay-audit-cache/1","namesp')
        os.close(temp)
    Path(marker).write_bytes(b"")
    time.sleep(60)
