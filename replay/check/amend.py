"""A run record's report amended for the logs that changed since it was kept.

A run record (``replay.check.quick``) answers a re-audit when nothing it saw changed.
An archive that grows changes a few of its logs between audits: a live session
appends to its log. When only the contents of logs a folder's search found changed
(no folder, no configuration, no file named on the command line), the record's
**plan** lets the audit read only those logs: the JSON report's entry of each of them
is made again, put where the old one was, and the summary is summed again from what
the plan keeps of every log. The report is the one a full audit writes, byte for byte
(``replay.report.audit.json_head`` makes a full report of the same entries); the
changed logs are audited with the cache as any audit does (a grown log, a rewritten
one: rule H1, a ``touch``), and the cache's entries are written as any audit writes
them.

A plan is kept for a JSON report only (its entries lie apart in it): its request
(what the command line asked for), where the report's closing starts, and for each
log its name, where its entry lies, what it adds to the summary, whether it fails the
audit and whether a folder's search found it. Anything the amendment cannot say as a
full audit would (a log no longer a session log, a note of the cache, a log that is
not one the plan names) leaves the command to run in full.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path, PurePath
from typing import Annotated, Any, Literal

import msgspec

from replay.check.audit import Audit, AuditRequest
from replay.check.engine import AuditResult, LogReport, Summary
from replay.check.quick import Changed, Seen, recent, record_bytes, seen_rows
from replay.findings import Severity
from replay.log.reader import Source
from replay.log.source import LocalFile
from replay.report.audit import json_closing, json_file

PLAN_FORMAT: Literal["replay-audit-plan/1"] = "replay-audit-plan/1"
_Count = Annotated[int, msgspec.Meta(ge=0)]
_State = Literal[0, 1, 2, 3]
OK: _State = 0
WARNINGS_ONLY: _State = 1
WITH_ERRORS: _State = 2
UNREADABLE: _State = 3
"""What a log is in the summary (``replay.check.engine.Summary``): exactly one of these."""


class _Log(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    path: str
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
    format: Literal["replay-audit-plan/1"]
    request: AuditRequest
    closing: _Count
    """Where the report's closing (its summary) starts."""
    logs: list[_Log]


def _enc_hook(value: Any) -> Any:
    if isinstance(value, PurePath):
        return str(value)
    raise NotImplementedError(type(value).__name__)


def _dec_hook(kind: type, value: Any) -> Any:
    if kind is Path and isinstance(value, str):
        return Path(value)
    raise NotImplementedError(kind.__name__)


_encode = msgspec.msgpack.Encoder(enc_hook=_enc_hook).encode
_decode = msgspec.msgpack.Decoder(_Plan, dec_hook=_dec_hook).decode


def _log(report: LogReport, start: int, end: int, failing: frozenset[Severity], found: bool) -> _Log:
    errors = report.count(Severity.ERROR)
    state = UNREADABLE if report.status == "unreadable" else WITH_ERRORS if errors else \
        WARNINGS_ONLY if report.findings else OK
    return _Log(report.path, start, end, report.events, errors, report.count(Severity.WARNING),
                report.count(Severity.POLICY), state, any(f.severity in failing for f in report.findings), found)


def plan_bytes(request: AuditRequest, result: AuditResult, spans: Sequence[tuple[int, int]], closing: int,
               found: frozenset[str]) -> bytes:
    """The plan of a JSON report whose entries lie at ``spans`` and whose closing starts
    at ``closing``; ``found``: the logs a folder's search found (empty bytes: no plan,
    the names of two entries being the same)."""
    reports = result.reports
    if len(spans) != len(reports) or len({r.path for r in reports}) != len(reports):
        return b""
    logs = [_log(r, start, end, result.failing, r.path in found)
            for r, (start, end) in zip(reports, spans, strict=True)]
    try:
        return _encode(_Plan(PLAN_FORMAT, request, closing, logs))
    except (msgspec.EncodeError, UnicodeEncodeError, NotImplementedError):
        return b""  # a name msgpack cannot carry (a lone surrogate): no plan


def _summary(logs: Sequence[_Log]) -> Summary:
    states = [0, 0, 0, 0]
    for log in logs:
        states[log.state] += 1
    ok, warnings_only, with_errors, unreadable = states
    return Summary(len(logs), ok, with_errors + unreadable, sum(log.events for log in logs),
                   sum(log.errors for log in logs), sum(log.warnings for log in logs),
                   sum(log.policy for log in logs), warnings_only, with_errors, unreadable)


def _plan(data: bytes, report_size: int) -> _Plan | None:
    try:
        plan = _decode(data)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None
    at = 0
    for log in plan.logs:  # in order, apart, before the closing
        if log.start < at or log.end < log.start:
            return None
        at = log.end
    if plan.closing < at or plan.closing > report_size or len({log.path for log in plan.logs}) != len(plan.logs):
        return None
    return plan


def amended(data: bytes, seen: bytes, report: memoryview, changed: Sequence[Changed],
            where: tuple[str, bool, str], key: str) -> tuple[int, bytes] | None:
    """The exit status and the report of the command whose record holds the plan
    ``data``, what it ``seen`` and ``report``, the logs ``changed`` having changed: those
    audited again (and the cache written, and the record amended when it may be);
    ``None``: the command is to run in full. ``where``: the cache's folder, whether it
    was found rather than named, and the namespace the record is in; ``key``: the
    record's name."""
    plan = _plan(data, len(report))
    if plan is None:
        return None
    at = {log.path: i for i, log in enumerate(plan.logs)}
    indices = [at.get(path) for path, _ in changed]
    if any(i is None or not plan.logs[i].found for i in indices) or len(set(indices)) != len(indices):
        return None
    order = sorted((i, status) for i, (_, status) in zip(indices, changed, strict=True) if i is not None)
    folder, found, space = where
    request = plan.request
    if request.cache is None or request.cache.verify or request.scheduler is not None or \
            request.baseline is not None or request.write_baseline is not None or \
            (request.cache.folder is None) != found or \
            (request.cache.folder is not None and str(request.cache.folder) != folder):
        return None
    try:
        audit = Audit(replace(request, jobs=1))  # a few logs: no workers (the report is the same)
    except Exception:  # a usage problem now (a path gone): the command says it
        return None
    if audit.cache is None or audit.cache.namespace != space:
        return None
    audit.units = [Source(plan.logs[i].path, LocalFile(plan.logs[i].path, status[2], status), is_file=True,
                          discovered=True) for i, status in order]
    try:
        result = audit.run()
    except Exception:  # whatever it is, the command run in full says it
        return None
    if audit.passed or result.notes or [r.path for r in result.reports] != [plan.logs[i].path for i, _ in order]:
        return None
    logs, shift, pos = list(plan.logs), 0, 0
    parts: list[bytes | memoryview] = []
    again = {i: r for (i, _), r in zip(order, result.reports, strict=True)}
    for j, log in enumerate(plan.logs):
        judged = again.get(j)
        if judged is not None:
            entry = json_file(judged)
            parts += [report[pos:log.start], entry]
            pos = log.end
            start = log.start + shift
            shift += len(entry) - (log.end - log.start)
            logs[j] = _log(judged, start, start + len(entry), result.failing, True)
        elif shift:
            logs[j] = msgspec.structs.replace(log, start=log.start + shift, end=log.end + shift)
    parts.append(report[pos:plan.closing])
    head = b"".join(parts)
    summary = _summary(logs)
    cached = len(logs) - len(order) + (result.cached or 0)
    code = 1 if summary.failed or any(log.fails for log in logs) else 0
    _keep(audit, seen, changed, code, head, summary, msgspec.structs.replace(plan, closing=len(head), logs=logs), key)
    return code, head + json_closing(summary, cached)


def _keep(audit: Audit, seen: bytes, changed: Sequence[Changed], code: int, head: bytes, summary: Summary,
          plan: _Plan, key: str) -> None:
    """The record amended, when the audit of the changed logs would have kept one: every
    log's report kept, none rewritten, none modified too recently."""
    from replay.check import quick

    cache = audit.cache
    if cache is None or cache.seen is None or any(recent(status, quick.started_ns) for _, status in changed):
        return
    now = dict(changed)
    rows: list[Seen] = [(path, follow, kind, now.get(path, identity) if not follow else identity)
                        for path, follow, kind, identity in seen_rows(seen)]
    try:
        data = _encode(plan)
    except (msgspec.EncodeError, UnicodeEncodeError, NotImplementedError):
        return
    cache.keep_run(key, record_bytes(rows, code, head + json_closing(summary, len(plan.logs)), data))
