"""A run record's report amended for the logs that changed since it was kept.

A run record (``replay.check.quick``) answers a re-audit when nothing it saw changed.
An archive that grows changes a few of its logs between audits: a live session
appends to its log, a new session adds a folder with its log. When what changed lies
in the folders a search went through (logs whose contents changed, logs and folders
added or removed) and nothing else did (no ``pyproject.toml``, no file named on the
command line), the record's **plan** lets the audit read only what changed: each folder
whose status changed is listed again (and a new folder searched), the logs that are
new, changed or beside a change are audited, with the cache as any audit does (a grown
log, a rewritten one: rule H1, a ``touch``), and the JSON report is written with their
entries made again in their places, the removed ones gone, the others as the record
holds them, and the summary summed again from what the plan keeps of every log. The
report is the one a full audit writes, byte for byte (``replay.report.audit.json_head``
makes a full report of the same entries), and so is the exit status.

A plan is kept for a JSON report only (its entries lie apart in it): where the report's
closing starts, and for each log its name, the command-line path it came from, where
its entry lies, what it adds to the summary, whether it fails the audit and whether a
folder's search found it. A record is anyone's who may write the cache's folder, so
what the command searches is taken from the command line (its own parsing,
``replay.cli.json_audit_request``), never from the record, and nothing is read or
listed that a search of its folders would not reach. Anything the amendment cannot say
as a full audit would (something passed over, a log that is no session log now, a note
of the cache, an archive changed, a log the plan does not name) leaves the command to
run in full.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Annotated, Literal

import msgspec

from replay.check.audit import Audit, AuditRequest, keeps_records
from replay.check.engine import AuditResult, LogReport, Summary, summed, tally
from replay.check.quick import (
    FILE,
    FOLDER,
    Changed,
    Seen,
    Status,
    recent,
    record_bytes,
    seen_bytes,
    seen_rows,
    seen_without,
)
from replay.findings import Severity
from replay.log.discover import is_url, local_path
from replay.log.reader import Source
from replay.log.source import LocalFile, at_or_below
from replay.log.walk import ARCHIVE_SUFFIXES, LOG_SUFFIXES, Listed, identity, listing, walk
from replay.report.audit import FILES_SEPARATOR as SEPARATOR
from replay.report.audit import json_closing, json_file

PLAN_FORMAT: Literal["replay-audit-plan/3"] = "replay-audit-plan/3"
_Count = Annotated[int, msgspec.Meta(ge=0)]
_State = Literal[0, 1, 2, 3]
"""What a log is in the summary (``replay.check.engine.tally``'s standing)."""


class _Log(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    path: str
    group: _Count
    """The command line's path it came from (its place among them)."""
    start: _Count
    end: _Count
    """Where its entry lies in the report."""
    events: _Count
    errors: _Count
    warnings: _Count
    policy: _Count
    state: _State
    fails: bool
    """A finding of a failing severity (``AuditResult.failing``)."""
    found: bool
    """A folder's search found it, and it is a log, not an archive: it can be amended."""


class _Plan(msgspec.Struct, forbid_unknown_fields=True):
    format: Literal["replay-audit-plan/3"]
    closing: _Count
    """Where the report's closing (its summary) starts."""
    logs: list[_Log]


@dataclass(frozen=True, slots=True)
class _Search:
    """What the command line searches, as its own parsing of it says (never a record's
    word: a record is anyone's who may write the cache's folder): its paths (``file://``
    taken off), and which of them are folders."""

    request: AuditRequest
    roots: tuple[str, ...]
    searched: tuple[bool, ...]

    @classmethod
    def of(cls, request: AuditRequest) -> _Search | None:
        roots = _roots(request)
        return None if roots is None else cls(request, roots, tuple(os.path.isdir(root) for root in roots))

    def finds(self, path: str, log: bool) -> bool:
        """Whether a search of one of its folders reaches ``path`` (a log named like one
        when ``log``): below the folder, by real folders (no link, no ``..``), each of
        which it can list (a folder it cannot is passed over, its logs unread)."""
        if log and not path.endswith(LOG_SUFFIXES):
            return False
        for root, searched in zip(self.roots, self.searched, strict=True):
            top = root if root.endswith("/") else root + "/"
            if not searched or not (path.startswith(top) or path == root):
                continue
            parts = path[len(top):].split("/") if path != root else []
            if any(part in ("", ".", "..") for part in parts):
                continue
            at, real = root, _listable(root)
            for part in parts[:-1] if log else parts:
                at = os.path.join(at, part)
                try:
                    real = stat.S_ISDIR(os.lstat(at).st_mode) and _listable(at)
                except OSError:
                    real = False
                if not real:
                    break
            if real:
                return True
        return False


def _listable(folder: str) -> bool:
    """Whether a search could list ``folder`` (``replay.log.walk.listing`` opens it so)."""
    try:
        os.scandir(folder).close()
    except OSError:
        return False
    return True


_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder(_Plan).decode


def _log(report: LogReport, group: int, start: int, end: int, failing: frozenset[Severity], found: bool) -> _Log:
    state, events, errors, warnings, policy = tally(report)
    return _Log(report.path, group, start, end, events, errors, warnings, policy, state,  # type: ignore[arg-type]
                any(f.severity in failing for f in report.findings), found)


def _roots(request: AuditRequest) -> tuple[str, ...] | None:
    """The command line's paths as searched (``file://`` taken off; ``None``: one is a
    URL or standard input, which no plan amends)."""
    roots = tuple(local_path(path) for path in request.paths)
    return None if any(is_url(root) or root == "-" for root in roots) else roots


def _group(path: str, roots: Sequence[str]) -> int | None:
    """The one command-line path ``path`` lies at or below (``None``: none, or more)."""
    groups = [i for i, root in enumerate(roots) if at_or_below(path, root)]
    return groups[0] if len(groups) == 1 else None


def plan_bytes(request: AuditRequest, result: AuditResult, spans: Sequence[tuple[int, int]], closing: int,
               found: frozenset[str]) -> bytes:
    """The plan of a JSON report whose entries lie at ``spans`` and whose closing starts
    at ``closing``; ``found``: the logs a folder's search found (empty bytes: no plan,
    for a report whose logs are not each of one command-line path, in their order)."""
    reports, roots = result.reports, _roots(request)
    if roots is None or not reports or len(spans) != len(reports) or len({r.path for r in reports}) != len(reports):
        return b""
    logs, last = [], 0
    for report, (start, end) in zip(reports, spans, strict=True):
        group = _group(report.path, roots)
        if group is None or group < last:
            return b""
        last = group
        logs.append(_log(report, group, start, end, result.failing, report.path in found))
    try:
        return _encode(_Plan(PLAN_FORMAT, closing, logs))
    except (msgspec.EncodeError, UnicodeEncodeError):
        return b""  # a name msgpack cannot carry (a lone surrogate): no plan


def _summary(logs: Sequence[_Log]) -> Summary:
    return summed((log.state, log.events, log.errors, log.warnings, log.policy) for log in logs)


def _plan(data: bytes, report: memoryview, search: _Search) -> _Plan | None:
    """The plan ``data`` of ``report``, when it is one a full audit of ``search`` made of it."""
    try:
        plan = _decode(data)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None
    logs = plan.logs
    if not logs or plan.closing > len(report) or len({log.path for log in logs}) != len(logs):
        return None
    at, group = 0, 0
    for i, log in enumerate(logs):  # in order, apart, each of its path, before the closing
        if log.start < at or log.end < log.start or log.group < group or log.group >= len(search.roots) or \
                (i and report[at:log.start] != SEPARATOR):
            return None
        at, group = log.end, log.group
    return plan if at <= plan.closing else None


@dataclass(slots=True)
class _Relisted:
    """What the folders that changed hold now, against what the plan knew of them."""

    gone: set[str] = field(default_factory=set)
    """Logs no longer there, and folders gone (everything below them with them), as
    ``_place`` writes them."""
    audited: dict[str, Status] = field(default_factory=dict)
    """The logs to audit (new, changed or beside a change), with their status now."""
    new: dict[str, int] = field(default_factory=dict)
    """The new logs, with the command-line path they came from."""
    groups: set[int] = field(default_factory=set)
    """The command-line paths whose logs are other ones now."""
    folders: list[Seen] = field(default_factory=list)
    """The folders listed, with their status taken before (as a record keeps them)."""


def _unit(path: str, status: Status) -> Source:
    return Source(path, LocalFile(path, status[2], status), is_file=True, discovered=True)


def _place(folder: str) -> str:
    """A folder's path as ``_parent`` gives it (no trailing ``/``)."""
    return folder.rstrip("/") or folder[:1]


def _parent(path: str) -> str:
    return _place(os.path.dirname(path))


@dataclass(slots=True)
class _Known:
    """What the record knew, by folder: the logs in each, and the folders in each."""

    logs: dict[str, _Log]
    logs_in: dict[str, list[str]]
    folders_in: dict[str, list[str]]

    @classmethod
    def of(cls, plan: _Plan, seen: bytes, folders: bool) -> _Known:
        """``folders``: by folder too (else only the logs by name)."""
        logs_in: dict[str, list[str]] = {}
        folders_in: dict[str, list[str]] = {}
        if folders:
            for log in plan.logs:
                logs_in.setdefault(_parent(log.path), []).append(log.path)
            for path, _, _, _ in seen_rows(seen, b"%d" % FOLDER):
                folders_in.setdefault(_parent(path), []).append(path)
        return cls({log.path: log for log in plan.logs}, logs_in, folders_in)


def _relisted(plan: _Plan, search: _Search, seen: bytes, changed: Sequence[Changed], cache: str) -> _Relisted | None:
    """What changed, as the full audit would find it (``None``: what it cannot say);
    ``seen``: what the record saw; ``cache``: the cache's folder (absolute)."""
    known = _Known.of(plan, seen, any(row[2] == FOLDER for row, _ in changed))
    folders: dict[str, Seen] = {}
    files: dict[str, tuple[int, Status] | None] = {}
    for (path, follow, kind, _), now in changed:
        if kind == FOLDER and (not follow or path in search.roots) and (now is None or search.finds(path, False)):
            folders[path] = (path, follow, FOLDER, now[1] if now is not None and now[0] == FOLDER else None)
        elif kind == FILE and not follow and path in known.logs and known.logs[path].found and \
                (now is None or search.finds(path, True)):  # read only what the command's search finds
            files[path] = now
        else:
            return None  # a configuration, a file named on the command line or beside one, an archive
    relisted = _Relisted()
    for path, now in files.items():
        if now is not None and now[0] == FILE:
            relisted.audited[path] = now[1]
    for folder, (_, follow, _, status) in sorted(folders.items()):
        if status is None:
            if folder in search.roots:
                return None  # a command-line path gone: the command says so
            continue
        if not _listed(folder, search, known, relisted, cache):
            return None
        relisted.folders.append((folder, follow, FOLDER, status))
    gone = relisted.gone
    vanished = [path for path, now in files.items() if now is None or now[0] != FILE]
    vanished += [folder for folder, (_, _, _, status) in folders.items() if status is None]
    if any(not _gone(path, gone) for path in vanished):
        return None  # gone, or another kind of file, in a folder whose listing did not change
    return relisted


def _listed(folder: str, search: _Search, known: _Known, relisted: _Relisted, cache: str) -> bool:
    """List ``folder`` again (and search each new folder in it) into ``relisted``."""
    group = _group(folder, search.roots)
    if group is None or not search.searched[group]:
        return False
    passed: list[str] = []
    root = search.roots[group]

    def told(path: str, why: str) -> None:
        passed.append(path)

    below, files = listing(folder, root, told)
    here = set(known.logs_in.get(_place(folder), ()))
    if any(not known.logs[path].found for path in here):
        return False  # an archive's logs: its reports are not amended
    now = {path for path, _ in files}
    for path, st in files:
        if path.endswith(ARCHIVE_SUFFIXES):
            return False
        relisted.audited[path] = identity(st)  # beside a change: the other encoding may be new (rule A10)
        if path not in known.logs:
            relisted.new[path] = group
    subfolders = set(known.folders_in.get(_place(folder), ()))
    relisted.gone |= here - now  # logs: no trailing "/"
    relisted.gone |= {_place(path) for path in subfolders - set(below) if path != folder}
    for path in below:
        if path in subfolders:
            continue
        place = os.path.abspath(path)
        if at_or_below(place, cache) or at_or_below(cache, place):
            return False  # the cache's own folder in the search: a record says it holds no log
        listed: Listed = []
        for found, st in walk(path, told, listed, root):
            if found.endswith(ARCHIVE_SUFFIXES):
                return False
            relisted.audited[found] = identity(st)
            relisted.new[found] = group
        for place, follow, status in listed:
            if status is None:
                return False
            relisted.folders.append((place, follow, FOLDER, status))
    if passed:
        return False  # the audit in full tells what it passes over
    if here - now or relisted.new:
        relisted.groups.add(group)
    return True


def _gone(path: str, gone: set[str]) -> bool:
    """Whether ``path`` is gone, or lies in a folder gone."""
    while True:
        if path in gone:
            return True
        parent = os.path.dirname(path)
        if not parent or parent == path:
            return False
        path = parent


def amended(request: AuditRequest | None, data: bytes, seen: bytes, report: memoryview, changed: Sequence[Changed],
            where: tuple[str, bool, str], key: str) -> tuple[int, bytes, str | None] | None:
    """The exit status and the report of the command whose record holds the plan
    ``data``, what it ``seen`` and ``report``, the statuses ``changed`` having changed:
    what changed audited (the cache written, and the record amended when it may be), and
    the note to say once the report is written (the amended record could not be, as the
    full run says it); ``None``: the command is to run in full. ``request``: what the
    command line asks, as its own parsing says (``replay.cli.json_audit_request``; never
    the record's word: a record is anyone's who may write the cache's folder); ``where``:
    the cache's folder, whether it was found rather than named, and the namespace the
    record is in; ``key``: the record's name."""
    search = None if request is None or not _same_cache(request, where) else _Search.of(request)
    plan = None if search is None else _plan(data, report, search)
    if plan is None or search is None:
        return None
    relisted = _relisted(plan, search, seen, changed, os.path.abspath(where[0]))
    if relisted is None:
        return None
    gone = relisted.gone
    kept = [log for log in plan.logs if not (gone and _gone(log.path, gone))]
    if any(not log.found and log.group in relisted.groups for log in kept):
        return None
    order = _in_order(kept, relisted)
    if not order:
        return None  # no log left: the audit in full says so
    try:
        audit = Audit(replace(search.request, jobs=1))  # a few logs: no workers (the report is the same)
    except Exception:  # a usage problem now (a path gone): the command says it
        return None
    if audit.cache is None or audit.cache.namespace != where[2]:
        return None
    audited = [path for path, _ in order if path in relisted.audited]
    audit.saves_what_it_says = False  # given up on (a note, a log passed over): the full run finds the cache as it was
    audit.units = [_unit(path, relisted.audited[path]) for path in audited]
    try:
        result = audit.run() if audited else AuditResult([], cached=0)  # only logs gone: nothing to read
    except Exception:  # whatever it is, the command run in full says it
        return None
    if audit.passed or result.notes or [r.path for r in result.reports] != audited:
        return None
    again = dict(zip(audited, result.reports, strict=True))
    index = {log.path: i for i, log in enumerate(plan.logs)}
    logs: list[_Log] = []  # each where its entry lies in the report it was made for (the record's, or none)
    pieces: list[bytes | memoryview] = []
    run: list[int] = []  # consecutive entries of the record's report, taken as one piece (their separators in it)
    for path, group in order:
        judged = again.get(path)
        old = index.get(path) if judged is None else None
        if old is not None and run and old == run[-1] + 1:
            run.append(old)
        else:
            if run:
                pieces.append(report[plan.logs[run[0]].start:plan.logs[run[-1]].end])
            run = [] if old is None else [old]
        if judged is not None:
            pieces.append(json_file(judged))
            logs.append(_log(judged, group, 0, len(pieces[-1]), result.failing, True))
        else:
            logs.append(plan.logs[index[path]])
    if run:
        pieces.append(report[plan.logs[run[0]].start:plan.logs[run[-1]].end])
    head = b"".join([report[:plan.logs[0].start], SEPARATOR.join(pieces), report[plan.logs[-1].end:plan.closing]])
    summary = _summary(logs)
    cached = len(logs) - len(audited) + (result.cached or 0)
    code = 1 if summary.failed or any(log.fails for log in logs) else 0
    note = _keep(audit, seen, relisted, audited, code, head, summary, lambda: _placed(plan, logs), key)
    return code, head + json_closing(summary, cached), note


def _placed(plan: _Plan, logs: Sequence[_Log]) -> _Plan:
    """The plan of the report made of ``logs`` (each entry of its own length, those
    audited again too), each entry where it lies in it."""
    placed: list[_Log] = []
    at = plan.logs[0].start
    for log in logs:
        size = log.end - log.start
        placed.append(msgspec.structs.replace(log, start=at, end=at + size))
        at += size + len(SEPARATOR)
    return msgspec.structs.replace(plan, closing=at - len(SEPARATOR) + (plan.closing - plan.logs[-1].end), logs=placed)


def _same_cache(request: AuditRequest, where: tuple[str, bool, str]) -> bool:
    """Whether ``request`` is one a record may be kept of, with this cache (however its
    folder is spelled: ``cache``, ``./cache``, ``cache/``)."""
    folder, found, _ = where
    cache = request.cache
    return cache is not None and keeps_records(request) and (cache.folder is None) == found and \
        (cache.folder is None or os.path.abspath(cache.folder) == os.path.abspath(folder))


def _in_order(kept: Sequence[_Log], relisted: _Relisted) -> list[tuple[str, int]]:
    """Every log of the report now, with its command-line path, in the report's order:
    the logs of a path whose logs changed sorted again by name (as a search finds them)."""
    order = [(log.path, log.group) for log in kept]
    if relisted.new:
        order += list(relisted.new.items())
        order.sort(key=lambda item: (item[1], item[0]) if item[1] in relisted.groups else (item[1], ""))
    return order


def _keep(audit: Audit, seen: bytes, relisted: _Relisted, audited: Sequence[str], code: int, head: bytes,
          summary: Summary, planned: Callable[[], _Plan], key: str) -> str | None:
    """The record amended, when the audit of what changed would have kept one: every
    log's report kept, none rewritten, none modified too recently; the note of a record
    that cannot be written (``AuditCache.keep_run``'s)."""
    from replay.check import quick

    cache = audit.cache
    if cache is None or cache.seen is None:
        return None
    fresh = [*relisted.folders, *cache.seen]
    if any(status is not None and recent(status, quick.started_ns) for _, _, _, status in fresh):
        return None
    gone = relisted.gone
    replaced = {path for path, _, _, _ in relisted.folders} | set(audited)
    rows = seen_without(seen, lambda path: path in replaced or (bool(gone) and _gone(path, gone))) + seen_bytes(fresh)
    plan = planned()  # only now: most amended runs keep no record (a log modified just now)
    if plan.closing != len(head):
        return None
    try:
        data = _encode(plan)
    except (msgspec.EncodeError, UnicodeEncodeError):
        return None
    return cache.keep_run(key, record_bytes(rows, code, head + json_closing(summary, len(plan.logs)), data))
