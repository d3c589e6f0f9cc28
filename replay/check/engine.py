"""Run every checker over one log and decide what storage damage means (rule A8).

``audit_log`` streams: events are looked at once and dropped. What it keeps is
bounded by the findings, not by the events. An audit is one pass (``_dispatch``: each
item to the checkers that want it) and a judgement after it (``_judge``: A8, B7, what
the harness would truncate away); ``AuditResult`` holds the reports of many logs and
the exit policy.
"""

from __future__ import annotations

import contextlib
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import TYPE_CHECKING, Literal

from replay.check.core import CoreChecker
from replay.check.dispatch import table_of
from replay.check.fingerprint import Fingerprints, file_identity, fingerprint_findings, relative_to
from replay.check.passes import MAX_PER_RULE, Pass, Resumed
from replay.check.resume import ResumableSource, keeper, resume_reading
from replay.check.storage import storage_identity, twin_location
from replay.checker import Checker
from replay.findings import Example, Finding, Rule, Severity
from replay.log.archive import ArchiveError, archive_sources
from replay.log.event import ChunkRun, ChunkSpan, DictEvent, Event
from replay.log.header import Header
from replay.log.reader import AuditItem, Item, Limits, LogRead, Opener, Source, read_log
from replay.log.repair import REPAIR_TYPES, RepairTracker
from replay.log.source import STORED_NAMES, Archive, PassedOver, Unit, ignore
from replay.todo.rules import SingleActivePolicy, TodoChecker
from replay.words import by_count, counted

INTERNAL = Rule(
    "INTERNAL", "format", "storage", "replay itself failed on the file (a bug to report)",
    explanation="""
        replay itself failed while auditing the file. This is a bug in replay, not a problem of the
        log: the other files of the audit are still judged. Please report it with the file attached.""",
    harness="""Nothing: the harness never sees this finding.""",
)

B7 = Rule(
    "B7", "format", "session", "a log that ends inside a turn is closed by repair on load",
    explanation="""
        A log that ends inside a turn comes from a session that was interrupted (a crash, or a live
        session read mid-turn). Loading it closes the turn with the harness's repair: an error
        tool/result for every call without a result, then step/end and an interrupted turn/end. The
        finding says what would be appended.""",
    examples=[
        Example(
            "a log that ends inside a step", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"step/start","seq":1,"time":0,"data":{"turn":1,"step":1}}
                """,
            audit="""
                line 3: B7 warning: the log ends inside turn 1 (the session was interrupted): loading would append step/end for step 1, turn/end {"kind":"interrupted"} for turn 1
                """),  # noqa: E501
        Example(
            "a call without its result", bad_line=5,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"step/start","seq":1,"time":0,"data":{"turn":1,"step":1}}
                {"type":"assistant/message","seq":2,"time":0,"data":{"turn":1,"step":1,"message":{"id":"m1","role":"assistant","content":[{"type":"tool-call","id":"c1","name":"bash","arguments":"{}"}],"source":{"kind":"model","provider":"p","model":"m"}}},"surfaceOp":"append"}
                {"type":"tool/call","seq":3,"time":0,"data":{"turn":1,"step":1,"callId":"c1","name":"bash","arguments":"{}"}}
                """,
            audit="""
                line 5: B7 warning: the log ends inside turn 1 (the session was interrupted): loading would append an error tool/result for c1 (TOOL_OUTCOME_UNKNOWN), step/end for step 1, turn/end {"kind":"interrupted"} for turn 1
                """),  # noqa: E501
    ],
    harness="""
        A cold load appends the closers to the file and continues; an inspection adds them in memory
        only. A live session that is still running is never repaired.""",
)


class Policy(StrEnum):
    """Which ``todo_write`` deployment policy the what-if (P1) assumes."""

    PARALLEL = "parallel"
    SINGLE = "single"


Skip = frozenset[type[Checker]]
"""Checkers an audit leaves out: none of their rules is selected (see
``replay.check.selection.Selection.skipped``)."""


def checkers(policy: Policy = Policy.PARALLEL, scanned: bool = True, skip: Skip = frozenset()) -> list[Checker]:
    """Fresh checkers for one log: the session core, the todo domain, and the policy
    what-if when asked for, but those in ``skip``. Adding a domain means adding its
    checker here (and its rules to the code table, ``replay.check.registry``)."""
    found: list[Checker] = []
    if CoreChecker not in skip:
        found.append(CoreChecker(scanned=scanned))
    if TodoChecker not in skip:
        found.append(TodoChecker())
    if policy is Policy.SINGLE and SingleActivePolicy not in skip:
        found.append(SingleActivePolicy())
    return found


LogStatus = Literal["ok", "findings", "unreadable"]


@dataclass(slots=True)
class LogReport:
    """Everything an audit found in one log."""

    path: str
    status: LogStatus
    events: int
    findings: list[Finding] = field(default_factory=list)
    checkpoint: bytes | None = None
    """Where the audit stood after the log's last line, for the audit cache to go on
    from when the log grows (``replay.check.resume``; only when asked, and possible)."""

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity is severity)

    def __reduce__(self) -> tuple[type[LogReport], tuple[object, ...]]:
        return LogReport, (self.path, self.status, self.events, self.findings,  # as Finding's: faster
                           self.checkpoint)


class Reading:
    """What a ``Watch`` does with one log: ``batch`` sees each batch of items as the
    audit reads it, in order (the audit's own items: do not change them); ``done``
    is told the log's report and returns what travels back with it (it must pickle)."""

    def batch(self, items: Sequence[AuditItem]) -> None:
        raise NotImplementedError

    def done(self, report: LogReport) -> object:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Attached:
    """What a ``Watch`` made of one log (``value``), or why it made nothing
    (``failure``: a bug of its own, which never changes the audit)."""

    path: str
    value: object = None
    failure: str | None = None


class Attachments:
    """What a ``Watch`` made of each log, held until its report arrives (``add``, then
    ``take``; first in, first out for a path audited twice)."""

    def __init__(self) -> None:
        self._waiting: dict[str, deque[Attached]] = {}

    def add(self, item: Attached) -> None:
        self._waiting.setdefault(item.path, deque()).append(item)

    def take(self, report: LogReport) -> Attached | None:
        if (queue := self._waiting.get(report.path)) is None:
            return None
        item = queue.popleft()
        if not queue:
            del self._waiting[report.path]
        return item


class _Watching:
    """One log under a watch: its ``Reading`` fed the audit's batches, any failure of
    it kept apart from the audit."""

    def __init__(self, watch: Watch, reading: Reading | None, path: str) -> None:
        self.watch, self.reading, self.path = watch, reading, path
        self.failure: str | None = None if reading is not None else "the log was not read"

    def _failed(self, exc: Exception) -> None:
        self.failure = f"{type(exc).__name__}: {exc}"
        self.reading = None

    def watched(self, batches: Iterable[Sequence[AuditItem]]) -> Iterator[Sequence[AuditItem]]:
        for batch in batches:
            if self.reading is not None:
                try:
                    self.reading.batch(batch)
                except Exception as exc:  # the watch's bug, not the log's: the audit goes on
                    self._failed(exc)
            yield batch

    def finish(self, report: LogReport) -> None:
        value: object = None
        if self.reading is not None:
            try:
                value = self.reading.done(report)
            except Exception as exc:
                self._failed(exc)
        self.watch.found.append(Attached(self.path, value, self.failure))


class Watch:
    """Something that reads every log alongside its audit, from the audit's own reading
    (the session browser drafts each log's page so, never reading a log twice):
    ``reading(log)`` gives the ``Reading`` of one log about to be audited. A watch
    travels to worker processes and cluster workers with the work, so it must pickle;
    what it made of the logs of one unit of work comes back with their reports
    (``Attached``, before the reports)."""

    def __init__(self) -> None:
        self.found: list[Attached] = []

    def reading(self, log: LogRead) -> Reading:
        raise NotImplementedError

    def start(self, log: LogRead) -> _Watching:
        try:
            return _Watching(self, self.reading(log), log.path)
        except Exception as exc:
            watching = _Watching(self, None, log.path)
            watching._failed(exc)
            return watching

    def drain(self) -> list[Attached]:
        """What the watch made of the logs since it was last drained."""
        found, self.found = self.found, []
        return found

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        state["found"] = []
        return state


Reread = Callable[[int], Iterable[Sequence[Item]]]
"""The log's items read again, from the line given on (or from further back: the items
before it are passed over), for crash repair's fold."""


def _dispatch(batches: Iterable[Sequence[AuditItem]], judges: Sequence[Checker], done: Pass | None = None) -> Pass:
    """Feed every item to the checkers that want it, in order: the hot loop of every
    audit. A hook a checker does not override is never called. A span of plain chunks
    goes whole to the one checker that wants chunks (when two do, each chunk goes to
    each, in the order of single events). ``done`` is where a pass over the log's
    first items left it (with ``judges`` as it left them): the pass goes on from it."""
    table = table_of(judges)
    runs = table.runs
    chunk_judges = [judges[i] for i in table.chunk_judges]
    span_judge = table.span_judge
    plans, by_name, plan = table.plans, table.by_name, table.plan
    going_on = done is not None
    if done is None:
        done = Pass()
    findings, after_damage, damage, groups = done.findings, done.after_damage, done.damage, done.groups
    first_damage = done.first_damage
    last_turn_end, last_turn_start, events, boundary = done.last_turn_end, done.last_turn_start, done.events, \
        done.boundary
    last_batch: Sequence[AuditItem] = ()

    def keep(found: list[Finding], line: int) -> None:
        if first_damage is not None and line > first_damage:
            after_damage.extend(found)
        else:
            findings.extend(found)

    for batch in batches:
        if batch:
            last_batch = batch
        for item in batch:
            cls = type(item)
            entry = plans.get(cls)
            if entry is None:
                if cls is ChunkSpan:
                    assert isinstance(item, ChunkSpan)
                    events += len(item.chunks)
                    if span_judge is not None:
                        found = span_judge[0](judges[span_judge[1]], item)
                        if found:  # each chunk's findings by its own line, as single events are kept
                            for f in found:
                                keep([f], f.line if f.line is not None else item.line)
                    elif chunk_judges:
                        for ev in item.events():
                            for chunk_judge in chunk_judges:
                                found = chunk_judge.event(ev)
                                if found:
                                    keep(found, ev.line)
                    continue
                if cls is ChunkRun:
                    assert isinstance(item, ChunkRun)
                    events += item.count
                    for judge_run, owner in runs:
                        found = judge_run(judges[owner], item)
                        if found:
                            keep(found, item.line)
                    continue
                if isinstance(item, Finding):
                    if item.tail:
                        damage.add(item)
                        if first_damage is None and item.line is not None:
                            first_damage = item.line
                    elif item.group is None or groups.add(item):
                        findings.add(item)
                    continue
                assert isinstance(item, Event)
                if cls is DictEvent:
                    entry = by_name.get(item.type)
                    if entry is None:
                        entry = by_name[item.type] = plan(DictEvent, item.type)
                else:
                    entry = plans[cls] = plan(type(item), item.type)
            if TYPE_CHECKING:  # a class with a plan is an event's
                assert isinstance(item, Event)
            events += 1
            hooks, mark = entry
            for hook, owner in hooks:
                found = hook(judges[owner], item)
                if found:
                    keep(found, item.line)
            if mark:
                if mark == 1:
                    last_turn_start = item.line
                else:
                    last_turn_end = item.line
                if first_damage is None:
                    boundary = item.line
    done.events = events
    done.first_damage = first_damage
    done.last_turn_start = last_turn_start
    done.last_turn_end = last_turn_end
    done.boundary = boundary
    if last_batch or not going_on:
        done.last_line = _line_of(last_batch[-1] if last_batch else None)
    return done


def _judge(done: Pass, judges: Sequence[Checker], header: Header | None, reread: Reread | None,
           ended: bool) -> list[Finding]:
    """After the pass: the checkers' closing findings, A8 (what the damage means), what
    the harness would truncate away, B7 (an interrupted last turn), then the findings
    in line order with repeated notes folded. What crash repair would append is said
    only of a log read to its ``ended`` (a reading a cap or an error stopped did not
    see where the log ends)."""
    last_turn_end = done.last_turn_end
    interrupted = done.last_turn_start > last_turn_end
    repair = RepairTracker()
    if (done.damage.kept or interrupted) and reread is not None and ended:
        repair = _repair_of(reread(done.boundary), done.first_damage)
    findings = done.findings
    for c in judges:
        if c.overrides("finish"):
            found = c.finish()
            if found:
                findings.extend(found)

    out = findings.kept + findings.overflow()
    out.extend(_judge_damage(done.damage.kept, last_turn_end, repair))
    for (rule, _), (n, first, last) in done.damage.dropped.items():
        severity = Severity.ERROR if first <= last_turn_end else Severity.WARNING
        out.append(Finding(rule, severity, f"{counted(n, f'more {rule} finding')} between lines {first} and "
                           f"{last} {by_count(n, 'is|are')} not listed (the first {MAX_PER_RULE} are)", first))
    # Findings on events the harness would truncate away are not reported.
    after = done.after_damage
    out.extend(f for f in after.kept if f.line is None or f.line <= last_turn_end)
    out.extend(f for f in after.overflow() if f.line is not None and f.line <= last_turn_end)
    if not done.damage.kept and interrupted and repair.interrupted and header is not None:
        out.append(B7.warning(
            f"the log ends inside turn {repair.open_turn} (the session was interrupted): loading would "
            f"{repair.describe()}", done.last_line, repair.last_seq, None))
    out = done.groups.finish(out)
    out.sort(key=lambda f: (f.line if f.line is not None else 0))
    return out


def audit_items(
    batches: Iterable[Sequence[AuditItem]],
    header: Header | None = None,
    policy: Policy = Policy.PARALLEL,
    scanned: bool = True,
    reread: Reread | None = None,
    skip: Skip = frozenset(),
    ended: Callable[[], bool] | None = None,
    resume: Resumed | None = None,
    keep: Callable[[Resumed], None] | None = None,
) -> tuple[int, list[Finding]]:
    """Judge a stream of item batches (as ``LogRead.batches`` gives them); return the
    number of events and the findings.

    What crash repair would do (rules A8, B7) matters only for a damaged log or one
    that ends inside a turn; only then is the log read a second time, through
    ``reread``, to work it out, and only when ``ended`` says, once the batches are
    read, that they went to the log's end (by default they did). ``resume`` is where
    a pass over the items before these stood (``replay.check.resume``): the pass goes
    on from it; ``keep`` is told where the pass stands at its end, before the judgement.
    """
    if resume is not None:
        judges = resume.judges
        done = _dispatch(batches, judges, resume.done)
    else:
        judges = checkers(policy, scanned, skip)
        done = _dispatch(batches, judges)
    if keep is not None:
        keep(Resumed(done, judges))
    return done.events, _judge(done, judges, header, reread, ended is None or ended())


def _repair_of(batches: Iterable[Sequence[Item]], stop_line: int | None) -> RepairTracker:
    """The repair state of the preserved prefix: the events before ``stop_line``."""
    repair = RepairTracker()
    feed = repair.feed
    wanted = REPAIR_TYPES
    for batch in batches:
        for item in batch:
            if stop_line is not None and item.line is not None and item.line >= stop_line:
                return repair
            if isinstance(item, Event):
                if item.type in wanted:
                    feed(item)
                else:
                    repair.end_at(item.seq, item.time)
            elif isinstance(item, ChunkRun):
                repair.end_at(item.last_seq, item.time0 + sum(item.dt))
    return repair


def _line_of(item: AuditItem | None) -> int:
    if item is None:
        return 1
    if isinstance(item, ChunkSpan):
        return item.last_line
    return item.line if item.line is not None else 1


def _judge_damage(damage: list[Finding], last_turn_end: int, repair: RepairTracker) -> Iterator[Finding]:
    """A8: damage at or before the last decodable turn/end is fatal (the harness throws
    at that turn/end, or at the damage when it is on the turn/end's own line), after it a
    torn tail. The harness stops at the first damage: once that is fatal, later damage
    is said to be past the last complete turn of a log refused anyway, never that
    loading would cut the log (it does not load)."""
    if not damage:
        return
    first = damage[0].line or 0
    fatal = first <= last_turn_end
    for f in damage:
        line = f.line or 0
        if line < last_turn_end:
            yield f.with_severity(Severity.ERROR, f"{f.message}. Damage before the last complete turn (its "
                                  f"turn/end is on line {last_turn_end}) is fatal: today's harness refuses this log")
        elif line == last_turn_end:
            yield f.with_severity(Severity.ERROR, f"{f.message}. The record is the log's last turn/end, and "
                                  "damage on a turn/end's line is fatal: today's harness refuses this log")
        elif fatal:
            yield f.with_severity(Severity.WARNING, f"{f.message}. It comes after the log's last turn/end (line "
                                  f"{last_turn_end}), in a log today's harness refuses for the damage on line "
                                  f"{first}")
        else:
            repaired = f", then {repair.describe()}" if repair.interrupted else ""
            yield f.with_severity(Severity.WARNING, f"{f.message}. It comes after the last complete turn, a "
                                  f"tail torn by a crash: loading would cut the log off before line {first}"
                                  f"{repaired}")


def audit_source(source: Source, policy: Policy = Policy.PARALLEL, limits: Limits | None = None,
                 fingerprints: Fingerprints = False, exists: Callable[[str], bool] | None = None,
                 watch: Watch | None = None, skip: Skip = frozenset()) -> LogReport | None:
    """One log's report; ``None`` for a discovered file that is not a session log (one
    that could not be read as far as its first record is reported: it may be one).
    Never raises: a bug of ours is an ``INTERNAL`` finding for the file."""
    try:
        log = read_log(source, limits)
        if source.discovered and not log.is_session_log and not log.stopped_before_header:
            log.close()
            return None
        if isinstance(source, ResumableSource) and watch is None:
            return audit_log(log, policy, fingerprints, exists, skip=skip, checkpoint=source.checkpoint, keep=True)
        return audit_log(log, policy, fingerprints, exists, watch, skip)
    except Exception as exc:  # a bug of ours must not hide the other files' results
        return internal_report(source.path, f"replay failed on this file ({type(exc).__name__}: {exc}); "
                               "please report it with the file attached")


def may_be_log(unit: Unit, limits: Limits | None = None) -> bool:
    """Whether ``audit_unit`` may report on this unit: an archive, a log named on the
    command line, or a file found in a folder whose first record is a session header
    (or could not be read that far). Reads at most the first record."""
    if isinstance(unit, Archive) or not (unit.discovered and unit.is_file):
        return True
    try:
        log = read_log(unit, limits)
    except Exception:  # audit_source reports it
        return True
    try:
        return log.is_session_log or log.stopped_before_header
    finally:
        log.close()


def internal_report(path: str, why: str) -> LogReport:
    """The report of a log replay itself failed on: one ``INTERNAL`` error saying why."""
    return LogReport(path, "unreadable", 0, [INTERNAL.error(why)])


def audit_archive(archive: Archive, policy: Policy = Policy.PARALLEL, limits: Limits | None = None,
                  fingerprints: Fingerprints = False, passed_over: PassedOver = ignore,
                  watch: Watch | None = None, skip: Skip = frozenset()) -> list[LogReport]:
    """The reports of an archive's logs, in archive order, read as it streams; what
    its reading passes over (a link, a device named like a log) is told to
    ``passed_over``. Never raises: an archive that cannot be read on (damage, a cap)
    is a report of its own, after those of the logs before; a bug of ours, an
    ``INTERNAL`` one.

    Rule A10 asks whether a session's other encoding exists beside its log: in an
    archive, anywhere in it. A log whose other encoding comes *later* cannot know
    while it is read; the rare such log is audited again, knowing every name, in a
    second pass over the archive (the common archive is read once)."""
    reports: list[LogReport] = []
    names: dict[str, int] = {}  # every log-named member → its place in the archive
    judged: dict[str, int] = {}  # the members A10 judges → their report's index
    try:
        try:
            for source in archive_sources(archive, limits, passed_over):
                names.setdefault(source.path, len(names))
                report = audit_source(source, policy, limits, fingerprints, names.__contains__, watch, skip)
                if report is not None:
                    if source.path.endswith(_STORED) and report.status != "unreadable":
                        judged[source.path] = len(reports)
                    reports.append(report)
        except ArchiveError as exc:
            reports.append(LogReport(archive.path, "unreadable", 0, [exc.finding]))
        again = {location: index for location, index in judged.items()
                 if names.get(twin_location(location), -1) > names[location]}
        if again:
            with contextlib.suppress(ArchiveError):  # the first pass has already said what is wrong
                for source in archive_sources(archive, limits):
                    if source.path in again:
                        report = audit_source(source, policy, limits, fingerprints, names.__contains__,
                                              skip=skip)
                        if report is not None:
                            reports[again[source.path]] = report
    except Exception as exc:  # a bug of ours must not hide the other files' results
        reports.append(internal_report(archive.path, f"replay failed on this archive ({type(exc).__name__}: "
                                       f"{exc}); please report it with the archive attached"))
    return reports


_STORED = tuple(f"/{name}" for name in STORED_NAMES)
"""The names A10 judges (``judges_identity`` says whether a log's place is judged)."""


@dataclass(frozen=True, slots=True)
class Passed:
    """Something the reading of a unit passed over (an archive's link or device named
    like a log), and why: told as what a folder search passes over is."""

    path: str
    why: str


Told = LogReport | Passed | Attached
"""What one unit of work sends back: its reports, what its reading passed over, and
what a ``Watch`` made of its logs."""


def audit_unit(unit: Unit, policy: Policy = Policy.PARALLEL, limits: Limits | None = None,
               fingerprints: Fingerprints = False, watch: Watch | None = None,
               skip: Skip = frozenset()) -> list[Told]:
    """The reports of one unit of work: a log (none when it is passed over) or an
    archive, with what the archive's reading passed over and what ``watch`` made of
    each log (both before the reports)."""
    if isinstance(unit, Archive):
        passed: list[Told] = []
        reports = audit_archive(unit, policy, limits, fingerprints, lambda path, why: passed.append(Passed(path, why)),
                                watch, skip)
        return [*passed, *(watch.drain() if watch is not None else ()), *reports]
    report = audit_source(unit, policy, limits, fingerprints, watch=watch, skip=skip)
    return [*(watch.drain() if watch is not None else ()), *([] if report is None else [report])]


def _not_told(attached: Attached) -> None:
    return None


def told(results: Iterable[list[Told]], passed_over: PassedOver = ignore,
         attached: Callable[[Attached], None] = _not_told,
         finished: Callable[[], None] | None = None) -> Iterator[LogReport]:
    """The reports of ``audit_unit`` results, in order; what was passed over is told
    to ``passed_over``, what a watch made of a log to ``attached``; ``finished`` is
    called as each unit's results are all told (a unit may have no report)."""
    for items in results:
        for item in items:
            if isinstance(item, Passed):
                passed_over(item.path, item.why)
            elif isinstance(item, Attached):
                attached(item)
            else:
                yield item
        if finished is not None:
            finished()


def audit_sources(
    sources: Iterable[Unit], policy: Policy = Policy.PARALLEL, limits: Limits | None = None,
    fingerprints: Fingerprints = False, passed_over: PassedOver = ignore,
) -> Iterator[LogReport]:
    """Audit logs (and archives of logs) one after another, in this process; each
    report is yielded as soon as it is done (its findings fingerprinted when asked:
    see ``audit_log``), and what an archive's reading passes over is told to
    ``passed_over``."""
    return told((audit_unit(unit, policy, limits, fingerprints) for unit in sources), passed_over)


def audit_log(log: LogRead, policy: Policy = Policy.PARALLEL, fingerprints: Fingerprints = False,
              exists: Callable[[str], bool] | None = None, watch: Watch | None = None,
              skip: Skip = frozenset(), checkpoint: bytes | None = None, keep: bool = False) -> LogReport:
    """Audit one log that is being read. With ``fingerprints``, each finding gets its
    fingerprint (``replay.check.fingerprint``), which reads the log's records a second
    time, only for a log with findings and only as far as its last finding. ``exists``
    answers rule A10's question (is the session's other encoding beside it?); by
    default the source's own storage does. ``watch`` reads the log alongside (see
    ``Watch``); what it made of it waits in ``watch.drain()``. The checkers in ``skip``
    are left out (none of their rules is reported), except on a log that turns out
    unreadable: that is reported whole whatever the selection, so it is judged again
    with every checker. With ``keep`` (and no watch), the report holds the audit's
    checkpoint when one can be kept; ``checkpoint`` is that of an audit of the log's
    first bytes, to go on from (``replay.check.resume``). A checkpoint that cannot be
    used, or anything that goes wrong on from it, is no error: the log is audited
    from its start."""
    if watch is not None:
        keep, checkpoint = False, None
    if checkpoint is not None:
        resumed = resume_reading(log, checkpoint, checkers(policy, True, skip))
        if resumed is not None:
            try:
                return _audited(log, policy, fingerprints, exists, None, skip, resumed, keep)
            except Exception:  # a checkpoint's state the log's records do not fit: from the start
                log.close()
                log = read_log(log.source, log.limits, log.typed)
    return _audited(log, policy, fingerprints, exists, watch, skip, None, keep)


def _audited(log: LogRead, policy: Policy, fingerprints: Fingerprints, exists: Callable[[str], bool] | None,
             watch: Watch | None, skip: Skip, resumed: Resumed | None, keep: bool) -> LogReport:
    def reread(line: int) -> Iterator[Sequence[Item]]:
        again = read_log(log.source, log.limits, log.typed)
        try:  # no further than the pass read: a live log may have grown since
            yield from again.batches_from(line, log.plain_end, log.resumed_at)  # a resumed log: its place known
        finally:  # also when the fold stops early (at the damage): the file is closed then
            again.close()

    def ended() -> bool:
        return log.read_whole

    kept: list[bytes] = []
    reading = watch.start(log) if watch is not None else None
    batches = log.audit_batches() if reading is None else reading.watched(log.audit_batches())
    events, findings = audit_items(batches, log.header, policy, reread=reread, skip=skip, ended=ended,
                                   resume=resumed, keep=keeper(log, kept) if keep else None)
    if skip and log.unreadable:
        whole = read_log(log.source, log.limits, log.typed)
        events, findings = audit_items(whole.audit_batches(), log.header, policy, reread=reread,
                                       ended=lambda: whole.read_whole)
    if log.source.is_file:
        if exists is None:
            opener = log.source.open
            exists = opener.exists if isinstance(opener, Opener) else os.path.exists
        identity = storage_identity(log.path, log.header, exists)
        if identity:
            findings = sorted(identity + findings, key=lambda f: f.line if f.line is not None else 0)
    if fingerprints and findings:
        findings = fingerprint_findings(findings, read_log(log.source, log.limits).records(),
                                        file_identity(log.path, relative_to(fingerprints)))
    if log.unreadable:
        status: LogStatus = "unreadable"
    elif findings:
        status = "findings"
    else:
        status = "ok"
    report = LogReport(log.path, status, events, findings, kept[0] if kept and not log.unreadable else None)
    if reading is not None:
        reading.finish(report)
    return report


@dataclass(frozen=True, slots=True)
class Summary:
    """Totals of an audit. Every file is exactly one of ``ok`` (no findings),
    ``warnings_only`` (findings, none an error), ``with_errors`` (readable, with an
    error finding) and ``unreadable``; ``failed`` is the last two together."""

    files: int
    ok: int
    failed: int
    events: int
    errors: int
    warnings: int
    policy: int
    warnings_only: int = 0
    with_errors: int = 0
    unreadable: int = 0


OK, WARNINGS_ONLY, WITH_ERRORS, UNREADABLE = 0, 1, 2, 3
"""What a log is in a ``Summary`` (its ``standing``): exactly one of these."""

Tally = tuple[int, int, int, int, int]
"""What one log adds to a ``Summary``: its standing, events, errors, warnings, policy findings."""


def tally(report: LogReport) -> Tally:
    """What ``report`` adds to a ``Summary``."""
    errors = report.count(Severity.ERROR)
    standing = UNREADABLE if report.status == "unreadable" else WITH_ERRORS if errors else \
        WARNINGS_ONLY if report.findings else OK
    return standing, report.events, errors, report.count(Severity.WARNING), report.count(Severity.POLICY)


def summed(tallies: Iterable[Tally]) -> Summary:
    """The ``Summary`` of logs that add ``tallies``."""
    standings = [0, 0, 0, 0]
    files = events = errors = warnings = policy = 0
    for standing, e, err, w, p in tallies:
        files += 1
        standings[standing] += 1
        events += e
        errors += err
        warnings += w
        policy += p
    ok, warnings_only, with_errors, unreadable = standings
    return Summary(files, ok, with_errors + unreadable, events, errors, warnings, policy, warnings_only, with_errors,
                   unreadable)


def summarize(reports: Iterable[LogReport]) -> Summary:
    return summed(map(tally, reports))


def failing_severities(fail_on: Iterable[Severity] = ()) -> frozenset[Severity]:
    """The severities that fail an audit: errors always, plus those asked for."""
    return frozenset({Severity.ERROR, *fail_on})


@dataclass(frozen=True)
class AuditResult:
    """The audit of many logs, and its exit policy: it fails when a finding has one of
    the ``failing`` severities or a log could not be read."""

    reports: Sequence[LogReport]
    failing: frozenset[Severity] = frozenset({Severity.ERROR})
    baselined: int = 0
    """Findings a baseline held back (not in ``reports``)."""
    passed_over: Sequence[tuple[str, str]] = ()
    """What a folder search left out, and why: ``(path, reason)`` (a FIFO, a device, a
    link out of the folder)."""
    notes: Sequence[str] = ()
    """What the audit says of itself that no finding says (a baseline of which nothing
    matched), for a report to show beside its findings."""
    cached: int | None = None
    """How many logs' reports came from the audit cache (``None``: no cache was used)."""

    @cached_property
    def summary(self) -> Summary:
        return summarize(self.reports)

    @property
    def failed(self) -> bool:
        return self.summary.failed > 0 or any(f.severity in self.failing for r in self.reports for f in r.findings)


def audit_events(
    events: Iterable[Event], policy: Policy = Policy.PARALLEL
) -> list[Finding]:
    """Audit events given directly (no line scanner ran: C4 and D1 apply)."""
    batch: list[Item] = list(events)
    return audit_items([batch], None, policy, scanned=False, reread=lambda _line: [batch])[1]
