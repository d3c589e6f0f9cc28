"""Resuming an audit where the last one of the same log stopped.

A session log only grows. When the audit cache (``replay.check.cache``) finds a log
longer than when it was audited, with the bytes audited unchanged, the audit need not
read those bytes again: it can go on from where the last audit stood after them. That
place is a **checkpoint**: the scan's position (``replay.log.scan.ScanState``), the
legacy migrations' memory of the log (``replay.log.legacy.Migrator``), and the pass's
state before its judgement with the checkers as they were (``replay.check.passes.Resumed``).
The judgement after the pass (closing findings, A8, B7, A10, fingerprints) is made
again each time from that state, so a resumed audit's report is the report of a cold
audit of the whole log, byte for byte (a property test holds it to that).

A checkpoint is kept only for a plain ``.jsonl`` log of at least the cache's
threshold whose audit read it to a newline at its end (no torn tail, no reading
stopped by a cap or an error) and no ``Watch`` read alongside. It is pickled (the
checkers' state is arrays, sets and dicts of what the log held) and read back by an
unpickler that builds only the classes listed in ``_ALLOWED``: a cache folder is
untrusted, and a pickle that names anything else is refused before it is built, as is
one past ``MAX_CHECKPOINT_BYTES`` or of another format. A checkpoint that cannot be
used is no error: the log is audited from its start.
"""

from __future__ import annotations

import importlib
import io
import pickle
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from replay.log.reader import Source

if TYPE_CHECKING:
    from replay.check.passes import Resumed
    from replay.log.legacy import Migrator
    from replay.log.reader import LogRead
    from replay.log.scan import ScanState

FORMAT = b"replay-audit-resume/1"
"""The first word of a checkpoint; its first line ends with the length it resumes at."""
MAX_CHECKPOINT_BYTES = 64 << 20
"""The largest checkpoint read back (a checkpoint costs a few bytes per event of its log)."""

_ALLOWED = frozenset({
    ("array", "array"),
    ("array", "_array_reconstructor"),
    ("replay.check.core", "CoreChecker"),
    ("replay.check.passes", "Capped"),
    ("replay.check.passes", "Groups"),
    ("replay.check.passes", "Pass"),
    ("replay.check.passes", "Resumed"),
    ("replay.check.nodes", "LinkedNodes"),
    ("replay.check.nodes", "SurfaceNodes"),
    ("replay.findings", "Finding"),
    ("replay.findings", "Severity"),
    ("replay.log.legacy", "Migrator"),
    ("replay.log.scan", "ScanState"),
    ("replay.log.seqmap", "SeqBytes"),
    ("replay.log.seqmap", "SeqIds"),
    ("replay.todo.rules", "SingleActivePolicy"),
    ("replay.todo.rules", "TodoChecker"),
})
"""The only globals a checkpoint may name: the state classes of an audit."""


@dataclass(frozen=True, slots=True)
class ResumableSource(Source):
    """A log the audit cache asks a checkpoint of (``LogReport.checkpoint``), with the
    checkpoint of its last audit to resume from, if it has one (``None``: from the start)."""

    checkpoint: bytes | None = None


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"a checkpoint may not hold {module}.{name}")
        return getattr(importlib.import_module(module), name)


def length_of(data: bytes) -> int | None:
    """The length of the log a checkpoint resumes at (``None``: it is none)."""
    end = data.find(b"\n", 0, 64)
    head = data[:end].split(b" ") if end > 0 else []
    if len(head) != 2 or head[0] != FORMAT or not head[1].isdigit():
        return None
    return int(head[1])


def encode(scan: ScanState, migrator: Migrator, resumed: Resumed) -> bytes:
    """The checkpoint of a pass that read a log's first ``scan.total`` bytes."""
    return FORMAT + b" %d\n" % scan.total + pickle.dumps((scan, migrator, resumed), protocol=5)


def decode(data: bytes) -> tuple[ScanState, Migrator, Resumed]:
    """What ``encode`` made (``ValueError``: not a checkpoint this version of replay can use)."""
    from replay.check.passes import Pass, Resumed
    from replay.checker import Checker
    from replay.log.legacy import Migrator
    from replay.log.scan import ScanState

    length = length_of(data)
    if length is None or len(data) > MAX_CHECKPOINT_BYTES:
        raise ValueError("not a checkpoint")
    body = io.BytesIO(data)
    body.seek(data.index(b"\n") + 1)
    try:
        loaded = _Unpickler(body).load()
    except Exception as exc:  # anything a damaged or foreign pickle raises
        raise ValueError(f"not a checkpoint ({type(exc).__name__})") from None
    if not (isinstance(loaded, tuple) and len(loaded) == 3):
        raise ValueError("not a checkpoint")
    scan, migrator, resumed = loaded
    if not (type(scan) is ScanState and type(migrator) is Migrator and type(resumed) is Resumed
            and type(resumed.done) is Pass and isinstance(resumed.judges, list)
            and all(isinstance(judge, Checker) for judge in resumed.judges) and scan.total == length):
        raise ValueError("not a checkpoint")
    return scan, migrator, resumed


def resume_reading(log: LogRead, checkpoint: bytes | None) -> Resumed | None:
    """Set ``log`` to read on from ``checkpoint`` (``None``: it reads from its start);
    what the pass resumes from."""
    if checkpoint is None:
        return None
    try:
        scan, migrator, resumed = decode(checkpoint)
    except ValueError:
        return None
    return resumed if log.resume(scan, migrator) else None


def keeper(log: LogRead, kept: list[bytes]) -> Callable[[Resumed], None]:
    """What the engine tells where a pass over ``log`` stands at its end: its
    checkpoint, added to ``kept`` when the pass read the whole log to a final newline."""
    def keep(resumed: Resumed) -> None:
        scan, migrator = log.scan, log.migrator
        if scan is not None and migrator is not None and log.read_whole and not log.compressed \
                and not scan.pending and not scan.stopped:
            kept.append(encode(scan, migrator, resumed))

    return keep
