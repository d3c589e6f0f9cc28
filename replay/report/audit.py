"""Formatters of audit results. Each is a pure function of the reports."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from replay.check.engine import LogReport, Summary
from replay.check.registry import rule_kind
from replay.findings import Finding, Severity
from replay.report.junit import Case, Suite, junit_xml

_SEVERITY_STYLE = {
    Severity.ERROR: "\x1b[31m",
    Severity.WARNING: "\x1b[33m",
    Severity.POLICY: "\x1b[36m",
}
_BOLD = "\x1b[1m"
_DIM = "\x1b[2m"
_RESET = "\x1b[0m"

_SECTIONS = (
    ("format", "format — what today's harness would refuse (error) or migrate/repair (warning) on load"),
    ("invariant", "durable invariants (config-independent; a harness-written log has none)"),
    ("policy", "policy what-if (never an invariant)"),
)


def neutral(text: str) -> str:
    """Keep log-derived text from driving the terminal: escape control characters."""
    return "".join(ch if ch >= " " or ch == "\t" else f"\\x{ord(ch):02x}" for ch in text).replace(
        "\x7f", "\\x7f")


def finding_line(path: str, f: Finding, color: bool) -> str:
    where = f"{path}:{f.line}" if f.line is not None else path
    severity = f.severity.value
    if color:
        severity = f"{_SEVERITY_STYLE[f.severity]}{severity}{_RESET}"
        rule = f"{_BOLD}{f.rule}{_RESET}"
    else:
        rule = f.rule
    return f"{where}: {rule} {severity}: {neutral(f.message)}"


def text_report(report: LogReport, color: bool) -> str:
    """One log: a heading, then its findings grouped by kind. Empty for a clean log."""
    if not report.findings:
        return ""
    path = neutral(report.path)
    head = f"{path} ({report.events} events, {report.status})"
    lines = [f"{_BOLD}{head}{_RESET}" if color else head]
    for kind, title in _SECTIONS:
        group = [f for f in report.findings if rule_kind(f.rule) == kind]
        if not group:
            continue
        lines.append(f"  {_DIM}{title}{_RESET}" if color else f"  {title}")
        lines.extend("    " + finding_line(path, f, color) for f in group)
    return "\n".join(lines) + "\n"


def text_summary(reports: Iterable[LogReport], summary: Summary, color: bool) -> str:
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
        for (rule, severity), n in sorted(by_rule.items(), key=lambda kv: (_rule_order(kv[0][0]), kv[0][1])):
            out.append(f"    {rule:<4} {severity:<8} {n:>7}")
    text = "\n".join(out) + "\n"
    if color:
        verdict = f"\x1b[31m{summary.failed} failed{_RESET}" if summary.failed else f"\x1b[32mall ok{_RESET}"
        text += verdict + "\n"
    return text


def _rule_order(rule: str) -> tuple[str, int]:
    head = rule.rstrip("0123456789")
    tail = rule[len(head):]
    return head, int(tail) if tail else 0


def finding_dict(f: Finding) -> dict[str, Any]:
    return {"rule": f.rule, "severity": f.severity.value, "line": f.line, "seq": f.seq,
            "type": f.type, "message": f.message}


def json_report(reports: list[LogReport], summary: Summary) -> bytes:
    doc = {
        "files": [
            {"path": r.path, "status": r.status, "events": r.events,
             "findings": [finding_dict(f) for f in r.findings]}
            for r in reports
        ],
        "summary": {"files": summary.files, "ok": summary.ok, "failed": summary.failed,
                    "events": summary.events, "errors": summary.errors,
                    "warnings": summary.warnings, "policy": summary.policy},
    }
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"


_GH_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.POLICY: "notice"}


def gh_escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def github_lines(report: LogReport) -> Iterator[str]:
    """GitHub Actions workflow commands, one per finding."""
    for f in report.findings:
        props = [f"file={gh_escape(report.path, True)}"]
        if f.line is not None:
            props.append(f"line={f.line}")
        props.append(f"title={gh_escape(f.rule + ' ' + f.severity.value, True)}")
        yield f"::{_GH_LEVEL[f.severity]} {','.join(props)}::{gh_escape(f.message)}"


def junit(reports: list[LogReport], fail_on: frozenset[Severity]) -> bytes:
    """One suite per log, one test case per rule that fired (failing when one of its
    findings has a failing severity), and a passing case for a clean log."""
    suites = []
    for r in reports:
        suite = Suite(r.path)
        by_rule: dict[str, list[Finding]] = {}
        for f in r.findings:
            by_rule.setdefault(f.rule, []).append(f)
        for rule, found in by_rule.items():
            failing = [f for f in found if f.severity in fail_on]
            lines = "\n".join(finding_line(r.path, f, color=False) for f in found)
            suite.cases.append(Case(rule, f"{len(failing)} {rule} finding(s)" if failing else None, lines))
        if not by_rule:
            suite.cases.append(Case("audit"))
        suites.append(suite)
    return junit_xml("replay audit", suites)
