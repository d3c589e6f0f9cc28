"""An audit of many logs: in this process (``jobs=1``), on worker processes
(``--jobs N``: ``replay.parallel``) or on a Dask cluster (``--scheduler``:
``replay.cluster``).

The work is cut by file: a unit (one log, or one archive of logs) is never split.
Consecutive units are grouped into batches of about ``BATCH_BYTES`` (or at most
``BATCH_UNITS``), so a worker gets a large log alone and small ones by the dozen, and
the reports come back in the order of discovery: the report is the same, byte for
byte, whatever runs it. Workers send back ``LogReport`` data only; reporting stays
with the caller. A unit whose worker died is an ``INTERNAL`` finding for it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from replay.check.engine import Attached, LogReport, Policy, Skip, Told, Watch, audit_unit, internal_report, told
from replay.check.fingerprint import Fingerprints
from replay.log.reader import Limits, Opener
from replay.log.source import PassedOver, Unit, ignore
from replay.parallel import Batch, fewer_gc_passes, in_order

BATCH_BYTES = 8 << 20
"""A batch closes once it holds this many bytes of logs (a larger log is alone)."""
BATCH_UNITS = 64
"""…or this many units, whatever their size (an archive or a URL may not say)."""
CLUSTER_BATCH = 4
"""A Dask task costs a round trip to the scheduler (milliseconds, while the worker
waits): its batches are this many times larger."""


def portable(unit: Unit) -> bool:
    """Whether a unit can be opened in another process: its opener is data that
    names shared storage."""
    return isinstance(unit.open, Opener) and unit.open.travels()


def batches(units: Iterable[Unit], scale: int = 1) -> Iterator[Batch[Unit]]:
    """Consecutive units in batches (``scale`` times the usual size); one that cannot
    travel is a batch of its own, run here."""
    max_bytes, max_units = BATCH_BYTES * scale, BATCH_UNITS * scale
    items: list[Unit] = []
    size = 0
    for unit in units:
        if not portable(unit):
            if items:
                yield Batch(items)
                items, size = [], 0
            yield Batch([unit], here=True)
            continue
        assert isinstance(unit.open, Opener)
        known = unit.open.size()
        items.append(unit)
        size += known or 0
        if size >= max_bytes or len(items) >= max_units:
            yield Batch(items)
            items, size = [], 0
    if items:
        yield Batch(items)


def _lost(unit: Unit, why: str) -> list[Told]:
    return [internal_report(unit.path, f"{why}; the rest of the audit is complete (audit this file alone "
                            "with --jobs 1 to see whether it happens again, and report it)")]


def audit_units(units: Iterable[Unit], policy: Policy = Policy.PARALLEL, limits: Limits | None = None,
                fingerprints: Fingerprints = False, jobs: int = 1, scheduler: str | Any | None = None,
                passed_over: PassedOver = ignore, watch: Watch | None = None,
                attached: Callable[[Attached], None] | None = None,
                finished: Callable[[], None] | None = None, skip: Skip = frozenset()) -> Iterator[LogReport]:
    """The reports of every unit, in order (fingerprinted when asked: see
    ``audit_log``): in this process, on ``jobs`` worker processes, or on the Dask
    cluster of ``scheduler`` (an address or a client). What an archive's reading
    passes over is told to ``passed_over`` here, as its results come back; what
    ``watch`` made of each log (it reads the logs alongside the audit, where they are
    audited), to ``attached``, before the log's report; ``finished`` is called as each
    unit is done (``told``). The checkers in ``skip`` are left out (see ``audit_log``)."""
    work = functools.partial(audit_unit, policy=policy, limits=limits, fingerprints=fingerprints, watch=watch,
                             skip=skip)
    if scheduler is not None:
        from replay import cluster

        results = cluster.in_order(work, batches(units, CLUSTER_BATCH), scheduler, _lost)
    elif jobs > 1:
        results = in_order(work, batches(units), jobs, _lost)
    else:  # in this process: no batches to balance, no sizes to look up
        results = map(work, units)
    # This process audits (``--jobs 1``) or unpickles the workers' reports: either way,
    # with the cyclic collector's passes as rare as a worker makes them.
    with fewer_gc_passes():
        if attached is None:
            yield from told(results, passed_over, finished=finished)
        else:
            yield from told(results, passed_over, attached, finished)
