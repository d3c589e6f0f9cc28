"""Reporters of an audit (``replay.check.engine.AuditResult``, one ``LogReport`` per
log): text, JSON and GitHub annotations for ``--format``, JUnit XML for ``--junit``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import orjson

from replay.check.engine import AuditResult, LogReport, Summary
from replay.check.registry import rule_kind
from replay.findings import Finding, Severity
from replay.report.base import Reporter
from replay.report.github import annotation
from replay.report.junit import Case, Suite, junit_xml
from replay.style import PLAIN, Style, sanitize

SEVERITY_COLORS = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.POLICY: "cyan"}

_SECTIONS = (
    ("format", "format — what today's harness would refuse (error) or migrate/repair (warning) on load"),
    ("invariant", "durable invariants (config-independent; a harness-written log has none)"),
    ("policy", "policy what-if (never an invariant)"),
)


class AuditReporter(Reporter[LogReport, AuditResult]):
    """A format of an audit: its units are the logs' reports, in audit order."""

    def units(self, result: AuditResult) -> Sequence[LogReport]:
        return result.reports


def finding_line(path: str, f: Finding, style: Style) -> str:
    """``path:line: RULE severity: message``, one line whatever the message holds."""
    where = f"{sanitize(path)}:{f.line}" if f.line is not None else sanitize(path)
    severity = style.paint(SEVERITY_COLORS[f.severity], f.severity.value)
    return f"{where}: {style.paint('bold', f.rule)} {severity}: {sanitize(f.message)}"


def log_text(report: LogReport, style: Style) -> str:
    """One log: a heading, then its findings grouped by kind. Empty for a clean log."""
    if not report.findings:
        return ""
    lines = [style.paint("bold", f"{sanitize(report.path)} ({report.events} events, {report.status})")]
    for kind, title in _SECTIONS:
        group = [f for f in report.findings if rule_kind(f.rule) == kind]
        if not group:
            continue
        lines.append("  " + style.paint("dim", title))
        lines.extend("    " + finding_line(report.path, f, style) for f in group)
    return "\n".join(lines) + "\n"


def summary_text(reports: Iterable[LogReport], summary: Summary, style: Style) -> str:
    """The closing table: totals, then the count of each rule and severity; on a
    terminal a coloured verdict line after it."""
    by_rule: Counter[tuple[str, str]] = Counter()
    for r in reports:
        for f in r.findings:
            by_rule[(f.rule, f.severity.value)] += 1
    rows = [("files", summary.files), ("ok", summary.ok), ("failed", summary.failed),
            ("events", summary.events), ("errors", summary.errors), ("warnings", summary.warnings),
            ("policy", summary.policy)]
    width = max(len(k) for k, _ in rows)
    out = ["", "summary"]
    out += [f"  {k.ljust(width)}  {v:>9}" for k, v in rows]
    if by_rule:
        out.append("  by rule")
        for (rule, severity), n in sorted(by_rule.items(), key=lambda kv: (_summary_order(kv[0][0]), kv[0][1])):
            out.append(f"    {rule:<4} {severity:<8} {n:>7}")
    text = "\n".join(out) + "\n"
    if style.color:
        verdict = style.paint("red", f"{summary.failed} failed") if summary.failed else style.paint("green", "all ok")
        text += verdict + "\n"
    return text


def _summary_order(rule: str) -> tuple[str, int]:
    """The summary's rows: by series letter, then by number (A2 before A10)."""
    head = rule.rstrip("0123456789")
    tail = rule[len(head):]
    return head, int(tail) if tail else 0


class AuditText(AuditReporter):
    """Each log's findings as soon as it is audited, then the summary."""

    shows_progress = True

    def unit(self, unit: LogReport) -> None:
        self.write(log_text(unit, self.style))

    def finish(self, result: AuditResult) -> None:
        self.write(summary_text(result.reports, result.summary, self.style))


def finding_dict(f: Finding) -> dict[str, Any]:
    return {"rule": f.rule, "severity": f.severity.value, "line": f.line, "seq": f.seq,
            "type": f.type, "message": f.message}


def audit_document(result: AuditResult) -> dict[str, Any]:
    """The JSON report's document (the README documents its schema)."""
    summary = result.summary
    return {
        "files": [
            {"path": r.path, "status": r.status, "events": r.events,
             "findings": [finding_dict(f) for f in r.findings]}
            for r in result.reports
        ],
        "summary": {"files": summary.files, "ok": summary.ok, "failed": summary.failed,
                    "events": summary.events, "errors": summary.errors,
                    "warnings": summary.warnings, "policy": summary.policy},
    }


class AuditJson(AuditReporter):
    """One JSON document (the README documents its schema)."""

    def finish(self, result: AuditResult) -> None:
        # The document is gone before its text is made: a large audit holds the bytes
        # and the text at once, never the dicts as well.
        self.write(orjson.dumps(audit_document(result), option=orjson.OPT_INDENT_2).decode())
        self.write("\n")


_GITHUB_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.POLICY: "notice"}


class AuditGithub(AuditReporter):
    """GitHub Actions annotations, one per finding, as each log is audited."""

    def unit(self, unit: LogReport) -> None:
        for f in unit.findings:
            self.write(annotation(_GITHUB_LEVELS[f.severity], f.message, file=unit.path, line=f.line,
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
                suite.cases.append(Case(rule, f"{len(failing)} {rule} finding(s)" if failing else None, lines))
            if not by_rule:
                suite.cases.append(Case("audit"))
            suites.append(suite)
        self.write(junit_xml("replay audit", suites).decode("utf-8"))
