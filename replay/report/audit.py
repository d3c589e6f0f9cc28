"""Reporters of an audit (``replay.check.engine.AuditResult``, one ``LogReport`` per
log): text, JSON, GitHub annotations and SARIF for ``--format``, JUnit XML for
``--junit``.

The text report is made to be read over hundreds of logs:

* the logs come by what is wrong with them: unreadable ones and those with errors
  first, then those with warnings, then policy findings alone (by path within each);
* each log with findings of its own is a heading (its path relative to the working
  directory) and one entry per kind of finding in it, in line order; several
  findings of one kind in a log are one entry that names their lines;
* a kind of finding seen in ``FOLD_MIN_FILES`` or more logs is not repeated under
  each of them: it is one entry of the "in many files" section, with its count and
  its first ``FOLD_PLACES`` places (``--no-fold`` lists every finding instead); a
  failing log whose every finding is folded still has its heading, so every failing
  log is named at least once;
* the summary counts files (ok, warnings only, errors, unreadable) and findings, and
  a by-rule table says what each rule checks (``--statistics`` prints only that).

A *kind* of finding is its rule, severity and message with the numbers taken out
(``fold_key``): "chunk belongs to turn 1, step 2" and "… turn 3, step 1" are one kind.
Every finding is counted somewhere in the text: in an entry's lines, or in a fold's
count.
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import IO, Any, ClassVar, TextIO

from replay.check.engine import AuditResult, LogReport, Summary
from replay.check.registry import RULES, rule_order
from replay.describe import reason
from replay.findings import Finding, Severity, message_shape, one_event_message
from replay.hints import line
from replay.log.source import display_path
from replay.output import OutputError, json_bytes, utf8
from replay.report.base import RULES_HINT, Reporter
from replay.report.github import annotation
from replay.report.junit import Case, Suite, junit_xml
from replay.style import PLAIN, Style, sanitize
from replay.words import counted

SEVERITY_COLORS = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.POLICY: "cyan"}

FOLD_MIN_FILES = 3
"""A kind of finding in this many logs or more is folded into one entry."""
FOLD_PLACES = 3
"""The places a folded entry names before it says how many more there are."""
LINES_SHOWN = 3
"""The lines an entry of several findings in one log names before "and N more"."""


@dataclass(frozen=True, slots=True)
class AuditView:
    """How a person wants the audit shown: folded or not, statistics only, and the
    folder paths are shown relative to (the working directory when ``None``)."""

    fold: bool = True
    statistics: bool = False
    cwd: str | None = None
    baseline: bool = False
    """The findings are those a baseline did not hold (SARIF marks them new)."""
    files_only: bool = False
    """text: only the paths of the logs with findings, one per line (as ``grep -l``)."""
    summary_only: bool = False
    """text: only the closing summary (a run that wrote a baseline)."""


class AuditReporter(Reporter[LogReport, AuditResult]):
    """A format of an audit: its units are the logs' reports, in audit order."""

    needs_fingerprints: ClassVar[bool] = False
    """Whether the format shows findings' fingerprints (the audit then computes them)."""

    def __init__(self, stream: TextIO, style: Style = PLAIN, view: AuditView | None = None) -> None:
        super().__init__(stream, style)
        self.view = view or AuditView()

    def units(self, result: AuditResult) -> Sequence[LogReport]:
        return result.reports

    def path(self, report: LogReport) -> str:
        """The log's path as people read it (relative to the working directory)."""
        return display_path(report.path, self.view.cwd)

    def closing(self, result: AuditResult) -> bytes:
        """The end of the report that says how many logs came from the audit cache, as
        ``finish`` writes it last (empty: the format does not say it). A run record's
        report is the one written with this end said again for every log
        (``replay.check.quick``)."""
        return b""

    @classmethod
    def render(cls, result: AuditResult, style: Style = PLAIN, view: AuditView | None = None) -> str:
        out = io.StringIO()
        cls(out, style, view).run(result)
        return out.getvalue()


def fold_key(f: Finding) -> tuple[str, Severity, str]:
    """The kind of a finding: rule, severity, and its group (a kind of note counted per
    log, such as one legacy migration) or else its message's shape (numbers as ``#``)."""
    return f.rule, f.severity, f.group or message_shape(f.message)


def _message(group: Sequence[Finding]) -> str:
    """The message of one kind of finding: the first one's, after "e.g." when they differ."""
    first = group[0].message
    return sanitize(first if all(f.message == first for f in group) else "e.g. " + first)


def finding_line(path: str, f: Finding, style: Style) -> str:
    """``path:line: RULE severity: message``, one line whatever the message holds."""
    where = f"{sanitize(path)}:{f.line}" if f.line is not None else sanitize(path)
    return f"{where}: {_label(f, style)}: {sanitize(f.message)}"


def _label(f: Finding, style: Style) -> str:
    return f"{style.paint('bold', f.rule)} {style.paint(SEVERITY_COLORS[f.severity], f.severity.value)}"


def _counts(findings: Iterable[Finding]) -> str:
    """``2 errors, 1 warning`` (severities with none left out)."""
    n = {s: 0 for s in Severity}
    for f in findings:
        n[f.severity] += 1
    parts = [counted(n[Severity.ERROR], "error"), counted(n[Severity.WARNING], "warning"),
             f"{n[Severity.POLICY]} policy"]
    return ", ".join(p for p, s in zip(parts, Severity, strict=True) if n[s])


def _lines(lines: Sequence[int | None]) -> str:
    """``line 21``, ``lines 3, 4 and 9``, ``lines 3, 4, 5 and 7 more``."""
    known = [str(n) for n in lines if n is not None]
    if not known:
        return "no line" if len(lines) == 1 else f"{len(lines)} findings"
    unknown = len(lines) - len(known)
    if len(lines) == 1:
        return f"line {known[0]}"
    if len(known) <= LINES_SHOWN and not unknown:
        return f"lines {', '.join(known[:-1])} and {known[-1]}"
    shown = known[:LINES_SHOWN]
    return f"lines {', '.join(shown)} and {len(lines) - len(shown)} more"


def _entry(group: Sequence[Finding], style: Style) -> str:
    """One kind of finding in one log: its lines, rule, severity, message."""
    return f"  {_lines([f.line for f in group])}: {_label(group[0], style)}: {_message(group)}"


def _by_kind(findings: Iterable[Finding]) -> dict[tuple[str, Severity, str], list[Finding]]:
    groups: dict[tuple[str, Severity, str], list[Finding]] = {}
    for f in findings:
        groups.setdefault(fold_key(f), []).append(f)
    return groups


FOLDED_TITLE = f"Found in {FOLD_MIN_FILES} or more files"
"""The heading of the section the kinds of finding of many logs are folded into."""


def _heading(path: str, report: LogReport, folded: int, style: Style) -> str:
    """``path (N events; 2 errors, 1 warning; 1 of them under "Found in 3 or more
    files" below)``: where its findings are when some are folded."""
    status = "unreadable: " if report.status == "unreadable" else ""
    where = f'under "{FOLDED_TITLE}" below'
    below = ("" if not folded else f"; {'all' if folded == len(report.findings) else f'{folded} of them'} {where}")
    return style.paint("bold", sanitize(path)) + (f" ({counted(report.events, 'event')}; {status}"
                                                  f"{_counts(report.findings)}{below})")


def log_text(report: LogReport, style: Style, path: str | None = None, fold: bool = True,
             hidden: frozenset[tuple[str, Severity, str]] = frozenset(), named: bool = False) -> str:
    """One log: a heading and its findings, one entry per kind (every finding on its
    own line with ``fold=False``), leaving out the kinds in ``hidden`` (folded
    elsewhere). Empty when nothing is left to show, unless ``named`` (then the
    heading alone says the log is there and its findings are below)."""
    shown = [f for f in report.findings if fold_key(f) not in hidden] if hidden else report.findings
    if not shown and not (named and report.findings):
        return ""
    where = path if path is not None else display_path(report.path)
    lines = [_heading(where, report, len(report.findings) - len(shown), style)]
    if fold:
        lines.extend(_entry(group, style) for group in _by_kind(shown).values())
    else:
        lines.extend(_entry([f], style) for f in shown)
    return "\n".join(lines) + "\n"


def _folded(reports: Sequence[LogReport]) -> dict[tuple[str, Severity, str], list[tuple[LogReport, list[Finding]]]]:
    """The kinds found in ``FOLD_MIN_FILES`` logs or more, with their logs and
    findings in audit order, most frequent first within a rule."""
    where: dict[tuple[str, Severity, str], list[tuple[LogReport, list[Finding]]]] = {}
    for r in reports:
        for key, group in _by_kind(r.findings).items():
            where.setdefault(key, []).append((r, group))
    folded = {k: v for k, v in where.items() if len(v) >= FOLD_MIN_FILES}
    order = sorted(folded, key=lambda k: (rule_order(k[0]), -sum(len(g) for _, g in folded[k]), k[2]))
    return {k: folded[k] for k in order}


def _fold_entry(places: list[tuple[LogReport, list[Finding]]], reporter: AuditReporter) -> list[str]:
    """One kind of finding of many logs: its message (without what one log's count
    says), how many findings (or, for a kind grouped per log, events) in how many files,
    and the first places."""
    style = reporter.style
    findings = [f for _, group in places for f in group]
    grouped = findings[0].group is not None
    first = one_event_message(findings[0])
    message = sanitize(first if all(one_event_message(f) == first for f in findings) else "e.g. " + first)
    events = sum(f.events for f in findings)
    of_events = f" ({counted(events, 'event')})" if grouped and events > len(findings) else ""
    out = [f"  {_label(findings[0], style)}: {message}",
           f"    {counted(len(findings), 'finding')}{of_events} in {counted(len(places), 'file')}, first at:"]
    for report, group in places[:FOLD_PLACES]:
        where = f"{sanitize(reporter.path(report))}:{group[0].line}" if group[0].line is not None \
            else sanitize(reporter.path(report))
        here = sum(f.events for f in group) if grouped else len(group)
        more = (f" ({counted(here, 'such event')} in this file, the first here)" if grouped else
                f" (and {here - 1} more in this file)") if here > 1 else ""
        out.append("      " + style.paint("dim", where + more))
    if len(places) > FOLD_PLACES:
        out.append("      " + style.paint("dim", f"and {counted(len(places) - FOLD_PLACES, 'more file')} (--no-fold "
                                                     "lists every finding)"))
    return out


def summary_text(reports: Iterable[LogReport], summary: Summary, style: Style, baselined: int = 0,
                 cached: int | None = None) -> str:
    """The closing lines: files by outcome (and how many came from the audit cache),
    findings by severity (and those a baseline held back), the by-rule table; on a
    terminal a coloured verdict line after it."""
    out = ["", files_line(summary, cached), findings_line(summary)]
    if baselined:
        out.append(f"{counted(baselined, 'finding')} in the baseline not reported")
    table = rule_table(reports)
    if table:
        out += ["", *table, "", RULES_HINT]
    text = "\n".join(out) + "\n"
    if style.color:
        verdict = style.paint("red", f"{summary.failed} failed") if summary.failed else style.paint("green", "all ok")
        text += verdict + "\n"
    return text


def files_line(summary: Summary, cached: int | None = None) -> str:
    """Files by outcome; ``cached``: how many reports the audit cache gave (said
    when there were some)."""
    line = (f"{counted(summary.files, 'file')}, {counted(summary.events, 'event')}: {summary.ok} ok, "
            f"{summary.warnings_only} with warnings only, {summary.with_errors} with errors, "
            f"{summary.unreadable} unreadable")
    return f"{line} ({cached} from the cache)" if cached else line


def findings_line(summary: Summary) -> str:
    total = summary.errors + summary.warnings + summary.policy
    return (f"{counted(total, 'finding')}: {counted(summary.errors, 'error')}, "
            f"{counted(summary.warnings, 'warning')}, {summary.policy} policy")


def rule_table(reports: Iterable[LogReport]) -> list[str]:
    """One row per rule and severity found: its findings, the files they are in, and
    what the rule checks. Empty when nothing was found."""
    count: dict[tuple[str, Severity], int] = {}
    files: dict[tuple[str, Severity], int] = {}
    for r in reports:
        seen: set[tuple[str, Severity]] = set()
        for f in r.findings:
            key = (f.rule, f.severity)
            count[key] = count.get(key, 0) + 1
            if key not in seen:
                seen.add(key)
                files[key] = files.get(key, 0) + 1
    if not count:
        return []
    width = max(4, *(len(rule) for rule, _ in count))
    rows = [f"{'rule':<{width}}  severity  findings  files  what it checks"]
    for rule, severity in sorted(count, key=lambda k: (rule_order(k[0]), k[1].value)):
        info = RULES.get(rule)
        key = (rule, severity)
        rows.append(f"{rule:<{width}}  {severity.value:<8}  {count[key]:>8}  {files[key]:>5}  "
                    f"{info.summary if info else ''}".rstrip())
    return rows


def _worst(report: LogReport) -> int:
    """Where a log comes in the report: unreadable or with errors, with warnings, the rest."""
    if report.status == "unreadable" or report.count(Severity.ERROR):
        return 0
    return 1 if report.count(Severity.WARNING) else 2


def by_what_is_wrong(reports: Iterable[LogReport]) -> list[LogReport]:
    """The logs with errors (or unreadable) first, then those with warnings, then the
    rest, each kind in the order they were audited (by path)."""
    return sorted(reports, key=_worst)


def _fails(report: LogReport, failing: frozenset[Severity]) -> bool:
    return report.status == "unreadable" or any(f.severity in failing for f in report.findings)


class AuditText(AuditReporter):
    """The text report (see the module docstring). Unfolded, each log's findings are
    written as soon as it is audited; folded, at the end (folding needs every log)."""

    shows_progress = True

    def unit(self, unit: LogReport) -> None:
        view = self.view
        if view.files_only:
            if unit.findings:
                self.write(sanitize(self.path(unit)) + "\n")
        elif not view.fold and not view.statistics and not view.summary_only and unit.findings:
            # An ok log shows no line: no name to make, no write (each write looks for a signal).
            self.write(log_text(unit, self.style, self.path(unit), fold=False))

    def finish(self, result: AuditResult) -> None:
        view = self.view
        if view.files_only:
            return
        if view.fold and not view.statistics and not view.summary_only:
            folded = _folded(result.reports)
            hidden = frozenset(folded)
            # One write for the logs (not one a log: each write looks for a pending signal).
            self.write("".join(log_text(report, self.style, self.path(report), hidden=hidden,
                                        named=_fails(report, result.failing))
                               for report in by_what_is_wrong(result.reports) if report.findings))
            if folded:
                self.write("\n" + self.style.paint("bold", FOLDED_TITLE) + "\n")
                for places in folded.values():
                    self.write("\n".join(_fold_entry(places, self)) + "\n")
        self.write_utf8(self.closing(result))

    def closing(self, result: AuditResult) -> bytes:
        view = self.view
        if view.files_only:
            return b""
        if view.statistics:
            text = "\n".join([*rule_table(result.reports), "", files_line(result.summary, result.cached),
                              findings_line(result.summary)]).lstrip("\n") + "\n"
        elif view.summary_only:
            text = "\n".join([files_line(result.summary, result.cached), findings_line(result.summary)]) + "\n"
        else:
            text = summary_text(result.reports, result.summary, self.style, result.baselined, result.cached)
        return utf8(text)


def finding_dict(f: Finding) -> dict[str, Any]:
    return {"rule": f.rule, "severity": f.severity.value, "line": f.line, "seq": f.seq,
            "type": f.type, "message": f.message}


def audit_document(result: AuditResult) -> dict[str, Any]:
    """The JSON report's document (docs/guides/audit.md documents its schema)."""
    return {**_document_before_summary(result), "summary": summary_dict(result.summary, result.cached)}


def _document_before_summary(result: AuditResult) -> dict[str, Any]:
    return {"files": [file_dict(r) for r in result.reports], "passed_over": _passed_over(result.passed_over)}


def file_dict(report: LogReport) -> dict[str, Any]:
    """A log's entry in the JSON report's ``files``."""
    return {"path": report.path, "status": report.status, "events": report.events,
            "findings": [finding_dict(f) for f in report.findings]}


def _passed_over(passed: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"path": path, "reason": why} for path, why in passed]


def summary_dict(summary: Summary, cached: int | None) -> dict[str, Any]:
    """The JSON report's ``summary``: the totals, and how many logs came from the cache."""
    return {"files": summary.files, "ok": summary.ok, "failed": summary.failed, "events": summary.events,
            "errors": summary.errors, "warnings": summary.warnings, "policy": summary.policy,
            **({"cached": cached} if cached else {})}


_FILES_START = b'{\n  "files": [\n'
FILES_SEPARATOR = b",\n"
"""What lies between two entries of the JSON report's ``files``."""
_FILE_INDENT = b"    "
"""A log's entry inside ``files``: two levels deep in the indented document."""


def json_file(report: LogReport) -> bytes:
    """A log's entry as the JSON report writes it inside ``files`` (indented for its
    depth: a JSON text holds no raw newline inside a string, so each line is moved)."""
    return _FILE_INDENT + json_bytes(file_dict(report), indent=True).replace(b"\n", b"\n" + _FILE_INDENT)


def _files_end(passed: Sequence[tuple[str, str]]) -> bytes:
    """What follows the last entry of ``files``, up to the summary: ``passed_over``."""
    rest = json_bytes({"passed_over": _passed_over(passed)}, indent=True)  # "{\n  "passed_over": …\n}"
    return b"\n  ],\n" + rest[2:-2]


def json_head(reports: Sequence[LogReport], passed: Sequence[tuple[str, str]]) -> tuple[bytes, list[tuple[int, int]]]:
    """The JSON report up to its last member (``json_report``'s first part), made of
    each log's entry (``json_file``), with where each entry lies in it (start, end)."""
    if not reports:
        head = json_bytes({"files": [], "passed_over": _passed_over(passed)}, indent=True)
        return head[:-2], []
    out, spans = bytearray(_FILES_START), []
    for i, report in enumerate(reports):
        if i:
            out += FILES_SEPARATOR
        start = len(out)
        out += json_file(report)  # one grown buffer: no entry is held once it is in
        spans.append((start, len(out)))
    out += _files_end(passed)
    return bytes(out), spans


def json_report(result: AuditResult) -> tuple[bytes, bytes]:
    """The JSON report's bytes as two parts that make it when joined: the document up
    to its last member, and its end (``,`` the summary, ``}`` and a newline), the one
    part that says how many logs came from the cache. Each is indented as it is in
    the whole document (a property test holds the join to the document's bytes)."""
    return json_head(result.reports, result.passed_over)[0], json_closing(result.summary, result.cached)


def json_closing(summary: Summary, cached: int | None) -> bytes:
    """The JSON report's end: its summary (``summary_dict``), ``}`` and a newline."""
    tail = json_bytes({"summary": summary_dict(summary, cached)}, indent=True)  # "{\n  "summary": {…}\n}"
    return b",\n" + tail[2:] + b"\n"


class AuditJson(AuditReporter):
    """One JSON document (docs/guides/audit.md documents its schema), made as the logs
    are audited: each log's entry as its report comes (``json_file``), the rest at the
    end. The same bytes as ``json_report`` makes of the whole result. Nothing reaches
    the stream before ``finish``: the entries wait in an unnamed temporary file, so that
    an audit that fails or is interrupted leaves no half document, in little memory."""

    writes_json = True

    HELD = 1 << 16
    """Bytes of entries kept in memory before they wait on disk; a tenfold block is
    written at a time at the end."""

    def __init__(self, stream: TextIO, style: Style = PLAIN, view: AuditView | None = None) -> None:
        super().__init__(stream, style, view)
        self.spans: list[tuple[int, int]] = []
        """Where each log's entry lies in the report written."""
        self._written = 0
        self._held: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=self.HELD)  # noqa: SIM115 (closed in finish)

    def _out(self, data: bytes) -> None:
        try:
            self._held.write(data)
        except OSError as exc:
            raise OutputError(f"{tempfile.gettempdir()}: cannot hold the JSON report until the audit ends "
                              f"({reason(exc)})") from None
        self._written += len(data)

    def unit(self, unit: LogReport) -> None:
        self._out(FILES_SEPARATOR if self.spans else _FILES_START)
        start = self._written
        self._out(json_file(unit))
        self.spans.append((start, self._written))

    def finish(self, result: AuditResult) -> None:
        if self.spans:
            self._out(_files_end(result.passed_over))
        else:  # no log was told as it came: the whole report now
            head, self.spans = json_head(result.reports, result.passed_over)
            self._out(head)
        self._out(self.closing(result))
        held = self._held
        held.seek(0)
        while block := held.read(self.HELD * 10):
            self.write_utf8(block)
        held.close()

    def closing(self, result: AuditResult) -> bytes:
        return json_closing(result.summary, result.cached)


_GITHUB_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.POLICY: "notice"}


class AuditGithub(AuditReporter):
    """GitHub Actions annotations, one per finding, as each log is audited."""

    def unit(self, unit: LogReport) -> None:
        path = self.path(unit)
        for f in unit.findings:
            self.write(annotation(_GITHUB_LEVELS[f.severity], f.message, file=path, line=f.line,
                                  title=f"{f.rule} {f.severity.value}") + "\n")


class AuditJunit(AuditReporter):
    """JUnit XML: one suite per log, one test case per rule that fired (failing when one
    of its findings has a failing severity), and a passing case for a clean log."""

    def finish(self, result: AuditResult) -> None:
        suites = []
        for r in result.reports:
            suite = Suite(r.path)
            by_rule: dict[str, list[Finding]] = {}
            for f in r.findings:
                by_rule.setdefault(f.rule, []).append(f)
            for rule, found in by_rule.items():
                failing = [f for f in found if f.severity in result.failing]
                lines = "\n".join(finding_line(r.path, f, PLAIN) for f in found)
                message = counted(len(failing), f"{rule} finding") if failing else None
                suite.cases.append(Case(rule, message, lines))
            if not by_rule:
                suite.cases.append(Case("audit"))
            suites.append(suite)
        self.write(junit_xml(line("audit"), suites).decode("utf-8"))
