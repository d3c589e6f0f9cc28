"""Checkpoints: an audit of a grown log goes on from where the last audit of its first
bytes stood, instead of reading them again.

A session log only grows. When the audit cache (``replay.check.cache``) finds a log
longer than when it was audited, with the bytes audited unchanged, the audit can go on
from where the last one stood after them: its **checkpoint**. A checkpoint is plain
typed data (``Checkpoint``, MessagePack through msgspec, decoded against its type):
numbers, texts, byte strings of fixed-width integers and digests, and an enum, in a
shape fixed by this module. Nothing in it names a class, a function or an attribute;
what it says is the *meaning* of each piece of state, and restoring rebuilds each
object through its own constructor and the methods a reading uses (the surface's nodes
appended and replaced, the maps' items set in seq order, the findings added to their
capped lists), so every internal invariant holds as if a log had built it. What it holds:

* where the scan stood (``replay.log.scan.ScanState``): the last line, the bytes read,
  the seq expected next, the records so far that were no event;
* the legacy migrations' memory of the log (each tool/result's message id);
* the pass's state before its judgement (``replay.check.passes.PassState``: the
  findings kept per rule and the counts of the others, the groups, the turn lines);
* the session core's state (``replay.check.core.CoreState``: the open turn and step,
  the calls waiting, the surface's nodes, each tool/result's print); the todo checkers
  hold none;
* what it is valid for: the session's id, the caps, the typed reading, the checkers.

Every number is checked against the bounds the reading allows (lines within the lines
read, bytes within the cap, seqs within the arrays' range, widths equal to the code's)
and every structure against its own rules (counts that add up, seqs in order and
each once); restoring costs time linear in the checkpoint's size (at most
``MAX_CHECKPOINT_BYTES``), its byte strings decoded as they are, and builds no more
than a reading of the log's first bytes could (``RECORD_BYTES``). The judgement after the pass
(closing findings, A8, B7, A10, fingerprints) is made again each time from the state,
so a resumed audit's report is a cold audit's, byte for byte (a property test holds
it to that). Anything that goes wrong — bytes that do not decode, another version,
a value out of bounds, an exception while restoring or while auditing on — means the
log is audited from its start, silently (``replay.check.engine.audit_log``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Literal

import msgspec

from replay.check.core import CoreChecker, CoreState
from replay.check.passes import Pass, PassState, Resumed
from replay.checker import Checker
from replay.log.legacy import Migrator
from replay.log.reader import LogRead, Source
from replay.log.scan import MAX_DAMAGED, ScanState
from replay.log.seqmap import HIGH, LOW, SeqIdsState
from replay.todo.rules import SingleActivePolicy, TodoChecker

FORMAT = b"replay-audit-checkpoint/1"
"""The first word of a checkpoint; its first line goes on with the length of the log
it resumes at and the number of lines in it."""
MAX_CHECKPOINT_BYTES = 64 << 20
"""The largest checkpoint kept or read back (one costs a few bytes per event of its log)."""
RECORD_BYTES = 32
"""Fewer bytes than any record that leaves something in a checkpoint (a surface node, a
tool/result's print or message id, a call waiting, a group): a checkpoint of a log's
first ``n`` bytes holds at most ``n // RECORD_BYTES`` of each, no more than a reading
of them could build."""

CheckerKind = Literal["core", "todo", "single"]
_KINDS: dict[type[Checker], CheckerKind] = {CoreChecker: "core", TodoChecker: "todo", SingleActivePolicy: "single"}

_Size = Annotated[int, msgspec.Meta(ge=0, le=HIGH - 1)]


class ScanRow(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """Where the scan stood: its last line, the bytes read, the seq expected next
    (``None``: unknown after damage), the records that were no event."""

    number: Annotated[int, msgspec.Meta(ge=1, le=HIGH - 1)]
    total: _Size
    expected: Annotated[int, msgspec.Meta(ge=LOW, le=HIGH - 1)] | None
    damaged: Annotated[int, msgspec.Meta(ge=0, le=MAX_DAMAGED)]


class Checkpoint(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """What a checkpoint holds after its first line (see the module's words)."""

    session: str | None
    max_record: _Size
    max_log: _Size
    typed: bool
    checkers: list[CheckerKind]
    scan: ScanRow
    done: PassState
    core: CoreState | None
    migrator: SeqIdsState


_decode = msgspec.msgpack.Decoder(Checkpoint).decode
_encode = msgspec.msgpack.Encoder().encode


@dataclass(frozen=True, slots=True)
class ResumableSource(Source):
    """A log the audit cache asks a checkpoint of (``LogReport.checkpoint``), with the
    checkpoint of its last audit to go on from, if it has one (``None``: from its start)."""

    checkpoint: bytes | None = None


def head_of(data: bytes) -> tuple[int, int] | None:
    """The length of the log a checkpoint resumes at and its number of lines, from its
    first line (``None``: it is no checkpoint of this version)."""
    end = data.find(b"\n", 0, 80)
    words = data[:end].split(b" ") if end > 0 else []
    if len(words) != 3 or words[0] != FORMAT or not (words[1].isdigit() and words[2].isdigit()) \
            or len(words[1]) > 19 or len(words[2]) > 19:
        return None
    return int(words[1]), int(words[2])


def _kinds(judges: Sequence[Checker]) -> list[CheckerKind] | None:
    kinds = [_KINDS.get(type(judge)) for judge in judges]
    return None if None in kinds else [kind for kind in kinds if kind is not None]


def encode(log: LogRead, resumed: Resumed) -> bytes | None:
    """The checkpoint of a pass that read all of ``log`` to a final newline (``None``:
    its state is not one a checkpoint keeps, or it would be too large)."""
    scan, migrator, header = log.scan, log.migrator, log.header
    kinds = _kinds(resumed.judges)
    if scan is None or migrator is None or header is None or kinds is None:
        return None
    core = None
    for judge in resumed.judges:
        if isinstance(judge, CoreChecker):
            core = judge.snapshot()
            if core is None:
                return None
    done, ids = resumed.done.snapshot(), migrator.snapshot()
    if done is None or ids is None or not (0 <= scan.total < HIGH and 1 <= scan.number < HIGH):
        return None
    expected = scan.expected if scan.expected is None or LOW <= scan.expected < HIGH else None
    if expected != scan.expected:
        return None
    body = Checkpoint(header.id, log.limits.max_record_bytes, log.limits.max_log_bytes, log.typed, kinds,
                      ScanRow(scan.number, scan.total, expected, scan.damaged), done, core, ids)
    try:
        data = FORMAT + b" %d %d\n" % (scan.total, scan.number) + _encode(body)
    except (msgspec.EncodeError, OverflowError, UnicodeEncodeError, ValueError, TypeError):
        return None  # a text no checkpoint carries (a lone surrogate), a number too large
    return data if len(data) <= MAX_CHECKPOINT_BYTES else None


def decode(data: bytes, log: LogRead, judges: Sequence[Checker]) -> tuple[ScanState, Migrator, Resumed]:
    """The state a checkpoint says, rebuilt, for ``log`` (whose header was read) and an
    audit with checkers like ``judges`` (``ValueError``, or any other exception: not a
    checkpoint this audit can go on from)."""
    head = head_of(data)
    header = log.header
    if head is None or len(data) > MAX_CHECKPOINT_BYTES or header is None:
        raise ValueError("not a checkpoint")
    body = _decode(memoryview(data)[data.index(b"\n") + 1:])
    scan, limits = body.scan, log.limits
    kinds = _kinds(judges)
    if (scan.total, scan.number) != head or body.session != header.id or body.typed is not log.typed \
            or (body.max_record, body.max_log) != (limits.max_record_bytes, limits.max_log_bytes) \
            or kinds is None or body.checkers != kinds or not scan.number <= scan.total <= limits.max_log_bytes \
            or (body.core is None) == ("core" in kinds):
        raise ValueError("a checkpoint of another log or another audit")
    most, core, ids = scan.total // RECORD_BYTES, body.core, body.migrator
    if len(body.done.groups) > most or len(ids.uuids.seqs) // 8 + len(ids.other) > most or (core is not None and (
            len(core.nodes.slots) // 8 > most or len(core.prints.seqs) // 8 > most or len(core.dev.pending) > most)):
        raise ValueError("more than the log's bytes can hold")
    done = Pass.restored(body.done, scan.number, scan.total)
    migrator = Migrator.restored(header.id, body.migrator)
    restored: list[Checker] = []
    for kind in kinds:
        if kind == "core":
            assert body.core is not None
            restored.append(CoreChecker.restored(body.core))
        else:
            restored.append(TodoChecker() if kind == "todo" else SingleActivePolicy())
    return ScanState(scan.number, scan.total, scan.expected, scan.damaged), migrator, Resumed(done, restored)


def resume_reading(log: LogRead, checkpoint: bytes, judges: Sequence[Checker]) -> Resumed | None:
    """Set ``log`` to read on from ``checkpoint``; what the pass goes on from (``None``:
    the checkpoint cannot be used, and ``log`` reads from its start, untouched)."""
    try:
        at, migrator, resumed = decode(checkpoint, log, judges)
    except Exception:  # whatever a damaged, foreign or hostile checkpoint makes the decoding raise
        return None
    return resumed if log.resume(at, migrator) else None


def keeper(log: LogRead, kept: list[bytes]) -> Callable[[Resumed], None]:
    """What the engine tells where a pass over ``log`` stands at its end: its
    checkpoint is added to ``kept`` when the pass read the whole plain log to a final
    newline (no cap, error or run of damage stopped it)."""
    def keep(resumed: Resumed) -> None:
        scan = log.scan
        if scan is None or not log.read_whole or log.compressed or scan.pending or scan.stopped \
                or log.plain_end != scan.total or log.unreadable:
            return
        data = encode(log, resumed)
        if data is not None:
            kept.append(data)

    return keep
