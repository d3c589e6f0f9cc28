"""The audit of paths, whole, as ``replay audit`` runs it: the paths checked, the logs
found (folders, archives, URLs, standard input), the rule selection (the command
line's over the nearest ``[tool.replay.audit]`` table), a baseline applied and one
written, on this process, worker processes or a Dask cluster, with the audit cache
(``replay.check.cache``) when the request names one.

``Audit(request, passed_over)`` prepares it (every usage problem is raised here, before
a log is read); ``listed()`` finds every log first (for a progress bar, which needs the
count); ``run(on_report)`` audits, telling each report as it comes, in order, and
returns the ``AuditResult``. A reporter is the caller's: this module never prints."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from replay.check.baseline import Baseline, baseline_bytes, read_baseline
from replay.check.cache import AuditCache, CacheRequest, namespace
from replay.check.engine import Attached, AuditResult, LogReport, Policy, Watch, failing_severities, may_be_log
from replay.check.fingerprint import Fingerprints
from replay.check.quick import CACHE, FILE, FOLDER, Seen, holds_no_log, recent, seen_config
from replay.check.registry import RULES
from replay.check.runner import audit_units
from replay.check.selection import Selection, audit_selection, find_config
from replay.findings import Severity
from replay.fs import write_output
from replay.log.discover import discover, require_paths
from replay.log.reader import Limits
from replay.log.source import LocalFile, PassedOver, Unit, at_or_below, ignore
from replay.log.walk import Listed


class NoLogs(Exception):
    """The paths given hold no session log (a usage error)."""


@dataclass(frozen=True)
class AuditRequest:
    """What to audit and how: the command line's choices, parsed."""

    paths: tuple[str, ...]
    policy: Policy = Policy.PARALLEL
    limits: Limits = field(default_factory=Limits)
    select: tuple[str, ...] | None = None
    """Rule ids or series (``None``: the table's, else every rule)."""
    ignore: tuple[str, ...] | None = None
    min_severity: str | None = None
    fail_on: tuple[Severity, ...] = ()
    baseline: Path | None = None
    """Report only findings not in this baseline file."""
    write_baseline: Path | None = None
    """Write this audit's findings (after the selection) as a baseline to this file."""
    fingerprints: bool = False
    """Fingerprint every finding (a baseline needs them; so do some report formats)."""
    jobs: int = 1
    scheduler: str | None = None
    cache: CacheRequest | None = None
    """Where the audit cache is (``replay.check.cache``); ``None``: no cache."""


def keeps_records(request: AuditRequest) -> bool:
    """Whether an audit asked for with ``request`` may keep a run record: a cache used,
    neither verified nor a baseline read or written, no scheduler."""
    cache = request.cache
    return cache is not None and not cache.verify and request.baseline is None and request.write_baseline is None \
        and request.scheduler is None


class Audit:
    """One audit, prepared: the selection and the baseline read, the logs to find."""

    def __init__(self, request: AuditRequest, passed_over: PassedOver = ignore, watch: Watch | None = None) -> None:
        require_paths(request.paths)
        self.request = request
        self.watch = watch
        """Reads every log alongside its audit (``replay.check.engine.Watch``)."""
        # Before the table is read, for a run record (a later change is one).
        self._config_seen = seen_config(os.getcwd()) if request.cache is not None else None
        config = find_config()
        self.selection: Selection = audit_selection(request.select, request.ignore, request.min_severity, config)
        self.baseline = read_baseline(request.baseline) if request.baseline is not None else Baseline()
        self.cache = None if request.cache is None else AuditCache(
            request.cache, namespace(tuple(RULES), request.policy, request.limits, self.selection, config,
                                     self.fingerprints),
            request.limits, self.fingerprints, watch)
        """The audit cache this audit reads and writes (``None``: none)."""
        self.passed: list[tuple[str, str]] = []

        def pass_over(path: str, why: str) -> None:
            self.passed.append((path, why))
            passed_over(path, why)

        self._pass_over = pass_over
        self._listed: Listed = []
        self._left_out: list[Seen] | None = []
        self.units: Iterable[Unit] = discover(request.paths, pass_over, request.limits.max_log_bytes,
                                              self._listed if request.cache is not None else None)

    @property
    def fingerprints(self) -> Fingerprints:
        """Whether findings are fingerprinted, and relative to what (the baseline's root
        when it names one: its entries are matched, and a baseline written, by it)."""
        if self.baseline.root is not None:
            return self.baseline.root
        return self.request.fingerprints or self.request.baseline is not None or \
            self.request.write_baseline is not None

    def listed(self) -> int:
        """Find every log now (a progress bar needs their count): how many logs and
        archives there are. A file a folder holds that is not a session log (its first
        record is no session header) is left out now, so the count is of logs."""
        limits = self.request.limits
        kept: list[Unit] = []
        for unit in self.units:
            if may_be_log(unit, limits):
                kept.append(unit)
            elif self._left_out is not None:  # a folder's file: its status is the search's
                known = unit.open.known_identity if isinstance(unit.open, LocalFile) else None
                if known is None:
                    self._left_out = None
                else:
                    self._left_out.append((unit.path, False, FILE, known))
        self.units = kept
        return len(self.units)

    def may_keep_record(self) -> bool:
        """Whether this audit's options leave room for a run record (``seen`` may then
        still say no): see ``keeps_records``."""
        return self.cache is not None and keeps_records(self.request)

    def seen(self, result: AuditResult, started: int) -> list[Seen] | None:
        """What a run record of this audit keeps (``replay.check.quick``), for an audit
        that started at ``started`` (ns); ``None``: the same command could not be
        answered from one (no cache, or it said something, a baseline read or
        written, something passed over, a status modified too recently)."""
        cache = self.cache
        if not self.may_keep_record() or cache is None or cache.seen is None or self._left_out is None or \
                result.notes or self.passed:
            return None
        config = self._config_seen
        if config is None or seen_config(os.getcwd()) != config:
            return None  # one cannot be looked at, or changed since the table was read
        # The cache's own folders, when the search went through them, change as the
        # audit writes: what matters of them is that they hold no log.
        own = os.path.abspath(cache.tree.path)
        if any(identity is None for _, _, identity in self._listed):
            return None  # a folder without a status: its search said why, or it went
        seen: list[Seen] = [(path, followed, FOLDER, identity) for path, followed, identity in self._listed
                            if not at_or_below(os.path.abspath(path), own)]
        seen += cache.seen + self._left_out + config  # a status of None: nothing there (a log's other encoding)
        if any(identity is not None and recent(identity, started) for _, _, _, identity in seen):
            return None
        if len(seen) < len(self._listed) + len(cache.seen) + len(self._left_out) + len(config):
            if not holds_no_log(own):
                return None
            seen.append((own, False, CACHE, None))
        return seen

    def run(self, on_report: Callable[[LogReport], None] = lambda report: None,
            attached: Callable[[Attached], None] | None = None,
            finished: Callable[[str], None] | None = None) -> AuditResult:
        """Audit every log found, telling each report (after the selection and the
        baseline) to ``on_report`` in order, what the watch made of each log to
        ``attached`` before its report, and each log or archive done to ``finished``
        (its path; after ``listed``, once per unit it counted); with
        ``write_baseline``, write it."""
        request = self.request
        reports: list[LogReport] = []
        selected: list[LogReport] = []
        units = self.units
        done = None
        if finished is not None and isinstance(units, list):
            paths = iter([unit.path for unit in units])

            def done() -> None:
                finished(next(paths, ""))

        cache = self.cache
        passed_over = self._pass_over if cache is None else cache.passed_over(self._pass_over)
        results = audit_units(units if cache is None else cache.units(units), request.policy, request.limits,
                              self.fingerprints, jobs=request.jobs, scheduler=request.scheduler,
                              passed_over=passed_over, watch=self.watch, attached=attached, finished=done,
                              skip=self.selection.skipped)
        if cache is not None:
            results = cache.reports(results, self._pass_over, attached, done)
        for judged in results:
            report = self.selection.apply(judged)
            if request.write_baseline is not None:
                selected.append(report)
            report = self.baseline.apply(report)
            reports.append(report)
            on_report(report)
        if cache is not None and (self.saves_what_it_says or not (self.passed or cache.notes)):
            cache.save()
        if not reports:
            raise NoLogs("no session logs found in the given paths")
        if request.write_baseline is not None:
            write_output(request.write_baseline, [baseline_bytes(selected, request.write_baseline,
                                                                 self.baseline.root)])
            self.baseline_written = sum(len(r.findings) for r in selected)
        unmatched = self.baseline.unmatched()
        notes = ((unmatched,) if unmatched is not None else ()) + (() if cache is None else tuple(cache.notes))
        return AuditResult(reports, failing_severities(request.fail_on), self.baseline.matched, tuple(self.passed),
                           notes, None if cache is None else cache.hits)

    baseline_written: int | None = None
    """How many findings ``run`` wrote as a baseline (``None``: it wrote none)."""
    saves_what_it_says: bool = True
    """Whether ``run`` writes the cache when it has something to say of it (a note, a
    log passed over): not for a run record's amendment (``replay.report.amend``), which
    then leaves the command to run in full with the cache as it found it."""
